//! Reading value streams (textual and binary, mixed).

use super::{DataError, MAX_RANK};
use crate::value::{Array, Buffer, PrimType, Scalar, Value};

/// Reads values one at a time from a byte slice (already decompressed).
///
/// ```
/// use gradus::data::Reader;
/// let vals: Vec<_> = Reader::new(b"1 [2.0f32, 3] -- comment\n true")
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(vals.len(), 3);
/// ```
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    failed: bool,
}

/// How a literal was written, before its type is fixed by the array it is in.
#[derive(Clone, Copy, Debug)]
enum LitKind {
    Bool(bool),
    /// An integer literal: `[sign] digits`, with an optional suffix (which may be a float
    /// suffix: `2f32`).
    Int(Option<PrimType>),
    /// A decimal with `.` or an exponent, with an optional float suffix.
    Float(Option<PrimType>),
    /// `f64.nan`, `-f32.inf`, ...
    Special(Scalar),
}

/// A scalar literal: its kind and the byte range of its number (sign included, suffix
/// excluded).
#[derive(Clone, Copy, Debug)]
struct Lit {
    kind: LitKind,
    start: usize,
    end: usize,
}

/// A parsed textual value before its element type is known.
enum Node {
    Lit(Lit),
    Array(Vec<Node>, usize),
    Empty(PrimType, Vec<usize>, usize),
}

type Res<T> = Result<T, DataError>;

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

