//! Interpreter values and the buffer operations the interpreter is built from.

use crate::value::{Array, Buffer, PrimType, Scalar, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// A value as the interpreter holds it: a [`Value`], or an accumulator.
#[derive(Clone, Debug)]
pub(super) enum Val {
    Scalar(Scalar),
    Array(Array),
    /// An accumulator. All copies of one accumulator share its state: accumulators are used
    /// linearly, so adding in place gives the pure semantics (a list of additions applied at
    /// the end of `with_acc`).
    Acc(Rc<RefCell<AccState>>),
}

/// The arrays behind an accumulator.
#[derive(Debug)]
pub(super) struct AccState {
    /// The accumulator's shape (leading dimensions of every array).
    pub shape: Vec<usize>,
    /// The arrays added into.
    pub arrays: Vec<Array>,
}

impl From<Value> for Val {
    fn from(v: Value) -> Val {
        match v {
            Value::Scalar(s) => Val::Scalar(s),
            Value::Array(a) => Val::Array(a),
        }
    }
}

impl Val {
    /// The value, unless it is an accumulator.
    pub fn into_value(self) -> Result<Value, String> {
        match self {
            Val::Scalar(s) => Ok(Value::Scalar(s)),
            Val::Array(a) => Ok(Value::Array(a)),
            Val::Acc(_) => Err("internal error: an accumulator escaped its with_acc".into()),
        }
    }

    /// The type as source text (`[2][3]f64`, `acc`).
    pub fn type_name(&self) -> String {
        match self {
            Val::Scalar(s) => s.prim_type().name().to_string(),
            Val::Array(a) => type_text(a.shape(), a.elem_type()),
            Val::Acc(_) => "acc".to_string(),
        }
    }

    /// The shape (empty for scalars and accumulators).
    pub fn shape(&self) -> &[usize] {
        match self {
            Val::Array(a) => a.shape(),
            _ => &[],
        }
    }
}

/// The value of an integer or `bool` scalar.
pub(super) fn int_value(s: Scalar) -> Option<i128> {
    Some(match s {
        Scalar::Bool(b) => b as i128,
        Scalar::I8(v) => v as i128,
        Scalar::I16(v) => v as i128,
        Scalar::I32(v) => v as i128,
        Scalar::I64(v) => v as i128,
        Scalar::U8(v) => v as i128,
        Scalar::U16(v) => v as i128,
        Scalar::U32(v) => v as i128,
        Scalar::U64(v) => v as i128,
        Scalar::F32(_) | Scalar::F64(_) => return None,
    })
}

/// The integer `v` at type `t`, wrapped (floats and `bool` convert as numbers).
pub(super) fn int_scalar(t: PrimType, v: i128) -> Scalar {
    Scalar::from_i128(t, v)
}

/// A scalar printed without a type suffix, as in run-time error messages: `5`, `-1`, `2.5`,
/// `true`.
pub(super) fn plain(s: Scalar) -> String {
    let float = |x: f64| {
        if x.is_nan() {
            "nan".to_string()
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.to_string()
        } else {
            format!("{x:?}")
        }
    };
    match s {
        Scalar::Bool(b) => b.to_string(),
        Scalar::F32(x) => {
            if x.is_finite() {
                format!("{x:?}")
            } else {
                float(x as f64)
            }
        }
        Scalar::F64(x) => float(x),
        other => int_value(other).map_or_else(String::new, |v| v.to_string()),
    }
}

/// `[3][2]`.
pub(super) fn shape_text(shape: &[usize]) -> String {
    shape.iter().map(|d| format!("[{d}]")).collect()
}

/// `[3][2]f64`.
pub(super) fn type_text(shape: &[usize], elem: PrimType) -> String {
    format!("{}{}", shape_text(shape), elem.name())
}

/// The size-check failure message of docs/language.md §Run-time errors:
/// `value of shape [3] cannot match shape of type "[2]f64".`
pub fn size_error(shape: &[usize], required: &str) -> String {
    format!(
        "value of shape {} cannot match shape of type \"{required}\".",
        shape_text(shape)
    )
}

/// Number of elements of a shape, if it fits the limit on array sizes.
pub(super) fn elem_count(shape: &[usize]) -> Result<usize, String> {
    const LIMIT: usize = 1 << 36;
    shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= LIMIT)
        .ok_or_else(|| format!("cannot allocate an array of shape {}", shape_text(shape)))
}

