//! A sequential `loop` that carries nothing but float sums (each parameter read once, in
//! `acc + e`, whose result is its next value) is marked as a loop of sums, as a `reduce (+)`
//! is, so the C compiler may vectorise it; a loop that reads a partial sum, scales it, or
//! carries anything else is not. The results are the interpreter's up to the order of the
//! additions on both native backends, and the float operations around the sums keep their
//! IEEE results (infinities and NaNs included). A sum over rows whose rows are summed in lanes
//! is printed both ways, vectorised across short rows and in lanes along long ones, chosen by
//! the rows' length at run time. (`lower/exact_floats.rs`: with exact floats nothing is
//! marked.)

use crate::common::{assert_close, lowered_lines_with, native_backends, random_f64};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};

pub const SRC: &str = r#"
-- GMM's triangular product: row r sums r + 1 products.
entry lower_matvec [d] (m: [d][d]f64) (v: [d]f64) : [d]f64 =
  tabulate d (\r -> loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c])

-- GMM's squared norm of the triangular product: a sum over rows of each row's sum.
entry sq_lower_matvec [d] (m: [d][d]f64) (v: [d]f64) : f64 =
  f64.sum (map (\r -> let s = loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c]
                      in s * s) (iota d))

-- Two sums at once, the element first in one of them.
entry two_sums [n] (xs: [n]f64) : (f64, f64) =
  loop (s, q) = (0, 0) for i < n do (s + xs[i], xs[i] * xs[i] + q)

-- Not sums: a partial sum read, a scaled sum, a product, a sum beside a counter.
entry running_max [n] (xs: [n]f64) : (f64, f64) =
  loop (s, m) = (0, -f64.inf) for i < n do (s + xs[i], f64.max m s)

entry decayed [n] (xs: [n]f64) : f64 = loop s = 0 for i < n do s * 0.5 + xs[i]

entry product [n] (xs: [n]f64) : f64 = loop p = 1 for i < n do p * xs[i]

entry with_count [n] (xs: [n]f64) : (f64, i64) =
  loop (s, c) = (0, 0) for i < n do (s + xs[i], c + 1)

-- Around the sum, (x + 1) - x stays NaN at x = inf and 0 at 2^53 (not 1).
entry around [n] (xs: [n]f64) : f64 =
  loop s = 0 for i < n do s + ((xs[i] + 1) - xs[i])
"#;

const MARKED: [(&str, bool); 6] = [
    ("lower_matvec", true),
    ("two_sums", true),
    ("running_max", false),
    ("decayed", false),
    ("product", false),
    ("with_count", false),
];

#[test]
fn loops_of_sums_and_only_they_are_marked() {
    for (entry, marked) in MARKED {
        let n = lowered_lines_with("sums.fut", SRC, entry, "-- lane-sum ");
        assert_eq!(n, usize::from(marked), "{entry}");
    }
}

fn vector(xs: &[f64]) -> Value {
    Value::Array(Array::new(vec![xs.len()], Buffer::F64(xs.to_vec())).unwrap())
}

#[test]
fn results_are_the_interpreters_up_to_rounding() {
    let interp = Program::from_source("sums.fut", SRC).unwrap();
    for (name, p) in native_backends("sums.fut", SRC) {
        for d in [1usize, 2, 3, 7, 17, 33] {
            let m = random_f64(&[d, d], d as u64, -1.0, 1.0);
            let v = random_f64(&[d], d as u64 + 50, -1.0, 1.0);
            let args = vec![m, v.clone()];
            let want = interp.call("lower_matvec", args.clone()).unwrap();
            let got = p.call("lower_matvec", args).unwrap();
            assert_close(&got, &want, &format!("{name} lower_matvec d = {d}"));
            for (entry, _) in &MARKED[1..] {
                let want = interp.call(entry, vec![v.clone()]).unwrap();
                let got = p.call(entry, vec![v.clone()]).unwrap();
                let what = format!("{name} {entry} n = {d}");
                assert_eq!(got.len(), want.len(), "{what}");
                match (&got[..], &want[..]) {
                    ([g, Value::Scalar(c @ Scalar::I64(_))], [w, cw]) => {
                        assert_eq!(Value::Scalar(*c), *cw, "{what}");
                        assert_close(std::slice::from_ref(g), std::slice::from_ref(w), &what);
                    }
                    _ => assert_close(&got, &want, &what),
                }
            }
        }
    }
}

#[test]
fn the_code_around_the_sums_keeps_ieee_results() {
    let interp = Program::from_source("sums.fut", SRC).unwrap();
    let big = 2f64.powi(53);
    let cases: [(Vec<f64>, f64); 3] = [
        (vec![big; 8], 0.0),
        (
            vec![1.0, 2.0, f64::INFINITY, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            f64::NAN,
        ),
        ((0..37).map(f64::from).collect(), 37.0),
    ];
    for (name, p) in native_backends("sums.fut", SRC) {
        for (xs, want) in &cases {
            let expect = interp.call("around", vec![vector(xs)]).unwrap();
            let got = p.call("around", vec![vector(xs)]).unwrap();
            assert_eq!(format!("{got:?}"), format!("{expect:?}"), "{name} {xs:?}");
            let Value::Scalar(s) = &got[0] else {
                panic!("not a scalar")
            };
            let s = format!("{s:?}");
            assert_eq!(s, format!("{:?}", Scalar::F64(*want)), "{name}");
        }
    }
}

/// The text of entry point `entry` in generated C `c`.
fn entry_text<'c>(c: &'c str, entry: &str) -> &'c str {
    c.split("/* entry point ")
        .find(|e| e.starts_with(entry))
        .unwrap_or_else(|| panic!("no entry point {entry}"))
}

#[test]
fn sums_over_short_and_long_rows_give_the_interpreters_results() {
    let c = gradus::pipeline::dump_stage("sums.fut", SRC, gradus::pipeline::Stage::C)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let both = entry_text(&c, "sq_lower_matvec");
    for part in ["<= 16", "GR_SIMD_SUM(", "sums in lanes"] {
        assert!(both.contains(part), "no {part} in:\n{both}");
    }
    let one = entry_text(&c, "lower_matvec");
    assert!(
        !one.contains("<= 16"),
        "a map of sums has no choice:\n{one}"
    );
    let interp = Program::from_source("sums.fut", SRC).unwrap();
    for (name, p) in native_backends("sums.fut", SRC) {
        for d in [1usize, 2, 5, 15, 16, 17, 33] {
            let m = random_f64(&[d, d], d as u64 + 7, -1.0, 1.0);
            let v = random_f64(&[d], d as u64 + 90, -1.0, 1.0);
            let want = interp.call("sq_lower_matvec", vec![m.clone(), v.clone()]);
            let got = p.call("sq_lower_matvec", vec![m, v]);
            let what = format!("{name} sq_lower_matvec d = {d}");
            assert_close(&got.unwrap(), &want.unwrap(), &what);
        }
    }
}
