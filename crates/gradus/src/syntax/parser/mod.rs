//! The parser: tokens to declarations (docs/language.md §Declarations, §Expressions, §Patterns,
//! §Modules, §Attributes).
//!
//! Recursive descent; binary operators by precedence climbing over the levels of
//! docs/language.md §Precedence (an operator's level is decided by its longest listed prefix, see
//! [`op_level`]). From loosest to tightest an expression is parsed as: ascription `:`/`:>`,
//! ranges, backticked functions, `with`, binary operators (levels 7–16), prefix `-`/`!`,
//! application, then atoms with postfix indexing and field access.
//!
//! Decisions worth knowing:
//!
//! - `let`, `if`, `loop`, lambdas, `match`, `assert` and `#[attr] e` are "block" expressions:
//!   they may start any operand and their last part extends as far right as possible. A
//!   lambda may also be the last argument of an application (`tabulate n \i -> e`); other
//!   blocks must be parenthesised there.
//! - `-` after an operand is always binary (`f -1` is `f - 1`); `(-1)` and `(- x)` are
//!   negations, `(-)` is a section.
//! - An operator immediately followed by `)` ends the expression before it, which makes
//!   `(e op)` a left section.
//! - Inside `[...]` of an index, expressions are parsed without ascription, so `a[i: j]` is
//!   a slice.
//! - A lambda's return type and a `case` pattern's type are parsed without a top-level
//!   arrow (the following `->` belongs to the lambda or case).
//! - In a type application, `[d]` is always a size argument (`vec [n] t`); write
//!   `vec ([n]t)` to pass an array type. An array's element type may itself be an
//!   application: `[n]vec [3] f64` is `[n](vec [3] f64)`.
//! - Nesting deeper than [`MAX_DEPTH`] is an error, so no input overflows the stack.
//!
//! This file holds the entry points, the parser's state and the token helpers; the grammar is
//! split by construct into `decl` (attributes and declarations), `modules`, `types`,
//! `pattern`, `exp` (ascription down to prefix operators), `atom` (application, postfix
//! indexing, atoms and parentheses) and `block` (`let`, `if`, `loop`, lambdas, ...).

use super::ast::*;
use super::lexer::{Kw, Tok, Token, lex};
use crate::diag::{Diagnostic, FileId, Span};

mod atom;
mod block;
mod decl;
mod exp;
mod modules;
mod pattern;
mod types;

/// The deepest nesting of expressions, patterns, types and declarations the parser accepts.
pub const MAX_DEPTH: u32 = 256;

/// The longest chain of left-nested nodes (operators in a row like `a + b + c`, postfix
/// indexing, `with` updates, `let`s in a chain) the parser builds. The parser itself handles
/// such chains iteratively; the limit keeps the depth of the resulting tree, which later
/// stages traverse recursively, bounded.
pub const MAX_CHAIN: usize = 4096;

/// The stack size of the parser's own thread.
const PARSER_STACK: usize = 64 << 20;

/// The most stack the parser uses when it must run on the caller's thread, whose stack may be
/// as small as 2 MiB. See [`stack_address`].
const SMALL_STACK_BUDGET: usize = 1 << 20;

type PResult<T> = Result<T, Diagnostic>;

/// The address of a local variable: how deep the stack is right now. The parser compares it
/// with its value at the start, so nesting is limited by the stack actually used, not only
/// by [`MAX_DEPTH`].
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

static EOF: Tok = Tok::Eof;

/// Parses one file into its declarations, taking node ids from `ids`.
pub fn parse_file(file: FileId, text: &str, ids: &mut NodeIdGen) -> PResult<Vec<Dec>> {
    with_stack(ids, |ids, budget| {
        let mut p = Parser::new(file, text, ids, budget);
        let mut decs = Vec::new();
        while *p.peek() != Tok::Eof {
            let at_start = p.pos;
            match p.dec() {
                Ok(d) => decs.push(d),
                Err(e) => {
                    // A stray token right after a complete declaration: say where that
                    // declaration ended, since the token was probably meant to continue it.
                    let stray = p.pos == at_start
                        && !matches!(p.peek(), Tok::Error(_) | Tok::Unsupported(_))
                        && e.message.starts_with("expected a declaration");
                    return Err(match decs.last() {
                        Some(prev) if stray => {
                            let end = Span {
                                start: prev.span.end,
                                ..prev.span
                            };
                            e.with_secondary(end, "the previous declaration ends here")
                        }
                        _ => e,
                    });
                }
            }
        }
        Ok(decs)
    })
}

