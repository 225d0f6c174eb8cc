//! The backend lowers a map of reductions that read a column of a matrix
//! (`map (\j -> sum (map (\r -> r[j]) xss)) (iota n)`, what one jvp per entry of a matrix
//! makes of the NNMF gradient) with its loops interchanged, reading rows along their length
//! (in parallel blocks of columns where the map is parallel):
//! the rewrite fires, every backend gives the interpreter's results to the bit (each result
//! folds the same values in the same order), and an index error names the same place.

use crate::common::{lowered_entry, native_backends, random_f64, runtime_error};
use gradus::program::Program;
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry col_sums [m] [n] (xss: [m][n]f64) : [n]f64 =
  map (\j -> f64.sum (map (\r -> r[j] * r[j] + 1) xss)) (iota n)

entry col_max_nested [m] [n] (xss: [m][n]f64) (ws: [m]f64) (k: i64) : [k][n]f64 =
  map (\q -> map (\j -> f64.maximum (map2 (\r w -> r[j] * w + f64.i64 q) xss ws)) (iota n))
      (iota k)

entry col_out_of_bounds [m] [n] (xss: [m][n]f64) : [n]f64 =
  map (\j -> f64.sum (map (\r -> r[j + 1]) xss)) (iota n)
"#;

fn matrix(m: usize, n: usize, seed: u64) -> Value {
    random_f64(&[m, n], seed, -1.0, 1.0)
}

fn vector(n: usize, seed: u64) -> Value {
    random_f64(&[n], seed, 0.5, 1.5)
}

#[test]
fn the_interchanged_loops_give_the_interpreters_results_to_the_bit() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    for entry in ["col_sums", "col_max_nested"] {
        let code = lowered_entry("columns.fut", SRC, entry);
        assert!(
            code.contains("loops interchanged"),
            "not interchanged:\n{code}"
        );
    }
    let interp = Program::from_source("columns.fut", SRC).unwrap();
    let cases = [
        ("col_sums", vec![matrix(70, 90, 1)]),
        (
            "col_max_nested",
            vec![
                matrix(70, 90, 2),
                vector(70, 3),
                Value::Scalar(Scalar::I64(5)),
            ],
        ),
    ];
    for (name, p) in native_backends("columns.fut", SRC) {
        for (entry, args) in &cases {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            assert_eq!(got, want, "{entry} on {name}");
        }
    }
}

#[test]
fn an_index_error_in_the_interchanged_loops_names_the_same_place() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let interp = Program::from_source("columns.fut", SRC).unwrap();
    let err = |p: &Program| runtime_error(p, "col_out_of_bounds", vec![matrix(4, 6, 4)]);
    let want = err(&interp);
    assert!(want.contains("columns.fut:"), "{want}");
    for (name, p) in native_backends("columns.fut", SRC) {
        assert_eq!(err(&p), want, "{name}");
    }
}
