//! The reverse pass (docs/tape.md §The sequential algorithm, §Parallel recording and pullback): seed the outputs, resolve every node once while
//! walking the job graph backwards from the terminal job, read the inputs' adjoints.
//!
//! Jobs that joined into the same job are resolved in parallel (`rayon::join`, or
//! `par_iter` for n-ary forks) in [`ReverseMode::Parallel`]. Every record names its operands
//! by slots of its own job, so the sweep of a job reads and writes only that job's area, with
//! plain loads and stores; a value of another (earlier) job is reached through the job's proxy
//! for it, whose adjoint is added to the other job once, by an atomic compare-and-swap
//! addition, because sibling tasks may write into a common ancestor at the same time. A
//! program without forks has no proxies and performs no atomic read-modify-write at all, and
//! its pullback runs on a plain `f64` buffer that the sweep leaves zeroed for the next one.

use crate::id::{JobId, NodeId};
use crate::record::JobRecorder;
use crate::segment::{
    Before, DENSE, DOT, FUSED, JobRecord, MANY, NO_SIDE, Rec, Segment, dot_parts, many_parts,
};
use crate::var::Var;
use rayon::prelude::*;
use std::fmt;
use std::hint::select_unpredictable;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// How the reverse pass schedules independent jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReverseMode {
    /// Resolve the tasks of each fork in parallel on the current rayon pool. Cross-job
    /// additions from concurrent tasks may happen in either order, so results can differ
    /// between runs in the last bits.
    #[default]
    Parallel,
    /// The same traversal on the calling thread, children resolved one after another (last
    /// child first): bit-for-bit reproducible, independent of the number of threads.
    Sequential,
}

/// Options of a pullback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReverseOptions {
    /// Parallel or sequential traversal of the job graph.
    pub mode: ReverseMode,
    /// Skip nodes whose adjoint is zero (default `true`). A NaN or infinite partial of a node
    /// whose adjoint is zero then does not propagate.
    pub skip_zero: bool,
}

impl Default for ReverseOptions {
    fn default() -> Self {
        ReverseOptions {
            mode: ReverseMode::Parallel,
            skip_zero: true,
        }
    }
}

impl ReverseOptions {
    /// The default options with [`ReverseMode::Sequential`].
    pub fn sequential() -> Self {
        ReverseOptions {
            mode: ReverseMode::Sequential,
            ..Self::default()
        }
    }
}

/// A seed or output slice of the wrong length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthMismatch {
    /// What the slice is.
    pub what: &'static str,
    /// The length the recording needs.
    pub expected: usize,
    /// The length given.
    pub actual: usize,
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} has length {} but the recording needs {}",
            self.what, self.actual, self.expected
        )
    }
}

impl std::error::Error for LengthMismatch {}

/// A reusable adjoint buffer: one slot per node, `f64` bits in an `AtomicU64`.
#[derive(Default)]
pub struct Adjoints {
    slots: Vec<AtomicU64>,
    /// Plain slots for recordings with a single job (no fork: nothing is shared between
    /// threads, so no atomic types are needed).
    plain: Vec<f64>,
    /// Whether `plain` may hold non-zero values (a pullback left it unfinished). A finished
    /// pullback leaves it zeroed, so the next one needs no clearing pass.
    plain_dirty: bool,
}

impl Adjoints {
    /// An empty buffer; it grows on first use.
    pub fn new() -> Adjoints {
        Adjoints::default()
    }

    pub(crate) fn capacity_bytes(&self) -> usize {
        8 * (self.slots.capacity() + self.plain.capacity())
    }

    fn reset(&mut self, n: usize) -> &[AtomicU64] {
        if self.slots.len() < n {
            self.slots.resize_with(n, || AtomicU64::new(0));
        }
        let slots = &mut self.slots[..n];
        for s in slots.iter_mut() {
            *s.get_mut() = 0;
        }
        &self.slots[..n]
    }
}

/// Counts of one instrumented pullback ([`Recording::pullback_counting`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PullbackCounts {
    /// Nodes whose edges were processed.
    pub nodes_resolved: u64,
    /// Edges processed (one `adjoint × partial` addition each).
    pub edges_visited: u64,
}

