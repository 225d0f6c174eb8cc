//! `gradus check`: derivatives against finite differences, with its exit codes.

use std::io::Write;
use std::process::{Command, Stdio};

fn gradus_check(program: &str, args: &[&str], input: &str) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("gradus-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("p{}.fut", program.len()));
    std::fs::write(&path, program).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .arg("check")
        .arg(&path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn smooth_entry_passes_at_given_and_random_points() {
    let prog =
        "entry f [n] (xs: [n]f64) (y: f64) = (f64.sum (map (\\x -> f64.exp (x * y)) xs), y * y)\n";
    let (code, out) = gradus_check(prog, &["-e", "f"], "[0.1, 0.2] 1.5");
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.lines().filter(|l| l.contains("input #")).count(),
        4,
        "{out}"
    );
    assert!(out.contains("vjp within tolerance"), "{out}");
    assert!(out.contains("<vjp, xdot>"), "{out}");
    let (code, out) = gradus_check(prog, &["-e", "f", "--random", "--size", "5"], "");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn entries_that_are_gradients_are_checked_one_order_higher() {
    // The vjp of a gradient is a Hessian-vector product, checked against the jvp of the
    // gradient and finite differences of it.
    let prog = "entry g (x: f64) (y: f64) = vjp (\\(a, b) -> f64.sin (a * b) + a * a) (x, y) 1\n";
    let (code, out) = gradus_check(prog, &["-e", "g"], "0.4 1.3");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("vjp within tolerance"), "{out}");
}

#[test]
fn a_derivative_that_disagrees_with_finite_differences_fails() {
    let prog = "entry f (x: f64) = f64.round (x * 1e7)\n";
    let (code, out) = gradus_check(prog, &["-e", "f"], "0.3");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("differs"), "{out}");
}

#[test]
fn bad_input_is_exit_code_3() {
    let prog = "entry f (x: f64) = x\n";
    let (code, _) = gradus_check(prog, &["-e", "f"], "1i32");
    assert_eq!(code, 3);
}
