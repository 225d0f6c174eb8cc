//! Reads the text form of core IR (the syntax is described in [`crate::core::print`]) back into
//! a [`Prog`], so that `parse(print(p))` prints as `p` does. Unit tests of passes write their
//! input programs in this syntax.
//!
//! Takes any text and never panics: errors are [`Diagnostic`]s with the span of the offending
//! token in the text (file [`FileId`] as given). Nesting is limited to [`MAX_DEPTH`] levels.
//!
//! Variables are written `hint_id`; the number becomes the [`Var`] and the name table is
//! built with the same numbering. Numbers that are never bound get the hint `?` and the
//! placeholder type `bool` (the verifier reports uses of them). A number must keep one hint
//! throughout the text. Types come from the binding sites: parameters, patterns, lambda and
//! loop parameters, loop counters; size parameters are `i64`. Constants need their suffix
//! (`3i64`, `1.5f64`), except dimensions in types, where a bare integer is an `i64`.
//! Spans of statements and functions are left at their default. Comments run from `--` to the
//! end of the line.
//!
//! This is a syntax reader, not a checker: a program that parses may still fail
//! [`crate::core::verify`] (a variable bound twice keeps the type of its first binding).

use crate::core::external::ExternalType;
use crate::core::ir::{
    AdMode, Aux, BasicOp, Body, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, NameTable,
    Prog, ScremaForm, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::PrimOp;
use crate::diag::{Diagnostic, FileId, Span};
use crate::value::{PrimType, Scalar};
use std::collections::{BTreeMap, HashMap};

/// Deepest nesting of bodies and types the parser accepts.
pub const MAX_DEPTH: usize = 128;

/// Largest variable number the parser accepts (the name table is dense).
pub const MAX_VAR: u32 = 1 << 22;

/// Parses a program in file 0.
pub fn parse_prog(text: &str) -> Result<Prog, Diagnostic> {
    parse_prog_in(FileId(0), text)
}

/// Parses a program; spans in errors refer to `file`.
pub fn parse_prog_in(file: FileId, text: &str) -> Result<Prog, Diagnostic> {
    let toks = lex(file, text)?;
    let mut p = Parser {
        file,
        toks,
        pos: 0,
        end: text.len(),
        vars: BTreeMap::new(),
        depth: 0,
        prims: prim_table(),
    };
    let mut funs = Vec::new();
    while !p.at_end() {
        funs.push(p.fun()?);
    }
    Ok(Prog {
        names: p.name_table(),
        funs,
    })
}

/// Checks that `prog` survives printing and parsing: `parse(print(prog))` succeeds, prints
/// the same text, and has the same functions (compared by their `Debug` forms, so that NaN
/// constants compare equal; spans, which are not printed, are ignored). For snapshot tests of
/// any stage (STYLE.md item 6): `assert_eq!(check_round_trip(&prog), Ok(()))`.
pub fn check_round_trip(prog: &Prog) -> Result<(), String> {
    let printed = crate::core::print::print_prog(prog);
    let again = parse_prog(&printed).map_err(|d| {
        format!(
            "the printed program does not parse: {}\n{printed}",
            d.message
        )
    })?;
    let reprinted = crate::core::print::print_prog(&again);
    if reprinted != printed {
        return Err(format!(
            "printing the parsed program gives different text:\n{printed}\n---\n{reprinted}"
        ));
    }
    let strip = |p: &Prog| {
        let mut funs = p.funs.clone();
        for f in &mut funs {
            f.span = Span::default();
            crate::core::renumber::map_aux_body(&mut f.body, &mut |aux| {
                aux.span = Span::default();
                aux.callers.clear();
            });
        }
        format!("{funs:?}")
    };
    if strip(prog) != strip(&again) {
        return Err(format!(
            "the parsed program differs from the original (hints that are not identifiers?):\n{printed}"
        ));
    }
    Ok(())
}

/// The primitive operation with this printed name (`add_f64`, `conv_i32_f64`).
pub fn prim_op_from_name(name: &str) -> Option<PrimOp> {
    prim_table().get(name).copied()
}

pub use crate::core::prim::all_prim_ops;

/// Every primitive operation by its printed name, built once.
fn prim_table() -> &'static HashMap<String, PrimOp> {
    static TABLE: std::sync::OnceLock<HashMap<String, PrimOp>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| all_prim_ops().into_iter().map(|o| (o.name(), o)).collect())
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Identifier (letters, digits, `_`, `'`).
    Ident(String),
    /// A numeric literal as written (with sign and suffix), or a special float.
    Num(String),
    /// A string literal, unescaped.
    Str(String),
    /// An attribute `#[...]`: its inner text.
    Attr(String),
    /// Punctuation: `( ) [ ] { } , : = < \ * :+ ->`.
    Punct(&'static str),
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) | Tok::Num(s) => format!("`{s}`"),
        Tok::Str(s) => format!("string {s:?}"),
        Tok::Attr(s) => format!("attribute `#[{s}]`"),
        Tok::Punct(p) => format!("`{p}`"),
    }
}