/// The size of a recording.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapeStats {
    /// Number of jobs.
    pub jobs: usize,
    /// Number of nodes, inputs included.
    pub nodes: usize,
    /// Number of inputs.
    pub inputs: usize,
    /// Number of edges (operands that are not constants).
    pub edges: usize,
    /// Edges whose operand lies in another job.
    pub cross_job_edges: usize,
    /// Bytes of node storage: 24 per record (two operand slots and their partials; a sum fused
    /// into the record before it has none), 12 per operand of an operation with more than two
    /// (8 on a dense side of a `dot`), 12 per value imported from another job.
    pub bytes: usize,
}

impl TapeStats {
    /// Bytes per recorded operation (nodes other than inputs); 0 when there are none.
    pub fn bytes_per_operation(&self) -> f64 {
        let ops = self.nodes - self.inputs;
        if ops == 0 {
            0.0
        } else {
            self.bytes as f64 / ops as f64
        }
    }
}

impl fmt::Display for TapeStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} jobs, {} nodes ({} inputs), {} edges ({} cross-job), {} bytes ({:.1} per operation)",
            self.jobs,
            self.nodes,
            self.inputs,
            self.edges,
            self.cross_job_edges,
            self.bytes,
            self.bytes_per_operation()
        )
    }
}

/// A finished recording: immutable, pulled back any number of times (also concurrently).
pub struct Recording {
    jobs: Vec<JobRecord>,
    offsets: Vec<usize>,
    total: usize,
    terminal: JobId,
    inputs: usize,
    output_values: Vec<f64>,
    output_ids: Vec<NodeId>,
    spare: Vec<Segment>,
    /// The buffer the inputs' `Var`s were made in, kept for the next recording.
    input_vars: Vec<Var<'static>>,
    pub(crate) shell: Option<Box<JobRecorder>>,
}

struct Pass<'a> {
    rec: &'a Recording,
    adj: &'a [AtomicU64],
    skip_zero: bool,
    counts: Option<&'a [AtomicU64; 2]>,
}

#[inline]
fn atomic_add(slot: &AtomicU64, x: f64) {
    let mut cur = slot.load(Relaxed);
    loop {
        let new = (f64::from_bits(cur) + x).to_bits();
        match slot.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(actual) => cur = actual,
        }
    }
}

/// The buffers of a recording, kept by a [`Tape`](crate::Tape) between recordings so that a
/// steady-state loop reuses their capacity.
#[derive(Default)]
pub(crate) struct Buffers {
    pub(crate) segments: Vec<Segment>,
    pub(crate) jobs: Vec<JobRecord>,
    pub(crate) offsets: Vec<usize>,
    pub(crate) values: Vec<f64>,
    pub(crate) ids: Vec<NodeId>,
    /// The inputs' `Var`s of a recording with more inputs than fit on the stack (made with the
    /// lifetime `'static`, which the closures, generic over the brand, cannot tell apart).
    pub(crate) input_vars: Vec<Var<'static>>,
    pub(crate) shell: Option<Box<JobRecorder>>,
}

impl Buffers {
    /// Bytes held by the segments (the other buffers are small).
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.segments.iter().map(Segment::capacity_bytes).sum()
    }
}

impl Recording {
    #[inline]
    pub(crate) fn new(
        jobs: Vec<JobRecord>,
        mut offsets: Vec<usize>,
        terminal: JobId,
        inputs: usize,
        (output_values, output_ids): (Vec<f64>, Vec<NodeId>),
        (spare, input_vars): (Vec<Segment>, Vec<Var<'static>>),
    ) -> Recording {
        offsets.clear();
        let mut total = 0;
        for j in &jobs {
            offsets.push(total);
            total += j.segment.len() + 1;
        }
        Recording {
            jobs,
            offsets,
            total,
            terminal,
            inputs,
            output_values,
            output_ids,
            spare,
            input_vars,
            shell: None,
        }
    }

    #[inline]
    pub(crate) fn into_buffers(self) -> Buffers {
        let Recording {
            mut jobs,
            offsets,
            mut output_values,
            mut output_ids,
            mut spare,
            input_vars,
            shell,
            ..
        } = self;
        for j in jobs.drain(..) {
            let mut segment = j.segment;
            segment.clear();
            spare.push(segment);
        }
        output_values.clear();
        output_ids.clear();
        Buffers {
            segments: spare,
            jobs,
            offsets,
            values: output_values,
            ids: output_ids,
            input_vars,
            shell,
        }
    }

    /// The output values.
    pub fn outputs(&self) -> &[f64] {
        &self.output_values
    }

    /// The number of inputs (the length of a pullback's result).
    pub fn num_inputs(&self) -> usize {
        self.inputs
    }

    /// The size of the recording.
    pub fn stats(&self) -> TapeStats {
        let mut s = TapeStats {
            jobs: self.jobs.len(),
            inputs: self.inputs,
            ..TapeStats::default()
        };
        for rec in &self.jobs {
            let (edges, cross) = rec.segment.edge_counts();
            s.nodes += rec.segment.nodes();
            s.edges += edges;
            s.cross_job_edges += cross;
            s.bytes += rec.segment.bytes();
        }
        s
    }

    /// The recorded job graph, printable as text (`Display`) or as Graphviz
    /// ([`JobGraphView::to_dot`]).
    pub fn job_graph(&self) -> JobGraphView<'_> {
        JobGraphView { rec: self }
    }

