//! The shared vocabulary (docs/vocabulary.md) in forward mode: the deprecated names agree with
//! the new ones, and the drivers agree with central finite differences.

use gradus_check::{SplitMix64, Tolerance, compare, dot, fd};
use gradus_num::{Real, grad_fwd, hessian_fwd, hvp_fwd, jacobian_fwd, jvp};

fn f<S: Real>(x: &[S]) -> S {
    let a = x[0] * x[1].sin() + x[2].exp();
    let b = (x[0] - x[2]).square() * x[1];
    a * b.tanh() + x[1].hypot(x[2])
}

fn vector<S: Real>(x: &[S]) -> Vec<S> {
    vec![f(x), x[0] * x[2], (x[1] / x[2]).log1p()]
}

/// The gradient by forward mode, as an `f64` function for finite differences.
fn gradient(x: &[f64]) -> Vec<f64> {
    grad_fwd(x, f).1
}

#[test]
#[allow(deprecated)]
fn gradient_fwd_is_grad_fwd() {
    let mut rng = SplitMix64::new(21);
    for _ in 0..10 {
        let x = rng.vector(3, 0.2, 1.5);
        assert_eq!(gradus_num::gradient_fwd(&x, f), grad_fwd(&x, f));
    }
}

#[test]
fn first_order_drivers_match_finite_differences() {
    let mut rng = SplitMix64::new(22);
    for _ in 0..10 {
        let x = rng.vector(3, 0.2, 1.5);
        let (y, g) = grad_fwd(&x, f);
        assert_eq!(y, f(&x));
        compare(&g, &fd::grad(&x, f::<f64>), Tolerance::FINITE_DIFFERENCE).unwrap();

        let xdot = rng.vector(3, -1.0, 1.0);
        let (ys, ydot) = jvp(&x, &xdot, vector);
        assert_eq!(ys, vector(&x));
        let fd_ydot = fd::jvp(&x, &xdot, vector::<f64>);
        compare(&ydot, &fd_ydot, Tolerance::FINITE_DIFFERENCE).unwrap();

        let (_, j) = jacobian_fwd::<2, _>(&x, vector);
        for (row, fd_row) in j.iter().zip(fd::jacobian(&x, vector::<f64>)) {
            compare(row, &fd_row, Tolerance::FINITE_DIFFERENCE).unwrap();
        }
    }
}

#[test]
fn second_order_drivers_match_finite_differences_of_the_gradient() {
    let mut rng = SplitMix64::new(23);
    for _ in 0..10 {
        let x = rng.vector(3, 0.2, 1.5);
        let xdot = rng.vector(3, -1.0, 1.0);
        let (y, g, hv) = hvp_fwd(&x, &xdot, f);
        // The value and gradient are those of first order, bit for bit.
        assert_eq!((y, g), grad_fwd(&x, f));
        let fd_hv = fd::jvp(&x, &xdot, gradient);
        compare(&hv, &fd_hv, Tolerance::FINITE_DIFFERENCE).unwrap();

        let h = hessian_fwd(&x, f);
        for (i, (row, fd_row)) in h.iter().zip(fd::jacobian(&x, gradient)).enumerate() {
            compare(row, &fd_row, Tolerance::FINITE_DIFFERENCE).unwrap();
            for (j, hij) in row.iter().enumerate() {
                assert_eq!(*hij, h[j][i], "symmetric");
            }
        }
        let h_xdot: Vec<f64> = h.iter().map(|r| dot(r, &xdot)).collect();
        compare(&hv, &h_xdot, Tolerance::ROUNDING).unwrap();
    }
}
