//! Sub-histograms in local memory on the `gpu` backend (`backend/c/gpu/sub_hist.rs`):
//! histograms of `f64`, `f32`, `i32` and `i64` (those of floats added atomically, the others
//! privately per chunk) and the adjoint accumulators of a gather in reverse mode, small enough for local copies (10 bins) and too large for them (3000 bins,
//! so that positions beyond the local copy's length are reached as well), on random bins
//! (some out of range, which `reduce_by_index` skips), against the interpreter; and an error
//! inside a kernel with local copies, which must be the interpreter's, with its location.
//! The kernels with local copies must be there (the listing of `gradus dev --stage gpu`);
//! which one runs is decided per launch, from each histogram's length.

use gradus::backend::c::build::find_compiler;
use gradus::pipeline::{Stage, dump_stage};
use gradus::value::{Scalar, Value};
use gradus::{Backend, NativeOptions, Program};

const PROGRAM: &str = r#"
entry floats [n] (m: i64) (bins: [n]i64) (xs: [n]f64) : ([m]f64, [m]f32) =
  (reduce_by_index (replicate m 0) (+) 0 bins xs,
   reduce_by_index (replicate m 0f32) (+) 0 bins (map f32.f64 xs))

entry ints [n] (m: i64) (bins: [n]i64) (xs: [n]f64) : ([m]i32, [m]i64) =
  (reduce_by_index (replicate m 0i32) (+) 0 bins (map (\x -> i32.f64 (x * 100)) xs),
   reduce_by_index (replicate m 0i64) (+) 0 bins (map (\b -> b * b + 1) bins))

-- The gradient of a gather: reverse mode adds each point's adjoint into `t` atomically.
entry gather_grad [n] [m] (idx: [n]i64) (t: [m]f64) (xs: [n]f64) : [m]f64 =
  vjp (\t -> f64.sum (map2 (\i x -> t[i] * t[i] * x) idx xs)) t 1

-- A bad index fails inside the kernel that adds into the histogram.
entry picky [n] (bins: [n]i64) (t: [4]f64) : [8]f64 =
  reduce_by_index (replicate 8 0) (+) 0 bins (map (\b -> t[b]) bins)
"#;

/// `n` numbers from a small linear congruential generator, in [0, 1).
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn f64s(v: Vec<f64>) -> Value {
    Value::from_ndarray(ndarray::Array1::from(v))
}

fn i64s(v: Vec<i64>) -> Value {
    Value::from_ndarray(ndarray::Array1::from(v))
}

/// `n` bins in `[-2, m + 2)`: out-of-range ones included.
fn bins(n: usize, m: i64, seed: u64) -> Vec<i64> {
    uniform(n, seed)
        .into_iter()
        .map(|u| (u * (m + 4) as f64) as i64 - 2)
        .collect()
}

fn close(got: &Value, want: &Value, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shapes");
    let (Value::Array(g), Value::Array(w)) = (got, want) else {
        panic!("{what}: not arrays");
    };
    for k in 0..w.len() {
        let (a, b) = (g.buffer().get(k), w.buffer().get(k));
        if a.prim_type().is_float() {
            let (x, y) = (a.to_f64(), b.to_f64());
            let tol = 1e-4 * y.abs().max(1.0);
            assert!((x - y).abs() <= tol, "{what}[{k}]: {x} against {y}");
        } else {
            assert_eq!(a, b, "{what}[{k}]");
        }
    }
}

/// The program on the `gpu` backend, or why there is none (which fails the test where
/// `GRADUS_REQUIRE_GPU` is set).
fn gpu_program() -> Option<Program> {
    let skip = |why: String| {
        assert!(
            std::env::var_os("GRADUS_REQUIRE_GPU").is_none(),
            "no gpu backend: {why}"
        );
        eprintln!("skipped: {why}");
        None
    };
    if find_compiler().is_none() {
        return skip("no C compiler".into());
    }
    match Program::from_source("hists.fut", PROGRAM)
        .unwrap()
        .with_backend(Backend::Native(NativeOptions::gpu()))
    {
        Ok(p) => Some(p),
        Err(e) => skip(e.to_string()),
    }
}

#[test]
fn small_histograms_get_kernels_with_local_copies() {
    let listing = dump_stage("hists.fut", PROGRAM, Stage::Gpu).unwrap();
    assert!(
        listing
            .matches("with sub-histograms in local memory")
            .count()
            >= 3,
        "{listing}"
    );
    assert!(listing.contains("gr_local_add_f64(&gr_sub0"), "{listing}");
    assert!(listing.contains("gr_local_add_f32(&gr_sub0"), "{listing}");
}

#[test]
fn histograms_with_and_without_local_copies_give_the_interpreter_s_results() {
    let Some(gpu) = gpu_program() else { return };
    let oracle = Program::from_source("hists.fut", PROGRAM).unwrap();
    for (m, n, seed) in [(10i64, 5000usize, 1u64), (3000, 20000, 2), (1, 700, 3)] {
        let args = vec![
            Value::Scalar(Scalar::I64(m)),
            i64s(bins(n, m, seed)),
            f64s(uniform(n, seed + 10)),
        ];
        for entry in ["floats", "ints"] {
            let want = oracle.call(entry, args.clone()).unwrap();
            let got = gpu.call(entry, args.clone()).unwrap();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                close(g, w, &format!("{entry} result {k}, m = {m}"));
            }
        }
        let idx: Vec<i64> = bins(n, m, seed + 20)
            .into_iter()
            .map(|b| b.clamp(0, m - 1))
            .collect();
        let args = vec![
            i64s(idx),
            f64s(uniform(m as usize, seed + 30)),
            f64s(uniform(n, seed + 40)),
        ];
        let want = oracle.call("gather_grad", args.clone()).unwrap();
        let got = gpu.call("gather_grad", args).unwrap();
        close(&got[0], &want[0], &format!("gather_grad, m = {m}"));
    }
}

#[test]
fn an_error_in_a_kernel_with_local_copies_is_the_interpreter_s() {
    let Some(gpu) = gpu_program() else { return };
    let oracle = Program::from_source("hists.fut", PROGRAM).unwrap();
    let mut b: Vec<i64> = (0..600).map(|i| i % 4).collect();
    b[437] = 4;
    b[512] = 9;
    let args = vec![i64s(b), f64s(vec![1.0, 2.0, 3.0, 4.0])];
    let want = oracle.call("picky", args.clone()).unwrap_err().to_string();
    let got = gpu.call("picky", args).unwrap_err().to_string();
    assert!(want.contains("hists.fut:"), "{want}");
    assert_eq!(got, want);
}
