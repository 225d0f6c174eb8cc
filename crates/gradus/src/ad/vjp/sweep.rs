//! The driver of reverse mode: the forward and return sweeps of a scope, the re-execution of
//! a nested scope, and the return sweep that branches.
//!
//! **Takes** a scope's statements (a body, or a renamed copy of a nested one) and the
//! adjoints of its results. **Does**: the forward sweep emits the statements and records
//! each on the tape with what it saved ([`Vjp::fwd_scope`]); the return sweep walks the tape
//! backwards and hands each statement to its rule ([`Vjp::rev_stm`]). A nested scope is
//! re-executed on a copy with fresh names right before its return sweep
//! ([`Vjp::rev_reexec`]).
//!
//! **Guarantees**: a statement that consumes an array some other statement of the scope
//! needs in the return sweep (or, in a re-execution, an array bound outside the scope)
//! consumes a copy instead, so every value the return sweep reads is intact.

use super::{Adj, Diagnostic, Entry, Extra, R, Vjp, limitation, soac};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, Exp, Soac, Stm, SubExp, Type, Var};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::core::subst::rename_in_stm;
use crate::core::visit::{stm_consumed_vars, stm_free_vars};
use std::collections::{HashMap, HashSet};

/// What the statements of a scope need in the return sweep, which decides the consumed
/// arrays the forward sweep copies.
struct ScopeNeeds {
    /// Per statement: the primal values its return sweep reads. The free variables of
    /// statements with bodies (they are re-executed or their rules read their inputs), and
    /// loop results (restored from in the return sweep). Basic operations need no primal
    /// arrays.
    needs: Vec<HashSet<Var>>,
    /// What the scope binds.
    bound: HashSet<Var>,
    /// The scope is a re-execution (a copy of a nested body): it must not consume anything
    /// bound outside it.
    reexec: bool,
}

impl ScopeNeeds {
    fn new(stms: &[Stm], reexec: bool) -> Self {
        let mut needs: Vec<HashSet<Var>> = Vec::with_capacity(stms.len());
        let mut bound = HashSet::new();
        for s in stms {
            bound.extend(s.pat.iter().copied());
            let mut n = HashSet::new();
            if !matches!(s.exp, Exp::BasicOp(_)) {
                n.extend(stm_free_vars(s));
            }
            if matches!(s.exp, Exp::Loop { .. }) {
                n.extend(s.pat.iter().copied());
            }
            needs.push(n);
        }
        ScopeNeeds {
            needs,
            bound,
            reexec,
        }
    }

    /// Whether statement `k` must consume a copy of `x` rather than `x` itself: another
    /// statement needs `x` in the return sweep, or a re-executed scope would consume what it
    /// does not own (`consumable` lists the exceptions).
    fn must_copy(&self, k: usize, x: Var, consumable: &HashSet<Var>) -> bool {
        let needed = self
            .needs
            .iter()
            .enumerate()
            .any(|(j, n)| j != k && n.contains(&x));
        needed || (self.reexec && !self.bound.contains(&x) && !consumable.contains(&x))
    }
}

