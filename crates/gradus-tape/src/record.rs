//! Recording: the thread-local active job (docs/tape.md §Data structures), the job table, and the
//! entry points `grad`, `record` and the reusable [`Tape`].

use crate::id::{JobId, NodeId};
use crate::reverse::{
    Adjoints, Buffers, LengthMismatch, Recording, ReverseOptions, pullback_single,
};
use crate::segment::{Before, JobRecord, Segment};
use crate::var::Var;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// State shared by all jobs of one recording.
pub(crate) struct Shared {
    next_job: AtomicU32,
    table: Mutex<Vec<Option<JobRecord>>>,
    pool: Mutex<Vec<Segment>>,
}

impl Shared {
    /// Takes `n` consecutive fresh job IDs with one `fetch_add`.
    pub(crate) fn fresh_jobs(&self, n: u32) -> u32 {
        let first = self.next_job.fetch_add(n, Ordering::Relaxed);
        if first.checked_add(n).is_none_or(|end| end == u32::MAX) {
            panic!("gradus-tape: a recording exceeded the limit of 2^32 - 1 jobs");
        }
        first
    }

    fn segment(&self) -> Segment {
        lock(&self.pool).pop().unwrap_or_default()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while the lock was held leaves only complete records behind; the recording is
    // discarded anyway, so poisoning carries no information here.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The recorder of the job currently running on a thread.
///
/// The root job of a recording starts without shared state: a program that never forks
/// records into one segment with no `Arc`, lock or job table. The first fork creates the
/// shared state (see [`JobRecorder::shared`]).
pub(crate) struct JobRecorder {
    shared: Option<Arc<Shared>>,
    pub(crate) job: JobId,
    before: Before,
    pub(crate) segment: Segment,
    /// Reusable segments, held by the root job until the first fork moves them into the pool.
    spare: Vec<Segment>,
}

impl JobRecorder {
    pub(crate) fn new(shared: Arc<Shared>, job: JobId, before: Before) -> JobRecorder {
        let mut segment = shared.segment();
        segment.start(job, 0);
        JobRecorder {
            shared: Some(shared),
            job,
            before,
            segment,
            spare: Vec::new(),
        }
    }

    /// The root job, in `shell` (a box left by an earlier recording) if there is one.
    #[inline]
    /// A shell that still holds its segment (kept by [`Tape::grad_into`]) records into it.
    fn root(mut spare: Vec<Segment>, shell: Option<Box<JobRecorder>>) -> Box<JobRecorder> {
        match shell {
            Some(mut b) => {
                b.shared = None;
                b.job = JobId(0);
                b.before = Before::Start;
                if b.segment.rec_capacity() == 0
                    && let Some(s) = spare.pop()
                {
                    b.segment = s;
                }
                b.segment.clear();
                b.spare = spare;
                b
            }
            None => Box::new(JobRecorder {
                shared: None,
                job: JobId(0),
                before: Before::Start,
                segment: spare.pop().unwrap_or_default(),
                spare,
            }),
        }
    }

    /// The recording's shared state, created at the first fork.
    pub(crate) fn shared(&mut self) -> Arc<Shared> {
        self.shared
            .get_or_insert_with(|| {
                Arc::new(Shared {
                    next_job: AtomicU32::new(1),
                    table: Mutex::new(Vec::new()),
                    pool: Mutex::new(std::mem::take(&mut self.spare)),
                })
            })
            .clone()
    }

    /// Ends the job: writes its record into the job table and returns its ID.
    pub(crate) fn finish(mut self) -> JobId {
        let shared = self.shared();
        let JobRecorder {
            job,
            before,
            segment,
            ..
        } = self;
        let mut table = lock(&shared.table);
        let i = job.0 as usize;
        if table.len() <= i {
            table.resize_with(i + 1, || None);
        }
        table[i] = Some(JobRecord { segment, before });
        job
    }
}

// See Note [The active-job slot].
thread_local! {
    static ACTIVE: Cell<*mut JobRecorder> = const { Cell::new(std::ptr::null_mut()) };
}

/// Puts `new` into this thread's slot and returns what was there.
#[inline]
fn slot_replace(new: Option<Box<JobRecorder>>) -> Option<Box<JobRecorder>> {
    let new_ptr = new.map_or(std::ptr::null_mut(), Box::into_raw);
    let old = ACTIVE.with(|slot| slot.replace(new_ptr));
    if old.is_null() {
        None
    } else {
        // SAFETY: a non-null slot pointer came from `Box::into_raw` above and is owned by the
        // slot; having replaced it, we own it. No reference derived from it is alive: such
        // references exist only inside `with_active`, which never calls back into this
        // function (see Note [The active-job slot]).
        Some(unsafe { Box::from_raw(old) })
    }
}

/// Runs `$body` with `$seg` bound to the segment of the active job. A macro rather than a
/// function taking a closure, so that the recording of an operation is always inlined into
/// the operation.
///
/// # Panics
/// If no job is active on this thread (see [`Var`]).
macro_rules! with_active {
    (|$seg:ident| $body:expr) => {{
        let ptr = $crate::record::active_ptr();
        // SAFETY: `active_ptr` returns a non-null pointer, so it is a live
        // `Box<JobRecorder>` owned by this thread's slot. The slot is thread-local, so no other
        // thread can reach it, and `$body` (crate code that only appends to the segment)
        // cannot reach `slot_replace` or `active_ptr` again, so this is the only reference to
        // the recorder while it lives.
        let $seg = unsafe { &mut (*ptr).segment };
        $body
    }};
}
pub(crate) use with_active;

/// The active job's recorder.
///
/// # Panics
/// If no job is active on this thread (see [`Var`]).
#[inline(always)]
pub(crate) fn active_ptr() -> *mut JobRecorder {
    let ptr = ACTIVE.with(Cell::get);
    if ptr.is_null() {
        outside_recording();
    }
    ptr
}

#[cold]
#[inline(never)]
fn outside_recording() -> ! {
    panic!(
        "gradus-tape: operation on a Var outside its recording's jobs; use gradus_tape::join / \
         par_map for parallelism inside a recording"
    )
}

/// Takes the active recorder out of this thread's slot.
pub(crate) fn take_active() -> Option<Box<JobRecorder>> {
    slot_replace(None)
}

/// Restores the slot's previous content when dropped, also during unwinding: installs of
/// recorders nest like a stack.
pub(crate) struct ActiveGuard {
    previous: Option<Option<Box<JobRecorder>>>,
}

impl ActiveGuard {
    /// Installs `rec` as the active recorder until the guard is dropped.
    #[inline]
    pub(crate) fn install(rec: Box<JobRecorder>) -> ActiveGuard {
        let previous = slot_replace(Some(rec));
        ActiveGuard {
            previous: Some(previous),
        }
    }

    /// Ends the guarded stretch normally: returns the recorder active now (the one installed,
    /// or the one a `join` replaced it by) and restores the previous one.
    #[inline]
    pub(crate) fn finish(mut self) -> Box<JobRecorder> {
        let prev = self.previous.take().flatten();
        slot_replace(prev).expect("gradus-tape: active job vanished (internal error)")
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        if let Some(prev) = self.previous.take() {
            // Unwinding: the recorder in the slot (if any) is discarded with its recording.
            let _discarded = slot_replace(prev);
        }
    }
}

/// Installs `rec` as the active job of this thread (used by `join` after the tasks return).
pub(crate) fn set_active(rec: Box<JobRecorder>) {
    let _previous = slot_replace(Some(rec));
    debug_assert!(
        _previous.is_none(),
        "gradus-tape: join found an active job (internal error)"
    );
}

/// Runs one task: a fresh job `job` (a `Start`), the closure, and the end of its last job.
/// Returns the result and the ID of the job the task ended in.
pub(crate) fn run_task<R>(shared: &Arc<Shared>, job: JobId, f: impl FnOnce() -> R) -> (R, JobId) {
    let guard = ActiveGuard::install(Box::new(JobRecorder::new(
        shared.clone(),
        job,
        Before::Start,
    )));
    let r = f();
    let last = guard.finish().finish();
    (r, last)
}

/// Records `body` on inputs `x`; `body` pushes the outputs' values and IDs.
pub(crate) fn record_raw<F>(x: &[f64], buffers: Buffers, body: F) -> Recording
where
    F: for<'r> FnOnce(&[Var<'r>], &mut Vec<f64>, &mut Vec<NodeId>),
{
    match record_impl::<F, _, (), false>(x, buffers, body, |_, _, _| ()) {
        Recorded::Forked(rec) => rec,
        Recorded::Single(..) => unreachable!("record_impl builds the recording when not FAST"),
    }
}

