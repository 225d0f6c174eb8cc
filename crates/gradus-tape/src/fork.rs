//! Fork-join inside a recording (docs/tape.md §Parallel recording and pullback): each fork ends the
//! running job, runs the tasks in fresh jobs and continues in a new job whose record names the
//! parent and the tasks' last jobs.

use crate::id::JobId;
use crate::record::{JobRecorder, Shared, run_task, set_active, take_active};
use crate::segment::Before;
use rayon::prelude::*;
use std::sync::Arc;

/// Runs `a` and `b`, possibly in parallel, and returns both results — inside a recording, the
/// reverse pass will resolve the two tasks in parallel too.
///
/// Outside a recording this is just `rayon::join`, so generic code can call it
/// unconditionally. Values may flow between tasks only along the fork-join structure: captured
/// by the closures, returned at the join (docs/tape.md §Parallel recording and pullback).
///
/// ```
/// use gradus_tape::{grad, join};
/// let (y, g) = grad(&[3.0, 0.5], |x| {
///     let (a, b) = join(|| x[0] * x[0], || x[1].sin());
///     a + b
/// });
/// assert_eq!(y, 9.0 + 0.5f64.sin());
/// assert_eq!(g, vec![6.0, 0.5f64.cos()]);
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let Some(mut active) = take_active() else {
        return rayon::join(a, b);
    };
    let shared = active.shared();
    let parent = active.finish();
    let first = shared.fresh_jobs(3);
    let (ja, jb, jc) = (JobId(first), JobId(first + 1), JobId(first + 2));
    let ((ra, ta), (rb, tb)) =
        rayon::join(|| run_task(&shared, ja, a), || run_task(&shared, jb, b));
    set_active(Box::new(JobRecorder::new(
        shared,
        jc,
        Before::Fork {
            parent,
            children: vec![ta, tb],
        },
    )));
    (ra, rb)
}

/// The number of tasks [`par_map`] uses for `n` items: one per item up to 64, otherwise 64
/// balanced chunks. Independent of the number of threads, so the recorded job graph (and the
/// `Sequential` reverse pass) is the same on every machine.
pub fn default_chunks(n: usize) -> usize {
    n.min(64)
}

/// Maps `f` over `items` in parallel tasks and returns the results in order (the n-ary form of
/// [`join`]). Chunking follows [`default_chunks`].
///
/// ```
/// use gradus_tape::{Var, grad, par_map};
/// let (y, g) = grad(&[2.0], |x| {
///     let ks = [1.0, 2.0, 3.0];
///     let parts: Vec<Var> = par_map(&ks, |k| x[0] * *k);
///     parts.into_iter().sum()
/// });
/// assert_eq!(y, 12.0);
/// assert_eq!(g, vec![6.0]);
/// ```
pub fn par_map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    par_map_chunks(items, default_chunks(items.len()), f)
}

/// [`par_map`] with an explicit number of tasks (at least 1, at most `items.len()`; the items
/// are split into that many contiguous chunks whose lengths differ by at most one).
pub fn par_map_chunks<T, R, F>(items: &[T], chunks: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let n = items.len();
    let chunks = chunks.clamp(1, n.max(1));
    let Some(mut active) = take_active() else {
        return items.par_iter().map(&f).collect();
    };
    let shared: Arc<Shared> = active.shared();
    let parent = active.finish();
    let count = u32::try_from(chunks + 1)
        .unwrap_or_else(|_| panic!("gradus-tape: par_map with more than 2^32 - 2 chunks"));
    let first = shared.fresh_jobs(count);
    let bounds = |c: usize| c * n / chunks;
    let parts: Vec<(Vec<R>, JobId)> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            run_task(&shared, JobId(first + c as u32), || {
                items[bounds(c)..bounds(c + 1)]
                    .iter()
                    .map(&f)
                    .collect::<Vec<R>>()
            })
        })
        .collect();
    let mut children = Vec::with_capacity(chunks);
    let mut out = Vec::with_capacity(n);
    for (rs, last) in parts {
        children.push(last);
        out.extend(rs);
    }
    set_active(Box::new(JobRecorder::new(
        shared,
        JobId(first + chunks as u32),
        Before::Fork { parent, children },
    )));
    out
}
