//! A loop whose array state is updated in place, each row at most once in the whole loop, and
//! read only at the rows the same iteration writes, saves nothing for that array in reverse
//! mode: the return sweep reads the loop's initial array. A loop that writes a row in two
//! iterations, or reads a row an earlier iteration wrote, saves the values its updates
//! overwrite. The derivatives themselves are checked by the test program
//! `tests/programs/ad/vjp/loop_write_once.fut` (expected values from dual numbers, finite
//! differences, every backend).

use crate::lower_common::stage_entry;
use gradus::pipeline::Stage;

const SRC: &str = r#"
entry rows [n][d] (xs: [n][d]f64) (w: [d]f64) : [n][d]f64 =
  vjp (\xs -> loop ys = copy xs for i < n do ys with [i] = map2 (*) ys[i] w) xs
      (replicate n (replicate d 1))

entry pairs [n] (s: [n]f64) : [n]f64 =
  vjp (\s -> loop s = copy s for i < n / 2 do
               let a = s[2 * i]
               let b = s[2 * i + 1]
               in (s with [2 * i] = a * b) with [2 * i + 1] = a + b)
      s (replicate n 1)

-- Rows 2i and 2i + 2: row 2i + 2 is written again in the next iteration.
entry overlapping [n] (s: [n]f64) : [n]f64 =
  vjp (\s -> loop s = copy s for i < (n - 1) / 2 do
               let a = s[2 * i]
               let b = s[2 * i + 2]
               in (s with [2 * i] = a * b) with [2 * i + 2] = a + b)
      s (replicate n 1)

-- Reads row i, which the iteration before wrote.
entry prefix [n] (s: [n]f64) : [n]f64 =
  vjp (\s -> loop s = copy s for i < n - 1 do s with [i + 1] = s[i + 1] * s[i]) s (replicate n 1)
"#;

/// Whether the reverse-mode code of `entry` saves values that in-place updates overwrite.
fn saves_overwritten(entry: &str) -> bool {
    let code = stage_entry("write_once.fut", SRC, Stage::Ad, &format!("entry_{entry} "));
    code.contains("overwritten")
}

#[test]
fn rows_written_once_are_read_from_the_initial_array() {
    assert!(!saves_overwritten("rows"));
    assert!(!saves_overwritten("pairs"));
}

#[test]
fn rows_written_twice_or_read_after_a_write_are_saved() {
    assert!(saves_overwritten("overlapping"));
    assert!(saves_overwritten("prefix"));
}
