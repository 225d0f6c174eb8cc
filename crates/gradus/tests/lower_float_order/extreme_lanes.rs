//! A minimum or maximum reduction of floats whose elements take no loop runs in four lanes
//! combined at the end (independent compare-and-blend steps instead of one chain or a
//! branch on the data); one whose elements take a loop each keeps one accumulator, stepped
//! by a compare and a blend too. The results are the interpreter's on both native backends
//! at every remainder of the width by four, with NaNs (which the operators skip) in every
//! lane. (`lower_extreme_blend.rs`: the one-accumulator form keeps the interpreter's
//! results to the sign of zero with exact floats.)

use crate::common::{lowered_lines_with, native_backends, random_f64};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};

const SRC: &str = r#"
entry extremes [n] (xs: [n]f64) : (f64, f64) = (f64.minimum xs, f64.maximum xs)

-- A fused map of scalar operations.
entry scaled_max [n] (xs: [n]f64) (s: f64) : f64 = f64.maximum (map (\x -> x * s - 1) xs)

entry extremes32 [n] (xs: [n]f32) : (f32, f32) = (f32.minimum xs, f32.maximum xs)

-- The nearest centre: each element is a sum over the coordinates, a loop.
entry nearest [n] [k] [d] (ps: [n][d]f64) (cs: [k][d]f64) : [n]f64 =
  map (\p -> f64.minimum (map (\c -> f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)) cs)) ps

-- The same over all centres at once: a parallel reduction of loop-made elements.
entry nearest_to [k] [d] (p: [d]f64) (cs: [k][d]f64) : f64 =
  f64.minimum (map (\c -> f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)) cs)

-- A minimum paired with its position is not a single float.
entry argmin [n] (xs: [n]f64) : (f64, i64) =
  reduce (\(a, i) (b, j) -> if b < a then (b, j) else (a, i)) (f64.inf, -1) (zip xs (iota n))
"#;

fn lanes(entry: &str) -> usize {
    lowered_lines_with("extreme.fut", SRC, entry, "lane_")
}

#[test]
fn extremes_of_cheap_elements_run_in_lanes() {
    assert!(lanes("extremes") > 0);
    assert!(lanes("scaled_max") > 0);
    assert!(lanes("extremes32") > 0);
    assert_eq!(lanes("nearest"), 0);
    assert_eq!(lanes("argmin"), 0);
}

#[test]
fn extremes_of_elements_made_by_loops_blend_into_one_accumulator() {
    let lines = |entry, needle| lowered_lines_with("extreme.fut", SRC, entry, needle);
    assert_eq!(lines("nearest", "= select_f64(lt_f64("), 1);
    assert_eq!(lines("nearest", "= min_f64("), 0);
    // Once sequentially, once in the parallel path's chunks; the operator (a branch on the
    // data) only combines the chunks' results.
    assert_eq!(lines("nearest_to", "= select_f64(lt_f64("), 2);
    assert_eq!(lines("nearest_to", "= min_f64("), 1);
    assert_eq!(lines("nearest_to", "lane_"), 0);
}

/// `xs` with NaN at the positions `nan`.
fn with_nans(xs: &Value, nan: &[usize]) -> Value {
    let Value::Array(a) = xs else { unreachable!() };
    let Buffer::F64(mut v) = a.buffer().clone() else {
        unreachable!()
    };
    for &i in nan {
        v[i] = f64::NAN;
    }
    Value::Array(Array::new(a.shape().to_vec(), Buffer::F64(v)).unwrap())
}

fn to_f32(xs: &Value) -> Value {
    let Value::Array(a) = xs else { unreachable!() };
    let Buffer::F64(v) = a.buffer() else {
        unreachable!()
    };
    let v32 = v.iter().map(|&x| x as f32).collect();
    Value::Array(Array::new(a.shape().to_vec(), Buffer::F32(v32)).unwrap())
}

#[test]
fn results_are_the_interpreters() {
    let interp = Program::from_source("extreme.fut", SRC).unwrap();
    for (name, p) in native_backends("extreme.fut", SRC) {
        for n in [0usize, 1, 3, 4, 5, 6, 7, 8, 9, 1000, 5003] {
            let xs = random_f64(&[n], n as u64 + 1, -5.0, 5.0);
            // A NaN in each lane and in the rest, and one first; 5003 elements take the
            // parallel path, in chunks.
            let nan: Vec<usize> = [0, 5, 6, 11, n.saturating_sub(1)]
                .into_iter()
                .filter(|&i| i < n && n > 1)
                .collect();
            let ps = random_f64(&[7, 3], 3, -1.0, 1.0);
            let cs = random_f64(&[n.min(9), 3], 4, -1.0, 1.0);
            let calls = [
                ("extremes", vec![xs.clone()]),
                ("extremes", vec![with_nans(&xs, &nan)]),
                (
                    "scaled_max",
                    vec![with_nans(&xs, &nan), Value::Scalar(Scalar::F64(-0.5))],
                ),
                ("extremes32", vec![to_f32(&with_nans(&xs, &nan))]),
                ("nearest", vec![ps, cs]),
                (
                    "nearest_to",
                    vec![
                        random_f64(&[2], 5, -1.0, 1.0),
                        with_nans(&random_f64(&[n, 2], 6, -1.0, 1.0), &nan),
                    ],
                ),
                ("argmin", vec![xs.clone()]),
            ];
            for (entry, args) in calls {
                let want = interp.call(entry, args.clone()).unwrap();
                let got = p.call(entry, args).unwrap();
                // Bit for bit: a minimum or maximum has one right answer.
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "{name} {entry} n = {n}"
                );
            }
        }
    }
}