    /// One reverse pass with output adjoints `ybar`; returns the input adjoints (the gradient
    /// for a single output seeded with 1).
    ///
    /// # Panics
    /// If `ybar.len()` differs from the number of outputs (the message names both).
    pub fn pullback(&self, ybar: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.inputs];
        let mut adj = Adjoints::new();
        if let Err(e) = self.pullback_into(ybar, &ReverseOptions::default(), &mut adj, &mut out) {
            panic!("gradus-tape: pullback: {e}");
        }
        out
    }

    /// [`pullback`](Self::pullback) with options, a reused adjoint buffer and an output slice.
    pub fn pullback_into(
        &self,
        ybar: &[f64],
        options: &ReverseOptions,
        adjoints: &mut Adjoints,
        out: &mut [f64],
    ) -> Result<(), LengthMismatch> {
        self.run(ybar, options, adjoints, out, None)
    }

    /// An instrumented pullback that also counts resolved nodes and visited edges.
    pub fn pullback_counting(
        &self,
        ybar: &[f64],
        options: &ReverseOptions,
    ) -> Result<(Vec<f64>, PullbackCounts), LengthMismatch> {
        let counts = [AtomicU64::new(0), AtomicU64::new(0)];
        let mut out = vec![0.0; self.inputs];
        self.run(ybar, options, &mut Adjoints::new(), &mut out, Some(&counts))?;
        Ok((
            out,
            PullbackCounts {
                nodes_resolved: counts[0].load(Relaxed),
                edges_visited: counts[1].load(Relaxed),
            },
        ))
    }

    fn run(
        &self,
        ybar: &[f64],
        options: &ReverseOptions,
        adjoints: &mut Adjoints,
        out: &mut [f64],
        counts: Option<&[AtomicU64; 2]>,
    ) -> Result<(), LengthMismatch> {
        if ybar.len() != self.output_ids.len() {
            return Err(LengthMismatch {
                what: "the output adjoint (seed) slice",
                expected: self.output_ids.len(),
                actual: ybar.len(),
            });
        }
        if out.len() != self.inputs {
            return Err(LengthMismatch {
                what: "the gradient output slice",
                expected: self.inputs,
                actual: out.len(),
            });
        }
        if self.jobs.len() == 1 {
            self.run_single_job(ybar, options, adjoints, out, counts);
            return Ok(());
        }
        let adj = adjoints.reset(self.total);
        for (&id, &seed) in self.output_ids.iter().zip(ybar) {
            if !id.is_constant() {
                let slot = &adj[self.offsets[id.job().0 as usize] + id.index() as usize + 1];
                slot.store(
                    (f64::from_bits(slot.load(Relaxed)) + seed).to_bits(),
                    Relaxed,
                );
            }
        }
        let pass = Pass {
            rec: self,
            adj,
            skip_zero: options.skip_zero,
            counts,
        };
        match options.mode {
            ReverseMode::Parallel => pass.resolve_task::<true>(self.terminal),
            ReverseMode::Sequential => pass.resolve_task::<false>(self.terminal),
        }
        for (o, slot) in out.iter_mut().zip(&adj[1..=self.inputs]) {
            *o = f64::from_bits(slot.load(Relaxed));
        }
        Ok(())
    }
}

impl Recording {
    /// The pullback of a recording without forks: docs/tape.md §The sequential algorithm on a plain `f64` buffer that
    /// the sweep leaves zeroed for the next pullback.
    fn run_single_job(
        &self,
        ybar: &[f64],
        options: &ReverseOptions,
        adjoints: &mut Adjoints,
        out: &mut [f64],
        counts: Option<&[AtomicU64; 2]>,
    ) {
        pullback_single(
            &self.jobs[0].segment,
            &self.output_ids,
            ybar,
            options,
            adjoints,
            out,
            counts,
        );
    }
}

