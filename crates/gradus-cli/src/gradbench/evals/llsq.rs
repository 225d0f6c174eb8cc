//! `llsq`: input `{x: double[m], n: int}`; `primal` gives the least-squares objective,
//! `gradient` its gradient with respect to x.

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_array, field, i64_value, to_size};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["primal", "gradient"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "llsq",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let x = f64_array(field(input, "x")?, 1, "x")?;
    let n = to_size(field(input, "n")?, "n")?;
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![x, i64_value(n as i64)],
    })
}
