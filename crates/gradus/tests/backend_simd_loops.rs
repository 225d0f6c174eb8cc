//! Loops the C compiler is told to vectorise (`#pragma omp simd`): maps whose iterations read
//! and write elements at their own position only. Loops with strided reads are left to the
//! compiler's cost model. Both give the interpreter's results.

mod lower_common;

use gradus::program::{Backend, Program};
use gradus::value::Value;
use lower_common::{native_backends, random_f64};

const SRC: &str = r#"
-- Unit-stride lanes: each row times a vector, plus a value the row's iteration computed.
entry lanes [m] [n] (xss: [m][n]f64) (ys: [n]f64) : [m][n]f64 =
  map2 (\xs i -> let c = f64.i64 i * 0.5 in map2 (\x y -> x * y + c) xs ys) xss (iota m)

-- A column read in the inner map: a strided load, no pragma.
entry columns [m] [n] (xss: [m][n]f64) (ys: [n]f64) : [m][m]f64 =
  map (\y -> map (\j -> y * xss[j, 0]) (iota m)) ys[0:m]
"#;

fn entry_code<'a>(c: &'a str, name: &str) -> &'a str {
    c.split("/* entry point ")
        .find(|e| e.starts_with(name))
        .unwrap_or_else(|| panic!("no entry point {name}"))
}

#[test]
fn only_unit_stride_maps_are_marked_for_vectorisation() {
    let c = gradus::pipeline::dump_stage("simd.fut", SRC, gradus::pipeline::Stage::C)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    assert!(entry_code(&c, "lanes").contains("#pragma omp simd"), "{c}");
    assert!(
        !entry_code(&c, "columns").contains("#pragma omp simd"),
        "{c}"
    );
}

#[test]
fn marked_loops_give_the_interpreters_results() {
    let interp = Program::from_source("simd.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let args: Vec<Value> = vec![
        random_f64(&[5, 13], 1, -1.0, 1.0),
        random_f64(&[13], 2, -1.0, 1.0),
    ];
    for (name, p) in native_backends("simd.fut", SRC) {
        for entry in ["lanes", "columns"] {
            let want = interp.call(entry, args.clone()).unwrap();
            let got = p.call(entry, args.clone()).unwrap();
            assert_eq!(got, want, "{name} {entry}");
        }
    }
}
