//! Checkpointed loops: the forward sweep of a `for` loop that saves what each iteration
//! starts from, and the return sweep that re-executes the iterations backwards from there.
//!
//! **Forward sweep** of `loop (p = init) for i < n do body`: the same loop, which also writes
//! the loop-carried values at the start of every iteration into checkpoint arrays `[n]`
//! (`ck_p with [i] = p`), so iteration `i` can be re-executed later. What each parameter
//! saves is chosen here (`Save`): whole checkpoints, the rows updated in place
//! (`in_place.rs`), nothing when the initial array serves, or flat buffers for arrays that
//! change size (`resize.rs`); the body may also keep expensive values (`kept.rs`) and run the
//! forward sweeps of the loops nested in it (`nested.rs`).
//!
//! **Return sweep**: a loop over `i = n-1 .. 0` whose parameters are the adjoints of the loop
//! parameters (starting with the adjoints of the loop's results) and of the active free
//! variables of the body. Each iteration reads its checkpoint, re-executes the body (its own
//! forward sweep, so loops nested inside are checkpointed per outer iteration) and runs the
//! body's return sweep with the parameters' adjoints as the adjoints of the body's results.
//! Afterwards the adjoints of the loop parameters are those of the initial values:
//! `p̄ᵢ = (∂ bodyᵢ / ∂ pᵢ)ᵀ · p̄ᵢ₊₁`, `x̄ += Σᵢ (∂ bodyᵢ / ∂ x)ᵀ · p̄ᵢ₊₁` for a free `x`.
//!
//! **Cost**: the body runs twice per iteration (plus its own nested re-executions), memory is
//! one checkpoint per iteration.

use super::super::{Adj, Diagnostic, R, Vjp, limitation};
use super::in_place::{Overwrite, update_chains, write_once};
use super::kept::kept_stacks;
use super::nested::{InnerSweep, Slot};
use super::resize::{FlatSlot, resizes, size_params};
use super::{LoopParam, Preset, Save, Saved};
use crate::ad::vjp::Extra;
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, LoopForm, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::renumber::{body_binders, map_vars_type};
use crate::core::scalar::PrimType;
use std::collections::{HashMap, HashSet};

/// The loop parameters a checkpointing forward sweep adds, one per save: an array of its own
/// (from a scratch array), or the next of an enclosing loop's stacks ([`Slot`]).
pub(super) struct SaveParams {
    /// The loop's parameters, then one per save.
    params: Vec<LoopParam>,
    /// The parameters holding saves, in the order they were made.
    vars: Vec<Var>,
    /// The iteration count, the outer dimension of the saves.
    n: SubExp,
    /// The enclosing loop's stacks, taken in order instead of making arrays.
    slot: Option<Slot>,
}

impl SaveParams {
    /// A new save parameter of element type and dimensions `t`: a buffer of `shape` (`[n]`
    /// and then `t`'s dimensions where `shape` is `None`), or the next stack of the slot.
    pub(super) fn fresh(
        &mut self,
        v: &mut Vjp<'_>,
        t: &Type,
        hint: &str,
        shape: Option<SubExp>,
    ) -> Var {
        if let Some(outer) = self.slot.as_mut().and_then(|sl| sl.stacks.pop_front()) {
            let st = v.e.names.ty(outer).clone();
            let cp = v.e.fresh(hint, st);
            self.params.push((cp, SubExp::Var(outer)));
            self.vars.push(cp);
            return cp;
        }
        let shape = match shape {
            Some(total) => vec![total],
            None => {
                let mut shape = vec![self.n];
                shape.extend_from_slice(t.dims());
                shape
            }
        };
        let scratch = v.e.basic(
            BasicOp::Scratch {
                elem: t.elem(),
                shape,
            },
            hint,
        );
        let st = v.e.names.ty(scratch).clone();
        let cp = v.e.fresh(hint, st);
        self.params.push((cp, SubExp::Var(scratch)));
        self.vars.push(cp);
        cp
    }
}

