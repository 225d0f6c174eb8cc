//! A sequential map adding into accumulators whose inner loop grows with the map's index
//! (the adjoint of a triangular matrix-vector product) runs from its last iteration to its
//! first, so that the inner loops get shorter; one whose inner loops all have the same
//! length keeps its order. The results are the interpreter's up to the order of the
//! additions, on both native backends (`lower/exact_floats.rs`: with exact floats the order
//! is kept).

use crate::common::{assert_close, lowered_lines_with, native_backends, random_f64};
use gradus::program::Program;

const SRC: &str = crate::common::TRIANGULAR_ADJOINT;

#[test]
fn a_triangular_adjoint_runs_its_rows_longest_first() {
    let down = |entry| lowered_lines_with("tri.fut", SRC, entry, " downwards {");
    assert_eq!(down("lower_grad"), 1);
    assert_eq!(down("full_grad"), 0);
}

#[test]
fn results_are_the_interpreters_up_to_rounding() {
    let interp = Program::from_source("tri.fut", SRC).unwrap();
    for (name, p) in native_backends("tri.fut", SRC) {
        for (n, d) in [(1usize, 1usize), (3, 5), (40, 10), (7, 17)] {
            let args = vec![
                random_f64(&[d, d], d as u64, -1.0, 1.0),
                random_f64(&[n, d], n as u64 + 7, -1.0, 1.0),
            ];
            for entry in ["lower_grad", "full_grad"] {
                let want = interp.call(entry, args.clone()).unwrap();
                let got = p.call(entry, args.clone()).unwrap();
                assert_close(&got, &want, &format!("{name} {entry} n = {n}, d = {d}"));
            }
        }
    }
}
