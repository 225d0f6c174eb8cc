//! The `det` eval: the determinant by expansion by minors (cmpad), and its gradient.
//!
//! The determinant is the sum over the first row of ±A₀ⱼ det(Mⱼ); its gradient is the sum of the
//! terms' gradients, each term recorded on its own tape (in parallel), which keeps the largest
//! tape to one minor's expansion.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::Tape;
use rayon::prelude::*;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    #[serde(rename = "A")]
    a: Vec<f64>,
    ell: usize,
}

/// The determinant of the minor of the `ell × ell` matrix `a` with the given rows and columns
/// (as many of each), expanded along its first row.
fn det_of_minor<S: Real>(a: &[S], ell: usize, rows: &[usize], cols: &mut Vec<usize>) -> S {
    let r0 = rows[0];
    if rows.len() == 1 {
        return a[r0 * ell + cols[0]];
    }
    let mut det = S::zero();
    for j in 0..cols.len() {
        let cj = cols.remove(j);
        let term = a[r0 * ell + cj] * det_of_minor(a, ell, &rows[1..], cols);
        cols.insert(j, cj);
        det = if j % 2 == 0 { det + term } else { det - term };
    }
    det
}

/// The determinant of the row-major `ell × ell` matrix `a` by expansion by minors.
pub fn det<S: Real>(a: &[S], ell: usize) -> S {
    let rows: Vec<usize> = (0..ell).collect();
    det_of_minor(a, ell, &rows, &mut rows.clone())
}

/// The gradient of [`det`]: one tape per term of the first row's expansion.
pub fn gradient(a: &[f64], ell: usize) -> Vec<f64> {
    if ell == 1 {
        return vec![1.0];
    }
    let rows: Vec<usize> = (1..ell).collect();
    (0..ell)
        .into_par_iter()
        .map_init(Tape::new, |tape, j| {
            let mut cols: Vec<usize> = (0..ell).filter(|&c| c != j).collect();
            let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
            tape.grad(a, |v| v[j] * det_of_minor(v, ell, &rows, &mut cols) * sign)
                .1
        })
        .reduce(
            || vec![0.0; ell * ell],
            |mut x, y| {
                x.iter_mut().zip(&y).for_each(|(a, b)| *a += b);
                x
            },
        )
}

/// Runs `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { a, ell } = parse("det", input)?;
    if ell == 0 || a.len() != ell * ell {
        return Err(format!(
            "det: A must have ell² = {} numbers, ell > 0",
            ell * ell
        ));
    }
    match function {
        "primal" => timed_json(input, || det(&a, ell)),
        "gradient" => timed_json(input, || gradient(&a, ell)),
        _ => Err(unknown_function("det", function)),
    }
}
