//! `statement`: a closure over a few inputs recorded as one node, against the same expressions
//! recorded operation by operation and against finite differences, with constants among the
//! inputs and with inputs of another job.

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_tape::{DualN, Real, ReverseOptions, Var, grad, join, record, statement};

fn e1<S: Real>([a]: [S; 1]) -> S {
    a.sin() * a + S::from_f64(0.5)
}
fn e2<S: Real>([a, b]: [S; 2]) -> S {
    (a * S::from_f64(-0.5) - b * S::from_f64(0.2)) / (a * a + S::one())
}
fn e3<S: Real>([a, b, c]: [S; 3]) -> S {
    a.mul_add(b, c).sin() - b / (c * c + S::one())
}
fn e5<S: Real>([a, b, c, d, e]: [S; 5]) -> S {
    (a * b + c * d).tanh() * e + a.powi(3) * S::from_f64(0.1)
}

/// A program chaining the four expressions, written over an evaluator of each.
fn program<S: Real>(
    x: &[S],
    s1: impl Fn([S; 1]) -> S,
    s2: impl Fn([S; 2]) -> S,
    s3: impl Fn([S; 3]) -> S,
    s5: impl Fn([S; 5]) -> S,
) -> S {
    let mut st = [x[0], x[1], x[2], x[3]];
    for k in 0..5 {
        let p = s2([st[0], st[1]]);
        let q = s3([st[1], st[2], p]);
        let r = s1([q]);
        let c = S::from_f64(0.3 * k as f64 - 0.4);
        st = [p, q, r, s5([st[3], r, c, p, x[4]])];
    }
    st.iter().fold(S::zero(), |acc, &t| acc + t * t)
}

fn scalar<S: Real>(x: &[S]) -> S {
    program(x, e1, e2, e3, e5)
}

fn statements<'r>(x: &[Var<'r>]) -> Var<'r> {
    program(
        x,
        |i| statement(i, e1::<DualN<f64, 1>>),
        |i| statement(i, e2::<DualN<f64, 2>>),
        |i| statement(i, e3::<DualN<f64, 3>>),
        |i| statement(i, e5::<DualN<f64, 5>>),
    )
}

#[test]
fn statements_match_the_operations_and_finite_differences() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..5 {
        let x = rng.vector(5, -0.8, 0.8);
        let (y, g) = grad(&x, statements);
        let (ys, gs) = grad(&x, |v| scalar(v));
        // The forward-mode value is computed by the same operations.
        assert_eq!(y, ys);
        assert_eq!(y, scalar(&x));
        compare(&g, &gs, Tolerance::ROUNDING).unwrap();
        compare(&g, &fd::grad(&x, scalar::<f64>), Tolerance::new(1e-6, 1e-6)).unwrap();
    }
}

#[test]
fn a_statement_is_one_node() {
    let x = [0.3, -0.2, 0.5, 0.1, 0.7];
    // 5 rounds of 4 statements, of which the one with a single input folds into its result's
    // coefficient, and 4 products and 3 additions (the first adds to 0).
    let rec = record(&x, |v| vec![statements(v)]);
    assert_eq!(rec.stats().nodes - rec.stats().inputs, 5 * 3 + 4 + 3);
    // As operations, the statements with several inputs are several records each.
    let rec = record(&x, |v| vec![scalar(v)]);
    assert!(rec.stats().nodes - rec.stats().inputs > 5 * 3 * 2 + 4 + 3);
}

#[test]
fn statements_with_constant_inputs() {
    let (y, g) = grad(&[0.4, 0.9], |v| {
        let c = Var::constant(2.0);
        let all_constant = statement([c, c, c], e3::<DualN<f64, 3>>);
        assert!(all_constant.is_constant());
        let one = statement([c, v[1]], e2::<DualN<f64, 2>>);
        let none: Var<'_> = statement([], |[]: [DualN<f64, 0>; 0]| DualN::constant(1.5));
        assert!(none.is_constant());
        statement([v[0], c, one], e3::<DualN<f64, 3>>) + all_constant * none
    });
    let f = |v: &[f64]| e3([v[0], 2.0, e2([2.0, v[1]])]) + e3([2.0; 3]) * 1.5;
    assert_eq!(y, f(&[0.4, 0.9]));
    compare(&g, &fd::grad(&[0.4, 0.9], f), Tolerance::new(1e-6, 1e-6)).unwrap();
}

#[test]
fn statements_on_values_of_another_job() {
    let x = [0.3, -0.2, 0.5, 0.1, 0.7];
    let rec = record(&x, |v| {
        let (a, b) = join(|| statements(v), || statement([v[0], v[4]], e2));
        vec![a * b]
    });
    assert!(rec.stats().cross_job_edges > 0);
    let f = |v: &[f64]| scalar(v) * e2([v[0], v[4]]);
    let expected = fd::grad(&x, f);
    for options in [ReverseOptions::default(), ReverseOptions::sequential()] {
        let mut g = vec![0.0; 5];
        rec.pullback_into(&[1.0], &options, &mut gradus_tape::Adjoints::new(), &mut g)
            .unwrap();
        compare(&g, &expected, Tolerance::new(1e-6, 1e-6)).unwrap();
    }
}
