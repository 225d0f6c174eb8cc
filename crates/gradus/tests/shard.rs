//! Sharded entry points simulated in one process (docs/mpi.md): the rows of the sharded
//! parameters are split into blocks (equal, unequal and empty ones), the per-process entry
//! point derived by `gradus::shard` runs on each block, and the results combined by the plan
//! equal the unsharded call, on the interpreter and the C backend. Entry points that cannot be
//! sharded are refused with the statement that mixes rows.

use gradus::backend::c::NativeOptions;
use gradus::program::{Backend, Program};
use gradus::shard::{Combine, ShardPlan, combine};
use gradus::value::{Scalar, Value};
use std::path::Path;

#[path = "common/sum_programs.rs"]
mod sum_programs;

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .display()
        .to_string()
}

fn load(path: &str) -> Program {
    Program::from_file(Path::new(&repo(path))).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn input(path: &str) -> Vec<Value> {
    gradus::data::read_values(&std::fs::read(repo(path)).unwrap()).unwrap()
}

/// Runs the per-process entry point on row blocks `blocks` (first row, length) and combines.
fn simulate(
    p: &Program,
    plan: &ShardPlan,
    args: &[Value],
    blocks: &[(usize, usize)],
) -> Vec<Value> {
    let mut per_rank: Vec<Vec<Value>> = Vec::new();
    for (rank, (start, len)) in blocks.iter().enumerate() {
        let mut a: Vec<Value> = args
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if plan.sharded.contains(&i) {
                    combine::rows(v, *start, *len).unwrap()
                } else {
                    v.clone()
                }
            })
            .collect();
        a.push(Value::Scalar(Scalar::I64(rank as i64)));
        a.push(Value::Scalar(Scalar::I64(*start as i64)));
        per_rank.push(
            p.call(&plan.entry, a)
                .unwrap_or_else(|e| panic!("rank {rank}: {e}")),
        );
    }
    (0..plan.combine.len())
        .map(|r| {
            let parts: Vec<Value> = per_rank.iter().map(|rs| rs[r].clone()).collect();
            combine::combine(plan.combine[r], &parts).unwrap()
        })
        .collect()
}

/// Block layouts for `n` rows: near-equal ones for 1..4 processes, one with empty blocks
/// (first, middle and last) and an unequal one.
fn layouts(n: usize) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<Vec<(usize, usize)>> = (1..=4).map(|k| combine::blocks(n, k)).collect();
    out.push(vec![
        (0, 0),
        (0, n / 2),
        (n / 2, 0),
        (n / 2, n - n / 2),
        (n, 0),
    ]);
    out.push(vec![(0, 1.min(n)), (1.min(n), n - 1.min(n))]);
    out
}

fn close(got: &[Value], want: &[Value], what: &str) {
    if let Err(e) = gradus::testspec::compare_values(want, got, 1e-9) {
        panic!("{what}: {e}");
    }
}

/// Every layout of the rows gives the unsharded results, on the interpreter and on C.
fn check(p: Program, entry: &str, shard: &[&str], args: &[Value], want: &[Combine]) {
    let names: Vec<String> = shard.iter().map(|s| s.to_string()).collect();
    let expected = p.call(entry, args.to_vec()).unwrap();
    let (sp, plan) = p
        .sharded(entry, &names)
        .unwrap_or_else(|d| panic!("{}", d.render()));
    assert_eq!(plan.combine, want, "{entry}: how results combine");
    let n = args[plan.sharded[0]].shape()[0];
    for blocks in layouts(n) {
        let got = simulate(&sp, &plan, args, &blocks);
        close(
            &got,
            &expected,
            &format!("{entry} on the interpreter, blocks {blocks:?}"),
        );
    }
    let native = sp
        .with_backend(Backend::Native(NativeOptions::default()))
        .unwrap();
    for blocks in [combine::blocks(n, 3), vec![(0, 0), (0, n)]] {
        let got = simulate(&native, &plan, args, &blocks);
        close(&got, &expected, &format!("{entry} on C, blocks {blocks:?}"));
    }
}

