//! The `hello` eval: `square(x) = x²` and `double`, its derivative, by the tape.

use crate::runner::{Runs, timed};
use crate::{Evaluated, parse, to_json, unknown_function};
use gradus_num::Real;
use serde_json::Value;

/// x², for any scalar type.
pub fn square<S: Real>(x: S) -> S {
    x * x
}

/// Runs `square` or `double` (the derivative of `square`).
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let x: f64 = parse("hello", input)?;
    let (y, ns) = match function {
        "square" => timed(Runs::default(), || square(x)),
        "double" => timed(Runs::default(), || {
            gradus_tape::grad(&[x], |v| square(v[0])).1[0]
        }),
        _ => return Err(unknown_function("hello", function)),
    };
    Ok((to_json(&y)?, ns))
}
