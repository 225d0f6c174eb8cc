//! The backend writes the rows a `map` builds as array literals (of scalars, of literal
//! rows such as a 2×2 block, of a small `replicate` of a literal, or of other arrays, which
//! are copied in) straight into the map's output instead of building each row and copying
//! it: the lowered loop allocates nothing for the literal, every backend gives the
//! interpreter's results, and a row whose literal does not fit the declared row size
//! reports the interpreter's error.

use gradus::backend::c::NativeOptions;
use gradus::program::{Backend, CallError, Program};
use gradus::value::{Array, Buffer, Scalar, Value};

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
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::new(vec![n], Buffer::F64(rng.vector(n, -1.0, 1.0))).unwrap())
}

fn backends() -> Vec<(&'static str, Program)> {
    let native = |multicore| {
        Program::from_source("rows.fut", SRC)
            .unwrap()
            .with_backend(Backend::Native(NativeOptions {
                multicore,
                threads: Some(2),
                ..Default::default()
            }))
            .unwrap()
    };
    vec![("c", native(false)), ("multicore", native(true))]
}

#[test]
fn literal_rows_are_stored_in_place_and_give_the_interpreters_results() {
    let lowered = gradus::pipeline::dump_stage("rows.fut", SRC, gradus::pipeline::Stage::Lower)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    for entry in ["pairs", "blocks", "twice"] {
        let code = lowered
            .split("entry ")
            .find(|e| e.starts_with(entry))
            .unwrap();
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
    for (name, p) in backends() {
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
    let err =
        |p: &Program| match p.call("misfit", vec![vector(5, 4), Value::Scalar(Scalar::I64(3))]) {
            Err(CallError::Runtime(e)) => e.to_string(),
            other => panic!("expected a size error, got {other:?}"),
        };
    let want = err(&interp);
    assert!(want.contains("rows.fut:"), "{want}");
    for (name, p) in backends() {
        assert_eq!(err(&p), want, "{name}");
    }
}
