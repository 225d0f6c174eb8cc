//! `gmm`: input `{d, k, n, x: double[n][d], m, gamma, alpha: double[k], mu: double[k][d],
//! q: double[k][d], l: double[k][d(d-1)/2]}`; `objective` gives the log posterior,
//! `jacobian` its gradient `{alpha, mu, q, l}` (the shapes of the inputs).

use super::{Call, Eval, entry_named};
use crate::gradbench::json::{
    Result, f64_array_of_shape, f64_value, field, i64_value, result, to_f64, to_i64, to_json,
    to_size,
};
use gradus::value::Value;
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["objective", "jacobian"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "gmm",
    functions: FUNCTIONS,
    input,
    output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let d = to_size(field(input, "d")?, "d")?;
    let k = to_size(field(input, "k")?, "k")?;
    let n = to_size(field(input, "n")?, "n")?;
    let m = to_i64(field(input, "m")?, "m")?;
    let gamma = to_f64(field(input, "gamma")?, "gamma")?;
    let tri = d * d.saturating_sub(1) / 2;
    let alpha = f64_array_of_shape(field(input, "alpha")?, &[k], "alpha")?;
    let mu = f64_array_of_shape(field(input, "mu")?, &[k, d], "mu")?;
    let q = f64_array_of_shape(field(input, "q")?, &[k, d], "q")?;
    let l = f64_array_of_shape(field(input, "l")?, &[k, tri], "l")?;
    let x = f64_array_of_shape(field(input, "x")?, &[n, d], "x")?;
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![alpha, mu, q, l, x, f64_value(gamma), i64_value(m)],
    })
}

fn output(function: &str, results: &[Value]) -> Result<Json> {
    if function == "objective" {
        return to_json(result(results, 0)?);
    }
    let mut out = serde_json::Map::new();
    for (k, name) in ["alpha", "mu", "q", "l"].into_iter().enumerate() {
        out.insert(name.to_string(), to_json(result(results, k)?)?);
    }
    Ok(Json::Object(out))
}
