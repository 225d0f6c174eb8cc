//! Command-line behaviour: usage errors (exit 2), unreadable input (exit 3), help texts,
//! report format of `gradus test` for files that cannot be tested, entry points chosen for
//! `gradus bench`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn gradus(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run gradus");
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(stdin);
    }
    child.wait_with_output().expect("gradus did not finish")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gradus-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_for_every_command() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["test", "--help"],
        vec!["dev", "--help"],
    ] {
        let o = gradus(&args, b"");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(text(&o.stdout).contains("Usage"), "{args:?}");
    }
    let o = gradus(&["test", "--help"], b"");
    let help = text(&o.stdout);
    for opt in [
        "--backend",
        "--interpreted",
        "--typecheck",
        "--compile",
        "--entry-point",
        "--exclude",
        "--skip-compiled",
        "--tolerance",
        "--seed",
        "--timeout",
        "--concurrency",
        "--verbose",
        "--json",
    ] {
        assert!(help.contains(opt), "missing {opt}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec![],
        vec!["frobnicate"],
        vec!["run"],
        vec!["test"],
        vec!["run", "x.fut", "--backend", "cuda"],
        vec!["test", "x.fut", "--tolerance", "abc"],
        vec!["test", "x.fut", "--concurrency", "0"],
        vec!["dev", "x.fut"],
        vec!["dev", "--stage", "nonsense", "x.fut"],
        vec!["dev", "--pass", "fold"],
        vec!["dev", "--rules", "x.ir"],
        vec!["dev", "--stage", "core", "--pass", "fold", "x.ir"],
    ] {
        let o = gradus(&args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
    }
    let o = gradus(&["run", "x.fut", "--backend", "cuda"], b"");
    assert!(
        text(&o.stderr).contains("expected `interp`, `c`, `multicore` or `gpu`"),
        "{}",
        text(&o.stderr)
    );
    let o = gradus(&["test", "/nonexistent/dir/x.fut"], b"");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn unreadable_input_exits_3() {
    let prog = scratch("id.fut");
    std::fs::write(&prog, "entry main (x: i32) = x\n").unwrap();
    let p = prog.to_str().unwrap();
    let o = gradus(&["run", p, "--input", "/nonexistent/input.in"], b"");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(text(&o.stderr).starts_with("Error: "));
}

#[test]
fn missing_program_is_a_compile_failure() {
    let o = gradus(&["run", "/nonexistent/prog.fut"], b"");
    assert_eq!(o.status.code(), Some(1));
    let o = gradus(&["dev", "--stage", "parse", "/nonexistent/prog.fut"], b"");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn malformed_test_block_is_an_error_case() {
    let prog = scratch("malformed.fut");
    std::fs::write(
        &prog,
        "-- ==\n-- input { [] } output { 1 }\nentry main (x: i32) = x\n",
    )
    .unwrap();
    let json = scratch("report.json");
    let o = gradus(
        &[
            "test",
            prog.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ERROR "), "{out}");
    assert!(lines[0].contains("malformed test block at line 2"), "{out}");
    assert_eq!(
        *lines.last().unwrap(),
        "gradus test: 0 passed, 0 failed, 1 errors, 0 skipped"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report[0]["status"], "ERROR");
    assert!(report[0]["entry"].is_null());
    assert!(report[0]["seconds"].is_number());
}

#[test]
fn skipped_programs_and_empty_directories_pass() {
    let dir = scratch("skipdir");
    std::fs::create_dir_all(&dir).unwrap();
    let o = gradus(&["test", dir.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout).trim_end(),
        "gradus test: 0 passed, 0 failed, 0 errors, 0 skipped"
    );
    let prog = dir.join("skipped.fut");
    std::fs::write(
        &prog,
        "-- ==\n-- tags { disable }\n-- input { 1 } output { 2 }\n-- input { 2 } output { 3 }\nthis is not a program\n",
    )
    .unwrap();
    let o = gradus(&["test", dir.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(out.contains("SKIP "), "{out}");
    assert!(
        out.ends_with("gradus test: 0 passed, 0 failed, 0 errors, 2 skipped\n"),
        "{out}"
    );
    let o = gradus(
        &[
            "test",
            "--exclude",
            "nothing",
            prog.to_str().unwrap(),
            "-e",
            "other",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn the_help_names_every_optimiser_pass() {
    let out = gradus(&["bench", "--help"], b"");
    let help = text(&out.stdout).replace(['\n', ' '], "");
    for pass in gradus::pipeline::passes::optimiser_passes().map(|p| p.name) {
        assert!(
            help.contains(pass),
            "`--disable-pass` help does not name {pass}"
        );
    }
}

#[test]
fn bench_times_each_entry_point_named() {
    let prog = scratch("bench_entries.fut");
    std::fs::write(
        &prog,
        "-- ==\n-- entry: a b c\n-- input { 2 }\nentry a (x: i32) : i32 = x + 1\nentry b (x: i32) : i32 = x * 2\nentry c (x: i32) : i32 = x - 3\n",
    )
    .unwrap();
    let o = gradus(
        &[
            "bench",
            "--backend",
            "interp",
            "--runs",
            "1",
            "-e",
            "a",
            "-e",
            "c",
            prog.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("bench_entries.fut:a "), "{out}");
    assert!(out.contains("bench_entries.fut:c "), "{out}");
    assert!(!out.contains("bench_entries.fut:b "), "{out}");
    // Standard error is a pipe here: no progress line, so no terminal control codes.
    assert!(!text(&o.stderr).contains('\x1b'), "{:?}", text(&o.stderr));
    let o = gradus(
        &["test", "--backend", "interp", prog.to_str().unwrap()],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains('\x1b'), "{:?}", text(&o.stderr));
}

#[test]
fn cache_shows_and_cleans_its_directory() {
    let dir = scratch("cache");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("gradus-0123.so"), [0u8; 100]).unwrap();
    std::fs::write(dir.join("gradus-0123.c"), [0u8; 50]).unwrap();
    // Not gradus's: neither counted nor removed.
    std::fs::write(dir.join("keep.txt"), "x").unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gradus"))
            .args(args)
            .env("GRADUS_CACHE_DIR", &dir)
            .output()
            .unwrap()
    };
    let o = run(&["cache"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!("location: {}", dir.display())),
        "{out}"
    );
    assert!(out.contains("(150 bytes)"), "{out}");
    assert!(out.contains("files: 2 (1 libraries)"), "{out}");
    let o = run(&["cache", "path"]);
    assert_eq!(text(&o.stdout).trim(), dir.display().to_string());
    let o = run(&["cache", "clean"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("removed 2 file(s)"),
        "{}",
        text(&o.stdout)
    );
    assert!(!dir.join("gradus-0123.so").exists());
    assert!(dir.join("keep.txt").exists());
    let o = run(&["cache"]);
    assert!(text(&o.stdout).contains("files: 0 (0 libraries)"));
}

/// `gradus dev --pass` prints what the pass file test expects, and the rules that fired.
#[test]
fn dev_pass_runs_passes_on_an_ir_file() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../gradus/tests/ir/fold/fold_ring_laws.ir"
    );
    let o = gradus(
        &[
            "--fast-math",
            "dev",
            "--pass",
            "fold,copy-prop",
            "--rules",
            file,
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("-- fired: mul-zero "), "{out}");
    let printed: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with("-- fired:"))
        .collect();
    let source = std::fs::read_to_string(file).unwrap();
    let expected = source.split("-- output:\n").nth(1).unwrap();
    assert_eq!(printed.join("\n").trim(), expected.trim());
    // Unknown passes and malformed IR are errors with a message, not panics.
    let o = gradus(&["dev", "--pass", "no-such-pass", file], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("unknown optimiser pass"));
    let bad = scratch("bad.ir");
    std::fs::write(&bad, "fun f (x_0: f64) : f64 {\n  in x_0 1.0f64\n}\n").unwrap();
    let o = gradus(&["dev", "--pass", "fold", bad.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("bad.ir:2:"), "{}", text(&o.stderr));
}

/// `structure` items count the optimised program's statements: a wrong count fails, and
/// the right one passes.
#[test]
fn structure_items_count_statements_after_the_optimiser() {
    let prog = scratch("structure.fut");
    let source = |counts: &str| {
        format!(
            "-- ==\n-- input {{ [1.0] }} output {{ [4.0] }}\n-- structure {{ {counts} }}\n\
             def main (xs: []f64) = map (\\x -> x * 2.0) (map (\\x -> x + 1.0) xs)\n"
        )
    };
    std::fs::write(&prog, source("Map 1 Map/BinOp 2")).unwrap();
    let o = gradus(&["test", prog.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    std::fs::write(&prog, source("Map 2 Map/BinOp 2")).unwrap();
    let o = gradus(&["test", prog.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("structure (line 3): Map: expected 2, found 1"),
        "{}",
        text(&o.stdout)
    );
}