/// What [`record_single`] did.
pub(crate) enum Recorded<R> {
    /// The program did not fork: `single` ran on the root job, and the buffers are back.
    Single(R, Buffers),
    /// The program forked: the finished recording.
    Forked(Recording),
}

/// Records `body` on inputs `x`. If the program does not fork, `single` runs on the root
/// job's segment and the output values and IDs where they lie, and the buffers come back
/// without a [`Recording`] being built (the segment stays in the root recorder's box, which
/// the next recording reuses); otherwise the recording is returned.
pub(crate) fn record_single<F, K, R>(x: &[f64], buffers: Buffers, body: F, single: K) -> Recorded<R>
where
    F: for<'r> FnOnce(&[Var<'r>], &mut Vec<f64>, &mut Vec<NodeId>),
    K: FnOnce(&Segment, &[f64], &[NodeId]) -> R,
{
    record_impl::<F, K, R, true>(x, buffers, body, single)
}

/// [`record_raw`] (`FAST` false) and [`record_single`] (`FAST` true).
#[inline]
fn record_impl<F, K, R, const FAST: bool>(
    x: &[f64],
    buffers: Buffers,
    body: F,
    single: K,
) -> Recorded<R>
where
    F: for<'r> FnOnce(&[Var<'r>], &mut Vec<f64>, &mut Vec<NodeId>),
    K: FnOnce(&Segment, &[f64], &[NodeId]) -> R,
{
    let Buffers {
        segments,
        mut jobs,
        offsets,
        mut values,
        mut ids,
        mut input_vars,
        shell,
    } = buffers;
    jobs.clear();
    values.clear();
    ids.clear();
    let mut root = JobRecorder::root(segments, shell);
    if x.len() >= crate::segment::MAX_NODES {
        panic!("gradus-tape: more than 2^31 - 5 inputs");
    }
    root.segment.start(JobId(0), x.len() as u32);
    let input = |(i, &v): (usize, &f64)| Var::from_parts(v, NodeId::new(JobId(0), i as u32));
    let guard = ActiveGuard::install(root);
    // Small input vectors live on the stack (no allocation per recording).
    const SMALL: usize = 16;
    if x.len() <= SMALL {
        let mut inputs = [Var::constant(0.0); SMALL];
        for (slot, v) in inputs.iter_mut().zip(x.iter().enumerate()) {
            *slot = input(v);
        }
        body(&inputs[..x.len()], &mut values, &mut ids);
    } else {
        // Reused between recordings; `body` is generic over the brand, so `'static` inputs
        // give it nothing it could keep. A buffer kept from a recording of as many inputs
        // already holds their IDs (job 0, index i) and coefficients (1): only the values are
        // written.
        if input_vars.len() == x.len() {
            for (v, &value) in input_vars.iter_mut().zip(x) {
                v.set_value(value);
            }
        } else {
            input_vars.clear();
            input_vars.extend(x.iter().enumerate().map(input));
        }
        debug_assert!(
            input_vars
                .iter()
                .enumerate()
                .all(|(i, v)| { v.id() == NodeId::new(JobId(0), i as u32) && v.scale() == 1.0 })
        );
        body(&input_vars, &mut values, &mut ids);
    }
    let mut last = guard.finish();
    if FAST && last.shared.is_none() {
        // No fork: pull back from the root segment where it lies; it stays in the shell.
        let r = single(&last.segment, &values, &ids);
        let spare = std::mem::take(&mut last.spare);
        values.clear();
        ids.clear();
        return Recorded::Single(
            r,
            Buffers {
                segments: spare,
                jobs,
                offsets,
                values,
                ids,
                input_vars,
                shell: Some(last),
            },
        );
    }
    let Some(shared) = last.shared.clone() else {
        // No fork: the root job is the whole recording; its box is kept for reuse.
        let segment = std::mem::take(&mut last.segment);
        let before = std::mem::replace(&mut last.before, Before::Start);
        let spare = std::mem::take(&mut last.spare);
        jobs.push(JobRecord { segment, before });
        let mut rec = Recording::new(
            jobs,
            offsets,
            JobId(0),
            x.len(),
            (values, ids),
            (spare, input_vars),
        );
        rec.shell = Some(last);
        return Recorded::Forked(rec);
    };
    let terminal = last.finish();
    let jobs_allocated = shared.next_job.load(Ordering::Relaxed) as usize;
    let shared = match Arc::try_unwrap(shared) {
        Ok(s) => s,
        Err(_) => panic!("gradus-tape: a task outlived its recording (internal error)"),
    };
    let table = shared.table.into_inner().unwrap_or_else(|e| e.into_inner());
    let spare = shared.pool.into_inner().unwrap_or_else(|e| e.into_inner());
    debug_assert_eq!(table.len(), jobs_allocated);
    jobs.extend(
        table
            .into_iter()
            .map(|j| j.expect("gradus-tape: a job was never finished (internal error)")),
    );
    Recorded::Forked(Recording::new(
        jobs,
        offsets,
        terminal,
        x.len(),
        (values, ids),
        (spare, input_vars),
    ))
}

