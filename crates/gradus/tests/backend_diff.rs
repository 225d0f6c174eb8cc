//! Differential test of the backends: every case of every program of `tests/programs` runs on
//! the interpreter (the oracle), on `c` and on `multicore`, and the native results must agree
//! with the interpreter's: values within the test tolerance (parallel `reduce`/`scan`
//! reassociate), run-time errors with the same message and locations.
//!
//! The generated C is compiled with `-O1 -Wall -Wextra -Werror` (cheap, and it checks that the
//! generated code compiles without warnings); libraries are cached in the target directory, so
//! a second run compiles nothing. Without a C compiler this test fails: it must not pass
//! silently where the native backend cannot be checked.

use gradus::backend::c::NativeOptions;
use gradus::program::{Backend, CallError, Program};
use gradus::testspec::{Input, generate_random, parse_test_file, random_seed};
use gradus::value::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
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

/// The inputs of every runnable case: (entry, case description, values).
fn cases(path: &Path, name: &str, source: &str) -> Vec<(String, String, Vec<Value>)> {
    let Ok(spec) = parse_test_file(source) else {
        return Vec::new();
    };
    let dir = path.parent().unwrap();
    let mut out = Vec::new();
    for b in &spec.blocks {
        for e in &b.entries {
            for c in &b.cases {
                if c.run_tags.iter().any(|t| t == "disable") {
                    continue;
                }
                let values = match &c.input {
                    Input::Values(vs, _) => vs.clone(),
                    Input::File(f) => match gradus::data::read_file(&dir.join(f)) {
                        Ok(vs) => vs,
                        Err(_) => continue,
                    },
                    Input::Random(items) => {
                        let seed = random_seed(0, name, e, b.index, c.index);
                        match generate_random(items, seed, 1 << 24) {
                            Ok(vs) => vs,
                            Err(_) => continue,
                        }
                    }
                    Input::Script(_) => continue,
                };
                out.push((
                    e.clone(),
                    format!("block {} case {}", b.index, c.index),
                    values,
                ));
            }
        }
    }
    out
}

fn describe(r: &Result<Vec<Value>, CallError>) -> String {
    match r {
        Ok(v) => format!("{v:?}").chars().take(400).collect(),
        Err(e) => e.to_string(),
    }
}

/// Compares one program on every backend; the list of disagreements.
fn check_program(path: &Path) -> Vec<String> {
    let name = path.display().to_string();
    let source = std::fs::read_to_string(path).unwrap();
    let Ok(interp) = Program::from_source(&name, &source) else {
        // Programs the front end rejects are the corpus test's business.
        return Vec::new();
    };
    let cases = cases(path, &name, &source);
    let mut problems = Vec::new();
    for multicore in [false, true] {
        let backend = if multicore { "multicore" } else { "c" };
        let native = match Program::from_source(&name, &source)
            .map_err(|d| d.one_line())
            .and_then(|p| {
                p.with_backend(Backend::Native(NativeOptions {
                    multicore,
                    threads: Some(2),
                    safe: true,
                }))
            }) {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("{name} ({backend}): does not compile: {e}"));
                continue;
            }
        };
        for (entry, what, args) in &cases {
            let want = interp.call(entry, args.clone());
            let got = native.call(entry, args.clone());
            let agree = match (&want, &got) {
                (Ok(w), Ok(g)) => gradus::testspec::compare_values(w, g, 1e-9).is_ok(),
                (Err(CallError::Runtime(w)), Err(CallError::Runtime(g))) => {
                    // An out-of-fuel or internal error of the interpreter is not an oracle.
                    w == g || w.message.starts_with("internal error")
                }
                (Err(w), Err(g)) => w.to_string() == g.to_string(),
                _ => false,
            };
            if !agree {
                problems.push(format!(
                    "{name}:{entry} {what} ({backend}):\n  interpreter: {}\n  {backend}: {}",
                    describe(&want),
                    describe(&got)
                ));
            }
        }
    }
    problems
}

#[test]
fn every_program_agrees_on_every_backend() {
    let Some((cc, version)) = gradus::backend::c::build::find_compiler() else {
        panic!(
            "NO C COMPILER FOUND: the native backends cannot be tested. Install gcc or clang, or \
             set CC."
        );
    };
    eprintln!("native backend tests use {cc} ({version})");
    // SAFETY: set before any thread of this test binary reads the environment (this is the
    // only test in the binary).
    unsafe {
        std::env::set_var("CFLAGS", "-O1 -Wall -Wextra -Werror");
        std::env::set_var(
            "GRADUS_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("gradus-cache"),
        );
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut files = Vec::new();
    programs(&root, &mut files);
    assert!(files.len() > 100, "only {} programs found", files.len());
    let next = Mutex::new(0usize);
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(f) = files.get(i) else { break };
                    let p = check_program(f);
                    problems.lock().unwrap().extend(p);
                }
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
