//! Sharded calls from Rust over an MPI communicator (the cargo feature `mpi`; docs/mpi.md
//! §From Rust): every process of the communicator calls [`Sharded::call`] together, each
//! with its own rows of the sharded parameters and the same values of the others, and every
//! process gets the results of the unsharded call on all the rows.
//!
//! **Takes** a compiled program, an entry point and the names of the parameters split by
//! rows. **Guarantees** per call: one exclusive scan of the row counts (the global index of
//! each process's first row), the per-process entry point run on the process's rows, one
//! `Allreduce` of all float sums packed into one `f64` buffer (and one of the integer sums,
//! only if there are any), one `Allgatherv` per call for all the results made of rows (in the
//! binary data format, after an `Allgather` of their sizes); replicated results are returned
//! as computed. Row counts that differ between the sharded arguments of one process are an
//! error before any communication; every process must make the same calls.

use super::{Combine, ShardPlan, combine};
use crate::data::{Reader, write_binary_into};
use crate::diag::Diagnostics;
use crate::program::{CallError, Program};
use crate::value::{Scalar, Value};
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::traits::{Communicator, CommunicatorCollectives};

/// An entry point split by rows over the processes of an MPI communicator.
pub struct Sharded {
    program: Program,
    plan: ShardPlan,
}

impl Sharded {
    /// The entry point `entry` of `program` with the parameters named in `shard` split by
    /// rows, compiled for `program`'s backend. Fails, with the location of the statement that
    /// mixes rows, where the entry point does not shard, or where the backend fails.
    pub fn new(program: &Program, entry: &str, shard: &[String]) -> Result<Sharded, String> {
        let (per_process, plan) = program
            .sharded(entry, shard)
            .map_err(|d: Diagnostics| d.to_string())?;
        let program = per_process
            .with_backend(program.backend())
            .map_err(|e| e.to_string())?;
        Ok(Sharded { program, plan })
    }

    /// How each result combines across processes.
    pub fn plan(&self) -> &ShardPlan {
        &self.plan
    }

    /// Calls the entry point on this process's rows (`args` as for [`Program::call`], the
    /// sharded parameters holding this process's rows, possibly none) and returns the
    /// results of the unsharded call, on every process of `comm`.
    pub fn call<C: Communicator>(
        &self,
        comm: &C,
        args: Vec<Value>,
    ) -> Result<Vec<Value>, CallError> {
        let local = self.local_rows(&args)?;
        self.check_shapes(comm, &args)?;
        let mut offset = 0i64;
        comm.exclusive_scan_into(&local, &mut offset, SystemOperation::sum());
        if comm.rank() == 0 {
            // Left undefined by MPI on the first process.
            offset = 0;
        }
        let mut full = args;
        full.push(Value::Scalar(Scalar::I64(i64::from(comm.rank()))));
        full.push(Value::Scalar(Scalar::I64(offset)));
        let mine = self.program.call(&self.plan.entry, full)?;
        self.combine(comm, mine).map_err(CallError::BadInput)
    }

    /// The number of rows of this process's sharded arguments, which must agree.
    fn local_rows(&self, args: &[Value]) -> Result<i64, CallError> {
        let mut rows = None;
        for &p in &self.plan.sharded {
            let Some(Value::Array(a)) = args.get(p) else {
                return Err(CallError::BadInput(format!(
                    "argument {p} of `{}` is sharded by rows: it must be an array",
                    self.plan.entry
                )));
            };
            let n = a.shape()[0];
            if rows.is_some_and(|r| r != n) {
                return Err(CallError::BadInput(format!(
                    "the sharded arguments of `{}` have different row counts on this process ({} and {n})",
                    self.plan.entry,
                    rows.unwrap_or(0)
                )));
            }
            rows = Some(n);
        }
        Ok(rows.unwrap_or(0) as i64)
    }

