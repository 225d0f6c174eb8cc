//! Builds and runs `examples/rust-bindings`, a project of its own whose build script compiles
//! `benchmarks/gmm.fut` (multicore) and a program over other element types (one thread) with
//! this crate: their entry points are called on `ndarray` arrays (bool, integers, floats,
//! ranks 0 to 3, several results, a view not in standard layout), the gradient is checked
//! against finite differences and forward mode, and run-time errors carry their messages and
//! locations.
//!
//! The project builds into `target/rust-bindings-example` (its own folder: the workspace's
//! is locked by the running `cargo test`); the first build compiles the compiler for the
//! build script, about two minutes on two cores.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn example_project_builds_and_runs() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("rust-bindings-example");
    let out = Command::new(env!("CARGO"))
        .args(["run", "--release", "--quiet", "--manifest-path"])
        .arg(root.join("examples/rust-bindings/Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the example failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stdout.contains("gradient matches finite differences: true"),
        "{stdout}"
    );
    assert!(stdout.contains("forward mode agrees: true"), "{stdout}");
    assert!(stdout.contains("derived gradient agrees: true"), "{stdout}");
    assert!(
        stdout.contains(
            "Error: value of shape [2][2] cannot match shape of type \"[3][d]f64\".\n  at ../../benchmarks/gmm.fut:67:"
        ),
        "{stdout}"
    );
    assert!(
        !stderr.contains("warning"),
        "the generated code has warnings:\n{stderr}"
    );
}
