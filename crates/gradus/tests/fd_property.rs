//! Every forward-mode test program is also checked against finite differences: each entry
//! point with floating-point parameters is differentiated at its test inputs, perturbed
//! randomly (so the check does not depend on the hand-picked points), and compared with
//! central differences (`gradus::check`).

use gradus::check::check_entry;
use gradus::testspec::{Expected, Input, parse_test_file};
use gradus::value::{Array, Buffer, Value};
use gradus_check::SplitMix64;
use std::path::{Path, PathBuf};

/// Maximal `|ad - fd| / max(1, |fd|)` accepted in double precision.
const TOLERANCE: f64 = 1e-4;
/// The same for pairs with an `f32` input or output, where the finite difference itself is
/// only accurate to about 1e-3.
const TOLERANCE_F32: f64 = 2e-2;

fn programs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(programs(&p));
            } else if p.extension().is_some_and(|x| x == "fut") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Moves every float element by a random relative amount of at most 5%, keeping its sign (so
/// domains such as `log x` for `x > 0` are respected and ties of `max` are broken).
fn perturb(v: &Value, rng: &mut SplitMix64) -> Value {
    let mut f = |x: f64| x * (1.0 + rng.uniform(-0.05, 0.05)) + rng.uniform(-1e-3, 1e-3);
    match v {
        Value::Scalar(gradus::value::Scalar::F64(x)) => {
            Value::Scalar(gradus::value::Scalar::F64(f(*x)))
        }
        Value::Scalar(gradus::value::Scalar::F32(x)) => {
            Value::Scalar(gradus::value::Scalar::F32(f(*x as f64) as f32))
        }
        Value::Array(a) => {
            let buf = match a.buffer() {
                Buffer::F64(xs) => Buffer::F64(xs.iter().map(|x| f(*x)).collect()),
                Buffer::F32(xs) => Buffer::F32(xs.iter().map(|x| f(*x as f64) as f32).collect()),
                other => other.clone(),
            };
            Value::Array(Array::new(a.shape().to_vec(), buf).unwrap_or_else(|| a.clone()))
        }
        other => other.clone(),
    }
}

fn has_float_zero(v: &Value) -> bool {
    match v {
        Value::Scalar(s) => s.prim_type().is_float() && s.to_f64() == 0.0,
        Value::Array(a) => match a.buffer() {
            Buffer::F64(xs) => xs.contains(&0.0),
            Buffer::F32(xs) => xs.contains(&0.0),
            _ => false,
        },
    }
}

#[test]
fn forward_derivatives_match_finite_differences() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/ad");
    let files = programs(&root);
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut rng = SplitMix64::new(2026);
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        let Ok(spec) = parse_test_file(&source) else {
            continue;
        };
        let name = path.display().to_string();
        for block in &spec.blocks {
            for case in &block.cases {
                // Cases that expect an error are about the error, not the derivative.
                if matches!(case.expected, Expected::Error(_)) {
                    continue;
                }
                let Input::Values(values, _) = &case.input else {
                    continue;
                };
                if !values.iter().any(|v| v.elem_type().is_float()) {
                    continue;
                }
                // Cases at 0 test the values LANGUAGE.md 10.4 fixes at kinks and
                // singularities (abs, `**`, sqrt), where finite differences mean nothing.
                if values.iter().any(has_float_zero) {
                    continue;
                }
                let args: Vec<Value> = values.iter().map(|v| perturb(v, &mut rng)).collect();
                for entry in &block.entries {
                    match check_entry(&name, &source, entry, &args, 7) {
                        Ok(report) => {
                            checked += 1;
                            if !report.passes(TOLERANCE, TOLERANCE_F32) {
                                failures.push(format!("{name}:{entry}:\n{report}"));
                            }
                        }
                        // Programs the compiler rejects fail in the corpus run already;
                        // entries with opaque types cannot be given values.
                        Err(e) => failures.push(format!("{name}:{entry}: {e}")),
                    }
                }
            }
        }
    }
    println!(
        "checked {checked} (entry, input) pairs in {} programs",
        files.len()
    );
    assert!(
        checked > 0,
        "no derivative was checked under {}",
        root.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
