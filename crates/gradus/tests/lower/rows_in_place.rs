//! Two ways the backend avoids an array per iteration of a loop:
//! * a `map` whose lambda returns the output of an inner `map` (a nested `tabulate`, the
//!   tangent lanes of vector forward mode, a residual that reverse mode keeps per row) lets the
//!   inner map write straight into the output's row, which the rest of the lambda then reads;
//!   an inner map that a sum also reads is fused into the sum, which writes the row as it
//!   goes (one traversal, `read_too`);
//! * a reduction whose operator is element-wise over rows (`reduce (map2 op)`) accumulates in
//!   one owned array instead of building a new one per row.
//!
//! The lowered code allocates only the outputs (and the neutral element), and every backend
//! gives the interpreter's results, also for an operator that is not commutative.

use crate::common::{lowered_entry, native_backends, random_f64};
use gradus::program::Program;
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry table [n] (xs: [n]f64) (k: i64) : [n][k]f64 =
  map (\x -> map (\j -> x * f64.i64 j + 1) (iota k)) xs

entry two [n] (xs: [n]f64) (k: i64) : ([n][k]f64, [n]f64) =
  unzip (map (\x -> (map (\j -> f64.sin (x + f64.i64 j)) (iota k), x * 2)) xs)

entry nested [n] (xs: [n]f64) (k: i64) : [n][k][k]f64 =
  map (\x -> map (\i -> map (\j -> x * f64.i64 (i + j)) (iota k)) (iota k)) xs

entry read_too [n] (xs: [n]f64) (k: i64) : ([n][k]f64, [n]f64) =
  unzip (map (\x -> let r = map (\j -> x * f64.i64 j - 1) (iota k)
                    in (r, f64.sum (map (\v -> v * v) r))) xs)

entry sums [n] [m] (xss: [n][m]f64) : [m]f64 =
  reduce (map2 (+)) (replicate m 0) xss

entry folds [n] [m] (xss: [n][m]f64) : [m]f64 =
  reduce (map2 (\a b -> a * b - 0.5 * a)) (replicate m 1) xss

entry row_sums [n] [m] (xsss: [n][5][m]f64) : [n][m]f64 =
  map (\xss -> reduce (map2 (\a b -> f64.max a b)) (replicate m (-f64.inf)) xss) xsss
"#;

fn int(k: i64) -> Value {
    Value::Scalar(Scalar::I64(k))
}

#[test]
fn inner_maps_write_into_the_outer_rows() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    // One allocation per output (and, in `nested`, the table of `f64.i64 (i + j)` that the
    // optimiser hoists out of the outer map): no row is built apart and copied.
    for (entry, outputs) in [("table", 1), ("two", 2), ("nested", 2), ("read_too", 2)] {
        let code = lowered_entry("rows.fut", SRC, entry);
        assert_eq!(code.matches("alloc").count(), outputs, "{entry}: {code}");
    }
    // The row and its sum of squares in one loop: the sum does not read the row back.
    let code = lowered_entry("rows.fut", SRC, "read_too");
    assert_eq!(code.matches("for ").count(), 2, "{code}");
}

#[test]
fn element_wise_reductions_allocate_nothing_per_row() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    for entry in ["sums", "folds", "row_sums"] {
        let code = lowered_entry("rows.fut", SRC, entry);
        // The neutral element (and for row_sums the output and, per reduction, the
        // accumulator the neutral element is copied into, since the neutral element is
        // used again by the next reduction); the accumulator is made unique or allocated
        // once per reduction, before its loop over the rows.
        let allocs = code.matches("alloc").count();
        let limit = if entry == "row_sums" { 3 } else { 2 };
        assert!(allocs <= limit, "{entry}: {allocs} allocations\n{code}");
        assert!(
            code.contains("make_unique") || code.contains("copy"),
            "{entry}: {code}"
        );
    }
}

#[test]
fn both_give_the_interpreters_results() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let interp = Program::from_source("rows.fut", SRC).unwrap();
    let cases = [
        ("table", vec![random_f64(&[200], 1, -1.0, 1.0), int(7)]),
        ("two", vec![random_f64(&[200], 2, -1.0, 1.0), int(9)]),
        ("nested", vec![random_f64(&[50], 3, -1.0, 1.0), int(6)]),
        ("read_too", vec![random_f64(&[60], 9, -1.0, 1.0), int(11)]),
        ("sums", vec![random_f64(&[300, 40], 4, -1.0, 1.0)]),
        ("folds", vec![random_f64(&[30, 40], 5, 0.5, 1.5)]),
        ("row_sums", vec![random_f64(&[20, 5, 33], 6, -1.0, 1.0)]),
        ("table", vec![random_f64(&[0], 7, -1.0, 1.0), int(3)]),
        ("sums", vec![random_f64(&[0, 40], 8, -1.0, 1.0)]),
    ];
    for (name, p) in native_backends("rows.fut", SRC) {
        for (entry, args) in &cases {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            assert_eq!(got, want, "{entry} on {name}");
        }
    }
}