impl Vjp<'_> {
    /// The forward sweep of a scope. `reexec`: the scope is a re-execution (a copy of a
    /// nested body), so it must not consume anything bound outside it.
    pub(super) fn fwd_scope(&mut self, stms: &[Stm], reexec: bool) -> R<Vec<Entry>> {
        let needs = ScopeNeeds::new(stms, reexec);
        let mut preset = std::mem::take(&mut self.preset);
        let consumed_here: HashSet<Var> = if preset.is_empty() {
            HashSet::new()
        } else {
            stms.iter().flat_map(stm_consumed_vars).collect()
        };
        let mut tape = Vec::new();
        for (k, s0) in stms.iter().enumerate() {
            self.e.set_aux(s0.aux.clone());
            if let Some(p) = preset.remove(&k) {
                // What the enclosing loop's forward sweep kept: emitted from there, and on
                // the tape as it was.
                let extra = self.fwd_preset(s0, p, &consumed_here);
                let active = stm_free_vars(s0).iter().any(|v| self.active.contains(v));
                let extra = if active {
                    self.active.extend(s0.pat.iter().copied());
                    extra
                } else {
                    Extra::None
                };
                tape.push(Entry {
                    stm: s0.clone(),
                    extra,
                });
                continue;
            }
            let (s, tape_s) = self.copy_consumed(s0, k, &needs, &mut tape);
            let entry = self.fwd_entry(s, tape_s)?;
            tape.push(entry);
        }
        Ok(tape)
    }

    /// Statement `k` of a scope, made to consume copies of the arrays it must not consume
    /// ([`ScopeNeeds::must_copy`]); the copies go on the tape. Also returns the statement the
    /// tape records for it when that differs: the return sweep of an active `if`
    /// re-executes a branch, which reads what the branches consume, so the forward sweep's
    /// `if` consumes copies and the one on the tape the originals.
    fn copy_consumed(
        &mut self,
        s0: &Stm,
        k: usize,
        needs: &ScopeNeeds,
        tape: &mut Vec<Entry>,
    ) -> (Stm, Option<Stm>) {
        let mut s = s0.clone();
        let reexecuted_if = matches!(s0.exp, Exp::If { .. })
            && stm_free_vars(s0).iter().any(|v| self.active.contains(v));
        let mut tape_s = None;
        for x in stm_consumed_vars(&s) {
            if !(reexecuted_if || needs.must_copy(k, x, &self.consumable)) {
                continue;
            }
            let t = self.e.names.ty(x).clone();
            if matches!(t, Type::Acc { .. }) {
                continue;
            }
            let h = format!("{}_copy", self.e.names.hint(x));
            let c = self.e.fresh(&h, t);
            let copy = Stm {
                pat: vec![c],
                exp: Exp::BasicOp(BasicOp::Copy(x)),
                aux: s.aux.clone(),
            };
            self.e.add_stm(copy.clone());
            if self.active.contains(&x) {
                self.active.insert(c);
            }
            tape.push(Entry {
                stm: copy,
                extra: Extra::None,
            });
            if reexecuted_if && tape_s.is_none() {
                tape_s = Some(s0.clone());
            }
            rename_in_stm(&mut s, x, c);
        }
        (s, tape_s)
    }

    /// Emits statement `s` of the forward sweep (its primal part, or its forward sweep if it
    /// is active) and returns its tape entry, which records `tape_s` if given.
    fn fwd_entry(&mut self, mut s: Stm, tape_s: Option<Stm>) -> R<Entry> {
        if matches!(s.exp, Exp::Loop { .. }) && self.touches_virtual(&s) {
            // Checkpointed like any loop, without the accumulators it passes on.
            s = self.drop_acc_params(&s);
        }
        let active = stm_free_vars(&s).iter().any(|v| self.active.contains(v));
        if self.touches_virtual(&s) && !matches!(s.exp, Exp::Loop { .. }) {
            // Only the primal part runs; the return sweep sees the whole statement.
            if let Some(stripped) = self.strip_virtual(&s)? {
                self.e.add_stm(stripped);
            }
            if active {
                self.active.extend(s.pat.iter().copied());
            }
            return Ok(Entry {
                stm: tape_s.unwrap_or(s),
                extra: Extra::None,
            });
        }
        if active {
            s = self.lower_loop(s)?;
        }
        let extra = if active {
            self.active.extend(s.pat.iter().copied());
            self.fwd_stm(&s)?
        } else {
            self.push_primal(&s)?;
            Extra::None
        };
        Ok(Entry {
            stm: tape_s.unwrap_or(s),
            extra,
        })
    }

    /// The forward sweep of one active statement.
    pub(super) fn fwd_stm(&mut self, s: &Stm) -> R<Extra> {
        match &s.exp {
            Exp::Loop { .. } => self.fwd_loop(s),
            Exp::Soac(Soac::Hist { dests, lam, .. }) if soac::hist_needs_bins(lam) => {
                // The bins' original values decide which contribution wins (min, max) or
                // enter the product; the hist consumes them, so keep a copy.
                let copies = dests
                    .iter()
                    .map(|d| self.e.basic(BasicOp::Copy(*d), "bins"))
                    .collect();
                self.e.add_stm(s.clone());
                Ok(Extra::Copies(copies))
            }
            Exp::Apply { .. } => Err(limitation(
                s.aux.span,
                "reverse-mode AD of function calls (functions are inlined before AD)",
            )),
            Exp::Ad { mode, .. } if mode.is_custom() => {
                self.fwd_custom(s)?;
                Ok(Extra::None)
            }
            _ => {
                self.push_primal(s)?;
                Ok(Extra::None)
            }
        }
    }

    /// The return sweep of a scope.
    pub(super) fn rev_scope(&mut self, tape: Vec<Entry>) -> R<()> {
        for entry in tape.into_iter().rev() {
            self.e.set_aux(entry.stm.aux.clone());
            self.rev_stm(entry)?;
        }
        Ok(())
    }

    /// The return sweep of one statement of the tape: the adjoints of its results, taken,
    /// go to the rule of its kind.
    pub(super) fn rev_stm(&mut self, entry: Entry) -> R<()> {
        let s = &entry.stm;
        let ybars: Vec<Option<Adj>> = s.pat.iter().map(|v| self.adjs.remove(v)).collect();
        if (ybars.iter().all(Option::is_none) && !self.touches_virtual(s))
            || !s.pat.iter().any(|v| self.active.contains(v))
        {
            return Ok(());
        }
        let mut vals = Vec::new();
        for a in ybars {
            vals.push(match a {
                None => None,
                Some(Adj::Val(se, owned)) => Some((se, owned)),
                Some(Adj::Acc(_)) => {
                    return Err(limitation(
                        s.aux.span,
                        "reverse-mode AD of code that uses accumulators",
                    ));
                }
            });
        }
        match &s.exp {
            Exp::BasicOp(BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            }) => self.rev_update_acc(*acc, indices, values),
            Exp::WithAcc { inputs, lam } => self.rev_with_acc(s, inputs, lam, &vals),
            Exp::Ad { mode, .. } if mode.is_custom() => self.rev_custom(s, &vals),
            Exp::Ad { mode, .. } => Err(Diagnostic::bug(format!(
                "vjp reached an unexpanded {} (the AD pass expands innermost first)",
                mode.name()
            ))),
            Exp::BasicOp(op) => self.rev_basic(s, op, &vals),
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => self.rev_if(s, *cond, then_body, else_body, &vals),
            Exp::Loop { .. } => self.rev_loop(s, entry.extra, &vals),
            Exp::Soac(soac) => self.rev_soac(s, soac, entry.extra, &vals),
            Exp::Apply { .. } => Err(limitation(s.aux.span, "reverse-mode AD of this statement")),
        }
    }

    /// A copy of `stms` and `result` with fresh names for everything they bind, and `subst`
    /// applied to their free variables.
    pub(super) fn rename(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        mut subst: HashMap<Var, Var>,
    ) -> (Vec<Stm>, Vec<SubExp>) {
        let mut body = Body {
            stms: stms.to_vec(),
            result: result.to_vec(),
        };
        let mut binders = Vec::new();
        body_binders(&body, &mut binders);
        for b in &binders {
            let t = self.e.names.ty(*b).clone();
            let h = self.e.names.hint(*b).to_string();
            let nb = self.e.fresh(&h, t);
            subst.insert(*b, nb);
        }
        for b in &binders {
            let nb = subst[b];
            let mut t = self.e.names.ty(nb).clone();
            map_vars_type(&mut t, &mut |v| subst.get(&v).copied().unwrap_or(v));
            self.e.names.set_ty(nb, t);
        }
        map_vars_body(&mut body, &mut |v| subst.get(&v).copied().unwrap_or(v));
        (body.stms, body.result)
    }

    /// Re-executes `stms` (renamed with `subst`) and runs their return sweep with `res_adjs`
    /// as the adjoints of `result`. The caller has set up the adjoints of free variables;
    /// returns the renamed results.
    pub(super) fn rev_reexec(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        res_adjs: &[Option<(SubExp, bool)>],
        subst: HashMap<Var, Var>,
    ) -> R<Vec<SubExp>> {
        self.rev_reexec_with(stms, result, res_adjs, subst, false)
    }

    /// [`Self::rev_reexec`]; with `coerce`, an array adjoint whose type names other sizes
    /// than its result's (equal at run time: the sizes a loop's return sweep carries) is
    /// first coerced to the result's shape.
    pub(super) fn rev_reexec_with(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        res_adjs: &[Option<(SubExp, bool)>],
        subst: HashMap<Var, Var>,
        coerce: bool,
    ) -> R<Vec<SubExp>> {
        let (stms, result) = self.rename(stms, result, subst);
        let tape = self.fwd_scope(&stms, true)?;
        self.consumable.clear();
        let aux = self.e.aux().clone();
        for (r, a) in result.iter().zip(res_adjs) {
            if let (SubExp::Var(r), Some((a, owned))) = (r, a) {
                let a = if coerce { self.coerce_to(*a, *r) } else { *a };
                self.add_adj(*r, a, *owned)?;
            }
        }
        self.rev_scope(tape)?;
        self.e.set_aux(aux);
        Ok(result)
    }

    /// The active free variables of a statement, except accumulators.
    pub(super) fn active_free(&self, s: &Stm) -> Vec<Var> {
        stm_free_vars(s)
            .into_iter()
            .filter(|v| self.active.contains(v) && !matches!(self.e.names.ty(*v), Type::Acc { .. }))
            .collect()
    }

    /// The return sweep of an `if`: each branch re-executed and swept backwards
    /// ([`Vjp::branch_adjoints`]).
    pub(super) fn rev_if(
        &mut self,
        s: &Stm,
        cond: SubExp,
        then_body: &Body,
        else_body: &Body,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        // Pattern adjoints are shared by both branches: neither may update them in place.
        let ybars: Vec<Option<(SubExp, bool)>> =
            ybars.iter().map(|y| y.map(|(se, _)| (se, false))).collect();
        self.branch_adjoints(s, cond, |v, then| {
            let b = if then { then_body } else { else_body };
            v.rev_reexec(&b.stms, &b.result, &ybars, HashMap::new())
                .map(|_| ())
        })
    }

    /// A return sweep that branches on `cond`: `sweep(v, true)` emits the then-branch's and
    /// `sweep(v, false)` the else-branch's, each starting from the current adjoints of the
    /// statement's active free variables; the `if` returns their updated adjoints, which
    /// become the adjoints after it.
    pub(super) fn branch_adjoints(
        &mut self,
        s: &Stm,
        cond: SubExp,
        sweep: impl FnMut(&mut Self, bool) -> R<()>,
    ) -> R<()> {
        self.branch_adjoints_marked(s, cond, None, sweep)
    }

    /// [`Vjp::branch_adjoints`], the `if` carrying attribute `attr` as well.
    pub(super) fn branch_adjoints_marked(
        &mut self,
        s: &Stm,
        cond: SubExp,
        attr: Option<&str>,
        mut sweep: impl FnMut(&mut Self, bool) -> R<()>,
    ) -> R<()> {
        let threaded = self.active_free(s);
        let inits: Vec<Option<Adj>> = threaded.iter().map(|x| self.adjs.remove(x)).collect();
        let mut bodies = Vec::new();
        let mut ret = Vec::new();
        for then in [true, false] {
            let (stms, result) = self.nested(|v| {
                let saved = std::mem::take(&mut v.adjs);
                for (x, a) in threaded.iter().zip(&inits) {
                    if let Some(a) = a {
                        v.adjs.insert(*x, *a);
                    }
                }
                sweep(v, then)?;
                let mut out = Vec::new();
                for x in &threaded {
                    out.push(v.adj_out(*x)?);
                }
                if ret.is_empty() {
                    ret = threaded.iter().map(|x| v.adj_type(*x)).collect();
                }
                v.adjs = saved;
                Ok(out)
            })?;
            bodies.push(Body { stms, result });
        }
        let else_b = bodies.pop().unwrap_or_default();
        let then_b = bodies.pop().unwrap_or_default();
        let pat: Vec<Var> = threaded
            .iter()
            .zip(&ret)
            .map(|(x, t)| {
                let h = format!("{}_adj", self.e.names.hint(*x));
                self.e.fresh(&h, t.clone())
            })
            .collect();
        self.e.add_stm(Stm {
            pat: pat.clone(),
            exp: Exp::If {
                cond,
                then_body: then_b,
                else_body: else_b,
                ret: ret.clone(),
            },
            aux: {
                let mut aux = s.aux.clone();
                aux.attrs.extend(attr.map(str::to_string));
                aux
            },
        });
        for ((x, p), t) in threaded.iter().zip(pat).zip(&ret) {
            let a = if matches!(t, Type::Acc { .. }) {
                Adj::Acc(p)
            } else {
                Adj::Val(SubExp::Var(p), true)
            };
            self.adjs.insert(*x, a);
        }
        Ok(())
    }
}
