//! Runs `gradus test --verify tests/programs` on the whole program corpus with the
//! interpreter and with the `gpu` backend, the core IR verified after every pass, and expects
//! every case to pass (skips are fine). The `c` and `multicore` backends run the same corpus
//! in `crates/gradus/tests/backend_diff.rs`.
//!
//! The `gpu` run needs an OpenCL device (POCL runs the kernels on the CPU: Debian's
//! `pocl-opencl-icd`); without one it is skipped with a notice, unless `GRADUS_REQUIRE_GPU`
//! is set (as continuous integration does), when it fails.

use std::path::Path;
use std::process::Command;

#[test]
fn corpus_passes() {
    corpus_passes_on("interp", "tests/programs", &[]);
}

#[test]
fn corpus_passes_on_gpu() {
    if std::env::var_os("GRADUS_REQUIRE_GPU").is_none()
        && let Some(why) = no_gpu()
    {
        eprintln!("corpus_passes_on_gpu: skipped: {why}");
        return;
    }
    corpus_passes_on("gpu", "tests/programs", &[]);
}

/// The derivatives of the corpus on the `gpu` backend with every parallel loop that holds
/// loops that can be kernels run the other way: its iterations on the host, each launching
/// the inner loops (`GRADUS_GPU_MIN_OUTER`, which the default leaves at 0).
#[test]
fn corpus_derivatives_pass_on_gpu_with_inner_kernels() {
    if std::env::var_os("GRADUS_REQUIRE_GPU").is_none()
        && let Some(why) = no_gpu()
    {
        eprintln!("corpus_derivatives_pass_on_gpu_with_inner_kernels: skipped: {why}");
        return;
    }
    let env = [("GRADUS_GPU_MIN_OUTER", "1000000000")];
    corpus_passes_on("gpu", "tests/programs/ad", &env);
}

/// Why the `gpu` backend cannot run here, if it cannot.
fn no_gpu() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .current_dir(&root)
        .args([
            "test",
            "--backend",
            "gpu",
            "tests/programs/basics/arrays.fut",
        ])
        .output()
        .expect("cannot run gradus");
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find(|l| l.contains("OpenCL") && !l.contains("internal error"))
        .map(|l| l.trim().to_string())
}

fn corpus_passes_on(backend: &str, dir: &str, env: &[(&str, &str)]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .current_dir(&root)
        .args(["test", "--verify", "--backend", backend, dir])
        .envs(env.iter().copied())
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
