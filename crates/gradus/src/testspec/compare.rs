//! Comparing results with expected values (docs/language.md §Comparing values).

use crate::data::format_scalar;
use crate::value::{Buffer, Scalar, Value};

/// The default float tolerance factor ε.
pub const DEFAULT_TOLERANCE: f64 = 0.002;

fn flat(v: &Value) -> Buffer {
    match v {
        Value::Scalar(s) => Buffer::filled(*s, 1),
        Value::Array(a) => a.buffer().clone(),
    }
}

/// The multi-index of flat position `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        let d = shape[k].max(1);
        idx[k] = i % d;
        i /= d;
    }
    idx
}

/// Compares actual results with expected values: the same count, element types and shapes;
/// integers and booleans equal; floats within `ε · max(1, M)` where `M` is the largest finite
/// expected element of that value (NaN matches NaN, infinities match by sign). Returns the
/// mismatch message for the first differing element, with a count of further differences:
/// `value #1 at index [2, 0]: expected 3.5f32, got 3.25f32 (and 3 more elements differ)`.
pub fn compare_values(expected: &[Value], actual: &[Value], epsilon: f64) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "expected {} value(s), got {}",
            expected.len(),
            actual.len()
        ));
    }
    for (k, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e.elem_type() != a.elem_type() || e.shape() != a.shape() {
            return Err(format!(
                "value #{k}: expected a value of type {}, got {}",
                e.type_name(),
                a.type_name()
            ));
        }
        let (eb, ab) = (flat(e), flat(a));
        let max_finite = (0..eb.len())
            .filter_map(|i| match eb.get(i) {
                Scalar::F32(x) if x.is_finite() => Some(x as f64),
                Scalar::F64(x) if x.is_finite() => Some(x),
                _ => None,
            })
            .fold(f64::NEG_INFINITY, f64::max);
        let tol = epsilon * max_finite.max(1.0);
        let close = |x: f64, y: f64| {
            (x.is_nan() && y.is_nan())
                || (x.is_infinite() && y.is_infinite() && x.signum() == y.signum())
                || (x - y).abs() <= tol
        };
        let mut first = None;
        let mut count = 0usize;
        for i in 0..eb.len() {
            let (x, y) = (eb.get(i), ab.get(i));
            let ok = match (x, y) {
                (Scalar::F32(x), Scalar::F32(y)) => close(x as f64, y as f64),
                (Scalar::F64(x), Scalar::F64(y)) => close(x, y),
                (x, y) => x == y,
            };
            if !ok {
                count += 1;
                if first.is_none() {
                    first = Some((i, x, y));
                }
            }
        }
        if let Some((i, x, y)) = first {
            let at = if e.rank() == 0 {
                String::new()
            } else {
                let idx = unravel(i, e.shape());
                format!(
                    " at index [{}]",
                    idx.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let more = if count > 1 {
                format!(
                    " (and {} more element{} differ{})",
                    count - 1,
                    if count == 2 { "" } else { "s" },
                    if count == 2 { "s" } else { "" }
                )
            } else {
                String::new()
            };
            return Err(format!(
                "value #{k}{at}: expected {}, got {}{more}",
                format_scalar(x),
                format_scalar(y)
            ));
        }
    }
    Ok(())
}
