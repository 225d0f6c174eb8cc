//! The runner of the pass file tests: every `tests/ir/<pass>/*.ir` file is read, run and
//! checked (`gradus::testspec::ir_file`; docs/internals.md §Pass file tests). The IR is
//! verified after every pass.
//!
//! `GRADUS_BLESS=1` writes each file's actual output as its expected output (the rules and
//! checks must still hold); `GRADUS_IR_TEST=TEXT` runs only the files whose path contains
//! TEXT.

use gradus::testspec::ir_file::{blessed, parse_ir_test, run_ir_test};
use std::path::{Path, PathBuf};

/// Every `.ir` file under `dir`, sorted.
fn ir_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ir") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Runs one file; returns what failed, if anything.
fn run_file(path: &Path, root: &Path, bless: bool) -> Option<String> {
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let test = match parse_ir_test(&text) {
        Ok(t) => t,
        Err(e) => return Some(format!("{shown}: {e}")),
    };
    let outcome = match run_ir_test(&shown, &test) {
        Ok(o) => o,
        Err(e) => return Some(format!("{shown}: {e}")),
    };
    let mut failures = outcome.failures;
    if bless {
        let new = blessed(&text, &test, &outcome.output);
        if new != text {
            std::fs::write(path, new).unwrap();
            eprintln!("blessed {shown}");
        }
        failures.retain(|f| !f.starts_with("the output differs") && !f.starts_with("no expected"));
    }
    if failures.is_empty() {
        return None;
    }
    Some(format!(
        "{shown}:\n  {}\n  rules fired: {:?}\n{}",
        failures.join("\n  "),
        outcome.fired,
        outcome.output
    ))
}

#[test]
fn pass_file_tests() {
    gradus::pipeline::passes::verify_every_pass();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ir");
    let bless = env_set("GRADUS_BLESS");
    let only = std::env::var("GRADUS_IR_TEST").unwrap_or_default();
    let files: Vec<_> = ir_files(&root)
        .into_iter()
        .filter(|p| p.display().to_string().contains(&only))
        .collect();
    assert!(
        only.is_empty() || !files.is_empty(),
        "no file matches {only}"
    );
    let failed: Vec<String> = files
        .iter()
        .filter_map(|p| run_file(p, &root, bless))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} pass file tests failed (GRADUS_BLESS=1 updates expected outputs):\n\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}