fn binary_type(tag: &[u8]) -> Option<PrimType> {
    Some(match tag {
        b"  i8" => PrimType::I8,
        b" i16" => PrimType::I16,
        b" i32" => PrimType::I32,
        b" i64" => PrimType::I64,
        b"  u8" => PrimType::U8,
        b" u16" => PrimType::U16,
        b" u32" => PrimType::U32,
        b" u64" => PrimType::U64,
        b" f32" => PrimType::F32,
        b" f64" => PrimType::F64,
        b"bool" => PrimType::Bool,
        _ => return None,
    })
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader {
            bytes,
            pos: 0,
            failed: false,
        }
    }

    /// The current byte offset.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn err<T>(&self, offset: usize, msg: impl Into<String>) -> Res<T> {
        Err(DataError::at(self.bytes, offset, msg))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.pos + k).copied()
    }

    /// Skips whitespace and `--` comments.
    fn skip_space(&mut self) {
        loop {
            match self.peek() {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'-') if self.peek_at(1) == Some(b'-') => {
                    while let Some(b) = self.peek() {
                        self.pos += 1;
                        if b == b'\n' {
                            break;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips whitespace and comments and tells whether the stream is exhausted.
    pub fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos >= self.bytes.len()
    }

    /// The next value, `Ok(None)` at the end of the stream.
    pub fn next_value(&mut self) -> Result<Option<Value>, DataError> {
        if self.at_end() {
            return Ok(None);
        }
        let r = if self.peek() == Some(b'b') {
            self.binary_value()
        } else {
            self.text_value()
        };
        r.map(Some)
    }

    // ---------------------------------------------------------------- binary

    fn take(&mut self, n: usize, what: &str) -> Res<&'a [u8]> {
        let start = self.pos;
        match start.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                self.pos = end;
                Ok(&self.bytes[start..end])
            }
            _ => self.err(
                start,
                format!(
                    "truncated binary value: {what} needs {n} bytes, only {} left",
                    self.bytes.len() - start
                ),
            ),
        }
    }

    fn binary_value(&mut self) -> Res<Value> {
        let start = self.pos;
        self.pos += 1;
        let version = self.take(1, "the version byte")?[0];
        if version != 2 {
            return self.err(
                start + 1,
                format!("unsupported binary format version {version} (expected 2)"),
            );
        }
        let rank = self.take(1, "the rank byte")?[0] as usize;
        let tag_pos = self.pos;
        let tag = self.take(4, "the type tag")?;
        let t = match binary_type(tag) {
            Some(t) => t,
            None if tag == b" f16" => {
                return self.err(tag_pos, "the type f16 is not supported");
            }
            None => {
                return self.err(
                    tag_pos,
                    format!(
                        "unknown element type tag \"{}\" in binary value",
                        tag.escape_ascii()
                    ),
                );
            }
        };
        let mut shape = Vec::with_capacity(rank);
        let mut count: usize = 1;
        for _ in 0..rank {
            let dpos = self.pos;
            let raw = self.take(8, "a dimension")?;
            let mut b = [0u8; 8];
            b.copy_from_slice(raw);
            let d = u64::from_le_bytes(b);
            let d = usize::try_from(d).map_err(|_| {
                DataError::at(self.bytes, dpos, format!("dimension {d} is too large"))
            })?;
            count = count.checked_mul(d).ok_or_else(|| {
                DataError::at(self.bytes, dpos, "the product of the dimensions overflows")
            })?;
            shape.push(d);
        }
        let width = t.byte_width();
        let remaining = self.bytes.len() - self.pos;
        let nbytes = count.checked_mul(width).filter(|&n| n <= remaining);
        let Some(nbytes) = nbytes else {
            return self.err(
                self.pos,
                format!(
                    "truncated binary value: shape {} of {t} needs {} bytes of elements, only {remaining} left",
                    shape.iter().map(|d| format!("[{d}]")).collect::<String>(),
                    count.saturating_mul(width)
                ),
            );
        };
        let data = &self.bytes[self.pos..self.pos + nbytes];
        self.pos += nbytes;
        let buf = decode_le(t, data);
        if rank == 0 {
            return Ok(Value::Scalar(buf.get(0)));
        }
        match Array::new(shape, buf) {
            Some(a) => Ok(Value::Array(a)),
            None => self.err(start, "element count does not match the shape"),
        }
    }

    // ---------------------------------------------------------------- text

    fn text_value(&mut self) -> Res<Value> {
        let node = self.node(0)?;
        build(self.bytes, node)
    }

    fn node(&mut self, depth: usize) -> Res<Node> {
        self.skip_space();
        let start = self.pos;
        match self.peek() {
            Some(b'[') => {
                if depth >= MAX_RANK {
                    return self.err(start, format!("arrays nested deeper than {MAX_RANK}"));
                }
                self.pos += 1;
                let mut elems = Vec::new();
                loop {
                    self.skip_space();
                    match self.peek() {
                        Some(b']') if elems.is_empty() => {
                            return self.err(
                                start,
                                "`[]` is not a value; write an empty array as empty([0]t)",
                            );
                        }
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Node::Array(elems, start));
                        }
                        _ => {}
                    }
                    elems.push(self.node(depth + 1)?);
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {}
                        Some(c) => {
                            return self.err(
                                self.pos,
                                format!(
                                    "expected `,` or `]` in array, found `{}`",
                                    (c as char).escape_default()
                                ),
                            );
                        }
                        None => return self.err(self.pos, "unterminated array: missing `]`"),
                    }
                }
            }
            Some(b'e') if self.bytes[self.pos..].starts_with(b"empty") => self.empty(),
            Some(_) => self.scalar().map(Node::Lit),
            None => self.err(start, "expected a value, found the end of the input"),
        }
    }

    fn expect(&mut self, s: &str) -> Res<()> {
        self.skip_space();
        if self.bytes[self.pos..].starts_with(s.as_bytes()) {
            self.pos += s.len();
            Ok(())
        } else {
            self.err(self.pos, format!("expected `{s}` in empty(...)"))
        }
    }

    fn empty(&mut self) -> Res<Node> {
        let start = self.pos;
        self.pos += "empty".len();
        self.expect("(")?;
        let mut shape = Vec::new();
        loop {
            self.skip_space();
            if self.peek() != Some(b'[') {
                break;
            }
            self.pos += 1;
            self.skip_space();
            let dpos = self.pos;
            while self.peek().is_some_and(|b| b.is_ascii_digit() || b == b'_') {
                self.pos += 1;
            }
            let text: String = self.bytes[dpos..self.pos]
                .iter()
                .filter(|&&b| b != b'_')
                .map(|&b| b as char)
                .collect();
            let d: usize = text.parse().map_err(|_| {
                DataError::at(self.bytes, dpos, "expected a dimension in empty(...)")
            })?;
            shape.push(d);
            if shape.len() > MAX_RANK {
                return self.err(dpos, format!("more than {MAX_RANK} dimensions"));
            }
            self.expect("]")?;
        }
        if shape.is_empty() {
            return self.err(self.pos, "empty(...) needs at least one dimension `[0]`");
        }
        self.skip_space();
        let tpos = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
            self.pos += 1;
        }
        let name = String::from_utf8_lossy(&self.bytes[tpos..self.pos]).into_owned();
        let t = match PrimType::from_name(&name) {
            Some(t) => t,
            None if name == "f16" => return self.err(tpos, "the type f16 is not supported"),
            None => {
                return self.err(tpos, format!("expected an element type, found `{name}`"));
            }
        };
        self.expect(")")?;
        if !shape.contains(&0) {
            return self.err(
                start,
                "empty(...) must have at least one dimension of size 0",
            );
        }
        Ok(Node::Empty(t, shape, start))
    }

    fn digits(&mut self, ok: impl Fn(u8) -> bool) -> usize {
        let s = self.pos;
        while self.peek().is_some_and(|b| ok(b) || b == b'_') {
            self.pos += 1;
        }
        self.pos - s
    }

    fn scalar(&mut self) -> Res<Lit> {
        let start = self.pos;
        let rest = &self.bytes[self.pos..];
        for (word, v) in [("true", true), ("false", false)] {
            if rest.starts_with(word.as_bytes())
                && !rest.get(word.len()).is_some_and(|&b| is_word_byte(b))
            {
                self.pos += word.len();
                return Ok(Lit {
                    kind: LitKind::Bool(v),
                    start,
                    end: self.pos,
                });
            }
        }
        let neg = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                Some(true)
            }
            Some(b'+') => {
                self.pos += 1;
                Some(false)
            }
            _ => None,
        };
        // Special floats.
        if self.peek() == Some(b'f') {
            let rest = &self.bytes[self.pos..];
            for (name, t) in [
                ("f16", None),
                ("f32", Some(PrimType::F32)),
                ("f64", Some(PrimType::F64)),
            ] {
                for (what, inf) in [(".inf", true), (".nan", false)] {
                    let word = format!("{name}{what}");
                    if rest.starts_with(word.as_bytes())
                        && !rest.get(word.len()).is_some_and(|&b| is_word_byte(b))
                    {
                        let Some(t) = t else {
                            return self.err(start, "the type f16 is not supported");
                        };
                        if !inf && neg.is_some() {
                            return self.err(start, "a NaN literal takes no sign");
                        }
                        if inf && neg == Some(false) {
                            return self.err(start, "write infinity as f64.inf, without `+`");
                        }
                        let x = if inf {
                            if neg == Some(true) {
                                f64::NEG_INFINITY
                            } else {
                                f64::INFINITY
                            }
                        } else {
                            f64::NAN
                        };
                        self.pos += word.len();
                        let s = if t == PrimType::F32 {
                            Scalar::F32(x as f32)
                        } else {
                            Scalar::F64(x)
                        };
                        return Ok(Lit {
                            kind: LitKind::Special(s),
                            start,
                            end: self.pos,
                        });
                    }
                }
            }
        }
        if !self.peek().is_some_and(|b| b.is_ascii_digit()) {
            let c = self.peek().map_or(String::from("end of input"), |c| {
                format!("`{}`", (c as char).escape_default())
            });
            return self.err(self.pos, format!("expected a value, found {c}"));
        }
        let radix_prefix =
            self.peek() == Some(b'0') && matches!(self.peek_at(1), Some(b'x' | b'X' | b'b' | b'B'));
        let mut is_float = false;
        if radix_prefix {
            let hex = matches!(self.peek_at(1), Some(b'x' | b'X'));
            self.pos += 2;
            let n = if hex {
                self.digits(|b| b.is_ascii_hexdigit())
            } else {
                self.digits(|b| b == b'0' || b == b'1')
            };
            if n == 0 {
                return self.err(start, "expected digits after the radix prefix");
            }
        } else {
            self.digits(|b| b.is_ascii_digit());
            if self.peek() == Some(b'.') && self.peek_at(1).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
                self.digits(|b| b.is_ascii_digit());
                is_float = true;
            }
            if matches!(self.peek(), Some(b'e' | b'E')) {
                let save = self.pos;
                self.pos += 1;
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                if self.digits(|b| b.is_ascii_digit()) == 0 {
                    self.pos = save;
                    return self.err(save, "expected digits in the exponent");
                }
                is_float = true;
            }
        }
        let end = self.pos;
        let mut suffix = None;
        if self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            let spos = self.pos;
            while self.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
                self.pos += 1;
            }
            let name = String::from_utf8_lossy(&self.bytes[spos..self.pos]).into_owned();
            match PrimType::from_name(&name) {
                Some(t) if t != PrimType::Bool => {
                    if is_float && !t.is_float() {
                        return self.err(
                            spos,
                            format!("a decimal number cannot have the integer suffix {name}"),
                        );
                    }
                    if radix_prefix && t.is_float() {
                        return self.err(spos, "a hexadecimal or binary literal cannot be a float");
                    }
                    suffix = Some(t);
                }
                _ if name == "f16" => return self.err(spos, "the type f16 is not supported"),
                _ => return self.err(spos, format!("unknown type suffix `{name}`")),
            }
        }
        if self.peek().is_some_and(is_word_byte) {
            return self.err(
                self.pos,
                format!(
                    "unexpected `{}` after a number",
                    (self.bytes[self.pos] as char).escape_default()
                ),
            );
        }
        let kind = if is_float {
            LitKind::Float(suffix)
        } else {
            LitKind::Int(suffix)
        };
        Ok(Lit { kind, start, end })
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<Value, DataError>;

    /// The next value; after an error the iterator ends.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_value() {
            Ok(v) => v.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