/// An array from a shape and a buffer that the caller built to fit.
pub(super) fn array(shape: Vec<usize>, buf: Buffer) -> Result<Array, String> {
    let (n, s) = (buf.len(), shape_text(&shape));
    Array::new(shape, buf)
        .ok_or_else(|| format!("internal error: {n} elements do not fill an array of shape {s}"))
}

/// The buffer of `a` for writing in place; counts in `copies` when it had to be copied first
/// because it was shared.
pub(super) fn buffer_mut<'b>(copies: &mut u64, a: &'b mut Array) -> &'b mut Buffer {
    let before: *const Buffer = a.buffer();
    let b = a.buffer_mut();
    if !std::ptr::eq(before, b) {
        *copies += 1;
    }
    b
}

/// A new buffer holding `src[range]` (the caller checked the range).
pub(super) fn slice_buffer(src: &Buffer, range: std::ops::Range<usize>) -> Buffer {
    let mut b = Buffer::with_capacity(src.prim_type(), range.len());
    b.extend_from(src, range);
    b
}

/// Row `i` of `a` (a scalar for a one-dimensional array). The caller checked `i`.
pub(super) fn row(a: &Array, i: usize) -> Result<Val, String> {
    let shape = a.shape();
    if shape.first().is_none_or(|&n| i >= n) {
        return Err(format!(
            "internal error: row {i} of an array of shape {}",
            shape_text(shape)
        ));
    }
    let inner: usize = shape[1..].iter().product();
    let start = i * inner;
    if start + inner > a.len() {
        return Err(format!(
            "internal error: row {i} of an array of shape {}",
            shape_text(shape)
        ));
    }
    if shape.len() == 1 {
        Ok(Val::Scalar(a.buffer().get(i)))
    } else {
        Ok(Val::Array(array(
            shape[1..].to_vec(),
            slice_buffer(a.buffer(), start..start + inner),
        )?))
    }
}

/// Applies `$body` to the vectors of two buffers of the same element type, or evaluates
/// `$other` if the types differ.
macro_rules! with_pair {
    ($a:expr, $b:expr, $x:ident, $y:ident => $body:expr, else $other:expr) => {
        match ($a, $b) {
            (Buffer::Bool($x), Buffer::Bool($y)) => $body,
            (Buffer::I8($x), Buffer::I8($y)) => $body,
            (Buffer::I16($x), Buffer::I16($y)) => $body,
            (Buffer::I32($x), Buffer::I32($y)) => $body,
            (Buffer::I64($x), Buffer::I64($y)) => $body,
            (Buffer::U8($x), Buffer::U8($y)) => $body,
            (Buffer::U16($x), Buffer::U16($y)) => $body,
            (Buffer::U32($x), Buffer::U32($y)) => $body,
            (Buffer::U64($x), Buffer::U64($y)) => $body,
            (Buffer::F32($x), Buffer::F32($y)) => $body,
            (Buffer::F64($x), Buffer::F64($y)) => $body,
            _ => $other,
        }
    };
}

/// Copies `src[range]` over `dst[at..]`. `false` on a type mismatch or a range outside
/// either buffer.
pub(super) fn write_block(
    dst: &mut Buffer,
    at: usize,
    src: &Buffer,
    range: std::ops::Range<usize>,
) -> bool {
    let len = range.len();
    if range.end > src.len() || at + len > dst.len() {
        return false;
    }
    with_pair!(dst, src, d, s => {
        d[at..at + len].copy_from_slice(&s[range]);
        true
    }, else false)
}

