//! Large entry points are printed as several C functions (`backend/c/print/outline.rs`): the
//! reverse derivative of a few tuple scans is split, and the split program gives the
//! interpreter's results and run-time errors on both native backends, also where the split
//! code runs inside a parallel loop and fails there. A parallel loop whose one-thread copy
//! fits in one function is not split inside (only its printed copies together exceed the
//! cap), and fails on one thread with the first failing iteration's error.

use crate::lower_common::{assert_close, native_backends, random_f64, runtime_error};
use gradus::backend::c::NativeOptions;
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

/// A map whose body is a chain of `n` bindings and an `if` of a dozen more: large enough that
/// the parallel loop's copies together (one thread, threads) exceed the splitting cap, small
/// enough that one copy does not. `is` indexes `xs`, so an index out of bounds fails inside.
fn long_map_body(n: usize) -> String {
    let mut src = String::from(
        "entry f [n] (xs: [n]f64) (ys: [n]f64) (is: [n]i64) : [n]f64 =\n  map2 (\\y i ->\n    let a0 = xs[i]\n",
    );
    for k in 1..=n {
        src += &format!(
            "    let a{k} = a{} * y + f64.sin (a{} + {k}.0)\n",
            k - 1,
            k - 1
        );
    }
    src += &format!("    let b = if a{n} > y then\n      let c0 = a{n}\n");
    for k in 1..=10 {
        src += &format!("      let c{k} = c{} * a{k} + f64.cos c{}\n", k - 1, k - 1);
    }
    src += &format!("      in c10\n      else y * a1\n    in a{n} + b) ys is\n");
    src
}

/// The text of each split-off function of generated C `c`.
fn split_off_functions(c: &str) -> Vec<&str> {
    c.split("static __attribute__((noinline, noclone)) int GR_CAT(")
        .skip(1)
        .map(|f| f.split("\n}\n").next().unwrap_or(f))
        .collect()
}

#[test]
fn a_parallel_loop_whose_one_thread_copy_fits_is_not_split_inside() {
    let src = long_map_body(30);
    let c = gradus::pipeline::dump_stage("long.fut", &src, Stage::C).unwrap();
    let parts = split_off_functions(&c);
    assert!(!parts.is_empty(), "the entry point should be split");
    for f in &parts {
        assert_eq!(
            f.matches("_part").count(),
            1,
            "a split-off function calls another:\n{f}"
        );
    }
    let interp = Program::from_source("long.fut", &src)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let one_thread = Program::from_source("long.fut", &src)
        .unwrap()
        .with_backend(Backend::Native(NativeOptions {
            multicore: true,
            threads: Some(1),
            ..Default::default()
        }))
        .unwrap();
    let mut backends = native_backends("long.fut", &src);
    backends.push(("multicore on one thread", one_thread));
    let n = 300;
    let xs = random_f64(&[n], 5, -1.0, 1.0);
    let ys = random_f64(&[n], 6, -1.0, 1.0);
    let good: Vec<i64> = (0..n as i64).rev().collect();
    let mut bad = good.clone();
    bad[40] = n as i64;
    bad[200] = -1;
    for (name, p) in &backends {
        let args = vec![xs.clone(), ys.clone(), indices(&good)];
        let want = interp.call("f", args.clone()).unwrap();
        assert_close(&p.call("f", args).unwrap(), &want, name);
        let args = vec![xs.clone(), ys.clone(), indices(&bad)];
        assert_eq!(
            runtime_error(p, "f", args.clone()),
            runtime_error(&interp, "f", args),
            "{name}: the first failing iteration's error"
        );
    }
}

/// Split off, a parallel loop's two versions are two functions: the threads' version with the
/// OpenMP region, and the one-thread version alone, without atomics, as the `c` backend's
/// function is (its results and errors are checked above).
#[test]
fn a_split_off_parallel_loop_prints_each_version_as_a_function() {
    let src = long_map_body(30);
    let c = gradus::pipeline::dump_stage("long.fut", &src, Stage::C).unwrap();
    let parts = split_off_functions(&c);
    let one_thread: Vec<&&str> = parts
        .iter()
        .filter(|f| f.contains("/* one thread */"))
        .collect();
    assert_eq!(one_thread.len(), 1, "one one-thread version:\n{c}");
    assert!(
        !one_thread[0].contains("omp") && !one_thread[0].contains("atomic"),
        "the one-thread version holds threads' code:\n{}",
        one_thread[0]
    );
    let threads = parts.iter().filter(|f| f.contains("omp parallel")).count();
    assert_eq!(threads, 1, "one threads' version:\n{c}");
}
