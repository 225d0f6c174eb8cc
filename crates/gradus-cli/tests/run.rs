//! `gradus run` and `gradus test` end to end on small programs (these need the compiler).

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

fn program(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("gradus-run-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const PROG: &str = "entry horner (cs: []f64) (x: f64) = loop acc = 0 for c in cs do acc * x + c\n\
entry pair (x: i32) = (x, [x, x + 1])\n\
entry idx (xs: []i32) (i: i64) = xs[i]\n\
entry unit (x: i32) = ()\n";

#[test]
fn run_prints_results_one_per_line() {
    let p = program("poly.fut", PROG);
    let o = gradus(&["run", &p, "-e", "horner"], b"[1.0, 2.0, 3.0] 2.0");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "11.0f64\n");
    let o = gradus(&["run", &p, "-e", "pair"], b"-- a comment\n 7");
    assert_eq!(text(&o.stdout), "7i32\n[7i32, 8i32]\n");
    let o = gradus(&["run", &p, "-e", "pair", "-b"], b"7");
    let expected =
        gradus::data::write_binary(&gradus::value::Value::Scalar(gradus::value::Scalar::I32(7)));
    assert!(o.stdout.starts_with(&expected));
    let vals = gradus::data::read_values(&o.stdout).unwrap();
    assert_eq!(vals.len(), 2);
}

#[test]
fn run_reads_gzip_and_binary_input() {
    let p = program("poly2.fut", PROG);
    let mut input =
        gradus::data::write_binary(&gradus::data::read_values(b"[1.0, 2.0, 3.0]").unwrap()[0]);
    input.extend(b" 2.0");
    let gz = gradus::data::compress(&input);
    let o = gradus(&["run", &p, "-e", "horner"], &gz);
    assert_eq!(text(&o.stdout), "11.0f64\n", "{}", text(&o.stderr));
}

#[test]
fn run_exit_codes() {
    let p = program("codes.fut", PROG);
    // Run-time error: exit 2, message and location on stderr.
    let o = gradus(&["run", &p, "-e", "idx"], b"[1, 2, 3] 5i64");
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("Error: Index [5] out of bounds for array of shape [3]."),
        "{err}"
    );
    assert!(err.contains("at "), "{err}");
    // Input problems: exit 3.
    for bad in [
        &b"[1, 2, 3]"[..],
        b"[1, 2, 3] 1i64 1i64",
        b"[1, 2, 3] 1",
        b"[1.0] 1i64",
        b"[[1]] 1i64",
        b"[1, 2.0] 1i64",
        b"[] 1i64",
        b"b\x02\x00 i99",
    ] {
        let o = gradus(&["run", &p, "-e", "idx"], bad);
        assert_eq!(o.status.code(), Some(3), "{}", text(bad));
        assert!(text(&o.stderr).starts_with("Error: "));
    }
    let o = gradus(&["run", &p, "-e", "idx"], b"[1, 2, 3] 1i32");
    assert!(text(&o.stderr).contains("i64"), "{}", text(&o.stderr));
    // Compile errors: exit 1.
    let bad = program("bad.fut", "entry main (x: i32) = x +\n");
    let o = gradus(&["run", &bad], b"1");
    assert_eq!(o.status.code(), Some(1));
    let o = gradus(&["run", &p, "-e", "nonexistent"], b"");
    assert_eq!(o.status.code(), Some(1));
    // A unit result prints nothing.
    let o = gradus(&["run", &p, "-e", "unit"], b"1");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "");
}

#[test]
fn test_reports_and_timeout() {
    let p = program(
        "report.fut",
        "-- ==\n\
         -- input { 2 } output { 4 }\n\
         -- input { 3 } output { 10 }\n\
         -- input { 3i64 } output { 9 }\n\
         -- input @ missing.in output { 1 }\n\
         entry main (x: i32) = x * x\n\
         -- ==\n\
         -- entry: nope\n\
         -- input { 1 }\n",
    );
    let o = gradus(&["test", &p], b"");
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains(&format!(
            "FAIL {p}:main #1 (\"3\"): value #0: expected 10i32, got 9i32"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("FAIL {p}:main #2 (\"3i64\"): ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("ERROR {p}:main missing.in: ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("FAIL {p}:nope #0 (\"1\"): ")),
        "{out}"
    );
    assert!(
        out.ends_with("gradus test: 1 passed, 3 failed, 1 errors, 0 skipped\n"),
        "{out}"
    );
    let o = gradus(&["test", "-v", "-e", "main", &p], b"");
    assert!(text(&o.stdout).contains(&format!("PASS {p}:main #0 (\"2\")")));
    let slow = program(
        "slow.fut",
        "-- ==\n-- input { 1 } output { 1 }\n-- input { 2 } output { 2 }\n\
         entry main (x: i32) = loop y = x while y > 0 do y + 1\n",
    );
    // On the interpreter: `y` wraps around after 2^31 steps, which the native backends
    // reach within the limit.
    let o = gradus(
        &["test", "--backend", "interp", "--timeout", "1", &slow],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains("time limit"), "{out}");
    assert!(
        out.ends_with("gradus test: 0 passed, 0 failed, 2 errors, 0 skipped\n"),
        "{out}"
    );
}

#[test]
fn run_writes_one_opaque_line_per_record_or_sum_result() {
    let p = program(
        "opaque.fut",
        "type opt = #none | #some f64\n\
         entry mk (x: f64) : (f64, opt, {a: f64, b: i32}, i32) =\n\
         (x, if x > 0 then #some x else #none, {a = x, b = 2}, 3)\n\
         entry get (o: opt) = match o case #some x -> x case #none -> 0\n",
    );
    let o = gradus(&["run", &p, "-e", "mk"], b"1.5");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "1.5f64\n#opaque #none | #some f64\n#opaque {a: f64, b: i32}\n3i32\n"
    );
    // A sum cannot be given as an input value.
    let o = gradus(&["run", &p, "-e", "get"], b"1.5");
    assert_ne!(o.status.code(), Some(0));
    assert!(text(&o.stderr).contains("opaque"), "{}", text(&o.stderr));
}

