//! Splitting arguments into row blocks and combining per-process results, with no transport
//! (docs/mpi.md §Combining results): what the MPI runtime does with messages, done on values
//! in one process. The in-process simulation of the tests and the MPI runtime share it.

use super::Combine;
use crate::value::{Array, Buffer, Scalar, Value, ValueRef};

/// Where a call's combined results are wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Results {
    /// On every process: `Allreduce` for the sums, `Allgatherv` for the rows.
    Everywhere,
    /// On rank 0 only: `Reduce` and `Gatherv` to rank 0.
    Root,
    /// On every process, with the rows results left where they were computed: each process
    /// gets its own block of their rows, in place of their concatenation (`Allreduce` for the
    /// sums, nothing for the rows).
    Local,
}

/// What one process communicated to combine one call's results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes of partial sums this process contributed to the reductions.
    pub reduced: usize,
    /// Bytes of rows this process received from the others (none where it gets no results).
    pub gathered: usize,
}

/// Bytes of the results among `mine` that are reduced across processes (sums, maxima and
/// minima; `combine` says which), as packed for their reductions ([`pack_sum`]: 8 per
/// element).
pub fn reduced_bytes(combine: &[Combine], mine: &[ValueRef]) -> usize {
    mine.iter()
        .zip(combine)
        .filter(|(_, how)| matches!(how, Combine::Sum | Combine::Max | Combine::Min))
        .map(|(v, _)| 8 * v.shape().iter().product::<usize>())
        .sum()
}

/// Near-equal contiguous blocks of `n` rows for `parts` processes: `(first row, length)`,
/// the first `n % parts` blocks one row longer.
pub fn blocks(n: usize, parts: usize) -> Vec<(usize, usize)> {
    let parts = parts.max(1);
    let (q, r) = (n / parts, n % parts);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for i in 0..parts {
        let len = q + usize::from(i < r);
        out.push((start, len));
        start += len;
    }
    out
}

/// Rows `start .. start + len` of an array (its outer dimension).
pub fn rows(v: &Value, start: usize, len: usize) -> Result<Value, String> {
    let Value::Array(a) = v else {
        return Err("a sharded argument must be an array".into());
    };
    let row: usize = a.shape()[1..].iter().product();
    let mut shape = a.shape().to_vec();
    if start + len > shape[0] {
        return Err(format!(
            "rows {start}..{} of an array of {} rows",
            start + len,
            shape[0]
        ));
    }
    shape[0] = len;
    let mut buf = Buffer::with_capacity(a.elem_type(), len * row);
    buf.extend_from(a.buffer(), start * row..(start + len) * row);
    Ok(Value::Array(
        Array::new(shape, buf).expect("the shape of the rows"),
    ))
}

/// The unsharded result from the processes' values of one result, in rank order.
pub fn combine(how: Combine, parts: &[Value]) -> Result<Value, String> {
    let Some(first) = parts.first() else {
        return Err("no process results to combine".into());
    };
    match how {
        Combine::Replicated => Ok(first.clone()),
        Combine::Sum => {
            let mut acc = first.clone();
            for p in &parts[1..] {
                add_into(&mut acc, p)?;
            }
            Ok(acc)
        }
        Combine::Concat => concat(parts),
        Combine::Max | Combine::Min => {
            let mut acc = first.clone();
            for p in &parts[1..] {
                extremum_into(&mut acc, p, how == Combine::Max)?;
            }
            Ok(acc)
        }
    }
}

