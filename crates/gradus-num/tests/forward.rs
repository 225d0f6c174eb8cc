//! Forward mode against the rule table, finite differences and known values.

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_num::rules::{BINARY, UNARY, apply_binary, apply_unary};
use gradus_num::{Dual, DualN, Real, derivative, digamma, jacobian_fwd, jvp, trigamma};

#[test]
fn unary_rules_match_finite_differences_and_dual() {
    let mut rng = SplitMix64::new(11);
    for rule in UNARY {
        for x in rng.vector_avoiding(20, rule.domain.0, rule.domain.1, rule.kinks, 0.05) {
            let (v, p) = (rule.rule)(x);
            let fd = fd::grad(&[x], |x| apply_unary(rule.name, x[0]).unwrap());
            compare(&[p], &fd, Tolerance::new(1e-6, 1e-5))
                .unwrap_or_else(|m| panic!("{} at {x}: {m}", rule.name));
            assert_eq!(
                v,
                apply_unary(rule.name, x).unwrap(),
                "{} value at {x}",
                rule.name
            );
            let d = apply_unary(rule.name, Dual::variable(x)).unwrap();
            assert_eq!(d.v, v, "{} dual value", rule.name);
            compare(&[d.d], &[p], Tolerance::ROUNDING)
                .unwrap_or_else(|m| panic!("{} dual at {x}: {m}", rule.name));
        }
    }
}

#[test]
fn binary_rules_match_finite_differences_and_dual() {
    let mut rng = SplitMix64::new(12);
    for rule in BINARY {
        for _ in 0..20 {
            let x = rng.uniform(rule.domain_x.0, rule.domain_x.1);
            let y = rng.uniform(rule.domain_y.0, rule.domain_y.1);
            let (v, px, py) = (rule.rule)(x, y);
            let fd = fd::grad(&[x, y], |a| apply_binary(rule.name, a[0], a[1]).unwrap());
            compare(&[px, py], &fd, Tolerance::new(1e-6, 1e-5))
                .unwrap_or_else(|m| panic!("{} at ({x}, {y}): {m}", rule.name));
            let f = apply_binary(rule.name, Dual::variable(x), Dual::constant(y)).unwrap();
            let g = apply_binary(rule.name, Dual::constant(x), Dual::variable(y)).unwrap();
            assert_eq!(f.v, v);
            compare(&[f.d, g.d], &[px, py], Tolerance::ROUNDING)
                .unwrap_or_else(|m| panic!("{} dual: {m}", rule.name));
        }
    }
}

#[test]
fn kink_conventions() {
    assert_eq!(Dual::variable(0.0).abs().d, 0.0);
    assert_eq!(Dual::variable(0.0).sqrt().d, 0.0);
    // Ties select the first operand.
    let a = Dual::new(1.0, 1.0);
    let b = Dual::new(1.0, 2.0);
    assert_eq!(a.max(b).d, 1.0);
    assert_eq!(a.min(b).d, 1.0);
    assert_eq!(b.max(a).d, 2.0);
    // A NaN operand loses.
    assert_eq!(Dual::new(f64::NAN, 5.0).max(a).d, 1.0);
    assert_eq!(a.min(Dual::new(f64::NAN, 5.0)).d, 1.0);
    // powf at 0 with exponent below 1: ∂x = 0; ∂y = 0 for x <= 0.
    assert_eq!(Dual::variable(0.0).powf(Dual::constant(0.5)).d, 0.0);
    assert_eq!(Dual::constant(0.0).powf(Dual::variable(2.0)).d, 0.0);
    // Rounding functions are flat.
    assert_eq!(Dual::variable(2.7).floor().d, 0.0);
    assert_eq!(Real::signum(0.0f64), 0.0);
}

#[test]
fn special_functions_agree_with_libm_derivatives() {
    let mut rng = SplitMix64::new(3);
    for x in rng.vector(50, -4.5, 9.0) {
        if (x - x.round()).abs() < 0.05 && x < 0.5 {
            continue;
        }
        let fd = fd::grad(&[x], |t| t[0].lgamma());
        compare(&[digamma(x)], &fd, Tolerance::new(1e-6, 1e-5)).unwrap();
        let fd2 = fd::grad(&[x], |t| digamma(t[0]));
        compare(&[trigamma(x)], &fd2, Tolerance::new(1e-5, 1e-5)).unwrap();
    }
    // ψ(1/2) = −γ − 2 ln 2.
    let gamma_euler = 0.577_215_664_901_532_9;
    assert!((digamma(0.5f64) + gamma_euler + 2.0 * 2f64.ln()).abs() < 1e-14);
}

#[test]
fn nested_duals_give_second_derivatives() {
    // f(x) = x³ sin x; f'' = 6x sin x + 6x² cos x − x³ sin x.
    let x = 0.7f64;
    let xd = Dual::new(Dual::variable(x), Dual::constant(1.0));
    let y = xd * xd * xd * xd.sin();
    let exact = 6.0 * x * x.sin() + 6.0 * x * x * x.cos() - x.powi(3) * x.sin();
    assert!((y.d.d - exact).abs() < 1e-12, "{} vs {exact}", y.d.d);
    // Second derivative of lgamma is trigamma, through the generic digamma.
    let z = Dual::new(Dual::variable(2.5), Dual::constant(1.0)).lgamma();
    assert!((z.d.d - trigamma(2.5)).abs() < 1e-12);
}

fn program<S: Real>(x: &[S]) -> Vec<S> {
    let a = x[0] * x[1] + x[2].sin();
    let b = (a / x[3]).exp() - x[0].hypot(x[2]);
    let c = x[1].atan2(x[3]) * a.tanh() + b.powi(2);
    vec![a, b, c, x.iter().copied().sum::<S>().sqrt()]
}

#[test]
fn jacobians_forward_match_finite_differences() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..10 {
        let x = rng.vector(4, 0.5, 2.0);
        let fd = fd::jacobian(&x, program::<f64>);
        let (y, j) = jacobian_fwd::<3, _>(&x, program);
        assert_eq!(y, program(&x));
        for (r, e) in j.iter().zip(&fd) {
            compare(r, e, Tolerance::FINITE_DIFFERENCE).unwrap();
        }
        let (_, j1) = jacobian_fwd::<1, _>(&x, program);
        let (_, j8) = jacobian_fwd::<8, _>(&x, program);
        assert_eq!(j, j1);
        assert_eq!(j, j8);
        let xdot = rng.vector(4, -1.0, 1.0);
        let (_, jv) = jvp(&x, &xdot, program);
        let expected: Vec<f64> = j.iter().map(|r| gradus_check::dot(r, &xdot)).collect();
        compare(&jv, &expected, Tolerance::ROUNDING).unwrap();
    }
}

#[test]
fn f32_runs_the_same_code() {
    let y = program(&[1.0f32, 2.0, 0.5, 1.5]);
    let z = program(&[1.0f64, 2.0, 0.5, 1.5]);
    for (a, b) in y.iter().zip(&z) {
        assert!((*a as f64 - b).abs() < 1e-4 * b.abs().max(1.0));
    }
    let d = Dual::<f32>::variable(2.0).sin() * 3.0f32;
    assert!((d.d - 3.0 * 2f32.cos()).abs() < 1e-6);
    let (_, dy) = derivative(2.0, |x| x.powi(3) + 1.0);
    assert_eq!(dy, 12.0);
    let dn = DualN::<f32, 2>::variable(1.0, 1).exp();
    assert_eq!(dn.d[0], 0.0);
}
