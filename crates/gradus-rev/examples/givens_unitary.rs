//! An `N × N` real orthogonal matrix applied to a vector in place by `N(N−1)/2` Givens
//! rotations (`ROT` instructions), one angle each (docs/reversible.md §Examples and tests). No
//! allocation, no ancilla: the program is its own record.

#![allow(dead_code)]

use gradus_rev::prelude::*;

/// `v ← G(θ) v` with one rotation per pair `(i, j)`, `i < j`, in row-major pair order.
#[reversible]
pub fn givens_unitary<T: RevReal>(v: &mut [T], theta: &mut [T]) {
    for i in 0..v.len() {
        for j in (i + 1)..v.len() {
            ROT(v[i], v[j], theta[pair_index(v.len(), i, j)]);
        }
    }
}

/// Position of the pair `(i, j)` in the angle vector.
pub fn pair_index(n: usize, i: usize, j: usize) -> usize {
    i * n - i * (i + 1) / 2 + (j - i - 1)
}

/// `loss += Σ w_i v_i` after the rotations: a scalar to differentiate.
#[reversible(loss = loss)]
pub fn givens_loss<T: RevReal>(loss: &mut T, v: &mut [T], theta: &mut [T], w: &[T]) {
    givens_unitary(v, theta);
    for i in 0..v.len() {
        loss += v[i] * w[i];
    }
}

fn main() {
    let n = 4;
    let mut v: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
    let mut th: Vec<f64> = (0..n * (n - 1) / 2).map(|i| 0.1 * i as f64).collect();
    givens_unitary(&mut v, &mut th).expect("reversible");
    println!(
        "rotated: {v:?}, norm² = {}",
        v.iter().map(|x| x * x).sum::<f64>()
    );
}
