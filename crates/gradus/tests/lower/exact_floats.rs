//! With exact floats the lowering keeps the interpreter's results to the bit. A minimum or
//! maximum of floats whose elements take a loop each steps one accumulator by a compare and
//! a blend, and keeps which of two equal zeros wins: the first when the operator takes the
//! accumulator first, the last when it takes the element first. A map adding into
//! accumulators keeps its order even where its inner loops grow with its index (which
//! otherwise runs it backwards, `lower_float_order/shortening_order.rs`).

use crate::common::{lowered_lines_with, native_backends};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

const SRC: &str = r#"
-- Each element is a product over a row: a loop, and a way to make -0.
entry min_first [n] [d] (rows: [n][d]f64) : f64 = f64.minimum (map f64.product rows)

entry min_last [n] [d] (rows: [n][d]f64) : f64 =
  reduce (\m x -> f64.min x m) f64.inf (map f64.product rows)

entry max_first [n] [d] (rows: [n][d]f64) : f64 = f64.maximum (map f64.product rows)

entry max_last [n] [d] (rows: [n][d]f64) : f64 =
  reduce (\m x -> f64.max x m) (-f64.inf) (map f64.product rows)
"#;

const ENTRIES: [&str; 4] = ["min_first", "min_last", "max_first", "max_last"];

/// `n` rows of two: the second element is ±0 (alternating sign) or NaN, so every product is
/// a zero of either sign or NaN, all equal but for their sign.
fn zeros(n: usize, nan_every: usize) -> Value {
    let mut v = Vec::with_capacity(2 * n);
    for i in 0..n {
        let z = if nan_every > 0 && i % nan_every == 1 {
            f64::NAN
        } else if i % 2 == 0 {
            -0.0
        } else {
            0.0
        };
        v.extend([1.5, z]);
    }
    Value::Array(Array::new(vec![n, 2], Buffer::F64(v)).unwrap())
}

#[test]
fn a_triangular_adjoint_keeps_its_order() {
    gradus::backend::c::build::force_exact_floats();
    let prog = crate::common::TRIANGULAR_ADJOINT;
    assert_eq!(
        lowered_lines_with("tri.fut", prog, "lower_grad", " downwards {"),
        0
    );
    let interp = Program::from_source("tri.fut", prog).unwrap();
    let args = vec![
        crate::common::random_f64(&[6, 6], 1, -1.0, 1.0),
        crate::common::random_f64(&[9, 6], 2, -1.0, 1.0),
    ];
    let want = interp.call("lower_grad", args.clone()).unwrap();
    // The sequential backend: the parallel one adds a parallel map's terms into per-thread
    // copies of the accumulator, summed afterwards, in any mode.
    for (name, p) in native_backends("tri.fut", prog) {
        if name != "c" {
            continue;
        }
        let got = p.call("lower_grad", args.clone()).unwrap();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{name}");
    }
}

#[test]
fn one_blended_accumulator_keeps_the_interpreters_zeros() {
    gradus::backend::c::build::force_exact_floats();
    for entry in ENTRIES {
        let lines = |needle| lowered_lines_with("blend.fut", SRC, entry, needle);
        assert!(lines("= select_f64(") >= 1, "{entry} is not blended");
        assert_eq!(lines("lane_"), 0, "{entry} runs in lanes");
    }
    let interp = Program::from_source("blend.fut", SRC).unwrap();
    let show = |v: Vec<Value>| format!("{v:?}");
    // The order of the operator's operands matters here, so the comparison below can fail.
    let first = interp.call("min_first", vec![zeros(4, 0)]).unwrap();
    let last = interp.call("min_last", vec![zeros(4, 0)]).unwrap();
    assert_ne!(show(first), show(last));
    for (name, p) in native_backends("blend.fut", SRC) {
        // 5001 rows take the parallel path.
        for n in [1usize, 2, 3, 7, 5001] {
            for nan_every in [0, 3] {
                for entry in ENTRIES {
                    let args = vec![zeros(n, nan_every)];
                    let want = interp.call(entry, args.clone()).unwrap();
                    let got = p.call(entry, args).unwrap();
                    assert_eq!(show(got), show(want), "{name} {entry} n = {n}");
                }
            }
        }
    }
}

#[test]
fn a_loop_of_sums_keeps_its_order() {
    gradus::backend::c::build::force_exact_floats();
    let src = "entry tri [d] (m: [d][d]f64) (v: [d]f64) : [d]f64 =\n  \
               tabulate d (\\r -> loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c])\n";
    assert_eq!(lowered_lines_with("tri.fut", src, "tri", "-- lane-sum "), 0);
    let interp = Program::from_source("tri.fut", src).unwrap();
    let args = vec![
        crate::common::random_f64(&[9, 9], 3, -1.0, 1.0),
        crate::common::random_f64(&[9], 4, -1.0, 1.0),
    ];
    let want = interp.call("tri", args.clone()).unwrap();
    for (name, p) in native_backends("tri.fut", src) {
        let got = p.call("tri", args.clone()).unwrap();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{name}");
    }
}