#[test]
fn gmm_objective_and_gradient_shard_by_points() {
    let args = input("benchmarks/data/gmm_1k_d2_K5.in");
    check(
        load("benchmarks/gmm.fut"),
        "objective",
        &["x"],
        &args,
        &[Combine::Sum],
    );
    let sum3 = [Combine::Sum; 3];
    check(load("benchmarks/gmm.fut"), "gradient", &["x"], &args, &sum3);
}

#[test]
fn kmeans_objective_and_gradient_shard_by_points() {
    let args = input("benchmarks/data/kmeans_5_1000_4.in");
    let p = || load("benchmarks/kmeans.fut");
    check(p(), "objective", &["points"], &args, &[Combine::Sum]);
    check(p(), "gradient", &["points"], &args, &[Combine::Sum]);
    check(p(), "hessian_diagonal", &["points"], &args, &[Combine::Sum]);
}

#[test]
fn ba_residuals_and_jacobian_rows_shard_by_observations() {
    let args = input("benchmarks/data/ba_test.in");
    let shard = ["w", "obs", "feat"];
    let concat2 = [Combine::Concat; 2];
    check(
        load("benchmarks/ba.fut"),
        "objective",
        &shard,
        &args,
        &concat2,
    );
    check(
        load("benchmarks/ba.fut"),
        "jacobian_blocks",
        &shard,
        &args,
        &concat2,
    );
}

const SUMS: &str = r#"
-- A sum over rows plus terms that do not read them (counted once), the row count as a sum,
-- a replicated result and one of rows.
entry mixed [n] [d] (xs: [n][d]f64) (w: [d]f64) (c: f64)
  : (f64, [d]f64, i64, f64, [n]f64, [d]f64) =
  let per_row = map (\x -> f64.sum (map2 (*) x w)) xs
  let total = f64.sum per_row + c * 3 + f64.sum w
  let colsum = map (\j -> f64.sum (map (\x -> x[j]) xs) + w[j]) (iota d)
  in (total, colsum, n, c * 2, map (+ c) per_row, map (* 2) w)

-- The gradient of a loop over a sum: reverse mode recomputes the loop's iterates by
-- inversion, under a condition on the (summed) iterates, or else re-runs it keeping each
-- iteration's per-row values in a [2][n] array; every process takes the second way.
entry loop_grad [n] (xs: [n][3]f64) (w: [3]f64) : [3]f64 =
  vjp (\w -> loop acc = w[1] for _i < 2 do
                acc * (0.5 - w[0])
                + f64.sum (map (\x -> f64.exp (f64.tanh (if x[1] > 0 then w[2] else x[1]))) xs))
      w 1

-- The mean of the rows counted via the number of rows as a sum.
entry scaled [n] (xs: [n]f64) (a: f64) : f64 =
  a * f64.sum (map (\x -> x * x) xs) - f64.i64 n * a + 1

-- Global row numbers: iota over the rows.
entry numbered [n] (xs: [n]f64) : ([n]f64, f64) =
  let ys = map2 (\i x -> f64.i64 i * x) (iota n) xs
  in (ys, f64.sum ys)

-- A histogram over the rows and a loop that adds a sum over rows each iteration.
entry hist_loop [n] (is: [n]i64) (xs: [n]f64) (k: i64) : ([]f64, f64) =
  let h = hist (+) 0 5 (map (\i -> i % 5) is) xs
  let s = loop acc = 1.5 for i < k do acc + f64.sum (map (* f64.i64 i) xs)
  in (h, s)

-- The gradient of a sum over rows with respect to a replicated parameter.
entry grad [n] (xs: [n][2]f64) (p: [2]f64) : [2]f64 =
  vjp (\q -> f64.sum (map (\x -> f64.exp (q[0] * x[0]) + q[1] * q[1] * x[1]) xs)
             + q[0] * q[1]) p 1
"#;

