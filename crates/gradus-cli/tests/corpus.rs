//! Runs `gradus test --verify tests/programs` on the whole program corpus with the
//! interpreter, the core IR verified after every pass, and expects every case to pass (skips
//! are fine). The native backends run the same corpus in
//! `crates/gradus/tests/backend_diff.rs`.

use std::path::Path;
use std::process::Command;

#[test]
fn corpus_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .current_dir(&root)
        .args(["test", "--verify", "--backend", "interp", "tests/programs"])
        .output()
        .expect("cannot run gradus");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stdout.lines().last().unwrap_or("");
    let summary = regex::Regex::new(
        r"^gradus test: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) errors, ([0-9]+) skipped$",
    )
    .unwrap();
    let caps = summary
        .captures(last)
        .unwrap_or_else(|| panic!("no summary line:\n{stdout}\n{stderr}"));
    assert_eq!(&caps[2], "0", "failures:\n{stdout}");
    assert_eq!(&caps[3], "0", "errors:\n{stdout}");
    assert!(caps[1].parse::<usize>().unwrap() > 100, "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
}
