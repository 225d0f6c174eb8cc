//! The corpus walk shared by the native backend tests: every runnable case of every program of
//! `tests/programs`, run on the interpreter (the oracle) and on a native backend, compared.

use gradus::backend::c::NativeOptions;
use gradus::program::{Backend, CallError, Program};
use gradus::testspec::{Input, generate_random, parse_test_file, random_seed};
use gradus::value::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every `.fut` file of `tests/programs`, sorted.
pub fn corpus() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "fut") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert!(files.len() > 100, "only {} programs found", files.len());
    files
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

/// Runs one program on the native backend in each of `modes` (`false`: `c`, `true`:
/// `multicore` on 2 threads) and, with `oracle`, on the interpreter; the list of
/// disagreements (without `oracle`: of programs that do not compile).
pub fn check_program(path: &Path, modes: &[bool], oracle: bool) -> Vec<String> {
    let name = path.display().to_string();
    let source = std::fs::read_to_string(path).unwrap();
    let Ok(first) = Program::from_source(&name, &source) else {
        // Programs the front end rejects are the corpus test's business.
        return Vec::new();
    };
    // Without an oracle the front end's result serves the first native backend.
    let (interp, mut spare) = if oracle {
        (Some(first), None)
    } else {
        (None, Some(first))
    };
    let cases = cases(path, &name, &source);
    let mut problems = Vec::new();
    for &multicore in modes {
        let backend = if multicore { "multicore" } else { "c" };
        let native = match spare
            .take()
            .map_or_else(|| Program::from_source(&name, &source), Ok)
            .map_err(|d| d.one_line())
            .and_then(|p| {
                p.with_backend(Backend::Native(NativeOptions {
                    multicore,
                    threads: Some(2),
                    safe: true,
                    gpu: false,
                }))
                .map_err(|e| e.to_string())
            }) {
            Ok(p) => p,
            Err(e) => {
                problems.push(format!("{name} ({backend}): does not compile: {e}"));
                continue;
            }
        };
        let Some(interp) = &interp else {
            for (entry, _, args) in &cases {
                let _ = native.call(entry, args.clone());
            }
            continue;
        };
        for (entry, what, args) in &cases {
            let want = interp.call(entry, args.clone());
            let got = native.call(entry, args.clone());
            let agree = match (&want, &got) {
                (Ok(w), Ok(g)) => gradus::testspec::compare_values(w, g, 1e-9).is_ok(),
                (Err(CallError::Runtime(w)), Err(CallError::Runtime(g))) => {
                    // An out-of-fuel or internal error of the interpreter is not an oracle;
                    // running out of memory is a failure to allocate however it is counted.
                    let no_memory = |e: &gradus::program::RuntimeError| {
                        e.message.starts_with("cannot allocate")
                    };
                    w == g
                        || w.message.starts_with("internal error")
                        || (no_memory(w) && no_memory(g))
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

/// Runs `check` on every job from two threads (the machines the tests run on have two cores
/// and compiling C dominates); all the problems found.
pub fn run_parallel<T: Sync>(jobs: &[T], check: impl Fn(&T) -> Vec<String> + Sync) -> Vec<String> {
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
                    let Some(job) = jobs.get(i) else { break };
                    let p = check(job);
                    problems.lock().unwrap().extend(p);
                }
            });
        }
    });
    problems.into_inner().unwrap()
}
