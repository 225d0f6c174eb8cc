//! Conversions between JSON and gradus values, shared by the evals' converters. Errors name
//! the offending part of the input (`mu[3][1]`), so that a malformed message gets a clear
//! `error` instead of a crash.

use gradus::value::{Array, Buffer, Scalar, Value};
use serde_json::Value as Json;

/// A conversion result; the error is a message for the eval.
pub type Result<T> = std::result::Result<T, String>;

/// The field `name` of the object `input`.
pub fn field<'a>(input: &'a Json, name: &str) -> Result<&'a Json> {
    match input {
        Json::Object(o) => o
            .get(name)
            .ok_or_else(|| format!("the input has no field \"{name}\"")),
        _ => Err(format!(
            "the input must be an object with a field \"{name}\", not {}",
            describe(input)
        )),
    }
}

/// A short description of a JSON value's kind, for error messages.
pub fn describe(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A number.
pub fn to_f64(j: &Json, what: &str) -> Result<f64> {
    j.as_f64()
        .ok_or_else(|| format!("{what} must be a number, not {}", describe(j)))
}

/// An integer (a number with no fractional part).
pub fn to_i64(j: &Json, what: &str) -> Result<i64> {
    if let Some(i) = j.as_i64() {
        return Ok(i);
    }
    match j.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Ok(x as i64),
        Some(x) => Err(format!("{what} must be an integer, not {x}")),
        None => Err(format!("{what} must be an integer, not {}", describe(j))),
    }
}

/// A non-negative integer, as a size.
pub fn to_size(j: &Json, what: &str) -> Result<usize> {
    let i = to_i64(j, what)?;
    usize::try_from(i).map_err(|_| format!("{what} must not be negative (it is {i})"))
}

/// A boolean.
pub fn to_bool(j: &Json, what: &str) -> Result<bool> {
    j.as_bool()
        .ok_or_else(|| format!("{what} must be a boolean, not {}", describe(j)))
}

