//! `gradus::shard::mpi::Sharded` under `mpirun` (the cargo feature `mpi`): this test binary
//! starts itself under `mpirun -np N` (N = 1 to 4), and each process calls the sharded entry
//! points of `python/tests/shard.fut` on its own block of rows (near-equal blocks, blocks
//! with none where there are fewer rows than processes, unequal blocks with none on rank 0,
//! no rows at all), with the results everywhere and on rank 0 only, and compares every
//! result with the unsharded call; likewise random sum-structured programs. Unsharded
//! arguments that differ between processes are an error on all of them.
#![cfg(feature = "mpi")]

use gradus::backend::c::NativeOptions;
use gradus::program::{Backend, Program};
use gradus::shard::mpi::Sharded;
use gradus::shard::{Combine, combine};
use gradus::value::Value;
use std::path::Path;
use std::process::Command;

#[path = "common/sum_programs.rs"]
mod sum_programs;

/// Set in the processes `mpirun` starts.
const CHILD: &str = "GRADUS_SHARD_MPI_CHILD";

fn program() -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/tests/shard.fut");
    Program::from_file(&path)
        .unwrap_or_else(|d| panic!("{}", d.render()))
        .with_backend(Backend::Native(NativeOptions::default()))
        .unwrap()
}

/// `n` rows of 3 pseudo-random features and targets, the same on every process.
fn data(n: usize) -> (Value, Value, Value) {
    let f = |i: usize| ((i * 7919 % 1000) as f64) / 500.0 - 1.0;
    let array = |shape: Vec<usize>, from: usize| {
        let count = shape.iter().product::<usize>();
        let vals: Vec<f64> = (0..count).map(|i| f(i + from)).collect();
        Value::from_ndarray(ndarray::ArrayD::from_shape_vec(shape, vals).unwrap())
    };
    (
        array(vec![3], 11),
        array(vec![n, 3], 0),
        array(vec![n], 101),
    )
}

/// The elements of `v` as `f64`.
fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(s) => vec![s.to_f64()],
        Value::Array(a) => (0..a.len()).map(|i| a.buffer().get(i).to_f64()).collect(),
    }
}

fn close(a: &Value, b: &Value) -> bool {
    let (p, q) = (floats(a), floats(b));
    a.shape() == b.shape()
        && a.elem_type() == b.elem_type()
        && p.len() == q.len()
        && p.iter()
            .zip(&q)
            .all(|(p, q)| p == q || (p - q).abs() <= 1e-10 * (1.0 + q.abs()))
}

/// What each process runs.
fn child() {
    let universe = mpi::initialize().expect("MPI");
    let world = universe.world();
    use mpi::traits::Communicator;
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let prog = program();
    let entries = [
        "objective",
        "gradient",
        "residuals",
        "summary",
        "largest",
        "smallest",
    ];
    for (n, even) in [(2usize, true), (7, true), (40, true), (9, false), (0, true)] {
        let (w, x, y) = data(n);
        let (start, len) = if even {
            combine::blocks(n, size)[rank]
        } else {
            uneven(n, size)[rank]
        };
        let xs = combine::rows(&x, start, len).unwrap();
        let ys = combine::rows(&y, start, len).unwrap();
        for entry in entries {
            let sharded = Sharded::new(&prog, entry, &["x".into(), "y".into()]).unwrap();
            let args = vec![w.clone(), xs.clone(), ys.clone()];
            let got = sharded.call(&world, args.clone()).unwrap();
            let local = sharded.call_local(&world, args.clone()).unwrap();
            let on_root = sharded.call_on_root(&world, args).unwrap();
            let want = prog
                .call(entry, vec![w.clone(), x.clone(), y.clone()])
                .unwrap();
            assert_eq!(got.len(), want.len(), "{entry}");
            assert_eq!(
                on_root.is_some(),
                rank == 0,
                "{entry}: results on rank 0 only"
            );
            for (i, v) in want.iter().enumerate() {
                let g = &got[i];
                assert!(
                    close(g, v),
                    "{entry}, {n} rows, rank {rank}: {g:?} against {v:?}"
                );
                if let Some(r) = &on_root {
                    assert!(close(&r[i], v), "{entry} on rank 0, {n} rows");
                }
                // Rows stay in this process's block; the rest is whole.
                let v = if sharded.plan().combine[i] == Combine::Concat {
                    &combine::rows(v, start, len).unwrap()
                } else {
                    v
                };
                assert!(
                    close(&local[i], v),
                    "{entry} with local rows, {n} rows, rank {rank}"
                );
            }
        }
    }
    if size > 1 {
        // Process 1 passes a weight vector of another length: every process gets the error.
        let (w, x, y) = data(4);
        let w = if rank == 1 {
            combine::rows(&w, 0, 2).unwrap()
        } else {
            w
        };
        let (start, len) = combine::blocks(4, size)[rank];
        let (xs, ys) = (
            combine::rows(&x, start, len).unwrap(),
            combine::rows(&y, start, len).unwrap(),
        );
        let sharded = Sharded::new(&prog, "objective", &["x".into(), "y".into()]).unwrap();
        let err = sharded
            .call(&world, vec![w, xs, ys])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("differ in type or shape between processes 0 and 1"),
            "{err}"
        );
    }
    if size > 1 {
        different_unsharded_values(&prog, &world, rank, size);
    }
    nans_combine_as_on_one_process(&world, rank, size);
    large_rows_results(&world, rank, size);
    an_error_on_one_process_is_an_error_on_all(&world, rank, size);
    random_programs(&world, rank, size);
    let refused = Sharded::new(&prog, "spread", &["x".into(), "y".into()]).err();
    assert!(refused.is_some_and(|e| e.contains("mixes rows")));
    println!("ok {rank} of {size}");
}

