//! A `map` whose body branches on its index being 0 (the boundary case of a stencil or a
//! recurrence) runs iteration 0 apart and the other iterations in a loop without the branch,
//! which the C compiler can vectorise; a branch on another index keeps its loop whole. The
//! results are the interpreter's on both native backends, at the sizes where the first
//! iteration is the only one, or there is none.

use crate::common::{assert_close, lowered_lines_with, native_backends, random_f64};
use gradus::program::Program;

const SRC: &str = r#"
entry shifted [n] (x: [n]f64) (y: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1])

-- The same inside a map: the inner loop is sequential.
entry shifted_rows [m] [n] (xs: [m][n]f64) (y: [n]f64) : [m][n]f64 =
  map (\x -> tabulate n (\i -> if i == 0 then x[0] * 2 else x[i] + y[i - 1])) xs

-- The flag compares the index plus one with one.
entry offset [n] (x: [n]f64) : [n]f64 =
  tabulate n (\j -> let i = j + 1 in if i == 1 then 0 else x[i - 2])

-- A branch on the last index is left alone.
entry last [n] (x: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == n - 1 then x[i] else x[i + 1] - x[i])

-- The gradient of a recurrence: its adjoint maps branch on the first index too.
entry recurrence_grad [n] (x: [n]f64) (ybar: [n]f64) : [n]f64 =
  vjp (\x -> loop y = replicate n 0 for _k < 3 do
               tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1] + y[i]))
      x ybar
"#;

/// The number of loops in the lowered code of `entry` that run the iterations after the
/// first (their counters are named `rest`).
fn peeled_loops(entry: &str) -> usize {
    lowered_lines_with("peel.fut", SRC, entry, "for rest_")
}

#[test]
fn a_branch_on_the_first_index_is_peeled() {
    assert_eq!(peeled_loops("shifted"), 1);
    assert_eq!(peeled_loops("shifted_rows"), 1);
    assert_eq!(peeled_loops("offset"), 1);
    assert!(peeled_loops("recurrence_grad") >= 2);
    assert_eq!(peeled_loops("last"), 0);
}

#[test]
fn results_are_the_interpreters() {
    let interp = Program::from_source("peel.fut", SRC).unwrap();
    for (name, p) in native_backends("peel.fut", SRC) {
        for n in [0, 1, 2, 33] {
            let x = random_f64(&[n], 1, -1.0, 1.0);
            let y = random_f64(&[n], 2, -1.0, 1.0);
            let xs = random_f64(&[3, n], 3, -1.0, 1.0);
            let calls = [
                ("shifted", vec![x.clone(), y.clone()]),
                ("shifted_rows", vec![xs, y.clone()]),
                ("offset", vec![x.clone()]),
                ("last", vec![x.clone()]),
                ("recurrence_grad", vec![x, y]),
            ];
            for (entry, args) in calls {
                let want = interp.call(entry, args.clone()).unwrap();
                let got = p.call(entry, args).unwrap();
                assert_close(&got, &want, &format!("{name} {entry} n = {n}"));
            }
        }
    }
}