/// The pullback of a recording without forks (its root segment `seg` and outputs
/// `output_ids`): docs/tape.md §The sequential algorithm on a plain `f64` buffer that the sweep leaves zeroed for the next
/// pullback. `out` has one slot per input.
pub(crate) fn pullback_single(
    seg: &Segment,
    output_ids: &[NodeId],
    ybar: &[f64],
    options: &ReverseOptions,
    adjoints: &mut Adjoints,
    out: &mut [f64],
    counts: Option<&[AtomicU64; 2]>,
) {
    {
        let inputs = out.len();
        let need = seg.len() + 1;
        let adj = &mut adjoints.plain;
        if adjoints.plain_dirty {
            adj.fill(0.0);
        }
        if adj.len() < need {
            adj.resize(need, 0.0);
        }
        adjoints.plain_dirty = true;
        let adj = &mut adj[..need];
        for (&id, &seed) in output_ids.iter().zip(ybar) {
            if !id.is_constant() {
                adj[id.index() as usize + 1] += seed;
            }
        }
        let tally = sweep_plain(seg, adj, options.skip_zero, counts.is_some());
        for (o, slot) in out.iter_mut().zip(&mut adj[1..=inputs]) {
            *o = std::mem::take(slot);
        }
        adjoints.plain_dirty = false;
        if let Some(c) = counts {
            c[0].fetch_add(tally.0, Relaxed);
            c[1].fetch_add(tally.1, Relaxed);
        }
    }
}

/// The adjoint area of the job being swept.
trait Area {
    /// Reads the adjoint of `slot`.
    fn get(&mut self, slot: usize) -> f64;
    /// Sets the adjoint of `slot`.
    fn set(&mut self, slot: usize, x: f64);
    /// Adds `x` to the adjoint of `slot`.
    fn add(&mut self, slot: usize, x: f64);
    /// Adds `x` to the adjoint of the node `to` of another job.
    fn export(&mut self, to: NodeId, x: f64);
    /// Adds `a · p` to the adjoint of `slot`.
    #[inline(always)]
    fn madd(&mut self, slot: usize, a: f64, p: f64) {
        self.add(slot, a * p);
    }
    /// `c + a · p`, fused where the area's sweep is compiled with FMA.
    #[inline(always)]
    fn fmadd(a: f64, p: f64, c: f64) -> f64 {
        c + a * p
    }
    /// Adds `a · p[i]` to the adjoint of slot `first + i` for every `i`.
    #[inline(always)]
    fn axpy(&mut self, first: usize, a: f64, p: &[f64]) {
        for (i, &p) in p.iter().enumerate() {
            self.add(first + i, a * p);
        }
    }
}

/// A plain buffer: the only job of a recording without forks.
///
/// Its accesses are not bounds-checked: see Note [Slots are in bounds]. With `FMA`, a
/// two-operand record's additions are fused multiply-adds (one rounding instead of two, and
/// less latency on the chains of dependent updates that programs like a running sum make).
struct Plain<'a, const FMA: bool>(&'a mut [f64]);

/// [`sweep`] on a plain buffer, with fused multiply-adds where the CPU has them (see
/// Note [Fused multiply-adds]).
fn sweep_plain(seg: &Segment, adj: &mut [f64], skip: bool, count: bool) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the feature the function is compiled for.
        return unsafe {
            if seg.has_fused() {
                sweep_plain_fma::<true>(seg, adj, skip, count)
            } else {
                sweep_plain_fma::<false>(seg, adj, skip, count)
            }
        };
    }
    let area = &mut Plain::<false>(adj);
    if seg.has_fused() {
        sweep_dispatch::<_, true>(seg, area, skip, count)
    } else {
        sweep_dispatch::<_, false>(seg, area, skip, count)
    }
}

/// [`sweep`] compiled with FMA instructions.
///
/// # Safety
/// Only on a CPU with FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn sweep_plain_fma<const FUSE: bool>(
    seg: &Segment,
    adj: &mut [f64],
    skip: bool,
    count: bool,
) -> (u64, u64) {
    sweep_dispatch::<_, FUSE>(seg, &mut Plain::<true>(adj), skip, count)
}

