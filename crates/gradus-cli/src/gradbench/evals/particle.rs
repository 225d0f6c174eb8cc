//! `particle`: input `{w: double}` (the starting control); `ff`, `fr`, `rf`, `rr` give the
//! optimal control, the letters naming the modes of the outer and inner derivatives.

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_value, field, to_f64};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["ff", "fr", "rf", "rr"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "particle",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![f64_value(to_f64(field(input, "w")?, "w")?)],
    })
}
