//! The lexer: source text to tokens with spans (docs/language.md §Lexical syntax).
//!
//! Every token records whether whitespace (or a comment) came right before it, because the
//! grammar depends on it: `f[1]` indexes while `f [1]` applies `f` to an array, and `a.b` is a
//! field access or qualified name only when written without spaces.
//!
//! A number written right after a `.` token is lexed as a plain decimal (a field number), so
//! `t.0.1` is `t`, `.`, `0`, `.`, `1`. An invalid character or malformed literal does not
//! stop the lexer with an error of its own: it ends the token stream with an
//! [`Tok::Error`] token, which the parser reports when it gets there, so syntax errors earlier
//! in the file are reported first.

use super::ast::{FloatLit, IntLit};
use crate::core::scalar::PrimType;
use crate::diag::{FileId, Span};

/// Reserved words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    /// `true`
    True,
    /// `false`
    False,
    /// `if`
    If,
    /// `then`
    Then,
    /// `else`
    Else,
    /// `def`
    Def,
    /// `let`
    Let,
    /// `loop`
    Loop,
    /// `in`
    In,
    /// `val`
    Val,
    /// `for`
    For,
    /// `do`
    Do,
    /// `with`
    With,
    /// `local`
    Local,
    /// `open`
    Open,
    /// `include`
    Include,
    /// `import`
    Import,
    /// `type`
    Type,
    /// `entry`
    Entry,
    /// `module`
    Module,
    /// `while`
    While,
    /// `assert`
    Assert,
    /// `match`
    Match,
    /// `case`
    Case,
}

impl Kw {
    const ALL: [(&'static str, Kw); 24] = [
        ("true", Kw::True),
        ("false", Kw::False),
        ("if", Kw::If),
        ("then", Kw::Then),
        ("else", Kw::Else),
        ("def", Kw::Def),
        ("let", Kw::Let),
        ("loop", Kw::Loop),
        ("in", Kw::In),
        ("val", Kw::Val),
        ("for", Kw::For),
        ("do", Kw::Do),
        ("with", Kw::With),
        ("local", Kw::Local),
        ("open", Kw::Open),
        ("include", Kw::Include),
        ("import", Kw::Import),
        ("type", Kw::Type),
        ("entry", Kw::Entry),
        ("module", Kw::Module),
        ("while", Kw::While),
        ("assert", Kw::Assert),
        ("match", Kw::Match),
        ("case", Kw::Case),
    ];

    /// The keyword spelled `s`, if any.
    pub fn lookup(s: &str) -> Option<Kw> {
        Kw::ALL.iter().find(|(t, _)| *t == s).map(|(_, k)| *k)
    }

    /// How the keyword is written.
    pub fn text(self) -> &'static str {
        Kw::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(t, _)| t)
    }
}

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier (not a reserved word, not `_`).
    Ident(String),
    /// A reserved word.
    Kw(Kw),
    /// An integer literal.
    Int(IntLit),
    /// A float literal.
    Float(FloatLit),
    /// A character literal.
    Char(char),
    /// A string literal (escapes resolved).
    Str(String),
    /// An operator symbol (`+`, `<=`, `|>`, ...); never `=` or `->` alone.
    Op(String),
    /// `#name`, a constructor.
    Constructor(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `:>`
    ColonGt,
    /// `->`
    Arrow,
    /// `=`
    Equals,
    /// `\`
    Backslash,
    /// `_`
    Underscore,
    /// `'`
    Quote,
    /// `'~`
    QuoteTilde,
    /// `'^`
    QuoteCaret,
    /// `~`
    Tilde,
    /// `?`
    Question,
    /// `???`
    Hole,
    /// `#[`
    HashBracket,
    /// `` ` ``
    Backtick,
    /// `.`
    Dot,
    /// `..`
    DotDot,
    /// `...`
    DotDotDot,
    /// `..<`
    DotDotLt,
    /// `..>`
    DotDotGt,
    /// A lexical error; the message says what is wrong. Always followed by [`Tok::Eof`].
    Error(String),
    /// Valid syntax gradus does not support yet (`f16` and hexadecimal float literals); the
    /// text names it. Always followed by [`Tok::Eof`].
    Unsupported(String),
    /// The end of the file.
    Eof,
}