impl<const FMA: bool> Area for Plain<'_, FMA> {
    #[inline(always)]
    fn fmadd(a: f64, p: f64, c: f64) -> f64 {
        if FMA { a.mul_add(p, c) } else { c + a * p }
    }
    #[inline(always)]
    fn get(&mut self, slot: usize) -> f64 {
        debug_assert!(slot < self.0.len());
        // SAFETY: Note [Slots are in bounds].
        unsafe { *self.0.get_unchecked(slot) }
    }
    #[inline(always)]
    fn set(&mut self, slot: usize, x: f64) {
        debug_assert!(slot < self.0.len());
        // SAFETY: Note [Slots are in bounds].
        unsafe { *self.0.get_unchecked_mut(slot) = x };
    }
    #[inline(always)]
    fn add(&mut self, slot: usize, x: f64) {
        debug_assert!(slot < self.0.len());
        // SAFETY: Note [Slots are in bounds].
        unsafe { *self.0.get_unchecked_mut(slot) += x };
    }
    #[inline(always)]
    fn madd(&mut self, slot: usize, a: f64, p: f64) {
        debug_assert!(slot < self.0.len());
        // SAFETY: Note [Slots are in bounds].
        let s = unsafe { self.0.get_unchecked_mut(slot) };
        *s = if FMA { a.mul_add(p, *s) } else { *s + a * p };
    }
    fn export(&mut self, _: NodeId, _: f64) {
        unreachable!("gradus-tape: a recording without forks has no imports (internal error)")
    }
    #[inline(always)]
    fn axpy(&mut self, first: usize, a: f64, p: &[f64]) {
        // One bounds check for the range; the loop vectorises.
        for (d, &p) in self.0[first..first + p.len()].iter_mut().zip(p) {
            *d += a * p;
        }
    }
}

/// One job's part of the shared buffer of a recording with forks. While a job is swept, no
/// other thread touches its area (every job that reads its nodes is resolved already), so its
/// slots take plain relaxed loads and stores; additions into other jobs are atomic when
/// sibling tasks may run concurrently (`PAR`).
struct Shared<'a, const PAR: bool, const FMA: bool> {
    local: &'a [AtomicU64],
    all: &'a [AtomicU64],
    offsets: &'a [usize],
}

impl<const PAR: bool, const FMA: bool> Area for Shared<'_, PAR, FMA> {
    #[inline(always)]
    fn fmadd(a: f64, p: f64, c: f64) -> f64 {
        if FMA { a.mul_add(p, c) } else { c + a * p }
    }
    #[inline(always)]
    fn get(&mut self, slot: usize) -> f64 {
        f64::from_bits(self.local[slot].load(Relaxed))
    }
    #[inline(always)]
    fn set(&mut self, slot: usize, x: f64) {
        self.local[slot].store(x.to_bits(), Relaxed);
    }
    #[inline(always)]
    fn add(&mut self, slot: usize, x: f64) {
        let s = &self.local[slot];
        s.store((f64::from_bits(s.load(Relaxed)) + x).to_bits(), Relaxed);
    }
    #[inline(always)]
    fn madd(&mut self, slot: usize, a: f64, p: f64) {
        let s = &self.local[slot];
        let x = f64::from_bits(s.load(Relaxed));
        let y = if FMA { a.mul_add(p, x) } else { x + a * p };
        s.store(y.to_bits(), Relaxed);
    }
    fn export(&mut self, to: NodeId, x: f64) {
        let s = &self.all[self.offsets[to.job().0 as usize] + to.index() as usize + 1];
        if PAR {
            atomic_add(s, x);
        } else {
            s.store((f64::from_bits(s.load(Relaxed)) + x).to_bits(), Relaxed);
        }
    }
}

/// [`sweep`] with the options as constants. `FUSE` is whether the job has fused sums; the callers compile a sweep for each case
/// (jobs without them skip the test), each its own function.
#[inline(always)]
fn sweep_dispatch<A: Area, const FUSE: bool>(
    seg: &Segment,
    area: &mut A,
    skip: bool,
    count: bool,
) -> (u64, u64) {
    match (skip, count) {
        (true, false) => sweep::<A, true, false, FUSE>(seg, area),
        (false, false) => sweep::<A, false, false, FUSE>(seg, area),
        (true, true) => sweep::<A, true, true, FUSE>(seg, area),
        (false, true) => sweep::<A, false, true, FUSE>(seg, area),
    }
}