fn sums() -> Program {
    Program::from_source("sums.fut", SUMS).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn rand(shape: &[usize], seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let n = shape.iter().product();
    let buf = gradus::value::Buffer::F64(rng.vector(n, -1.0, 1.0));
    Value::Array(gradus::value::Array::new(shape.to_vec(), buf).unwrap())
}

#[test]
fn hand_written_sums_shard() {
    use Combine::*;
    let f64s = |x| Value::Scalar(Scalar::F64(x));
    let args = [rand(&[13, 3], 1), rand(&[3], 2), f64s(0.7)];
    check(
        sums(),
        "mixed",
        &["xs"],
        &args,
        &[Sum, Sum, Sum, Replicated, Concat, Replicated],
    );
    check(
        sums(),
        "loop_grad",
        &["xs"],
        &[rand(&[10, 3], 8), rand(&[3], 9)],
        &[Sum],
    );
    check(
        sums(),
        "scaled",
        &["xs"],
        &[rand(&[11], 3), f64s(1.3)],
        &[Sum],
    );
    check(
        sums(),
        "numbered",
        &["xs"],
        &[rand(&[9], 4)],
        &[Concat, Sum],
    );
    let is = Value::Array(gradus::value::Array::from_buffer(
        gradus::value::Buffer::I64((0..10).map(|i| (i * 7) % 13).collect()),
    ));
    let args = [is, rand(&[10], 5), Value::Scalar(Scalar::I64(4))];
    check(sums(), "hist_loop", &["is", "xs"], &args, &[Sum, Sum]);
    check(
        sums(),
        "grad",
        &["xs"],
        &[rand(&[8, 2], 6), rand(&[2], 7)],
        &[Sum],
    );
}

const EXTREMA: &str = r#"
entry largest [n] (xs: [n]f64) : f64 = f64.maximum xs

entry smallest_fit [n] (xs: [n][3]f64) (w: [3]f64) : f64 =
  f64.minimum (map (\x -> f64.sum (map2 (*) x w)) xs)

entry several [n] (xs: [n]f64) (is: [n]i32) : (f64, i32, f64, [n]f64, i64) =
  (f64.maximum xs, i32.minimum is, f64.sum xs, map (* 2) xs, i64.maximum (map i64.i32 is))

entry capped [n] (xs: [n]f64) (c: f64) : f64 = reduce f64.max c xs

entry least [n] (xs: [n]f32) : f32 = f32.minimum xs

entry floored [n] (xs: [n]f64) (c: f64) : f64 = reduce f64.min c xs
"#;

#[test]
fn maxima_and_minima_over_rows_shard() {
    use Combine::*;
    let p = || {
        Program::from_source("extrema.fut", EXTREMA).unwrap_or_else(|d| panic!("{}", d.render()))
    };
    check(p(), "largest", &["xs"], &[rand(&[13], 1)], &[Max]);
    let w = rand(&[3], 2);
    check(p(), "smallest_fit", &["xs"], &[rand(&[9, 3], 3), w], &[Min]);
    let is = Value::Array(gradus::value::Array::from_buffer(
        gradus::value::Buffer::I32((0..11).map(|i| (i * 7) % 13 - 6).collect()),
    ));
    check(
        p(),
        "several",
        &["xs", "is"],
        &[rand(&[11], 4), is],
        &[Max, Min, Sum, Concat, Max],
    );
    let c = Value::Scalar(Scalar::F64(0.25));
    check(p(), "capped", &["xs"], &[rand(&[7], 5), c], &[Max]);
}

/// `n` values from `rand` with NaNs at the rows `nan` picks.
fn with_nans(n: usize, seed: u64, nan: impl Fn(usize) -> bool) -> Value {
    let Value::Array(a) = rand(&[n], seed) else {
        unreachable!()
    };
    let xs: Vec<f64> = (0..n)
        .map(|i| {
            if nan(i) {
                f64::NAN
            } else {
                a.buffer().get(i).to_f64()
            }
        })
        .collect();
    Value::Array(gradus::value::Array::from_buffer(
        gradus::value::Buffer::F64(xs),
    ))
}

/// A NaN among the rows combines as on one process: `max` and `min` return the other
/// operand, so a process whose value is NaN loses against any number, whichever process
/// the NaNs are on.
#[test]
fn nans_in_the_rows_combine_as_on_one_process() {
    use Combine::*;
    let p = || {
        Program::from_source("extrema.fut", EXTREMA).unwrap_or_else(|d| panic!("{}", d.render()))
    };
    // NaNs in the first half of the rows, the last half, the first row, every other row and
    // every row.
    let cases: [fn(usize) -> bool; 5] =
        [|i| i < 6, |i| i >= 6, |i| i == 0, |i| i % 2 == 1, |_| true];
    for nan in cases {
        let xs = with_nans(12, 8, nan);
        check(p(), "largest", &["xs"], std::slice::from_ref(&xs), &[Max]);
        // A NaN neutral element: a process whose rows are all NaN has a NaN maximum.
        let c = Value::Scalar(Scalar::F64(f64::NAN));
        check(p(), "capped", &["xs"], &[xs.clone(), c.clone()], &[Max]);
        check(p(), "floored", &["xs"], &[xs.clone(), c], &[Min]);
        let Value::Array(a) = &xs else { unreachable!() };
        let singles: Vec<f32> = (0..a.len())
            .map(|i| a.buffer().get(i).to_f64() as f32)
            .collect();
        let xs32 = Value::Array(gradus::value::Array::from_buffer(
            gradus::value::Buffer::F32(singles),
        ));
        check(p(), "least", &["xs"], &[xs32], &[Min]);
    }
}

/// The keys by which extrema of floats travel through MPI order them as the language's
/// `max` and `min` do: for every pair of special and ordinary values, the extremum of the
/// keys is the key of the extremum (a NaN only where both are; zeros compare equal).
#[test]
fn extremum_keys_order_floats_as_max_and_min_do() {
    let xs = [
        f64::NAN,
        -f64::NAN,
        f64::NEG_INFINITY,
        -1e300,
        -2.5,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        5e-324,
        1.0,
        2.5,
        f64::MAX,
        f64::INFINITY,
    ];
    for max in [true, false] {
        for &a in &xs {
            let back = combine::from_extremum_key(combine::extremum_key(a, max), max);
            assert!(back == a || (a.is_nan() && back.is_nan()), "{a}");
            for &b in &xs {
                let (ka, kb) = (combine::extremum_key(a, max), combine::extremum_key(b, max));
                let got =
                    combine::from_extremum_key(if max { ka.max(kb) } else { ka.min(kb) }, max);
                // The language's `max`/`min`: the other operand where one is NaN.
                let want = if max { a.max(b) } else { a.min(b) };
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "max {max}: {a} and {b} gave {got}, not {want}"
                );
            }
        }
    }
}

