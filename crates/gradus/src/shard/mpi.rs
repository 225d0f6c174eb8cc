//! Sharded calls from Rust over an MPI communicator (the cargo feature `mpi`; docs/mpi.md
//! §From Rust): every process of the communicator calls [`Sharded::call`] (results on every
//! process), [`Sharded::call_on_root`] (results on rank 0 only) or [`Sharded::call_local`]
//! (rows results left in blocks where they were computed) together, each with its own rows of
//! the sharded parameters and the same values of the others, and gets the results of the
//! unsharded call on all the rows.
//!
//! **Takes** a compiled program, an entry point and the names of the parameters split by
//! rows. **Guarantees** per call: one `Allgather` of a hash of the arguments' types and
//! shapes and of each unsharded argument's value (different ones are an error on every
//! process), one exclusive scan of the row counts (the global index of each process's first
//! row), the per-process entry point run on the process's rows, one `Allreduce` of a flag so
//! that a run-time error on one process is an error on all (none is left waiting), then
//! [`combine_results`]:
//! one reduction of all float sums packed into one `f64` buffer (and one of the integer sums,
//! only if there are any; likewise for maxima and minima), and per result made of rows one
//! `Gatherv` (or `Allgatherv`; none for `call_local`) of its raw elements into the combined
//! result's buffer, after one `Allgather` of the row and element counts; replicated results are returned as
//! computed. Row counts that differ between the sharded arguments of one process are an
//! error before any communication; every process must make the same calls.

