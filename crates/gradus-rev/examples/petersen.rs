//! Petersen-graph embedding (benchmarks/README.md): positions `x ∈ ℝ^{k×10}` (stored as
//! `x[d·10 + v]`), distances `d_ij = ‖x_i − x_j‖`, and with `m₁, v₁` (`m₂, v₂`) the mean and
//! sample variance of the distances over the 15 edges (30 non-edges):
//! `loss = v₁ + v₂ + exp(max(0, m₁ − m₂ + 0.1)) − 1`.
//! The reversible program keeps every distance in stack ancillas and uncomputes them after
//! adding the loss, so its gradient allocates nothing (with the caller's `GVar` buffers).
//! Run with `cargo run --release --example petersen`.

#![allow(dead_code)]

use gradus_rev::Real;
use gradus_rev::prelude::*;

/// The 15 edges (0-based).
pub const L1: [(usize, usize); 15] = [
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 0),
    (0, 5),
    (1, 6),
    (2, 7),
    (3, 8),
    (4, 9),
    (5, 7),
    (7, 9),
    (9, 6),
    (6, 8),
    (8, 5),
];

const fn non_edges() -> [(usize, usize); 30] {
    let mut out = [(0, 0); 30];
    let mut n = 0;
    let mut i = 0;
    while i < 10 {
        let mut j = i + 1;
        while j < 10 {
            let mut edge = false;
            let mut e = 0;
            while e < 15 {
                let (a, b) = L1[e];
                if (a == i && b == j) || (a == j && b == i) {
                    edge = true;
                }
                e += 1;
            }
            if !edge {
                out[n] = (i, j);
                n += 1;
            }
            j += 1;
        }
        i += 1;
    }
    out
}

/// The 30 non-edges.
pub const L2: [(usize, usize); 30] = non_edges();

/// The embedding loss, accumulated into `loss`.
#[reversible(loss = loss)]
pub fn petersen<T: RevReal>(loss: &mut T, x: &mut [T], k: usize) {
    routine! {
        let mut s1 = [T::zero(); 15];
        let mut d1 = [T::zero(); 15];
        let mut s2 = [T::zero(); 30];
        let mut d2 = [T::zero(); 30];
        let mut sum1 = T::zero();
        let mut sum2 = T::zero();
        let mut m1 = T::zero();
        let mut m2 = T::zero();
        let mut var1 = T::zero();
        let mut var2 = T::zero();
        let mut z = T::zero();
        let mut h = T::zero();
        let mut ex = T::zero();
        for e in 0..15 {
            for d in 0..k {
                routine! {
                    let mut t = T::zero();
                    t += x[d * 10 + L1[e].0] - x[d * 10 + L1[e].1];
                }
                s1[e] += square(t);
                unroutine!();
            }
            d1[e] += sqrt(s1[e]);
            sum1 += d1[e];
        }
        for e in 0..30 {
            for d in 0..k {
                routine! {
                    let mut t = T::zero();
                    t += x[d * 10 + L2[e].0] - x[d * 10 + L2[e].1];
                }
                s2[e] += square(t);
                unroutine!();
            }
            d2[e] += sqrt(s2[e]);
            sum2 += d2[e];
        }
        m1 += sum1 * constant!(T::from_f64(1.0 / 15.0));
        m2 += sum2 * constant!(T::from_f64(1.0 / 30.0));
        for e in 0..15 {
            routine! {
                let mut c = T::zero();
                c += d1[e] - m1;
            }
            var1 += square(c);
            unroutine!();
        }
        for e in 0..30 {
            routine! {
                let mut c = T::zero();
                c += d2[e] - m2;
            }
            var2 += square(c);
            unroutine!();
        }
        z += m1 - m2;
        z += 0.1;
        h += max(z, 0.0);
        ex += exp(h);
    }
    loss += var1 * constant!(T::from_f64(1.0 / 14.0));
    loss += var2 * constant!(T::from_f64(1.0 / 29.0));
    loss += ex;
    loss -= 1.0;
    unroutine!();
}

