//! The backend lets maps write straight into the concatenation that consumes their outputs
//! (`concat (flatten (map ..)) (map ..)`, the CSR assembly of a Jacobian): the lowered code
//! allocates the concatenation once, before the maps, and copies nothing; every backend
//! gives the interpreter's results; a concatenation whose declared size does not match its
//! operands reports the interpreter's error; an operand also read elsewhere is copied as
//! before.

use crate::common::{lowered_entry, native_backends, random_f64, runtime_error};
use gradus::program::Program;
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry csr [n] (xs: [n]f64) : []f64 =
  let blocks = map (\x -> map (\k -> x * f64.i64 k) (iota 3)) xs
  let tail = map (\x -> x + 1) xs
  in flatten blocks ++ tail

entry misfit [n] (xs: [n]f64) (m: i64) : [m]f64 =
  let a = map (\x -> x * 2) xs
  let b = map (\x -> x - 1) xs
  in a ++ b :> [m]f64

entry shared [n] (xs: [n]f64) : ([]f64, [n]f64) =
  let a = map (\x -> x * 2) xs
  let b = map (\x -> x - 1) xs
  in (a ++ b, a)
"#;

fn vector(n: usize, seed: u64) -> Value {
    random_f64(&[n], seed, -1.0, 1.0)
}

fn lowered(entry: &str) -> String {
    lowered_entry("concat.fut", SRC, entry)
}

#[test]
fn maps_write_into_the_concatenation_and_give_the_interpreters_results() {
    let code = lowered("csr");
    assert_eq!(code.matches("alloc").count(), 1, "{code}");
    assert!(!code.contains("copy"), "{code}");
    let interp = Program::from_source("concat.fut", SRC).unwrap();
    for (name, p) in native_backends("concat.fut", SRC) {
        for entry in ["csr", "shared"] {
            let args = vec![vector(5000, 1)];
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args).unwrap();
            assert_eq!(got, want, "{entry} on {name}");
        }
    }
}

#[test]
fn an_operand_read_elsewhere_is_still_copied() {
    let code = lowered("shared");
    assert!(code.contains("copy"), "{code}");
}

#[test]
fn a_concatenation_of_the_wrong_size_reports_the_interpreters_error() {
    let interp = Program::from_source("concat.fut", SRC).unwrap();
    let err = |p: &Program| {
        runtime_error(
            p,
            "misfit",
            vec![vector(5, 4), Value::Scalar(Scalar::I64(7))],
        )
    };
    let want = err(&interp);
    assert!(want.contains("concat.fut:"), "{want}");
    for (name, p) in native_backends("concat.fut", SRC) {
        assert_eq!(err(&p), want, "{name}");
    }
}
