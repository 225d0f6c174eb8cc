//! The `llsq` eval: the linear least-squares objective ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)², and its gradient
//! by the tape.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::{Var, par_map, par_map_chunks};
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

/// The sum of the residuals' squares `(Σⱼ xⱼ tᵢʲ − sᵢ)²` of points `i` in `rows`: each
/// residual one `dot_const` node (the powers of `tᵢ` are constants) whose square folds into a
/// coefficient, so the squares are consecutive nodes and their sum is one dense node.
fn sum_of_squares<'r>(x: &[Var<'r>], rows: std::ops::Range<usize>, n: usize) -> Var<'r> {
    let mut powers = vec![0.0; x.len()];
    gradus_tape::sum_iter(rows.map(|i| {
        let ti = t(i, n);
        let mut mul = 1.0;
        for p in powers.iter_mut() {
            *p = mul;
            mul *= ti;
        }
        (gradus_tape::dot_const(x, &powers) - sign(ti)).square()
    }))
}

/// The gradient of [`llsq`]: one `dot_const` node per point and one `sum` node of their
/// squares. On one thread the points are recorded in the first job, where the inputs are a
/// dense range of each `dot_const`; on more, `par_map` splits them into one task per thread.
pub fn gradient(x: &[f64], n: usize) -> Vec<f64> {
    let threads = rayon::current_num_threads();
    gradus_tape::grad(x, |v| {
        if threads == 1 || n < 2 * CHUNK {
            return sum_of_squares(v, 0..n, n) * 0.5;
        }
        let bounds: Vec<usize> = (0..=threads).map(|c| c * n / threads).collect();
        let tasks: Vec<usize> = (0..threads).collect();
        let parts = par_map_chunks(&tasks, threads, |&c| {
            sum_of_squares(v, bounds[c]..bounds[c + 1], n)
        });
        gradus_tape::sum(&parts) * 0.5
    })
    .1
}

/// Runs `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { x, n } = parse("llsq", input)?;
    match function {
        "primal" => timed_json(input, || llsq(&x, n)),
        "gradient" => timed_json(input, || gradient(&x, n)),
        _ => Err(unknown_function("llsq", function)),
    }
}
