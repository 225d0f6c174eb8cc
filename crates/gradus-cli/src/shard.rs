//! `gradus run --shard NAME` (docs/mpi.md, docs/cli.md §gradus run): one process of a sharded
//! call. Rank 0 reads the input as `gradus run` does and sends every process its block of the
//! rows of the sharded parameters and a copy of the others; each process runs the per-process
//! entry point derived by `gradus::shard`; the partial sums are added in one reduction per
//! element type (one in practice: all `f64`), rows are gathered in rank order, and rank 0
//! prints the results exactly as `gradus run` would. After each call the processes agree on
//! its outcome ([`agree`]): a run-time error on any process is printed once, by rank 0, with
//! its location and the process it happened on, and every process then exits with the same
//! code. No process is left waiting in a collective and none is killed (`MPI_Abort` is not
//! used: how it ends the other processes depends on the launcher).
//!
//! The transport is the [`Comm`] trait: MPI through the `mpi` crate when gradus is built with
//! the cargo feature `mpi` (`shard_mpi.rs`), otherwise one process that does it all.

use crate::common::catch_panic;
use crate::run::{RunArgs, find_entry, input_error, print_results, read_args};
use gradus::data::{Reader, write_binary_into};
use gradus::program::{CallError, Program};
use gradus::shard::ShardPlan;
use gradus::shard::combine::{self, Traffic};
use gradus::value::{Scalar, Value, ValueRef};
use std::time::Instant;

/// The collective operations a sharded call needs, rooted at rank 0.
pub trait Comm {
    /// This process's rank.
    fn rank(&self) -> usize;
    /// The number of processes.
    fn size(&self) -> usize;
    /// Rank 0's `bytes` on every process.
    fn broadcast(&self, bytes: &mut Vec<u8>);
    /// Rank 0 hands out `parts` (one per rank; `None` elsewhere); every rank gets its part.
    fn scatter(&self, parts: Option<Vec<Vec<u8>>>) -> Vec<u8>;
    /// Every rank's results of the per-process entry point of `plan` combined into those of
    /// the unsharded call, on rank 0 (`None` elsewhere), and what this rank communicated
    /// (`gradus::shard::mpi::combine_results`).
    fn combine(
        &self,
        plan: &ShardPlan,
        mine: &[ValueRef],
    ) -> Result<(Option<Vec<Value>>, Traffic), String>;
    /// Every rank's bytes on rank 0, in rank order (`None` elsewhere).
    fn gather(&self, mine: Vec<u8>) -> Option<Vec<Vec<u8>>>;
    /// Waits for every process.
    fn barrier(&self);
}

/// One process holding all the rows.
#[cfg_attr(feature = "mpi", allow(dead_code))]
struct Solo;

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn broadcast(&self, _: &mut Vec<u8>) {}
    fn scatter(&self, parts: Option<Vec<Vec<u8>>>) -> Vec<u8> {
        parts.and_then(|p| p.into_iter().next()).unwrap_or_default()
    }
    fn combine(
        &self,
        plan: &ShardPlan,
        mine: &[ValueRef],
    ) -> Result<(Option<Vec<Value>>, Traffic), String> {
        let traffic = Traffic {
            reduced: combine::reduced_bytes(&plan.combine, mine),
            gathered: 0,
        };
        Ok((Some(mine.iter().map(ValueRef::to_value).collect()), traffic))
    }
    fn gather(&self, mine: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        Some(vec![mine])
    }
    fn barrier(&self) {}
}

/// Runs one process of `gradus run --shard`; returns the exit code.
pub fn run(a: &RunArgs, path: &str, program: Program) -> u8 {
    #[cfg(feature = "mpi")]
    {
        crate::shard_mpi::with_world(|comm| run_on(comm, a, path, program))
    }
    #[cfg(not(feature = "mpi"))]
    {
        let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
            .iter()
            .any(|k| std::env::var(k).is_ok_and(|n| n != "1"));
        if launched {
            eprintln!(
                "Error: this gradus was built without MPI (cargo feature `mpi` of gradus-cli), so --shard runs as one process only; see docs/mpi.md"
            );
            return 2;
        }
        run_on(&Solo, a, path, program)
    }
}

/// What a failed step leaves: the exit code, printed already where that rank saw it.
type Step<T> = Result<T, u8>;

