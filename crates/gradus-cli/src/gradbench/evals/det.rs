//! `det`: input `{A: double[ℓ²] (row-major), ell: int}`; `primal` gives det A by expansion
//! by minors, `gradient` its gradient (row-major, ℓ² elements).

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_array, field, i64_value, to_size};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["primal", "gradient"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "det",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let a = f64_array(field(input, "A")?, 1, "A")?;
    let ell = to_size(field(input, "ell")?, "ell")?;
    if ell.checked_mul(ell) != Some(a.shape()[0]) {
        return Err(format!(
            "A has {} elements, but an ℓ × ℓ matrix with ell = {ell} has {}",
            a.shape()[0],
            ell.saturating_mul(ell)
        ));
    }
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![a, i64_value(ell as i64)],
    })
}