/// How the forward sweep saves each loop parameter ([`Vjp::plan_saves`]).
struct ParamSaves {
    /// Per parameter: the save parameter of its `[n]` checkpoints ([`Save::Full`]).
    full: Vec<Option<Var>>,
    /// Per in-place update, by position in the body: the save parameters of its indices and
    /// of the value it overwrites ([`Save::InPlace`]).
    at_update: HashMap<usize, (Vec<Var>, Var)>,
    /// Per parameter: the positions of the in-place updates that carry it.
    chains: Vec<Option<Vec<usize>>>,
    /// Per parameter saved flat: its buffer's save parameter and where it goes there.
    flat: Vec<Option<(Var, FlatSlot)>>,
    /// Per parameter: read from its initial value ([`Save::Initial`]).
    initial: Vec<bool>,
}

impl ParamSaves {
    /// The saves, with the save parameters replaced by the loop's results `outs`.
    fn into_saves(self, outs: &HashMap<Var, Var>) -> Vec<Save> {
        let ParamSaves {
            full,
            at_update,
            chains,
            flat,
            initial,
        } = self;
        full.iter()
            .zip(&chains)
            .zip(&flat)
            .zip(&initial)
            .map(|(((f, chain), fl), keep)| match (f, chain, fl) {
                _ if *keep => Save::Initial,
                (_, _, Some((bp, slot))) => Save::Flat {
                    buf: outs[bp],
                    offsets: slot.offsets,
                },
                (Some(cp), _, _) => Save::Full(outs[cp]),
                (None, Some(chain), _) => Save::InPlace(
                    chain
                        .iter()
                        .filter_map(|k| at_update.get(k))
                        .map(|(idx, old)| Overwrite {
                            indices: idx.iter().map(|x| outs[x]).collect(),
                            old: outs[old],
                        })
                        .collect(),
                ),
                (None, None, _) => Save::InPlace(Vec::new()),
            })
            .collect()
    }
}

/// Everything the forward sweep's body saves, by the statement or parameter it comes from.
struct SweepPlan {
    saves: ParamSaves,
    /// The [`Nested`](super::nested::Nested) loops' sweeps, by position in the body.
    inner: HashMap<usize, InnerSweep>,
    /// The kept values' positions in a map's lambda and stacks, by position in the body.
    kept_at: HashMap<usize, (Vec<usize>, Vec<Var>)>,
}

/// The current values of the save parameters in the forward sweep's body, and the position
/// each iteration writes at.
pub(super) struct Writes {
    cur: HashMap<Var, Var>,
    at: Vec<DimIndex>,
}

impl Writes {
    /// The current value of save parameter `sp`.
    pub(super) fn current(&self, sp: Var) -> Var {
        self.cur.get(&sp).copied().unwrap_or(sp)
    }

    /// Makes `x` the current value of save parameter `sp`.
    pub(super) fn set(&mut self, sp: Var, x: Var) {
        self.cur.insert(sp, x);
    }

    /// Writes `value` into save parameter `sp` at this iteration's position.
    pub(super) fn save(&mut self, v: &mut Vjp<'_>, sp: Var, value: SubExp) {
        let u = v.e.basic(
            BasicOp::Update {
                array: self.current(sp),
                slice: self.at.clone(),
                value,
            },
            v.e.names.hint(sp).to_string().as_str(),
        );
        self.cur.insert(sp, u);
    }
}

/// The parameters of a checkpointed loop's return sweep, in this order: the sizes of the
/// arrays that change size (their adjoints change size with them), the adjoints of the loop
/// parameters, of the threaded free variables, then the in-place arrays being restored
/// (starting from a copy of the loop's result).
struct RevParams {
    params: Vec<LoopParam>,
    /// The positions of the loop parameters that are sizes.
    sizes: Vec<usize>,
    /// Per threaded variable: whether its adjoint is an accumulator.
    thread_kinds: Vec<bool>,
    /// The positions of the loop parameters saved in place.
    inplace: Vec<usize>,
}

