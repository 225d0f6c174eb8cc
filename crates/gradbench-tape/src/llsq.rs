//! The `llsq` eval: the linear least-squares objective ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)², and its gradient
//! by the tape.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::par_map;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    n: usize,
}

/// Rows per task of the parallel sum.
const CHUNK: usize = 256;

fn t(i: usize, n: usize) -> f64 {
    -1.0 + i as f64 * 2.0 / (n as f64 - 1.0)
}

fn sign(t: f64) -> f64 {
    if t > 0.0 {
        1.0
    } else if t < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// ½ Σᵢ (sign tᵢ − Σⱼ xⱼ tᵢʲ)² over `n` points tᵢ evenly spaced on [−1, 1].
pub fn llsq<S: Real>(x: &[S], n: usize) -> S {
    let starts: Vec<usize> = (0..n).step_by(CHUNK).collect();
    let parts = par_map(&starts, |&start| {
        let mut sum = S::zero();
        for i in start..(start + CHUNK).min(n) {
            let ti = t(i, n);
            let mut inner = S::from_f64(sign(ti));
            let mut mul = 1.0;
            for &xj in x {
                inner -= xj * S::from_f64(mul);
                mul *= ti;
            }
            sum += inner * inner;
        }
        sum
    });
    parts.into_iter().sum::<S>() / S::from_f64(2.0)
}

/// Runs `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { x, n } = parse("llsq", input)?;
    match function {
        "primal" => timed_json(input, || llsq(&x, n)),
        "gradient" => timed_json(input, || gradus_tape::grad(&x, |v| llsq(v, n)).1),
        _ => Err(unknown_function("llsq", function)),
    }
}
