//! A user primitive (docs/reversible.md §New instructions): a unit struct implementing
//! `Primitive1<T>` for every `T: Real` gets `+=` and `-=` instructions on every scalar type, `GVar`
//! included.

use gradus_check::{Tolerance, fd};
use gradus_rev::Real;
use gradus_rev::prelude::*;

/// softplus(a) = ln(1 + e^a), derivative the logistic function.
struct Softplus;

impl<T: Real> Primitive1<T> for Softplus {
    fn eval(a: T) -> T {
        a.exp().log1p()
    }
    fn deriv(a: T) -> T {
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
    let fd = fd::grad(&[0.3], |v| v[0].exp().ln_1p());
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(dx, fd[0]));
}

/// f(a, b) = a·sin(b), a two-argument user primitive.
struct ASinB;

impl<T: Real> Primitive2<T> for ASinB {
    fn eval(a: T, b: T) -> T {
        a * b.sin()
    }
    fn grad(a: T, b: T) -> (T, T) {
        (b.sin(), a * b.cos())
    }
}

#[reversible(loss = y)]
fn asinb<T: RevReal>(y: &mut T, a: &mut T, b: &mut T) {
    y += ASinB(a, b);
}

#[reversible]
fn asinb_fixed(y: &mut I21F43, a: &mut I21F43, b: &mut I21F43) {
    y -= ASinB(a, b);
}

#[test]
fn user_primitive2_gradient_and_exact_fixed_point_round_trip() {
    let (mut y, mut a, mut b) = (0.1f64, 0.7, -1.3);
    let (_, da, db) = asinb_grad(&mut y, &mut a, &mut b).unwrap();
    assert!((y - (0.1 + 0.7 * (-1.3f64).sin())).abs() < 1e-15);
    let fd = fd::grad(&[0.7, -1.3], |v| v[0] * v[1].sin());
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(da, fd[0]));
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(db, fd[1]));
    let y0 = I21F43::from_num(0.3);
    let (mut y, mut a, mut b) = (y0, I21F43::from_num(0.7), I21F43::from_num(-1.3));
    asinb_fixed(&mut y, &mut a, &mut b).unwrap();
    assert!((y.to_num::<f64>() - (0.3 - 0.7 * (-1.3f64).sin())).abs() < 1e-12);
    asinb_fixed_inv(&mut y, &mut a, &mut b).unwrap();
    assert_eq!(y, y0);
}