/// Resolves the records of one job from the last to the first (docs/tape.md §The sequential
/// algorithm): two multiply-adds per record, whatever its arity; records with more operands,
/// and proxies, branch off. Returns (nodes resolved, edges visited) when `COUNT`.
///
/// The adjoints of the two slots below the record being resolved are carried in registers
/// (see the note "The register window" below).
#[inline(always)]
fn sweep<A: Area, const SKIP: bool, const COUNT: bool, const FUSE: bool>(
    seg: &Segment,
    area: &mut A,
) -> (u64, u64) {
    let (mut nodes, mut edges) = (0u64, 0u64);
    // The slot of the record being resolved, and the pending additions to it and to the two
    // slots below it.
    let mut own = seg.len();
    // Empty registers hold −0, the exact identity of addition (`−0 + x = x` for every `x`,
    // where `0 + (−0)` would be `+0`); see the note "The register window".
    const EMPTY: f64 = -0.0;
    let (mut c0, mut c1, mut c2) = (EMPTY, EMPTY, EMPTY);
    for r in seg.recs().iter().rev() {
        if FUSE && r.b >= FUSED {
            // The sum node after an operation (see `Segment::push_add`): operands the two
            // slots below it, partials 1, so both go to the window; then the operation's own
            // node, one slot down.
            // `c2` is empty here (the window shifted just before), so `c2 + a` is `a`
            // exactly: the running sum's chain takes one addition per pair, not two.
            let a = area.get(own) + c0;
            area.set(own, 0.0);
            (c0, c1, c2) = (c1 + a, a, EMPTY);
            own -= 1;
            if COUNT && !(SKIP && a == 0.0) {
                nodes += 1;
                edges += 2;
            }
        }
        let a = area.get(own) + c0;
        if SKIP && a == 0.0 {
            area.set(own, 0.0);
        } else if r.a >= DOT {
            // Wide records and proxies write to memory; their targets in the window are
            // read back through `get` above.
            match r.a {
                MANY => {
                    let (slots, parts) = many_parts(r);
                    let x = seg.extra();
                    let slots = &x.many_slots[slots];
                    for (&s, &p) in slots.iter().zip(&x.many_partials[parts]) {
                        area.add(s as usize, a * p);
                    }
                    if COUNT {
                        nodes += !slots.is_empty() as u64;
                        edges += slots.len() as u64;
                    }
                }
                DOT => {
                    let n = sweep_dot(seg, r, area, a);
                    if COUNT {
                        nodes += (n > 0) as u64;
                        edges += n;
                    }
                }
                _ => area.export(seg.imports()[r.b as usize].1, a),
            }
            area.set(own, 0.0);
        } else {
            let b = if FUSE { r.b & !FUSED } else { r.b } as usize;
            let sa = r.a as usize;
            if (own.wrapping_sub(sa) > 2) & (own.wrapping_sub(b) > 2) {
                // Both operands below the window (products of earlier values, the common
                // case): two updates in memory, as the loop below would make, with one test.
                area.madd(sa, a, r.pa);
                area.madd(b, a, r.pb);
            } else {
                for (s, p) in [(sa, r.pa), (b, r.pb)] {
                    // Without branches, whose outcome follows the program's shape: an operand
                    // in the window updates its register; one below it, its slot in memory;
                    // one in the window adds to the record's own slot instead, which is
                    // cleared below (as is the unused operand's, partial 0).
                    let d = own.wrapping_sub(s);
                    let (n1, n2) = (A::fmadd(a, p, c1), A::fmadd(a, p, c2));
                    c1 = select_unpredictable(d == 1, n1, c1);
                    c2 = select_unpredictable(d == 2, n2, c2);
                    area.madd(select_unpredictable(d > 2, s, own), a, p);
                }
            }
            area.set(own, 0.0);
            if COUNT {
                let n = (r.a as usize != own) as u64 + (b != own) as u64;
                nodes += (n > 0) as u64;
                edges += n;
            }
        }
        (c0, c1, c2) = (c1, c2, EMPTY);
        own -= 1;
    }
    // The window now covers the slots `own` and `own - 1` (inputs, or the sink).
    if c0 != 0.0 {
        area.add(own, c0);
    }
    if c1 != 0.0 && own >= 1 {
        area.add(own - 1, c1);
    }
    (nodes, edges)
}

