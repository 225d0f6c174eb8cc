//! Jacobians (docs/reversible.md §Jacobians and Hessians): repeated reverse with `jacobian`, and a
//! batched gradient field `GVar<T, [T; M]>` that yields the whole Jacobian in one backward sweep.

use gradus_check::{Tolerance, compare, fd};
use gradus_rev::prelude::*;

/// Two outputs of three inputs: y0 += a·b + sin(c), y1 += exp(a) − b/c.
#[reversible]
fn two_outputs<T: RevReal>(y: &mut [T], x: &mut [T]) {
    y[0] += x[0] * x[1];
    y[0] += sin(x[2]);
    y[1] += exp(x[0]);
    y[1] -= x[1] / x[2];
}

fn native(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1] + x[2].sin(), x[0].exp() - x[1] / x[2]]
}

#[test]
fn batched_and_repeated_jacobians_agree_with_finite_differences() {
    let x0 = [0.3, -1.2, 0.8];
    let (mut y, mut x) = (vec![0.0; 2], x0.to_vec());
    two_outputs(&mut y, &mut x).unwrap();
    // Batched: seed output i with the i-th unit vector, one inverse sweep.
    let mut wy: Vec<GVar<f64, [f64; 2]>> = y
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let mut g = [0.0; 2];
            g[i] = 1.0;
            GVar::with_grad(v, g)
        })
        .collect();
    let mut wx: Vec<GVar<f64, [f64; 2]>> = x.iter().map(|&v| GVar::new(v)).collect();
    two_outputs_inv(&mut wy, &mut wx).unwrap();
    let fd = fd::jacobian(&x0, native);
    for (i, row) in fd.iter().enumerate() {
        let got: Vec<f64> = wx.iter().map(|v| v.g[i]).collect();
        compare(&got, row, Tolerance::FINITE_DIFFERENCE).unwrap();
    }
    for (v, v0) in wx.iter().zip(x0) {
        assert!((v.x - v0).abs() < 1e-15);
    }
    // Repeated reverse.
    let rows = gradus_rev::jacobian(2, |ybar| {
        let mut wy: Vec<GVar<f64>> = y
            .iter()
            .zip(ybar)
            .map(|(&v, &yb)| GVar::with_grad(v, yb))
            .collect();
        let mut wx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
        two_outputs_inv(&mut wy, &mut wx).unwrap();
        wx.iter().map(|v| v.g).collect()
    });
    for (r, f) in rows.iter().zip(&fd) {
        compare(r, f, Tolerance::FINITE_DIFFERENCE).unwrap();
    }
}
