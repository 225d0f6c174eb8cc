//! A user primitive (REVERSIBLE.md §7.8): a unit struct implementing `Primitive1` gets `+=`
//! and `-=` instructions on every scalar type, `GVar` included.

use gradus_check::{Tolerance, fd_gradient};
use gradus_rev::Real;
use gradus_rev::prelude::*;

/// softplus(a) = ln(1 + e^a), derivative the logistic function.
struct Softplus;

impl Primitive1 for Softplus {
    fn eval<T: Real>(a: T) -> T {
        a.exp().log1p()
    }
    fn deriv<T: Real>(a: T) -> T {
        T::one() / (T::one() + (-a).exp())
    }
}

#[reversible(loss = y)]
fn soft<T: RevReal>(y: &mut T, x: &mut T) {
    y += Softplus(x);
}

#[test]
fn user_primitive_value_inverse_and_gradient() {
    let (mut y, mut x) = (0.5f64, 0.3f64);
    soft(&mut y, &mut x).unwrap();
    assert!((y - (0.5 + 0.3f64.exp().ln_1p())).abs() < 1e-15);
    soft_inv(&mut y, &mut x).unwrap();
    assert!((y - 0.5).abs() < 1e-15);
    let (_, dx) = soft_grad(&mut y, &mut x).unwrap();
    let fd = fd_gradient(|v| v[0].exp().ln_1p(), &[0.3]);
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(dx, fd[0]));
}
