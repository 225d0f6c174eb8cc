//! The backend writes the rows a `map` builds as array literals (of scalars, of literal
//! rows such as a 2×2 block, of a small `replicate` of a literal, or of other arrays, which
//! are copied in) straight into the map's output instead of building each row and copying
//! it: the lowered loop allocates nothing for the literal, every backend gives the
//! interpreter's results, and a row whose literal does not fit the declared row size
//! reports the interpreter's error.

use crate::common::{lowered_entry, native_backends, random_f64, runtime_error};
use gradus::program::Program;
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry pairs [n] (xs: [n]f64) : [n][2]f64 =
  map (\x -> [x * x, x + 1]) xs

entry blocks [n] (xs: [n]f64) (ys: [n]f64) : [n][2][2]f64 =
  map2 (\x y -> [[x, y], [x * y, x - y]]) xs ys

entry twice [n] (xs: [n]f64) : [n][2][3]f64 =
  map (\x -> let r = [x, x + 1, x * 2] in [r, r]) xs

entry rows [n] (xs: [n]f64) (k: i64) : [n][2][k]f64 =
  map (\x -> let r = map (\j -> x * f64.i64 j) (iota k) in [r, map (+ 1) r]) xs

entry misfit [n] (xs: [n]f64) (m: i64) : [n][m]f64 =
  map (\x -> [x, x] :> [m]f64) xs
"#;

fn vector(n: usize, seed: u64) -> Value {
    random_f64(&[n], seed, -1.0, 1.0)
}

#[test]
fn literal_rows_are_stored_in_place_and_give_the_interpreters_results() {
    for entry in ["pairs", "blocks", "twice"] {
        let code = lowered_entry("rows.fut", SRC, entry);
        // One allocation: the output, none per row.
        assert_eq!(code.matches("alloc").count(), 1, "{code}");
    }
    let interp = Program::from_source("rows.fut", SRC).unwrap();
    let cases = [
        ("pairs", vec![vector(300, 1)]),
        ("blocks", vec![vector(300, 2), vector(300, 3)]),
        ("twice", vec![vector(300, 4)]),
        ("rows", vec![vector(300, 5), Value::Scalar(Scalar::I64(7))]),
    ];
    for (name, p) in native_backends("rows.fut", SRC) {
        for (entry, args) in &cases {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            assert_eq!(got, want, "{entry} on {name}");
        }
    }
}

#[test]
fn a_literal_row_of_the_wrong_size_reports_the_interpreters_error() {
    let interp = Program::from_source("rows.fut", SRC).unwrap();
    let err = |p: &Program| {
        runtime_error(
            p,
            "misfit",
            vec![vector(5, 4), Value::Scalar(Scalar::I64(3))],
        )
    };
    let want = err(&interp);
    assert!(want.contains("rows.fut:"), "{want}");
    for (name, p) in native_backends("rows.fut", SRC) {
        assert_eq!(err(&p), want, "{name}");
    }
}
