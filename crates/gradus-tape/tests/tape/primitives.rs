//! Every elementary function's partials on the tape, walked from the shared rule table, against
//! the rule itself, forward mode and central finite differences (away from kinks).

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_num::Real;
use gradus_num::rules::{BINARY, UNARY, apply_binary, apply_unary};
use gradus_tape::{Var, grad};

#[test]
fn unary_partials_on_the_tape() {
    let mut rng = SplitMix64::new(21);
    for rule in UNARY {
        for x in rng.vector_avoiding(10, rule.domain.0, rule.domain.1, rule.kinks, 0.05) {
            let (v, p) = (rule.rule)(x);
            let (y, g) = grad(&[x], |t| apply_unary(rule.name, t[0]).unwrap());
            assert_eq!(y, v, "{} value", rule.name);
            assert_eq!(
                y,
                apply_unary(rule.name, x).unwrap(),
                "{} value against f64",
                rule.name
            );
            assert_eq!(g[0], p, "{} partial against the table", rule.name);
            let fd = fd::grad(&[x], |t| apply_unary(rule.name, t[0]).unwrap());
            compare(&g, &fd, Tolerance::new(1e-6, 1e-5))
                .unwrap_or_else(|m| panic!("{} at {x}: {m}", rule.name));
        }
    }
}

#[test]
fn binary_partials_on_the_tape() {
    let mut rng = SplitMix64::new(22);
    for rule in BINARY {
        for _ in 0..10 {
            let x = rng.uniform(rule.domain_x.0, rule.domain_x.1);
            let y = rng.uniform(rule.domain_y.0, rule.domain_y.1);
            let (v, px, py) = (rule.rule)(x, y);
            let (out, g) = grad(&[x, y], |t| apply_binary(rule.name, t[0], t[1]).unwrap());
            assert_eq!(out, v, "{} value", rule.name);
            assert_eq!(g, vec![px, py], "{} partials", rule.name);
            let fd = fd::grad(&[x, y], |t| apply_binary(rule.name, t[0], t[1]).unwrap());
            compare(&g, &fd, Tolerance::new(1e-6, 1e-5))
                .unwrap_or_else(|m| panic!("{} at ({x}, {y}): {m}", rule.name));
            // Mixed with constants on either side.
            let (_, gx) = grad(&[x], |t| {
                apply_binary(rule.name, t[0], Var::constant(y)).unwrap()
            });
            let (_, gy) = grad(&[y], |t| {
                apply_binary(rule.name, Var::constant(x), t[0]).unwrap()
            });
            assert_eq!((gx[0], gy[0]), (px, py), "{} with a constant", rule.name);
        }
    }
}

#[test]
fn kink_conventions_on_the_tape() {
    assert_eq!(grad(&[0.0], |x| x[0].abs()).1, vec![0.0]);
    assert_eq!(grad(&[0.0], |x| x[0].sqrt()).1, vec![0.0]);
    // Ties select the first operand.
    assert_eq!(grad(&[1.0, 1.0], |x| x[0].max(x[1])).1, vec![1.0, 0.0]);
    assert_eq!(grad(&[1.0, 1.0], |x| x[1].min(x[0])).1, vec![0.0, 1.0]);
    // Rounding functions are constants.
    assert_eq!(grad(&[2.5], |x| x[0].floor() * x[0]).1, vec![2.0]);
    // f64 on either side, compound assignment.
    let (y, g) = grad(&[2.0], |x| {
        let mut v = 1.0 / x[0] + (3.0 - x[0]) * 2.0;
        v *= x[0];
        v -= 1.0;
        v /= 2.0;
        v
    });
    // v = ((1/x + 6 - 2x) x - 1) / 2 = (1 + 6x - 2x² - 1)/2 = 3x - x².
    assert_eq!(y, 2.0);
    assert_eq!(g, vec![3.0 - 4.0]);
}