/// Resolves a dot product record `r` with adjoint `a`: an `axpy` per dense side, a scatter
/// per listed side (whose constants name the sink). Returns the edges visited.
#[inline(always)]
fn sweep_dot<A: Area>(seg: &Segment, r: &Rec, area: &mut A, a: f64) -> u64 {
    let (start, n, su, sv) = dot_parts(r);
    let x = seg.extra();
    let mut edges = 0;
    // A side of constants has no partials (`dot_const` stores only the first side's).
    for (side, from) in [(su, start), (sv, start + n)] {
        if side == NO_SIDE {
            continue;
        }
        let p = &x.many_partials[from..from + n];
        if side & DENSE != 0 {
            area.axpy((side & !DENSE) as usize, a, p);
            edges += n as u64;
        } else {
            let slots = &x.many_slots[side as usize..side as usize + n];
            for (&s, &p) in slots.iter().zip(p) {
                area.add(s as usize, a * p);
                edges += (s != 0) as u64;
            }
        }
    }
    edges
}

/// [`sweep`] of one job of a recording with forks, compiled with FMA instructions (see
/// Note [Fused multiply-adds]).
///
/// # Safety
/// Only on a CPU with FMA; on others, the caller uses `Shared::<PAR, false>`.
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "fma"))]
unsafe fn sweep_shared_fma<const PAR: bool, const FUSE: bool>(
    seg: &Segment,
    local: &[AtomicU64],
    all: &[AtomicU64],
    offsets: &[usize],
    skip: bool,
    count: bool,
) -> (u64, u64) {
    let mut area = Shared::<PAR, true> {
        local,
        all,
        offsets,
    };
    sweep_dispatch::<_, FUSE>(seg, &mut area, skip, count)
}

impl Pass<'_> {
    /// Resolves a task backwards from its last job: the job, then (where it began at a join) the
    /// tasks that joined into it, then the job that forked them. Iterates along chains, recurses
    /// only into nested forks.
    fn resolve_task<const PAR: bool>(&self, mut job: JobId) {
        loop {
            self.resolve_job::<PAR>(job);
            match &self.rec.jobs[job.0 as usize].before {
                Before::Start => return,
                Before::Fork { parent, children } => {
                    if PAR {
                        match children.as_slice() {
                            [l, r] => {
                                rayon::join(
                                    || self.resolve_task::<PAR>(*l),
                                    || self.resolve_task::<PAR>(*r),
                                );
                            }
                            [one] => self.resolve_task::<PAR>(*one),
                            many => many.par_iter().for_each(|c| self.resolve_task::<PAR>(*c)),
                        }
                    } else {
                        for c in children.iter().rev() {
                            self.resolve_task::<PAR>(*c);
                        }
                    }
                    job = *parent;
                }
            }
        }
    }

    /// Resolves the nodes of one job from the last to the first (docs/tape.md §The sequential algorithm).
    fn resolve_job<const PAR: bool>(&self, job: JobId) {
        let j = job.0 as usize;
        let seg = &self.rec.jobs[j].segment;
        let base = self.rec.offsets[j];
        let local = &self.adj[base..base + seg.len() + 1];
        let (skip, count) = (self.skip_zero, self.counts.is_some());
        #[cfg(target_arch = "x86_64")]
        let fma = std::arch::is_x86_feature_detected!("fma");
        #[cfg(not(target_arch = "x86_64"))]
        let fma = false;
        let (nodes, edges) = if fma {
            // SAFETY: the CPU has FMA.
            unsafe {
                if seg.has_fused() {
                    sweep_shared_fma::<PAR, true>(
                        seg,
                        local,
                        self.adj,
                        &self.rec.offsets,
                        skip,
                        count,
                    )
                } else {
                    sweep_shared_fma::<PAR, false>(
                        seg,
                        local,
                        self.adj,
                        &self.rec.offsets,
                        skip,
                        count,
                    )
                }
            }
        } else {
            let mut area = Shared::<PAR, false> {
                local,
                all: self.adj,
                offsets: &self.rec.offsets,
            };
            if seg.has_fused() {
                sweep_dispatch::<_, true>(seg, &mut area, skip, count)
            } else {
                sweep_dispatch::<_, false>(seg, &mut area, skip, count)
            }
        };
        if let Some(c) = self.counts {
            c[0].fetch_add(nodes, Relaxed);
            c[1].fetch_add(edges, Relaxed);
        }
    }
}

/// A printable view of the job graph of a recording.
pub struct JobGraphView<'a> {
    rec: &'a Recording,
}