/// The key by which the processes' maxima (`max`) or minima of floats are compared when they
/// are combined, in an order that agrees with the language's `max` and `min` on one process
/// (docs/mpi.md §Maxima, minima and NaN): numbers in their order, `-0` just below `0`, and a
/// NaN below every number for a maximum and above every number for a minimum, so that it
/// loses against any number and is the extremum only where every process has a NaN. The
/// order of the keys as `i64` is that of the floats, so MPI's `MAX` and `MIN` on `i64`
/// combine them; [`from_extremum_key`] is the inverse.
pub fn extremum_key(x: f64, max: bool) -> i64 {
    if x.is_nan() {
        return if max { i64::MIN } else { i64::MAX };
    }
    let bits = x.to_bits() as i64;
    // Negative floats order the other way round as integers: flip all but the sign bit.
    if bits < 0 { bits ^ i64::MAX } else { bits }
}

/// The float whose key (for a maximum if `max`, else a minimum) is `key`: the inverse of
/// [`extremum_key`] (every NaN comes back as the same NaN).
pub fn from_extremum_key(key: i64, max: bool) -> f64 {
    if key == if max { i64::MIN } else { i64::MAX } {
        return f64::NAN;
    }
    let bits = if key < 0 { key ^ i64::MAX } else { key };
    f64::from_bits(bits as u64)
}

/// `acc = max(acc, v)` (or `min`), elementwise, by [`extremum_key`] for floats; both must
/// have the same type and shape.
pub fn extremum_into(acc: &mut Value, v: &Value, max: bool) -> Result<(), String> {
    if acc.shape() != v.shape() || acc.elem_type() != v.elem_type() {
        return Err(format!(
            "the processes' extrema differ in type: {} and {}",
            acc.type_name(),
            v.type_name()
        ));
    }
    let pick = |a: Scalar, b: Scalar| {
        let (ka, kb) = if a.prim_type().is_float() {
            (extremum_key(a.to_f64(), max), extremum_key(b.to_f64(), max))
        } else {
            (a.as_i64().unwrap_or(0), b.as_i64().unwrap_or(0))
        };
        let better = if max { kb > ka } else { kb < ka };
        if better { b } else { a }
    };
    match (acc, v) {
        (Value::Scalar(a), Value::Scalar(b)) => *a = pick(*a, *b),
        (Value::Array(a), Value::Array(b)) => {
            for i in 0..b.len() {
                let x = pick(a.buffer().get(i), b.buffer().get(i));
                a.buffer_mut().set(i, x);
            }
        }
        _ => return Err("the processes' extrema differ in rank".into()),
    }
    Ok(())
}

