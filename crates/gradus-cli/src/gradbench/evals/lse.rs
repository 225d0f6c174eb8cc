//! `lse`: input `{x: double[n]}`; `primal` gives log Σ exp xᵢ, `gradient` its gradient.

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_array, field};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["primal", "gradient"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "lse",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![f64_array(field(input, "x")?, 1, "x")?],
    })
}
