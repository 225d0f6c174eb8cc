//! Loops in loops: the forward sweep of a `for` loop directly in a loop body runs inside the
//! enclosing loop's forward sweep, which keeps its results and checkpoints per iteration.
//!
//! **Takes** a `for` loop directly in the body, with an iteration count and checkpoint
//! shapes that do not change from one outer iteration to the next ([`Vjp::nestable_loops`]).
//!
//! **Does**: the enclosing loop's forward sweep runs the inner loop's own forward sweep and
//! keeps its results and checkpoints per outer iteration ([`Nested`]). The inner forward
//! sweep writes what it saves straight into the outer loop's stacks, at the outer
//! iteration's row ([`Slot`]). The return sweep's re-execution of an outer iteration takes
//! them from there (`Preset::Loop`) instead of running the inner loop forwards again.
//!
//! **Guarantees**: the inner body runs twice in all instead of three times (a recurrent
//! network's layers per time step: about a third of its gradient's work).
//!
//! **Cost**: the memory is the inner checkpoints of every outer iteration, which is at most
//! what the inner loops compute.

use super::super::{Diagnostic, R, Vjp};
use super::checkpoint::{SaveParams, Writes};
use super::resize::resizes;
use super::{LoopParam, Saved};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, Exp, LoopForm, Stm, SubExp, Var};
use crate::core::visit::stm_free_vars;
use std::collections::{HashMap, HashSet};

/// A `for` loop directly in the body whose forward sweep (with its own checkpoints) ran in
/// every iteration of this loop's forward sweep. Its results and what it saved are kept per
/// iteration, stacked in arrays `[n]`, so the return sweep's re-execution of iteration `i`
/// takes them from there instead of running the inner loop forwards again: a statement in
/// the inner body runs twice in all instead of three times.
///
/// Memory: the inner loop's checkpoints for every outer iteration, at most what the inner
/// loops compute (each checkpoint is a value an iteration produced), the bound of a tape.
/// Only loops whose iteration count and checkpoint shapes do not change with the outer
/// iteration qualify; a `#[stripmine]` outer loop, which asks for less memory, keeps
/// re-executing.
pub(super) struct Nested {
    /// The inner loop's position in the body.
    pub(super) pos: usize,
    /// Its results, stacked.
    pub(super) results: Vec<Var>,
    /// What its forward sweep saved, every variable stacked (`n` is invariant).
    pub(super) saved: Saved,
}

/// A [`Nested`] loop's iteration count, and the (value, stack) pairs of its results, then
/// the enclosing loop's stacks for what it saves.
pub(super) type InnerSweep = (SubExp, Vec<(Var, Var)>, Vec<Var>);

/// Where the forward sweep of a [`Nested`] loop writes what it saves: straight into the
/// enclosing loop's stacks (their current values, in the order the inner loop creates its
/// saves, the order of [`Saved::vars`]), at the enclosing iteration `at`. Building its own
/// arrays and copying them into the stacks cost a copy per save and iteration (a recurrent
/// network's gradient: seven per character).
pub(super) struct Slot {
    pub(super) at: SubExp,
    pub(super) stacks: std::collections::VecDeque<Var>,
}

/// A [`Nested`] loop as planned before the enclosing loop is emitted: its position in the
/// body, its number of results, what a first run of its forward sweep saved (for the
/// layout), and the enclosing loop's save parameters for its results and then its saves.
pub(super) struct InnerSaved {
    pos: usize,
    results: usize,
    saved: Saved,
    stacks: Vec<Var>,
}

impl InnerSaved {
    /// The [`Nested`] loop, with the save parameters replaced by the enclosing loop's
    /// results `outs`.
    pub(super) fn stacked(self, outs: &HashMap<Var, Var>) -> Nested {
        let mut stacked = self.stacks.iter().map(|x| outs[x]);
        let results = stacked.by_ref().take(self.results).collect();
        Nested {
            pos: self.pos,
            results,
            saved: self.saved.with_vars(&mut stacked),
        }
    }
}

/// The statements among `stms` that compute the scalar `v` from values bound outside them
/// (`inside` holds what the enclosing body binds), in order, if they are all basic
/// operations on scalars.
fn invariant_definition(stms: &[Stm], v: Var, inside: &HashSet<Var>) -> Option<Vec<Stm>> {
    let mut wanted = HashSet::from([v]);
    let mut defs = Vec::new();
    for st in stms.iter().rev() {
        if !st.pat.iter().any(|p| wanted.contains(p)) {
            continue;
        }
        let Exp::BasicOp(op) = &st.exp else {
            return None;
        };
        if matches!(
            op,
            BasicOp::Index { .. } | BasicOp::Update { .. } | BasicOp::Copy(_)
        ) {
            return None;
        }
        for x in stm_free_vars(st) {
            if inside.contains(&x) {
                wanted.insert(x);
            }
        }
        defs.push(st.clone());
    }
    // Everything wanted must have been found among the statements.
    let bound: HashSet<Var> = defs.iter().flat_map(|st| st.pat.iter().copied()).collect();
    if wanted.iter().any(|x| !bound.contains(x)) {
        return None;
    }
    defs.reverse();
    Some(defs)
}