/// Parses a single expression (the whole text), for tests and tools.
pub fn parse_exp(file: FileId, text: &str, ids: &mut NodeIdGen) -> PResult<Exp> {
    with_stack(ids, |ids, budget| {
        let mut p = Parser::new(file, text, ids, budget);
        let e = p.exp()?;
        if *p.peek() != Tok::Eof {
            return Err(p.expected("end of input"));
        }
        Ok(e)
    })
}

/// Runs the parser on a thread of its own with a large stack, so that [`MAX_DEPTH`] levels
/// of nesting fit even in unoptimised builds (whose frames are large) and whatever stack the
/// caller has left. If no thread can be started, parses on the caller's thread with a small
/// stack budget instead (deep nesting is then rejected earlier).
fn with_stack<T: Send>(
    ids: &mut NodeIdGen,
    f: impl FnOnce(&mut NodeIdGen, usize) -> PResult<T> + Send,
) -> PResult<T> {
    let mut f = Some(f);
    let result = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(PARSER_STACK)
            .spawn_scoped(scope, || {
                let mut local = ids.clone();
                let r = f.take().map(|f| f(&mut local, PARSER_STACK / 4 * 3));
                (r, local)
            });
        match spawned {
            Ok(handle) => handle.join().ok(),
            Err(_) => None,
        }
    });
    match result {
        Some((Some(r), local)) => {
            *ids = local;
            r
        }
        _ => match f.take() {
            Some(f) => f(ids, SMALL_STACK_BUDGET),
            None => Err(Diagnostic::bug("the parser thread failed")),
        },
    }
}

/// The precedence level of a binary operator symbol (docs/language.md §Precedence): 7 (`|>`) to 16
/// (`**`), decided by the longest listed prefix.
pub fn op_level(op: &str) -> u8 {
    const TABLE: [(&str, u8); 21] = [
        ("|>", 7),
        ("<|", 8),
        ("||", 9),
        ("&&", 10),
        ("==", 11),
        ("!=", 11),
        ("<=", 11),
        (">=", 11),
        ("<<", 13),
        (">>", 13),
        ("**", 16),
        ("//", 15),
        ("%%", 15),
        ("<", 11),
        (">", 11),
        ("!", 11),
        ("=", 11),
        ("&", 12),
        ("^", 12),
        ("|", 12),
        ("+", 14),
    ];
    let mut best: Option<(usize, u8)> = None;
    for (prefix, level) in TABLE {
        if op.starts_with(prefix) && best.is_none_or(|(len, _)| prefix.len() > len) {
            best = Some((prefix.len(), level));
        }
    }
    if let Some((_, level)) = best {
        return level;
    }
    match op.as_bytes().first() {
        Some(b'-') => 14,
        Some(b'*' | b'/' | b'%') => 15,
        _ => 11,
    }
}

/// Whether an operator at this level associates to the right (only `<|`).
fn right_assoc(level: u8) -> bool {
    level == 8
}

struct Parser<'a> {
    file: FileId,
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    prev: Span,
    ids: &'a mut NodeIdGen,
    depth: u32,
    stack_base: usize,
    stack_budget: usize,
    /// Inside the brackets of an index, where `:` separates slice parts and so cannot be a
    /// type ascription (not even at the end of an `if` or `let` there). Reset inside
    /// parentheses, array and record literals.
    in_index: bool,
}

