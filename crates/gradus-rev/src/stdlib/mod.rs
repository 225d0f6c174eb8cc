//! Reversible building blocks (docs/reversible.md §API), written in the statement language. Each is
//! an ordinary `#[reversible]` function: call it from a reversible body as `dot(y, a, b)` and
//! its inverse as `inv!(dot(y, a, b))`, or directly from Rust.

use crate::prelude::*;

pub mod sparse;

/// `y += Σ x[i]`.
#[reversible(loss = y)]
pub fn sum<T: RevReal>(y: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        y += x[i];
    }
}

/// `y += Σ a[i] · b[i]` (lengths must agree).
#[reversible(loss = y)]
pub fn dot<T: RevReal>(y: &mut T, a: &mut [T], b: &mut [T]) {
    safe! { assert_eq!(a.len(), b.len(), "dot: lengths differ"); }
    for i in 0..a.len() {
        y += a[i] * b[i];
    }
}

/// `y[i] += α · x[i]`.
#[reversible]
pub fn axpy<T: RevReal>(y: &mut [T], alpha: &mut T, x: &mut [T]) {
    for i in 0..y.len() {
        y[i] += alpha * x[i];
    }
}

/// `y += ‖x‖₂`, with the sum of squares computed in a routine and uncomputed.
#[reversible(loss = y)]
pub fn norm2<T: RevReal>(y: &mut T, x: &mut [T]) {
    routine! {
        let mut s = T::zero();
        for i in 0..x.len() {
            s += square(x[i]);
        }
    }
    y += sqrt(s);
    unroutine!();
}

/// `y += W x + b` for a row-major `m × n` matrix `W` (`m = y.len()`, `n = x.len()`).
#[reversible]
pub fn affine<T: RevReal>(y: &mut [T], w: &mut [T], x: &mut [T], b: &mut [T]) {
    for i in 0..y.len() {
        for j in 0..x.len() {
            y[i] += w[i * x.len() + j] * x[j];
        }
        y[i] += b[i];
    }
}

/// `y[i] += max(x[i], 0)`.
#[reversible]
pub fn relu<T: RevReal>(y: &mut [T], x: &mut [T]) {
    for i in 0..y.len() {
        y[i] += max(x[i], 0.0);
    }
}

/// `(a, b) ← G(θ)(a, b)` for every pair: see `examples/givens_unitary.rs`; this is the
/// same program on a vector and a flat angle list in row-major pair order.
#[reversible]
pub fn givens_unitary<T: RevReal>(v: &mut [T], theta: &mut [T]) {
    for i in 0..v.len() {
        for j in (i + 1)..v.len() {
            ROT(
                v[i],
                v[j],
                theta[i * v.len() - i * (i + 1) / 2 + (j - i - 1)],
            );
        }
    }
}

/// The index of the first largest element (ties pick the lowest index); `0` for an empty
/// slice. Used through `constant!` by [`logsumexp`]: it is evaluated, never differentiated,
/// and compares values only, so it picks the same index on plain numbers and on `GVar`s.
pub fn argmax<T: PartialOrd>(x: &[T]) -> usize {
    let mut best = 0;
    for i in 1..x.len() {
        if x[i] > x[best] {
            best = i;
        }
    }
    best
}

/// `y += ln Σ exp(x[i])`, stabilised by the maximum: an index ancilla records the argmax,
/// the sum of `exp(x[i] − max)` is computed in a routine and uncomputed. `x` must not be
/// empty.
#[reversible(loss = y)]
pub fn logsumexp<T: RevReal>(y: &mut T, x: &mut [T]) {
    routine! {
        let mut imax: usize = 0;
        imax += constant!(argmax(&x));
        let mut mx = T::zero();
        mx += x[imax];
        let mut s = T::zero();
        for i in 0..x.len() {
            routine! {
                let mut t = T::zero();
                t += x[i] - mx;
            }
            s += exp(t);
            unroutine!();
        }
    }
    y += ln(s);
    y += mx;
    unroutine!();
}

/// `C += A B` for matrices `A` (`m × k`), `B` (`k × n`), `C` (`m × n`).
#[reversible]
pub fn matmul_acc<T: RevReal>(c: &mut Mat<T>, a: &mut Mat<T>, b: &mut Mat<T>) {
    safe! {
        assert!(
            a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols(),
            "matmul_acc: shapes {}x{} += {}x{} * {}x{} do not agree",
            c.rows(), c.cols(), a.rows(), a.cols(), b.rows(), b.cols()
        );
    }
    for i in 0..a.rows() {
        for j in 0..b.cols() {
            for l in 0..a.cols() {
                c[(i, j)] += a[(i, l)] * b[(l, j)];
            }
        }
    }
}

/// `mean += (1/n) Σ x[i]` and `var += (1/(n−1)) Σ (x[i] − mean(x))²` (the sample variance;
/// `x` needs at least two elements). The mean used by the variance is an ancilla, so `mean`
/// itself may start at any value.
#[reversible]
pub fn mean_var<T: RevReal>(mean: &mut T, var: &mut T, x: &mut [T]) {
    routine! {
        let mut s = T::zero();
        for i in 0..x.len() {
            s += x[i];
        }
        let mut m = T::zero();
        m += s * constant!(T::from_f64(1.0 / x.len() as f64));
        let mut ss = T::zero();
        for i in 0..x.len() {
            routine! {
                let mut c = T::zero();
                c += x[i] - m;
            }
            ss += square(c);
            unroutine!();
        }
    }
    mean += m;
    var += ss * constant!(T::from_f64(1.0 / (x.len() as f64 - 1.0)));
    unroutine!();
}

/// `loss += logsumexp(logits) − logits[label]`: the cross entropy of the softmax of `logits`
/// against the class `label`.
#[reversible(loss = loss)]
pub fn softmax_cross_entropy<T: RevReal>(loss: &mut T, logits: &mut [T], label: usize) {
    routine! {
        let mut l = T::zero();
        logsumexp(l, logits);
    }
    loss += l;
    loss -= logits[label];
    unroutine!();
}
