//! Reverse computing: recovering a loop's previous iterate with the inverse of its update
//! instead of a checkpoint.
//!
//! **Takes** a `for` loop whose loop-carried values are all scalars. **Finds** a *plan*: an
//! order in which the values at the start of an iteration (the *pre* values) can be computed
//! from the values after it (the *post* values, the body's results), the loop index and the
//! variables bound outside the loop. Each step solves one body result for one loop parameter,
//! or two results for two parameters, where the result is an affine function of the unknown
//! parameters whose coefficients do not depend on them:
//!
//! * `x' = α·x + γ` (`x + e`, `x - e`, `e - x`, `x * e`, `x / e`, `-x`, any nesting of these):
//!   `x = (x' - γ) / α`;
//! * `(x', y') = M·(x, y) + g` with a 2×2 matrix `M` (a rotation `(c·a − s·b, s·a + c·b)`, a
//!   shear): `(x, y) = M⁻¹·((x', y') − g)` by Cramer's rule;
//!
//! The coefficients `α`, `γ`, `M`, `g` may use the post values of every parameter and the pre
//! values of parameters solved in an earlier step, so triangular chains invert in reverse
//! order: symplectic Euler `x' = x + h·v; v' = v − h·x'` first gives `v = v' + h·x'`, then
//! `x = x' − h·v`. A parameter that is the result of another (`(a, b) -> (b, ..)`) is solved
//! from it with `α = 1`. When no step applies, the parameters no equation could solve even with
//! all others known are checkpointed (or, in a cycle such as `(y + z², z − sin y)`, the first
//! unsolved one), and the search goes on with their checkpointed values known.
//!
//! **Guarantees**, with `checkpoint.rs`: the forward sweep allocates no `[n]` checkpoint array
//! for a solved parameter; the return sweep carries the current iterate and recomputes the
//! statements of the body the coefficients need (at most one more execution of the body per
//! iteration).
//!
//! # Exactness
//!
//! Integer updates are solved only with `α = ±1` (`x + e`, `x - e`, `e - x`), which wrap-around
//! arithmetic inverts exactly. Floating-point inversion is exact only up to rounding: `(x + e) -
//! e` may differ from `x` by an ulp of `max(|x|, |e|)` per iteration, and the error of a long
//! loop can grow with the number of iterations (more for ill-conditioned matrices). The
//! recovered iterates, not the adjoints' formulas, carry that error; the gradient of a
//! well-conditioned loop stays accurate to a few ulps times the iteration count.
//!
//! A float update is not invertible when a coefficient `α` (or the determinant of `M`) is zero
//! or not finite, or when an iterate overflows. The forward sweep therefore computes, per
//! iteration, a flag `ok &&= 0 < |α| < ∞` (the determinant for a pair; nothing for `α = ±1`),
//! and after the loop `ok && |x| < ∞` for every solved float `x` (an iterate that overflows or
//! turns NaN stays non-finite: each update scales it by a checked factor and adds to it); a
//! sum whose value nothing else reads (`acc + x·y`, a dot product) is left out, since no
//! adjoint depends on its iterates (`unread_sums`). If
//! the flag is false, the return sweep falls back to re-running the loop with full
//! checkpoints and differentiating that (so a zero factor costs one more forward run and the
//! usual checkpoint memory, and the gradient is the checkpointed one). Loops whose solved
//! parameters are all integers need no flag. The per-iteration flag also requires `α·x` to
//! stay normal (or `x` to be zero): a product that underflows to zero or into subnormals
//! (`x · 1e-300`) loses the iterate its inverse needs, so such a run takes the checkpointed
//! path too.
//!
//! `#[checkpoint]` on a loop turns reverse computing off for it (checkpoints as before,
//! bit-for-bit the same iterates as the forward sweep).
//!
//! The plan is found in `plan.rs`; the checks and inverse updates are emitted by
//! `recover.rs`; the sweeps are here.

mod plan;
mod recover;

use super::super::{Diagnostic, Extra, R, Vjp};
use super::LoopParam;
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, LoopForm, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use plan::{Plan, plan};
use std::collections::HashMap;