/// A token with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its source text.
    pub span: Span,
    /// Whether whitespace, a comment or the start of the file comes right before it.
    pub space_before: bool,
}

/// Ends the message of a lexical error that is a limitation rather than a mistake.
const UNSUPPORTED: &str = " are not supported yet";

fn is_op_char(c: u8) -> bool {
    matches!(
        c,
        b'+' | b'-' | b'*' | b'/' | b'%' | b'=' | b'!' | b'>' | b'<' | b'|' | b'&' | b'^'
    )
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'\''
}

struct Lexer<'a> {
    file: FileId,
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    tokens: Vec<Token>,
}

/// Splits `text` into tokens. The result always ends with [`Tok::Eof`]; a lexical error
/// appears as a [`Tok::Error`] token just before it.
pub fn lex(file: FileId, text: &str) -> Vec<Token> {
    let mut lx = Lexer {
        file,
        src: text.as_bytes(),
        text,
        pos: 0,
        tokens: Vec::new(),
    };
    lx.run();
    lx.tokens
}

impl<'a> Lexer<'a> {
    fn at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn cur(&self) -> u8 {
        self.at(self.pos)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start..end).unwrap_or("")
    }

    fn push(&mut self, tok: Tok, start: usize, space: bool) {
        self.tokens.push(Token {
            tok,
            span: Span::new(self.file, start, self.pos),
            space_before: space,
        });
    }

    fn run(&mut self) {
        let mut space = true;
        // A byte order mark at the start of the file is not part of the program.
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        loop {
            // Whitespace and comments.
            let c = self.cur();
            if self.pos >= self.src.len() {
                let end = self.src.len();
                self.tokens.push(Token {
                    tok: Tok::Eof,
                    span: self.span(end, end),
                    space_before: true,
                });
                return;
            }
            if c == b' ' || c == b'\t' || c == b'\n' || c == b'\r' || c == 0x0c {
                self.pos += 1;
                space = true;
                continue;
            }
            if c == b'-' && self.at(self.pos + 1) == b'-' {
                while self.pos < self.src.len() && self.cur() != b'\n' {
                    self.pos += 1;
                }
                space = true;
                continue;
            }
            let start = self.pos;
            match self.token(start) {
                Ok(tok) => {
                    self.push(tok, start, space);
                    space = false;
                }
                Err(msg) => {
                    if self.pos <= start {
                        // Cover at least one whole character.
                        let w = self.text.get(start..).and_then(|s| s.chars().next());
                        self.pos = start + w.map_or(1, char::len_utf8);
                    }
                    let tok = match msg.strip_suffix(UNSUPPORTED) {
                        Some(what) => Tok::Unsupported(what.to_string()),
                        None => Tok::Error(msg),
                    };
                    self.push(tok, start, space);
                    let end = self.src.len();
                    self.tokens.push(Token {
                        tok: Tok::Eof,
                        span: self.span(end, end),
                        space_before: true,
                    });
                    return;
                }
            }
        }
    }

    fn prev_is_dot(&self) -> bool {
        matches!(
            self.tokens.last(),
            Some(Token { tok: Tok::Dot, span, .. }) if span.end as usize == self.pos
        )
    }

    /// Lexes one token starting at `start` (not whitespace).
    fn token(&mut self, start: usize) -> Result<Tok, String> {
        let c = self.cur();
        if is_ident_start(c) || (c == b'_' && is_ident_char(self.at(start + 1))) {
            self.pos += 1;
            while is_ident_char(self.cur()) {
                self.pos += 1;
            }
            let s = self.slice(start, self.pos);
            if c == b'_'
                && !s
                    .as_bytes()
                    .get(1)
                    .is_some_and(|b| b.is_ascii_alphanumeric())
            {
                return Err(format!("invalid identifier `{s}`"));
            }
            return Ok(match Kw::lookup(s) {
                Some(k) => Tok::Kw(k),
                None => Tok::Ident(s.to_string()),
            });
        }
        if c.is_ascii_digit() {
            return self.number(start);
        }
        if is_op_char(c) {
            while is_op_char(self.cur()) && !(self.cur() == b'-' && self.at(self.pos + 1) == b'-') {
                self.pos += 1;
            }
            let s = self.slice(start, self.pos);
            return Ok(match s {
                "=" => Tok::Equals,
                "->" => Tok::Arrow,
                _ => Tok::Op(s.to_string()),
            });
        }
        self.pos += 1;
        Ok(match c {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b'[' => Tok::LBracket,
            b']' => Tok::RBracket,
            b'{' => Tok::LBrace,
            b'}' => Tok::RBrace,
            b',' => Tok::Comma,
            b'\\' => Tok::Backslash,
            b'~' => Tok::Tilde,
            b'`' => Tok::Backtick,
            b'_' => Tok::Underscore,
            b':' => {
                if self.cur() == b'>' {
                    self.pos += 1;
                    Tok::ColonGt
                } else {
                    Tok::Colon
                }
            }
            b'?' => {
                if self.cur() == b'?' && self.at(self.pos + 1) == b'?' {
                    self.pos += 2;
                    Tok::Hole
                } else {
                    Tok::Question
                }
            }
            b'#' => {
                if self.cur() == b'[' {
                    self.pos += 1;
                    Tok::HashBracket
                } else if is_ident_start(self.cur()) || self.cur() == b'_' {
                    let s = self.pos;
                    while is_ident_char(self.cur()) {
                        self.pos += 1;
                    }
                    Tok::Constructor(self.slice(s, self.pos).to_string())
                } else {
                    return Err("expected a constructor name or `[` after `#`".into());
                }
            }
            b'.' => {
                if self.cur() == b'.' {
                    self.pos += 1;
                    match self.cur() {
                        b'.' => {
                            self.pos += 1;
                            Tok::DotDotDot
                        }
                        b'<' => {
                            self.pos += 1;
                            Tok::DotDotLt
                        }
                        b'>' => {
                            self.pos += 1;
                            Tok::DotDotGt
                        }
                        _ => Tok::DotDot,
                    }
                } else {
                    Tok::Dot
                }
            }
            b'\'' => return self.quote(start),
            b'"' => return self.string(),
            _ => {
                self.pos = start;
                let ch = self.text.get(start..).and_then(|s| s.chars().next());
                return Err(match ch {
                    Some(ch) => format!("unexpected character `{}`", ch.escape_debug()),
                    None => "unexpected byte".to_string(),
                });
            }
        })
    }

    /// After a `'`: a character literal, or the `'`, `'~`, `'^` of a type parameter.
    fn quote(&mut self, start: usize) -> Result<Tok, String> {
        let rest = self.text.get(self.pos..).unwrap_or("");
        let mut chars = rest.chars();
        match chars.next() {
            Some('~') => {
                self.pos += 1;
                return Ok(Tok::QuoteTilde);
            }
            Some('^') => {
                self.pos += 1;
                return Ok(Tok::QuoteCaret);
            }
            Some('\\') => {
                let (ch, len) = escape(rest.get(1..).unwrap_or(""))?;
                self.pos += 1 + len;
                if self.cur() != b'\'' {
                    return Err("unterminated character literal".into());
                }
                self.pos += 1;
                return Ok(Tok::Char(ch));
            }
            Some(ch) if ch != '\'' && chars.next() == Some('\'') => {
                self.pos += ch.len_utf8() + 1;
                return Ok(Tok::Char(ch));
            }
            _ => {}
        }
        let _ = start;
        Ok(Tok::Quote)
    }

    fn string(&mut self) -> Result<Tok, String> {
        let mut out = String::new();
        loop {
            let rest = self.text.get(self.pos..).unwrap_or("");
            let Some(ch) = rest.chars().next() else {
                return Err("unterminated string literal".into());
            };
            match ch {
                '"' => {
                    self.pos += 1;
                    return Ok(Tok::Str(out));
                }
                '\n' => return Err("unterminated string literal".into()),
                '\\' => {
                    let (e, len) = escape(rest.get(1..).unwrap_or(""))?;
                    out.push(e);
                    self.pos += 1 + len;
                }
                _ => {
                    out.push(ch);
                    self.pos += ch.len_utf8();
                }
            }
        }
    }

    fn number(&mut self, start: usize) -> Result<Tok, String> {
        let field = self.prev_is_dot();
        let c1 = self.at(start + 1);
        let radix = if self.cur() == b'0' && (c1 == b'x' || c1 == b'X') && !field {
            16
        } else if self.cur() == b'0' && (c1 == b'b' || c1 == b'B') && !field {
            2
        } else {
            10
        };
        if radix != 10 {
            self.pos += 2;
            let ds = self.pos;
            let digit = |c: u8| {
                if radix == 16 {
                    c.is_ascii_hexdigit()
                } else {
                    c == b'0' || c == b'1'
                }
            };
            while digit(self.cur()) || self.cur() == b'_' {
                self.pos += 1;
            }
            let digits: String = self
                .slice(ds, self.pos)
                .chars()
                .filter(|c| *c != '_')
                .collect();
            if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_hexdigit()) {
                return Err("expected digits in numeric literal".into());
            }
            if radix == 16
                && (matches!(self.cur(), b'p' | b'P')
                    || (self.cur() == b'.' && self.at(self.pos + 1).is_ascii_hexdigit()))
            {
                return Err(format!("hexadecimal float literals{UNSUPPORTED}"));
            }
            let value = u128::from_str_radix(&digits, radix).map_err(|_| {
                format!("invalid numeric literal `{}`", self.slice(start, self.pos))
            })?;
            return self.int_suffix(value, digits);
        }
        while self.cur().is_ascii_digit() || self.cur() == b'_' {
            self.pos += 1;
        }
        if field {
            let digits: String = self
                .slice(start, self.pos)
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let value = digits
                .parse::<u128>()
                .map_err(|_| "field number too large".to_string())?;
            return Ok(Tok::Int(IntLit {
                value,
                suffix: None,
            }));
        }
        let mut is_float = false;
        if self.cur() == b'.' && self.at(self.pos + 1).is_ascii_digit() {
            is_float = true;
            self.pos += 1;
            while self.cur().is_ascii_digit() || self.cur() == b'_' {
                self.pos += 1;
            }
        }
        if matches!(self.cur(), b'e' | b'E') {
            let mut p = self.pos + 1;
            if matches!(self.at(p), b'+' | b'-') {
                p += 1;
            }
            if self.at(p).is_ascii_digit() {
                is_float = true;
                self.pos = p;
                while self.cur().is_ascii_digit() {
                    self.pos += 1;
                }
            }
        }
        let text: String = self
            .slice(start, self.pos)
            .chars()
            .filter(|c| *c != '_')
            .collect();
        if is_float {
            let suffix = self.suffix()?;
            if let Some(s) = suffix
                && !s.is_float()
            {
                return Err(format!(
                    "a float literal cannot have the suffix `{}`",
                    s.name()
                ));
            }
            let value = text
                .parse::<f64>()
                .map_err(|_| format!("invalid float literal `{text}`"))?;
            return Ok(Tok::Float(FloatLit {
                value,
                text,
                suffix,
            }));
        }
        let value = text
            .parse::<u128>()
            .map_err(|_| format!("integer literal `{text}` is too large"))?;
        self.int_suffix(value, text)
    }

    fn int_suffix(&mut self, value: u128, text: String) -> Result<Tok, String> {
        let suffix = self.suffix()?;
        match suffix {
            Some(s) if s.is_float() => {
                let text = value.to_string();
                Ok(Tok::Float(FloatLit {
                    value: value as f64,
                    text,
                    suffix: Some(s),
                }))
            }
            _ => {
                let _ = text;
                Ok(Tok::Int(IntLit { value, suffix }))
            }
        }
    }

    /// A type suffix right after a literal; any other letters there are an error.
    fn suffix(&mut self) -> Result<Option<PrimType>, String> {
        if !is_ident_char(self.cur()) {
            return Ok(None);
        }
        let s = self.pos;
        while is_ident_char(self.cur()) {
            self.pos += 1;
        }
        let text = self.slice(s, self.pos);
        if text == "f16" {
            return Err(format!("`f16` literals{UNSUPPORTED}"));
        }
        match PrimType::from_name(text) {
            Some(t) if t != PrimType::Bool => Ok(Some(t)),
            _ => Err(format!("invalid suffix `{text}` on numeric literal")),
        }
    }
}

