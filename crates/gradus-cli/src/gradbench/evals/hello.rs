//! `hello`: the input is a number x; `square` gives x², `double` its derivative 2x.

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_value, to_f64};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["square", "double"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "hello",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![f64_value(to_f64(input, "the input")?)],
    })
}