fn push_outputs(outputs: Vec<Var<'_>>, values: &mut Vec<f64>, ids: &mut Vec<NodeId>) {
    for v in outputs {
        values.push(v.value());
        ids.push(v.output_id());
    }
}

/// Gradient of a scalar function: returns `(f(x), ∇f(x))`.
///
/// `f` receives the inputs as [`Var`]s and returns the output. Use ordinary Rust for control
/// flow, and [`join`](crate::join) / [`par_map`](crate::par_map) for parallel parts; the reverse
/// pass runs independent tasks in parallel on the current rayon pool.
///
/// The buffers of the recording are kept by the calling thread for its next `grad` or
/// [`vjp`] (unless they grew past 256 MiB), as a [`Tape`] keeps them: repeated calls record
/// into memory already in place.
///
/// ```
/// let (y, g) = gradus_tape::grad(&[3.0, 4.0], |x| x[0] * x[1]);
/// assert_eq!(y, 12.0);
/// assert_eq!(g, vec![4.0, 3.0]);
/// ```
pub fn grad<F>(x: &[f64], f: F) -> (f64, Vec<f64>)
where
    F: for<'r> FnOnce(&[Var<'r>]) -> Var<'r>,
{
    with_spare_tape(|tape| tape.grad(x, f))
}

