//! `saddle`: input `{start: double[2]}`; `ff`, `fr`, `rf`, `rr` give the saddle point (x, y)
//! as double[4], the letters naming the modes of the outer and inner derivatives.

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_array, field};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["ff", "fr", "rf", "rr"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "saddle",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let start = f64_array(field(input, "start")?, 1, "start")?;
    if start.shape()[0] != 2 {
        return Err(format!(
            "start must have 2 elements, not {}",
            start.shape()[0]
        ));
    }
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![start],
    })
}
