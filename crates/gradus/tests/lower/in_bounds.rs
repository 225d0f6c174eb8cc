//! Indexes the optimiser proves in bounds (rule `index-in-bounds`) get no bounds check in the
//! generated code: rows of an `iota` map, loop counters, the counter of a triangular loop
//! `for c < i + 1` with `i < n`, and the position `h - 1 - c` that the return sweep of such a
//! loop visits backwards (whose accumulator updates need no test either), and an in-place
//! update at a loop's counter `i < n` of an array of `max(n, 0)` rows (reverse mode's
//! checkpoints). An index or update it cannot prove keeps its check and reports the
//! interpreter's error on every backend.

use crate::common::{lowered_entry, native_backends, random_f64, runtime_error};
use gradus::program::Program;
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry triangular [n] (q: [n][n]f64) (x: [n]f64) : [n]f64 =
  map (\i -> loop acc = 0 for c < i + 1 do acc + q[i, c] * x[c]) (iota n)

entry triangular_grad [n] (q: [n][n]f64) (x: [n]f64) : ([n][n]f64, [n]f64) =
  vjp (\(q, x) -> f64.sum (map (\i -> loop acc = 0 for c < i + 1 do acc + q[i, c] * x[c]) (iota n)))
      (q, x) 1

entry shifted [n] (q: [n][n]f64) (k: i64) : [n]f64 =
  map (\i -> q[i, i + k]) (iota n)

-- Rows `i < n` of an array of `max(n, 0)` rows, as reverse mode saves what a loop computes.
entry fill (n: i64) (x: f64) : []f64 =
  loop ys = replicate (i64.max n 0) 0 for i < n do ys with [i] = x * f64.i64 i

entry fill_shifted (n: i64) (x: f64) : []f64 =
  loop ys = replicate (i64.max n 0) 0 for i < n do ys with [i + 1] = x * f64.i64 i
"#;

#[test]
fn proved_indexes_have_no_check() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    // The only check left is iota's `0 <= n`.
    let code = lowered_entry("bounds.fut", SRC, "triangular");
    assert_eq!(code.matches("check").count(), 1, "{code}");
    assert!(code.contains("check (0i64 <= n_0)"), "{code}");
    // The return sweep's loop runs `c` from `i` down to 0: its reads of `q` and `x` and its
    // accumulator updates are proved; only the sizes of `iota` and the zero adjoints are
    // checked.
    let code = lowered_entry("bounds.fut", SRC, "triangular_grad");
    assert_eq!(code.matches("check").count(), 4, "{code}");
    assert!(!code.contains("if "), "{code}");
    // `i + k` may leave the row: checked.
    let code = lowered_entry("bounds.fut", SRC, "shifted");
    assert_eq!(code.matches("check").count(), 2, "{code}");
    // An update at the loop's counter is proved; at the next position it is checked.
    let fill = lowered_entry("bounds.fut", SRC, "fill");
    let shifted = lowered_entry("bounds.fut", SRC, "fill_shifted");
    assert_eq!(
        shifted.matches("check").count(),
        fill.matches("check").count() + 1,
        "{fill}\n{shifted}"
    );
}

#[test]
fn results_and_errors_are_the_interpreters() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let interp = Program::from_source("bounds.fut", SRC).unwrap();
    let q = random_f64(&[40, 40], 1, -1.0, 1.0);
    let x = random_f64(&[40], 2, -1.0, 1.0);
    let k = |v: i64| Value::Scalar(Scalar::I64(v));
    let want = interp
        .call("triangular", vec![q.clone(), x.clone()])
        .unwrap();
    let grad = interp
        .call("triangular_grad", vec![q.clone(), x.clone()])
        .unwrap();
    let shifted_ok = interp.call("shifted", vec![q.clone(), k(0)]).unwrap();
    let error = runtime_error(&interp, "shifted", vec![q.clone(), k(1)]);
    assert!(error.contains("bounds.fut:"), "{error}");
    let x1 = Value::Scalar(Scalar::F64(0.5));
    let filled = interp.call("fill", vec![k(7), x1.clone()]).unwrap();
    let fill_error = runtime_error(&interp, "fill_shifted", vec![k(7), x1.clone()]);
    for (name, p) in native_backends("bounds.fut", SRC) {
        let got = p.call("triangular", vec![q.clone(), x.clone()]).unwrap();
        assert_eq!(got, want, "{name}");
        let got = p
            .call("triangular_grad", vec![q.clone(), x.clone()])
            .unwrap();
        assert_eq!(got, grad, "{name}");
        let got = p.call("shifted", vec![q.clone(), k(0)]).unwrap();
        assert_eq!(got, shifted_ok, "{name}");
        assert_eq!(
            runtime_error(&p, "shifted", vec![q.clone(), k(1)]),
            error,
            "{name}"
        );
        for n in [7, 0, -2] {
            let want = interp.call("fill", vec![k(n), x1.clone()]).unwrap();
            assert_eq!(
                p.call("fill", vec![k(n), x1.clone()]).unwrap(),
                want,
                "{name}"
            );
        }
        assert_eq!(p.call("fill", vec![k(7), x1.clone()]).unwrap(), filled);
        assert_eq!(
            runtime_error(&p, "fill_shifted", vec![k(7), x1.clone()]),
            fill_error,
            "{name}"
        );
    }
}
