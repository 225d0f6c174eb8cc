//! The parser: tokens to declarations (LANGUAGE.md sections 4–6, 11, 12).
//!
//! Recursive descent; binary operators by precedence climbing over the levels of
//! LANGUAGE.md 5.2 (an operator's level is decided by its longest listed prefix, see
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

use super::ast::*;
use super::lexer::{Kw, Tok, Token, lex};
use crate::diag::{Diagnostic, FileId, Span};
use crate::value::PrimType;

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

/// The precedence level of a binary operator symbol (LANGUAGE.md 5.2): 7 (`|>`) to 16
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

    // ----- attributes -----

    /// After `#[`: the attribute and the closing `]`.
    fn attr_body(&mut self) -> PResult<Attr> {
        let open = self.prev;
        let a = self.attr()?;
        self.expect_close(&Tok::RBracket, open, "#[")?;
        Ok(a)
    }

    fn attr(&mut self) -> PResult<Attr> {
        self.guarded(|p| {
            let start = p.span();
            match p.peek().clone() {
                Tok::Ident(name) => {
                    p.bump();
                    if p.eat(&Tok::LParen) {
                        let open = p.prev;
                        let mut args = Vec::new();
                        while *p.peek() != Tok::RParen {
                            args.push(p.attr()?);
                            if !p.eat(&Tok::Comma) {
                                break;
                            }
                        }
                        p.expect_close(&Tok::RParen, open, "(")?;
                        Ok(Attr {
                            span: p.from(start),
                            kind: AttrKind::Call(name, args),
                        })
                    } else {
                        Ok(Attr {
                            span: start,
                            kind: AttrKind::Name(name),
                        })
                    }
                }
                Tok::Kw(k) => {
                    p.bump();
                    Ok(Attr {
                        span: start,
                        kind: AttrKind::Name(k.text().to_string()),
                    })
                }
                Tok::Int(lit) => {
                    p.bump();
                    Ok(Attr {
                        span: start,
                        kind: AttrKind::Int(i128::try_from(lit.value).unwrap_or(i128::MAX)),
                    })
                }
                Tok::Op(o) if o == "-" && matches!(p.peek_at(1), Tok::Int(_)) => {
                    p.bump();
                    let v = match p.bump() {
                        Tok::Int(lit) => i128::try_from(lit.value).unwrap_or(i128::MAX),
                        _ => 0,
                    };
                    Ok(Attr {
                        span: p.from(start),
                        kind: AttrKind::Int(-v),
                    })
                }
                _ => Err(p.expected("an attribute")),
            }
        })
    }

    // ----- declarations -----

    fn dec(&mut self) -> PResult<Dec> {
        self.guarded(|p| p.dec_inner())
    }

    fn dec_inner(&mut self) -> PResult<Dec> {
        let start = self.span();
        let mut attrs = Vec::new();
        while self.eat(&Tok::HashBracket) {
            attrs.push(self.attr_body()?);
        }
        let kind = match self.peek() {
            Tok::Kw(Kw::Def | Kw::Entry | Kw::Let) => DecKind::Value(self.value_dec()?),
            Tok::Kw(Kw::Type) => {
                self.bump();
                let lifted = self.liftedness();
                let (name, name_span) = self.ident("a type name")?;
                let params = self.type_params()?;
                self.expect(&Tok::Equals)?;
                let ty = self.ty()?;
                DecKind::TypeAbbrev(TypeDec {
                    name,
                    name_span,
                    lifted,
                    params,
                    ty,
                })
            }
            Tok::Kw(Kw::Module) => {
                self.bump();
                if self.eat_kw(Kw::Type) {
                    let (name, name_span) = self.ident("a module type name")?;
                    self.expect(&Tok::Equals)?;
                    let body = self.mod_type()?;
                    DecKind::ModuleType(ModTypeDec {
                        name,
                        name_span,
                        body,
                    })
                } else {
                    let (name, name_span) = self.ident("a module name")?;
                    let mut params = Vec::new();
                    while *self.peek() == Tok::LParen {
                        params.push(self.mod_param()?);
                    }
                    let sig = if self.eat(&Tok::Colon) {
                        Some(self.mod_type()?)
                    } else {
                        None
                    };
                    self.expect(&Tok::Equals)?;
                    let body = self.mod_exp()?;
                    DecKind::Module(ModuleDec {
                        name,
                        name_span,
                        params,
                        sig,
                        body,
                    })
                }
            }
            Tok::Kw(Kw::Open) => {
                self.bump();
                DecKind::Open(self.mod_exp()?)
            }
            Tok::Kw(Kw::Local) => {
                self.bump();
                DecKind::Local(Box::new(self.dec()?))
            }
            Tok::Kw(Kw::Import) => {
                self.bump();
                let (path, path_span) = self.string_lit()?;
                DecKind::Import { path, path_span }
            }
            _ => return Err(self.expected("a declaration")),
        };
        Ok(Dec {
            span: self.from(start),
            attrs,
            kind,
        })
    }

    fn string_lit(&mut self) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok((s, self.prev))
            }
            _ => Err(self.expected("a string literal")),
        }
    }

    /// `^` or `~` right after `type`.
    fn liftedness(&mut self) -> Lift {
        match self.peek() {
            Tok::Op(o) if o == "^" && self.adjacent_at(0) => {
                self.bump();
                Lift::Caret
            }
            Tok::Tilde if self.adjacent_at(0) => {
                self.bump();
                Lift::Tilde
            }
            _ => Lift::None,
        }
    }

    fn value_dec(&mut self) -> PResult<ValueDec> {
        let entry = self.bump() == Tok::Kw(Kw::Entry);
        // `def (op) ...`
        if *self.peek() == Tok::LParen
            && matches!(self.peek_at(1), Tok::Op(_))
            && *self.peek_at(2) == Tok::RParen
        {
            self.bump();
            let name_span = self.span();
            let name = match self.bump() {
                Tok::Op(o) => o,
                _ => String::new(),
            };
            self.bump();
            return self.value_dec_rest(entry, name, name_span, true, Vec::new());
        }
        // `def a op b` and `def (a: t) op (b: t)`
        let infix_name =
            matches!(self.peek(), Tok::Ident(_)) && matches!(self.peek_at(1), Tok::Op(_));
        if infix_name || *self.peek() == Tok::LParen {
            let lhs = self.pat_atom()?;
            let (name, name_span) = match self.peek().clone() {
                Tok::Op(o) => {
                    self.bump();
                    (o, self.prev)
                }
                _ => {
                    return Err(Diagnostic::error(
                        lhs.span,
                        "top-level patterns are not allowed: expected a name or an operator \
                         definition",
                    ));
                }
            };
            let rhs = self.pat_atom()?;
            let ret = if self.eat(&Tok::Colon) {
                Some(self.ty()?)
            } else {
                None
            };
            self.expect(&Tok::Equals)?;
            let body = self.exp()?;
            return Ok(ValueDec {
                entry,
                name,
                name_span,
                operator: true,
                type_params: Vec::new(),
                params: vec![lhs, rhs],
                ret,
                body,
            });
        }
        let (name, name_span) = self.ident("a name")?;
        let type_params = self.type_params()?;
        self.value_dec_rest(entry, name, name_span, false, type_params)
    }

    fn value_dec_rest(
        &mut self,
        entry: bool,
        name: String,
        name_span: Span,
        operator: bool,
        mut type_params: Vec<TypeParam>,
    ) -> PResult<ValueDec> {
        type_params.extend(self.type_params()?);
        let mut params = Vec::new();
        while self.can_start_param() {
            params.push(self.pat_atom()?);
        }
        let ret = if self.eat(&Tok::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        self.expect(&Tok::Equals)?;
        let body = self.exp()?;
        Ok(ValueDec {
            entry,
            name,
            name_span,
            operator,
            type_params,
            params,
            ret,
            body,
        })
    }

    fn can_start_param(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Ident(_) | Tok::Underscore | Tok::LParen | Tok::LBrace | Tok::HashBracket
        )
    }

    /// `[n]`, `'t`, `'~t`, `'^t`, as many as there are.
    fn type_params(&mut self) -> PResult<Vec<TypeParam>> {
        let mut out = Vec::new();
        loop {
            let start = self.span();
            match self.peek() {
                Tok::LBracket => {
                    self.bump();
                    let (name, _) = self.ident("a size parameter name")?;
                    self.expect_close(&Tok::RBracket, start, "[")?;
                    out.push(TypeParam::Size {
                        name,
                        span: self.from(start),
                    });
                }
                Tok::Quote | Tok::QuoteTilde | Tok::QuoteCaret => {
                    let lifted = match self.bump() {
                        Tok::QuoteTilde => Lift::Tilde,
                        Tok::QuoteCaret => Lift::Caret,
                        _ => Lift::None,
                    };
                    let (name, _) = self.ident("a type parameter name")?;
                    out.push(TypeParam::Type {
                        name,
                        span: self.from(start),
                        lifted,
                    });
                }
                _ => return Ok(out),
            }
        }
    }

    // ----- modules -----

    fn mod_param(&mut self) -> PResult<ModParam> {
        let start = self.expect(&Tok::LParen)?;
        let (name, _) = self.ident("a module parameter name")?;
        self.expect(&Tok::Colon)?;
        let sig = self.mod_type()?;
        self.expect_close(&Tok::RParen, start, "(")?;
        Ok(ModParam {
            name,
            span: self.from(start),
            sig,
        })
    }

    fn qual_name_any(&mut self, what: &str) -> PResult<QualName> {
        let (first, _) = self.ident(what)?;
        let mut names = vec![first];
        while *self.peek() == Tok::Dot
            && let Tok::Ident(s) = self.peek_at(1).clone()
        {
            self.advance(2);
            names.push(s);
        }
        Ok(split_qual(names))
    }

    fn mod_exp(&mut self) -> PResult<ModExp> {
        self.guarded(|p| {
            let start = p.span();
            if p.eat(&Tok::Backslash) {
                let param = p.mod_param()?;
                let sig = if p.eat(&Tok::Colon) {
                    Some(Box::new(p.mod_type_with()?))
                } else {
                    None
                };
                p.expect(&Tok::Arrow)?;
                let body = p.mod_exp()?;
                return Ok(ModExp {
                    span: p.from(start),
                    kind: ModExpKind::Lambda {
                        param,
                        sig,
                        body: Box::new(body),
                    },
                });
            }
            let mut m = p.mod_exp_atom()?;
            // `import` is not an argument: `open M` followed by `import "x"` is two
            // declarations (write `F (import "x")` to apply).
            while matches!(p.peek(), Tok::Ident(_) | Tok::LBrace | Tok::LParen) {
                let arg = p.mod_exp_atom()?;
                m = ModExp {
                    span: p.from(start),
                    kind: ModExpKind::Apply(Box::new(m), Box::new(arg)),
                };
            }
            while p.eat(&Tok::Colon) {
                let sig = p.mod_type()?;
                m = ModExp {
                    span: p.from(start),
                    kind: ModExpKind::Ascribe(Box::new(m), Box::new(sig)),
                };
            }
            Ok(m)
        })
    }

    fn mod_exp_atom(&mut self) -> PResult<ModExp> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Ident(_) => ModExpKind::Var(self.qual_name_any("a module")?),
            Tok::LBrace => {
                self.bump();
                let mut decs = Vec::new();
                while !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
                    decs.push(self.dec()?);
                }
                self.expect_close(&Tok::RBrace, start, "{")?;
                ModExpKind::Decs(decs)
            }
            Tok::LParen => {
                self.bump();
                let m = self.mod_exp()?;
                self.expect_close(&Tok::RParen, start, "(")?;
                return Ok(ModExp {
                    span: self.from(start),
                    kind: m.kind,
                });
            }
            Tok::Kw(Kw::Import) => {
                self.bump();
                ModExpKind::Import(self.string_lit()?.0)
            }
            _ => return Err(self.expected("a module expression")),
        };
        Ok(ModExp {
            span: self.from(start),
            kind,
        })
    }

    fn mod_type(&mut self) -> PResult<ModTypeExp> {
        self.guarded(|p| {
            let start = p.span();
            if *p.peek() == Tok::LParen
                && matches!(p.peek_at(1), Tok::Ident(_))
                && *p.peek_at(2) == Tok::Colon
            {
                p.bump();
                let (name, name_span) = p.ident("a name")?;
                p.bump();
                let param = p.mod_type()?;
                p.expect_close(&Tok::RParen, start, "(")?;
                p.expect(&Tok::Arrow)?;
                let result = p.mod_type()?;
                return Ok(ModTypeExp {
                    span: p.from(start),
                    kind: ModTypeExpKind::Arrow {
                        param_name: Some((name, name_span)),
                        param: Box::new(param),
                        result: Box::new(result),
                    },
                });
            }
            let t = p.mod_type_with()?;
            if p.eat(&Tok::Arrow) {
                let result = p.mod_type()?;
                return Ok(ModTypeExp {
                    span: p.from(start),
                    kind: ModTypeExpKind::Arrow {
                        param_name: None,
                        param: Box::new(t),
                        result: Box::new(result),
                    },
                });
            }
            Ok(t)
        })
    }

    fn mod_type_with(&mut self) -> PResult<ModTypeExp> {
        let start = self.span();
        let mut t = self.mod_type_atom()?;
        while self.eat_kw(Kw::With) {
            let name = self.qual_name_any("a type name")?;
            let params = self.type_params()?;
            self.expect(&Tok::Equals)?;
            let ty = self.ty()?;
            t = ModTypeExp {
                span: self.from(start),
                kind: ModTypeExpKind::With {
                    base: Box::new(t),
                    name,
                    params,
                    ty,
                },
            };
        }
        Ok(t)
    }

    fn mod_type_atom(&mut self) -> PResult<ModTypeExp> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Ident(_) => ModTypeExpKind::Var(self.qual_name_any("a module type")?),
            Tok::LBrace => {
                self.bump();
                let mut specs = Vec::new();
                while !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
                    specs.push(self.spec()?);
                }
                self.expect_close(&Tok::RBrace, start, "{")?;
                ModTypeExpKind::Specs(specs)
            }
            Tok::LParen => {
                self.bump();
                let t = self.mod_type()?;
                self.expect_close(&Tok::RParen, start, "(")?;
                return Ok(ModTypeExp {
                    span: self.from(start),
                    kind: t.kind,
                });
            }
            _ => return Err(self.expected("a module type")),
        };
        Ok(ModTypeExp {
            span: self.from(start),
            kind,
        })
    }

    fn spec(&mut self) -> PResult<Spec> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Kw(Kw::Val) => {
                self.bump();
                let (name, name_span) = match self.peek().clone() {
                    Tok::Ident(s) | Tok::Op(s) => {
                        self.bump();
                        (s, self.prev)
                    }
                    Tok::LParen if matches!(self.peek_at(1), Tok::Op(_)) => {
                        self.bump();
                        let s = match self.bump() {
                            Tok::Op(s) => s,
                            _ => String::new(),
                        };
                        let sp = self.prev;
                        self.expect(&Tok::RParen)?;
                        (s, sp)
                    }
                    _ => return Err(self.expected("a name or an operator")),
                };
                let type_params = self.type_params()?;
                self.expect(&Tok::Colon)?;
                let ty = self.ty()?;
                SpecKind::Val {
                    name,
                    name_span,
                    type_params,
                    ty,
                }
            }
            Tok::Kw(Kw::Type) => {
                self.bump();
                let lifted = self.liftedness();
                let (name, name_span) = self.ident("a type name")?;
                let params = self.type_params()?;
                let ty = if self.eat(&Tok::Equals) {
                    Some(self.ty()?)
                } else {
                    None
                };
                SpecKind::Type {
                    name,
                    name_span,
                    lifted,
                    params,
                    ty,
                }
            }
            Tok::Kw(Kw::Module) => {
                self.bump();
                let (name, name_span) = self.ident("a module name")?;
                self.expect(&Tok::Colon)?;
                let sig = self.mod_type()?;
                SpecKind::Module {
                    name,
                    name_span,
                    sig,
                }
            }
            Tok::Kw(Kw::Include) => {
                self.bump();
                SpecKind::Include(self.mod_type()?)
            }
            _ => {
                return Err(self.expected("a specification (`val`, `type`, `module` or `include`)"));
            }
        };
        Ok(Spec {
            span: self.from(start),
            kind,
        })
    }

    // ----- types -----

    fn ty(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            if *p.peek() == Tok::LParen
                && matches!(p.peek_at(1), Tok::Ident(_))
                && *p.peek_at(2) == Tok::Colon
            {
                p.bump();
                let (name, name_span) = p.ident("a name")?;
                p.bump();
                let param = p.ty()?;
                p.expect_close(&Tok::RParen, start, "(")?;
                p.expect(&Tok::Arrow)?;
                let ret = p.ty()?;
                return Ok(TypeExp {
                    span: p.from(start),
                    kind: TypeExpKind::Function {
                        param_name: Some((name, name_span)),
                        param: Box::new(param),
                        ret: Box::new(ret),
                    },
                });
            }
            let t = p.ty_term()?;
            if p.eat(&Tok::Arrow) {
                let ret = p.ty()?;
                return Ok(TypeExp {
                    span: p.from(start),
                    kind: TypeExpKind::Function {
                        param_name: None,
                        param: Box::new(t),
                        ret: Box::new(ret),
                    },
                });
            }
            Ok(t)
        })
    }

    /// A type without a top-level arrow.
    fn ty_term(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            match p.peek() {
                Tok::Op(o) if o == "*" => {
                    p.bump();
                    let t = p.ty_term()?;
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Unique(Box::new(t)),
                    })
                }
                Tok::Question => {
                    p.bump();
                    let mut sizes = Vec::new();
                    while *p.peek() == Tok::LBracket {
                        let s = p.span();
                        p.bump();
                        let (name, _) = p.ident("a size name")?;
                        p.expect_close(&Tok::RBracket, s, "[")?;
                        sizes.push(SizeBinder {
                            name,
                            span: p.from(s),
                        });
                    }
                    if sizes.is_empty() {
                        return Err(p.expected("`[`"));
                    }
                    p.expect(&Tok::Dot)?;
                    let ty = p.ty()?;
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Existential {
                            sizes,
                            ty: Box::new(ty),
                        },
                    })
                }
                Tok::Constructor(_) => {
                    let mut cs = Vec::new();
                    loop {
                        let cstart = p.span();
                        let name = match p.peek().clone() {
                            Tok::Constructor(n) => {
                                p.bump();
                                n
                            }
                            _ => return Err(p.expected("a constructor")),
                        };
                        let mut args = Vec::new();
                        while matches!(
                            p.peek(),
                            Tok::Ident(_) | Tok::LParen | Tok::LBrace | Tok::LBracket
                        ) {
                            if *p.peek() == Tok::LBracket {
                                args.push(p.ty_app()?);
                            } else {
                                args.push(p.ty_atom()?);
                            }
                        }
                        cs.push(ConstrType {
                            name,
                            span: p.from(cstart),
                            args,
                        });
                        match p.peek() {
                            Tok::Op(o) if o == "|" => {
                                p.bump();
                            }
                            _ => break,
                        }
                    }
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Sum(cs),
                    })
                }
                _ => p.ty_app(),
            }
        })
    }

    /// An array type, a named type with arguments, or an atom.
    fn ty_app(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            match p.peek() {
                Tok::LBracket => {
                    let (size, size_span) = p.size_brackets()?;
                    let elem = p.ty_app()?;
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Array {
                            size,
                            size_span,
                            elem: Box::new(elem),
                        },
                    })
                }
                Tok::Ident(_) => {
                    let name = p.qual_name_any("a type")?;
                    let mut args = Vec::new();
                    loop {
                        match p.peek() {
                            Tok::LBracket => {
                                let (s, sp) = p.size_brackets()?;
                                args.push(TypeArg::Size(s, sp));
                            }
                            Tok::Ident(_) | Tok::LParen | Tok::LBrace => {
                                args.push(TypeArg::Type(p.ty_atom()?));
                            }
                            _ => break,
                        }
                    }
                    let kind = match PrimType::from_name(&name.name) {
                        Some(t) if args.is_empty() && name.is_unqualified() => TypeExpKind::Prim(t),
                        _ => TypeExpKind::Named { name, args },
                    };
                    Ok(TypeExp {
                        span: p.from(start),
                        kind,
                    })
                }
                _ => p.ty_atom(),
            }
        })
    }

    /// `[d]` or `[]`.
    fn size_brackets(&mut self) -> PResult<(SizeExp, Span)> {
        self.index_context(false, |p| p.size_brackets_inner())
    }

    fn size_brackets_inner(&mut self) -> PResult<(SizeExp, Span)> {
        let start = self.expect(&Tok::LBracket)?;
        if self.eat(&Tok::RBracket) {
            return Ok((SizeExp::Any, self.from(start)));
        }
        let e = self.exp()?;
        self.expect_close(&Tok::RBracket, start, "[")?;
        Ok((SizeExp::Exp(Box::new(e)), self.from(start)))
    }

    fn ty_atom(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            let kind = match p.peek() {
                Tok::Ident(_) => {
                    let name = p.qual_name_any("a type")?;
                    match PrimType::from_name(&name.name) {
                        Some(t) if name.is_unqualified() => TypeExpKind::Prim(t),
                        _ => TypeExpKind::Named {
                            name,
                            args: Vec::new(),
                        },
                    }
                }
                Tok::LParen => {
                    p.bump();
                    if p.eat(&Tok::RParen) {
                        TypeExpKind::Tuple(Vec::new())
                    } else {
                        let t = p.ty()?;
                        if *p.peek() == Tok::Comma {
                            let mut ts = vec![t];
                            while p.eat(&Tok::Comma) {
                                if *p.peek() == Tok::RParen {
                                    break;
                                }
                                ts.push(p.ty()?);
                            }
                            p.expect_close(&Tok::RParen, start, "(")?;
                            TypeExpKind::Tuple(ts)
                        } else {
                            p.expect_close(&Tok::RParen, start, "(")?;
                            return Ok(TypeExp {
                                span: p.from(start),
                                kind: t.kind,
                            });
                        }
                    }
                }
                Tok::LBrace => {
                    p.bump();
                    let mut fields = Vec::new();
                    while *p.peek() != Tok::RBrace {
                        let (name, name_span) = p.field_name()?;
                        p.expect(&Tok::Colon)?;
                        let ty = p.ty()?;
                        fields.push(FieldType {
                            name,
                            name_span,
                            ty,
                        });
                        if !p.eat(&Tok::Comma) {
                            break;
                        }
                    }
                    p.expect_close(&Tok::RBrace, start, "{")?;
                    TypeExpKind::Record(fields)
                }
                _ => return Err(p.expected("a type")),
            };
            Ok(TypeExp {
                span: p.from(start),
                kind,
            })
        })
    }

    /// A record field name: an identifier or a decimal number.
    fn field_name(&mut self) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, self.prev))
            }
            Tok::Int(IntLit {
                value,
                suffix: None,
            }) => {
                self.bump();
                Ok((value.to_string(), self.prev))
            }
            _ => Err(self.expected("a field name")),
        }
    }

    // ----- patterns -----

    fn pat(&mut self) -> PResult<Pat> {
        self.guarded(|p| {
            let start = p.span();
            let pat = p.pat_app()?;
            if p.eat(&Tok::Colon) {
                let ty = p.ty()?;
                return Ok(p.mk_pat(
                    PatKind::Ascribe {
                        pat: Box::new(pat),
                        ty,
                    },
                    p.from(start),
                ));
            }
            Ok(pat)
        })
    }

    /// A `case` pattern: its type annotation has no top-level arrow.
    fn case_pat(&mut self) -> PResult<Pat> {
        self.guarded(|p| {
            let start = p.span();
            let pat = p.pat_app()?;
            if p.eat(&Tok::Colon) {
                let ty = p.ty_term()?;
                return Ok(p.mk_pat(
                    PatKind::Ascribe {
                        pat: Box::new(pat),
                        ty,
                    },
                    p.from(start),
                ));
            }
            Ok(pat)
        })
    }

    fn pat_app(&mut self) -> PResult<Pat> {
        if let Tok::Constructor(name) = self.peek().clone() {
            let start = self.span();
            self.bump();
            let mut args = Vec::new();
            while self.can_start_pat_atom() {
                args.push(self.pat_atom()?);
            }
            return Ok(self.mk_pat(PatKind::Constructor { name, args }, self.from(start)));
        }
        self.pat_atom()
    }

    fn can_start_pat_atom(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Ident(_)
                | Tok::Underscore
                | Tok::LParen
                | Tok::LBrace
                | Tok::HashBracket
                | Tok::Int(_)
                | Tok::Float(_)
                | Tok::Char(_)
                | Tok::Kw(Kw::True | Kw::False)
                | Tok::Constructor(_)
        )
    }

    fn pat_atom(&mut self) -> PResult<Pat> {
        self.guarded(|p| p.pat_atom_inner())
    }

    fn pat_atom_inner(&mut self) -> PResult<Pat> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                PatKind::Name(s)
            }
            Tok::Underscore => {
                self.bump();
                PatKind::Wildcard
            }
            Tok::Kw(Kw::True) => {
                self.bump();
                PatKind::Literal(PatLit::Bool(true))
            }
            Tok::Kw(Kw::False) => {
                self.bump();
                PatKind::Literal(PatLit::Bool(false))
            }
            Tok::Int(lit) => {
                self.bump();
                PatKind::Literal(PatLit::Int {
                    negative: false,
                    lit,
                })
            }
            Tok::Float(lit) => {
                self.bump();
                PatKind::Literal(PatLit::Float {
                    negative: false,
                    lit,
                })
            }
            Tok::Char(c) => {
                self.bump();
                PatKind::Literal(PatLit::Char(c))
            }
            Tok::Op(o) if o == "-" && matches!(self.peek_at(1), Tok::Int(_) | Tok::Float(_)) => {
                self.bump();
                match self.bump() {
                    Tok::Int(lit) => PatKind::Literal(PatLit::Int {
                        negative: true,
                        lit,
                    }),
                    Tok::Float(lit) => PatKind::Literal(PatLit::Float {
                        negative: true,
                        lit,
                    }),
                    _ => return Err(self.expected("a literal")),
                }
            }
            Tok::Constructor(name) => {
                self.bump();
                PatKind::Constructor {
                    name,
                    args: Vec::new(),
                }
            }
            Tok::HashBracket => {
                self.bump();
                let attr = self.attr_body()?;
                let pat = self.pat_atom()?;
                PatKind::Attr {
                    attr,
                    pat: Box::new(pat),
                }
            }
            Tok::LParen => {
                self.bump();
                if self.eat(&Tok::RParen) {
                    PatKind::Tuple(Vec::new())
                } else {
                    let first = self.pat()?;
                    if *self.peek() == Tok::Comma {
                        let mut ps = vec![first];
                        while self.eat(&Tok::Comma) {
                            if *self.peek() == Tok::RParen {
                                break;
                            }
                            ps.push(self.pat()?);
                        }
                        self.expect_close(&Tok::RParen, start, "(")?;
                        PatKind::Tuple(ps)
                    } else {
                        self.expect_close(&Tok::RParen, start, "(")?;
                        let mut first = first;
                        first.span = self.from(start);
                        return Ok(first);
                    }
                }
            }
            Tok::LBrace => {
                self.bump();
                let mut fields = Vec::new();
                while *self.peek() != Tok::RBrace {
                    let (name, name_span) = self.field_name()?;
                    let (pat, punned) = if self.eat(&Tok::Equals) {
                        (self.pat()?, false)
                    } else {
                        let pk = PatKind::Name(name.clone());
                        let p = self.mk_pat(pk, name_span);
                        if self.eat(&Tok::Colon) {
                            let ty = self.ty()?;
                            let sp = self.from(name_span);
                            (
                                self.mk_pat(
                                    PatKind::Ascribe {
                                        pat: Box::new(p),
                                        ty,
                                    },
                                    sp,
                                ),
                                true,
                            )
                        } else {
                            (p, true)
                        }
                    };
                    fields.push(FieldPat {
                        name,
                        name_span,
                        pat,
                        punned,
                    });
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                self.expect_close(&Tok::RBrace, start, "{")?;
                PatKind::Record(fields)
            }
            _ => return Err(self.expected("a pattern")),
        };
        Ok(self.mk_pat(kind, self.from(start)))
    }

    // ----- expressions -----

    /// A full expression.
    fn exp(&mut self) -> PResult<Exp> {
        self.guarded(|p| {
            let start = p.span();
            let mut e = p.exp_range()?;
            let mut n = 0;
            loop {
                p.chain(&mut n)?;
                let coerce = match p.peek() {
                    Tok::Colon if !p.in_index => false,
                    Tok::ColonGt => true,
                    _ => return Ok(e),
                };
                p.bump();
                let ty = p.ty()?;
                let kind = if coerce {
                    ExpKind::Coerce {
                        exp: Box::new(e),
                        ty,
                    }
                } else {
                    ExpKind::Ascribe {
                        exp: Box::new(e),
                        ty,
                    }
                };
                e = p.mk(kind, p.from(start));
            }
        })
    }

    /// An expression without ascription (inside index brackets).
    fn exp_no_ascribe(&mut self) -> PResult<Exp> {
        self.guarded(|p| p.exp_range())
    }

    fn exp_range(&mut self) -> PResult<Exp> {
        let start = self.span();
        let first = self.exp_backtick()?;
        let second = match self.peek() {
            Tok::DotDot => {
                self.bump();
                Some(Box::new(self.exp_backtick()?))
            }
            Tok::DotDotLt | Tok::DotDotDot | Tok::DotDotGt => None,
            _ => return Ok(first),
        };
        let kind = match self.peek() {
            Tok::DotDotLt => RangeKind::UpToExclusive,
            Tok::DotDotDot => RangeKind::Inclusive,
            Tok::DotDotGt => RangeKind::DownToExclusive,
            _ => return Err(self.expected("`..<`, `...` or `..>`")),
        };
        self.bump();
        let end = self.exp_backtick()?;
        Ok(self.mk(
            ExpKind::Range {
                start: Box::new(first),
                second,
                end: Box::new(end),
                kind,
            },
            self.from(start),
        ))
    }

    fn exp_backtick(&mut self) -> PResult<Exp> {
        let start = self.span();
        let mut lhs = self.exp_with()?;
        let mut n = 0;
        while let Some(op) = self.peek_backtick(0) {
            if *self.peek_at(op.len) == Tok::RParen {
                break;
            }
            self.chain(&mut n)?;
            self.advance(op.len);
            let rhs = self.exp_with()?;
            lhs = self.mk(
                ExpKind::BinOp {
                    op: op.name,
                    op_span: op.span,
                    backtick: true,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                self.from(start),
            );
        }
        Ok(lhs)
    }

    fn exp_with(&mut self) -> PResult<Exp> {
        let start = self.span();
        let mut e = self.exp_binop(7)?;
        let mut n = 0;
        while self.eat_kw(Kw::With) {
            self.chain(&mut n)?;
            if *self.peek() == Tok::LBracket {
                let open = self.span();
                self.bump();
                let indices = self.indices(open)?;
                self.expect(&Tok::Equals)?;
                let value = self.exp_binop(7)?;
                e = self.mk(
                    ExpKind::Update {
                        target: Box::new(e),
                        indices,
                        value: Box::new(value),
                    },
                    self.from(start),
                );
            } else {
                let fields = self.field_path()?;
                self.expect(&Tok::Equals)?;
                let value = self.exp_binop(7)?;
                e = self.mk(
                    ExpKind::RecordUpdate {
                        target: Box::new(e),
                        fields,
                        value: Box::new(value),
                    },
                    self.from(start),
                );
            }
        }
        Ok(e)
    }

    /// `f.g.h` in `r with f.g.h = v`.
    fn field_path(&mut self) -> PResult<Vec<(String, Span)>> {
        let mut fields = vec![self.field_name()?];
        while *self.peek() == Tok::Dot {
            self.bump();
            fields.push(self.field_name()?);
        }
        Ok(fields)
    }

    /// A backticked name at `n` tokens ahead: `` `f` ``, `` `M.f` ``.
    fn peek_backtick(&self, n: usize) -> Option<OpAhead> {
        if *self.peek_at(n) != Tok::Backtick {
            return None;
        }
        let mut names = Vec::new();
        let mut i = n + 1;
        let span_start = self.token_at(i)?.span;
        loop {
            match self.peek_at(i) {
                Tok::Ident(s) => names.push(s.clone()),
                _ => return None,
            }
            i += 1;
            if *self.peek_at(i) == Tok::Dot {
                i += 1;
            } else {
                break;
            }
        }
        let span_end = self.token_at(i - 1)?.span;
        if *self.peek_at(i) != Tok::Backtick {
            return None;
        }
        Some(OpAhead {
            name: split_qual(names),
            span: span_start.to(span_end),
            backtick: true,
            len: i + 1 - n,
        })
    }

    /// A (possibly qualified) operator symbol at `n` tokens ahead: `+`, `f64.+`, `M.N.<*>`.
    fn peek_symbol_op(&self, n: usize) -> Option<OpAhead> {
        match self.peek_at(n) {
            Tok::Op(o) => Some(OpAhead {
                name: QualName::unqualified(o.clone()),
                span: self.token_at(n)?.span,
                backtick: false,
                len: 1,
            }),
            Tok::Ident(_) => {
                let mut names = Vec::new();
                let mut i = n;
                while let Tok::Ident(s) = self.peek_at(i) {
                    names.push(s.clone());
                    if *self.peek_at(i + 1) != Tok::Dot
                        || !self.adjacent_at(i + 1)
                        || !self.adjacent_at(i + 2)
                    {
                        return None;
                    }
                    i += 2;
                }
                match self.peek_at(i) {
                    Tok::Op(o) => {
                        let mut q = split_qual(names);
                        q.qualifiers.push(std::mem::take(&mut q.name));
                        q.name = o.clone();
                        Some(OpAhead {
                            name: q,
                            span: self.token_at(n)?.span.to(self.token_at(i)?.span),
                            backtick: false,
                            len: i + 1 - n,
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn exp_binop(&mut self, min: u8) -> PResult<Exp> {
        let start = self.span();
        let mut lhs = self.exp_unary()?;
        let mut n = 0;
        while let Some(op) = self.peek_symbol_op(0) {
            let level = op_level(&op.name.name);
            if level < min || *self.peek_at(op.len) == Tok::RParen {
                break;
            }
            self.chain(&mut n)?;
            self.advance(op.len);
            let next = if right_assoc(level) { level } else { level + 1 };
            let rhs = self.guarded(|p| p.exp_binop(next))?;
            lhs = self.mk(
                ExpKind::BinOp {
                    op: op.name,
                    op_span: op.span,
                    backtick: op.backtick,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                self.from(start),
            );
        }
        Ok(lhs)
    }

    fn exp_unary(&mut self) -> PResult<Exp> {
        let start = self.span();
        match self.peek() {
            Tok::Op(o) if o == "-" || o == "!" => {
                let neg = o == "-";
                self.bump();
                let e = self.guarded(|p| p.exp_unary())?;
                let kind = if neg {
                    ExpKind::Neg(Box::new(e))
                } else {
                    ExpKind::Not(Box::new(e))
                };
                Ok(self.mk(kind, self.from(start)))
            }
            _ => self.exp_app(),
        }
    }

    fn is_block_start(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Kw(Kw::Let | Kw::If | Kw::Loop | Kw::Match | Kw::Assert)
                | Tok::Backslash
                | Tok::HashBracket
        )
    }

    fn can_start_arg(&self) -> bool {
        match self.peek() {
            Tok::Ident(_) => self.peek_symbol_op(0).is_none(),
            Tok::Int(_)
            | Tok::Float(_)
            | Tok::Char(_)
            | Tok::Str(_)
            | Tok::Kw(Kw::True | Kw::False)
            | Tok::LParen
            | Tok::LBracket
            | Tok::LBrace
            | Tok::Hole
            | Tok::Constructor(_) => true,
            _ => false,
        }
    }

    fn exp_app(&mut self) -> PResult<Exp> {
        let start = self.span();
        if self.is_block_start() {
            return self.block();
        }
        if let Tok::Constructor(name) = self.peek().clone() {
            self.bump();
            let mut args = Vec::new();
            while self.can_start_arg() {
                args.push(self.exp_postfix()?);
            }
            return Ok(self.mk(ExpKind::Constructor { name, args }, self.from(start)));
        }
        let f = self.exp_postfix()?;
        let mut args = Vec::new();
        loop {
            if *self.peek() == Tok::Backslash {
                args.push(self.block()?);
                break;
            }
            if !self.can_start_arg() {
                break;
            }
            args.push(self.exp_postfix()?);
        }
        if args.is_empty() {
            return Ok(f);
        }
        Ok(self.mk(
            ExpKind::Apply {
                func: Box::new(f),
                args,
            },
            self.from(start),
        ))
    }

    fn exp_postfix(&mut self) -> PResult<Exp> {
        let start = self.span();
        let mut e = self.exp_atom()?;
        let mut n = 0;
        loop {
            self.chain(&mut n)?;
            match self.peek() {
                Tok::LBracket if self.adjacent_at(0) => {
                    let open = self.span();
                    self.bump();
                    let indices = self.indices(open)?;
                    e = self.mk(
                        ExpKind::Index {
                            target: Box::new(e),
                            indices,
                        },
                        self.from(start),
                    );
                }
                Tok::Dot if self.adjacent_at(0) && self.adjacent_at(1) => {
                    let field = match self.peek_at(1) {
                        Tok::Ident(s) => s.clone(),
                        Tok::Int(IntLit {
                            value,
                            suffix: None,
                        }) => value.to_string(),
                        _ => break,
                    };
                    self.advance(2);
                    e = self.mk(
                        ExpKind::Project {
                            target: Box::new(e),
                            field,
                            field_span: self.prev,
                        },
                        self.from(start),
                    );
                }
                _ => break,
            }
        }
        Ok(e)
    }

    /// After `[`: the indices and the closing `]`.
    fn indices(&mut self, open: Span) -> PResult<Vec<DimIndex>> {
        self.index_context(true, |p| p.indices_inner(open))
    }

    fn indices_inner(&mut self, open: Span) -> PResult<Vec<DimIndex>> {
        let mut out = Vec::new();
        loop {
            let start = if *self.peek() == Tok::Colon {
                None
            } else {
                Some(self.exp_no_ascribe()?)
            };
            if self.eat(&Tok::Colon) {
                let ends = |t: &Tok| matches!(t, Tok::Colon | Tok::Comma | Tok::RBracket);
                let end = if ends(self.peek()) {
                    None
                } else {
                    Some(self.exp_no_ascribe()?)
                };
                let stride = if self.eat(&Tok::Colon) {
                    if ends(self.peek()) {
                        None
                    } else {
                        Some(self.exp_no_ascribe()?)
                    }
                } else {
                    None
                };
                out.push(DimIndex::Slice { start, end, stride });
            } else if let Some(e) = start {
                out.push(DimIndex::Fix(e));
            }
            if !self.eat(&Tok::Comma) || *self.peek() == Tok::RBracket {
                break;
            }
        }
        self.expect_close(&Tok::RBracket, open, "[")?;
        Ok(out)
    }

    fn exp_atom(&mut self) -> PResult<Exp> {
        self.index_context(false, |p| p.exp_atom_inner())
    }

    fn exp_atom_inner(&mut self) -> PResult<Exp> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Int(lit) => {
                self.bump();
                ExpKind::Int(lit)
            }
            Tok::Float(lit) => {
                self.bump();
                ExpKind::Float(lit)
            }
            Tok::Char(c) => {
                self.bump();
                ExpKind::Char(c)
            }
            Tok::Str(s) => {
                self.bump();
                ExpKind::String(s)
            }
            Tok::Kw(Kw::True) => {
                self.bump();
                ExpKind::Bool(true)
            }
            Tok::Kw(Kw::False) => {
                self.bump();
                ExpKind::Bool(false)
            }
            Tok::Hole => {
                self.bump();
                ExpKind::Hole
            }
            Tok::Constructor(name) => {
                self.bump();
                ExpKind::Constructor {
                    name,
                    args: Vec::new(),
                }
            }
            Tok::Ident(first) => {
                self.bump();
                let mut names = vec![first];
                loop {
                    if *self.peek() != Tok::Dot || !self.adjacent_at(0) || !self.adjacent_at(1) {
                        break;
                    }
                    match self.peek_at(1).clone() {
                        Tok::Ident(s) => {
                            self.advance(2);
                            names.push(s);
                        }
                        Tok::LParen => {
                            let module_span = start.to(self.prev);
                            self.advance(2);
                            let open = self.prev;
                            let body = self.exp()?;
                            self.expect_close(&Tok::RParen, open, "(")?;
                            return Ok(self.mk(
                                ExpKind::LocalOpen {
                                    module: split_qual(names),
                                    module_span,
                                    body: Box::new(body),
                                },
                                self.from(start),
                            ));
                        }
                        _ => break,
                    }
                }
                ExpKind::Var(split_qual(names))
            }
            Tok::LParen => return self.paren(),
            Tok::LBracket => {
                self.bump();
                let mut elems = Vec::new();
                while *self.peek() != Tok::RBracket {
                    elems.push(self.exp()?);
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                self.expect_close(&Tok::RBracket, start, "[")?;
                ExpKind::Array(elems)
            }
            Tok::LBrace => {
                self.bump();
                let mut fields = Vec::new();
                while *self.peek() != Tok::RBrace {
                    let (name, name_span) = self.field_name()?;
                    let (value, punned) = if self.eat(&Tok::Equals) {
                        (self.exp()?, false)
                    } else {
                        let v = self.mk(ExpKind::Var(QualName::unqualified(&name)), name_span);
                        (v, true)
                    };
                    fields.push(FieldExp {
                        name,
                        name_span,
                        value,
                        punned,
                    });
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                self.expect_close(&Tok::RBrace, start, "{")?;
                ExpKind::Record(fields)
            }
            _ => return Err(self.expected("an expression")),
        };
        Ok(self.mk(kind, self.from(start)))
    }

    /// After `(` (not yet consumed): grouping, tuples, unit and sections.
    fn paren(&mut self) -> PResult<Exp> {
        self.index_context(false, |p| p.paren_inner())
    }

    fn paren_inner(&mut self) -> PResult<Exp> {
        let start = self.span();
        self.bump();
        if self.eat(&Tok::RParen) {
            return Ok(self.mk(ExpKind::Tuple(Vec::new()), self.from(start)));
        }
        // `(op)`, `(op e)`; `(-e)` and `(!e)` are prefix operators, not sections.
        let op = self.peek_symbol_op(0).or_else(|| self.peek_backtick(0));
        if let Some(op) = op {
            let prefix = !op.backtick
                && op.name.is_unqualified()
                && (op.name.name == "-" || op.name.name == "!");
            let closes = *self.peek_at(op.len) == Tok::RParen;
            if closes || !prefix {
                self.advance(op.len);
                if self.eat(&Tok::RParen) {
                    return Ok(self.mk(
                        ExpKind::OpSection {
                            op: op.name,
                            op_span: op.span,
                            backtick: op.backtick,
                        },
                        self.from(start),
                    ));
                }
                let right = self.exp()?;
                self.expect_close(&Tok::RParen, start, "(")?;
                return Ok(self.mk(
                    ExpKind::RightSection {
                        op: op.name,
                        op_span: op.span,
                        backtick: op.backtick,
                        right: Box::new(right),
                    },
                    self.from(start),
                ));
            }
        }
        // `(.f.g)`, `(.0)`, `(.[i])`
        if *self.peek() == Tok::Dot {
            self.bump();
            if *self.peek() == Tok::LBracket {
                let open = self.span();
                self.bump();
                let indices = self.indices(open)?;
                self.expect_close(&Tok::RParen, start, "(")?;
                return Ok(self.mk(ExpKind::IndexSection { indices }, self.from(start)));
            }
            let mut fields = vec![self.field_name()?];
            while self.eat(&Tok::Dot) {
                fields.push(self.field_name()?);
            }
            self.expect_close(&Tok::RParen, start, "(")?;
            return Ok(self.mk(ExpKind::ProjectSection { fields }, self.from(start)));
        }
        let e = self.exp()?;
        // `(e op)`
        if let Some(op) = self.peek_symbol_op(0).or_else(|| self.peek_backtick(0))
            && *self.peek_at(op.len) == Tok::RParen
        {
            self.advance(op.len + 1);
            return Ok(self.mk(
                ExpKind::LeftSection {
                    op: op.name,
                    op_span: op.span,
                    backtick: op.backtick,
                    left: Box::new(e),
                },
                self.from(start),
            ));
        }
        if *self.peek() == Tok::Comma {
            let mut elems = vec![e];
            while self.eat(&Tok::Comma) {
                if *self.peek() == Tok::RParen {
                    break;
                }
                elems.push(self.exp()?);
            }
            self.expect_close(&Tok::RParen, start, "(")?;
            return Ok(self.mk(ExpKind::Tuple(elems), self.from(start)));
        }
        self.expect_close(&Tok::RParen, start, "(")?;
        Ok(self.mk(ExpKind::Parens(Box::new(e)), self.from(start)))
    }

    /// `let`, `if`, `loop`, `\`, `match`, `assert`, `#[attr] e`.
    fn block(&mut self) -> PResult<Exp> {
        self.guarded(|p| p.block_inner())
    }

    fn block_inner(&mut self) -> PResult<Exp> {
        let start = self.span();
        match self.peek() {
            Tok::Kw(Kw::Let) => self.let_exp(),
            Tok::Kw(Kw::If) => {
                self.bump();
                let cond = self.exp()?;
                self.expect_kw(Kw::Then)?;
                let then_branch = self.exp()?;
                self.expect_kw(Kw::Else)?;
                let else_branch = self.exp()?;
                Ok(self.mk(
                    ExpKind::If {
                        cond: Box::new(cond),
                        then_branch: Box::new(then_branch),
                        else_branch: Box::new(else_branch),
                    },
                    self.from(start),
                ))
            }
            Tok::Kw(Kw::Loop) => {
                self.bump();
                let pat = self.pat()?;
                let init = if self.eat(&Tok::Equals) {
                    Some(Box::new(self.exp()?))
                } else {
                    None
                };
                let form = match self.peek() {
                    Tok::Kw(Kw::For) => {
                        self.bump();
                        let counter = matches!(self.peek(), Tok::Ident(_) | Tok::Underscore)
                            && matches!(self.peek_at(1), Tok::Op(o) if o == "<");
                        if counter {
                            let var = self.pat_atom()?;
                            self.bump();
                            let bound = self.exp()?;
                            LoopForm::For { var, bound }
                        } else {
                            let pat = self.pat()?;
                            self.expect_kw(Kw::In)?;
                            let array = self.exp()?;
                            LoopForm::ForIn { pat, array }
                        }
                    }
                    Tok::Kw(Kw::While) => {
                        self.bump();
                        LoopForm::While(self.exp()?)
                    }
                    _ => {
                        let what = if init.is_some() {
                            "`for` or `while`"
                        } else {
                            "`=`, `for` or `while`"
                        };
                        return Err(self.expected(what));
                    }
                };
                self.expect_kw(Kw::Do)?;
                let body = self.exp()?;
                Ok(self.mk(
                    ExpKind::Loop {
                        pat,
                        init,
                        form: Box::new(form),
                        body: Box::new(body),
                    },
                    self.from(start),
                ))
            }
            Tok::Backslash => {
                self.bump();
                let mut params = Vec::new();
                while !matches!(self.peek(), Tok::Colon | Tok::Arrow) {
                    if params.is_empty() && !self.can_start_param() {
                        return Err(self.expected("a parameter"));
                    }
                    if !self.can_start_param() {
                        return Err(self.expected("a parameter or `->`"));
                    }
                    params.push(self.pat_atom()?);
                }
                if params.is_empty() {
                    return Err(self.expected("a parameter"));
                }
                let ret = if self.eat(&Tok::Colon) {
                    Some(self.ty_term()?)
                } else {
                    None
                };
                self.expect(&Tok::Arrow)?;
                let body = self.exp()?;
                Ok(self.mk(
                    ExpKind::Lambda {
                        params,
                        ret,
                        body: Box::new(body),
                    },
                    self.from(start),
                ))
            }
            Tok::Kw(Kw::Match) => {
                self.bump();
                let scrutinee = self.exp()?;
                let mut cases = Vec::new();
                while *self.peek() == Tok::Kw(Kw::Case) {
                    let cstart = self.span();
                    self.bump();
                    let pat = self.case_pat()?;
                    self.expect(&Tok::Arrow)?;
                    let body = self.exp()?;
                    cases.push(Case {
                        span: self.from(cstart),
                        pat,
                        body,
                    });
                }
                if cases.is_empty() {
                    return Err(self.expected("`case`"));
                }
                Ok(self.mk(
                    ExpKind::Match {
                        scrutinee: Box::new(scrutinee),
                        cases,
                    },
                    self.from(start),
                ))
            }
            Tok::Kw(Kw::Assert) => {
                self.bump();
                let cond = self.exp_postfix()?;
                let body = self.exp()?;
                Ok(self.mk(
                    ExpKind::Assert {
                        cond: Box::new(cond),
                        body: Box::new(body),
                    },
                    self.from(start),
                ))
            }
            Tok::HashBracket => {
                self.bump();
                let attr = self.attr_body()?;
                let e = self.exp()?;
                Ok(self.mk(
                    ExpKind::Attr {
                        attr,
                        exp: Box::new(e),
                    },
                    self.from(start),
                ))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// A chain of `let`s, the last followed by `in`; built iteratively so long chains do not
    /// count as nesting.
    fn let_exp(&mut self) -> PResult<Exp> {
        let mut items: Vec<(Span, LetBinding)> = Vec::new();
        let mut n = 0;
        let body = loop {
            self.chain(&mut n)?;
            let start = self.expect_kw(Kw::Let)?;
            let binding = self.let_binding()?;
            items.push((start, binding));
            match self.peek() {
                Tok::Kw(Kw::In) => {
                    self.bump();
                    break self.exp()?;
                }
                Tok::Kw(Kw::Let) => {}
                _ => {
                    return Err(self
                        .expected("`in`")
                        .with_secondary(start, "this `let` has no `in`"));
                }
            }
        };
        let mut body = body;
        while let Some((start, b)) = items.pop() {
            let span = start.to(body.span);
            let kind = match b {
                LetBinding::Plain(sizes, pat, value) => ExpKind::Let {
                    sizes,
                    pat,
                    value: Box::new(value),
                    body: Box::new(body),
                },
                LetBinding::Fun(name, name_span, type_params, params, ret, value) => {
                    ExpKind::LetFun {
                        name,
                        name_span,
                        type_params,
                        params,
                        ret,
                        value: Box::new(value),
                        body: Box::new(body),
                    }
                }
            };
            body = self.mk(kind, span);
        }
        Ok(body)
    }

    /// What follows `let`, up to and including the bound value.
    fn let_binding(&mut self) -> PResult<LetBinding> {
        let start = self.span();
        // `let [n] p = e`
        if *self.peek() == Tok::LBracket {
            let mut sizes = Vec::new();
            while *self.peek() == Tok::LBracket {
                let s = self.span();
                self.bump();
                let (name, _) = self.ident("a size name")?;
                self.expect_close(&Tok::RBracket, s, "[")?;
                sizes.push(SizeBinder {
                    name,
                    span: self.from(s),
                });
            }
            let pat = self.pat()?;
            self.expect(&Tok::Equals)?;
            let value = self.exp()?;
            return Ok(LetBinding::Plain(sizes, pat, value));
        }
        // `let (op) params = e`
        if *self.peek() == Tok::LParen
            && matches!(self.peek_at(1), Tok::Op(_))
            && *self.peek_at(2) == Tok::RParen
        {
            self.bump();
            let name_span = self.span();
            let name = match self.bump() {
                Tok::Op(o) => o,
                _ => String::new(),
            };
            self.bump();
            return self.let_fun(name, name_span);
        }
        if let Tok::Ident(name) = self.peek().clone() {
            let name_span = self.span();
            match self.peek_at(1) {
                // `let a[i] = v`
                Tok::LBracket if self.adjacent_at(1) => {
                    self.bump();
                    let open = self.span();
                    self.bump();
                    let indices = self.indices(open)?;
                    self.expect(&Tok::Equals)?;
                    let value = self.exp()?;
                    let target = self.mk(ExpKind::Var(QualName::unqualified(&name)), name_span);
                    let upd = self.mk(
                        ExpKind::Update {
                            target: Box::new(target),
                            indices,
                            value: Box::new(value),
                        },
                        self.from(start),
                    );
                    let pat = self.mk_pat(PatKind::Name(name), name_span);
                    return Ok(LetBinding::Plain(Vec::new(), pat, upd));
                }
                // `let r.f.g = v`
                Tok::Dot if self.adjacent_at(1) => {
                    self.bump();
                    self.bump();
                    let fields = self.field_path()?;
                    self.expect(&Tok::Equals)?;
                    let value = self.exp()?;
                    let target = self.mk(ExpKind::Var(QualName::unqualified(&name)), name_span);
                    let upd = self.mk(
                        ExpKind::RecordUpdate {
                            target: Box::new(target),
                            fields,
                            value: Box::new(value),
                        },
                        self.from(start),
                    );
                    let pat = self.mk_pat(PatKind::Name(name), name_span);
                    return Ok(LetBinding::Plain(Vec::new(), pat, upd));
                }
                Tok::Equals | Tok::Colon => {}
                _ => {
                    self.bump();
                    return self.let_fun(name, name_span);
                }
            }
        }
        let pat = self.pat()?;
        self.expect(&Tok::Equals)?;
        let value = self.exp()?;
        Ok(LetBinding::Plain(Vec::new(), pat, value))
    }

    fn let_fun(&mut self, name: String, name_span: Span) -> PResult<LetBinding> {
        let type_params = self.type_params()?;
        let mut params = Vec::new();
        while self.can_start_param() {
            params.push(self.pat_atom()?);
        }
        if params.is_empty() {
            return Err(self.expected("a parameter or `=`"));
        }
        let ret = if self.eat(&Tok::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        self.expect(&Tok::Equals)?;
        let value = self.exp()?;
        Ok(LetBinding::Fun(
            name,
            name_span,
            type_params,
            params,
            ret,
            value,
        ))
    }
}

enum LetBinding {
    Plain(Vec<SizeBinder>, Pat, Exp),
    Fun(String, Span, Vec<TypeParam>, Vec<Pat>, Option<TypeExp>, Exp),
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
