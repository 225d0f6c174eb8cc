//! A parallel `reduce` normally has two versions, chosen at run time by its estimated work:
//! chunks run in parallel, and a sequential loop for small inputs. Where a single element
//! costs the threshold (`GR_PAR_CHUNK_MIN_WORK`'s default), only an empty input is below it:
//! the lowering then keeps the chunks alone, which give the neutral element for an empty
//! input, as the sequential loop did.

use crate::common::{assert_close, lowered_lines_with, native_backends, random_f64};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};

const SRC: &str = r#"
-- Each element runs 15 operations inside two loops of unknown trip counts: an estimated cost
-- of 1 + 16 (1 + 16 (1 + 15)) = 4369 per element.
def heavy (m: i64) (x: f64) : f64 =
  loop a = x for i < m do
    loop b = a for j < m do
      0.5 * b + 0.25 * b * b - 0.125 * b * b * b + 0.0625 * b * b * b * b - 0.03125 * b + 0.001

entry costly [n] (m: i64) (xs: [n]f64) : f64 = f64.sum (map (heavy m) xs)

entry light [n] (xs: [n]f64) : f64 = f64.sum (map (\x -> x * x) xs)
"#;

const THRESHOLD: &str = "GR_PAR_CHUNK_MIN_WORK";

#[test]
fn a_reduction_of_costly_elements_has_no_sequential_version() {
    assert_eq!(
        lowered_lines_with("costly.fut", SRC, "costly", THRESHOLD),
        0,
        "{}",
        crate::common::lowered_entry("costly.fut", SRC, "costly")
    );
    // A light one keeps both: the test would pass for nothing if no reduction had two.
    assert_eq!(lowered_lines_with("costly.fut", SRC, "light", THRESHOLD), 1);
}

#[test]
fn the_chunks_alone_give_the_interpreters_results_empty_input_included() {
    let interp = Program::from_source("costly.fut", SRC).unwrap();
    for n in [0, 1, 7, 300] {
        let xs = if n == 0 {
            Value::Array(Array::new(vec![0], Buffer::F64(Vec::new())).unwrap())
        } else {
            random_f64(&[n], n as u64, -1.0, 1.0)
        };
        let args = vec![Value::Scalar(Scalar::I64(3)), xs];
        let want = interp.call("costly", args.clone()).unwrap();
        for (name, p) in native_backends("costly.fut", SRC) {
            let got = p.call("costly", args.clone()).unwrap();
            assert_close(&got, &want, &format!("{name}, n = {n}"));
            if n == 0 {
                assert_eq!(got, want, "{name}: the sum of nothing");
            }
        }
    }
}
