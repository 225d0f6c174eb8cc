//! Tokens: the lexer of the core IR text (tokens with their byte spans, blanks and `--`
//! comments skipped, numeric literals read into constants) and the parser's cursor over them
//! (looking ahead, expecting punctuation and words, comma-separated lists, the nesting limit,
//! errors carrying the current token's span). Never panics: bad input is a [`Diagnostic`].

use super::{MAX_DEPTH, Parser, R};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::{Diagnostic, FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
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

pub(super) fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) | Tok::Num(s) => format!("`{s}`"),
        Tok::Str(s) => format!("string {s:?}"),
        Tok::Attr(s) => format!("attribute `#[{s}]`"),
        Tok::Punct(p) => format!("`{p}`"),
    }
}

pub(super) fn lex(file: FileId, text: &str) -> Result<Vec<(Tok, usize, usize)>, Diagnostic> {
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
pub(super) fn parse_number(text: &str, default: Option<PrimType>) -> Result<Scalar, String> {
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

impl Parser {
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    pub(super) fn span(&self) -> Span {
        match self.toks.get(self.pos) {
            Some((_, s, e)) => Span::new(self.file, *s, *e),
            None => Span::new(self.file, self.end, self.end),
        }
    }

    pub(super) fn error<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(Diagnostic::error(self.span(), msg))
    }

    pub(super) fn unexpected<T>(&self, wanted: &str) -> R<T> {
        match self.peek() {
            Some(t) => self.error(format!("expected {wanted}, found {}", describe(t))),
            None => self.error(format!("expected {wanted}, found the end of the text")),
        }
    }

    pub(super) fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    pub(super) fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(q)) if q == w)
    }

    pub(super) fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn punct(&mut self, p: &str) -> R<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.unexpected(&format!("`{p}`"))
        }
    }

    pub(super) fn word(&mut self, w: &str) -> R<()> {
        if self.is_word(w) {
            self.pos += 1;
            Ok(())
        } else {
            self.unexpected(&format!("`{w}`"))
        }
    }

    pub(super) fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Items separated by commas up to (and consuming) `close`.
    pub(super) fn comma_list<T>(
        &mut self,
        close: &str,
        mut item: impl FnMut(&mut Self) -> R<T>,
    ) -> R<Vec<T>> {
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

    pub(super) fn name(&mut self) -> R<String> {
        match self.peek().cloned() {
            Some(Tok::Ident(s) | Tok::Str(s)) => {
                self.pos += 1;
                Ok(s)
            }
            _ => self.unexpected("a name"),
        }
    }

    pub(super) fn string(&mut self) -> R<String> {
        match self.peek().cloned() {
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(s)
            }
            _ => self.unexpected("a string"),
        }
    }

    pub(super) fn usize_lit(&mut self) -> R<usize> {
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
}
