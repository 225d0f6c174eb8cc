//! Helpers: run an eval function through the library and compare derivatives with finite
//! differences.

#![allow(dead_code)]

use serde_json::Value;

/// Runs `module::function` once on `input` and returns its output.
pub fn run(module: &str, function: &str, input: &Value) -> Value {
    let mut input = input.clone();
    if let Some(o) = input.as_object_mut() {
        o.insert("min_runs".into(), 1.into());
        o.insert("min_seconds".into(), 0.into());
    }
    let (out, ns) = gradbench_tape::evaluate(module, function, &input)
        .unwrap_or_else(|e| panic!("{module}::{function}: {e}"));
    assert!(!ns.is_empty());
    out
}

/// All numbers of a JSON value, depth first.
pub fn numbers(v: &Value) -> Vec<f64> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<f64>) {
        match v {
            Value::Number(n) => out.push(n.as_f64().unwrap()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut out);
    out
}

/// Replaces the numbers of `v`, depth first, by `xs` (same order as [`numbers`]).
pub fn with_numbers(v: &Value, xs: &[f64]) -> Value {
    fn walk(v: &Value, xs: &mut std::slice::Iter<f64>) -> Value {
        match v {
            Value::Number(_) => Value::from(*xs.next().unwrap()),
            Value::Array(a) => Value::Array(a.iter().map(|x| walk(x, xs)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), walk(x, xs))).collect())
            }
            other => other.clone(),
        }
    }
    walk(v, &mut xs.iter())
}

/// Asserts `a ≈ b` elementwise, relative to max(1, |a| + |b|).
pub fn assert_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "lengths differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let err = (x - y).abs() / (x.abs() + y.abs()).max(1.0);
        assert!(
            err <= tol,
            "element {i}: {x} vs {y} (relative error {err:e})"
        );
    }
}