// The buffers of the last `grad` or `vjp` call on this thread, kept for the next one.
thread_local! {
    static SPARE: std::cell::RefCell<Option<Tape>> = const { std::cell::RefCell::new(None) };
}

/// Tapes whose buffers exceed this many bytes are not kept between calls of [`grad`] and
/// [`vjp`].
const SPARE_LIMIT: usize = 256 << 20;

/// Runs `f` on this thread's spare tape (a new one if there is none, or if a call of `grad`
/// within `f` holds it), and keeps the tape for the next call unless it grew past
/// [`SPARE_LIMIT`]. Recording into reused buffers skips the page faults and the growth of
/// fresh ones, which cost large recordings as much as the recording itself.
fn with_spare_tape<R>(f: impl FnOnce(&mut Tape) -> R) -> R {
    let mut tape = SPARE
        .try_with(|s| s.borrow_mut().take())
        .ok()
        .flatten()
        .unwrap_or_default();
    let r = f(&mut tape);
    if tape.capacity_bytes() <= SPARE_LIMIT {
        let _ = SPARE.try_with(|s| *s.borrow_mut() = Some(tape));
    }
    r
}

/// Vector–Jacobian product of a vector function: returns `(f(x), ybarᵀ Df(x))`, the outputs
/// and the input cotangent `xbar`, by one recording and one pullback seeded with `ybar`.
///
/// With one output and `ybar = [1.0]` this is [`grad`]. To pull back several cotangents
/// through one recording, use [`record`] and [`Recording::pullback`].
///
/// # Panics
/// If `ybar.len()` differs from the number of outputs.
///
/// ```
/// let (y, xbar) = gradus_tape::vjp(&[2.0, 3.0], &[1.0, 10.0], |x| vec![x[0] * x[1], x[0] - x[1]]);
/// assert_eq!(y, vec![6.0, -1.0]);
/// assert_eq!(xbar, vec![3.0 + 10.0, 2.0 - 10.0]);
/// ```
pub fn vjp<F>(x: &[f64], ybar: &[f64], f: F) -> (Vec<f64>, Vec<f64>)
where
    F: for<'r> FnOnce(&[Var<'r>]) -> Vec<Var<'r>>,
{
    with_spare_tape(|tape| tape.vjp(x, ybar, f))
}