/// A binary operator found by lookahead: its name, span, whether backticked, and how many
/// tokens it spans.
struct OpAhead {
    name: QualName,
    span: Span,
    backtick: bool,
    len: usize,
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Ident(s) | Tok::Op(s) => s.clone(),
        Tok::Kw(k) => k.text().to_string(),
        Tok::Constructor(s) => format!("#{s}"),
        Tok::LParen => "(".into(),
        Tok::RParen => ")".into(),
        Tok::LBracket => "[".into(),
        Tok::RBracket => "]".into(),
        Tok::LBrace => "{".into(),
        Tok::RBrace => "}".into(),
        Tok::Comma => ",".into(),
        Tok::Colon => ":".into(),
        Tok::ColonGt => ":>".into(),
        Tok::Arrow => "->".into(),
        Tok::Equals => "=".into(),
        Tok::Backslash => "\\".into(),
        Tok::Underscore => "_".into(),
        Tok::Quote => "'".into(),
        Tok::QuoteTilde => "'~".into(),
        Tok::QuoteCaret => "'^".into(),
        Tok::Tilde => "~".into(),
        Tok::Question => "?".into(),
        Tok::Hole => "???".into(),
        Tok::HashBracket => "#[".into(),
        Tok::Backtick => "`".into(),
        Tok::Dot => ".".into(),
        Tok::DotDot => "..".into(),
        Tok::DotDotDot => "...".into(),
        Tok::DotDotLt => "..<".into(),
        Tok::DotDotGt => "..>".into(),
        Tok::Int(_) | Tok::Float(_) | Tok::Char(_) | Tok::Str(_) => "literal".into(),
        Tok::Error(_) | Tok::Unsupported(_) => "error".into(),
        Tok::Eof => "end of file".into(),
    }
}

impl<'a> Parser<'a> {
    fn new(file: FileId, text: &'a str, ids: &'a mut NodeIdGen, stack_budget: usize) -> Self {
        Parser {
            file,
            text,
            toks: lex(file, text),
            pos: 0,
            prev: Span::new(file, 0, 0),
            ids,
            depth: 0,
            stack_base: stack_address(),
            stack_budget,
            in_index: false,
        }
    }

    // ----- token access -----

    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Tok {
        self.toks.get(self.pos + n).map_or(&EOF, |t| &t.tok)
    }

    fn token_at(&self, n: usize) -> Option<&Token> {
        self.toks.get(self.pos + n)
    }

    /// Whether the token `n` ahead comes right after the previous one, with no space.
    fn adjacent_at(&self, n: usize) -> bool {
        self.token_at(n).is_some_and(|t| !t.space_before)
    }

    fn span(&self) -> Span {
        self.token_at(0).map_or(
            Span::new(self.file, self.text.len(), self.text.len()),
            |t| t.span,
        )
    }

    fn bump(&mut self) -> Tok {
        match self.toks.get(self.pos) {
            Some(t) if t.tok != Tok::Eof => {
                self.prev = t.span;
                self.pos += 1;
                t.tok.clone()
            }
            _ => Tok::Eof,
        }
    }