/// What the forward sweep of a reverse-computed loop saved.
pub(in crate::ad::vjp) struct Saved {
    /// The number of iterations, as a non-negative `i64`.
    n: SubExp,
    plan: Plan,
    /// Per loop parameter: its `[n]` checkpoints, for the parameters the plan does not solve.
    ck: Vec<Option<Var>>,
    /// The invertibility flag after the loop (when some solved parameter is a float).
    ok: Option<Var>,
}

impl Vjp<'_> {
    /// The forward sweep of a `for` loop, if reverse computing applies to it: all carried
    /// values are scalars, the loop is not marked `#[checkpoint]`, and the plan solves at least
    /// one of them.
    pub(super) fn rc_fwd_loop(&mut self, s: &Stm) -> R<Option<Extra>> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Ok(None);
        };
        let LoopForm::For { i, bound } = form else {
            return Ok(None);
        };
        if s.aux.attrs.iter().any(|a| a == "checkpoint") {
            return Ok(None);
        }
        // A body that updates virtual accumulators (see `accs.rs`) is checkpointed instead.
        if body.stms.iter().any(|st| self.touches_virtual(st)) {
            return Ok(None);
        }
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        if pvars.iter().any(|p| self.e.names.ty(*p).rank() != 0) {
            return Ok(None);
        }
        let Some(plan) = plan(&self.e.names, &pvars, *i, body) else {
            return Ok(None);
        };
        let bt = self.e.ty(bound).elem();
        let n64 = if bt == PrimType::I64 {
            *bound
        } else {
            self.e.prim(PrimOp::Conv(bt, PrimType::I64), vec![*bound])
        };
        let n = self.e.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![n64, SubExp::i64(0)],
        );
        let (new_params, ck_params) = self.rc_checkpoint_params(params, &plan, n);
        let ok = plan
            .needs_loop_flag(&pvars, &self.e.names)
            .then(|| self.e.fresh("invertible", Type::Prim(PrimType::Bool)));
        let mut new_params = new_params;
        if let Some(ok) = ok {
            new_params.push((ok, SubExp::Const(Scalar::Bool(true))));
        }
        let (stms, result) = self.nested(|v| v.rc_fwd_body(s, &plan, &ck_params, ok))?;
        let mut pat = s.pat.clone();
        let mut ck = Vec::new();
        for cp in &ck_params {
            ck.push(cp.map(|cp| {
                let t = self.e.names.ty(cp).clone();
                let v = self.e.fresh("checkpoints", t);
                pat.push(v);
                v
            }));
        }
        let ok_out = ok.map(|_| {
            let v = self.e.fresh("invertible", Type::Prim(PrimType::Bool));
            pat.push(v);
            v
        });
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Loop {
                params: new_params,
                form: form.clone(),
                body: Body { stms, result },
            },
            aux: s.aux.clone(),
        });
        let ok_out = self.rc_final_flag(s, &plan, ok_out);
        Ok(Some(Extra::RevComp(Saved {
            n,
            plan,
            ck,
            ok: ok_out,
        })))
    }

    /// The forward sweep's loop parameters: `params`, then one `[n]` checkpoint array per
    /// parameter the plan does not solve (also returned per parameter).
    fn rc_checkpoint_params(
        &mut self,
        params: &[LoopParam],
        plan: &Plan,
        n: SubExp,
    ) -> (Vec<LoopParam>, Vec<Option<Var>>) {
        let mut new_params = params.to_vec();
        let mut ck_params: Vec<Option<Var>> = Vec::new();
        for (j, (p, _)) in params.iter().enumerate() {
            if plan.solved[j] {
                ck_params.push(None);
                continue;
            }
            let elem = self.e.names.ty(*p).elem();
            let scratch = self.e.basic(
                BasicOp::Scratch {
                    elem,
                    shape: vec![n],
                },
                "checkpoints",
            );
            let st = self.e.names.ty(scratch).clone();
            let cp = self.e.fresh("checkpoints", st);
            new_params.push((cp, SubExp::Var(scratch)));
            ck_params.push(Some(cp));
        }
        (new_params, ck_params)
    }

    /// The body of the forward sweep's loop: the checkpoints of the unsolved parameters, the
    /// body, and the invertibility flag `ok` updated with this iteration's check.
    fn rc_fwd_body(
        &mut self,
        s: &Stm,
        plan: &Plan,
        ck_params: &[Option<Var>],
        ok: Option<Var>,
    ) -> R<Vec<SubExp>> {
        let Exp::Loop {
            params,
            form: LoopForm::For { i, bound },
            body,
        } = &s.exp
        else {
            return Err(Diagnostic::bug("rc_fwd_body of a non-for loop"));
        };
        let bt = self.e.ty(bound).elem();
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let i64i = if bt == PrimType::I64 {
            SubExp::Var(*i)
        } else {
            self.e
                .prim(PrimOp::Conv(bt, PrimType::I64), vec![SubExp::Var(*i)])
        };
        let mut saves = Vec::new();
        for (p, cp) in pvars.iter().zip(ck_params) {
            if let Some(cp) = cp {
                let u = self.e.basic(
                    BasicOp::Update {
                        array: *cp,
                        slice: vec![DimIndex::Fix(i64i)],
                        value: SubExp::Var(*p),
                    },
                    "checkpoints",
                );
                saves.push(SubExp::Var(u));
            }
        }
        self.e.add_stms(body.stms.iter().cloned());
        let mut result = body.result.clone();
        result.extend(saves);
        if let Some(ok) = ok {
            let g = self.rc_guard(&plan.steps, &pvars);
            let all = self.e.prim(
                PrimOp::Bin(BinOp::And, PrimType::Bool),
                vec![SubExp::Var(ok), g],
            );
            result.push(all);
        }
        Ok(result)
    }

    /// The invertibility flag after loop `s`: the loop's flag `ok` (if it has one) and the
    /// finiteness of every solved float that is read.
    fn rc_final_flag(&mut self, s: &Stm, plan: &Plan, ok: Option<Var>) -> Option<Var> {
        let Exp::Loop { params, .. } = &s.exp else {
            return None;
        };
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        // A solved float that overflows (or turns NaN) stays non-finite to the end: each
        // update multiplies it by a finite non-zero factor (checked) and adds something. So
        // checking the final iterate covers every iteration.
        if !plan.needs_flag(&pvars, &self.e.names) {
            return None;
        }
        let mut g = ok.map(SubExp::Var);
        for (j, p) in pvars.iter().enumerate() {
            let ty = self.e.names.ty(*p).elem();
            if plan.solved[j] && ty.is_float() && !plan.unread[j] {
                let f = self.finite(SubExp::Var(s.pat[j]), ty);
                g = self.and(g, f);
            }
        }
        g.map(|g| self.e.basic(BasicOp::SubExp(g), "invertible"))
    }

    /// The return sweep of a loop whose forward sweep [`Vjp::rc_fwd_loop`] emitted: reverse
    /// computing when the flag says every inversion was valid, otherwise the loop run again
    /// with checkpoints and differentiated as usual.
    pub(super) fn rc_rev_loop(
        &mut self,
        s: &Stm,
        saved: Saved,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Some(ok) = saved.ok else {
            return self.rc_rev_inner(s, &saved, ybars);
        };
        // Both branches read the results' adjoints: neither may update them in place.
        let ybars: Vec<Option<(SubExp, bool)>> =
            ybars.iter().map(|y| y.map(|(se, _)| (se, false))).collect();
        // The checkpointed else branch is right whatever the flag says.
        let fallback = Some(crate::core::ir::ATTR_FALLBACK);
        self.branch_adjoints_marked(s, SubExp::Var(ok), fallback, |v, invertible| {
            if invertible {
                return v.rc_rev_inner(s, &saved, &ybars);
            }
            let (mut stms, _) = v.rename(std::slice::from_ref(s), &[], HashMap::new());
            let mut s2 = stms
                .pop()
                .ok_or_else(|| Diagnostic::bug("renaming a loop gave no statement"))?;
            s2.aux.attrs.push("checkpoint".to_string());
            let extra = v.fwd_loop(&s2)?;
            v.rev_loop(&s2, extra, &ybars)
        })
    }

    /// The reverse-computing return sweep: a loop over `i = n-1 .. 0` carrying the adjoints of
    /// the loop parameters and of the body's active free variables, and the iterate after
    /// iteration `i` (the loop's results at first). Each iteration recovers the iterate before
    /// iteration `i` (checkpoints for unsolved parameters, the plan for the others),
    /// re-executes the body and runs its return sweep.
    fn rc_rev_inner(&mut self, s: &Stm, saved: &Saved, ybars: &[Option<(SubExp, bool)>]) -> R<()> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("rc_rev_inner of a non-loop"));
        };
        let LoopForm::For { i, bound } = form else {
            return Err(Diagnostic::bug("rc_rev_inner of a while loop"));
        };
        let bt = self.e.ty(bound).elem();
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let threaded = self.loop_threaded(&pvars, *i, body);
        let mut rparams = Vec::new();
        for (p, yb) in pvars.iter().zip(ybars) {
            let t = self.e.names.ty(*p).clone();
            let init = match yb {
                Some((se, _)) => *se,
                None => self.zero(&t),
            };
            let h = format!("{}_adj", self.e.names.hint(*p));
            rparams.push((self.e.fresh(&h, t), init));
        }
        let (tparams, thread_kinds) = self.threaded_loop_params(&threaded)?;
        rparams.extend(tparams);
        let k = pvars.len();
        let nt = threaded.len();
        for (j, p) in pvars.iter().enumerate() {
            let t = self.e.names.ty(*p).clone();
            let h = self.e.names.hint(*p).to_string();
            rparams.push((self.e.fresh(&h, t), SubExp::Var(s.pat[j])));
        }
        let posts: Vec<Var> = rparams[k + nt..].iter().map(|(v, _)| *v).collect();
        let ii = self.e.fresh("i_rev", Type::Prim(PrimType::I64));
        let (stms, result) = self.nested(|v| {
            let last = v.e.i64_bin(BinOp::Sub, saved.n, SubExp::i64(1));
            let i64i = v.e.i64_bin(BinOp::Sub, last, SubExp::Var(ii));
            let iv = if bt == PrimType::I64 {
                v.e.as_var(i64i, "i")
            } else {
                let c = v.e.prim(PrimOp::Conv(PrimType::I64, bt), vec![i64i]);
                v.e.as_var(c, "i")
            };
            let mut pre: Vec<Option<Var>> = Vec::new();
            for (p, ck) in pvars.iter().zip(&saved.ck) {
                pre.push(ck.map(|ck| {
                    v.e.index(
                        ck,
                        vec![DimIndex::Fix(i64i)],
                        v.e.names.hint(*p).to_string().as_str(),
                    )
                }));
            }
            v.rc_recover(&saved.plan, &pvars, body, *i, iv, &posts, &mut pre)?;
            let mut subst = HashMap::new();
            subst.insert(*i, iv);
            let mut prev = Vec::new();
            for (p, pv) in pvars.iter().zip(&pre) {
                let pv =
                    pv.ok_or_else(|| Diagnostic::bug("an iterate neither saved nor solved"))?;
                v.active.insert(pv);
                subst.insert(*p, pv);
                prev.push(pv);
            }
            let outer = std::mem::take(&mut v.adjs);
            let tvars: Vec<Var> = rparams[k..k + nt].iter().map(|(rp, _)| *rp).collect();
            v.set_threaded_adjs(&threaded, &thread_kinds, &tvars);
            let res_adjs: Vec<Option<(SubExp, bool)>> = rparams[..k]
                .iter()
                .map(|(rp, _)| Some((SubExp::Var(*rp), true)))
                .collect();
            let outer_consumable = std::mem::take(&mut v.consumable);
            let res = v.rev_reexec(&body.stms, &body.result, &res_adjs, subst);
            v.consumable = outer_consumable;
            res?;
            let mut out = Vec::new();
            for pv in &prev {
                out.push(v.adj_out(*pv)?);
            }
            for x in &threaded {
                out.push(v.adj_out(*x)?);
            }
            v.adjs = outer;
            out.extend(prev.iter().map(|pv| SubExp::Var(*pv)));
            Ok(out)
        })?;
        let out = self.e.bind_exp(
            Exp::Loop {
                params: rparams,
                form: LoopForm::For {
                    i: ii,
                    bound: saved.n,
                },
                body: Body { stms, result },
            },
            "loop_adj",
        );
        self.set_threaded_adjs(&threaded, &thread_kinds, &out[k..k + nt]);
        for ((_, init), a) in params.iter().zip(&out[..k]) {
            self.add_adj_se(init, SubExp::Var(*a), true)?;
        }
        Ok(())
    }
}
