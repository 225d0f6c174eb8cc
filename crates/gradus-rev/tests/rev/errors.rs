//! One run-time test per `InvertibilityErrorKind` (docs/reversible.md §Examples and tests): kind,
//! function, direction and line.

use gradus_rev::prelude::*;

#[reversible]
fn leaky(y: &mut f64, x: &mut f64) {
    let mut t = 0.0;
    t += x;
    y += t;
}

#[reversible]
fn branchy(x: &mut i64, flag: &mut bool) {
    if (x < 0, flag) {
        NEG(x);
    }
}

#[reversible]
fn bad_while_entry(n: &mut u64) {
    while (n < 5, n != 0) {
        INC(n);
    }
}

#[reversible]
fn bad_while_step(n: &mut u64, m: &mut u64) {
    while (n < 5, m != 0) {
        INC(n);
    }
}

#[reversible]
fn aliasing(x: &mut [f64], i: usize, j: usize) {
    x[i] += x[j];
}

#[reversible]
fn log_zero(y: &mut ULog<f64>, x: &mut ULog<f64>) {
    y *= x;
}

#[reversible(checks = off)]
fn leaky_unchecked(y: &mut f64, x: &mut f64) {
    let mut t = 0.0;
    t += x;
    y += t;
}

#[reversible]
fn leaky_block(y: &mut f64, x: &mut f64) {
    unchecked! {
        let mut t = 0.0;
        t += x;
        y += t;
    }
}

#[test]
fn ancilla_not_restored() {
    let (mut y, mut x) = (0.0, 2.5);
    let e = leaky(&mut y, &mut x).unwrap_err();
    assert_eq!(e.function, "leaky");
    assert_eq!(e.direction, Direction::Forward);
    assert_eq!(e.line, 8); // the implicit release is located at the allocation
    match &e.kind {
        InvertibilityErrorKind::AncillaNotRestored {
            name,
            found,
            expected,
            ..
        } => {
            assert_eq!(*name, "t");
            assert_eq!(found, "2.5");
            assert_eq!(expected, "0.0");
        }
        k => panic!("{k:?}"),
    }
    let text = e.to_string();
    assert!(
        text.contains("`leaky`") && text.contains("ancilla `t`") && text.contains("2.5"),
        "{text}"
    );
    // Checks off at function level and in a block: no error.
    assert!(leaky_unchecked(&mut y, &mut x).is_ok());
    assert!(leaky_block(&mut y, &mut x).is_ok());
}

#[test]
fn branch_condition_changed() {
    let (mut x, mut flag) = (-3i64, false);
    let e = branchy(&mut x, &mut flag).unwrap_err();
    assert_eq!(
        e.kind,
        InvertibilityErrorKind::BranchConditionChanged {
            before: true,
            after: false
        }
    );
    assert_eq!(
        (e.function, e.direction, e.line),
        ("branchy", Direction::Forward, 15)
    );
    // In the inverse, the roles of the conditions swap.
    let (mut x, mut flag) = (-3i64, true);
    let e = branchy_inv(&mut x, &mut flag).unwrap_err();
    assert_eq!(e.direction, Direction::Inverse);
    assert!(e.to_string().contains("branchy_inv"));
}

#[test]
fn while_errors() {
    let mut n = 3u64;
    let e = bad_while_entry(&mut n).unwrap_err();
    assert_eq!(
        e.kind,
        InvertibilityErrorKind::WhilePostconditionTrueOnEntry
    );
    assert_eq!(e.line, 22);
    let (mut n, mut m) = (0u64, 0u64);
    let e = bad_while_step(&mut n, &mut m).unwrap_err();
    assert_eq!(
        e.kind,
        InvertibilityErrorKind::WhilePostconditionFalseAfterIteration { iteration: 1 }
    );
}

#[reversible]
fn grows(v: &mut Vec<u64>, k: &mut Vec<usize>) {
    for i in 0..k[0] {
        v[i] += 1;
        INC(k[0]);
    }
}

#[test]
fn loop_range_changed() {
    let (mut v, mut k) = (vec![0u64; 10], vec![2usize]);
    let e = grows(&mut v, &mut k).unwrap_err();
    match e.kind {
        InvertibilityErrorKind::LoopRangeChanged { before, after } => {
            assert_eq!(before, (0, 1, 2));
            assert_eq!(after, (0, 1, 4));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn aliasing_is_detected_at_run_time() {
    let mut x = vec![1.0, 2.0];
    aliasing(&mut x, 0, 1).unwrap();
    assert_eq!(x, [3.0, 2.0]);
    let e = aliasing(&mut x, 1, 1).unwrap_err();
    assert_eq!(e.kind, InvertibilityErrorKind::Aliasing { container: "x" });
    assert_eq!(x, [3.0, 2.0]);
}

#[test]
fn not_invertible_value() {
    let (mut y, mut x) = (ULog::<f64>::one(), ULog::<f64>::zero());
    let e = log_zero(&mut y, &mut x).unwrap_err();
    assert!(matches!(
        e.kind,
        InvertibilityErrorKind::NotInvertibleValue { .. }
    ));
    assert_eq!(e.line, 41);
}