impl JobGraphView<'_> {
    /// The graph in Graphviz `dot` syntax: an edge from each job to the jobs that come after
    /// it (fork edges from the parent to each task's first job are not recorded; the edge
    /// `parent -> join` and `child -> join` describe the order the reverse pass uses).
    pub fn to_dot(&self) -> String {
        let mut s = String::from("digraph jobs {\n");
        for (j, rec) in self.rec.jobs.iter().enumerate() {
            s.push_str(&format!(
                "  j{j} [label=\"job {j}\\n{} nodes\"];\n",
                rec.segment.nodes()
            ));
            if let Before::Fork { parent, children } = &rec.before {
                s.push_str(&format!("  j{} -> j{j} [style=dashed];\n", parent.0));
                for c in children {
                    s.push_str(&format!("  j{} -> j{j};\n", c.0));
                }
            }
        }
        s.push_str("}\n");
        s
    }
}

impl fmt::Display for JobGraphView<'_> {
    /// One line per job: `job J: start` or `job J: fork of P, joined from [C, …]`, then its
    /// node and edge counts; the terminal job is marked.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (j, rec) in self.rec.jobs.iter().enumerate() {
            write!(f, "job {j}: ")?;
            match &rec.before {
                Before::Start => write!(f, "start")?,
                Before::Fork { parent, children } => {
                    let cs: Vec<String> = children.iter().map(|c| c.0.to_string()).collect();
                    write!(f, "fork of {}, joined from [{}]", parent.0, cs.join(", "))?
                }
            }
            write!(
                f,
                "; {} nodes, {} edges",
                rec.segment.nodes(),
                rec.segment.edge_counts().0
            )?;
            if j == self.rec.terminal.0 as usize {
                write!(f, " (terminal)")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

// Note [Fused multiply-adds]
//
// A two-operand record adds `a · p` to each operand's adjoint. On a CPU with FMA (detected
// once at run time: the crate is built for the baseline x86-64 target) the sweeps of both
// areas are compiled with the feature and use one fused multiply-add per edge: one
// instruction's latency instead of a multiply's and an add's on the chains of dependent updates
// that a running sum or a time loop makes, and one rounding instead of two. The results therefore differ in the last
// bits between CPUs with and without FMA; on one machine they are reproducible as before
// (`ReverseMode::Sequential` is bit for bit the same whatever the thread count). `dot`'s
// dense sides keep a multiply and an add per operand, which the compiler vectorises.

// Note [Slots are in bounds]
//
// The sweep of a job reads and writes the job's adjoint area, of `len + 1` slots (the sink
// and one per node), without bounds checks. Every slot it touches is in bounds because of how
// records are made (segment.rs): a record's own slot is `first + i + 1 ≤ len`; an operand slot
// is the sink (0), or `k + 1` for a node `k` of the job that exists when the record is made
// (`Segment::slot` checks `k < len` and panics otherwise, and proxies are pushed before the
// record that uses them), so it is at most the record's own slot. Records, the side arrays of
// many-operand records and `first` change only through `Segment`'s methods, and a `Recording`
// exposes no way to change them; the adjoint area is sized from the same segment.

// Note [The register window]
//
// The sweep resolves slots in decreasing order, and a record's operands are very often the
// one or two nodes recorded just before it (the product in `acc + u·v`, the partial sum two
// records back). Through memory, each such update is a store that the next records reload at
// once, so a running sum costs a store-to-load forwarding plus a multiply-add per step. The
// sweep instead keeps three registers: the pending additions to its own slot (`c0`) and to the
// two slots below (`c1`, `c2`). An operand at distance 1 or 2 updates `c1` or `c2`; others
// update memory; when the sweep reaches a slot, its adjoint is the stored value plus the
// register, and the window shifts down by one. Wide records, proxies and `dot`'s sides write
// memory only, which the "stored value plus register" read includes. After the last record
// the window holds the slots `first` and `first - 1` (inputs, or the sink), which are flushed
// to memory. The choice is made by selects, not branches (their outcome depends on the
// program's shape and mispredicted on GMM); an operand in the window sends its memory update
// to the record's own slot, already read and cleared right after. An empty register holds −0,
// the exact identity of addition, so adding an empty register changes no value (not even the
// sign of a zero). That lets the step of a fused sum (whose operands are the two slots below
// it, partials 1) set `c1` to the sum's adjoint instead of adding it to `c2`, which is always
// empty there (the window shifted just before): a running sum's reverse chain is one addition
// per pair, the same bits as the record `(acc, p; 1, 1)` would give. Sums are associated
// differently than with every update in memory (the stored part first, then the window's),
// so results can differ from the unwindowed sweep in the last bits; they are reproducible
// as before.