    fn advance(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes the current token, which makes `node` on its own.
    fn bumped<T>(&mut self, node: T) -> T {
        self.bump();
        node
    }

    fn eat_kw(&mut self, k: Kw) -> bool {
        self.eat(&Tok::Kw(k))
    }

    fn from(&self, start: Span) -> Span {
        if self.prev.end < start.start {
            start
        } else {
            start.to(self.prev)
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            Tok::Eof => "end of file".to_string(),
            _ => {
                let sp = self.span();
                let s = self
                    .text
                    .get(sp.start as usize..sp.end as usize)
                    .unwrap_or("");
                if s.chars().count() > 24 {
                    let short: String = s.chars().take(20).collect();
                    format!("`{short}...`")
                } else {
                    format!("`{s}`")
                }
            }
        }
    }

    /// `expected {what}, found {current token}`, at the current token; a lexical error
    /// there is reported instead.
    fn expected(&self, what: &str) -> Diagnostic {
        match self.peek() {
            Tok::Error(msg) => return Diagnostic::error(self.span(), msg.clone()),
            Tok::Unsupported(what) => return Diagnostic::limitation(self.span(), what.clone()),
            _ => {}
        }
        // At the end of the file, point just after the last token rather than at a blank
        // line below it.
        let span = match self.peek() {
            Tok::Eof if self.pos > 0 => Span {
                start: self.prev.end,
                ..self.prev
            },
            _ => self.span(),
        };
        Diagnostic::error(span, format!("expected {what}, found {}", self.found()))
    }

    fn expect(&mut self, t: &Tok) -> PResult<Span> {
        if self.peek() == t {
            self.bump();
            Ok(self.prev)
        } else {
            Err(self.expected(&format!("`{}`", tok_text(t))))
        }
    }

    /// Expects the closing bracket `t` of the group opened at `open`.
    fn expect_close(&mut self, t: &Tok, open: Span, what: &str) -> PResult<Span> {
        self.expect(t)
            .map_err(|d| d.with_secondary(open, format!("unclosed `{what}`")))
    }

    fn expect_kw(&mut self, k: Kw) -> PResult<Span> {
        self.expect(&Tok::Kw(k))
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, self.prev))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH || stack_address().abs_diff(self.stack_base) > self.stack_budget {
            return Err(Diagnostic::error(
                self.span(),
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        Ok(())
    }

    /// Checks the length of a left-nested chain (see [`MAX_CHAIN`]).
    fn chain(&self, n: &mut usize) -> PResult<()> {
        *n += 1;
        if *n > MAX_CHAIN {
            return Err(Diagnostic::error(
                self.span(),
                format!("expression too long (more than {MAX_CHAIN} operations in a chain)"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn guarded<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let r = f(self);
        self.leave();
        r
    }

    /// Runs `f` with [`Parser::in_index`] set to `in_index`, restoring it afterwards.
    fn index_context<T>(
        &mut self,
        in_index: bool,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let saved = std::mem::replace(&mut self.in_index, in_index);
        let r = f(self);
        self.in_index = saved;
        r
    }

    fn mk(&mut self, kind: ExpKind, span: Span) -> Exp {
        Exp {
            id: self.ids.fresh(),
            span,
            kind,
        }
    }

    fn mk_pat(&mut self, kind: PatKind, span: Span) -> Pat {
        Pat {
            id: self.ids.fresh(),
            span,
            kind,
        }
    }

    /// What `f` parses after `t`, if the next token is `t`.
    fn optional<T>(
        &mut self,
        t: &Tok,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<Option<T>> {
        if self.eat(t) {
            f(self).map(Some)
        } else {
            Ok(None)
        }
    }

    /// The current token, which opens a group (`what`: `(`, `[` or `{`), then items separated
    /// by commas, then the closing `close`; a trailing comma is allowed.
    fn delimited<T>(
        &mut self,
        close: &Tok,
        what: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let open = self.span();
        self.bump();
        let mut items = Vec::new();
        while self.peek() != close {
            items.push(item(self)?);
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        self.expect_close(close, open, what)?;
        Ok(items)
    }

    /// After `(` and a first element: the other elements of a tuple, if a comma follows (so
    /// `(a,)` is a tuple), else the first element alone, a grouping; then the closing `)` of
    /// the `(` at `open`. A trailing comma is allowed.
    fn tuple_or_group<T>(
        &mut self,
        first: T,
        open: Span,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Paren<T>> {
        if *self.peek() != Tok::Comma {
            self.expect_close(&Tok::RParen, open, "(")?;
            return Ok(Paren::Group(first));
        }
        let mut items = vec![first];
        while self.eat(&Tok::Comma) {
            if *self.peek() == Tok::RParen {
                break;
            }
            items.push(item(self)?);
        }
        self.expect_close(&Tok::RParen, open, "(")?;
        Ok(Paren::Tuple(items))
    }
}

/// What a parenthesised expression, pattern or type is (see [`Parser::tuple_or_group`]).
enum Paren<T> {
    Group(T),
    Tuple(Vec<T>),
}

/// `["a", "b", "c"]` to `a.b.c`.
fn split_qual(mut names: Vec<String>) -> QualName {
    let name = names.pop().unwrap_or_default();
    QualName {
        qualifiers: names,
        name,
    }
}

#[cfg(test)]
mod tests {
    use super::op_level;

    #[test]
    fn operator_levels_follow_the_longest_prefix() {
        let cases = [
            ("|>", 7),
            ("<|", 8),
            ("<|>", 8),
            ("||", 9),
            ("&&", 10),
            ("==", 11),
            ("!=", 11),
            ("<", 11),
            (">=", 11),
            (">->", 11),
            ("<-<", 11),
            ("<->", 11),
            ("!", 11),
            ("&", 12),
            ("^", 12),
            ("|", 12),
            ("<<", 13),
            (">>", 13),
            (">>=", 13),
            (">>>", 13),
            ("+", 14),
            ("-", 14),
            ("+^", 14),
            ("*", 15),
            ("/", 15),
            ("%", 15),
            ("//", 15),
            ("%%", 15),
            ("**", 16),
        ];
        for (op, level) in cases {
            assert_eq!(op_level(op), level, "{op}");
        }
    }
}