pub use super::combine::{Results, Traffic};
use super::{Combine, ShardPlan, combine, gather};
use crate::diag::Diagnostics;
use crate::program::{CallError, Program};
use crate::value::{Array, Buffer, Scalar, Value, ValueRef, ViewData};
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

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
        let out = self.call_to(comm, &args, Results::Everywhere)?;
        Ok(out.expect("results everywhere"))
    }

    /// As [`Sharded::call`], but each process keeps its own rows of the results made of rows
    /// (its block of the unsharded result's rows, in rank order; nothing is gathered), and
    /// gets the other results (sums, extrema, replicated) whole: for a caller that uses the
    /// rows where they were computed, such as the blocks of a Jacobian.
    pub fn call_local<C: Communicator>(
        &self,
        comm: &C,
        args: Vec<Value>,
    ) -> Result<Vec<Value>, CallError> {
        let out = self.call_to(comm, &args, Results::Local)?;
        Ok(out.expect("results on every process"))
    }

    /// As [`Sharded::call`], but only rank 0 gets the results (`None` elsewhere): the sums
    /// are reduced and the rows gathered to rank 0 only, which saves every other process
    /// the receiving of all the rows.
    pub fn call_on_root<C: Communicator>(
        &self,
        comm: &C,
        args: Vec<Value>,
    ) -> Result<Option<Vec<Value>>, CallError> {
        self.call_to(comm, &args, Results::Root)
    }

    fn call_to<C: Communicator>(
        &self,
        comm: &C,
        args: &[Value],
        to: Results,
    ) -> Result<Option<Vec<Value>>, CallError> {
        let local = self.local_rows(args)?;
        self.check_shapes(comm, args)?;
        let mut offset = 0i64;
        comm.exclusive_scan_into(&local, &mut offset, SystemOperation::sum());
        if comm.rank() == 0 {
            // Left undefined by MPI on the first process.
            offset = 0;
        }
        let mut full: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
        full.push(ValueRef::Scalar(Scalar::I64(i64::from(comm.rank()))));
        full.push(ValueRef::Scalar(Scalar::I64(offset)));
        // The results are combined from the native backend's buffers, where the call leaves
        // them (no copy of rows a process only sends); every process agrees on the call's
        // outcome first, whether or not its own call succeeded: inside the closure where it
        // did (`call_with` runs it only then, and returns its result), outside where not.
        let entry = &self.plan.entry;
        let combined = self.program.call_with(entry, &full, |mine| {
            agree(comm, entry, Ok(()))?;
            let (out, _) =
                combine_results(comm, &self.plan, mine, to).map_err(CallError::BadInput)?;
            Ok(out)
        });
        match combined {
            Ok(out) => out,
            Err(e) => agree(comm, entry, Err(e)),
        }
    }

    /// The number of rows of this process's sharded arguments, which must agree.
    fn local_rows(&self, args: &[Value]) -> Result<i64, CallError> {
        let mut rows = None;
        for &p in &self.plan.sharded {
            let Some(Value::Array(a)) = args.get(p) else {
                return Err(CallError::BadInput(format!(
                    "argument {} of `{}` is sharded by rows: it must be an array",
                    p + 1,
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
    /// or shape (the sharded ones: in all but the row count), or where the arguments that
    /// are not sharded differ in value, which would make the sums wrong: one `Allgather` of
    /// a hash of the types and shapes and one hash per unsharded argument.
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
        let text = args
            .iter()
            .enumerate()
            .map(describe)
            .collect::<Vec<_>>()
            .join(" ");
        let mut mine = vec![hash_bytes(text.as_bytes())];
        for (i, v) in args.iter().enumerate() {
            if !self.plan.sharded.contains(&i) {
                mine.push(hash_value(v));
            }
        }
        let mut all = vec![0u64; mine.len() * comm.size() as usize];
        comm.all_gather_into(&mine[..], &mut all[..]);
        let theirs = |r: usize| &all[r * mine.len()..(r + 1) * mine.len()];
        let Some(r) = (1..comm.size() as usize).find(|&r| theirs(r) != theirs(0)) else {
            return Ok(());
        };
        let entry = &self.plan.entry;
        if theirs(r)[0] != theirs(0)[0] {
            return Err(CallError::BadInput(format!(
                "the arguments of `{entry}` differ in type or shape between processes 0 and {r} \
                 (this is process {}, with {text})",
                comm.rank()
            )));
        }
        let k = (1..mine.len())
            .find(|&k| theirs(r)[k] != theirs(0)[k])
            .unwrap_or(1);
        let arg = (0..args.len())
            .filter(|i| !self.plan.sharded.contains(i))
            .nth(k - 1)
            .unwrap_or(0);
        Err(CallError::BadInput(format!(
            "argument {} of `{entry}` is not sharded, so it must be the same on every process, \
             but processes 0 and {r} pass different values",
            arg + 1
        )))
    }
}

/// `mine`, where the call succeeded on every process; otherwise an error on every process (its
/// own where it failed, one naming the first process that failed elsewhere), so that none is
/// left waiting in the collectives that combine the results: one `Allreduce` of a flag.
fn agree<C: Communicator, T>(
    comm: &C,
    entry: &str,
    mine: Result<T, CallError>,
) -> Result<T, CallError> {
    // The lowest failed rank, or `size` where none failed.
    let me = if mine.is_err() {
        comm.rank()
    } else {
        comm.size()
    };
    let mut first = me;
    comm.all_reduce_into(&me, &mut first, SystemOperation::min());
    match mine {
        Err(e) => Err(e),
        Ok(_) if first < comm.size() => Err(CallError::BadInput(format!(
            "`{entry}` failed on process {first} of {} (which reports the error)",
            comm.size()
        ))),
        Ok(v) => Ok(v),
    }
}

/// A hash of `bytes` that is the same in every process (SipHash with fixed keys).
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hasher::write(&mut hasher, bytes);
    std::hash::Hasher::finish(&hasher)
}

/// A hash of the elements of `v`, read in place as the bytes that hold them (no copy; its
/// type and shape are hashed apart).
fn hash_value(v: &Value) -> u64 {
    match v {
        Value::Scalar(s) => hash_bytes(format!("{s:?}").as_bytes()),
        Value::Array(a) => crate::with_buffer!(a.buffer(), v => hash_bytes(element_bytes(v))),
    }
}

/// The bytes that hold `v`'s elements.
fn element_bytes<T: Equivalence>(v: &[T]) -> &[u8] {
    // SAFETY: the elements of a `Buffer` are primitives (`bool`, integers, floats), which
    // have no padding and no uninitialised bytes, so their memory may be read as
    // `size_of_val(v)` bytes for as long as `v` is borrowed.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Combines every process's results `mine` of the per-process entry point of `plan` (borrowed
/// where the call left them) into those of the unsharded call, on the processes `to` names
/// (`None` on the others): the partial sums packed into one reduction per element kind, each
/// result made of rows gathered, as raw elements, straight from where it lies into the
/// buffer of the combined result. Every process must call it together; an error (rows
/// results of different types or inner shapes) is the same on all.
pub fn combine_results<C: Communicator>(
    comm: &C,
    plan: &ShardPlan,
    mine: &[ValueRef],
    to: Results,
) -> Result<(Option<Vec<Value>>, Traffic), String> {
    let mut traffic = Traffic {
        reduced: combine::reduced_bytes(&plan.combine, mine),
        gathered: 0,
    };
    let receives = to != Results::Root || comm.rank() == 0;
    let mut packed: Vec<Packed> = Vec::new();
    for how in [Combine::Sum, Combine::Max, Combine::Min] {
        let (mut floats, mut ints) = (Vec::new(), Vec::new());
        for (v, h) in mine.iter().zip(&plan.combine) {
            if *h == how {
                combine::pack_sum(&v.to_value(), &mut floats, &mut ints);
            }
        }
        if how == Combine::Sum {
            reduce(comm, &mut floats, how, to);
        } else {
            reduce_extrema(comm, &mut floats, how, to);
        }
        reduce(comm, &mut ints, how, to);
        packed.push((how, floats, ints, 0, 0));
    }
    let layout = RowsLayout::exchange(comm, plan, mine)?;
    let mut ci = 0;
    let mut out = Vec::with_capacity(mine.len());
    for (v, how) in mine.iter().zip(&plan.combine) {
        let combined = match how {
            Combine::Concat if to != Results::Local => {
                ci += 1;
                let width = v.elem_type().byte_width();
                traffic.gathered += width * layout.received(comm.rank() as usize, ci - 1, to);
                gather_rows(comm, v, &layout.counts(ci - 1), to)
            }
            _ if !receives => None,
            Combine::Replicated | Combine::Concat => Some(v.to_value()),
            reduced => {
                let (_, floats, ints, fi, ii) = packed
                    .iter_mut()
                    .find(|p| p.0 == *reduced)
                    .expect("a reduction");
                Some(combine::unpack_sum(&v.to_value(), floats, ints, fi, ii))
            }
        };
        out.extend(combined);
    }
    Ok((receives.then_some(out), traffic))
}

/// One kind of reduction (sum, maximum or minimum) of a call: its floats and its integers,
/// packed, and the positions up to which they have been unpacked.
type Packed = (Combine, Vec<f64>, Vec<i64>, usize, usize);

/// Reduces `buf` elementwise over the processes (`how`: a sum, maximum or minimum), in place
/// on those `to` names; nothing where it is empty (on every process alike, since all have
/// the same results).
fn reduce<C: Communicator, T: Equivalence + Clone>(
    comm: &C,
    buf: &mut [T],
    how: Combine,
    to: Results,
) {
    if buf.is_empty() {
        return;
    }
    let op = match how {
        Combine::Max => SystemOperation::max(),
        Combine::Min => SystemOperation::min(),
        _ => SystemOperation::sum(),
    };
    let send = buf.to_vec();
    let root = comm.process_at_rank(0);
    match to {
        Results::Everywhere | Results::Local => comm.all_reduce_into(&send[..], buf, op),
        Results::Root if comm.rank() == 0 => root.reduce_into_root(&send[..], buf, op),
        Results::Root => root.reduce_into(&send[..], op),
    }
}

/// Reduces the floats of maxima or minima (`how`) as their [`combine::extremum_key`]s, in
/// `i64`, so that NaNs and the sign of zero combine in one order whatever the order in
/// which MPI meets the processes' values (a plain `MPI_MAX` of floats keeps or drops a NaN
/// depending on which operand it is).
fn reduce_extrema<C: Communicator>(comm: &C, floats: &mut [f64], how: Combine, to: Results) {
    let max = how == Combine::Max;
    let mut keys: Vec<i64> = floats
        .iter()
        .map(|&x| combine::extremum_key(x, max))
        .collect();
    reduce(comm, &mut keys, how, to);
    for (x, k) in floats.iter_mut().zip(keys) {
        *x = combine::from_extremum_key(k, max);
    }
}

/// The row and element counts of every process's rows results, known to every process (one
/// `Allgather`): three numbers per process and result (rows, elements, and a hash of the
/// element type and inner shape, which must agree).
struct RowsLayout {
    /// Per process, per rows result: `[rows, elements, hash]`.
    all: Vec<u64>,
    results: usize,
    size: usize,
}

impl RowsLayout {
    fn exchange<C: Communicator>(
        comm: &C,
        plan: &ShardPlan,
        mine: &[ValueRef],
    ) -> Result<RowsLayout, String> {
        let mut local = Vec::new();
        for (v, how) in mine.iter().zip(&plan.combine) {
            if *how != Combine::Concat {
                continue;
            }
            let shape = v.shape();
            let mut hasher = std::hash::DefaultHasher::new();
            std::hash::Hash::hash(
                &(v.elem_type().to_string(), v.rank(), &shape.get(1..)),
                &mut hasher,
            );
            let rows = shape.first().copied().unwrap_or(0);
            let elems: usize = shape.iter().product();
            local.extend([
                rows as u64,
                elems as u64,
                std::hash::Hasher::finish(&hasher),
            ]);
        }
        let size = comm.size() as usize;
        let results = local.len() / 3;
        let mut all = vec![0u64; local.len() * size];
        if results > 0 {
            comm.all_gather_into(&local[..], &mut all[..]);
        }
        let layout = RowsLayout { all, results, size };
        layout.check(plan)?;
        Ok(layout)
    }

    fn at(&self, rank: usize, result: usize) -> [u64; 3] {
        let i = 3 * (rank * self.results + result);
        [self.all[i], self.all[i + 1], self.all[i + 2]]
    }

    /// Fails where a rows result is a scalar, or differs in type or inner shape between
    /// processes, or has more elements than one MPI count holds.
    fn check(&self, plan: &ShardPlan) -> Result<(), String> {
        for i in 0..self.results {
            let [_, _, first] = self.at(0, i);
            let mut total = 0u64;
            for r in 0..self.size {
                let [rows, elems, hash] = self.at(r, i);
                if hash != first || (rows == 0 && elems != 0) {
                    return Err(format!(
                        "the rows results {} of `{}` differ in type or inner shape between processes 0 and {r}",
                        i + 1,
                        plan.entry
                    ));
                }
                total += elems;
            }
            if total > Count::MAX as u64 {
                return Err(format!(
                    "a rows result of `{}` has {total} elements, more than one MPI message holds",
                    plan.entry
                ));
            }
        }
        Ok(())
    }

    /// Element counts per process of rows result `result`.
    fn counts(&self, result: usize) -> Vec<Count> {
        (0..self.size)
            .map(|r| self.at(r, result)[1] as Count)
            .collect()
    }

    /// Elements of rows result `result` that process `rank` receives.
    fn received(&self, rank: usize, result: usize, to: Results) -> usize {
        if to == Results::Local || (to == Results::Root && rank != 0) {
            return 0;
        }
        let others: u64 = (0..self.size)
            .filter(|&r| r != rank)
            .map(|r| self.at(r, result)[1])
            .sum();
        others as usize
    }
}

/// The concatenation of every process's `mine` (an array of its rows) in rank order, on the
/// processes `to` names (`None` elsewhere).
fn gather_rows<C: Communicator>(
    comm: &C,
    mine: &ValueRef,
    counts: &[Count],
    to: Results,
) -> Option<Value> {
    let ValueRef::Array(a) = mine else {
        return (to != Results::Root || comm.rank() == 0).then(|| mine.to_value());
    };
    let mut shape = a.shape().to_vec();
    let row: usize = shape[1..].iter().product();
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    shape[0] = total.checked_div(row).unwrap_or(0);
    macro_rules! gathered {
        ($($v:ident),*) => {
            match a.data() {
                $(ViewData::$v(s) => gather_vec(comm, s, counts, to).map(Buffer::$v)),*
            }
        };
    }
    let buf = gathered!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64)?;
    Some(Value::Array(
        Array::new(shape, buf).expect("the shape of the gathered rows"),
    ))
}

/// `Gatherv`/`Allgatherv` of every process's `mine` into one vector, in rank order, on the
/// processes `to` names (`super::gather`: received straight into uninitialised capacity).
fn gather_vec<C: Communicator, T: Equivalence + Copy>(
    comm: &C,
    mine: &[T],
    counts: &[Count],
    to: Results,
) -> Option<Vec<T>> {
    if counts.iter().all(|&c| c == 0) {
        // Nothing anywhere (the same on every process): no collective.
        return (to != Results::Root || comm.rank() == 0).then(Vec::new);
    }
    match to {
        Results::Everywhere | Results::Local => Some(gather::all_gather_vec(comm, mine, counts)),
        Results::Root => gather::gather_vec_to_root(comm, mine, counts),
    }
}