fn lex(file: FileId, text: &str) -> Result<Vec<(Tok, usize, usize)>, Diagnostic> {
    let bytes = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let err = |s: usize, e: usize, m: &str| Diagnostic::error(Span::new(file, s, e), m);
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("--") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let is_ident_start = |c: u8| c.is_ascii_alphabetic() || c == b'_';
        let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'\'';
        // Special floats `f64.nan`, `f32.inf`, `-f64.inf`.
        let rest = &text[i..];
        let special = ["f16.", "f32.", "f64."].iter().find_map(|p| {
            let neg = rest.starts_with('-');
            let r = if neg { &rest[1..] } else { rest };
            if !r.starts_with(p) {
                return None;
            }
            let tail = &r[4..];
            let word = if tail.starts_with("nan") {
                "nan"
            } else if tail.starts_with("inf") {
                "inf"
            } else {
                return None;
            };
            let after = tail.as_bytes().get(3).copied();
            if after.is_some_and(is_ident) || (neg && word == "nan") {
                return None;
            }
            Some(usize::from(neg) + 4 + 3)
        });
        if let Some(len) = special {
            toks.push((Tok::Num(text[i..i + len].to_string()), start, i + len));
            i += len;
            continue;
        }
        if is_ident_start(c) {
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            toks.push((Tok::Ident(text[start..i].to_string()), start, i));
            continue;
        }
        let digit_follows = |j: usize| bytes.get(j).is_some_and(|b| b.is_ascii_digit());
        if c.is_ascii_digit() || ((c == b'-' || c == b'+') && digit_follows(i + 1)) {
            i += 1;
            while i < bytes.len() {
                let b = bytes[i];
                let prev = bytes[i - 1];
                if b.is_ascii_alphanumeric()
                    || b == b'_'
                    || (b == b'.' && digit_follows(i + 1))
                    || ((b == b'-' || b == b'+') && (prev == b'e' || prev == b'E'))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            toks.push((Tok::Num(text[start..i].to_string()), start, i));
            continue;
        }
        if c == b'"' {
            let mut s = String::new();
            let mut chars = text[i + 1..].char_indices();
            let mut closed = None;
            while let Some((k, ch)) = chars.next() {
                match ch {
                    '"' => {
                        closed = Some(i + 1 + k + 1);
                        break;
                    }
                    '\\' => {
                        let Some((k2, e)) = chars.next() else { break };
                        match e {
                            'n' => s.push('\n'),
                            't' => s.push('\t'),
                            'r' => s.push('\r'),
                            '0' => s.push('\0'),
                            '\\' => s.push('\\'),
                            '"' => s.push('"'),
                            '\'' => s.push('\''),
                            'u' => {
                                let r = &text[i + 1 + k2 + 1..];
                                let close = r.find('}');
                                let code = close
                                    .filter(|_| r.starts_with('{'))
                                    .and_then(|c| u32::from_str_radix(&r[1..c], 16).ok())
                                    .and_then(char::from_u32);
                                let (Some(ch), Some(close)) = (code, close) else {
                                    let at = i + 1 + k2;
                                    return Err(err(at - 1, at + 1, "bad unicode escape"));
                                };
                                s.push(ch);
                                for _ in 0..=close {
                                    chars.next();
                                }
                            }
                            _ => {
                                let at = i + 1 + k2;
                                return Err(err(at - 1, at + e.len_utf8(), "unknown escape"));
                            }
                        }
                    }
                    other => s.push(other),
                }
            }
            let Some(end) = closed else {
                return Err(err(start, start + 1, "unterminated string"));
            };
            toks.push((Tok::Str(s), start, end));
            i = end;
            continue;
        }
        if text[i..].starts_with("#[") {
            let mut depth = 0usize;
            let mut j = i + 1;
            while j < bytes.len() {
                match bytes[j] {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j >= bytes.len() {
                return Err(err(start, start + 2, "unterminated attribute"));
            }
            toks.push((Tok::Attr(text[i + 2..j].to_string()), start, j + 1));
            i = j + 1;
            continue;
        }
        let two = text.get(i..i + 2).unwrap_or("");
        let punct: Option<&'static str> = match two {
            ":+" => Some(":+"),
            "->" => Some("->"),
            _ => None,
        };
        if let Some(p) = punct {
            toks.push((Tok::Punct(p), start, i + 2));
            i += 2;
            continue;
        }
        let one: Option<&'static str> = match c {
            b'(' => Some("("),
            b')' => Some(")"),
            b'[' => Some("["),
            b']' => Some("]"),
            b'{' => Some("{"),
            b'}' => Some("}"),
            b',' => Some(","),
            b':' => Some(":"),
            b'=' => Some("="),
            b'<' => Some("<"),
            b'\\' => Some("\\"),
            b'*' => Some("*"),
            _ => None,
        };
        match one {
            Some(p) => {
                toks.push((Tok::Punct(p), start, i + 1));
                i += 1;
            }
            None => {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                return Err(err(start, start + len, "unexpected character"));
            }
        }
    }
    Ok(toks)
}

