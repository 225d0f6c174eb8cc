//! The reverse pass (docs/tape.md §The sequential algorithm, §Parallel recording and pullback):
//! seed the outputs, resolve every node once while walking the job graph backwards from the
//! terminal job, read the inputs' adjoints.
//!
//! Jobs that joined into the same job are resolved in parallel (`rayon::join`, or
//! `par_iter` for n-ary forks) in [`ReverseMode::Parallel`]. An edge into the job being
//! resolved is a plain relaxed load and store; an edge into another (earlier) job is an atomic
//! compare-and-swap addition, because sibling tasks may write into a common ancestor at the
//! same time. A program without forks therefore performs no atomic read-modify-write at all.

use crate::id::{JobId, NodeId};
use crate::record::JobRecorder;
use crate::segment::{Before, JobRecord, Segment};
use rayon::prelude::*;
use std::fmt;
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
}

impl Adjoints {
    /// An empty buffer; it grows on first use.
    pub fn new() -> Adjoints {
        Adjoints::default()
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
    /// Bytes of node storage: 4 per node plus 16 per edge.
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
    pub(crate) shell: Option<Box<JobRecorder>>,
}

impl Recording {
    #[inline]
    pub(crate) fn new(
        jobs: Vec<JobRecord>,
        mut offsets: Vec<usize>,
        terminal: JobId,
        inputs: usize,
        (output_values, output_ids): (Vec<f64>, Vec<NodeId>),
        spare: Vec<Segment>,
    ) -> Recording {
        offsets.clear();
        let mut total = 0;
        for j in &jobs {
            offsets.push(total);
            total += j.segment.len();
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
            nodes: self.total,
            inputs: self.inputs,
            ..TapeStats::default()
        };
        for (j, rec) in self.jobs.iter().enumerate() {
            s.edges += rec.segment.edges.len();
            s.bytes += rec.segment.bytes();
            s.cross_job_edges += rec
                .segment
                .edges
                .iter()
                .filter(|e| e.to.job().0 as usize != j)
                .count();
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
                let slot = &adj[self.offsets[id.job().0 as usize] + id.index() as usize];
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
        for (o, slot) in out.iter_mut().zip(&adj[..self.inputs]) {
            *o = f64::from_bits(slot.load(Relaxed));
        }
        Ok(())
    }
}

impl Recording {
    /// The pullback of a recording without forks: docs/tape.md §The sequential algorithm on a plain
    /// `f64` buffer.
    fn run_single_job(
        &self,
        ybar: &[f64],
        options: &ReverseOptions,
        adjoints: &mut Adjoints,
        out: &mut [f64],
        counts: Option<&[AtomicU64; 2]>,
    ) {
        let seg = &self.jobs[0].segment;
        let adj = &mut adjoints.plain;
        adj.clear();
        adj.resize(seg.len(), 0.0);
        for (&id, &seed) in self.output_ids.iter().zip(ybar) {
            if !id.is_constant() {
                adj[id.index() as usize] += seed;
            }
        }
        let (mut nodes, mut edges) = (0u64, 0u64);
        let mut end = seg.edges.len();
        for k in (0..seg.len()).rev() {
            let start = if k == 0 { 0 } else { seg.ends[k - 1] as usize };
            let a = adj[k];
            if (a != 0.0 || !options.skip_zero) && start < end {
                nodes += 1;
                edges += (end - start) as u64;
                for e in &seg.edges[start..end] {
                    adj[e.to.index() as usize] += a * e.partial;
                }
            }
            end = start;
        }
        out.copy_from_slice(&adj[..self.inputs]);
        if let Some(c) = counts {
            c[0].fetch_add(nodes, Relaxed);
            c[1].fetch_add(edges, Relaxed);
        }
    }
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

    /// Resolves the nodes of one job from the last to the first (docs/tape.md §The sequential
    /// algorithm).
    fn resolve_job<const PAR: bool>(&self, job: JobId) {
        let j = job.0 as usize;
        let seg = &self.rec.jobs[j].segment;
        let base = self.rec.offsets[j];
        let local = &self.adj[base..base + seg.len()];
        let (mut nodes, mut edges) = (0u64, 0u64);
        let mut end = seg.edges.len();
        for k in (0..seg.len()).rev() {
            let start = if k == 0 { 0 } else { seg.ends[k - 1] as usize };
            let a = f64::from_bits(local[k].load(Relaxed));
            if (a != 0.0 || !self.skip_zero) && start < end {
                nodes += 1;
                edges += (end - start) as u64;
                for e in &seg.edges[start..end] {
                    let contribution = a * e.partial;
                    if e.to.job() == job {
                        // Nobody else writes this job's slots while it is being resolved.
                        let slot = &local[e.to.index() as usize];
                        let v = f64::from_bits(slot.load(Relaxed)) + contribution;
                        slot.store(v.to_bits(), Relaxed);
                    } else {
                        let slot = &self.adj
                            [self.rec.offsets[e.to.job().0 as usize] + e.to.index() as usize];
                        if PAR {
                            atomic_add(slot, contribution);
                        } else {
                            let v = f64::from_bits(slot.load(Relaxed)) + contribution;
                            slot.store(v.to_bits(), Relaxed);
                        }
                    }
                }
            }
            end = start;
        }
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
                rec.segment.len()
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
                rec.segment.len(),
                rec.segment.edges.len()
            )?;
            if j == self.rec.terminal.0 as usize {
                write!(f, " (terminal)")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