/// Resolves one escape sequence (the text after the backslash); returns the character and
/// the number of bytes used.
fn escape(s: &str) -> Result<(char, usize), String> {
    let mut it = s.chars();
    let c = it.next().ok_or("unterminated escape sequence")?;
    Ok(match c {
        'n' => ('\n', 1),
        't' => ('\t', 1),
        'r' => ('\r', 1),
        '0' => ('\0', 1),
        '\\' => ('\\', 1),
        '\'' => ('\'', 1),
        '"' => ('"', 1),
        'x' => {
            let h = s.get(1..3).ok_or("invalid `\\x` escape")?;
            let v = u8::from_str_radix(h, 16).map_err(|_| "invalid `\\x` escape")?;
            (char::from(v), 3)
        }
        'u' => {
            let rest = s.get(1..).unwrap_or("");
            let inner = rest
                .strip_prefix('{')
                .and_then(|r| r.split_once('}'))
                .map(|(h, _)| h)
                .ok_or("invalid `\\u` escape")?;
            let v = u32::from_str_radix(inner, 16).map_err(|_| "invalid `\\u` escape")?;
            let ch = char::from_u32(v).ok_or("invalid `\\u` escape")?;
            (ch, inner.len() + 3)
        }
        _ => return Err(format!("unknown escape sequence `\\{}`", c.escape_debug())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(FileId(0), s).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn field_numbers_after_dot() {
        let t = toks("t.0.1");
        assert_eq!(t.len(), 6);
        assert!(matches!(t.get(2), Some(Tok::Int(IntLit { value: 0, .. }))));
        assert!(matches!(t.get(4), Some(Tok::Int(IntLit { value: 1, .. }))));
    }

    #[test]
    fn literals() {
        assert_eq!(
            toks("0xff_u8"),
            vec![
                Tok::Int(IntLit {
                    value: 255,
                    suffix: Some(PrimType::U8)
                }),
                Tok::Eof
            ]
        );
        assert!(matches!(
            toks("2f32").first(),
            Some(Tok::Float(FloatLit {
                suffix: Some(PrimType::F32),
                ..
            }))
        ));
        assert!(matches!(
            toks("2.5e-3f64").first(),
            Some(Tok::Float(FloatLit { value, .. })) if (*value - 2.5e-3).abs() < 1e-18
        ));
        assert_eq!(toks("1..<2").get(1), Some(&Tok::DotDotLt));
        assert_eq!(toks("0b1_01").first(), toks("5").first());
        assert!(matches!(
            toks("0b11f32").first(),
            Some(Tok::Float(FloatLit { value, .. })) if *value == 3.0
        ));
        assert!(matches!(toks("0b12").first(), Some(Tok::Error(_))));
        assert!(matches!(
            toks("1_000").first(),
            Some(Tok::Int(IntLit { value: 1000, .. }))
        ));
    }

    #[test]
    fn operators_and_comments() {
        assert_eq!(
            toks("a|>b -- c\n->= :> 'a '~ '^ 'x' ???"),
            vec![
                Tok::Ident("a".into()),
                Tok::Op("|>".into()),
                Tok::Ident("b".into()),
                Tok::Op("->=".into()),
                Tok::ColonGt,
                Tok::Quote,
                Tok::Ident("a".into()),
                Tok::QuoteTilde,
                Tok::QuoteCaret,
                Tok::Char('x'),
                Tok::Hole,
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("x' _y _"),
            vec![
                Tok::Ident("x'".into()),
                Tok::Ident("_y".into()),
                Tok::Underscore,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn byte_order_mark_and_crlf() {
        assert_eq!(
            toks("\u{feff}x\r\ny"),
            vec![Tok::Ident("x".into()), Tok::Ident("y".into()), Tok::Eof]
        );
    }

    #[test]
    fn errors_end_the_stream() {
        let t = toks("a $ b");
        assert!(matches!(t.get(1), Some(Tok::Error(_))));
        assert_eq!(t.len(), 3);
        assert!(matches!(toks("3q").first(), Some(Tok::Error(_))));
    }
}
