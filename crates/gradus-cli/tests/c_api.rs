//! `gradus c`: the library, its C API and the example caller, compiled and run with the C
//! compiler (skipped when there is none).

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gradus-c-api-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `gradus c PROGRAM -o OUT`, asserting success.
fn gradus_c(program: &Path, out: &Path) {
    gradus_c_with(program, out, &[]);
}

/// Runs `gradus c PROGRAM -o OUT` with more options, asserting success.
fn gradus_c_with(program: &Path, out: &Path, options: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .arg("c")
        .args(options)
        .arg(program)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "gradus c failed:\n{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

fn cc() -> Option<String> {
    gradus::backend::c::build::find_compiler().map(|(cc, _)| cc)
}

#[test]
fn the_example_caller_of_gmm_runs() {
    if cc().is_none() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let out = scratch("gmm");
    let gmm = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/gmm.fut");
    gradus_c(&gmm, &out);
    let o = Command::new(out.join("example")).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    // The objective on the test block's first input, data/gmm_test.in.
    assert!(
        text(&o.stdout).contains("result 0: 8.07380408"),
        "{}",
        text(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_example_caller_of_gmm_runs_on_the_gpu_backend() {
    if cc().is_none() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let out = scratch("gmm-gpu");
    let gmm = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/gmm.fut");
    gradus_c_with(&gmm, &out, &["--backend", "gpu"]);
    let o = Command::new(out.join("example")).output().unwrap();
    let stderr = text(&o.stderr);
    if o.status.code() != Some(0)
        && std::env::var_os("GRADUS_REQUIRE_GPU").is_none()
        && stderr.contains("OpenCL")
        && !stderr.contains("internal error")
    {
        eprintln!("skipped: {stderr}");
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{}{stderr}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("result 0: 8.07380408"),
        "{}",
        text(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&out);
}

const PROGRAM: &str = "
-- Doubles an array and reads one element of it; the element of an index out of bounds is a
-- run-time error.
entry scale_and_pick [n] (xs: [n]f64) (i: i64) : ([n]f64, f64) =
  (map (* 2) xs, xs[i])

entry outer [n] [m] (a: [n]i32) (b: [m]i32) : [n][m]i32 =
  map (\\x -> map (\\y -> x * y) b) a
";

const CALLER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prog.h"

int main(void) {
  struct gradus_context *ctx = gradus_context_new();
  if (!ctx) return 2;
  gradus_context_set_threads(ctx, 2);
  const double xs[3] = {1.5, -2.0, 4.0};
  double *doubled;
  int64_t shape[1];
  double picked;
  if (gradus_entry_scale_and_pick(ctx, &doubled, shape, &picked, 3, xs, 2) != 0) {
    printf("unexpected error: %s\n", gradus_context_get_error(ctx));
    return 1;
  }
  if (gradus_context_get_error(ctx) != NULL) { printf("an error after success\n"); return 1; }
  printf("shape %lld: %g %g %g, picked %g\n", (long long)shape[0], doubled[0], doubled[1],
         doubled[2], picked);
  gradus_free(doubled);

  const int32_t a[2] = {1, 2}, b[3] = {3, 4, 5};
  int32_t *m;
  int64_t mshape[2];
  if (gradus_entry_outer(ctx, &m, mshape, 2, 3, a, b) != 0) {
    printf("unexpected error: %s\n", gradus_context_get_error(ctx));
    return 1;
  }
  printf("outer %lldx%lld: %d %d\n", (long long)mshape[0], (long long)mshape[1], m[0], m[5]);
  gradus_free(m);

  if (gradus_entry_scale_and_pick(ctx, &doubled, shape, &picked, 3, xs, 7) == 0) {
    printf("no error for index 7\n");
    return 1;
  }
  printf("error: %s\n", gradus_context_get_error(ctx));
  gradus_context_free(ctx);
  return 0;
}
"#;

#[test]
fn a_c_caller_uses_the_typed_entry_points_and_reads_errors() {
    let Some(cc) = cc() else {
        eprintln!("skipped: no C compiler");
        return;
    };
    let out = scratch("typed");
    let prog = out.join("prog.fut");
    std::fs::write(&prog, PROGRAM).unwrap();
    gradus_c(&prog, &out);
    let header = std::fs::read_to_string(out.join("prog.h")).unwrap();
    for decl in [
        "const char *gradus_context_get_error(struct gradus_context *ctx);",
        "int gradus_entry_scale_and_pick(struct gradus_context *ctx, double **out0, int64_t *out0_shape, double *out1, int64_t n, const double *xs, int64_t i);",
        "int gradus_entry_outer(struct gradus_context *ctx, int32_t **out0, int64_t *out0_shape, int64_t n, int64_t m, const int32_t *a, const int32_t *b);",
    ] {
        assert!(header.contains(decl), "missing {decl} in\n{header}");
    }
    // No Rust debug syntax in the error sites' descriptions.
    assert!(!header.contains("Index {"), "{header}");
    std::fs::write(out.join("caller.c"), CALLER).unwrap();
    let o = Command::new(&cc)
        .args([
            "-std=c99", "-Wall", "-Wextra", "-Werror", "caller.c", "-o", "caller",
        ])
        .args(["-L.", "-lprog", "-Wl,-rpath,$ORIGIN", "-lm"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = Command::new(out.join("caller")).output().unwrap();
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("shape 3: 3 -4 8, picked 4"), "{stdout}");
    assert!(stdout.contains("outer 2x3: 3 10"), "{stdout}");
    assert!(
        stdout.contains("error: Index [7] out of bounds for array of shape [3].\n  at "),
        "{stdout}"
    );
    assert!(stdout.contains("prog.fut:5:"), "{stdout}");
    // The example caller found arguments the program accepts: index 0 of a made-up array.
    let o = Command::new(out.join("example")).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&out);
}