/// Parses a numeric literal (as lexed) into a constant; `default` is the type of a literal
/// without suffix (`None`: a suffix is required).
fn parse_number(text: &str, default: Option<PrimType>) -> Result<Scalar, String> {
    for (prefix, neg) in [("-", true), ("", false)] {
        if let Some(r) = text.strip_prefix(prefix) {
            for t in [PrimType::F32, PrimType::F64] {
                let (nan, inf) = (format!("{t}.nan"), format!("{t}.inf"));
                let x = if r == inf {
                    if neg {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    }
                } else if r == nan && !neg {
                    f64::NAN
                } else {
                    continue;
                };
                return Ok(Scalar::from_f64(t, x));
            }
        }
    }
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    let suffix_at = clean
        .char_indices()
        .skip(1)
        .find(|&(_, c)| matches!(c, 'i' | 'u' | 'f'))
        .map(|(k, _)| k);
    let (digits, ty) = match suffix_at {
        Some(k) => {
            let t = PrimType::from_name(&clean[k..])
                .filter(|t| *t != PrimType::Bool)
                .ok_or_else(|| format!("unknown suffix `{}`", &clean[k..]))?;
            (&clean[..k], t)
        }
        None => match default {
            Some(t) => (clean.as_str(), t),
            None => {
                return Err(format!(
                    "constant `{text}` needs a type suffix, e.g. `{text}i64` or `{text}f64`"
                ));
            }
        },
    };
    let digits = digits.strip_prefix('+').unwrap_or(digits);
    let bad = || format!("`{text}` is not a valid {ty} constant");
    let is_float_text = digits.contains(['.', 'e', 'E']);
    Ok(match ty {
        PrimType::F32 => Scalar::F32(digits.parse().map_err(|_| bad())?),
        PrimType::F64 => Scalar::F64(digits.parse().map_err(|_| bad())?),
        _ if is_float_text => return Err(bad()),
        PrimType::I8 => Scalar::I8(digits.parse().map_err(|_| bad())?),
        PrimType::I16 => Scalar::I16(digits.parse().map_err(|_| bad())?),
        PrimType::I32 => Scalar::I32(digits.parse().map_err(|_| bad())?),
        PrimType::I64 => Scalar::I64(digits.parse().map_err(|_| bad())?),
        PrimType::U8 => Scalar::U8(digits.parse().map_err(|_| bad())?),
        PrimType::U16 => Scalar::U16(digits.parse().map_err(|_| bad())?),
        PrimType::U32 => Scalar::U32(digits.parse().map_err(|_| bad())?),
        PrimType::U64 => Scalar::U64(digits.parse().map_err(|_| bad())?),
        PrimType::Bool => return Err(bad()),
    })
}

/// What the parser knows about one variable number.
struct VarInfo {
    hint: String,
    ty: Option<Type>,
}

struct Parser {
    file: FileId,
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    end: usize,
    vars: BTreeMap<u32, VarInfo>,
    depth: usize,
    prims: &'static HashMap<String, PrimOp>,
}

type R<T> = Result<T, Diagnostic>;

impl Parser {
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn span(&self) -> Span {
        match self.toks.get(self.pos) {
            Some((_, s, e)) => Span::new(self.file, *s, *e),
            None => Span::new(self.file, self.end, self.end),
        }
    }

