//! Sparse matrices in CSC form (docs/reversible.md §Examples and tests): the Frobenius dot `⟨A, B⟩`
//! over merged column patterns, with a `Vec<bool>` branch keeper; and a complex sparse × dense
//! accumulate `Y += A X`. The reversible programs live in `gradus_rev::stdlib::sparse`;
//! this file adds a random pattern generator and the native versions.

#![allow(dead_code)]

use gradus_rev::prelude::*;

pub use gradus_rev::stdlib::sparse::{
    Csc, dot as sparse_dot, dot_grad as sparse_dot_grad, dot_inv as sparse_dot_inv,
    mul_acc as sparse_mul_acc, mul_acc_inv as sparse_mul_acc_inv,
};

/// A random pattern with the given density (deterministic SplitMix64 stream).
pub fn random_csc(m: usize, n: usize, density: f64, seed: u64) -> Csc {
    let mut s = seed;
    let mut next = move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut colptr = vec![0];
    let mut rowval = Vec::new();
    for _ in 0..n {
        for r in 0..m {
            if next() < density {
                rowval.push(r);
            }
        }
        colptr.push(rowval.len());
    }
    Csc {
        m,
        n,
        colptr,
        rowval,
    }
}

/// Native Frobenius dot over the merged patterns.
pub fn sparse_dot_native(a: &[f64], b: &[f64], pa: &Csc, pb: &Csc) -> f64 {
    let mut r = 0.0;
    for col in 0..pa.n {
        let (mut ia, mut ib) = (pa.colptr[col], pb.colptr[col]);
        while ia < pa.colptr[col + 1] && ib < pb.colptr[col + 1] {
            let (ra, rb) = (pa.rowval[ia], pb.rowval[ib]);
            if ra == rb {
                r += a[ia] * b[ib];
                ia += 1;
                ib += 1;
            } else if ra < rb {
                ia += 1;
            } else {
                ib += 1;
            }
        }
    }
    r
}

/// Native complex sparse × dense accumulate.
pub fn sparse_mul_acc_native(
    y: &mut [Complex<f64>],
    a: &[Complex<f64>],
    x: &[Complex<f64>],
    pa: &Csc,
    p: usize,
) {
    for col in 0..pa.n {
        for k in pa.colptr[col]..pa.colptr[col + 1] {
            for j in 0..p {
                y[pa.rowval[k] * p + j] += a[k] * x[col * p + j];
            }
        }
    }
}

fn main() {
    let pa = random_csc(100, 100, 0.05, 1);
    let pb = random_csc(100, 100, 0.05, 2);
    let mut a: Vec<f64> = (0..pa.rowval.len()).map(|i| (i as f64).sin()).collect();
    let mut b: Vec<f64> = (0..pb.rowval.len()).map(|i| (i as f64).cos()).collect();
    let mut keep = vec![false; pa.rowval.len() + pb.rowval.len() + 1];
    let mut r = 0.0;
    sparse_dot(&mut r, &mut a, &mut b, &pa, &pb, &mut keep).expect("reversible");
    println!(
        "<A, B> = {r} (native {})",
        sparse_dot_native(&a, &b, &pa, &pb)
    );
}