/// Records a vector function once, for any number of pullbacks.
///
/// ```
/// use gradus_tape::Var;
/// let rec = gradus_tape::record(&[1.0, 2.0], |x| vec![x[0] * x[1], x[0] + x[1].sin()]);
/// assert_eq!(rec.outputs(), &[2.0, 1.0 + 2f64.sin()]);
/// assert_eq!(rec.pullback(&[1.0, 0.0]), vec![2.0, 1.0]);
/// assert_eq!(rec.pullback(&[0.0, 1.0]), vec![1.0, 2f64.cos()]);
/// ```
pub fn record<F>(x: &[f64], f: F) -> Recording
where
    F: for<'r> FnOnce(&[Var<'r>]) -> Vec<Var<'r>>,
{
    record_raw(x, Buffers::default(), |xs, values, ids| {
        push_outputs(f(xs), values, ids)
    })
}

/// Reusable buffers for repeated recordings: segments, adjoints and the job table keep their
/// capacity between calls, so a loop of [`Tape::grad_into`] calls allocates little after the
/// first.
///
/// ```
/// let mut tape = gradus_tape::Tape::new();
/// let mut g = [0.0; 2];
/// for k in 0..3 {
///     let y = tape.grad_into(&[k as f64, 2.0], |x| x[0] * x[1] * x[1], &mut g);
///     assert_eq!(y, 4.0 * k as f64);
///     assert_eq!(g, [4.0, 4.0 * k as f64]);
/// }
/// ```
#[derive(Default)]
pub struct Tape {
    buffers: Buffers,
    adjoints: Adjoints,
    options: ReverseOptions,
}

impl Tape {
    /// An empty tape.
    pub fn new() -> Tape {
        Tape::default()
    }

    /// A tape whose pullbacks use `options`.
    pub fn with_options(options: ReverseOptions) -> Tape {
        Tape {
            options,
            ..Tape::default()
        }
    }

