//! The generated C under AddressSanitizer and UndefinedBehaviorSanitizer: the programs of
//! `tests/programs` are compiled with `-fsanitize=address,undefined -fno-sanitize-recover=all`
//! (and `-Wall -Wextra -Werror`), run on every case, and their results compared with the
//! interpreter's as in `backend_diff`. A sanitizer report aborts the run.
//!
//! An ASan-instrumented library cannot be loaded into an uninstrumented process unless the ASan
//! runtime comes first, so the test runs itself again in a child process with the runtime
//! (`cc -print-file-name=libasan.so`) in `LD_PRELOAD`; the child does the work and the parent
//! checks that it exited cleanly, showing its output otherwise. Leak detection is off: a call
//! that fails with a run-time error abandons its buffers by design (see `backend::c`).
//!
//! **A subset, to stay fast**: each program is compiled once, the programs alternately on `c`
//! and on `multicore` (2 threads) in corpus order, so both code paths are covered by half the
//! corpus each; compiling with the sanitizers dominates (~0.3 s a program). Set
//! `GRADUS_SANITIZE_ALL=1` to run every program on both backends. Without gcc's ASan runtime
//! the test fails rather than pass silently.

use std::path::{Path, PathBuf};
use std::process::Command;

const CHILD: &str = "GRADUS_SANITIZE_CHILD";

/// This test's name as the test harness knows it: its module path without the binary's name.
fn test_name() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    format!("{module}::corpus_runs_clean_under_address_and_undefined_sanitizers")
}

fn asan_runtime(cc: &str) -> Option<PathBuf> {
    let out = Command::new(cc)
        .arg("-print-file-name=libasan.so")
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && p.is_absolute() && p.exists()).then_some(p)
}

/// Reads one element past the end of an array with the checks off: the sanitizer must report it.
fn canary() {
    use gradus::backend::c::NativeOptions;
    use gradus::program::{Backend, Program};
    let src = "entry main (xs: []i64) (i: i64) : i64 = xs[i]";
    let p = Program::from_source("canary.fut", src)
        .map_err(|d| d.one_line())
        .and_then(|p| {
            p.with_backend(Backend::Native(NativeOptions {
                multicore: false,
                threads: None,
                safe: false,
                gpu: false,
            }))
            .map_err(|e| e.to_string())
        })
        .unwrap();
    let args = gradus::data::read_values(b"[1i64, 2i64, 3i64] 3i64").unwrap();
    let r = p.call("main", args);
    println!("the out-of-bounds read went unnoticed: {r:?}");
}

fn child() {
    let all = std::env::var_os("GRADUS_SANITIZE_ALL").is_some_and(|v| v == "1");
    let files = crate::common::corpus();
    let jobs: Vec<(PathBuf, Vec<bool>)> = files
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            (
                f,
                if all {
                    vec![false, true]
                } else {
                    vec![i % 2 == 1]
                },
            )
        })
        .collect();
    let problems = crate::common::run_parallel(&jobs, |(f, modes)| {
        // Printed first so that a sanitizer report (which aborts) can be attributed.
        eprintln!("sanitize: {} {modes:?}", f.display());
        crate::common::check_program(f, modes, false)
    });
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn corpus_runs_clean_under_address_and_undefined_sanitizers() {
    if let Ok(what) = std::env::var(CHILD) {
        // The runtime is loaded now; the C compiler this process starts must not carry it
        // (instrumenting cc1, as and ld makes them several times slower).
        // SAFETY: no other thread of this process runs yet (the harness runs one test, and
        // the workers start later).
        unsafe { std::env::remove_var("LD_PRELOAD") };
        return if what == "canary" { canary() } else { child() };
    }
    let Some((cc, version)) = gradus::backend::c::build::find_compiler() else {
        panic!(
            "NO C COMPILER FOUND: the native backends cannot be tested. Install gcc or clang, or \
             set CC."
        );
    };
    let Some(asan) = asan_runtime(&cc) else {
        panic!(
            "{cc} ({version}) has no shared AddressSanitizer runtime (libasan.so): the sanitizer \
             test needs gcc's (install libasan, or set CC to a gcc that has it)"
        );
    };
    let run = |what: &str| {
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                test_name().as_str(),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, what)
            .env("LD_PRELOAD", &asan)
            .env("ASAN_OPTIONS", "detect_leaks=0")
            .env("UBSAN_OPTIONS", "print_stacktrace=1")
            .env(
                "CFLAGS",
                "-O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all -Wall -Wextra \
                 -Werror -DGR_PAR_MIN_WORK=0 -DGR_PAR_CHUNK_MIN_WORK=0",
            )
            .env(
                "GRADUS_CACHE_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("gradus-sanitize-cache"),
            )
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status, text)
    };
    // The sanitizers are live: a deliberate overflow is caught.
    let (status, text) = run("canary");
    assert!(
        !status.success() && text.contains("AddressSanitizer: heap-buffer-overflow"),
        "the sanitized build did not catch an out-of-bounds read ({status}):\n{text}"
    );
    let (status, text) = run("corpus");
    let ran = text.matches("sanitize: ").count();
    let tail: String = {
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(150)..].join("\n")
    };
    assert!(
        status.success() && text.contains("1 passed"),
        "the sanitized run failed ({status}) after starting {ran} programs:\n{tail}"
    );
    assert!(ran > 100, "only {ran} programs were run:\n{tail}");
}