/// [`petersen`] with its invertibility checks compiled out (`checks = off`), the form the
/// published figures were measured in.
#[reversible(loss = loss, checks = off)]
pub fn petersen_unchecked<T: RevReal>(loss: &mut T, x: &mut [T], k: usize) {
    routine! {
        let mut s1 = [T::zero(); 15];
        let mut d1 = [T::zero(); 15];
        let mut s2 = [T::zero(); 30];
        let mut d2 = [T::zero(); 30];
        let mut sum1 = T::zero();
        let mut sum2 = T::zero();
        let mut m1 = T::zero();
        let mut m2 = T::zero();
        let mut var1 = T::zero();
        let mut var2 = T::zero();
        let mut z = T::zero();
        let mut h = T::zero();
        let mut ex = T::zero();
        for e in 0..15 {
            for d in 0..k {
                routine! {
                    let mut t = T::zero();
                    t += x[d * 10 + L1[e].0] - x[d * 10 + L1[e].1];
                }
                s1[e] += square(t);
                unroutine!();
            }
            d1[e] += sqrt(s1[e]);
            sum1 += d1[e];
        }
        for e in 0..30 {
            for d in 0..k {
                routine! {
                    let mut t = T::zero();
                    t += x[d * 10 + L2[e].0] - x[d * 10 + L2[e].1];
                }
                s2[e] += square(t);
                unroutine!();
            }
            d2[e] += sqrt(s2[e]);
            sum2 += d2[e];
        }
        m1 += sum1 * constant!(T::from_f64(1.0 / 15.0));
        m2 += sum2 * constant!(T::from_f64(1.0 / 30.0));
        for e in 0..15 {
            routine! {
                let mut c = T::zero();
                c += d1[e] - m1;
            }
            var1 += square(c);
            unroutine!();
        }
        for e in 0..30 {
            routine! {
                let mut c = T::zero();
                c += d2[e] - m2;
            }
            var2 += square(c);
            unroutine!();
        }
        z += m1 - m2;
        z += 0.1;
        h += max(z, 0.0);
        ex += exp(h);
    }
    loss += var1 * constant!(T::from_f64(1.0 / 14.0));
    loss += var2 * constant!(T::from_f64(1.0 / 29.0));
    loss += ex;
    loss -= 1.0;
    unroutine!();
}

/// The same loss in plain Rust, generic over `gradus_num::Real` (the native baseline and, on
/// `Dual`s, the forward-mode reference gradient).
pub fn petersen_native<R: Real>(x: &[R], k: usize) -> R {
    fn stats<R: Real>(x: &[R], k: usize, edges: &[(usize, usize)]) -> (R, R) {
        let mut d = [R::zero(); 30];
        let mut sum = R::zero();
        for (e, &(a, b)) in edges.iter().enumerate() {
            let mut s = R::zero();
            for dim in 0..k {
                let t = x[dim * 10 + a] - x[dim * 10 + b];
                s += t * t;
            }
            d[e] = s.sqrt();
            sum += d[e];
        }
        let n = edges.len() as f64;
        let m = sum / R::from_f64(n);
        let mut v = R::zero();
        for de in d.iter().take(edges.len()) {
            let c = *de - m;
            v += c * c;
        }
        (m, v / R::from_f64(n - 1.0))
    }
    let (m1, v1) = stats(x, k, &L1);
    let (m2, v2) = stats(x, k, &L2);
    v1 + v2 + (m1 - m2 + R::from_f64(0.1)).max(R::zero()).exp() - R::one()
}

/// The fixed input of the anchor: `x[d][v] = sin(0.7(d+1) + 1.3(v+1))`.
pub fn anchor_input(k: usize) -> Vec<f64> {
    let mut x = vec![0.0; 10 * k];
    for d in 0..k {
        for v in 0..10 {
            x[d * 10 + v] = (0.7 * (d + 1) as f64 + 1.3 * (v + 1) as f64).sin();
        }
    }
    x
}

fn main() {
    for k in [2, 5] {
        let mut x = anchor_input(k);
        let mut loss = 0.0;
        let (_, g) = petersen_grad(&mut loss, &mut x, k).expect("reversible");
        println!("k = {k}: loss = {loss}, ∂loss/∂x[0][2] = {}", g[2]);
    }
}