fn decode_le(t: PrimType, data: &[u8]) -> Buffer {
    macro_rules! dec {
        ($ty:ty, $variant:ident) => {
            Buffer::$variant(
                data.chunks_exact(std::mem::size_of::<$ty>())
                    .map(|c| {
                        let mut b = [0u8; std::mem::size_of::<$ty>()];
                        b.copy_from_slice(c);
                        <$ty>::from_le_bytes(b)
                    })
                    .collect(),
            )
        };
    }
    match t {
        PrimType::Bool => Buffer::Bool(data.iter().map(|&b| b != 0).collect()),
        PrimType::I8 => dec!(i8, I8),
        PrimType::I16 => dec!(i16, I16),
        PrimType::I32 => dec!(i32, I32),
        PrimType::I64 => dec!(i64, I64),
        PrimType::U8 => Buffer::U8(data.to_vec()),
        PrimType::U16 => dec!(u16, U16),
        PrimType::U32 => dec!(u32, U32),
        PrimType::U64 => dec!(u64, U64),
        PrimType::F32 => dec!(f32, F32),
        PrimType::F64 => dec!(f64, F64),
    }
}

/// The type a literal has on its own (the first scalar of an array fixes the array's type).
fn own_type(l: &Lit) -> PrimType {
    match l.kind {
        LitKind::Bool(_) => PrimType::Bool,
        LitKind::Int(s) => s.unwrap_or(PrimType::I32),
        LitKind::Float(s) => s.unwrap_or(PrimType::F64),
        LitKind::Special(s) => s.prim_type(),
    }
}