    /// Fails on every process alike where the processes' arguments differ in element type
    /// or shape (the sharded ones: in all but the row count): one `Allgather` of a
    /// description of them.
    fn check_shapes<C: Communicator>(&self, comm: &C, args: &[Value]) -> Result<(), CallError> {
        let describe = |(i, v): (usize, &Value)| {
            let shape = v.shape();
            let shape = if self.plan.sharded.contains(&i) {
                format!("[rows]{:?}", shape.get(1..).unwrap_or(&[]))
            } else {
                format!("{shape:?}")
            };
            format!("{}{shape}", v.elem_type())
        };
        let mine: Vec<String> = args.iter().enumerate().map(describe).collect();
        let text = mine.join(" ");
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&text, &mut hasher);
        let hash = std::hash::Hasher::finish(&hasher);
        let mut all = vec![0u64; comm.size() as usize];
        comm.all_gather_into(&hash, &mut all[..]);
        match all.iter().position(|&h| h != all[0]) {
            None => Ok(()),
            Some(r) => Err(CallError::BadInput(format!(
                "the arguments of `{}` differ in type or shape between processes 0 and {r} \
                 (this is process {}, with {text})",
                self.plan.entry,
                comm.rank()
            ))),
        }
    }

    /// Every process's results combined: the sums added, the rows concatenated in rank order.
    fn combine<C: Communicator>(&self, comm: &C, mine: Vec<Value>) -> Result<Vec<Value>, String> {
        let (mut floats, mut ints, mut rows) = (Vec::new(), Vec::new(), Vec::new());
        for (v, how) in mine.iter().zip(&self.plan.combine) {
            match how {
                Combine::Sum => combine::pack_sum(v, &mut floats, &mut ints),
                Combine::Concat => write_binary_into(v, &mut rows),
                Combine::Replicated => {}
            }
        }
        for_nonempty(&mut floats, |b| {
            let send = b.clone();
            comm.all_reduce_into(&send[..], &mut b[..], SystemOperation::sum());
        });
        for_nonempty(&mut ints, |b| {
            let send = b.clone();
            comm.all_reduce_into(&send[..], &mut b[..], SystemOperation::sum());
        });
        let per_rank = if self.plan.combine.contains(&Combine::Concat) {
            all_gather_bytes(comm, &rows)?
        } else {
            Vec::new()
        };
        let (mut fi, mut ii, mut ci) = (0, 0, 0);
        let mut out = Vec::with_capacity(mine.len());
        for (v, how) in mine.into_iter().zip(&self.plan.combine) {
            out.push(match how {
                Combine::Replicated => v,
                Combine::Sum => combine::unpack_sum(&v, &floats, &ints, &mut fi, &mut ii),
                Combine::Concat => {
                    let parts: Vec<Value> = per_rank.iter().map(|r| r[ci].clone()).collect();
                    ci += 1;
                    combine::combine(Combine::Concat, &parts)?
                }
            });
        }
        Ok(out)
    }
}

/// Runs `f` on `buf` unless it is empty (an empty reduction is skipped on every process
/// alike, since all have the same results).
fn for_nonempty<T>(buf: &mut Vec<T>, f: impl FnOnce(&mut Vec<T>)) {
    if !buf.is_empty() {
        f(buf);
    }
}

/// Every process's `mine` (values in the binary data format), decoded, in rank order.
fn all_gather_bytes<C: Communicator>(comm: &C, mine: &[u8]) -> Result<Vec<Vec<Value>>, String> {
    let size = comm.size() as usize;
    let mut lens: Vec<Count> = vec![0; size];
    comm.all_gather_into(&(mine.len() as Count), &mut lens[..]);
    let displs: Vec<Count> = lens
        .iter()
        .scan(0, |acc, &l| {
            let d = *acc;
            *acc += l;
            Some(d)
        })
        .collect();
    let total: usize = lens.iter().map(|&l| l as usize).sum();
    // Every process sends at least one value's encoding, so no buffer is empty.
    let mut flat = vec![0u8; total];
    let mut recv = PartitionMut::new(&mut flat[..], &lens[..], &displs[..]);
    comm.all_gather_varcount_into(mine, &mut recv);
    let mut out = Vec::with_capacity(size);
    for (d, l) in displs.iter().zip(&lens) {
        let bytes = &flat[*d as usize..(*d + *l) as usize];
        let mut r = Reader::new(bytes);
        let mut values = Vec::new();
        while let Some(v) = r.next_value().map_err(|e| e.to_string())? {
            values.push(v);
        }
        out.push(values);
    }
    Ok(out)
}