/// A scalar f64 value.
pub fn f64_value(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

/// A scalar i64 value.
pub fn i64_value(x: i64) -> Value {
    Value::Scalar(Scalar::I64(x))
}

/// A scalar bool value.
pub fn bool_value(x: bool) -> Value {
    Value::Scalar(Scalar::Bool(x))
}

/// An f64 array value of the given shape (`data` has their product of elements).
pub fn f64_array_value(shape: Vec<usize>, data: Vec<f64>) -> Result<Value> {
    Array::new(shape, Buffer::F64(data))
        .map(Value::Array)
        .ok_or_else(|| "internal error: array shape and data disagree".to_string())
}

/// An i64 array value of the given shape.
pub fn i64_array_value(shape: Vec<usize>, data: Vec<i64>) -> Result<Value> {
    Array::new(shape, Buffer::I64(data))
        .map(Value::Array)
        .ok_or_else(|| "internal error: array shape and data disagree".to_string())
}

/// The shape of a nested JSON array of the given rank, read along the first elements (an
/// empty array gives zeros for the dimensions below it).
fn shape_of(j: &Json, rank: usize, what: &str) -> Result<Vec<usize>> {
    let mut shape = Vec::with_capacity(rank);
    let mut cur = Some(j);
    let mut path = what.to_string();
    for _ in 0..rank {
        match cur {
            Some(Json::Array(xs)) => {
                shape.push(xs.len());
                cur = xs.first();
                path.push_str("[0]");
            }
            Some(other) => {
                return Err(format!(
                    "{path} must be an array{}, not {}",
                    if rank > 1 {
                        format!(" (of rank {rank})")
                    } else {
                        String::new()
                    },
                    describe(other)
                ));
            }
            None => shape.push(0),
        }
    }
    Ok(shape)
}

/// Flattens a nested JSON array of the given shape, converting each leaf with `leaf`.
fn flatten_into<T>(
    j: &Json,
    shape: &[usize],
    path: &mut String,
    leaf: &dyn Fn(&Json, &str) -> Result<T>,
    out: &mut Vec<T>,
) -> Result<()> {
    let Some((&n, inner)) = shape.split_first() else {
        out.push(leaf(j, path)?);
        return Ok(());
    };
    let Json::Array(xs) = j else {
        return Err(format!("{path} must be an array, not {}", describe(j)));
    };
    if xs.len() != n {
        return Err(format!(
            "{path} has {} elements, but the arrays beside it have {n} (arrays must be regular)",
            xs.len()
        ));
    }
    for (i, x) in xs.iter().enumerate() {
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        flatten_into(x, inner, path, leaf, out)?;
        path.truncate(len);
    }
    Ok(())
}

/// A regular nested array of numbers of the given rank (at least 1), as an f64 array.
pub fn f64_array(j: &Json, rank: usize, what: &str) -> Result<Value> {
    let shape = shape_of(j, rank, what)?;
    let mut data = Vec::with_capacity(shape.iter().product());
    flatten_into(j, &shape, &mut what.to_string(), &to_f64, &mut data)?;
    f64_array_value(shape, data)
}

/// A regular nested array of numbers of exactly the given shape, as an f64 array. An empty
/// array stands for any shape with no elements.
pub fn f64_array_of_shape(j: &Json, shape: &[usize], what: &str) -> Result<Value> {
    let v = f64_array(j, shape.len(), what)?;
    expect_shape(v, shape, what)
}

/// `v` if it has the given shape (an empty array takes the shape if it has no elements);
/// otherwise an error naming both shapes.
pub fn expect_shape(v: Value, shape: &[usize], what: &str) -> Result<Value> {
    if v.shape() == shape {
        return Ok(v);
    }
    let Value::Array(a) = &v else {
        return Err(format!("internal error: {what} is not an array"));
    };
    let expected: usize = shape.iter().product();
    if a.is_empty()
        && expected == 0
        && let Some(r) = a.reshaped(shape.to_vec())
    {
        return Ok(Value::Array(r));
    }
    let dims = |s: &[usize]| s.iter().map(|d| format!("[{d}]")).collect::<String>();
    Err(format!(
        "{what} must have shape {}, but it has shape {}",
        dims(shape),
        dims(v.shape())
    ))
}

/// A regular nested array of integers of the given rank (at least 1), as an i64 array.
pub fn i64_array(j: &Json, rank: usize, what: &str) -> Result<Value> {
    let shape = shape_of(j, rank, what)?;
    let mut data = Vec::with_capacity(shape.iter().product());
    flatten_into(j, &shape, &mut what.to_string(), &to_i64, &mut data)?;
    i64_array_value(shape, data)
}

/// A number for the output; NaN and infinities have no JSON form, so they are an error.
pub fn number(x: f64) -> Result<Json> {
    serde_json::Number::from_f64(x)
        .map(Json::Number)
        .ok_or_else(|| format!("the result contains {x}, which JSON cannot represent"))
}

fn scalar_json(s: Scalar) -> Result<Json> {
    Ok(match s {
        Scalar::Bool(b) => Json::Bool(b),
        Scalar::I8(x) => Json::from(x),
        Scalar::I16(x) => Json::from(x),
        Scalar::I32(x) => Json::from(x),
        Scalar::I64(x) => Json::from(x),
        Scalar::U8(x) => Json::from(x),
        Scalar::U16(x) => Json::from(x),
        Scalar::U32(x) => Json::from(x),
        Scalar::U64(x) => Json::from(x),
        Scalar::F32(x) => number(f64::from(x))?,
        Scalar::F64(x) => number(x)?,
    })
}

fn nest(buf: &Buffer, shape: &[usize], offset: usize) -> Result<Json> {
    match shape.split_first() {
        None => scalar_json(buf.get(offset)),
        Some((&n, inner)) => {
            let stride: usize = inner.iter().product();
            (0..n)
                .map(|i| nest(buf, inner, offset + i * stride))
                .collect::<Result<Vec<_>>>()
                .map(Json::Array)
        }
    }
}

/// Element `i` of a value's flat elements (row-major), as JSON.
pub fn element(v: &Value, i: usize, what: &str) -> Result<Json> {
    match v {
        Value::Scalar(s) if i == 0 => scalar_json(*s),
        Value::Array(a) if i < a.len() => scalar_json(a.buffer().get(i)),
        _ => Err(format!(
            "internal error: {what} has no element {i} (its type is {})",
            v.type_name()
        )),
    }
}

/// A value as JSON: a number (or boolean), or nested arrays.
pub fn to_json(v: &Value) -> Result<Json> {
    match v {
        Value::Scalar(s) => scalar_json(*s),
        Value::Array(a) => nest(a.buffer(), a.shape(), 0),
    }
}

/// The elements of an f64 value (a scalar is one element).
pub fn f64_elements(v: &Value, what: &str) -> Result<Vec<f64>> {
    match v {
        Value::Scalar(Scalar::F64(x)) => Ok(vec![*x]),
        Value::Array(a) => match a.buffer() {
            Buffer::F64(xs) => Ok(xs.clone()),
            _ => Err(format!(
                "internal error: {what} has type {}, expected f64 elements",
                v.type_name()
            )),
        },
        _ => Err(format!(
            "internal error: {what} has type {}, expected f64 elements",
            v.type_name()
        )),
    }
}

/// The result `k` of an entry point's results.
pub fn result(results: &[Value], k: usize) -> Result<&Value> {
    results.get(k).ok_or_else(|| {
        format!(
            "internal error: the entry point returned {} value(s), expected at least {}",
            results.len(),
            k + 1
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_and_integers() {
        assert_eq!(to_f64(&json!(2), "x"), Ok(2.0));
        assert_eq!(to_f64(&json!(2.5), "x"), Ok(2.5));
        assert_eq!(to_i64(&json!(3), "n"), Ok(3));
        assert_eq!(to_i64(&json!(3.0), "n"), Ok(3));
        assert!(to_i64(&json!(3.5), "n").unwrap_err().contains("integer"));
        assert!(to_size(&json!(-1), "n").unwrap_err().contains("negative"));
        assert!(to_f64(&json!("1"), "x").unwrap_err().contains("a string"));
    }

    #[test]
    fn arrays_round_trip() {
        let j = json!([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]);
        let v = f64_array(&j, 2, "m").unwrap();
        assert_eq!(v.shape(), &[2, 3]);
        assert_eq!(to_json(&v).unwrap(), j);
        let e = f64_array(&json!([[]]), 2, "l").unwrap();
        assert_eq!(e.shape(), &[1, 0]);
        assert_eq!(to_json(&e).unwrap(), json!([[]]));
        let i = i64_array(&json!([[1, 2], [3, 4]]), 2, "t").unwrap();
        assert_eq!(
            f64_array_of_shape(&json!([]), &[0, 3], "m")
                .unwrap()
                .shape(),
            &[0, 3]
        );
        let e = f64_array_of_shape(&json!([[1.0], [2.0]]), &[2, 3], "mu").unwrap_err();
        assert!(e.contains("[2][3]") && e.contains("[2][1]"), "{e}");
        assert_eq!(to_json(&i).unwrap(), json!([[1, 2], [3, 4]]));
    }

    #[test]
    fn irregular_and_mistyped_arrays_are_errors() {
        let e = f64_array(&json!([[1.0, 2.0], [3.0]]), 2, "mu").unwrap_err();
        assert!(e.contains("mu[1]") && e.contains("regular"), "{e}");
        let e = f64_array(&json!([1.0, "a"]), 1, "x").unwrap_err();
        assert!(e.contains("x[1]"), "{e}");
        let e = f64_array(&json!(1.0), 1, "x").unwrap_err();
        assert!(e.contains("must be an array"), "{e}");
        let e = f64_array(&json!([1.0, [2.0]]), 1, "x").unwrap_err();
        assert!(e.contains("x[1]"), "{e}");
        assert!(field(&json!({"a": 1}), "b").unwrap_err().contains("\"b\""));
        assert!(field(&json!(1), "b").unwrap_err().contains("object"));
    }

    #[test]
    fn non_finite_results_are_errors() {
        assert!(to_json(&f64_value(f64::NAN)).is_err());
        assert!(number(f64::INFINITY).unwrap_err().contains("inf"));
    }
}
