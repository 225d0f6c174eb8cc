//! The shared vocabulary (docs/vocabulary.md) in the reversible engine: the deprecated driver
//! names agree with the new ones, and the drivers agree with central finite differences.

#![allow(clippy::needless_range_loop)]

use gradus_check::{SplitMix64, Tolerance, compare, dot, fd};
use gradus_rev::prelude::*;
use gradus_rev::{DualN, hessian, hvp, jacobian, jacobian_fwd, jvp};

/// y ← y + x0·x1 + sin x2 + x1·x2 + exp x0.
#[reversible(loss = y)]
fn energy<T: RevReal>(y: &mut T, x: &mut [T]) {
    y += x[0] * x[1];
    y += sin(x[2]);
    y += x[1] * x[2];
    y += exp(x[0]);
}

fn energy_native(x: &[f64]) -> f64 {
    x[0] * x[1] + x[2].sin() + x[1] * x[2] + x[0].exp()
}

/// The reversible gradient of `energy` at `x`.
fn gradient(x: &[f64]) -> Vec<f64> {
    let (mut y, mut x) = (0.0, x.to_vec());
    energy_grad(&mut y, &mut x).unwrap().1
}

/// The reversible gradient on duals: what the second-order drivers call.
fn gradient_on_duals(x: &[Dual<f64>]) -> Vec<Dual<f64>> {
    let (mut y, mut x) = (Dual::constant(0.0), x.to_vec());
    energy_grad(&mut y, &mut x).unwrap().1
}

/// y0 += x0·x1 + sin x2, y1 += exp x0 − x1/x2.
#[reversible]
fn two_outputs<T: RevReal>(y: &mut [T], x: &mut [T]) {
    y[0] += x[0] * x[1];
    y[0] += sin(x[2]);
    y[1] += exp(x[0]);
    y[1] -= x[1] / x[2];
}

fn two_outputs_native(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1] + x[2].sin(), x[0].exp() - x[1] / x[2]]
}

/// Input cotangents of `two_outputs` at `x` (outputs `y`) for output cotangents `ybar`.
fn pullback(x: &[f64], y: &[f64], ybar: &[f64]) -> Vec<f64> {
    let mut wy: Vec<GVar<f64>> = y
        .iter()
        .zip(ybar)
        .map(|(&v, &yb)| GVar::with_grad(v, yb))
        .collect();
    let mut wx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
    two_outputs_inv(&mut wy, &mut wx).unwrap();
    wx.iter().map(|v| v.g).collect()
}

#[test]
#[allow(deprecated)]
fn deprecated_drivers_agree_with_the_new_ones() {
    let mut rng = SplitMix64::new(41);
    for _ in 0..5 {
        let x = rng.vector(3, 0.5, 1.5);
        let h = hessian(&x, gradient_on_duals);
        let h_old = gradus_rev::hessian_columns(x.len(), |seed| {
            let xd: Vec<Dual<f64>> = x.iter().zip(seed).map(|(&v, &s)| Dual::new(v, s)).collect();
            gradient_on_duals(&xd)
        });
        assert_eq!(h, h_old);
        assert_eq!(
            h,
            gradus_rev::grad::hessian_columns(x.len(), |seed| {
                let xd: Vec<Dual<f64>> =
                    x.iter().zip(seed).map(|(&v, &s)| Dual::new(v, s)).collect();
                gradient_on_duals(&xd)
            })
        );

        let mut y = vec![0.0; 2];
        two_outputs(&mut y, &mut x.clone()).unwrap();
        let j = jacobian(2, |ybar| pullback(&x, &y, ybar));
        let j_old = gradus_rev::jacobian_rows(2, |i| {
            let ybar: Vec<f64> = (0..2).map(|k| f64::from(k == i)).collect();
            pullback(&x, &y, &ybar)
        });
        assert_eq!(j, j_old);
    }
}

#[test]
fn jacobian_matches_finite_differences_and_forward_mode() {
    let mut rng = SplitMix64::new(42);
    for _ in 0..10 {
        let x = rng.vector(3, 0.5, 1.5);
        let mut y = vec![0.0; 2];
        two_outputs(&mut y, &mut x.clone()).unwrap();
        let j = jacobian(2, |ybar| pullback(&x, &y, ybar));
        let fd_j = fd::jacobian(&x, two_outputs_native);
        for (row, fd_row) in j.iter().zip(&fd_j) {
            compare(row, fd_row, Tolerance::FINITE_DIFFERENCE).unwrap();
        }
        // Forward mode: the reversible function run on duals.
        let forward = |xd: &[Dual<f64>]| {
            let mut yd = vec![Dual::constant(0.0); 2];
            two_outputs(&mut yd, &mut xd.to_vec()).unwrap();
            yd
        };
        let xdot = rng.vector(3, -1.0, 1.0);
        let (yf, ydot) = jvp(&x, &xdot, forward);
        assert_eq!(yf, y);
        compare(
            &ydot,
            &fd::jvp(&x, &xdot, two_outputs_native),
            Tolerance::FINITE_DIFFERENCE,
        )
        .unwrap();
        let ybar = rng.vector(2, -1.0, 1.0);
        let xbar = pullback(&x, &y, &ybar);
        gradus_check::check_transposition(&xbar, &xdot, &ybar, &ydot, Tolerance::ROUNDING).unwrap();
        let (_, jf) = jacobian_fwd::<2, _>(&x, |xd| {
            let mut yd = vec![DualN::constant(0.0); 2];
            two_outputs(&mut yd, &mut xd.to_vec()).unwrap();
            yd
        });
        for (row, row_f) in j.iter().zip(&jf) {
            compare(row, row_f, Tolerance::ROUNDING).unwrap();
        }
    }
}

#[test]
fn second_order_drivers_match_finite_differences_of_the_gradient() {
    let mut rng = SplitMix64::new(43);
    for _ in 0..10 {
        let x = rng.vector(3, 0.5, 1.5);
        let g = gradient(&x);
        compare(
            &g,
            &fd::grad(&x, energy_native),
            Tolerance::FINITE_DIFFERENCE,
        )
        .unwrap();

        let xdot = rng.vector(3, -1.0, 1.0);
        let (gh, hv) = hvp(&x, &xdot, gradient_on_duals);
        compare(&gh, &g, Tolerance::ROUNDING).unwrap();
        compare(
            &hv,
            &fd::jvp(&x, &xdot, gradient),
            Tolerance::FINITE_DIFFERENCE,
        )
        .unwrap();

        let h = hessian(&x, gradient_on_duals);
        for (row, fd_row) in h.iter().zip(fd::jacobian(&x, gradient)) {
            compare(row, &fd_row, Tolerance::FINITE_DIFFERENCE).unwrap();
        }
        let h_xdot: Vec<f64> = h.iter().map(|r| dot(r, &xdot)).collect();
        compare(&hv, &h_xdot, Tolerance::ROUNDING).unwrap();
    }
}
