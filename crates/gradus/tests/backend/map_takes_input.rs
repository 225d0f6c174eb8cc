//! A map writing a vector of scalars may take the buffer of an input of the same type that it
//! reads for the last time (the C runtime checks that nothing else refers to it): a loop's
//! accumulator made anew by a map in every iteration then keeps one buffer. Every way the
//! input can still be referred to must leave it alone and give the interpreter's results.

use crate::lower_common::{native_backends, random_f64};
use gradus::program::{Backend, Program};
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
-- The accumulator dies in the map that makes its next value.
entry accumulate [n] (xs: [n]f64) (k: i64) : [n]f64 =
  loop acc = replicate n 0 for i < k do
    map2 (\a x -> a + x * f64.i64 (i + 1)) acc xs

-- The accumulator is read again after the map: it must not be overwritten.
entry read_after [n] (xs: [n]f64) (k: i64) : ([n]f64, f64) =
  loop (acc, s) = (copy xs, 0) for i < k do
    let b = map (\a -> a * 0.5 + f64.i64 i) acc
    in (b, s + acc[i % n])

-- The input is the caller's array, or a value returned as well.
entry shared [n] (xs: [n]f64) : ([n]f64, [n]f64) =
  let ys = map (\x -> x * 2) xs
  let zs = map (\y -> y + 1) ys
  in (zs, ys)

-- Two inputs that die in one map, and a row of a matrix that dies.
entry two_dying [n] (xs: [n]f64) (k: i64) : [n]f64 =
  loop acc = replicate n 1 for i < k do
    let other = map (\x -> x + f64.i64 i) xs
    let m = replicate 3 (map (\a -> a * 0.25) acc)
    in map2 (+) other m[i % 3]

-- Per row of a parallel map.
entry per_row [m] [n] (xss: [m][n]f64) (k: i64) : [m][n]f64 =
  map (\xs -> loop acc = replicate n 0 for i < k do
                map2 (\a x -> a * 0.5 + x * f64.i64 i) acc xs) xss
"#;

fn int(k: i64) -> Value {
    Value::Scalar(Scalar::I64(k))
}

#[test]
fn a_loop_accumulator_made_by_a_map_may_take_its_buffer() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let c = gradus::pipeline::dump_stage("take.fut", SRC, gradus::pipeline::Stage::C)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let code = c
        .split("/* entry point ")
        .find(|e| e.starts_with("accumulate"))
        .unwrap_or_else(|| panic!("no entry point accumulate"));
    assert!(code.contains("_m->rc == 1) {"), "{code}");
}

#[test]
fn maps_taking_input_buffers_give_the_interpreters_results() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let interp = Program::from_source("take.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("accumulate", vec![random_f64(&[29], 1, -1.0, 1.0), int(7)]),
        ("read_after", vec![random_f64(&[13], 2, -1.0, 1.0), int(9)]),
        ("shared", vec![random_f64(&[17], 3, -1.0, 1.0)]),
        ("two_dying", vec![random_f64(&[11], 4, -1.0, 1.0), int(6)]),
        ("per_row", vec![random_f64(&[40, 9], 5, -1.0, 1.0), int(5)]),
    ];
    for (name, p) in native_backends("take.fut", SRC) {
        for (entry, args) in &cases {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            assert_eq!(got, want, "{name} {entry}");
        }
        // The caller's array is unchanged.
        let xs = random_f64(&[17], 3, -1.0, 1.0);
        let _ = p.call("shared", vec![xs.clone()]).unwrap();
        assert_eq!(xs, random_f64(&[17], 3, -1.0, 1.0), "{name}");
    }
}
