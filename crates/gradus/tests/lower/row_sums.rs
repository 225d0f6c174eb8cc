//! The backend lowers a map whose rows are summed by a `reduce_comm` at the top of a function
//! (what the optimiser's `acc-reduce` makes of matrix multiplication's adjoint) as an
//! accumulator: the rewrite fires on the matrix-product and NNMF gradients, keeps the program verified, and the sequential C
//! backend gives the interpreter's results to the bit (the same additions in the same order),
//! the multicore one within rounding.

use crate::common::floats;
use gradus::backend::c::NativeOptions;
use gradus::core::ir::{Body, Exp, Soac};
use gradus::program::{Backend, Program};
use gradus::value::{Array, Buffer, Value};

const SRC: &str = r#"
def matmul [m] [r] [n] (w: [m][r]f64) (h: [r][n]f64) : [m][n]f64 =
  map (\wr -> map (\hc -> f64.sum (map2 (*) wr hc)) (transpose h)) w

entry mm_vjp [n] (a: [n][n]f64) (b: [n][n]f64) (cb: [n][n]f64) =
  vjp (\(a, b) -> matmul a b) (a, b) cb

entry nnmf_grad [n] (a: [n][n]f64) (w: [n][n]f64) (h: [n][n]f64) =
  let x = matmul w h
  let nll h = f64.sum (map2 (\xr ar -> f64.sum (map2 (\xv av -> f64.log xv + av / xv) xr ar))
                            (matmul w h) a)
  in (vjp nll h 1, x)
"#;

fn count(body: &Body, f: &impl Fn(&Exp) -> bool) -> usize {
    let mut n = 0;
    for s in &body.stms {
        if f(&s.exp) {
            n += 1;
        }
        let nested = s.exp.bodies();
        n += nested.iter().map(|b| count(b, f)).sum::<usize>();
    }
    n
}

fn matrix(n: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::new(vec![n, n], Buffer::F64(rng.vector(n * n, 0.5, 1.5))).unwrap())
}

#[test]
fn summed_rows_become_accumulators_with_the_same_results() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let p = Program::from_source("row_sums.fut", SRC).unwrap_or_else(|d| panic!("{}", d.render()));
    let sums = |e: &Exp| {
        matches!(
            e,
            Exp::Soac(Soac::Reduce {
                commutative: true,
                ..
            })
        )
    };
    let accs = |e: &Exp| matches!(e, Exp::WithAcc { .. });
    let before: usize = p.core().funs.iter().map(|f| count(&f.body, &sums)).sum();
    assert!(before >= 2, "acc-reduce made no row sums ({before})");
    let mut rewritten = p.core().clone();
    gradus::backend::lower::row_sums::run(&mut rewritten);
    gradus::core::verify::verify(&rewritten).unwrap();
    let after: usize = rewritten.funs.iter().map(|f| count(&f.body, &sums)).sum();
    let with_accs: usize = rewritten.funs.iter().map(|f| count(&f.body, &accs)).sum();
    // The two top-level sums (one per entry) become accumulators; the sum nested in the
    // matrix product's adjoint stays a reduction.
    assert_eq!(before - after, 2, "{before} sums before, {after} after");
    assert!(with_accs >= 2, "{with_accs} accumulators");

    if gradus::backend::c::build::find_compiler().is_none() {
        panic!("NO C COMPILER FOUND: the native backend cannot be tested");
    }
    let n = 7;
    let args = || vec![matrix(n, 1), matrix(n, 2), matrix(n, 3)];
    let c = Program::from_source("row_sums.fut", SRC)
        .unwrap()
        .with_backend(Backend::Native(NativeOptions {
            multicore: false,
            ..Default::default()
        }))
        .unwrap();
    let mc = Program::from_source("row_sums.fut", SRC)
        .unwrap()
        .with_backend(Backend::Native(NativeOptions {
            multicore: true,
            threads: Some(2),
            ..Default::default()
        }))
        .unwrap();
    for entry in ["mm_vjp", "nnmf_grad"] {
        let want = floats(&p.call(entry, args()).unwrap());
        let got = floats(&c.call(entry, args()).unwrap());
        assert_eq!(got, want, "{entry}: c differs from the interpreter");
        let par = floats(&mc.call(entry, args()).unwrap());
        for (x, y) in par.iter().zip(&want) {
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                "{entry}: {x} vs {y}"
            );
        }
    }
}
