//! The optimiser changes no result: every entry point of every program of the corpus
//! (`tests/programs`, all subdirectories) is run on its test inputs with the optimiser on and
//! off, and again on random inputs of the same types and shapes, and the results are compared
//! (within the corpus tolerance; the optimiser's float rules are exact on finite values).
//!
//! A case that fails without optimisation must fail with it too; the converse is not required,
//! since the optimiser may remove a failing computation whose result is never used.

use gradus::opt::OptOptions;
use gradus::program::{CallError, Program};
use gradus::testspec::{
    DEFAULT_TOLERANCE, Input, RandomItem, compare_values, generate_random, parse_test_file,
};
use gradus::value::Value;
use std::path::{Path, PathBuf};

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            programs(&p, out);
        } else if p.extension().is_some_and(|e| e == "fut") {
            out.push(p);
        }
    }
}

/// Random values with the element types and shapes of `vs` (scalars of integer type keep
/// their value: they are often sizes or indices).
fn random_like(vs: &[Value], seed: u64) -> Option<Vec<Value>> {
    let items: Vec<RandomItem> = vs
        .iter()
        .map(|v| match v {
            Value::Scalar(s) if !s.prim_type().is_float() => RandomItem::Literal(v.clone()),
            _ => RandomItem::Generate {
                elem: v.elem_type(),
                shape: v.shape().to_vec(),
            },
        })
        .collect();
    generate_random(&items, seed, 1 << 16).ok()
}

fn outcome(p: &Program, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, String> {
    p.call(entry, args).map_err(|e| match e {
        CallError::Runtime(r) => r.message,
        other => other.to_string(),
    })
}

#[test]
fn corpus_gives_the_same_results_with_and_without_optimisation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut files = Vec::new();
    programs(&root, &mut files);
    assert!(files.len() > 40, "corpus not found at {}", root.display());
    let mut compared = 0usize;
    let mut failures = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        let Ok(spec) = parse_test_file(&source) else {
            continue;
        };
        let name = file.display().to_string();
        let on = Program::from_source(&name, &source);
        let off = Program::from_source_with(&name, &source, &OptOptions::off());
        let (on, off) = match (on, off) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(_), Err(_)) => continue,
            (Ok(_), Err(_)) => continue,
            (Err(d), Ok(_)) => {
                failures.push(format!(
                    "{name}: compiles only without optimisation: {}",
                    d.render()
                ));
                continue;
            }
        };
        if let Err(e) = gradus::core::verify::verify(on.core()) {
            failures.push(format!("{name}: optimised IR does not verify: {e}"));
        }
        let dir = file.parent().unwrap();
        for block in &spec.blocks {
            for entry in &block.entries {
                for case in &block.cases {
                    let inputs = match &case.input {
                        Input::Values(vs, _) => vs.clone(),
                        Input::File(f) => match gradus::data::read_file(&dir.join(f)) {
                            Ok(vs) => vs,
                            Err(_) => continue,
                        },
                        Input::Random(items) => {
                            match generate_random(items, case.line as u64, 1 << 16) {
                                Ok(vs) => vs,
                                Err(_) => continue,
                            }
                        }
                        Input::Script(_) => continue,
                    };
                    let mut runs = vec![inputs.clone()];
                    if let Some(r) = random_like(&inputs, 17 + case.line as u64) {
                        runs.push(r);
                    }
                    for (k, args) in runs.into_iter().enumerate() {
                        let what = format!("{name}:{entry} case {} run {k}", case.index);
                        let expected = outcome(&off, entry, args.clone());
                        let actual = outcome(&on, entry, args);
                        compared += 1;
                        match (expected, actual) {
                            (Ok(e), Ok(a)) => {
                                if let Err(m) = compare_values(&e, &a, DEFAULT_TOLERANCE) {
                                    failures.push(format!("{what}: {m}"));
                                }
                            }
                            (Ok(_), Err(m)) => {
                                failures.push(format!("{what}: fails only when optimised: {m}"))
                            }
                            (Err(m), Ok(_)) if k == 0 => {
                                // Expected errors of the corpus must survive optimisation.
                                if matches!(&case.expected, gradus::testspec::Expected::Error(_)) {
                                    failures.push(format!(
                                        "{what}: the expected error `{m}` disappeared"
                                    ));
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 500, "only {compared} runs compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