    fn error<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(Diagnostic::error(self.span(), msg))
    }

    fn unexpected<T>(&self, wanted: &str) -> R<T> {
        match self.peek() {
            Some(t) => self.error(format!("expected {wanted}, found {}", describe(t))),
            None => self.error(format!("expected {wanted}, found the end of the text")),
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(q)) if q == w)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn punct(&mut self, p: &str) -> R<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.unexpected(&format!("`{p}`"))
        }
    }

    fn word(&mut self, w: &str) -> R<()> {
        if self.is_word(w) {
            self.pos += 1;
            Ok(())
        } else {
            self.unexpected(&format!("`{w}`"))
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Items separated by commas up to (and consuming) `close`.
    fn comma_list<T>(&mut self, close: &str, mut item: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let mut out = Vec::new();
        if self.eat_punct(close) {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat_punct(close) {
                return Ok(out);
            }
            if !self.eat_punct(",") {
                return self.unexpected(&format!("`,` or `{close}`"));
            }
        }
    }

    fn name(&mut self) -> R<String> {
        match self.peek().cloned() {
            Some(Tok::Ident(s) | Tok::Str(s)) => {
                self.pos += 1;
                Ok(s)
            }
            _ => self.unexpected("a name"),
        }
    }

    fn string(&mut self) -> R<String> {
        match self.peek().cloned() {
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(s)
            }
            _ => self.unexpected("a string"),
        }
    }

    fn usize_lit(&mut self) -> R<usize> {
        match self.peek().cloned() {
            Some(Tok::Num(s)) => match s.parse() {
                Ok(n) => {
                    self.pos += 1;
                    Ok(n)
                }
                Err(_) => self.error(format!("expected a count, found `{s}`")),
            },
            _ => self.unexpected("a number"),
        }
    }

    // Variables ---------------------------------------------------------------------------

    /// The variable named by the current token (a use or a binding without type).
    fn var(&mut self) -> R<Var> {
        let span = self.span();
        let Some(Tok::Ident(s)) = self.peek().cloned() else {
            return self.unexpected("a variable `name_id`");
        };
        let Some((hint, id)) = s.rsplit_once('_').and_then(|(h, n)| {
            let ok = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            ok.then(|| n.parse::<u32>().ok().map(|n| (h.to_string(), n)))
                .flatten()
        }) else {
            return self.error(format!(
                "expected a variable `name_id`, found `{s}` (variables end in `_` and a number)"
            ));
        };
        if id >= MAX_VAR {
            return self.error(format!(
                "variable number {id} too large (at most {MAX_VAR})"
            ));
        }
        match self.vars.get(&id) {
            Some(info) if info.hint != hint => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "variable number {id} is called `{}_{id}` elsewhere, not `{s}`",
                        info.hint
                    ),
                ));
            }
            Some(_) => {}
            None => {
                self.vars.insert(id, VarInfo { hint, ty: None });
            }
        }
        self.pos += 1;
        Ok(Var(id))
    }

    fn set_type(&mut self, v: Var, ty: Type) {
        if let Some(info) = self.vars.get_mut(&v.0)
            && info.ty.is_none()
        {
            info.ty = Some(ty);
        }
    }

    /// `x_1: t`, binding `x_1` with type `t`.
    fn typed_var(&mut self) -> R<Var> {
        let v = self.var()?;
        self.punct(":")?;
        let t = self.ty()?;
        self.set_type(v, t);
        Ok(v)
    }

    fn name_table(&self) -> NameTable {
        let mut names = NameTable::new();
        let n = self.vars.keys().next_back().map_or(0, |k| k + 1);
        for id in 0..n {
            match self.vars.get(&id) {
                Some(info) => {
                    let t = info.ty.clone().unwrap_or(Type::Prim(PrimType::Bool));
                    names.fresh(&info.hint, t)
                }
                None => names.fresh("?", Type::Prim(PrimType::Bool)),
            };
        }
        names
    }

    // Types and operands ------------------------------------------------------------------

    fn prim_type(&mut self) -> R<PrimType> {
        if let Some(Tok::Ident(s)) = self.peek()
            && let Some(t) = PrimType::from_name(s)
        {
            self.pos += 1;
            return Ok(t);
        }
        self.unexpected("a primitive type")
    }

    fn dim(&mut self) -> R<SubExp> {
        match self.peek() {
            Some(Tok::Num(_)) => self.constant(Some(PrimType::I64)),
            _ => self.subexp(),
        }
    }

    fn ty(&mut self) -> R<Type> {
        self.enter()?;
        let t = self.ty_inner();
        self.leave();
        t
    }

    fn ty_inner(&mut self) -> R<Type> {
        if self.is_word("acc") {
            self.pos += 1;
            self.punct("(")?;
            let shape = self.dims()?;
            let mut elems = Vec::new();
            while self.eat_punct(",") {
                elems.push(self.prim_type()?);
            }
            self.punct(")")?;
            return Ok(Type::Acc { shape, elems });
        }
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            dims.push(self.dim()?);
            self.punct("]")?;
        }
        let elem = self.prim_type()?;
        Ok(Type::array(elem, dims))
    }

    /// `[d, ..]`.
    fn dims(&mut self) -> R<Vec<SubExp>> {
        self.punct("[")?;
        self.comma_list("]", |p| p.dim())
    }

    /// Return types: one type, or a parenthesised list.
    fn ret(&mut self) -> R<Vec<Type>> {
        if self.eat_punct("(") {
            self.comma_list(")", |p| p.ty())
        } else {
            Ok(vec![self.ty()?])
        }
    }

    fn constant(&mut self, default: Option<PrimType>) -> R<SubExp> {
        match self.peek().cloned() {
            Some(Tok::Num(s)) => match parse_number(&s, default) {
                Ok(c) => {
                    self.pos += 1;
                    Ok(SubExp::Const(c))
                }
                Err(m) => self.error(m),
            },
            _ => self.unexpected("a constant"),
        }
    }

    fn subexp(&mut self) -> R<SubExp> {
        match self.peek() {
            Some(Tok::Num(_)) => self.constant(None),
            Some(Tok::Ident(s)) if s == "true" || s == "false" => {
                let b = s == "true";
                self.pos += 1;
                Ok(SubExp::Const(Scalar::Bool(b)))
            }
            Some(Tok::Ident(_)) => Ok(SubExp::Var(self.var()?)),
            _ => self.unexpected("a variable or a constant"),
        }
    }

    fn paren_subexps(&mut self) -> R<Vec<SubExp>> {
        self.punct("(")?;
        self.comma_list(")", |p| p.subexp())
    }

    fn paren_vars(&mut self) -> R<Vec<Var>> {
        self.punct("(")?;
        self.comma_list(")", |p| p.var())
    }

    /// `, x, y` up to `)`.
    fn trailing_vars(&mut self) -> R<Vec<Var>> {
        let mut out = Vec::new();
        while self.eat_punct(",") {
            out.push(self.var()?);
        }
        self.punct(")")?;
        Ok(out)
    }

    // Functions ---------------------------------------------------------------------------

    fn fun(&mut self) -> R<FunDef> {
        let is_entry = if self.is_word("entry") {
            true
        } else if self.is_word("fun") {
            false
        } else {
            return self.unexpected("`fun` or `entry`");
        };
        self.pos += 1;
        let name = self.name()?;
        let mut size_params = Vec::new();
        if self.eat_punct("[") {
            size_params = self.comma_list("]", |p| {
                let v = p.var()?;
                p.set_type(v, Type::Prim(PrimType::I64));
                Ok(v)
            })?;
        }
        self.punct("(")?;
        let params = self.comma_list(")", |p| p.typed_var())?;
        self.punct(":")?;
        let ret = self.ret()?;
        let mut entry = None;
        if self.is_word("external") {
            self.pos += 1;
            entry = Some(self.external()?);
        } else if is_entry {
            entry = Some(self.default_entry(&name, &params, &ret));
        }
        if entry.is_some() && !is_entry {
            return self.error("a function with `external` must be declared with `entry`");
        }
        let body = self.body()?;
        Ok(FunDef {
            name,
            size_params,
            params,
            body,
            ret,
            entry,
            span: Span::default(),
        })
    }

    /// Entry information for `entry` without `external`: each parameter and result is a value
    /// of its core type.
    fn default_entry(&self, name: &str, params: &[Var], ret: &[Type]) -> EntryInfo {
        let names = self.name_table();
        let ext = |t: &Type| ExternalType::Value {
            elem: t.elem(),
            rank: t.rank(),
            text: crate::core::print::print_type(&names, t),
        };
        EntryInfo {
            name: name.to_string(),
            params: params
                .iter()
                .map(|v| (ext(names.ty(*v)), vec![*v]))
                .collect(),
            results: ret.iter().map(|t| (ext(t), 1)).collect(),
        }
    }

    fn ext_type(&mut self) -> R<ExternalType> {
        if self.is_word("opaque") {
            self.pos += 1;
            return Ok(ExternalType::Opaque(self.string()?));
        }
        if self.is_word("value") {
            self.pos += 1;
            let elem = self.prim_type()?;
            let rank = self.usize_lit()?;
            let text = self.string()?;
            return Ok(ExternalType::Value { elem, rank, text });
        }
        let span = self.span();
        let text = self.string()?;
        match crate::core::print::value_text_shape(&text) {
            Some((elem, rank)) => Ok(ExternalType::Value { elem, rank, text }),
            None => Err(Diagnostic::error(
                span,
                format!("cannot read element type and rank from {text:?}"),
            )
            .with_note("write `value ELEM RANK \"text\"` or `opaque \"text\"`")),
        }
    }

    fn external(&mut self) -> R<EntryInfo> {
        let name = self.name()?;
        self.punct("(")?;
        let params = self.comma_list(")", |p| {
            let t = p.ext_type()?;
            let vs = if p.is_punct("(") {
                p.paren_vars()?
            } else {
                vec![p.var()?]
            };
            Ok((t, vs))
        })?;
        self.punct("->")?;
        self.punct("(")?;
        let results = self.comma_list(")", |p| {
            let t = p.ext_type()?;
            let n = p.usize_lit()?;
            Ok((t, n))
        })?;
        Ok(EntryInfo {
            name,
            params,
            results,
        })
    }

    // Bodies and statements ---------------------------------------------------------------

    fn body(&mut self) -> R<Body> {
        self.enter()?;
        let b = self.body_inner();
        self.leave();
        b
    }

    fn body_inner(&mut self) -> R<Body> {
        self.punct("{")?;
        let mut stms = Vec::new();
        while !self.is_word("in") {
            if self.at_end() || self.is_punct("}") {
                return self.unexpected("`let` or `in`");
            }
            stms.push(self.stm()?);
        }
        self.pos += 1;
        let result = if self.eat_punct("(") {
            self.comma_list(")", |p| p.subexp())?
        } else {
            let mut r = vec![self.subexp()?];
            while self.eat_punct(",") {
                r.push(self.subexp()?);
            }
            r
        };
        self.punct("}")?;
        Ok(Body { stms, result })
    }

    fn stm(&mut self) -> R<Stm> {
        let mut attrs = Vec::new();
        while let Some(Tok::Attr(a)) = self.peek().cloned() {
            attrs.push(a);
            self.pos += 1;
        }
        self.word("let")?;
        let pat = if self.eat_punct("(") {
            self.comma_list(")", |p| p.typed_var())?
        } else {
            vec![self.typed_var()?]
        };
        self.punct("=")?;
        let exp = self.exp()?;
        Ok(Stm {
            pat,
            exp,
            aux: Aux {
                attrs,
                ..Aux::default()
            },
        })
    }

    fn lambda(&mut self) -> R<Lambda> {
        self.punct("\\")?;
        self.punct("(")?;
        let params = self.comma_list(")", |p| p.typed_var())?;
        self.punct(":")?;
        let ret = self.ret()?;
        self.punct("->")?;
        let body = self.body()?;
        Ok(Lambda { params, body, ret })
    }

    fn slice(&mut self) -> R<Vec<DimIndex>> {
        self.punct("[")?;
        self.comma_list("]", |p| {
            let start = p.subexp()?;
            if p.eat_punct(":+") {
                let count = p.subexp()?;
                p.punct("*")?;
                let stride = p.subexp()?;
                Ok(DimIndex::Slice {
                    start,
                    count,
                    stride,
                })
            } else {
                Ok(DimIndex::Fix(start))
            }
        })
    }

    fn exp(&mut self) -> R<Exp> {
        let Some(Tok::Ident(w)) = self.peek().cloned() else {
            return Ok(Exp::BasicOp(BasicOp::SubExp(self.subexp()?)));
        };
        let call = matches!(self.peek_at(1), Some(Tok::Punct("(")));
        match w.as_str() {
            "true" | "false" => Ok(Exp::BasicOp(BasicOp::SubExp(self.subexp()?))),
            "if" => {
                self.pos += 1;
                let cond = self.subexp()?;
                self.word("then")?;
                let then_body = self.body()?;
                self.word("else")?;
                let else_body = self.body()?;
                self.punct(":")?;
                let ret = self.ret()?;
                Ok(Exp::If {
                    cond,
                    then_body,
                    else_body,
                    ret,
                })
            }
            "loop" => {
                self.pos += 1;
                self.punct("(")?;
                let params = self.comma_list(")", |p| {
                    let v = p.typed_var()?;
                    p.punct("=")?;
                    Ok((v, p.subexp()?))
                })?;
                let form = if self.is_word("for") {
                    self.pos += 1;
                    let i = self.typed_var()?;
                    self.punct("<")?;
                    LoopForm::For {
                        i,
                        bound: self.subexp()?,
                    }
                } else if self.is_word("while") {
                    self.pos += 1;
                    LoopForm::While { cond: self.var()? }
                } else {
                    return self.unexpected("`for` or `while`");
                };
                self.word("do")?;
                let body = self.body()?;
                Ok(Exp::Loop { params, form, body })
            }
            "call" => {
                self.pos += 1;
                let fun = self.name()?;
                let args = self.paren_subexps()?;
                self.punct(":")?;
                let ret = self.ret()?;
                Ok(Exp::Apply { fun, args, ret })
            }
            _ if call => {
                self.pos += 2;
                self.call_like(&w)
            }
            _ => {
                let array = self.var()?;
                if self.is_punct("[") {
                    let slice = self.slice()?;
                    Ok(Exp::BasicOp(BasicOp::Index { array, slice }))
                } else if self.is_word("with") {
                    self.pos += 1;
                    let slice = self.slice()?;
                    self.punct("=")?;
                    let value = self.subexp()?;
                    Ok(Exp::BasicOp(BasicOp::Update {
                        array,
                        slice,
                        value,
                    }))
                } else {
                    Ok(Exp::BasicOp(BasicOp::SubExp(SubExp::Var(array))))
                }
            }
        }
    }

    /// `w(` has been read.
    fn call_like(&mut self, w: &str) -> R<Exp> {
        let b = |op| Ok(Exp::BasicOp(op));
        match w {
            "map" => {
                let w = self.subexp()?;
                self.punct(",")?;
                let lam = self.lambda()?;
                let arrays = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Map { w, lam, arrays }))
            }
            "reduce" | "reduce_comm" | "scan" => {
                let width = self.subexp()?;
                self.punct(",")?;
                let lam = self.lambda()?;
                self.punct(",")?;
                let neutral = self.neutral()?;
                let arrays = self.trailing_vars()?;
                Ok(Exp::Soac(if w == "scan" {
                    Soac::Scan {
                        w: width,
                        lam,
                        neutral,
                        arrays,
                    }
                } else {
                    Soac::Reduce {
                        w: width,
                        lam,
                        neutral,
                        arrays,
                        commutative: w == "reduce_comm",
                    }
                }))
            }
            "hist" => {
                let w = self.subexp()?;
                self.punct(",")?;
                let dests = self.paren_vars()?;
                self.punct(",")?;
                let lam = self.lambda()?;
                self.punct(",")?;
                let neutral = self.neutral()?;
                self.punct(",")?;
                let indices = self.var()?;
                let values = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Hist {
                    w,
                    dests,
                    lam,
                    neutral,
                    indices,
                    values,
                }))
            }
            "scatter" => {
                let w = self.subexp()?;
                self.punct(",")?;
                let dests = self.paren_vars()?;
                self.punct(",")?;
                let indices = self.var()?;
                let values = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Scatter {
                    w,
                    dests,
                    indices,
                    values,
                }))
            }
            "redomap" | "redomap_comm" | "scanomap" => {
                let width = self.subexp()?;
                self.punct(",")?;
                let map = self.lambda()?;
                self.punct(",")?;
                let lam = self.lambda()?;
                self.punct(",")?;
                let neutral = self.neutral()?;
                let arrays = self.trailing_vars()?;
                let form = if w == "scanomap" {
                    ScremaForm::Scan { lam, neutral }
                } else {
                    ScremaForm::Reduce {
                        lam,
                        neutral,
                        commutative: w == "redomap_comm",
                    }
                };
                Ok(Exp::Soac(Soac::Screma {
                    w: width,
                    map,
                    arrays,
                    form: Box::new(form),
                }))
            }
            "histomap" | "scattermap" => {
                let width = self.subexp()?;
                self.punct(",")?;
                let dests = self.paren_vars()?;
                self.punct(",")?;
                let map = self.lambda()?;
                let form = if w == "histomap" {
                    self.punct(",")?;
                    let lam = self.lambda()?;
                    self.punct(",")?;
                    let neutral = self.neutral()?;
                    ScremaForm::Hist {
                        dests,
                        lam,
                        neutral,
                    }
                } else {
                    ScremaForm::Scatter { dests }
                };
                let arrays = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Screma {
                    w: width,
                    map,
                    arrays,
                    form: Box::new(form),
                }))
            }
            "jvp" | "vjp" => {
                let lam = self.lambda()?;
                self.punct(",")?;
                let args = self.paren_subexps()?;
                self.punct(",")?;
                let seeds = self.paren_subexps()?;
                self.punct(")")?;
                let mode = if w == "jvp" { AdMode::Jvp } else { AdMode::Vjp };
                Ok(Exp::Ad {
                    mode,
                    lam,
                    args,
                    seeds,
                })
            }
            "with_acc" => {
                let mut inputs = Vec::new();
                while self.is_punct("[") {
                    let shape = self.dims()?;
                    let arrays = self.paren_vars()?;
                    self.punct(",")?;
                    inputs.push((shape, arrays));
                }
                let lam = self.lambda()?;
                self.punct(")")?;
                Ok(Exp::WithAcc { inputs, lam })
            }
            "iota" => {
                let elem = self.prim_type()?;
                self.punct(",")?;
                let n = self.subexp()?;
                self.punct(",")?;
                let start = self.subexp()?;
                self.punct(",")?;
                let stride = self.subexp()?;
                self.punct(")")?;
                b(BasicOp::Iota {
                    n,
                    start,
                    stride,
                    elem,
                })
            }
            "replicate" => {
                let shape = self.dims()?;
                self.punct(",")?;
                let value = self.subexp()?;
                self.punct(")")?;
                b(BasicOp::Replicate { shape, value })
            }
            "scratch" => {
                let elem = self.prim_type()?;
                self.punct(",")?;
                let shape = self.dims()?;
                self.punct(")")?;
                b(BasicOp::Scratch { elem, shape })
            }
            "array" => {
                let row = self.ty()?;
                self.punct(",")?;
                self.punct("[")?;
                let elems = self.comma_list("]", |p| p.subexp())?;
                self.punct(")")?;
                b(BasicOp::ArrayLit { elems, row })
            }
            "concat" => {
                let size = self.subexp()?;
                let arrays = self.trailing_vars()?;
                b(BasicOp::Concat { arrays, size })
            }
            "copy" => {
                let v = self.var()?;
                self.punct(")")?;
                b(BasicOp::Copy(v))
            }
            "reshape" | "coerce" => {
                let shape = self.dims()?;
                self.punct(",")?;
                let array = self.var()?;
                if w == "reshape" {
                    self.punct(")")?;
                    return b(BasicOp::Reshape { array, shape });
                }
                self.punct(",")?;
                let type_text = self.string()?;
                self.punct(")")?;
                b(BasicOp::Coerce {
                    array,
                    shape,
                    type_text,
                })
            }
            "rearrange" => {
                self.punct("[")?;
                let perm = self.comma_list("]", |p| p.usize_lit())?;
                self.punct(",")?;
                let array = self.var()?;
                self.punct(")")?;
                b(BasicOp::Rearrange { array, perm })
            }
            "rotate" => {
                let amount = self.subexp()?;
                self.punct(",")?;
                let array = self.var()?;
                self.punct(")")?;
                b(BasicOp::Rotate { array, amount })
            }
            "assert" => {
                let cond = self.subexp()?;
                self.punct(",")?;
                let message = self.string()?;
                let mut args = Vec::new();
                while self.eat_punct(",") {
                    args.push(self.subexp()?);
                }
                self.punct(")")?;
                b(BasicOp::Assert {
                    cond,
                    message,
                    args,
                })
            }
            "update_acc" => {
                let acc = self.var()?;
                self.punct(",")?;
                self.punct("[")?;
                let indices = self.comma_list("]", |p| p.subexp())?;
                self.punct(",")?;
                self.punct("[")?;
                let values = self.comma_list("]", |p| p.subexp())?;
                self.punct(")")?;
                b(BasicOp::UpdateAcc {
                    acc,
                    indices,
                    values,
                })
            }
            _ => match self.prims.get(w).copied() {
                Some(op) => {
                    let args = self.comma_list(")", |p| p.subexp())?;
                    b(BasicOp::Prim(op, args))
                }
                None => {
                    self.pos -= 2;
                    self.error(format!("unknown operation `{w}`"))
                }
            },
        }
    }

    /// Neutral elements: `(a, b)` or a single operand.
    fn neutral(&mut self) -> R<Vec<SubExp>> {
        if self.is_punct("(") {
            self.paren_subexps()
        } else {
            Ok(vec![self.subexp()?])
        }
    }
}