/// Blocks of `n` rows over `size` processes where rank 0 has none and the last rank twice
/// its share (all of them where there is one process).
fn uneven(n: usize, size: usize) -> Vec<(usize, usize)> {
    if size == 1 {
        return vec![(0, n)];
    }
    let mut lens = vec![0; size];
    let share = n / size;
    for l in lens.iter_mut().skip(1).take(size - 2) {
        *l = share;
    }
    lens[size - 1] = n - share * (size - 2);
    let mut start = 0;
    lens.into_iter()
        .map(|l| {
            start += l;
            (start - l, l)
        })
        .collect()
}

/// The last process passes other weights (of the same shape): every process gets the error
/// naming the argument, where the sums would otherwise be wrong.
fn different_unsharded_values(
    prog: &Program,
    world: &mpi::topology::SimpleCommunicator,
    rank: usize,
    size: usize,
) {
    let (w, x, y) = data(6);
    let w = if rank == size - 1 {
        let (_, _, other) = data(3);
        other
    } else {
        w
    };
    let (start, len) = combine::blocks(6, size)[rank];
    let args = vec![
        w,
        combine::rows(&x, start, len).unwrap(),
        combine::rows(&y, start, len).unwrap(),
    ];
    let sharded = Sharded::new(prog, "gradient", &["x".into(), "y".into()]).unwrap();
    let err = sharded.call(world, args).unwrap_err().to_string();
    assert!(
        err.contains("argument 1 of `gradient` is not sharded")
            && err.contains(&format!("processes 0 and {}", size - 1)),
        "{err}"
    );
}

/// NaNs in the rows of a maximum and a minimum whose neutral element is NaN, so that a
/// process whose rows are all NaN has a NaN extremum: where the NaNs are all of one
/// process's rows (the first's or the last's), some rows or every row, the combined results
/// are those of the unsharded call (NaN only where every row is).
fn nans_combine_as_on_one_process(
    world: &mpi::topology::SimpleCommunicator,
    rank: usize,
    size: usize,
) {
    let src = "entry extrema [n] (xs: [n]f64) (c: f64) : (f64, f64) = (reduce f64.max c xs, reduce f64.min c xs)";
    let prog = Program::from_source("extrema.fut", src).unwrap();
    let sharded = Sharded::new(&prog, "extrema", &["xs".into()]).unwrap();
    let n = 11;
    let blocks = combine::blocks(n, size);
    let (first, last) = (blocks[0], blocks[size - 1]);
    let cases = [
        (
            "the first process's rows",
            (0..n).map(|i| i < first.0 + first.1).collect(),
        ),
        (
            "the last process's rows",
            (0..n).map(|i| i >= last.0).collect(),
        ),
        ("every third row", (0..n).map(|i| i % 3 == 0).collect()),
        ("every row", vec![true; n]),
    ];
    let c = Value::Scalar(gradus::value::Scalar::F64(f64::NAN));
    for (what, nan) in cases {
        let nan: Vec<bool> = nan;
        let xs: Vec<f64> = (0..n)
            .map(|i| {
                if nan[i] {
                    f64::NAN
                } else {
                    (i * 37 % 11) as f64 - 5.0
                }
            })
            .collect();
        let xs = Value::from_ndarray(ndarray::Array1::from_vec(xs));
        let (start, len) = blocks[rank];
        let mine = combine::rows(&xs, start, len).unwrap();
        let want = prog.call("extrema", vec![xs, c.clone()]).unwrap();
        let got = sharded.call(world, vec![mine.clone(), c.clone()]).unwrap();
        let on_root = sharded.call_on_root(world, vec![mine, c.clone()]).unwrap();
        for (i, v) in want.iter().enumerate() {
            let v = floats(v)[0];
            let mut gs = vec![floats(&got[i])[0]];
            gs.extend(on_root.as_ref().map(|r| floats(&r[i])[0]));
            for g in gs {
                assert!(
                    g == v || (g.is_nan() && v.is_nan()),
                    "result {i}, NaN in {what}, rank {rank}: {g} against {v}"
                );
            }
        }
    }
}

