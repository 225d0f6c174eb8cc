//! The core IR verifier runs after every pass when the test suites ask for it, whatever the
//! build profile: a pass that leaves broken IR makes the compilation fail with an internal
//! compiler error naming the pass.

use gradus::core::parse::parse_prog;
use gradus::pipeline::passes::{after_pass, verify_every_pass, verifying};

#[test]
fn a_pass_that_breaks_the_ir_fails_the_compilation() {
    verify_every_pass();
    assert!(verifying());
    let good = parse_prog(
        r#"fun f (x_0: f64) : f64 {
  let a_1: f64 = mul_f64(x_0, x_0)
  let b_2: f64 = add_f64(a_1, 1.0f64)
  in b_2
}"#,
    )
    .unwrap();
    assert!(after_pass(&good, "a-pass").is_ok());
    // What a faulty pass might do: move a statement before the one that binds its operand.
    let mut broken = good.clone();
    broken.funs[0].body.stms.swap(0, 1);
    let err = after_pass(&broken, "a-pass").unwrap_err();
    assert!(err.contains("after pass `a-pass`"), "{err}");
    assert!(err.contains("a_1"), "{err}");
}

#[test]
fn compiling_a_program_verifies_every_pass() {
    verify_every_pass();
    // Compiles and runs with the verifier on: the optimiser's output of a program with
    // reverse mode, fusion and an in-place update must verify after every pass.
    let p = gradus::program::Program::from_source(
        "test.fut",
        "entry g [n] (xs: *[n]f64) = let ys = map (\\x -> x * xs[0]) xs let xs[0] = 1 in (vjp (\\v -> f64.sum (map (*2) v)) ys 1, xs)",
    );
    assert!(
        p.is_ok(),
        "{}",
        p.err().map(|d| d.render()).unwrap_or_default()
    );
}
