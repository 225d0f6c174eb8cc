//! The compiler's partial derivatives of the primitives (`ad/derivatives.rs`, through forward
//! mode) against `gradus_num::rules`, the table the Rust engines use: at every rule of
//! `gradus_num::rules::UNARY` and `BINARY` that is a primitive of the language, values and
//! partials agree at points inside the rule's test domain and at the kinks, where both follow
//! the conventions of docs/language.md §Partial derivatives. The rules that are not
//! primitives are listed, so that a new rule must be tied or listed.

use gradus::program::Program;
use gradus::value::{Scalar, Value};
use gradus_num::rules::{BINARY, UNARY};

/// Rules of `gradus_num` with no primitive of the language behind them.
const NOT_PRIMITIVES: &[&str] = &["exp2", "expm1", "square", "powi3", "digamma"];

/// The language's expression for a rule, in the operands `a` and `b`.
fn expression(name: &str) -> Option<String> {
    let op = |o: &str| Some(format!("a {o} b"));
    let call1 = |f: &str| Some(format!("f64.{f} a"));
    let call2 = |f: &str| Some(format!("f64.{f} a b"));
    match name {
        "add" => op("+"),
        "sub" => op("-"),
        "mul" => op("*"),
        "div" => op("/"),
        "powf" => op("**"),
        "rem" => op("%"),
        "atan2" | "hypot" | "min" | "max" | "copysign" => call2(name),
        "ln" => call1("log"),
        n if NOT_PRIMITIVES.contains(&n) => None,
        n => call1(n),
    }
}

/// Points to compare at: a quarter, half and three quarters into the domain.
fn inside(lo: f64, hi: f64) -> [f64; 3] {
    [0.25, 0.5, 0.75].map(|t| lo + t * (hi - lo))
}

/// The kinks of the binary rules (docs/language.md §Partial derivatives).
fn binary_kinks(name: &str) -> Vec<(f64, f64)> {
    match name {
        "min" | "max" => vec![(1.5, 1.5), (0.0, 0.0), (-2.0, -2.0)],
        "hypot" => vec![(0.0, 0.0), (0.0, 2.0)],
        "powf" => vec![(0.0, 2.0), (0.0, 1.0)],
        "copysign" => vec![
            (1.5, 0.0),
            (-1.5, 0.0),
            (1.5, -0.0),
            (0.0, 1.0),
            (0.0, -1.0),
        ],
        _ => Vec::new(),
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn f64_of(v: &Value) -> f64 {
    match v {
        Value::Scalar(Scalar::F64(x)) => *x,
        other => panic!("not an f64: {other:?}"),
    }
}

#[test]
fn the_compilers_partials_match_gradus_num_at_every_primitive() {
    gradus::pipeline::passes::verify_every_pass();
    let mut source = String::new();
    let mut expected: Vec<(String, f64, f64, [f64; 3])> = Vec::new();
    for r in UNARY {
        let Some(e) = expression(r.name) else {
            continue;
        };
        let mut points: Vec<f64> = inside(r.domain.0, r.domain.1).to_vec();
        points.extend_from_slice(r.kinks);
        for x in points {
            let (v, d) = (r.rule)(x);
            expected.push((r.name.to_string(), x, 0.0, [v, d, 0.0]));
        }
        source.push_str(&entry(r.name, &e));
    }
    for r in BINARY {
        let Some(e) = expression(r.name) else {
            continue;
        };
        let xs = inside(r.domain_x.0, r.domain_x.1);
        let ys = inside(r.domain_y.0, r.domain_y.1);
        let mut points: Vec<(f64, f64)> = xs
            .iter()
            .zip(ys.iter().rev())
            .map(|(x, y)| (*x, *y))
            .collect();
        points.extend(binary_kinks(r.name));
        for (x, y) in points {
            let (v, dx, dy) = (r.rule)(x, y);
            expected.push((r.name.to_string(), x, y, [v, dx, dy]));
        }
        source.push_str(&entry(r.name, &e));
    }
    let tied: std::collections::BTreeSet<_> = expected.iter().map(|e| e.0.clone()).collect();
    let all = UNARY
        .iter()
        .map(|r| r.name)
        .chain(BINARY.iter().map(|r| r.name));
    for name in all {
        assert!(
            tied.contains(name) || NOT_PRIMITIVES.contains(&name),
            "{name}: neither tied nor listed"
        );
    }
    let prog = Program::from_source("partials.fut", &source)
        .unwrap_or_else(|d| panic!("{}\n{source}", d.render()));
    let mut wrong = Vec::new();
    for (name, x, y, want) in &expected {
        let args = vec![Value::from(Scalar::F64(*x)), Value::from(Scalar::F64(*y))];
        let got = prog
            .call(&format!("d_{name}"), args)
            .unwrap_or_else(|e| panic!("{name} at ({x}, {y}): {e:?}"));
        let got: Vec<f64> = got.iter().map(f64_of).collect();
        if !(0..3).all(|i| same(got[i], want[i])) {
            wrong.push(format!(
                "{name} at ({x}, {y}): compiler (value, ∂a, ∂b) = {got:?}, gradus_num = {want:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(tied.len() > 30, "{tied:?}");
}

/// An entry point returning the value and both partials of `e` (a unary rule ignores `b`).
fn entry(name: &str, e: &str) -> String {
    format!(
        "entry d_{name} (a: f64) (b: f64) : (f64, f64, f64) =\n  \
         let f (a: f64, b: f64) = {e}\n  \
         in (f (a, b), jvp f (a, b) (1.0, 0.0), jvp f (a, b) (0.0, 1.0))\n"
    )
}
