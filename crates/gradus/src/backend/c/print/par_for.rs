//! Parallel loops ([`Stm::ParFor`]) printed for threads.
//!
//! Takes a parallel loop of the lowered program (multicore and the gpu backend's host code).
//! Prints its number of iterations `gr_n`, the test whether the loop is worth threads on this
//! call (`gr_big`, which also counts its work for the choice of the call's team), then one of
//! two versions, and after them the check whether an iteration failed:
//! - the threads' version: iterations in chunks taken by the team's threads, with atomic
//!   additions or with accumulators privatised per chunk;
//! - the one-thread version: the loop the `c` backend prints (no atomics, no per-iteration
//!   stop check), for small loops and calls on one thread.
//!
//! Where an entry point is split into functions (`outline.rs`), the two versions of a large
//! loop become two functions of their own, so the one-thread version is compiled as the `c`
//! backend's function is, without the OpenMP regions beside it that change the C compiler's
//! register allocation of the whole function.

use super::{Printer, at_most_once, fails_at_once};
use crate::backend::c::prims::c_type;
use crate::backend::lower::imp::{self, Stm};

/// The first line of a parallel loop's one-thread version.
const ONE_THREAD: &str = "/* one thread */";

/// One of the two versions of a parallel loop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Version {
    /// Shared by the team's threads.
    Threads,
    /// Run in order by one thread.
    OneThread,
}