fn first_lit(n: &Node) -> Option<&Lit> {
    match n {
        Node::Lit(l) => Some(l),
        Node::Array(es, _) => es.iter().find_map(first_lit),
        Node::Empty(..) => None,
    }
}

fn first_empty_type(n: &Node) -> Option<PrimType> {
    match n {
        Node::Lit(_) => None,
        Node::Array(es, _) => es.iter().find_map(first_empty_type),
        Node::Empty(t, _, _) => Some(*t),
    }
}

fn node_pos(n: &Node) -> usize {
    match n {
        Node::Lit(l) => l.start,
        Node::Array(_, p) | Node::Empty(_, _, p) => *p,
    }
}

fn shape_of(bytes: &[u8], n: &Node, t: PrimType) -> Res<Vec<usize>> {
    match n {
        Node::Lit(_) => Ok(Vec::new()),
        Node::Empty(et, shape, p) => {
            if *et != t {
                return Err(DataError::at(
                    bytes,
                    *p,
                    format!("empty array of type {et} in an array of {t}"),
                ));
            }
            Ok(shape.clone())
        }
        Node::Array(es, _) => {
            let inner = shape_of(bytes, &es[0], t)?;
            for e in &es[1..] {
                let s = shape_of(bytes, e, t)?;
                if s != inner {
                    let show = |s: &[usize]| {
                        if s.is_empty() {
                            "a scalar".to_string()
                        } else {
                            format!(
                                "shape {}",
                                s.iter().map(|d| format!("[{d}]")).collect::<String>()
                            )
                        }
                    };
                    return Err(DataError::at(
                        bytes,
                        node_pos(e),
                        format!(
                            "irregular array: element has {}, but the first element has {}",
                            show(&s),
                            show(&inner)
                        ),
                    ));
                }
            }
            let mut shape = vec![es.len()];
            shape.extend(inner);
            Ok(shape)
        }
    }
}

fn flatten_into(bytes: &[u8], n: &Node, t: PrimType, buf: &mut Buffer) -> Res<()> {
    match n {
        Node::Lit(l) => {
            let x = convert(bytes, l, t)?;
            buf.push(x);
            Ok(())
        }
        Node::Empty(..) => Ok(()),
        Node::Array(es, _) => es.iter().try_for_each(|e| flatten_into(bytes, e, t, buf)),
    }
}

