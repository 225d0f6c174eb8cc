//! Every forward-mode test program is also checked against finite differences: each entry
//! point with floating-point parameters is differentiated at its test inputs, perturbed
//! randomly (so the check does not depend on the hand-picked points), and compared with
//! central differences (`gradus::check`). Every entry of every AD test program (forward,
//! reverse, Hessians) is also differentiated in reverse mode at its first test input and
//! checked by the transposition identity `<vjp f x ybar, xdot> = <ybar, jvp f x xdot>` and
//! against finite differences (`gradus::derivative_check::check_vjp`). The IR is verified after
//! every pass of every compilation.

use gradus::derivative_check::{check_jvp, check_vjp};
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

/// A generator for one program's perturbations, seeded by its path, so that adding a program
/// does not move the points at which the others are checked.
fn program_rng(root: &Path, path: &Path, salt: u64) -> SplitMix64 {
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let hash = rel.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    SplitMix64::new(hash ^ salt)
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
    gradus::pipeline::passes::verify_every_pass();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/ad");
    let files = programs(&root);
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in &files {
        let mut rng = program_rng(&root, path, 2026);
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
                // Cases at 0 test the values docs/language.md §Partial derivatives fixes at kinks
                // and singularities (abs, `**`, sqrt), where finite differences mean nothing.
                if values.iter().any(has_float_zero) {
                    continue;
                }
                let args: Vec<Value> = values.iter().map(|v| perturb(v, &mut rng)).collect();
                for entry in &block.entries {
                    match check_jvp(&name, &source, entry, &args, 7) {
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

#[test]
fn reverse_derivatives_match_forward_ones_and_finite_differences() {
    gradus::pipeline::passes::verify_every_pass();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/ad");
    let files = programs(&root);
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut unsupported = std::collections::BTreeSet::new();
    for path in &files {
        let mut rng = program_rng(&root, path, 2027);
        let source = std::fs::read_to_string(path).unwrap();
        let Ok(spec) = parse_test_file(&source) else {
            continue;
        };
        let name = path.display().to_string();
        let short = path.strip_prefix(&root).unwrap().display().to_string();
        for block in &spec.blocks {
            // The first usable case of each block: one point per entry keeps the run short.
            let case = block.cases.iter().find(|case| {
                !matches!(case.expected, Expected::Error(_))
                    && matches!(&case.input, Input::Values(values, _)
                        if values.iter().any(|v| v.elem_type().is_float())
                            && !values.iter().any(has_float_zero))
            });
            let Some(case) = case else {
                continue;
            };
            let Input::Values(values, _) = &case.input else {
                continue;
            };
            let args: Vec<Value> = values.iter().map(|v| perturb(v, &mut rng)).collect();
            for entry in &block.entries {
                match check_vjp(&name, &source, entry, &args, 11) {
                    Ok(report) => {
                        checked += 1;
                        if !report.passes(TOLERANCE, TOLERANCE_F32) {
                            failures.push(format!("{name}:{entry}:\n{report}"));
                        }
                    }
                    Err(e) if e.to_string().contains("not supported yet") => {
                        unsupported.insert(format!("{short}:{entry}"));
                    }
                    Err(e) => failures.push(format!("{name}:{entry}: {e}")),
                }
            }
        }
    }
    println!(
        "checked {checked} entries in {} programs; {} entries need reverse-mode AD of a \
         construct it does not support yet",
        files.len(),
        unsupported.len()
    );
    assert!(
        checked > 0,
        "no derivative was checked under {}",
        root.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The entries whose reverse-mode derivative is not supported yet are listed, so that a new
    // gap fails this test and a closed one must be taken off the list.
    let listed: std::collections::BTreeSet<String> = REVERSE_GAPS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let new: Vec<_> = unsupported.difference(&listed).collect();
    let closed: Vec<_> = listed.difference(&unsupported).collect();
    assert!(
        new.is_empty() && closed.is_empty(),
        "reverse-mode gaps changed; update crates/gradus/tests/ad/reverse_gaps.txt\nnew gaps: {new:#?}\nno longer gaps: {closed:#?}"
    );
}

/// Entries (path under `tests/programs/ad`, entry name) whose derivative needs reverse-mode AD
/// of a construct that is not supported yet, most of them `vjp` of an entry that already
/// uses `vjp`.
const REVERSE_GAPS: &str = include_str!("reverse_gaps.txt");
