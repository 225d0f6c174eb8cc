//! The shared vocabulary (docs/vocabulary.md) on the tape: `vjp` and the other drivers agree
//! with each other and with central finite differences.

use gradus_check::{SplitMix64, Tolerance, compare, dot, fd};
use gradus_num::Real;
use gradus_tape::{
    Adjoints, ReverseOptions, Tape, grad, hessian, hvp, jacobian, join, jvp, record, vjp,
};

/// Three outputs of three inputs, with a fork so that the reverse pass runs in parallel.
fn vector<S: Real + Send + Sync>(x: &[S]) -> Vec<S> {
    let (a, b) = join(
        || x[0] * x[1].sin() + x[2].exp(),
        || (x[0] - x[2]).square() * x[1],
    );
    vec![a * b.tanh(), x[1].hypot(x[2]), (x[1] / x[2]).log1p()]
}

fn scalar<S: Real + Send + Sync>(x: &[S]) -> S {
    let y = vector(x);
    y[0] + y[1] * y[2]
}

fn gradient(x: &[f64]) -> Vec<f64> {
    grad(x, |v| scalar(v)).1
}

#[test]
fn vjp_matches_finite_differences_and_the_jacobian() {
    let mut rng = SplitMix64::new(31);
    for _ in 0..10 {
        let x = rng.vector(3, 0.2, 1.5);
        let ybar = rng.vector(3, -1.0, 1.0);
        let (y, xbar) = vjp(&x, &ybar, |v| vector(v));
        assert_eq!(y, vector(&x));
        let fd_xbar = fd::vjp(&x, &ybar, vector::<f64>);
        compare(&xbar, &fd_xbar, Tolerance::FINITE_DIFFERENCE).unwrap();
        let (_, j) = jacobian(&x, |v| vector(v));
        let from_rows: Vec<f64> = (0..3)
            .map(|c| j.iter().zip(&ybar).map(|(r, yb)| r[c] * yb).sum())
            .collect();
        compare(&xbar, &from_rows, Tolerance::ROUNDING).unwrap();
        // The transposition identity against forward mode.
        let xdot = rng.vector(3, -1.0, 1.0);
        let (_, ydot) = jvp(&x, &xdot, vector);
        gradus_check::check_transposition(&xbar, &xdot, &ybar, &ydot, Tolerance::ROUNDING).unwrap();
    }
}

#[test]
fn tape_vjp_is_a_recording_and_a_pullback() {
    let mut rng = SplitMix64::new(32);
    let mut tape = Tape::with_options(ReverseOptions::sequential());
    for _ in 0..5 {
        let x = rng.vector(3, 0.2, 1.5);
        let ybar = rng.vector(3, -1.0, 1.0);
        let (y, xbar) = tape.vjp(&x, &ybar, |v| vector(v));
        let rec = record(&x, |v| vector(v));
        let mut expected = vec![0.0; 3];
        rec.pullback_into(
            &ybar,
            &ReverseOptions::sequential(),
            &mut Adjoints::new(),
            &mut expected,
        )
        .unwrap();
        assert_eq!(y, rec.outputs());
        assert_eq!(xbar, expected);
        // One output seeded with 1 is the gradient.
        let (s, g) = tape.vjp(&x, &[1.0], |v| vec![scalar(v)]);
        let mut g_into = vec![0.0; 3];
        let s_into = tape.grad_into(&x, |v| scalar(v), &mut g_into);
        assert_eq!((s[0], &g), (s_into, &g_into));
        let (s_grad, g_grad) = grad(&x, |v| scalar(v));
        assert_eq!(s[0], s_grad);
        compare(&g, &g_grad, Tolerance::ROUNDING).unwrap();
    }
}

#[test]
#[should_panic(expected = "gradus-tape: vjp")]
fn vjp_rejects_a_cotangent_of_the_wrong_length() {
    vjp(&[1.0, 2.0], &[1.0], |v| vec![v[0], v[1]]);
}

#[test]
fn drivers_match_finite_differences() {
    let mut rng = SplitMix64::new(33);
    for _ in 0..10 {
        let x = rng.vector(3, 0.2, 1.5);
        let (y, g) = grad(&x, |v| scalar(v));
        assert_eq!(y, scalar(&x));
        compare(
            &g,
            &fd::grad(&x, scalar::<f64>),
            Tolerance::FINITE_DIFFERENCE,
        )
        .unwrap();

        let (_, j) = jacobian(&x, |v| vector(v));
        for (row, fd_row) in j.iter().zip(fd::jacobian(&x, vector::<f64>)) {
            compare(row, &fd_row, Tolerance::FINITE_DIFFERENCE).unwrap();
        }

        let xdot = rng.vector(3, -1.0, 1.0);
        let (yh, gh, hv) = hvp(&x, &xdot, |v| scalar(v));
        assert_eq!(yh, y);
        compare(&gh, &g, Tolerance::ROUNDING).unwrap();
        let fd_hv = fd::jvp(&x, &xdot, gradient);
        compare(&hv, &fd_hv, Tolerance::FINITE_DIFFERENCE).unwrap();

        let h = hessian(&x, |v| scalar(v));
        for (row, fd_row) in h.iter().zip(fd::jacobian(&x, gradient)) {
            compare(row, &fd_row, Tolerance::FINITE_DIFFERENCE).unwrap();
        }
        let h_xdot: Vec<f64> = h.iter().map(|r| dot(r, &xdot)).collect();
        compare(&hv, &h_xdot, Tolerance::ROUNDING).unwrap();
    }
}