    /// Like [`grad`]: returns `(f(x), ∇f(x))`.
    pub fn grad<F>(&mut self, x: &[f64], f: F) -> (f64, Vec<f64>)
    where
        F: for<'r> FnOnce(&[Var<'r>]) -> Var<'r>,
    {
        let mut g = vec![0.0; x.len()];
        let y = self.grad_into(x, f, &mut g);
        (y, g)
    }

    /// Writes `∇f(x)` into `xbar` and returns `f(x)`. Like every `_into` driver, it takes the
    /// output buffer last, after the function.
    ///
    /// # Panics
    /// If `xbar.len() != x.len()`.
    pub fn grad_into<F>(&mut self, x: &[f64], f: F, xbar: &mut [f64]) -> f64
    where
        F: for<'r> FnOnce(&[Var<'r>]) -> Var<'r>,
    {
        if xbar.len() != x.len() {
            panic!(
                "gradus-tape: grad_into: {}",
                LengthMismatch {
                    what: "the gradient output slice",
                    expected: x.len(),
                    actual: xbar.len(),
                }
            );
        }
        let (options, adjoints) = (&self.options, &mut self.adjoints);
        let recorded = record_single(
            x,
            std::mem::take(&mut self.buffers),
            |xs, values, ids| {
                let y = f(xs);
                values.push(y.value());
                ids.push(y.output_id());
            },
            |seg, values, ids| {
                pullback_single(seg, ids, &[1.0], options, adjoints, xbar, None);
                values[0]
            },
        );
        match recorded {
            Recorded::Single(y, buffers) => {
                self.buffers = buffers;
                y
            }
            Recorded::Forked(rec) => {
                let y = rec.outputs()[0];
                if let Err(e) = rec.pullback_into(&[1.0], &self.options, &mut self.adjoints, xbar) {
                    panic!("gradus-tape: grad_into: {e}");
                }
                self.recycle(rec);
                y
            }
        }
    }

    /// Like [`vjp`](crate::vjp): returns `(f(x), ybarᵀ Df(x))`, reusing this tape's buffers and
    /// pulling back with its options.
    ///
    /// # Panics
    /// If `ybar.len()` differs from the number of outputs.
    pub fn vjp<F>(&mut self, x: &[f64], ybar: &[f64], f: F) -> (Vec<f64>, Vec<f64>)
    where
        F: for<'r> FnOnce(&[Var<'r>]) -> Vec<Var<'r>>,
    {
        let rec = self.record(x, f);
        let mut xbar = vec![0.0; x.len()];
        if let Err(e) = rec.pullback_into(ybar, &self.options, &mut self.adjoints, &mut xbar) {
            panic!("gradus-tape: vjp: {e}");
        }
        let y = rec.outputs().to_vec();
        self.recycle(rec);
        (y, xbar)
    }

    /// Like [`record`], reusing this tape's buffers.
    pub fn record<F>(&mut self, x: &[f64], f: F) -> Recording
    where
        F: for<'r> FnOnce(&[Var<'r>]) -> Vec<Var<'r>>,
    {
        record_raw(x, std::mem::take(&mut self.buffers), |xs, values, ids| {
            push_outputs(f(xs), values, ids)
        })
    }

    /// Gives a recording's buffers back to the tape for reuse.
    #[inline]
    pub fn recycle(&mut self, rec: Recording) {
        self.buffers = rec.into_buffers();
    }

    /// Bytes held by the tape's buffers.
    fn capacity_bytes(&self) -> usize {
        self.buffers.capacity_bytes() + self.adjoints.capacity_bytes()
    }

    /// The scratch adjoint buffer, for [`Recording::pullback_into`].
    pub fn adjoints(&mut self) -> &mut Adjoints {
        &mut self.adjoints
    }
}

// Note [The active-job slot]
//
// Every operation on a `Var` appends to the segment of the job running on the current thread
// (docs/tape.md §Data structures). The slot is a thread-local raw pointer to a boxed `JobRecorder`
// rather than the specification's `RefCell<Option<JobRecorder>>`: a thread-local whose type needs
// `Drop` carries a lazy destructor registration that keeps `LocalKey::with` from being inlined, and
// the out-of-line call plus the `RefCell` flag doubled the per-operation recording cost in the
// benchmarks (fdotprod with n = 10 000: about 7.5 ns against 3.5 ns per operation), far above
// the fifth of an operation that docs/tape.md §Data structures allows before an unsafe fast path.
//
// Invariants:
// 1. The pointer is null or was produced by `Box::into_raw` in `slot_replace`; the slot owns
//    that box. Only `slot_replace` moves ownership in or out, by swapping pointers.
// 2. A reference to the recorder is created only in `with_active` and lives only during its
//    closure, which is crate code that appends to the segment and never calls `slot_replace`
//    or `with_active`; so at most one reference exists at a time and none exists while the box
//    is freed.
// 3. The slot is thread-local, so no other thread can observe the pointer.
// 4. Guards restore the previous pointer on drop, also during unwinding, so installs nest like
//    a stack; a panic inside the closure given to `with_active` (the ID limits) leaves the
//    pointer valid for the guard to restore.
// A thread that exits with a non-null slot would leak its recorder; guards make that
// impossible for threads that only use the public API.
