//! Differential test of the backends: every case of every program of `tests/programs` runs on
//! the interpreter (the oracle), on `c` and on `multicore`, and the native results must agree
//! with the interpreter's: values within the test tolerance (parallel `reduce`/`scan`
//! reassociate), run-time errors with the same message and locations.
//!
//! The generated C is compiled with `-O1` and warnings as errors (`STRICT_WARNINGS`; cheap, and it checks that the
//! generated code compiles without warnings); libraries are cached in the target directory, so
//! a second run compiles nothing. Without a C compiler this test fails: it must not pass
//! silently where the native backend cannot be checked.

#[path = "backend/common.rs"]
mod backend_common;

use std::path::Path;

#[test]
fn every_program_agrees_on_every_backend() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    gradus::pipeline::passes::verify_every_pass();
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
        std::env::set_var(
            "CFLAGS",
            format!(
                "-O1 {} -DGR_PAR_MIN_WORK=0 -DGR_PAR_CHUNK_MIN_WORK=0",
                gradus::backend::c::build::STRICT_WARNINGS
            ),
        );
        std::env::set_var(
            "GRADUS_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("gradus-cache"),
        );
    }
    let files = backend_common::corpus();
    let problems = backend_common::run_parallel(&files, |f| {
        backend_common::check_program(f, &[false, true], true)
    });
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
