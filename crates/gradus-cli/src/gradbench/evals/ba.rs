//! `ba`: input `{n, m, p, cam: double[11], x: double[3], w: double, feat: double[2]}`: the
//! tool builds n cameras, m points, p weights and features, all copies of the given ones,
//! and p observations, observation i seeing camera i mod n and point i mod m (as GradBench's
//! reference does); all of them are computed. `objective` gives
//! `{reproj_error: {elements: double[2], repeated: p}, w_err: {element, repeated: p}}` (the
//! first residuals and how many there are); `jacobian` the first 30 and the last entries of
//! each of the row offsets, column indices and values of the sparse Jacobian in CSR form,
//! `{rows, cols, vals}`.

use super::{Call, Eval, entry_named};
use crate::gradbench::json::{
    Result, element, f64_array_of_shape, f64_array_value, f64_elements, field, i64_array_value,
    result, to_f64, to_size,
};
use gradus::value::Value;
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["objective", "jacobian"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "ba",
    functions: FUNCTIONS,
    input,
    output,
};

fn replicated(one: &[f64], times: usize) -> Result<Value> {
    let mut data = Vec::with_capacity(one.len() * times);
    for _ in 0..times {
        data.extend_from_slice(one);
    }
    f64_array_value(vec![times, one.len()], data)
}

fn input(function: &str, input: &Json) -> Result<Call> {
    let n = to_size(field(input, "n")?, "n")?;
    let m = to_size(field(input, "m")?, "m")?;
    let p = to_size(field(input, "p")?, "p")?;
    if n == 0 || m == 0 || p == 0 {
        return Err(format!(
            "n, m and p must be at least 1 (they are {n}, {m} and {p})"
        ));
    }
    let cam = f64_array_of_shape(field(input, "cam")?, &[11], "cam")?;
    let x = f64_array_of_shape(field(input, "x")?, &[3], "x")?;
    let w = to_f64(field(input, "w")?, "w")?;
    let feat = f64_array_of_shape(field(input, "feat")?, &[2], "feat")?;
    let obs = (0..p)
        .flat_map(|i| [(i % n) as i64, (i % m) as i64])
        .collect();
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![
            replicated(&f64_elements(&cam, "cam")?, n)?,
            replicated(&f64_elements(&x, "x")?, m)?,
            f64_array_value(vec![p], vec![w; p])?,
            i64_array_value(vec![p, 2], obs)?,
            replicated(&f64_elements(&feat, "feat")?, p)?,
        ],
    })
}

/// The first 30 and the last elements of a one-dimensional result.
fn first_and_last(v: &Value, what: &str) -> Result<Json> {
    let len = v.shape().first().copied().unwrap_or(0);
    if len == 0 {
        return Err(format!("internal error: {what} is empty"));
    }
    let mut out = (0..len.min(30))
        .map(|i| element(v, i, what))
        .collect::<Result<Vec<_>>>()?;
    out.push(element(v, len - 1, what)?);
    Ok(Json::Array(out))
}

fn output(function: &str, results: &[Value]) -> Result<Json> {
    if function == "objective" {
        let reproj = result(results, 0)?;
        let w_err = result(results, 1)?;
        let p = w_err.shape().first().copied().unwrap_or(0);
        return Ok(serde_json::json!({
            "reproj_error": {
                "elements": [element(reproj, 0, "reproj_error")?, element(reproj, 1, "reproj_error")?],
                "repeated": p,
            },
            "w_err": {"element": element(w_err, 0, "w_err")?, "repeated": p},
        }));
    }
    Ok(serde_json::json!({
        "rows": first_and_last(result(results, 0)?, "rows")?,
        "cols": first_and_last(result(results, 1)?, "cols")?,
        "vals": first_and_last(result(results, 2)?, "vals")?,
    }))
}
