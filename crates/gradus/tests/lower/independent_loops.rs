//! Innermost sequential loops none of whose iterations touches memory that another iteration
//! writes are marked independent (the C compiler then vectorises them without run-time
//! checks for overlapping arrays); loops whose iterations may meet in memory are not. The
//! marked loops give the interpreter's results on both native backends.

use crate::common::{assert_close, lowered_entry, native_backends, random_f64};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

const SRC: &str = r#"
-- The adjoint of the triangular product adds into m[r, c] and v[c] in iteration c.
entry triangular_grad [d] (m: [d][d]f64) (v: [d]f64) (ybar: [d]f64) : ([d][d]f64, [d]f64) =
  vjp (\(m, v) -> tabulate d (\r -> loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c]))
      (m, v) ybar

-- The adjoint adds into m[r, c] and m[r, c + 1]: neighbouring iterations meet.
entry neighbour_grad [k] [d] (m: [k][d]f64) (ybar: [k]f64) : [k][d]f64 =
  vjp (\m -> tabulate k (\r -> loop acc = 0 for c < d - 1 do acc + m[r, c] * m[r, c + 1]))
      m ybar

-- The adjoint adds into x[idx[c]]: iterations meet where positions repeat.
entry gather_grad [k] [d] (m: [k][d]f64) (x: [d]f64) (idx: [d]i64) (ybar: [k]f64) : [d]f64 =
  vjp (\x -> tabulate k (\r -> loop acc = 0 for c < d do acc + x[idx[c]] * m[r, c])) x ybar

-- A prefix sum in place: each iteration reads what the one before wrote.
entry prefix [n] (x: [n]f64) : [n]f64 =
  loop xs = copy x for i < n - 1 do xs with [i + 1] = xs[i + 1] + xs[i]

-- The inner loop stores the exponentials and sums them: it writes element j in iteration j
-- and carries the sum in a variable.
entry softmax_rows [n] [d] (xss: [n][d]f64) : [n][d]f64 =
  map (\xs -> let e = map f64.exp xs
              let s = f64.sum e
              in map (/ s) e) xss

-- The inner map writes row j of its output in iteration j.
entry scaled_rows [n] [d] (xss: [n][d]f64) (w: [d]f64) : [n][d]f64 =
  map (\xs -> map2 (*) xs w) xss
"#;

/// The bodies of the independent loops in the lowered code of `entry`, each with its lines.
fn independent_loops(entry: &str) -> Vec<Vec<String>> {
    let code = lowered_entry("independent.fut", SRC, entry);
    let lines: Vec<&str> = code.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut loops = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("independent for") {
            let body = lines[k + 1..]
                .iter()
                .take_while(|b| indent(b) > indent(l))
                .map(|b| b.trim().to_string())
                .collect();
            loops.push(body);
        }
    }
    loops
}

/// Whether an independent loop of `entry` adds into an accumulator.
fn adds_in_independent_loop(entry: &str) -> bool {
    independent_loops(entry)
        .iter()
        .any(|body| body.iter().any(|l| l.contains("+=")))
}

#[test]
fn loops_whose_iterations_stay_apart_are_marked() {
    // Iteration c of the triangular adjoint adds into m's adjoint at [r, c] and v's at [c].
    assert!(adds_in_independent_loop("triangular_grad"));
    assert!(!independent_loops("scaled_rows").is_empty());
    let sums_and_stores = |body: &Vec<String>| {
        body.iter().any(|l| l.contains("add_f64"))
            && body
                .iter()
                .any(|l| l.contains("map_res") && l.contains("] = "))
    };
    assert!(
        independent_loops("softmax_rows")
            .iter()
            .any(sums_and_stores),
        "{}",
        lowered_entry("independent.fut", SRC, "softmax_rows")
    );
}

#[test]
fn loops_whose_iterations_meet_are_not_marked() {
    for entry in ["neighbour_grad", "gather_grad"] {
        assert!(!adds_in_independent_loop(entry), "{entry}");
    }
    assert!(independent_loops("prefix").is_empty());
}

#[test]
fn results_are_the_interpreters() {
    let (d, n, k) = (13, 37, 5);
    let m = random_f64(&[d, d], 1, -1.0, 1.0);
    let v = random_f64(&[d], 2, -1.0, 1.0);
    let ybar = random_f64(&[d], 3, -1.0, 1.0);
    let x = random_f64(&[n], 4, -1.0, 1.0);
    let xss = random_f64(&[n, d], 5, -1.0, 1.0);
    let mk = random_f64(&[k, d], 6, -1.0, 1.0);
    let ybar_k = random_f64(&[k], 7, -1.0, 1.0);
    let ybar_n = random_f64(&[n], 8, -1.0, 1.0);
    // Positions with repeats, so that iterations do add into the same elements.
    let idx: Vec<i64> = (0..d as i64).map(|c| (c * 5) % 4).collect();
    let idx = Value::Array(Array::new(vec![d], Buffer::I64(idx)).unwrap());
    let calls = [
        ("triangular_grad", vec![m, v.clone(), ybar]),
        ("neighbour_grad", vec![xss.clone(), ybar_n]),
        ("gather_grad", vec![mk, v.clone(), idx, ybar_k]),
        ("prefix", vec![x]),
        ("scaled_rows", vec![xss.clone(), v]),
        ("softmax_rows", vec![xss]),
    ];
    let interp = Program::from_source("independent.fut", SRC).unwrap();
    for (name, p) in native_backends("independent.fut", SRC) {
        for (entry, args) in &calls {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            assert_close(&got, &want, &format!("{name} {entry}"));
        }
    }
}
