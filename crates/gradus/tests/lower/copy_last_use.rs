//! `copy x` at the last use of `x` takes `x`'s buffer and copies the elements only when the
//! buffer is shared or borrowed: a fresh array is not copied again, while a row of an
//! argument is, so that updating the copy leaves the argument as it was.

use crate::common::{assert_close, lowered_entry, lowered_lines_with, native_backends, random_f64};
use gradus::program::Program;

const SRC: &str = r#"
entry fresh_source [n] (xs: [n]f64) : [n]f64 =
  let ys = map (* 2) xs
  let zs = copy ys
  in zs with [0] = 1

entry shared_source [n] [m] (xss: [n][m]f64) : ([m]f64, f64) =
  let v = xss[0]
  let y = copy v with [0] = 5
  in (y, xss[0, 0])

-- `ys` is read after the copy: the copy is a copy.
entry read_after [n] (xs: [n]f64) : ([n]f64, f64) =
  let ys = map (* 2) xs
  let zs = copy ys with [0] = 1
  in (zs, ys[0])
"#;

fn allocations(entry: &str) -> usize {
    lowered_lines_with("copy.fut", SRC, entry, "= alloc ")
}

#[test]
fn a_fresh_array_is_not_copied_at_its_last_use() {
    assert_eq!(allocations("fresh_source"), 1);
    assert_eq!(allocations("read_after"), 2);
}

#[test]
fn the_moved_buffer_is_made_unique_where_the_copy_was() {
    // The row of the argument is borrowed: `make_unique` copies it right there.
    let code = lowered_entry("copy.fut", SRC, "shared_source");
    let lines: Vec<&str> = code.lines().map(str::trim).collect();
    let moved = lines
        .iter()
        .position(|l| l.contains("= move "))
        .unwrap_or_else(|| panic!("no move in\n{code}"));
    assert!(lines[moved + 1].starts_with("make_unique"), "{code}");
}

#[test]
fn results_are_the_interpreters() {
    let interp = Program::from_source("copy.fut", SRC).unwrap();
    let xs = random_f64(&[9], 1, -1.0, 1.0);
    let xss = random_f64(&[3, 9], 2, -1.0, 1.0);
    for (name, p) in native_backends("copy.fut", SRC) {
        for (entry, args) in [
            ("fresh_source", vec![xs.clone()]),
            ("shared_source", vec![xss.clone()]),
            ("read_after", vec![xs.clone()]),
        ] {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args).unwrap();
            assert_close(&got, &want, &format!("{name} {entry}"));
        }
    }
}
