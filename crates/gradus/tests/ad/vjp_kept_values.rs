//! A loop whose body computes `exp`, `tanh` or `cbrt` (at its top level, or in the lambda of a
//! `map` there) keeps those values per iteration in reverse mode: the return sweep reads
//! them instead of computing them again, so each such call appears once in the gradient's
//! code, in the forward sweep. That holds through a loop nested in another (whose
//! checkpoints the outer loop stacks). A `#[stripmine]` loop, which asks for less memory,
//! computes them again. The derivatives themselves are checked by the test program
//! `tests/programs/ad/vjp/loop_kept_values.fut` (expected values from dual numbers, finite
//! differences, every backend).

use crate::lower_common::stage_entry;
use gradus::pipeline::Stage;

const SRC: &str = r#"
def cell [b] (x: [b]f64) (w: [b]f64) (h: [b]f64) : [b]f64 =
  let g = map3 (\x wi hi -> 1 / (1 + f64.exp (-(x * wi + hi)))) x w h
  in map2 (\gi hi -> f64.tanh (gi * hi + 0.5) * gi) g h

entry recurrent [n][b] (xs: [n][b]f64) (w: [b]f64) (h0: [b]f64) : [b]f64 =
  vjp (\w -> f64.sum (loop h = h0 for i < n do cell xs[i] w h)) w 1

entry layered [n][l][b] (xs: [n][b]f64) (w: [l][b]f64) (h0: [b]f64) : [l][b]f64 =
  vjp (\w -> f64.sum (loop h = h0 for t < n do
                        loop h = map2 (+) h xs[t] for k < l do cell xs[t] w[k] h))
      w 1

entry scalar (x: f64) (n: i64) : f64 =
  vjp (\x -> loop x for _i < n do f64.exp (-x * x) + f64.cbrt (x + 2)) x 1

entry stripmined [n][b] (xs: [n][b]f64) (w: [b]f64) (h0: [b]f64) : [b]f64 =
  vjp (\w -> f64.sum (#[stripmine(2)] loop h = h0 for i < n do cell xs[i] w h)) w 1
"#;

/// How many times the reverse-mode code of `entry` calls `function`.
fn calls(entry: &str, function: &str) -> usize {
    let code = stage_entry(
        "kept_values.fut",
        SRC,
        Stage::Ad,
        &format!("entry_{entry} "),
    );
    code.matches(&format!("{function}_f64(")).count()
}

#[test]
fn the_return_sweep_reads_kept_values() {
    for entry in ["recurrent", "layered"] {
        assert_eq!(calls(entry, "exp"), 1, "{entry}: exp");
        assert_eq!(calls(entry, "tanh"), 1, "{entry}: tanh");
    }
    assert_eq!(calls("scalar", "exp"), 1);
    assert_eq!(calls("scalar", "cbrt"), 1);
}

#[test]
fn a_stripmined_loop_computes_them_again() {
    assert!(calls("stripmined", "exp") > 1);
    assert!(calls("stripmined", "tanh") > 1);
}
