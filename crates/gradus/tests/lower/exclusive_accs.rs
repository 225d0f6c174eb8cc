//! A parallel `map` whose iterations add into an accumulator at positions that cannot
//! coincide (the iteration's position plus one constant, as in the reverse sweep of a
//! stencil) adds without atomics and without per-thread copies; positions that neighbouring
//! iterations share, or that are read from an array, keep them. Results are the
//! interpreter's on both native backends, with two threads and enough work to use them.

use crate::common::{assert_close, lowered_entry, native_backends, random_f64};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

const SRC: &str = r#"
entry stencil_grad [n] (x: [n]f64) (y: [n]f64) (ybar: [n]f64) : ([n]f64, [n]f64) =
  vjp (\(x, y) -> tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1])) (x, y) ybar

entry shifted_grad [n] (x: [n]f64) (ybar: [n]f64) : [n]f64 =
  vjp (\x -> tabulate n (\i -> if i + 1 < n then x[i + 1] * 2 else 0)) x ybar

entry neighbours_grad [n] (x: [n]f64) (ybar: [n]f64) : [n]f64 =
  vjp (\x -> tabulate n (\i -> x[i] * (if i > 0 then x[i - 1] else 1))) x ybar

entry gathered_grad [n] (x: [n]f64) (idx: [n]i64) (ybar: [n]f64) : [n]f64 =
  vjp (\x -> map (\j -> x[j] * x[j]) idx) x ybar

entry weighted_grad [n] [m] (x: [m]f64) (idx: [n]i64) (w: [n]f64) : [m]f64 =
  vjp (\x -> map2 (\j wi -> x[j] * wi) idx w) x (replicate n 1)
"#;

/// The statements of `entry`'s lowered code that add into an accumulator, and whether its
/// parallel loops privatise any.
fn additions(entry: &str) -> (Vec<String>, bool) {
    let code = lowered_entry("accs.fut", SRC, entry);
    let adds = code
        .lines()
        .filter(|l| l.contains("+="))
        .map(|l| l.trim().to_string())
        .collect();
    (adds, code.contains("privatisable"))
}

#[test]
fn disjoint_positions_add_without_atomics() {
    for entry in ["stencil_grad", "shifted_grad"] {
        let (adds, private) = additions(entry);
        assert!(!adds.is_empty(), "{entry}");
        assert!(
            adds.iter().all(|a| !a.starts_with("atomic")),
            "{entry}: {adds:?}"
        );
        assert!(!private, "{entry}");
    }
}

#[test]
fn shared_positions_keep_atomics() {
    for entry in ["neighbours_grad", "gathered_grad"] {
        let (adds, _) = additions(entry);
        assert!(
            adds.iter().any(|a| a.starts_with("atomic")),
            "{entry}: {adds:?}"
        );
    }
}

#[test]
fn results_are_the_interpreters() {
    let n = 5000;
    let x = random_f64(&[n], 1, -1.0, 1.0);
    let y = random_f64(&[n], 2, -1.0, 1.0);
    let ybar = random_f64(&[n], 3, -1.0, 1.0);
    // Positions with repeats, so that iterations do add into the same elements.
    let idx: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % (n as i64 / 3)).collect();
    let idx = Value::Array(Array::new(vec![n], Buffer::I64(idx)).unwrap());
    let calls = [
        ("stencil_grad", vec![x.clone(), y.clone(), ybar.clone()]),
        ("shifted_grad", vec![x.clone(), ybar.clone()]),
        ("neighbours_grad", vec![x.clone(), ybar.clone()]),
        ("gathered_grad", vec![x.clone(), idx, ybar.clone()]),
    ];
    let interp = Program::from_source("accs.fut", SRC).unwrap();
    for (name, p) in native_backends("accs.fut", SRC) {
        for (entry, args) in &calls {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            // Each element of the exclusive accumulators receives one term, so those results
            // are exact; shared ones are summed per thread first and may differ in rounding.
            assert_close(&got, &want, &format!("{name} {entry}"));
            if *entry == "stencil_grad" || *entry == "shifted_grad" {
                assert_eq!(got, want, "{name} {entry}");
            }
        }
    }
}

/// An entry point on several threads chooses, call by call, whether to use them (the
/// runtime's `gr_par_pick`: its second call runs on all threads, its third on one, later
/// ones on the faster). Sums split among per-chunk copies are split the same way on one
/// thread, so every call gives the same bits.
#[test]
fn the_team_chosen_per_call_never_changes_results() {
    // Each of the 100 elements of the adjoint receives 500 terms, which the parallel
    // loop sums per chunk first.
    let (n, m) = (50000, 100);
    let x = random_f64(&[m], 4, -1.0, 1.0);
    let w = random_f64(&[n], 5, -1.0, 1.0);
    let idx: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % m as i64).collect();
    let idx = Value::Array(Array::new(vec![n], Buffer::I64(idx)).unwrap());
    let args = vec![x, idx, w];
    let (_, multicore) = native_backends("accs.fut", SRC)
        .into_iter()
        .find(|(name, _)| *name == "multicore")
        .unwrap();
    let (_, private) = additions("weighted_grad");
    assert!(
        private,
        "the loop is no longer privatised: the test checks nothing"
    );
    let first = multicore.call("weighted_grad", args.clone()).unwrap();
    for call in 2..=24 {
        let again = multicore.call("weighted_grad", args.clone()).unwrap();
        assert_eq!(again, first, "call {call}");
    }
    // The per-chunk sums do differ from the interpreter's sums in order.
    let interp = Program::from_source("accs.fut", SRC).unwrap();
    let want = interp.call("weighted_grad", args).unwrap();
    assert_close(&first, &want, "weighted_grad");
}
