//! A library compiled as several translation units (`build::units`, forced here for a small
//! program) works as one compiled whole: each entry point gives the interpreter's results,
//! arrays returned by entry points of any unit are released and their buffers reused, and the
//! count of copied bytes is the library's, whichever unit copied.

use crate::lower_common::{assert_close, native_backends, random_f64};
use gradus::program::{Backend, Program};
use gradus::value::{Scalar, Value};

const SRC: &str = r#"
entry scale [n] (xs: [n]f64) (a: f64) : [n]f64 = map (* a) xs

entry total [n] (xs: [n]f64) : f64 = f64.sum (map (\x -> x * x) xs)

entry grad [n] (xs: [n]f64) : [n]f64 = vjp (\v -> f64.sum (map f64.sin v)) xs 1

-- The caller's array is borrowed, so the update copies it: a copy the library counts.
entry update [n] (xs: *[n]f64) : *[n]f64 = xs with [0] = 0
"#;

#[test]
fn a_library_of_several_units_works_as_one() {
    gradus::backend::c::build::force_compile_jobs(3);
    let interp = Program::from_source("units.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let xs = random_f64(&[257], 7, -2.0, 2.0);
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("scale", vec![xs.clone(), Value::Scalar(Scalar::F64(1.5))]),
        ("total", vec![xs.clone()]),
        ("grad", vec![xs.clone()]),
        ("update", vec![xs.clone()]),
    ];
    for (name, p) in native_backends("units.fut", SRC) {
        let before = p.copied_bytes().unwrap();
        // Several calls: buffers released after one call serve the next.
        for round in 0..3 {
            for (entry, args) in &cases {
                let want = interp.call(entry, args.clone()).unwrap();
                let got = p.call(entry, args.clone()).unwrap();
                assert_close(&got, &want, &format!("{name} {entry}, round {round}"));
            }
        }
        let copied = p.copied_bytes().unwrap() - before;
        assert_eq!(
            copied,
            3 * 257 * 8,
            "{name}: one copy of the input per call of `update`"
        );
    }
}