const REFUSED: &str = r#"
entry maximum [n] (xs: [n]f64) : f64 = f64.maximum xs + 1

entry spread [n] (xs: [n]f64) : f64 = f64.maximum xs - f64.minimum xs

entry unsigned [n] (xs: [n]u64) : u64 = u64.maximum xs

entry prefix [n] (xs: [n]f64) : [n]f64 = scan (+) 0 xs

entry mean [n] (xs: [n]f64) : f64 = f64.sum xs / f64.i64 n

entry neighbours [n] (xs: [n]f64) : [n]f64 = map (\i -> xs[i] - xs[(i + 1) % n]) (iota n)

entry normalised [n] (xs: [n]f64) : [n]f64 = let s = f64.sum xs in map (/ s) xs

entry square [n] (xs: [n]f64) : f64 = let s = f64.sum xs in s * s

entry inner [n] (xs: [n]f64) (k: i64) : [k][n]f64 = map (\i -> map (* f64.i64 i) xs) (iota k)

entry unsharded_len [n] (xs: [n]f64) (ys: [n]f64) : f64 = f64.sum (map2 (*) xs ys)
"#;

fn refusal(entry: &str, shard: &[&str]) -> String {
    let p = Program::from_source("refused.fut", REFUSED).unwrap();
    let names: Vec<String> = shard.iter().map(|s| s.to_string()).collect();
    match p.sharded(entry, &names) {
        Ok((_, plan)) => panic!("{entry} was sharded: {:?}", plan.combine),
        Err(d) => d.render(),
    }
}

