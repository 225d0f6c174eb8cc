//! The `lse` eval: log-sum-exp with the max trick, and its gradient by the tape.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::par_map;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
}

/// Items per task of the parallel sum.
const CHUNK: usize = 4096;

/// log Σ exp xᵢ, computed as `A + log Σ exp(xᵢ − A)` with `A` the largest element (selected by
/// value, so no node is recorded for the maximum). `x` must not be empty.
pub fn lse<S: Real>(x: &[S]) -> S {
    let a = x[1..].iter().fold(x[0], |m, &v| if v > m { v } else { m });
    let chunks: Vec<&[S]> = x.chunks(CHUNK).collect();
    let parts = par_map(&chunks, |c| c.iter().map(|&v| (v - a).exp()).sum::<S>());
    parts.into_iter().sum::<S>().ln() + a
}

/// The gradient of [`lse`]: the max `A` is taken as a constant (the function does not depend
/// on it: its derivative with respect to `A` is zero), so each `exp(xᵢ − A)` folds into a
/// coefficient on input `i` and the sum is one node whose partials are those exponentials,
/// swept by one `axpy`. Sequential: the inputs live in the recording's first job, and a task of
/// a fork would need a proxy for each input it reads.
pub fn gradient(x: &[f64]) -> Vec<f64> {
    let a = x[1..].iter().fold(x[0], |m, &v| if v > m { v } else { m });
    gradus_tape::grad(x, |v| {
        gradus_tape::sum_iter(v.iter().map(|&t| (t - a).exp())).ln() + a
    })
    .1
}

/// Runs `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { x } = parse("lse", input)?;
    if x.is_empty() {
        return Err("lse: x is empty".into());
    }
    match function {
        "primal" => timed_json(input, || lse(&x)),
        "gradient" => timed_json(input, || gradient(&x)),
        _ => Err(unknown_function("lse", function)),
    }
}
