//! Large entry points are printed as several C functions (`backend/c/print/outline.rs`): the
//! reverse derivative of a few tuple scans is split, and the split program gives the
//! interpreter's results and run-time errors on both native backends, also where the split
//! code runs inside a parallel loop and fails there.

use crate::lower_common::{assert_close, native_backends, random_f64, runtime_error};
use gradus::pipeline::Stage;
use gradus::program::{Backend, Program};
use gradus::value::{Array, Buffer, Value};

const SRC: &str = r#"
def step (xs: [](f64, f64, f64)) =
  let a = scan (\(a, b, c) (d, e, f) -> (a * d, b * d + e, f64.max c f)) (1, 0, -f64.inf) xs
  let b = scan (\(a, b, c) (d, e, f) -> (a + d, b * e, c + f * a)) (0, 1, 0) a
  let c = scan (\(a, b, c) (d, e, f) -> (a * d - b * e, a * e + b * d, c + f)) (1, 0, 0) b
  in map (\(x, y, z) -> x + y * z) c

entry grad [n] (xs: [n]f64) (ys: [n]f64) (zs: [n]f64) =
  vjp (\(xs, ys, zs) -> f64.sum (step (zip3 xs ys zs))) (xs, ys, zs) 1

-- Each row's gradient, scaled by the row's element `i`: an index out of bounds fails inside
-- the parallel loop over the rows.
entry rows [m][n] (xss: [m][n]f64) (ys: [n]f64) (zs: [n]f64) (is: [m]i64) =
  map2 (\xs i -> vjp (\xs -> f64.sum (step (zip3 xs ys zs)) * xs[i]) xs 1) xss is
"#;

fn indices(is: &[i64]) -> Value {
    Value::Array(Array::new(vec![is.len()], Buffer::I64(is.to_vec())).unwrap())
}

#[test]
fn split_entry_points_give_the_interpreters_results_and_errors() {
    let c = gradus::pipeline::dump_stage("split.fut", SRC, Stage::C).unwrap();
    let split = c.matches("_part").count();
    assert!(
        split >= 4,
        "the entry points should be split: {split} mentions"
    );
    let interp = Program::from_source("split.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let n = 37;
    let (xs, ys, zs) = (
        random_f64(&[n], 1, 0.5, 1.5),
        random_f64(&[n], 2, -1.0, 1.0),
        random_f64(&[n], 3, -1.0, 1.0),
    );
    let xss = random_f64(&[5, n], 4, 0.5, 1.5);
    let good = indices(&[0, 3, 36, 7, 1]);
    let bad = indices(&[0, 3, 37, 7, -1]);
    for (name, p) in native_backends("split.fut", SRC) {
        for (entry, args) in [
            ("grad", vec![xs.clone(), ys.clone(), zs.clone()]),
            (
                "rows",
                vec![xss.clone(), ys.clone(), zs.clone(), good.clone()],
            ),
        ] {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args).unwrap();
            assert_close(&got, &want, &format!("{name} {entry}"));
        }
        let args = vec![xss.clone(), ys.clone(), zs.clone(), bad.clone()];
        assert_eq!(
            runtime_error(&p, "rows", args.clone()),
            runtime_error(&interp, "rows", args),
            "{name}: the first failing row's error"
        );
    }
}