fn run_on(comm: &dyn Comm, a: &RunArgs, path: &str, program: Program) -> u8 {
    let root = comm.rank() == 0;
    // Every rank derives the same plan; only rank 0 reports.
    let ep = match find_entry_quiet(&program, path, &a.entry, root) {
        Ok(ep) => ep,
        Err(code) => return code,
    };
    let (sharded, plan) = match program.sharded(&a.entry, &a.shard) {
        Ok(sp) => sp,
        Err(d) => {
            if root {
                eprint!("{}", d.render());
            }
            return crate::run::compile_failure_code(&d);
        }
    };
    // Rank 0 compiles first, so that the others find the C code in the cache.
    let prepared = if root {
        let p = a.backend.prepare(a.backend.resolve(), sharded);
        comm.barrier();
        p
    } else {
        comm.barrier();
        a.backend.prepare(a.backend.resolve(), sharded)
    };
    let prepared = prepared.map_err(|m| (1, format!("Error: {m}")));
    let program = match agree(comm, prepared) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (args, scattered) = match distribute(comm, a, &ep, &plan) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mut stats = Stats {
        scattered,
        ..Stats::default()
    };
    let mut results = None;
    for _ in 0..a.shard_runs.max(1) {
        // The previous call's results are freed before the next is timed.
        drop(results.take());
        comm.barrier();
        results = match call_and_combine(comm, &program, &plan, &args, path, &mut stats) {
            Ok(r) => r,
            Err(code) => return code,
        };
    }
    // Every rank's median computing time, for the statistics (after the timed calls).
    let slowest = if a.shard_stats {
        let mine = median_ms(&stats.compute).to_le_bytes().to_vec();
        comm.gather(mine).map(|all| {
            all.iter()
                .filter_map(|b| Some(f64::from_le_bytes(b.get(..8)?.try_into().ok()?)))
                .fold(0.0, f64::max)
        })
    } else {
        None
    };
    let Some(results) = results else { return 0 };
    let code = print_results(&ep, &results, a.binary);
    if a.shard_stats {
        stats.print(comm.size(), slowest.unwrap_or(0.0));
    }
    code
}

/// The median of `v` (seconds), in milliseconds.
fn median_ms(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(0.0) * 1e3
}

fn find_entry_quiet(
    program: &Program,
    path: &str,
    entry: &str,
    root: bool,
) -> Step<gradus::program::EntryPoint> {
    if root {
        return find_entry(program, path, entry);
    }
    program
        .entry_points()
        .into_iter()
        .find(|e| e.name == entry)
        .ok_or(1)
}

/// Rank 0 reads the arguments and sends each rank its own; returns this rank's arguments
/// (the rank and first row appended) and the bytes rank 0 scattered.
fn distribute(
    comm: &dyn Comm,
    a: &RunArgs,
    ep: &gradus::program::EntryPoint,
    plan: &ShardPlan,
) -> Step<(Vec<Value>, usize)> {
    let parts = if comm.rank() == 0 {
        let read = read_args(a, ep).and_then(|args| split(comm.size(), &args, plan));
        let mut status = vec![match &read {
            Ok(_) => 0u8,
            Err(code) => *code,
        }];
        comm.broadcast(&mut status);
        Some(read?)
    } else {
        let mut status = vec![0u8];
        comm.broadcast(&mut status);
        if status[0] != 0 {
            return Err(status[0]);
        }
        None
    };
    let scattered = parts
        .as_ref()
        .map_or(0, |p: &Vec<Vec<u8>>| p.iter().map(Vec::len).sum());
    let mine = comm.scatter(parts);
    let mut values = Vec::new();
    let mut reader = Reader::new(&mine);
    while let Ok(Some(v)) = reader.next_value() {
        values.push(v);
    }
    Ok((values, scattered))
}

/// Each rank's arguments, in the binary format: the sharded parameters' blocks of rows, the
/// others whole, then the rank and the index of its first row.
fn split(size: usize, args: &[Value], plan: &ShardPlan) -> Step<Vec<Vec<u8>>> {
    let n = args[plan.sharded[0]].shape()[0];
    for &i in &plan.sharded {
        if args[i].shape()[0] != n {
            return Err(input_error(format!(
                "the sharded arguments have different numbers of rows ({n} and {})",
                args[i].shape()[0]
            )));
        }
    }
    let mut out = Vec::with_capacity(size);
    for (rank, (start, len)) in combine::blocks(n, size).into_iter().enumerate() {
        let mut bytes = Vec::new();
        for (i, v) in args.iter().enumerate() {
            if plan.sharded.contains(&i) {
                let rows = combine::rows(v, start, len).map_err(input_error)?;
                write_binary_into(&rows, &mut bytes);
            } else {
                write_binary_into(v, &mut bytes);
            }
        }
        write_binary_into(&Value::Scalar(Scalar::I64(rank as i64)), &mut bytes);
        write_binary_into(&Value::Scalar(Scalar::I64(start as i64)), &mut bytes);
        out.push(bytes);
    }
    Ok(out)
}