/// The loop parameters at the start of an iteration of the return sweep, restored for its
/// re-execution.
struct Iterate {
    /// Per loop parameter: its value.
    vars: Vec<Var>,
    /// The counter and the parameters, for the body's re-execution.
    subst: HashMap<Var, Var>,
    /// The restored in-place arrays, which the re-execution may consume.
    consumable: Vec<Var>,
}

/// Per loop parameter: whether it can be saved as [`Save::Initial`] (see [`write_once`]).
fn initial_arrays(
    params: &[LoopParam],
    chains: &[Option<Vec<usize>>],
    i: Var,
    body: &Body,
    i64_counter: bool,
) -> Vec<bool> {
    params
        .iter()
        .zip(chains)
        .enumerate()
        .map(|(j, ((p, init), chain))| {
            i64_counter
                && matches!(init, SubExp::Var(_))
                && chain
                    .as_ref()
                    .is_some_and(|chain| write_once(i, *p, j, chain, body))
        })
        .collect()
}

/// What a loop binds: its parameters, its counter and the body's variables.
fn loop_binders(params: &[LoopParam], i: Var, body: &Body) -> HashSet<Var> {
    let mut inside: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
    inside.insert(i);
    let mut binders = Vec::new();
    body_binders(body, &mut binders);
    inside.extend(binders);
    inside
}