#[test]
fn refusals_name_the_statement_that_mixes_rows() {
    let cases = [
        (
            "maximum",
            "a maximum over the rows combines across processes only as a result",
        ),
        (
            "spread",
            "over the rows combines across processes only as a result",
        ),
        ("unsigned", "`max_u64` of a sum over rows"),
        ("prefix", "scan or scatter over the rows"),
        ("mean", "`div_f64` of a sum over rows"),
        ("neighbours", "reads other rows"),
        ("normalised", "reads a value summed over the rows"),
        ("square", "`mul_f64` of a sum over rows"),
    ];
    for (entry, needle) in cases {
        let m = refusal(entry, &["xs"]);
        assert!(
            m.contains("mixes rows") && m.contains(needle),
            "{entry}: {m}"
        );
        assert!(m.contains("refused.fut:"), "{entry}: located: {m}");
    }
    let m = refusal("inner", &["xs"]);
    assert!(m.contains("mixes rows"), "{m}");
    let m = refusal("unsharded_len", &["xs"]);
    assert!(
        m.contains("parameter `ys`") && m.contains("not sharded"),
        "{m}"
    );
    let m = refusal("maximum", &["ys"]);
    assert!(m.contains("no array parameter named `ys`"), "{m}");
}

#[test]
fn ba_csr_jacobian_is_refused() {
    let p = load("benchmarks/ba.fut");
    let names: Vec<String> = ["w", "obs", "feat"].iter().map(|s| s.to_string()).collect();
    let Err(d) = p.sharded("jacobian", &names) else {
        panic!("the CSR Jacobian was sharded")
    };
    assert!(d.render().contains("mixes rows"), "{}", d.render());
}

/// Every entry point of the benchmarks and of the reverse-mode corpus, sharded by each of its
/// parameters that can be: a plan whose IR verifies, or a located refusal; never a panic.
#[test]
fn any_entry_point_is_sharded_or_refused() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["benchmarks", "tests/programs/ad/vjp"] {
        for e in std::fs::read_dir(repo(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "fut") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut planned, mut refused) = (0, 0);
    for f in files {
        let Ok(p) = Program::from_file(&f) else {
            continue;
        };
        for ep in p.entry_points() {
            let fun = p.core().entry(&ep.name).unwrap();
            for (_, vars) in &fun.entry.as_ref().unwrap().params {
                let [v] = vars[..] else { continue };
                let ty = p.core().names.ty(v);
                if ty.rank() == 0 {
                    continue;
                }
                let name = p.core().names.hint(v).to_string();
                match p.sharded(&ep.name, std::slice::from_ref(&name)) {
                    Ok((sp, _)) => {
                        gradus::core::verify::verify(sp.core()).unwrap_or_else(|e| {
                            panic!("{}: {} by {name}: {e}", f.display(), ep.name)
                        });
                        planned += 1;
                    }
                    Err(d) => {
                        assert!(d.render().contains("cannot shard"), "{}", d.render());
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        planned > 20 && refused > 20,
        "{planned} planned, {refused} refused"
    );
}

/// Random sum-structured programs (`common/sum_programs.rs`): every one is sharded with the
/// plan its construction implies, and every layout of the rows gives the unsharded results on
/// the interpreter (and, for the first few, on C).
#[test]
fn random_sum_structured_programs_shard() {
    for seed in 0..200u64 {
        let sp = sum_programs::sum_program(seed);
        let p = Program::from_source(&format!("sum{seed}.fut"), &sp.source)
            .unwrap_or_else(|d| panic!("seed {seed}:\n{}\n{}", sp.source, d.render()));
        let n = 6 + (seed as usize % 5);
        let args = [
            rand(&[n, 3], 100 + seed),
            rand(&[n], 200 + seed),
            rand(&[3], 300 + seed),
            Value::Scalar(Scalar::F64(0.3 + seed as f64 / 40.0)),
        ];
        let names = ["xs".to_string(), "ys".to_string()];
        let expected = p.call("main", args.to_vec()).unwrap();
        let (sharded, plan) = p
            .sharded("main", &names)
            .unwrap_or_else(|d| panic!("seed {seed} refused:\n{}\n{}", sp.source, d.render()));
        assert_eq!(plan.combine, sp.combine, "seed {seed}:\n{}", sp.source);
        for blocks in layouts(n) {
            let got = simulate(&sharded, &plan, &args, &blocks);
            close(
                &got,
                &expected,
                &format!("seed {seed}, blocks {blocks:?}:\n{}", sp.source),
            );
        }
        if seed < 3 {
            let native = sharded
                .with_backend(Backend::Native(NativeOptions::default()))
                .unwrap();
            let got = simulate(&native, &plan, &args, &combine::blocks(n, 3));
            close(
                &got,
                &expected,
                &format!("seed {seed} on C:\n{}", sp.source),
            );
        }
    }
}