fn build(bytes: &[u8], node: Node) -> Res<Value> {
    let t = match first_lit(&node) {
        Some(l) => own_type(l),
        None => first_empty_type(&node).unwrap_or(PrimType::I32),
    };
    if let Node::Lit(l) = &node {
        return convert(bytes, l, t).map(Value::Scalar);
    }
    let shape = shape_of(bytes, &node, t)?;
    let count = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| DataError::at(bytes, node_pos(&node), "array too large"))?;
    let mut buf = Buffer::with_capacity(t, count.min(1 << 20));
    flatten_into(bytes, &node, t, &mut buf)?;
    Array::new(shape, buf)
        .map(Value::Array)
        .ok_or_else(|| DataError::at(bytes, node_pos(&node), "malformed array"))
}

fn text_of(bytes: &[u8], l: &Lit) -> String {
    bytes[l.start..l.end]
        .iter()
        .filter(|&&b| b != b'_')
        .map(|&b| b as char)
        .collect()
}

/// Parses an integer literal's text (sign, radix prefix) into an `i128`.
fn int_value(text: &str) -> Option<i128> {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u128::from_str_radix(h, 16).ok()?
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        u128::from_str_radix(b, 2).ok()?
    } else {
        body.parse::<u128>().ok()?
    };
    let mag = i128::try_from(mag).ok()?;
    Some(if neg { -mag } else { mag })
}

/// Converts a literal to type `t`, checking that its form and suffix allow it.
fn convert(bytes: &[u8], l: &Lit, t: PrimType) -> Res<Scalar> {
    let contradiction = || {
        Err(DataError::at(
            bytes,
            l.start,
            format!(
                "`{}` cannot be a value of type {t} (the type of the array's first element)",
                String::from_utf8_lossy(&bytes[l.start..l.end])
            ),
        ))
    };
    match l.kind {
        LitKind::Bool(b) => {
            if t == PrimType::Bool {
                Ok(Scalar::Bool(b))
            } else {
                contradiction()
            }
        }
        LitKind::Special(s) => {
            if s.prim_type() == t {
                Ok(s)
            } else {
                contradiction()
            }
        }
        LitKind::Float(suffix) => {
            if suffix.is_some_and(|s| s != t) || !t.is_float() {
                return contradiction();
            }
            float_value(bytes, l, t)
        }
        LitKind::Int(suffix) => {
            if suffix.is_some_and(|s| s != t) || t == PrimType::Bool {
                return contradiction();
            }
            if t.is_float() {
                return float_value(bytes, l, t);
            }
            let text = text_of(bytes, l);
            let v = int_value(&text);
            let out_of_range = || {
                Err(DataError::at(
                    bytes,
                    l.start,
                    format!("{text} does not fit in type {t}"),
                ))
            };
            let Some(v) = v else { return out_of_range() };
            // As Futhark's reader does, a negative literal for an unsigned type wraps around
            // (`-1u8` is 255) when its two's-complement form fits in the type's width.
            let v = if t.is_unsigned_int() && v < 0 && v >= -(1i128 << (t.bits() - 1)) {
                v + (1i128 << t.bits())
            } else {
                v
            };
            macro_rules! fit {
                ($ty:ty, $variant:ident) => {
                    match <$ty>::try_from(v) {
                        Ok(x) => Ok(Scalar::$variant(x)),
                        Err(_) => out_of_range(),
                    }
                };
            }
            match t {
                PrimType::I8 => fit!(i8, I8),
                PrimType::I16 => fit!(i16, I16),
                PrimType::I32 => fit!(i32, I32),
                PrimType::I64 => fit!(i64, I64),
                PrimType::U8 => fit!(u8, U8),
                PrimType::U16 => fit!(u16, U16),
                PrimType::U32 => fit!(u32, U32),
                PrimType::U64 => fit!(u64, U64),
                PrimType::Bool | PrimType::F32 | PrimType::F64 => contradiction(),
            }
        }
    }
}

fn float_value(bytes: &[u8], l: &Lit, t: PrimType) -> Res<Scalar> {
    let text = text_of(bytes, l);
    let bad = || {
        Err(DataError::at(
            bytes,
            l.start,
            format!("`{text}` is not a valid {t} literal"),
        ))
    };
    if text.contains(['x', 'X', 'b', 'B']) {
        // A hexadecimal or binary integer in a float array: convert its value.
        return match int_value(&text) {
            Some(v) if t == PrimType::F32 => Ok(Scalar::F32(v as f32)),
            Some(v) => Ok(Scalar::F64(v as f64)),
            None => bad(),
        };
    }
    match t {
        PrimType::F32 => text.parse::<f32>().map(Scalar::F32).or_else(|_| bad()),
        _ => text.parse::<f64>().map(Scalar::F64).or_else(|_| bad()),
    }
}