impl Vjp<'_> {
    /// The forward sweep of a `for` loop with checkpoints. `given_n`: its iteration count, already
    /// computed by an enclosing loop's forward sweep that keeps this loop's checkpoints
    /// ([`Nested`](super::nested::Nested)); such a loop nests no further. `slot`: the enclosing
    /// loop's stacks, where the saves go instead of into arrays of this loop's own.
    pub(super) fn checkpoint_loop(
        &mut self,
        s: &Stm,
        given_n: Option<SubExp>,
        slot: Option<Slot>,
    ) -> R<Saved> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("fwd_loop of a non-loop"));
        };
        let LoopForm::For { i, bound } = form else {
            return Err(limitation(s.aux.span, "reverse-mode AD of while loops"));
        };
        if self.carries_acc(params) {
            return Err(limitation(
                s.aux.span,
                "reverse-mode AD of a loop that carries accumulators",
            ));
        }
        let resizing = resizes(params, &self.e.names);
        let bt = self.e.ty(bound).elem();
        let n = match given_n {
            Some(n) => n,
            None => self.iteration_count(bound),
        };
        let chains = if resizing {
            vec![None; params.len()]
        } else {
            update_chains(params, body, &self.e.names)
        };
        // Where each iteration's arrays go in the flat checkpoint buffers, for a loop whose
        // arrays change size.
        let flat_layout = if resizing {
            Some(self.flat_layout(s, n)?)
        } else {
            None
        };
        // Arrays whose initial values the return sweep reads (see `Save::Initial`). Unless an
        // enclosing loop's return sweep computes the initial value again before this loop's
        // (a `Nested` loop, `given_n`), the forward sweep updates a copy of it.
        let initial = initial_arrays(params, &chains, *i, body, bt == PrimType::I64);
        let slot_at = slot.as_ref().map(|sl| sl.at);
        let mut saves = SaveParams {
            params: params.clone(),
            vars: Vec::new(),
            n,
            slot,
        };
        if given_n.is_none() {
            for ((_, init), keep) in saves.params.iter_mut().zip(&initial) {
                if let (true, SubExp::Var(x)) = (keep, *init) {
                    *init = SubExp::Var(self.e.basic(BasicOp::Copy(x), "init"));
                }
            }
        }
        let param_saves = self.plan_saves(&mut saves, params, body, chains, flat_layout, initial);
        let inside = loop_binders(params, *i, body);
        let stripmined = s.aux.attrs.iter().any(|a| a.starts_with("stripmine"));
        let (inner, inner_saved) = if given_n.is_none() && !resizing && !stripmined {
            self.plan_nested(&mut saves, params, body, &inside)?
        } else {
            (HashMap::new(), Vec::new())
        };
        // A `#[stripmine]` loop asks for less memory and keeps computing values again.
        let kept_at = if !resizing && !stripmined {
            self.plan_kept(&mut saves, params, body, &inside)
        } else {
            HashMap::new()
        };
        let mut plan = SweepPlan {
            saves: param_saves,
            inner,
            kept_at,
        };
        let (stms, result) =
            self.nested(|v| v.checkpointed_body(s, slot_at, &mut plan, &saves.vars))?;
        let outs = self.bind_checkpointed(s, form, saves, Body { stms, result });
        let nested = inner_saved
            .into_iter()
            .map(|inner| inner.stacked(&outs))
            .collect();
        let kept = kept_stacks(plan.kept_at, &outs);
        Ok(Saved {
            n,
            saves: plan.saves.into_saves(&outs),
            nested,
            kept,
        })
    }

    /// Chooses how each parameter of loop `s` is saved, making the save parameters: a flat
    /// buffer, nothing (the initial array), the writes of its in-place updates, or `[n]`
    /// checkpoints.
    fn plan_saves(
        &mut self,
        saves: &mut SaveParams,
        params: &[LoopParam],
        body: &Body,
        chains: Vec<Option<Vec<usize>>>,
        flat_layout: Option<Vec<Option<FlatSlot>>>,
        initial: Vec<bool>,
    ) -> ParamSaves {
        let mut full: Vec<Option<Var>> = Vec::new();
        let mut at_update: HashMap<usize, (Vec<Var>, Var)> = HashMap::new();
        let mut layout: Vec<Option<Vec<usize>>> = Vec::new();
        let mut flat: Vec<Option<(Var, FlatSlot)>> = vec![None; params.len()];
        for (j, ((p, _), chain)) in params.iter().zip(&chains).enumerate() {
            if let Some(fl) = &flat_layout
                && let Some(slot) = fl[j]
            {
                let t = self.e.names.ty(*p).clone();
                let bp = saves.fresh(self, &t, "checkpoints", Some(slot.total));
                flat[j] = Some((bp, slot));
                full.push(None);
                layout.push(None);
                continue;
            }
            if initial[j] {
                full.push(None);
                layout.push(None);
                continue;
            }
            match chain {
                None => {
                    let t = self.e.names.ty(*p).clone();
                    full.push(Some(saves.fresh(self, &t, "checkpoints", None)));
                    layout.push(None);
                }
                Some(chain) => {
                    full.push(None);
                    self.plan_update_saves(saves, body, chain, &mut at_update);
                    layout.push(Some(chain.clone()));
                }
            }
        }
        ParamSaves {
            full,
            at_update,
            chains: layout,
            flat,
            initial,
        }
    }

    /// The save parameters of the in-place updates at positions `chain` of the body: per
    /// update, one per index and one for the overwritten value.
    fn plan_update_saves(
        &mut self,
        saves: &mut SaveParams,
        body: &Body,
        chain: &[usize],
        at_update: &mut HashMap<usize, (Vec<Var>, Var)>,
    ) {
        for k in chain {
            let Exp::BasicOp(BasicOp::Update { array, slice, .. }) = &body.stms[*k].exp else {
                continue;
            };
            let idx: Vec<Var> = slice
                .iter()
                .map(|_| saves.fresh(self, &Type::Prim(PrimType::I64), "written_at", None))
                .collect();
            let at = self.e.names.ty(*array).clone();
            let old_t = Type::array(at.elem(), at.dims()[slice.len()..].to_vec());
            let old = saves.fresh(self, &old_t, "overwritten", None);
            at_update.insert(*k, (idx, old));
        }
    }

    /// The body of the forward sweep's loop: the saves at the start of the iteration, then
    /// the body's statements with what they save; returns the body's results followed by the
    /// save parameters' new values.
    fn checkpointed_body(
        &mut self,
        s: &Stm,
        slot_at: Option<SubExp>,
        plan: &mut SweepPlan,
        save_vars: &[Var],
    ) -> R<Vec<SubExp>> {
        let Exp::Loop {
            params,
            form: LoopForm::For { i, bound },
            body,
        } = &s.exp
        else {
            return Err(Diagnostic::bug("checkpointed body of a non-for loop"));
        };
        let bt = self.e.ty(bound).elem();
        let i64i = if bt == PrimType::I64 {
            SubExp::Var(*i)
        } else {
            self.e
                .prim(PrimOp::Conv(bt, PrimType::I64), vec![SubExp::Var(*i)])
        };
        let mut at: Vec<DimIndex> = slot_at.into_iter().map(DimIndex::Fix).collect();
        at.push(DimIndex::Fix(i64i));
        let mut w = Writes {
            cur: HashMap::new(),
            at,
        };
        for ((p, _), f) in params.iter().zip(&plan.saves.full) {
            if let Some(cp) = f {
                w.save(self, *cp, SubExp::Var(*p));
            }
        }
        for ((p, _), fl) in params.iter().zip(&plan.saves.flat) {
            if let Some((bp, slot)) = fl {
                let u = self.save_flat(w.current(*bp), *p, slot, i64i);
                w.set(*bp, u);
            }
        }
        for (k, st) in body.stms.iter().enumerate() {
            self.checkpointed_stm(k, st, i64i, plan, &mut w)?;
        }
        let mut result = body.result.clone();
        for sp in save_vars {
            result.push(SubExp::Var(w.current(*sp)));
        }
        Ok(result)
    }

    /// Statement `k` of the forward sweep's body, with what it saves: a
    /// [`Nested`](super::nested::Nested) loop's forward sweep, the value an in-place update
    /// overwrites, or kept values.
    fn checkpointed_stm(
        &mut self,
        k: usize,
        st: &Stm,
        i64i: SubExp,
        plan: &mut SweepPlan,
        w: &mut Writes,
    ) -> R<()> {
        if let Some(sweep) = plan.inner.remove(&k) {
            return self.inner_sweep(st, sweep, i64i, w);
        }
        if let (Some((idx, old)), Exp::BasicOp(BasicOp::Update { array, slice, .. })) =
            (plan.saves.at_update.get(&k), &st.exp)
        {
            self.e.set_aux(st.aux.clone());
            let o = self.e.index(*array, slice.clone(), "overwritten");
            w.save(self, *old, SubExp::Var(o));
            for (d, sp) in slice.iter().zip(idx) {
                if let DimIndex::Fix(ix) = d {
                    w.save(self, *sp, *ix);
                }
            }
        }
        if let Some((in_lambda, stacks)) = plan.kept_at.get(&k) {
            self.e.set_aux(st.aux.clone());
            let values = self.keep_values(st, in_lambda);
            for (stack, x) in stacks.iter().zip(values) {
                w.save(self, *stack, SubExp::Var(x));
            }
            return Ok(());
        }
        self.push_primal(st)
    }

    /// Emits the forward sweep's loop (loop `s`, of form `form`, with the save parameters and
    /// `body`); returns the loop's result for each save parameter.
    fn bind_checkpointed(
        &mut self,
        s: &Stm,
        form: &LoopForm,
        saves: SaveParams,
        body: Body,
    ) -> HashMap<Var, Var> {
        let mut pat = s.pat.clone();
        let mut outs: HashMap<Var, Var> = HashMap::new();
        for sp in &saves.vars {
            let t = self.e.names.ty(*sp).clone();
            let h = self.e.names.hint(*sp).to_string();
            let v = self.e.fresh(&h, t);
            pat.push(v);
            outs.insert(*sp, v);
        }
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Loop {
                params: saves.params,
                form: form.clone(),
                body,
            },
            aux: s.aux.clone(),
        });
        outs
    }

    /// The return sweep of a loop whose forward sweep [`Vjp::checkpoint_loop`] emitted.
    pub(super) fn rev_checkpointed(
        &mut self,
        s: &Stm,
        saved: Saved,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("rev_loop of a non-loop"));
        };
        let LoopForm::For { i, .. } = form else {
            return Err(limitation(s.aux.span, "reverse-mode AD of while loops"));
        };
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let threaded = self.loop_threaded(&pvars, *i, body);
        let rev = self.rev_params(s, &saved, ybars, &threaded)?;
        let ii = self.e.fresh("i_rev", Type::Prim(PrimType::I64));
        let (stms, result) = self.nested(|v| v.rev_iteration(s, &saved, &rev, &threaded, ii))?;
        let z = rev.sizes.len();
        let pat = self.rev_pattern(&rev.params, z);
        self.e.push(
            pat.clone(),
            Exp::Loop {
                params: rev.params,
                form: LoopForm::For {
                    i: ii,
                    bound: saved.n,
                },
                body: Body { stms, result },
            },
        );
        let k = params.len();
        let out = &pat[z..];
        self.set_threaded_adjs(&threaded, &rev.thread_kinds, &out[k..k + threaded.len()]);
        for ((_, init), a) in params.iter().zip(&out[..k]) {
            // The adjoints have the sizes the return sweep restored, the initial ones.
            let a = match init {
                SubExp::Var(x) if z > 0 => self.coerce_to(SubExp::Var(*a), *x),
                _ => SubExp::Var(*a),
            };
            self.add_adj_se(init, a, true)?;
        }
        Ok(())
    }

    /// The return sweep's loop parameters ([`RevParams`]) and their initial values.
    fn rev_params(
        &mut self,
        s: &Stm,
        saved: &Saved,
        ybars: &[Option<(SubExp, bool)>],
        threaded: &[Var],
    ) -> R<RevParams> {
        let Exp::Loop { params, .. } = &s.exp else {
            return Err(Diagnostic::bug("rev_params of a non-loop"));
        };
        let sizes: Vec<usize> = size_params(params, &self.e.names);
        let mut rparams = Vec::new();
        let mut size_subst: HashMap<Var, Var> = HashMap::new();
        for j in &sizes {
            let p = params[*j].0;
            let h = self.e.names.hint(p).to_string();
            let sp = self.e.fresh(&h, Type::Prim(PrimType::I64));
            size_subst.insert(p, sp);
            rparams.push((sp, SubExp::Var(s.pat[*j])));
        }
        for (((p, _), yb), result) in params.iter().zip(ybars).zip(&s.pat) {
            let mut t = self.e.names.ty(*p).clone();
            map_vars_type(&mut t, &mut |v| size_subst.get(&v).copied().unwrap_or(v));
            let init = match yb {
                Some((se, owned)) if t.rank() > 0 => {
                    let a = self.owned_adj(*result, Some(Adj::Val(*se, *owned)))?;
                    SubExp::Var(a)
                }
                Some((se, _)) => *se,
                // The adjoint of the loop's result, whose sizes are the final ones.
                None => {
                    let rt = self.e.names.ty(*result).clone();
                    self.zero(&rt)
                }
            };
            let h = format!("{}_adj", self.e.names.hint(*p));
            rparams.push((self.e.fresh(&h, t), init));
        }
        let (tparams, thread_kinds) = self.threaded_loop_params(threaded)?;
        rparams.extend(tparams);
        let mut inplace = Vec::new();
        for (j, ((p, _), save)) in params.iter().zip(&saved.saves).enumerate() {
            if let Save::InPlace(_) = save {
                let fin = self.e.basic(BasicOp::Copy(s.pat[j]), "final");
                let t = self.e.names.ty(*p).clone();
                let h = self.e.names.hint(*p).to_string();
                rparams.push((self.e.fresh(&h, t), SubExp::Var(fin)));
                inplace.push(j);
            }
        }
        Ok(RevParams {
            params: rparams,
            sizes,
            thread_kinds,
            inplace,
        })
    }

    /// One iteration of the return sweep, `i = n - 1 - ii`: restores the loop parameters
    /// at the start of iteration `i`, re-executes the body and runs its return sweep; returns
    /// the return-sweep loop's next parameters.
    fn rev_iteration(
        &mut self,
        s: &Stm,
        saved: &Saved,
        rev: &RevParams,
        threaded: &[Var],
        ii: Var,
    ) -> R<Vec<SubExp>> {
        let Exp::Loop { params, body, .. } = &s.exp else {
            return Err(Diagnostic::bug("rev_iteration of a non-loop"));
        };
        let (z, k, nt) = (rev.sizes.len(), params.len(), threaded.len());
        let last = self.e.i64_bin(BinOp::Sub, saved.n, SubExp::i64(1));
        let i64i = self.e.i64_bin(BinOp::Sub, last, SubExp::Var(ii));
        let Iterate {
            vars: pvars,
            subst,
            consumable,
        } = self.restore_iterate(s, saved, rev, i64i)?;
        let saved_adjs = std::mem::take(&mut self.adjs);
        let tvars: Vec<Var> = rev.params[z + k..z + k + nt]
            .iter()
            .map(|(rp, _)| *rp)
            .collect();
        self.set_threaded_adjs(threaded, &rev.thread_kinds, &tvars);
        let res_adjs: Vec<Option<(SubExp, bool)>> = rev.params[z..z + k]
            .iter()
            .map(|(rp, _)| Some((SubExp::Var(*rp), true)))
            .collect();
        self.preset_saved(saved, i64i);
        let saved_consumable =
            std::mem::replace(&mut self.consumable, consumable.iter().copied().collect());
        let res = self.rev_reexec_with(
            &body.stms,
            &body.result,
            &res_adjs,
            subst,
            !rev.sizes.is_empty(),
        );
        self.consumable = saved_consumable;
        let res = res?;
        // The sizes at the start of iteration i, which the adjoints now have.
        let mut out: Vec<SubExp> = rev.sizes.iter().map(|j| SubExp::Var(pvars[*j])).collect();
        for pv in &pvars {
            out.push(self.adj_out(*pv)?);
        }
        for x in threaded {
            out.push(self.adj_out(*x)?);
        }
        self.adjs = saved_adjs;
        // The re-executed iteration rebuilt the array after iteration i: restore it again.
        for j in &rev.inplace {
            let Save::InPlace(writes) = &saved.saves[*j] else {
                continue;
            };
            let SubExp::Var(end) = res[*j] else {
                return Err(Diagnostic::bug("in-place loop result that is a constant"));
            };
            out.push(SubExp::Var(self.restore(end, writes, i64i)));
        }
        Ok(out)
    }

    /// The loop parameters at the start of iteration `i64i`, from what the forward sweep
    /// saved.
    fn restore_iterate(
        &mut self,
        s: &Stm,
        saved: &Saved,
        rev: &RevParams,
        i64i: SubExp,
    ) -> R<Iterate> {
        let Exp::Loop {
            params,
            form: LoopForm::For { i, bound },
            ..
        } = &s.exp
        else {
            return Err(Diagnostic::bug("restore_iterate of a non-for loop"));
        };
        let bt = self.e.ty(bound).elem();
        let (z, k) = (rev.sizes.len(), params.len());
        let nt = rev.thread_kinds.len();
        let iv = if bt == PrimType::I64 {
            match i64i {
                SubExp::Var(x) => x,
                c => self.e.basic(BasicOp::SubExp(c), "i"),
            }
        } else {
            let c = self.e.prim(PrimOp::Conv(PrimType::I64, bt), vec![i64i]);
            self.e.basic(BasicOp::SubExp(c), "i")
        };
        let mut subst = HashMap::new();
        subst.insert(*i, iv);
        let mut pvars = vec![*i; k];
        let mut consumable = Vec::new();
        // The scalars (among them the sizes of iteration i) first, then the arrays saved
        // flat, whose types name those sizes.
        let is_flat = |j: &usize| matches!(saved.saves[*j], Save::Flat { .. });
        let order: Vec<usize> = (0..k)
            .filter(|j| !is_flat(j))
            .chain((0..k).filter(is_flat))
            .collect();
        for j in order {
            let p = &params[j].0;
            let pv = match &saved.saves[j] {
                Save::Full(ck) => self.e.index(
                    *ck,
                    vec![DimIndex::Fix(i64i)],
                    self.e.names.hint(*p).to_string().as_str(),
                ),
                Save::Initial => {
                    let SubExp::Var(init) = params[j].1 else {
                        return Err(Diagnostic::bug("initial array that is a constant"));
                    };
                    let h = self.e.names.hint(*p).to_string();
                    self.e.basic(BasicOp::SubExp(SubExp::Var(init)), &h)
                }
                Save::InPlace(writes) => {
                    let slot = rev.inplace.iter().position(|x| *x == j).unwrap_or(0);
                    let cur = rev.params[z + k + nt + slot].0;
                    let r = self.restore(cur, writes, i64i);
                    consumable.push(r);
                    r
                }
                Save::Flat { buf, offsets } => {
                    // Iteration i's sizes were restored before (see `order`).
                    let mut t = self.e.names.ty(*p).clone();
                    map_vars_type(&mut t, &mut |x| subst.get(&x).copied().unwrap_or(x));
                    self.read_flat(*buf, *offsets, &t, i64i)
                }
            };
            self.active.insert(pv);
            subst.insert(*p, pv);
            pvars[j] = pv;
        }
        Ok(Iterate {
            vars: pvars,
            subst,
            consumable,
        })
    }

    /// Sets up, for the re-execution of iteration `i64i`, what the forward sweep kept for
    /// statements of the body ([`Preset`]): the [`Nested`](super::nested::Nested) loops' results
    /// and saves, and the kept values.
    fn preset_saved(&mut self, saved: &Saved, i64i: SubExp) {
        for nest in &saved.nested {
            let at = vec![DimIndex::Fix(i64i)];
            let vars: Vec<Var> = nest
                .saved
                .vars()
                .iter()
                .map(|x| {
                    let h = self.e.names.hint(*x).to_string();
                    self.e.index(*x, at.clone(), &h)
                })
                .collect();
            let preset = Preset::Loop {
                stacks: nest.results.clone(),
                at: i64i,
                extra: Extra::Loop(nest.saved.with_vars(&mut vars.into_iter())),
            };
            self.preset.insert(nest.pos, preset);
        }
        for kept in &saved.kept {
            let at = vec![DimIndex::Fix(i64i)];
            let rows: Vec<Var> = kept
                .stacks
                .iter()
                .map(|x| self.e.index(*x, at.clone(), "kept"))
                .collect();
            let preset = if kept.in_lambda.is_empty() {
                Preset::Value(rows[0])
            } else {
                Preset::Map(kept.in_lambda.iter().copied().zip(rows).collect())
            };
            self.preset.insert(kept.pos, preset);
        }
    }

    /// The pattern of the return sweep's loop: one fresh variable per parameter, whose types
    /// refer to the loop's own results (the first `z`, the sizes), not to its parameters.
    fn rev_pattern(&mut self, rparams: &[LoopParam], z: usize) -> Vec<Var> {
        let mut pat_subst: HashMap<Var, Var> = HashMap::new();
        let mut pat = Vec::with_capacity(rparams.len());
        for (rp, _) in rparams {
            let mut t = self.e.names.ty(*rp).clone();
            map_vars_type(&mut t, &mut |v| pat_subst.get(&v).copied().unwrap_or(v));
            let h = self.e.names.hint(*rp).to_string();
            let o = self.e.fresh(&h, t);
            if pat.len() < z {
                pat_subst.insert(*rp, o);
            }
            pat.push(o);
        }
        pat
    }
}
