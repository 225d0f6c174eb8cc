//! Allocation sites inside loops keep their buffer in a slot between iterations (the C
//! runtime's `gr_alloc_slot`). A buffer is taken back only when nothing refers to it any more
//! and it is large enough, so every way an iteration's array can live on must still give the
//! interpreter's results: carried into the next iteration, written into a result, growing
//! from one iteration to the next, and per thread inside a parallel map.

use crate::lower_common::{native_backends, random_f64};
use gradus::program::{Backend, Program};
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
-- A temporary per iteration that dies in it.
entry temporary [n] (xs: [n]f64) (k: i64) : f64 =
  loop s = 0 for i < k do
    let t = scan (+) 0 (map (\x -> x * f64.i64 (i + 1)) xs)
    in s + t[n - 1] * t[i % n]

-- The iteration's array becomes the next iteration's value.
entry carried [n] (xs: [n]f64) (k: i64) : [n]f64 =
  loop acc = xs for i < k do
    map (\j -> acc[n - 1 - j] * 0.5 + acc[(j + i) % n] + f64.i64 i) (iota n)

-- Sizes that change between iterations: the slot's buffer is reused when it is large
-- enough and replaced when it is not.
entry growing (k: i64) : f64 =
  loop s = 0 for i < k do
    let m = (i * 7) % 13 + 1
    let t = scan (+) 0 (map (\j -> f64.i64 (j + i)) (iota m))
    in s + t[m - 1] + t[0]

-- Each iteration's array is kept in the result.
entry kept [n] (xs: [n]f64) (k: i64) : [k][n]f64 =
  loop out = replicate k (replicate n 0) for i < k do
    let t = scan (*) 1 (map (\x -> x + f64.i64 i) xs)
    in out with [i] = t

-- A loop inside a parallel map: the slots are per thread.
entry per_row [m] [n] (xss: [m][n]f64) (k: i64) : [m]f64 =
  map (\xs -> loop s = 0 for i < k do
                let t = scan (+) 0 (map (\x -> x * f64.i64 (i + 2)) xs)
                in s + t[n - 1] - t[0]) xss

-- A map whose adjoint adds into an array bound outside it (copies per chunk of iterations
-- when threads share it), with a temporary per iteration: the slots are per thread, and on
-- one thread those of the function.
entry added [m] [n] (xss: [m][n]f64) (ws: [n]f64) : [n]f64 =
  vjp (\ws -> f64.sum (map (\xs -> let t = scan (+) 0 (map2 (*) xs ws)
                                   in t[n - 1] * t[0] + t[n / 2]) xss)) ws 1
"#;

fn int(k: i64) -> Value {
    Value::Scalar(Scalar::I64(k))
}

#[test]
fn allocations_in_loops_use_slots() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let c = gradus::pipeline::dump_stage("slots.fut", SRC, gradus::pipeline::Stage::C)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    for entry in [
        "temporary",
        "carried",
        "growing",
        "kept",
        "per_row",
        "added",
    ] {
        let code = c
            .split("/* entry point ")
            .find(|e| e.starts_with(entry))
            .unwrap_or_else(|| panic!("no entry point {entry}"));
        assert!(code.contains("gr_alloc_slot("), "{entry}: {code}");
    }
    // The one-thread branch of the map with per-chunk copies uses slots too.
    let added = c.split("/* entry point added").nth(1).unwrap_or_default();
    // It runs to the failure check after the loop, or to the end of its own function.
    let one_thread = added
        .split("/* one thread */")
        .nth(1)
        .and_then(|rest| rest.split("gr_stop(").next())
        .and_then(|rest| rest.split("\n}\n").next())
        .unwrap_or_else(|| panic!("no one-thread version: {added}"));
    assert!(
        one_thread.contains("gr_alloc_slot(") && !one_thread.contains("gr_alloc("),
        "{one_thread}"
    );
}

#[test]
fn buffers_kept_in_slots_give_the_interpreters_results() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let interp = Program::from_source("slots.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("temporary", vec![random_f64(&[37], 1, -1.0, 1.0), int(9)]),
        ("carried", vec![random_f64(&[23], 2, -1.0, 1.0), int(6)]),
        ("growing", vec![int(40)]),
        ("kept", vec![random_f64(&[11], 3, 0.5, 1.5), int(5)]),
        ("per_row", vec![random_f64(&[64, 19], 4, -1.0, 1.0), int(7)]),
        (
            "added",
            vec![
                random_f64(&[300, 17], 5, -1.0, 1.0),
                random_f64(&[17], 6, -1.0, 1.0),
            ],
        ),
    ];
    for (name, p) in native_backends("slots.fut", SRC) {
        for (entry, args) in &cases {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            if *entry == "added" {
                // Sums of per-chunk copies, in another order than the interpreter's.
                let ([Value::Array(g)], [Value::Array(w)]) = (&got[..], &want[..]) else {
                    panic!("{name} {entry}: not arrays");
                };
                assert_eq!(g.shape(), w.shape(), "{name} {entry}");
                for i in 0..w.len() {
                    let (a, b) = (g.buffer().get(i).to_f64(), w.buffer().get(i).to_f64());
                    assert!(
                        (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                        "{name} {entry} [{i}]: {a} vs {b}"
                    );
                }
            } else {
                assert_eq!(got, want, "{name} {entry}");
            }
        }
    }
}
