//! `lstm`: input `{main_params: double[2l][4b], extra_params: double[3][b],
//! state: double[2l][b], sequence: double[c][b]}`; `objective` gives the loss, `jacobian` its
//! gradient with respect to main_params and extra_params, flattened row by row and
//! concatenated (8lb + 3b numbers).

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, expect_shape, f64_array, f64_array_of_shape, field};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["objective", "jacobian"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "lstm",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let main = f64_array(field(input, "main_params")?, 2, "main_params")?;
    let (l2, w) = (main.shape()[0], main.shape()[1]);
    if l2 % 2 != 0 || w % 4 != 0 {
        return Err(format!(
            "main_params must have shape [2l][4b], but it has shape [{l2}][{w}]"
        ));
    }
    let b = w / 4;
    let extra = f64_array_of_shape(field(input, "extra_params")?, &[3, b], "extra_params")?;
    let state = f64_array_of_shape(field(input, "state")?, &[l2, b], "state")?;
    let sequence = f64_array(field(input, "sequence")?, 2, "sequence")?;
    let c = sequence.shape()[0];
    if c < 2 {
        return Err(format!("sequence must have at least 2 characters, not {c}"));
    }
    let sequence = expect_shape(sequence, &[c, b], "sequence")?;
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![main, extra, state, sequence],
    })
}