/// A rows result of 16 MB, large enough that the buffer it is gathered into is fresh memory
/// advised to huge pages: every element, on rank 0 and everywhere, is the unsharded one.
fn large_rows_results(world: &mpi::topology::SimpleCommunicator, rank: usize, size: usize) {
    let src =
        "entry scaled [n] (xs: [n][8]f64) (c: f64) : [n][8]f64 = map (map (\\v -> v * c + 1)) xs";
    let prog = Program::from_source("scaled.fut", src).unwrap();
    let n = 250_000;
    let vals: Vec<f64> = (0..n * 8).map(|i| (i % 9973) as f64 * 0.5 - 7.0).collect();
    let xs = Value::from_ndarray(ndarray::ArrayD::from_shape_vec(vec![n, 8], vals).unwrap());
    let c = Value::Scalar(gradus::value::Scalar::F64(1.5));
    let sharded = Sharded::new(&prog, "scaled", &["xs".into()]).unwrap();
    let want = prog.call("scaled", vec![xs.clone(), c.clone()]).unwrap();
    // Near-equal blocks (rank 0's own rows at the front of the buffer that grows) and
    // uneven ones (rank 0 with none where there are several processes).
    for blocks in [combine::blocks(n, size), uneven(n, size)] {
        let (start, len) = blocks[rank];
        let mine = combine::rows(&xs, start, len).unwrap();
        let got = sharded.call(world, vec![mine.clone(), c.clone()]).unwrap();
        assert!(
            got[0] == want[0],
            "rank {rank}: the gathered rows everywhere"
        );
        let on_root = sharded.call_on_root(world, vec![mine, c.clone()]).unwrap();
        if let Some(r) = on_root {
            assert!(r[0] == want[0], "the gathered rows on rank 0, {blocks:?}");
        }
    }
}

/// Only the last process's rows hold a bad index: every process gets an error (the last its
/// own, located), and none waits forever.
fn an_error_on_one_process_is_an_error_on_all(
    world: &mpi::topology::SimpleCommunicator,
    rank: usize,
    size: usize,
) {
    let src = "entry picky [n] (is: [n]i64) (t: [3]f64) : f64 = f64.sum (map (\\i -> t[i]) is)";
    let prog = Program::from_source("picky.fut", src).unwrap();
    let sharded = Sharded::new(&prog, "picky", &["is".into()]).unwrap();
    let is = if rank == size - 1 {
        vec![0i64, 9]
    } else {
        vec![1i64, 2]
    };
    let is = Value::from_ndarray(ndarray::Array1::from_vec(is));
    let t = Value::from_ndarray(ndarray::Array1::from_vec(vec![1.0f64, 2.0, 3.0]));
    let err = sharded.call(world, vec![is, t]).unwrap_err().to_string();
    if rank == size - 1 {
        assert!(err.contains("picky.fut:"), "{err}");
    } else {
        assert!(
            err.contains(&format!("failed on process {}", size - 1)),
            "{err}"
        );
    }
}

/// Random sum-structured programs (`common/sum_programs.rs`) on the interpreter: each
/// process passes its own rows of `xs` and `ys`.
fn random_programs(world: &mpi::topology::SimpleCommunicator, rank: usize, size: usize) {
    for seed in 0..6u64 {
        let sp = sum_programs::sum_program(seed);
        let prog = Program::from_source("sum.fut", &sp.source).unwrap();
        let n = 5 + seed as usize;
        let (w, x, y) = data(n);
        let c = Value::Scalar(gradus::value::Scalar::F64(0.4));
        let (start, len) = combine::blocks(n, size)[rank];
        let mine = |v: &Value| combine::rows(v, start, len).unwrap();
        let sharded = Sharded::new(&prog, "main", &["xs".into(), "ys".into()]).unwrap();
        assert_eq!(sharded.plan().combine, sp.combine, "seed {seed}");
        let got = sharded
            .call(world, vec![mine(&x), mine(&y), w.clone(), c.clone()])
            .unwrap();
        let want = prog.call("main", vec![x, y, w, c]).unwrap();
        for (g, v) in got.iter().zip(&want) {
            assert!(close(g, v), "seed {seed}, rank {rank}: {g:?} against {v:?}");
        }
    }
}

#[test]
fn sharded_calls_match_the_unsharded_call() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let exe = std::env::current_exe().unwrap();
    for procs in 1..=4 {
        let out = Command::new("mpirun")
            .args(["--oversubscribe", "-np", &procs.to_string()])
            .arg(&exe)
            .args([
                "--exact",
                "sharded_calls_match_the_unsharded_call",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .expect("cannot run mpirun");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{procs} processes:\n{text}");
        for r in 0..procs {
            assert!(text.contains(&format!("ok {r} of {procs}")), "{text}");
        }
    }
}
