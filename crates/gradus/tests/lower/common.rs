//! Helpers shared by the lowering tests (and the tests of other stages' printed code): random
//! inputs, a program on both native backends, the code of one entry point at a stage, the
//! run-time error a call reports, the elements of `f64` results and their comparison; a
//! program shared by tests of two modes.
#![allow(dead_code)]

use gradus::backend::c::NativeOptions;
use gradus::pipeline::Stage;
use gradus::program::{Backend, CallError, Program};
use gradus::value::{Array, Buffer, Value};

/// An `f64` array of the given shape with elements drawn uniformly from `[lo, hi)`.
pub fn random_f64(shape: &[usize], seed: u64, lo: f64, hi: f64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let n = shape.iter().product();
    Value::Array(Array::new(shape.to_vec(), Buffer::F64(rng.vector(n, lo, hi))).unwrap())
}

/// The program `src` (named `file` in messages) on the sequential and the multicore native
/// backend (two threads), with the backends' names.
pub fn native_backends(file: &str, src: &str) -> Vec<(&'static str, Program)> {
    let native = |multicore| {
        Program::from_source(file, src)
            .unwrap()
            .with_backend(Backend::Native(NativeOptions {
                multicore,
                threads: Some(2),
                ..Default::default()
            }))
            .unwrap()
    };
    vec![("c", native(false)), ("multicore", native(true))]
}

/// The printed code, at compiler stage `stage` (what `gradus dev --stage` prints), of the
/// entry point whose printed header starts with `header`.
pub fn stage_entry(file: &str, src: &str, stage: Stage, header: &str) -> String {
    let all =
        gradus::pipeline::dump_stage(file, src, stage).unwrap_or_else(|d| panic!("{}", d.render()));
    all.split("entry ")
        .find(|e| e.starts_with(header))
        .unwrap_or_else(|| panic!("no entry point {header}"))
        .to_string()
}

/// The lowered code of entry point `entry`.
pub fn lowered_entry(file: &str, src: &str, entry: &str) -> String {
    stage_entry(file, src, Stage::Lower, entry)
}

/// The number of lines of the lowered code of entry point `entry` that contain `needle`.
pub fn lowered_lines_with(file: &str, src: &str, entry: &str, needle: &str) -> usize {
    lowered_entry(file, src, entry)
        .lines()
        .filter(|l| l.contains(needle))
        .count()
}

/// The message of the run-time error that calling `entry` on `args` reports.
pub fn runtime_error(p: &Program, entry: &str, args: Vec<Value>) -> String {
    match p.call(entry, args) {
        Err(CallError::Runtime(e)) => e.to_string(),
        other => panic!("expected a run-time error from {entry}, got {other:?}"),
    }
}

/// The elements of `f64` results (arrays and scalars), one after another.
pub fn floats(vs: &[Value]) -> Vec<f64> {
    vs.iter()
        .flat_map(|v| match v {
            Value::Array(a) => match a.buffer() {
                Buffer::F64(x) => x.clone(),
                _ => panic!("not f64"),
            },
            Value::Scalar(gradus::value::Scalar::F64(x)) => vec![*x],
            _ => panic!("not an f64 array or scalar"),
        })
        .collect()
}

/// Panics, naming `what`, unless the `f64` results `got` equal `want` to 1e-12 (relative and
/// absolute): sums the native code splits or vectorises may add in another order.
pub fn assert_close(got: &[Value], want: &[Value], what: &str) {
    let tol = gradus_check::Tolerance::new(1e-12, 1e-12);
    if let Err(e) = gradus_check::compare(&floats(got), &floats(want), tol) {
        panic!("{what}: {e:?}");
    }
}

/// Gradients through a lower-triangular and a full matrix-vector product, inside a map over
/// points: the adjoint of the triangular one adds rows of growing length into one vector.
pub const TRIANGULAR_ADJOINT: &str = r#"
def lower_matvec [d] (m: [d][d]f64) (v: [d]f64) : [d]f64 =
  tabulate d (\r -> loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c])

def full_matvec [d] (m: [d][d]f64) (v: [d]f64) : [d]f64 =
  tabulate d (\r -> loop acc = 0 for c < d do acc + m[r, c] * v[c])

def energy [n][d] (mv: [d][d]f64 -> [d]f64 -> [d]f64) (m: [d][d]f64) (xs: [n][d]f64) : f64 =
  f64.sum (map (\x -> f64.sum (map (\y -> y * y) (mv m x))) xs)

entry lower_grad [n][d] (m: [d][d]f64) (xs: [n][d]f64) : ([d][d]f64, [n][d]f64) =
  vjp (\(m, xs) -> energy lower_matvec m xs) (m, xs) 1

entry full_grad [n][d] (m: [d][d]f64) (xs: [n][d]f64) : ([d][d]f64, [n][d]f64) =
  vjp (\(m, xs) -> energy full_matvec m xs) (m, xs) 1
"#;