/// The elements of `src` at `offsets`, in order. `None` if an offset is outside `src`.
pub(super) fn gather(src: &Buffer, offsets: &[usize]) -> Option<Buffer> {
    if offsets.iter().any(|&o| o >= src.len()) {
        return None;
    }
    Some(match src {
        Buffer::Bool(v) => Buffer::Bool(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::I8(v) => Buffer::I8(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::I16(v) => Buffer::I16(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::I32(v) => Buffer::I32(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::I64(v) => Buffer::I64(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::U8(v) => Buffer::U8(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::U16(v) => Buffer::U16(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::U32(v) => Buffer::U32(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::U64(v) => Buffer::U64(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::F32(v) => Buffer::F32(offsets.iter().map(|&o| v[o]).collect()),
        Buffer::F64(v) => Buffer::F64(offsets.iter().map(|&o| v[o]).collect()),
    })
}

/// Adds `src[range]` element-wise into `dst[at..]` (wrapping for integers, `or` for `bool`).
/// `false` on a type mismatch or a range outside either buffer.
pub(super) fn add_block(
    dst: &mut Buffer,
    at: usize,
    src: &Buffer,
    range: std::ops::Range<usize>,
) -> bool {
    let len = range.len();
    if range.end > src.len() || at + len > dst.len() {
        return false;
    }
    with_pair!(dst, src, d, s => {
        d[at..at + len]
            .iter_mut()
            .zip(&s[range])
            .for_each(|(a, b)| *a = a.add_wrapping(*b));
        true
    }, else false)
}

/// The addition of accumulators: wrapping for integers, `or` for `bool`.
trait WrappingAdd: Copy {
    fn add_wrapping(self, other: Self) -> Self;
}

macro_rules! wrapping_add_int {
    ($($t:ty),*) => {$(
        impl WrappingAdd for $t {
            fn add_wrapping(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    )*};
}
wrapping_add_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl WrappingAdd for bool {
    fn add_wrapping(self, other: Self) -> Self {
        self | other
    }
}
impl WrappingAdd for f32 {
    fn add_wrapping(self, other: Self) -> Self {
        self + other
    }
}
impl WrappingAdd for f64 {
    fn add_wrapping(self, other: Self) -> Self {
        self + other
    }
}

/// A buffer containing `src` repeated `times` times.
pub(super) fn repeat_buffer(src: &Buffer, times: usize) -> Buffer {
    let mut b = Buffer::with_capacity(src.prim_type(), src.len().saturating_mul(times));
    for _ in 0..times {
        b.extend_from(src, 0..src.len());
    }
    b
}

/// Collects the rows produced by a SOAC (scalars or arrays of one shape) into one array.
pub(super) struct Stacker {
    buf: Buffer,
    rows: usize,
    row_shape: Option<Vec<usize>>,
}

impl Stacker {
    /// A stacker for `capacity_rows` rows of element type `elem`.
    pub fn new(elem: PrimType, capacity_rows: usize) -> Stacker {
        Stacker {
            buf: Buffer::with_capacity(elem, capacity_rows.min(1 << 16)),
            rows: 0,
            row_shape: None,
        }
    }

    /// Appends a row; the rows must all have the same shape.
    pub fn push(&mut self, v: &Val) -> Result<(), String> {
        let shape = v.shape();
        match &self.row_shape {
            Some(s) if s.as_slice() != shape => {
                return Err(size_error(shape, &type_text(s, self.buf.prim_type())));
            }
            Some(_) => {}
            None => self.row_shape = Some(shape.to_vec()),
        }
        let ok = match v {
            Val::Scalar(s) => self.buf.push(*s),
            Val::Array(a) => self.buf.extend_from(a.buffer(), 0..a.len()),
            Val::Acc(_) => false,
        };
        if !ok {
            return Err(format!(
                "internal error: a row of type {} in an array of {}",
                v.type_name(),
                self.buf.prim_type()
            ));
        }
        self.rows += 1;
        Ok(())
    }

    /// The array of the rows pushed; `row_shape` gives the shape of a row when none was
    /// pushed.
    pub fn finish(self, row_shape: impl FnOnce() -> Vec<usize>) -> Result<Val, String> {
        let mut shape = vec![self.rows];
        match self.row_shape {
            Some(s) => shape.extend(s),
            None => shape.extend(row_shape()),
        }
        if self.rows == 0 {
            let n = elem_count(&shape)?;
            let b = Buffer::with_capacity(self.buf.prim_type(), n);
            return Ok(Val::Array(array(shape, b)?));
        }
        Ok(Val::Array(array(shape, self.buf)?))
    }
}
