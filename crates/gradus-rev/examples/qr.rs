//! QR decomposition by classical Gram–Schmidt (docs/reversible.md §Examples and tests, after
//! NiLang's `qr`): `A = Q R` for a square `n × n` matrix (row-major, flat). Per column, the
//! projections onto the previous columns (`dots`), the residual `ri` and its squared norm are
//! computed in a routine, used to update `R` and `Q`, and uncomputed. The three ancillas are heap
//! vectors (the published program allocates them too), released with an element-by-element check.

#![allow(dead_code)]

use gradus_rev::prelude::*;

/// `Q += q(A)`, `R += r(A)` (call with zeroed `q`, `r`).
#[reversible]
pub fn qr<T: RevReal>(q: &mut [T], r: &mut [T], a: &mut [T], n: usize) {
    let mut dots = vec![T::zero(); n];
    let mut ri = vec![T::zero(); n];
    let mut nrm = T::zero();
    for col in 0..n {
        routine! {
            for row in 0..n {
                ri[row] += a[row * n + col];
            }
            for pre in 0..col {
                for row in 0..n {
                    dots[pre] += q[row * n + pre] * ri[row];
                }
                for row in 0..n {
                    ri[row] -= dots[pre] * q[row * n + pre];
                }
            }
            for row in 0..n {
                nrm += square(ri[row]);
            }
        }
        for pre in 0..col {
            r[pre * n + col] += dots[pre];
        }
        r[col * n + col] += sqrt(nrm);
        for row in 0..n {
            q[row * n + col] += ri[row] / r[col * n + col];
        }
        unroutine!();
    }
}

/// `loss += Σ wq·Q + Σ wr·R`, a scalar to differentiate.
#[reversible(loss = loss)]
pub fn qr_loss<T: RevReal>(
    loss: &mut T,
    q: &mut [T],
    r: &mut [T],
    a: &mut [T],
    n: usize,
    wq: &[T],
    wr: &[T],
) {
    qr(q, r, a, n);
    for i in 0..(n * n) {
        loss += q[i] * wq[i];
        loss += r[i] * wr[i];
    }
}

/// Native classical Gram–Schmidt, the reference.
pub fn qr_native(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut r) = (vec![0.0; n * n], vec![0.0; n * n]);
    for col in 0..n {
        let mut v: Vec<f64> = (0..n).map(|row| a[row * n + col]).collect();
        for pre in 0..col {
            let d: f64 = (0..n).map(|row| q[row * n + pre] * v[row]).sum();
            r[pre * n + col] = d;
            for row in 0..n {
                v[row] -= d * q[row * n + pre];
            }
        }
        let nv = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        r[col * n + col] = nv;
        for row in 0..n {
            q[row * n + col] = v[row] / nv;
        }
    }
    (q, r)
}

fn main() {
    let n = 3;
    let mut a = vec![2.0, -1.0, 0.5, 1.0, 3.0, -2.0, 0.0, 1.5, 4.0];
    let (mut q, mut r) = (vec![0.0; n * n], vec![0.0; n * n]);
    qr(&mut q, &mut r, &mut a, n).expect("reversible");
    println!("Q = {q:?}\nR = {r:?}");
}