impl Printer<'_> {
    /// Prints the parallel loop `s` (a [`Stm::ParFor`]) in full, or, where a version was
    /// asked for (`par_for_version`, set by `outline.rs` for the function it prints), only
    /// that version after its own `gr_n`.
    pub(super) fn par_for(&mut self, s: &Stm, d: usize) {
        let Stm::ParFor { bound, work, .. } = s else {
            return;
        };
        let b = self.ex(bound);
        if let Some(version) = self.par_for_version.take() {
            self.line(d, &format!("int64_t gr_n GR_UNUSED = {b};"));
            self.par_for_version_text(s, version, d);
            return;
        }
        let w = self.ex(work);
        let outer = self.fail_label();
        self.line(d, "{");
        self.line(d + 1, &format!("int64_t gr_n GR_UNUSED = {b};"));
        self.par_for_choice(s, &w, d + 1);
        self.par_for_version_text(s, Version::Threads, d + 2);
        self.line(d + 1, "} else {");
        self.par_for_version_text(s, Version::OneThread, d + 2);
        self.line(d + 1, "}");
        let key = self.iter_key();
        self.line(d + 1, &format!("if (gr_stop(ctx, {key})) goto {outer};"));
        self.line(d, "}");
    }

    /// Declares `gr_big` (see [`Self::big_loop_test`]) and opens the `if` whose branch runs
    /// the threads' version of `s` and whose `else` runs the one-thread version.
    ///
    /// Starting a team costs allocations and wake-ups even for one thread, which dominates a
    /// small loop run many times (inside a sequential loop): small loops and single-threaded
    /// calls take the one-thread version. A loop with privatised accumulators takes the
    /// threads' version on a big loop whatever the call's team, so the choice of the team
    /// never changes how its sums are split.
    pub(super) fn par_for_choice(&mut self, s: &Stm, w: &str, d: usize) {
        self.big_loop_test(w, d);
        let privatised = matches!(s, Stm::ParFor { private, .. } if !private.is_empty());
        let threads = if privatised {
            "gr_big"
        } else {
            "gr_big && gr_team > 1"
        };
        self.line(d, &format!("if ({threads}) {{"));
    }

    /// The code of one version of the parallel loop `s`, with `gr_n` declared before it.
    pub(super) fn par_for_version_text(&mut self, s: &Stm, version: Version, d: usize) {
        let Stm::ParFor {
            var,
            bound,
            work,
            body,
            private,
            private_body,
            independent,
        } = s
        else {
            return;
        };
        if version == Version::OneThread {
            self.line(d, ONE_THREAD);
        }
        match version {
            Version::Threads if private.is_empty() => self.omp_par_for(var, body, d),
            Version::Threads => {
                let w = self.ex(work);
                self.privatised_threads(var, &w, body, private, private_body, d);
            }
            // No copies of accumulators needed: the privatised body adds without atomics.
            Version::OneThread if !private.is_empty() => {
                self.sequential_par_for(var, private_body, false, d)
            }
            // On one thread no addition needs to be atomic (an atomic addition of floats is a
            // compare-and-swap loop, and keeps the loop from being vectorised).
            Version::OneThread => {
                let independent = *independent && !at_most_once(bound);
                self.sequential_par_for(var, &imp::without_atomics(body), independent, d);
            }
        }
    }

    /// The threads' version of a parallel loop whose accumulators may be privatised (see
    /// [`Stm::ParFor`]): when the accumulators are small next to the loop's work `w` and
    /// their copies can be allocated, each chunk of iterations (four per thread, taken by
    /// whichever thread is free) zeroes its own copy and adds into it without atomics, and
    /// the copies are summed into the accumulators in chunk order (deterministic for a given
    /// thread count); otherwise the loop runs with atomic additions.
    fn privatised_threads(
        &mut self,
        var: &str,
        w: &str,
        body: &[Stm],
        private: &[imp::Private],
        private_body: &[Stm],
        d: usize,
    ) {
        self.labels += 1;
        let id = self.labels;
        let counts: Vec<String> = private.iter().map(|p| self.ex(&p.count)).collect();
        let parts: Vec<String> = (0..private.len())
            .map(|k| format!("gr_pv{id}_{k}"))
            .collect();
        let d = d - 1;
        // Copies per chunk of iterations, four chunks per thread, taken by threads as they
        // become free; summed in chunk order, so the result depends on the thread count
        // but not on which thread ran which chunk.
        self.line(d + 1, "int64_t gr_nc = 4 * (int64_t)gr_nt;");
        self.line(d + 1, "int gr_priv = 0;");
        for (p, part) in private.iter().zip(&parts) {
            let t = c_type(p.elem);
            self.line(d + 1, &format!("{t} *{part} = NULL;"));
        }
        let total = counts
            .iter()
            .map(|c| format!("({c})"))
            .collect::<Vec<_>>()
            .join(" + ");
        self.line(d + 1, &format!("if (({total}) * gr_nc <= ({w})) {{"));
        // Not zeroed here: each chunk zeroes its own copy (below).
        for ((p, part), c) in private.iter().zip(&parts).zip(&counts) {
            let t = c_type(p.elem);
            self.line(
                d + 2,
                &format!(
                    "{part} = ({t} *)malloc(((size_t)gr_nc * (size_t)({c}) + 1) * sizeof({t}));"
                ),
            );
        }
        let all = parts
            .iter()
            .map(|p| format!("{p} != NULL"))
            .collect::<Vec<_>>()
            .join(" && ");
        self.line(d + 2, &format!("gr_priv = {all};"));
        self.line(d + 1, "}");
        self.line(d + 1, "if (gr_priv) {");
        self.line(d + 2, "#ifdef _OPENMP");
        // On a call that runs on one thread (see `gr_par_pick`) the chunks are the same, so
        // the sums are.
        self.line(
            d + 2,
            "#pragma omp parallel num_threads(gr_team) if (gr_team > 1)",
        );
        self.line(d + 2, "#endif");
        self.line(d + 2, "{");
        // Each thread runs its chunks one after another, so its slots serve all of them.
        self.open_slots(1);
        self.line(d + 3, "#ifdef _OPENMP");
        self.line(d + 3, "#pragma omp for schedule(dynamic, 1)");
        self.line(d + 3, "#endif");
        self.line(d + 3, "for (int64_t gr_c = 0; gr_c < gr_nc; gr_c++) {");
        for ((p, part), c) in private.iter().zip(&parts).zip(&counts) {
            let t = c_type(p.elem);
            // Shadows the shared accumulator inside this block. Zeroed by the thread that
            // runs the chunk, just before it adds into it: zeroed on the calling thread
            // before the loop, the other threads' copies sat in that thread's cache, to be
            // fetched from there line by line.
            self.line(
                d + 4,
                &format!("{t} *{} GR_UNUSED = {part} + gr_c * ({c});", p.arr),
            );
            self.line(
                d + 4,
                &format!("memset({}, 0, (size_t)({c}) * sizeof({t}));", p.arr),
            );
        }
        self.line(d + 4, "int64_t gr_lo = gr_c * gr_n / gr_nc;");
        self.line(d + 4, "int64_t gr_hi = (gr_c + 1) * gr_n / gr_nc;");
        self.par_for_range(var, "gr_lo", "gr_hi", private_body, d + 4);
        self.line(d + 3, "}");
        self.close_slots(d + 3);
        for ((p, part), c) in private.iter().zip(&parts).zip(&counts) {
            let t = c_type(p.elem);
            self.line(d + 3, "#ifdef _OPENMP");
            self.line(d + 3, "#pragma omp for schedule(static)");
            self.line(d + 3, "#endif");
            self.line(
                d + 3,
                &format!("for (int64_t gr_e = 0; gr_e < ({c}); gr_e++) {{"),
            );
            self.line(d + 4, &format!("{t} gr_s = 0;"));
            self.line(
                d + 4,
                &format!(
                    "for (int64_t gr_u = 0; gr_u < gr_nc; gr_u++) gr_s += {part}[gr_u * ({c}) + gr_e];"
                ),
            );
            self.line(d + 4, &format!("{}[gr_e] += gr_s;", p.arr));
            self.line(d + 3, "}");
        }
        self.line(d + 2, "}");
        for part in &parts {
            self.line(d + 2, &format!("free({part});"));
        }
        self.line(d + 1, "} else {");
        for part in &parts {
            self.line(d + 2, &format!("free({part});"));
        }
        self.omp_par_for(var, body, d + 2);
        self.line(d + 1, "}");
    }

    /// The loop of a [`Stm::ParFor`] run by one thread. Its allocation sites take slots of
    /// the enclosing scope, which outlives the loop, so a loop that runs many times (inside
    /// a sequential loop) allocates once; or of a scope of its own where the enclosing one
    /// has none.
    /// With `independent`, the loop is marked for vectorisation without overlap checks (see
    /// [`Stm::For`]).
    pub(in crate::backend::c) fn sequential_par_for(
        &mut self,
        var: &str,
        body: &[Stm],
        independent: bool,
        d: usize,
    ) {
        let mark = |p: &mut Self| {
            if independent && !fails_at_once(body) {
                p.line(d, "GR_INDEPENDENT");
            }
            p.one_thread_loop(var, body, d);
        };
        if !self.slot_scopes.is_empty() {
            self.in_loop(mark);
        } else {
            self.open_slots(1);
            mark(self);
            self.close_slots(d);
        }
    }

    /// Declares `gr_big`: whether a parallel loop of estimated work `w` is large enough for
    /// threads, on a call that has them. Such loops count their work for the call's choice of
    /// team (`gr_par_pick`), whatever the choice.
    fn big_loop_test(&mut self, w: &str, d: usize) {
        self.line(
            d,
            &format!("int gr_big = gr_nt > 1 && ({w}) >= GR_PAR_MIN_WORK;"),
        );
        self.line(
            d,
            &format!("if (gr_big) {{ gr_par_work += {w}; gr_par_loops++; }}"),
        );
    }

    /// The loop of a [`Stm::ParFor`] over `gr_n` iterations shared among `gr_nt` threads.
    /// Threads take chunks of about an eighth of their share as they become free: when
    /// another process holds a core, the thread that runs does most of the work instead of
    /// waiting at the loop's end for the one that was descheduled with half of it. Each
    /// iteration writes its own results, so the schedule does not change them.
    fn omp_par_for(&mut self, var: &str, body: &[Stm], d: usize) {
        self.line(
            d,
            "int64_t gr_ch GR_UNUSED = gr_n / (8 * (int64_t)gr_team) + 1;",
        );
        self.line(d, "#ifdef _OPENMP");
        self.line(d, "#pragma omp parallel num_threads(gr_team)");
        self.line(d, "#endif");
        self.line(d, "{");
        self.open_slots(1);
        self.line(d + 1, "#ifdef _OPENMP");
        self.line(d + 1, "#pragma omp for schedule(dynamic, gr_ch)");
        self.line(d + 1, "#endif");
        self.par_for_loop(var, body, d + 1);
        self.close_slots(d + 1);
        self.line(d, "}");
    }

    /// The loop of a [`Stm::ParFor`] over `gr_n` iterations (the pragma, if any, is printed
    /// before it).
    fn par_for_loop(&mut self, var: &str, body: &[Stm], d: usize) {
        self.par_for_range(var, "0", "gr_n", body, d)
    }

    /// The loop of a [`Stm::ParFor`] over `gr_n` iterations run in order by one thread. An
    /// error leaves the loop at once, since every later iteration would be skipped: so no
    /// iteration checks whether an earlier one failed (`gr_stop`, see [`Self::par_for_range`]),
    /// and the loop is the one the `c` backend prints (the check made BA's objective, about
    /// 20 ns an iteration, 2 % slower on one thread).
    fn one_thread_loop(&mut self, var: &str, body: &[Stm], d: usize) {
        self.counted_loop(var, "0", "gr_n", body, d, OnError::LeaveLoop);
    }

    /// The loop of a [`Stm::ParFor`] over the iterations `from..to`, run by one thread of a
    /// team: an error ends the iteration, and the iterations after it skip their work.
    fn par_for_range(&mut self, var: &str, from: &str, to: &str, body: &[Stm], d: usize) {
        self.counted_loop(var, from, to, body, d, OnError::NextIteration);
    }

    /// `for (var = from; var < to; var++) body`, where a failing statement of `body` jumps
    /// to a label placed as `on_error` says.
    fn counted_loop(
        &mut self,
        var: &str,
        from: &str,
        to: &str,
        body: &[Stm],
        d: usize,
        on_error: OnError,
    ) {
        self.labels += 1;
        let label = match on_error {
            OnError::LeaveLoop => format!("gr_loop_end_{}", self.labels),
            OnError::NextIteration => format!("gr_iter_end_{}", self.labels),
        };
        self.line(
            d,
            &format!("for (int64_t {var} = {from}; {var} < {to}; {var}++) {{"),
        );
        // The outermost parallel loop orders errors by its own counter; a nested one (or a
        // loop run on one thread inside an iteration of one) by the enclosing iteration of
        // the outermost, since only that loop's iterations run concurrently.
        let outermost = self.iter_key.is_none();
        if outermost {
            self.iter_key = Some(var.to_string());
        }
        let key = self.iter_key();
        let stop_at = self.out.len();
        self.fail_labels.push((label.clone(), false));
        self.stms(body, d + 1);
        let can_fail = self.fail_labels.pop().is_some_and(|(_, used)| used);
        if outermost {
            self.iter_key = None;
        }
        match on_error {
            OnError::LeaveLoop => {
                self.line(d, "}");
                self.line(d, &format!("{label}: GR_UNUSED;"));
            }
            OnError::NextIteration => {
                // An iteration skips its work once another has failed (its error would be
                // reported instead). A body with no way to fail (nothing in it jumps to
                // `label`) needs no such check, and without it a loop of arithmetic stays
                // vectorisable: GCC does not vectorise a loop with the check's branch in it.
                if can_fail {
                    let check =
                        format!("{}if (gr_stop(ctx, {key})) continue;\n", "  ".repeat(d + 1));
                    self.out.insert_str(stop_at, &check);
                }
                self.line(d + 1, &format!("{label}: GR_UNUSED;"));
                self.line(d, "}");
            }
        }
    }
}

/// Where a failing statement in a loop's body goes.
#[derive(Clone, Copy)]
enum OnError {
    /// Out of the loop: the iterations after it would be skipped anyway (one thread).
    LeaveLoop,
    /// To the end of the iteration; the next ones check `gr_stop` (a team of threads).
    NextIteration,
}
