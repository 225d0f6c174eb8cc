//! `ode`: input `{x: double[n], s: int}`; `primal` gives the Runge-Kutta solution y(2) [n] in
//! s steps, `gradient` the gradient of its last element with respect to x.

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_array, field, i64_value, to_size};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["primal", "gradient"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "ode",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let x = f64_array(field(input, "x")?, 1, "x")?;
    let s = to_size(field(input, "s")?, "s")?;
    if s == 0 {
        return Err("s (the number of steps) must be at least 1".to_string());
    }
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![x, i64_value(s as i64)],
    })
}