/// A step's failure on one rank: the exit code and the message, not yet printed.
type Failure = (u8, String);

/// One timed call: this rank runs the per-process entry point, the ranks agree on its
/// outcome, and the results are combined on rank 0 (`None` elsewhere) from where the call
/// left them (a rank that only sends its rows copies nothing).
fn call_and_combine(
    comm: &dyn Comm,
    program: &Program,
    plan: &ShardPlan,
    args: &[Value],
    path: &str,
    stats: &mut Stats,
) -> Step<Option<Vec<Value>>> {
    let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
    let t0 = Instant::now();
    let mut agreed = false;
    let called = catch_panic(|| {
        program.call_with(&plan.entry, &refs, |mine| {
            stats.compute.push(t0.elapsed().as_secs_f64());
            agreed = true;
            agree(comm, Ok(()))?;
            let t1 = Instant::now();
            let results = gather_results(comm, plan, mine, stats)?;
            stats.combine.push(t1.elapsed().as_secs_f64());
            stats.call.push(t0.elapsed().as_secs_f64());
            Ok(results)
        })
    });
    let failure = match called {
        Ok(Ok(combined)) => return combined,
        Ok(Err(CallError::Runtime(e))) => (2, e.to_string()),
        Ok(Err(e)) => (3, format!("Error: {e}")),
        Err(p) => (
            4,
            format!("internal error: gradus panicked while running {path}: {p}"),
        ),
    };
    if agreed {
        // A panic while combining, after the ranks agreed, is a bug in gradus: reported on
        // this rank, with no further collective to join.
        eprintln!("{}", failure.1);
        return Err(failure.0);
    }
    agree(comm, Err(failure))
}

/// Every process learns whether a step failed on any of them: the ranks' outcomes are
/// gathered on rank 0, which prints the first failure (by rank) and sends its exit code to
/// all. Two small collectives; each process's own value is kept where it succeeded.
fn agree<T>(comm: &dyn Comm, mine: Result<T, Failure>) -> Step<T> {
    let report = match &mine {
        Ok(_) => vec![0u8],
        Err((code, message)) => [&[*code][..], message.as_bytes()].concat(),
    };
    let mut verdict = vec![0u8];
    let reports = comm.gather(report).unwrap_or_default();
    if let Some((rank, r)) = reports.iter().enumerate().find(|(_, r)| r[0] != 0) {
        let message = String::from_utf8_lossy(&r[1..]);
        if comm.size() > 1 {
            eprintln!("{message}\n(on process {rank} of {})", comm.size());
        } else {
            eprintln!("{message}");
        }
        verdict[0] = r[0];
    }
    comm.broadcast(&mut verdict);
    match (mine, verdict[0]) {
        (Ok(v), 0) => Ok(v),
        (_, 0) => Err(1),
        (_, code) => Err(code),
    }
}

/// Bytes communicated and times of the calls, for `--shard-stats`.
#[derive(Default)]
struct Stats {
    scattered: usize,
    summed: usize,
    gathered: usize,
    compute: Vec<f64>,
    combine: Vec<f64>,
    call: Vec<f64>,
}

impl Stats {
    fn print(&self, size: usize, slowest: f64) {
        eprintln!(
            "gradus shard: {size} process(es), {} run(s): call {:.3} ms median (rank 0 computing {:.3} ms, the slowest process {slowest:.3} ms; rank 0 combining {:.3} ms); per call and process: {} bytes reduced, {} bytes of rows gathered on rank 0 in all; {} bytes scattered once",
            self.call.len(),
            median_ms(&self.call),
            median_ms(&self.compute),
            median_ms(&self.combine),
            self.summed,
            self.gathered,
            self.scattered
        );
    }
}

/// Combines the ranks' results on rank 0 (`None` elsewhere): one reduction for the sums of
/// floats, one for those of integers (if any), one gather per rows result.
fn gather_results(
    comm: &dyn Comm,
    plan: &ShardPlan,
    mine: &[ValueRef],
    stats: &mut Stats,
) -> Step<Option<Vec<Value>>> {
    let (out, traffic) = comm.combine(plan, mine).map_err(|e| {
        if comm.rank() == 0 {
            eprintln!("Error: {e}");
        }
        3u8
    })?;
    stats.summed = traffic.reduced;
    stats.gathered = traffic.gathered;
    Ok(out)
}