impl Vjp<'_> {
    /// The positions of the body's `for` loops that can be [`Nested`]: active (they depend
    /// on a loop parameter or an active variable), of fixed shapes, not stripmined, without
    /// accumulators, with an iteration count that does not change between iterations of the
    /// enclosing loop; with that count, computed here (outside the enclosing loop). `inside`:
    /// what the enclosing loop binds (its parameters, counter and the body's variables).
    fn nestable_loops(
        &mut self,
        params: &[LoopParam],
        body: &Body,
        inside: &HashSet<Var>,
    ) -> Vec<(usize, SubExp)> {
        let active = self.active_stms(params, body);
        let mut out = Vec::new();
        for (k, st) in body.stms.iter().enumerate() {
            let is_active = active[k];
            let Exp::Loop {
                params: inner,
                form: LoopForm::For { bound, .. },
                ..
            } = &st.exp
            else {
                continue;
            };
            if !is_active
                || st.aux.attrs.iter().any(|a| a.starts_with("stripmine"))
                || self.touches_virtual(st)
                || self.carries_acc(inner)
                || resizes(inner, &self.e.names)
            {
                continue;
            }
            let bound = match bound {
                SubExp::Var(b) if inside.contains(b) => {
                    // Computed in the body from values bound outside it: computed again
                    // here.
                    let Some(defs) = invariant_definition(&body.stms[..k], *b, inside) else {
                        continue;
                    };
                    let (stms, res) = self.rename(&defs, &[*bound], HashMap::new());
                    for st in stms {
                        self.e.add_stm(st);
                    }
                    res[0]
                }
                b => *b,
            };
            out.push((k, self.iteration_count(&bound)));
        }
        out
    }

    /// The [`Nested`] loops of the body and their stacks (save parameters of the enclosing
    /// loop): per inner loop, its iteration count, the (value, stack) pairs of its results and
    /// the stacks for what it saves, by position; its forward sweep is emitted at its place
    /// in the body and writes into those stacks ([`Vjp::inner_sweep`]). `inside`: what the
    /// enclosing loop binds.
    pub(super) fn plan_nested(
        &mut self,
        saves: &mut SaveParams,
        params: &[LoopParam],
        body: &Body,
        inside: &HashSet<Var>,
    ) -> R<(HashMap<usize, InnerSweep>, Vec<InnerSaved>)> {
        let mut inner_sweeps: HashMap<usize, InnerSweep> = HashMap::new();
        let mut inner_saved = Vec::new();
        for (k, n_inner) in self.nestable_loops(params, body, inside) {
            let st = &body.stms[k];
            // A first sweep for the layout of what it saves; the one emitted writes into the
            // stacks made for that layout (`Slot`).
            let (_, saved) = self.nested(|v| v.checkpoint_loop(st, Some(n_inner), None))?;
            let stacked: Vec<Var> = st.pat.iter().copied().chain(saved.vars()).collect();
            let invariant = stacked.iter().all(|x| {
                self.e.names.ty(*x).dims().iter().all(|d| match d {
                    SubExp::Var(v) => !inside.contains(v),
                    SubExp::Const(_) => true,
                })
            });
            if !invariant {
                continue;
            }
            let mut pairs = Vec::new();
            for x in &stacked {
                let t = self.e.names.ty(*x).clone();
                let h = format!("{}_stack", self.e.names.hint(*x));
                pairs.push((*x, saves.fresh(self, &t, &h, None)));
            }
            let stacks = pairs.iter().map(|(_, stack)| *stack).collect();
            let inner_saves = pairs.split_off(st.pat.len());
            let inner_saves = inner_saves.into_iter().map(|(_, stack)| stack).collect();
            inner_sweeps.insert(k, (n_inner, pairs, inner_saves));
            inner_saved.push(InnerSaved {
                pos: k,
                results: st.pat.len(),
                saved,
                stacks,
            });
        }
        Ok((inner_sweeps, inner_saved))
    }

    /// Emits the forward sweep of [`Nested`] loop `st` in iteration `i64i` of the enclosing
    /// loop's forward sweep, writing what it saves and its results into the stacks.
    pub(super) fn inner_sweep(
        &mut self,
        st: &Stm,
        sweep: InnerSweep,
        i64i: SubExp,
        w: &mut Writes,
    ) -> R<()> {
        let (n_inner, pairs, saves) = sweep;
        let slot = Slot {
            at: i64i,
            stacks: saves.iter().map(|x| w.current(*x)).collect(),
        };
        let saved = self.checkpoint_loop(st, Some(n_inner), Some(slot))?;
        let written = saved.vars();
        if written.len() != saves.len() {
            return Err(Diagnostic::bug("a nested loop saved another layout"));
        }
        for (stack, x) in saves.iter().zip(written) {
            w.set(*stack, x);
        }
        for (x, stack) in pairs {
            w.save(self, stack, SubExp::Var(x));
        }
        Ok(())
    }
}