/// `acc += v`, elementwise; both must have the same type and shape.
pub fn add_into(acc: &mut Value, v: &Value) -> Result<(), String> {
    if acc.shape() != v.shape() || acc.elem_type() != v.elem_type() {
        return Err(format!(
            "the processes' partial sums differ in type: {} and {}",
            acc.type_name(),
            v.type_name()
        ));
    }
    match (acc, v) {
        (Value::Scalar(a), Value::Scalar(b)) => {
            *a = add_scalar(*a, *b);
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => add_buffers(a.buffer_mut(), b.buffer()),
        _ => Err("the processes' partial sums differ in rank".into()),
    }
}

fn add_scalar(a: Scalar, b: Scalar) -> Scalar {
    use Scalar::*;
    match (a, b) {
        (I8(x), I8(y)) => I8(x.wrapping_add(y)),
        (I16(x), I16(y)) => I16(x.wrapping_add(y)),
        (I32(x), I32(y)) => I32(x.wrapping_add(y)),
        (I64(x), I64(y)) => I64(x.wrapping_add(y)),
        (U8(x), U8(y)) => U8(x.wrapping_add(y)),
        (U16(x), U16(y)) => U16(x.wrapping_add(y)),
        (U32(x), U32(y)) => U32(x.wrapping_add(y)),
        (U64(x), U64(y)) => U64(x.wrapping_add(y)),
        (F32(x), F32(y)) => F32(x + y),
        (F64(x), F64(y)) => F64(x + y),
        (x, _) => x,
    }
}

fn add_buffers(a: &mut Buffer, b: &Buffer) -> Result<(), String> {
    macro_rules! wrapping {
        ($x:ident, $y:ident) => {{
            for (p, q) in $x.iter_mut().zip($y) {
                *p = p.wrapping_add(*q);
            }
        }};
    }
    match (a, b) {
        (Buffer::F64(x), Buffer::F64(y)) => x.iter_mut().zip(y).for_each(|(p, q)| *p += q),
        (Buffer::F32(x), Buffer::F32(y)) => x.iter_mut().zip(y).for_each(|(p, q)| *p += q),
        (Buffer::I8(x), Buffer::I8(y)) => wrapping!(x, y),
        (Buffer::I16(x), Buffer::I16(y)) => wrapping!(x, y),
        (Buffer::I32(x), Buffer::I32(y)) => wrapping!(x, y),
        (Buffer::I64(x), Buffer::I64(y)) => wrapping!(x, y),
        (Buffer::U8(x), Buffer::U8(y)) => wrapping!(x, y),
        (Buffer::U16(x), Buffer::U16(y)) => wrapping!(x, y),
        (Buffer::U32(x), Buffer::U32(y)) => wrapping!(x, y),
        (Buffer::U64(x), Buffer::U64(y)) => wrapping!(x, y),
        _ => return Err("a sum of values that are not numbers".into()),
    }
    Ok(())
}

fn concat(parts: &[Value]) -> Result<Value, String> {
    let Value::Array(first) = &parts[0] else {
        return Err("a concatenation of scalars".into());
    };
    let inner = first.shape()[1..].to_vec();
    let mut rows = 0;
    let mut buf = Buffer::with_capacity(first.elem_type(), 0);
    for p in parts {
        let Value::Array(a) = p else {
            return Err("a concatenation of scalars".into());
        };
        if a.shape()[1..] != inner[..] || a.elem_type() != first.elem_type() {
            return Err(format!(
                "the processes' rows differ in type: {} and {}",
                parts[0].type_name(),
                p.type_name()
            ));
        }
        rows += a.shape()[0];
        buf.extend_from(a.buffer(), 0..a.len());
    }
    let mut shape = vec![rows];
    shape.extend(inner);
    Ok(Value::Array(
        Array::new(shape, buf).expect("the concatenated shape"),
    ))
}

/// Appends the elements of a partial sum to the float buffer (floats, widened to `f64`) or
/// the integer buffer (integers, as `i64`): one buffer of each kind is summed per call.
pub fn pack_sum(v: &Value, floats: &mut Vec<f64>, ints: &mut Vec<i64>) {
    let elems: Vec<Scalar> = match v {
        Value::Scalar(s) => vec![*s],
        Value::Array(a) => (0..a.len()).map(|i| a.buffer().get(i)).collect(),
    };
    for s in elems {
        match s {
            Scalar::F64(x) => floats.push(x),
            Scalar::F32(x) => floats.push(f64::from(x)),
            other => ints.push(other.as_i64().unwrap_or(0)),
        }
    }
}

/// The value of `like`'s type and shape from the summed buffers, read from positions `fi`
/// and `ii` on (advanced past it): the inverse of [`pack_sum`].
pub fn unpack_sum(
    like: &Value,
    floats: &[f64],
    ints: &[i64],
    fi: &mut usize,
    ii: &mut usize,
) -> Value {
    let t = like.elem_type();
    let mut next = || {
        if t.is_float() {
            *fi += 1;
            Scalar::from_f64(t, floats[*fi - 1])
        } else {
            *ii += 1;
            Scalar::from_i128(t, i128::from(ints[*ii - 1]))
        }
    };
    match like {
        Value::Scalar(_) => Value::Scalar(next()),
        Value::Array(a) => {
            let mut buf = Buffer::with_capacity(t, a.len());
            for _ in 0..a.len() {
                buf.push(next());
            }
            Value::Array(Array::new(a.shape().to_vec(), buf).expect("the shape of a sum"))
        }
    }
}
