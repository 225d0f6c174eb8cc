//! In-place updates that do not copy: the native backend's count of bytes copied to make a
//! shared buffer an array's own (`Program::copied_bytes`) stays at zero where no value needs
//! the old contents.
//!
//! * a loop parameter starts from an array nothing reads after the loop: it takes the
//!   array's buffer rather than sharing it;
//! * a row read from an array is dead before the array is updated: its reference is dropped
//!   after its last use;
//! * reverse mode of a loop over rows of a state (as in a recurrent network) reads a row of
//!   an adjoint, zeroes it in the adjoint and then uses the row: the row is copied, not the
//!   adjoint.
//!
//! The results are the interpreter's on both native backends.

use crate::lower_common::{native_backends, random_f64};
use gradus::program::{Backend, Program};
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry loop_init [n] (xs: [n]f64) (k: i64) : [n]f64 =
  let a = map (+ 1) xs
  in loop a for i < k do a with [i % n] = f64.i64 i

entry row_dead [n] [m] (xss: [n][m]f64) (k: i64) : [n][m]f64 =
  loop a = map (map (* 2)) xss for i < k do
    let row = a[i % n]
    let s = f64.sum row + row[0]
    in a with [i % n] = map (+ s) row

def step [l] [b] (state: [l][b]f64) (x: [b]f64) : [l][b]f64 =
  loop state for j < l do
    let below = if j == 0 then x else state[j - 1]
    in state with [j] = map2 (\h y -> f64.tanh (h * 0.5 + y)) state[j] below

def run [l] [b] [c] (state0: [l][b]f64) (xs: [c][b]f64) : f64 =
  let state = loop state = copy state0 for t < c do step state xs[t]
  in f64.sum (flatten state)

entry recurrent [l] [b] [c] (state0: [l][b]f64) (xs: [c][b]f64) : ([l][b]f64, [c][b]f64) =
  vjp (\(s, x) -> run s x) (state0, xs) 1
"#;

fn int(k: i64) -> Value {
    Value::Scalar(Scalar::I64(k))
}

#[test]
fn updates_happen_in_place_without_copies() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let interp = Program::from_source("in_place.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("loop_init", vec![random_f64(&[29], 1, -1.0, 1.0), int(40)]),
        (
            "row_dead",
            vec![random_f64(&[7, 13], 2, -1.0, 1.0), int(12)],
        ),
        (
            "recurrent",
            vec![
                random_f64(&[3, 8], 3, -1.0, 1.0),
                random_f64(&[6, 8], 4, -1.0, 1.0),
            ],
        ),
    ];
    for (name, p) in native_backends("in_place.fut", SRC) {
        for (entry, args) in &cases {
            let want = interp.call(entry, args.clone()).unwrap();
            let before = p.copied_bytes().unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            let copied = p.copied_bytes().unwrap() - before;
            assert_eq!(got, want, "{name} {entry}");
            assert_eq!(copied, 0, "{name} {entry}: {copied} bytes copied");
        }
    }
}
