//! Operations with one non-constant operand fold into the coefficient of their result instead
//! of recording a node: gradients through every consumer of a coefficient (two-operand
//! operations, `dot` on both kinds of side, `sum`, `mul_add`, statements, forks, outputs)
//! against forward mode and finite differences, and the fallback to a recorded node where a
//! coefficient would not be finite.

use super::forward_gradient;
use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_tape::{Real, Var, dot, grad, join, record, statement, sum};

const N: usize = 6;

/// Unary chains and constant operands feeding every kind of consumer, written over `Real`;
/// `d`, `s` and `st` are the dot product, the sum and a three-input statement.
fn program<S: Real>(
    x: &[S],
    d: impl Fn(&[S], &[S]) -> S,
    s: impl Fn(&[S]) -> S,
    st: impl Fn([S; 3]) -> S,
) -> S {
    let c = |v: f64| S::from_f64(v);
    // Same nodes as the inputs, consecutive, with coefficients: a dense side of `dot`.
    let scaled: Vec<S> = x.iter().map(|&t| t * c(2.0) - c(1.0)).collect();
    // Chains of one-operand operations: a listed side.
    let chains: Vec<S> = x
        .iter()
        .rev()
        .map(|&t| (c(0.5) - t.sin()).exp() / c(3.0))
        .collect();
    let a = d(&scaled, &chains);
    let b = s(&chains);
    let m = (-x[0]).mul_add(x[1].cos(), x[2] * c(0.25));
    let t = st([x[3].tanh(), -x[4], x[5] * c(4.0)]);
    let prod = (a * b).cos() * c(-0.7) + m * t.square();
    // Folded values captured by tasks, and returned from them.
    let (p, q) = (x[1].exp() * c(1.5), x[2] * c(-2.0));
    let (u, v) = (p.sin(), (q * p).ln());
    (prod + u * v) / c(5.0)
}

fn scalar_dot<S: Real>(u: &[S], v: &[S]) -> S {
    u.iter().zip(v).fold(S::zero(), |acc, (&a, &b)| acc + a * b)
}

fn scalar_sum<S: Real>(t: &[S]) -> S {
    t.iter().fold(S::zero(), |acc, &b| acc + b)
}

fn expr<S: Real>([a, b, c]: [S; 3]) -> S {
    (a * b + c).sin() * S::from_f64(2.0) - c / b
}

fn taped<'r>(x: &[Var<'r>]) -> Var<'r> {
    program(x, |u, v| dot(u, v), |t| sum(t), |i| statement(i, expr))
}

/// The same program with each fork point as a `join`.
fn forked<'r>(x: &[Var<'r>]) -> Var<'r> {
    let (p, q) = (x[1].exp() * 1.5, x[2] * -2.0);
    let (u, v) = join(|| p.sin(), || (q * p).ln());
    let (head, _) = join(
        || program(x, |a, b| dot(a, b), |t| sum(t), |i| statement(i, expr)),
        || (),
    );
    // `head` includes `u * v / 5`; the tasks' values enter through another path.
    head + (u * v - p.sin() * (q * p).ln()) * 0.25
}

fn inputs(rng: &mut SplitMix64) -> Vec<f64> {
    // x[2] < 0 keeps the logarithm's argument positive.
    let mut x = rng.vector(N, 0.2, 0.9);
    x[2] = -x[2];
    x
}

#[test]
fn folded_coefficients_match_forward_mode_and_finite_differences() {
    let mut rng = SplitMix64::new(47);
    for _ in 0..8 {
        let x = inputs(&mut rng);
        let reference = |d: &[_]| program(d, scalar_dot, scalar_sum, expr);
        let (y, g) = grad(&x, taped);
        assert!((y - program(&x, scalar_dot, scalar_sum, expr)).abs() <= 1e-12 * y.abs().max(1.0));
        compare(
            &g,
            &forward_gradient(&x, reference),
            Tolerance::new(1e-12, 1e-12),
        )
        .unwrap();
        let f64_program = |v: &[f64]| program(v, scalar_dot, scalar_sum, expr);
        compare(&g, &fd::grad(&x, f64_program), Tolerance::new(1e-6, 1e-6)).unwrap();
        // With forks: the captured and returned values keep their coefficients.
        let (yf, gf) = grad(&x, forked);
        assert!((yf - y).abs() <= 1e-12 * y.abs().max(1.0));
        compare(&gf, &g, Tolerance::new(1e-12, 1e-12)).unwrap();
    }
}

#[test]
fn one_operand_operations_record_nothing_but_the_output() {
    let rec = record(&[0.3, 0.4], |x| {
        vec![((x[0].exp().sin() * 3.0 - 1.0) / 2.0).tanh()]
    });
    // Only the output's coefficient is recorded, as one node.
    assert_eq!(rec.stats().nodes - rec.stats().inputs, 1);
    let t = 0.3f64;
    let inner = (t.exp().sin() * 3.0 - 1.0) / 2.0;
    let expected = (1.0 - inner.tanh().powi(2)) * 1.5 * t.exp().cos() * t.exp();
    let g = rec.pullback(&[1.0]);
    assert!((g[0] - expected).abs() <= 1e-15 && g[1] == 0.0, "{g:?}");
    // An output of coefficient 1 records nothing.
    let rec = record(&[0.3], |x| vec![x[0] + 1.0]);
    assert_eq!(rec.stats().nodes - rec.stats().inputs, 0);
}