#[test]
fn exact_floats_give_the_interpreters_sum_to_the_bit() {
    // A sum whose value depends on the order of its additions: with `--exact-floats` the C
    // backends add in the interpreter's order (by default they may use partial sums).
    let p = program(
        "order.fut",
        "entry s (xs: []f64) = f64.sum (map (\\x -> x * 1.5) xs)\n",
    );
    let xs: Vec<String> = (0..257)
        .map(|i| match i % 4 {
            0 => "1e16".to_string(),
            1 => "1.0".to_string(),
            2 => "-1e16".to_string(),
            _ => format!("{}.25", i % 7),
        })
        .collect();
    let input = format!("[{}]", xs.join(", "));
    let interp = gradus(
        &["run", &p, "-e", "s", "--backend", "interp"],
        input.as_bytes(),
    );
    assert_eq!(interp.status.code(), Some(0), "{}", text(&interp.stderr));
    for backend in ["c", "multicore"] {
        let args = [
            "--exact-floats",
            "run",
            &p,
            "-e",
            "s",
            "--backend",
            backend,
            "--threads",
            "1",
        ];
        let o = gradus(&args, input.as_bytes());
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), text(&interp.stdout), "{backend}");
    }
}

const DERIV: &str = "entry objective [n] (w: [n]f64) (s: f64) (k: i64) : f64 =\n\
  f64.sum (map (\\a -> f64.sin a * s) w) + s * s * f64.i64 k\n\
entry by_hand [n] (w: [n]f64) (s: f64) (k: i64) = vjp (\\(w, s) -> objective w s k) (w, s) 1\n\
entry by_hand_vjp [n] (w: [n]f64) (s: f64) (k: i64) (yb: f64) =\n\
  vjp2 (\\s -> objective w s k) s yb\n";

#[test]
fn run_derives_derivatives_on_demand() {
    let p = program("deriv.fut", DERIV);
    for backend in ["interp", "c"] {
        let point = b"[0.3, -1.2, 2.5] 0.7 3i64";
        let want = gradus(&["run", &p, "--backend", backend, "-e", "by_hand"], point);
        assert_eq!(want.status.code(), Some(0), "{}", text(&want.stderr));
        let got = gradus(
            &["run", &p, "--backend", backend, "-e", "grad(objective)"],
            point,
        );
        assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
        assert_eq!(text(&got.stdout), text(&want.stdout));
        let seeded = b"[0.3, -1.2, 2.5] 0.7 3i64 2.0";
        let want = gradus(
            &["run", &p, "--backend", backend, "-e", "by_hand_vjp"],
            seeded,
        );
        let got = gradus(
            &["run", &p, "--backend", backend, "-e", "vjp(objective, 1)"],
            seeded,
        );
        assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
        assert_eq!(text(&got.stdout), text(&want.stdout));
    }
    let o = gradus(&["run", &p, "-e", "grad(objective, 2)"], b"[1.0] 1.0 1i64");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("parameter 2 of `objective` has type i64"));
    let o = gradus(&["run", &p, "-e", "curl(objective)"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("`curl` is not a derivative"));
    let o = gradus(&["run", &p, "-e", "grad(objective, x)"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("`x` is not a parameter position"));
}

const SPARSE: &str = "entry residual [n] (x: [n]f64) (k: i64) : [n]f64 =\n\
  tabulate n (\\i -> x[i] * x[(i + k) % n] - f64.sin x[i])\n\
entry csr [n] (x: [n]f64) (k: i64) = sparse_jacobian (\\y -> residual y k) x\n\
entry energy [n] (x: [n]f64) : f64 = f64.sum (map2 (\\a b -> a * a * b) x (rotate 1 x))\n\
entry hcsr [n] (x: [n]f64) = sparse_hessian energy x\n";

#[test]
fn run_derives_sparse_jacobians_and_hessians_on_demand() {
    let p = program("sparse.fut", SPARSE);
    for backend in ["interp", "c"] {
        // The language's own operator lists the same pattern in the same order.
        let same = |entry: &str, spec: &str, input: &[u8]| {
            let want = gradus(&["run", &p, "--backend", backend, "-e", entry], input);
            assert_eq!(want.status.code(), Some(0), "{}", text(&want.stderr));
            let got = gradus(&["run", &p, "--backend", backend, "-e", spec], input);
            assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
            assert_eq!(text(&got.stdout), text(&want.stdout));
        };
        same(
            "csr",
            "sparse_jacobian(residual, 0)",
            b"[0.3, -1.2, 2.5, 0.5, 1.5] 2i64",
        );
        same("hcsr", "sparse_hessian(energy)", b"[0.3, -1.2, 2.5, 0.5]");
    }
    let o = gradus(&["run", &p, "-e", "sparse_hessian(residual)"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("needs one f32 or f64 scalar result"));
    let o = gradus(&["run", &p, "-e", "sparse_jacobian(residual, 0, 1)"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("takes one parameter position"));
    let o = gradus(
        &["run", &p, "-e", "sparse_jacobian(residual)"],
        b"[1.0, 2.0] 3.0",
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
}