#[test]
fn a_coefficient_that_is_not_finite_is_recorded() {
    // d ln(x) / dx is infinite at 0: a node, not a coefficient.
    let (y, g) = grad(&[0.0, 2.0], |x| x[0].ln().exp() + x[1]);
    // `exp` at -∞ has the partial 0, so the node receives the adjoint 0 and is skipped.
    assert_eq!((y, g), (2.0, vec![0.0, 1.0]));
    let (_, g) = grad(&[0.0, 2.0], |x| x[0].recip() * -1.0 + x[1]);
    assert_eq!(g, vec![f64::INFINITY, 1.0]);
    // Multiplied by 0, it receives the adjoint 0 and is skipped (the default), as before.
    let (_, g) = grad(&[0.0, 2.0], |x| x[0].ln() * 0.0 + x[1]);
    assert_eq!(g, vec![0.0, 1.0]);
    let rec = record(&[0.0], |x| vec![x[0].ln() * 2.0 + x[0]]);
    assert_eq!(rec.stats().nodes - rec.stats().inputs, 2);
}

/// A small dense network whose first layer's `relu` cuts about half its units, the second layer
/// using them through products with the constant 0 (`fneural`'s shape), and factors 0 applied
/// to values with and without coefficients.
fn cut_network<S: Real>(x: &[S]) -> S {
    let relu = |z: S| if z.to_f64() >= 0.0 { z } else { S::zero() };
    let (w1, w2) = x.split_at(24);
    let (w2, input) = w2.split_at(12);
    let hidden: Vec<S> = w1
        .chunks_exact(4)
        .map(|row| {
            relu(
                row.iter()
                    .zip(input)
                    .fold(S::zero(), |a, (&w, &v)| a + w * v),
            )
        })
        .collect();
    let out = w2
        .chunks_exact(6)
        .map(|row| {
            row.iter()
                .zip(&hidden)
                .fold(S::zero(), |a, (&w, &h)| a + w * h)
        })
        .fold(S::zero(), |a, o| a + o.tanh());
    let z = S::from_f64(0.0);
    out + x[0].sin() * z + (x[1] * z).exp() * x[2] + (z * x[3] - x[4]) * x[5]
}

#[test]
fn a_zero_coefficient_makes_a_constant() {
    let mut rng = SplitMix64::new(4747);
    for _ in 0..8 {
        let x = rng.vector(40, -1.0, 1.0);
        let (y, g) = grad(&x, |v| cut_network(v));
        assert_eq!(y, cut_network(&x));
        compare(
            &g,
            &forward_gradient(&x, cut_network),
            Tolerance::new(1e-13, 1e-13),
        )
        .unwrap();
        compare(
            &g,
            &fd::grad(&x, cut_network::<f64>),
            Tolerance::new(1e-6, 1e-6),
        )
        .unwrap();
    }
    // `x * 0` and what is built from it only are constants, recording nothing.
    let rec = record(&[0.5, 2.0], |x| {
        let z = x[0].sin() * 0.0;
        assert!(z.is_constant() && (z.exp() * 3.0).is_constant());
        vec![z * x[1] + x[1], -(x[0] * 0.0)]
    });
    assert_eq!(rec.stats().nodes - rec.stats().inputs, 0);
    assert_eq!(rec.pullback(&[1.0, 1.0]), vec![0.0, 1.0]);
}

/// The test that keeps a coefficient (finite and not zero) at its limits: the smallest
/// subnormal and the largest finite coefficients stay coefficients, ±0 makes a constant, and
/// infinite or NaN ones are recorded as nodes.
#[test]
fn coefficient_limits() {
    let x = [2.0, 3.0];
    let case = |c: f64| {
        let rec = record(&x, |v| vec![v[0] * c + v[1]]);
        let records = rec.stats().nodes - rec.stats().inputs;
        (records, rec.pullback(&[1.0]))
    };
    let tiny = f64::from_bits(1);
    assert_eq!(case(tiny), (1, vec![tiny, 1.0]));
    assert_eq!(case(-tiny), (1, vec![-tiny, 1.0]));
    assert_eq!(case(f64::MAX), (1, vec![f64::MAX, 1.0]));
    assert_eq!(case(-f64::MAX), (1, vec![-f64::MAX, 1.0]));
    assert_eq!(case(0.0), (0, vec![0.0, 1.0]));
    assert_eq!(case(-0.0), (0, vec![0.0, 1.0]));
    // Not finite: the operation is a node of its own, then the sum.
    assert_eq!(case(f64::INFINITY), (2, vec![f64::INFINITY, 1.0]));
    assert_eq!(case(f64::NEG_INFINITY), (2, vec![f64::NEG_INFINITY, 1.0]));
    let (records, g) = case(f64::NAN);
    assert!(
        records == 2 && g[0].is_nan() && g[1] == 1.0,
        "{records} {g:?}"
    );
    // A product of finite coefficients that overflows is recorded too.
    let (_, g) = grad(&x, |v| v[0] * f64::MAX * 4.0);
    assert_eq!(g, vec![f64::INFINITY, 0.0]);
}
