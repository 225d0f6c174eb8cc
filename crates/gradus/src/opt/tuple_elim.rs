//! Tuple and projection elimination (pass `tuple-elim`): core IR has no tuples, so a tuple
//! the source built becomes several results of one statement; this pass removes the results
//! nobody reads.
//!
//! Rules (each also removes what computed the result, through dead-code elimination of the
//! nested body):
//! * `map-dead-result`, `map-dead-input` (an input whose lambda parameter is unused);
//! * `reduce-dead-component`, `scan-dead-component`: components that no live component reads;
//! * `if-dead-result`: results that no size of another result mentions;
//! * `loop-dead-param`: parameters that no live parameter reads (and not the `while`
//!   condition).
//!
//! Takes verified IR and the set of live variables after the statement; gives verified IR.

use super::Ctx;
use crate::core::ir::{BasicOp, Exp, LoopForm, NameTable, Soac, Stm, SubExp, Type, Var};
use crate::core::subst::deps_in;
use crate::core::visit::{free_in_body, free_in_exp, type_vars};
use std::collections::HashSet;

/// Removes the results of `stm` that are not live (before its nested bodies are cleaned).
pub fn prune_results(names: &NameTable, ctx: &mut Ctx, stm: &mut Stm, live: &HashSet<Var>) {
    // Removing parameters leaves statements that read them, which only `dce` removes.
    let params_ok = ctx.on("dce");
    let is_live = |v: &Var| live.contains(v);
    match &mut stm.exp {
        Exp::Soac(Soac::Map { lam, .. }) => {
            let keep: Vec<bool> = stm
                .pat
                .iter()
                .map(|v| is_live(v) || matches!(names.ty(*v), Type::Acc { .. }))
                .collect();
            if keep.iter().all(|k| *k) || !keep.iter().any(|k| *k) {
                return;
            }
            ctx.fire("map-dead-result");
            filter(&mut stm.pat, &keep);
            filter(&mut lam.body.result, &keep);
            filter(&mut lam.ret, &keep);
        }
        Exp::Soac(Soac::Reduce {
            lam,
            neutral,
            arrays,
            ..
        })
        | Exp::Soac(Soac::Scan {
            lam,
            neutral,
            arrays,
            ..
        }) => {
            let k = neutral.len();
            if !params_ok || lam.params.len() != 2 * k || stm.pat.len() != k {
                return;
            }
            let params: HashSet<Var> = lam.params.iter().copied().collect();
            let mut keep: Vec<bool> = stm.pat.iter().map(is_live).collect();
            loop {
                let mut changed = false;
                for c in 0..k {
                    if !keep[c] {
                        continue;
                    }
                    for d in deps_in(names, &lam.body, &lam.body.result[c], &params) {
                        if let Some(i) = lam.params.iter().position(|p| *p == d)
                            && !keep[i % k]
                        {
                            keep[i % k] = true;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            if keep.iter().all(|k| *k) || !keep.iter().any(|k| *k) {
                return;
            }
            ctx.fire("reduce-dead-component");
            let mut pkeep = keep.clone();
            pkeep.extend(keep.iter().copied());
            filter(&mut stm.pat, &keep);
            filter(&mut lam.body.result, &keep);
            filter(&mut lam.ret, &keep);
            filter(&mut lam.params, &pkeep);
            filter(neutral, &keep);
            filter(arrays, &keep);
        }
        Exp::If {
            then_body,
            else_body,
            ret,
            ..
        } => {
            let mut mentioned = HashSet::new();
            for v in &stm.pat {
                mentioned.extend(type_vars(names.ty(*v)));
            }
            for t in ret.iter() {
                mentioned.extend(type_vars(t));
            }
            let keep: Vec<bool> = stm
                .pat
                .iter()
                .map(|v| is_live(v) || mentioned.contains(v))
                .collect();
            if keep.iter().all(|k| *k) || !keep.iter().any(|k| *k) {
                return;
            }
            ctx.fire("if-dead-result");
            filter(&mut stm.pat, &keep);
            filter(&mut then_body.result, &keep);
            filter(&mut else_body.result, &keep);
            filter(ret, &keep);
        }
        Exp::Loop { params, form, body } if params_ok => {
            let pvars: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
            let mut keep: Vec<bool> = stm
                .pat
                .iter()
                .zip(params.iter())
                .map(|(v, (p, _))| {
                    is_live(v) || matches!(form, LoopForm::While { cond } if cond == p)
                })
                .collect();
            // An assertion stays whatever the results: the parameters it reads (directly or
            // through what computes its operands) stay too.
            for s in body.stms.iter().filter(|s| has_assert(&s.exp)) {
                for v in free_in_exp(names, &s.exp) {
                    for d in deps_in(names, body, &SubExp::Var(v), &pvars) {
                        if let Some(i) = params.iter().position(|(p, _)| *p == d) {
                            keep[i] = true;
                        }
                    }
                }
            }
            loop {
                let mut changed = false;
                for c in 0..params.len() {
                    if !keep[c] {
                        continue;
                    }
                    let mut ds = deps_in(names, body, &body.result[c], &pvars);
                    ds.extend(type_vars(names.ty(params[c].0)));
                    ds.extend(type_vars(names.ty(stm.pat[c])));
                    for d in ds {
                        let hit = params
                            .iter()
                            .position(|(p, _)| *p == d)
                            .or_else(|| stm.pat.iter().position(|v| *v == d));
                        if let Some(i) = hit
                            && !keep[i]
                        {
                            keep[i] = true;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            // A loop whose body uses a dead parameter elsewhere (a statement reading it that
            // feeds nothing live) is cleaned by the body's own dead-code elimination.
            if keep.iter().all(|k| *k) || !keep.iter().any(|k| *k) {
                return;
            }
            ctx.fire("loop-dead-param");
            filter(&mut stm.pat, &keep);
            filter(params, &keep);
            filter(&mut body.result, &keep);
        }
        _ => {}
    }
}

/// Whether an expression is or contains an assertion.
fn has_assert(exp: &Exp) -> bool {
    matches!(exp, Exp::BasicOp(BasicOp::Assert { .. }))
        || exp
            .bodies()
            .iter()
            .any(|b| b.stms.iter().any(|s| has_assert(&s.exp)))
}

/// After the nested bodies were cleaned: removes the inputs of a `map` whose parameters the
/// lambda no longer reads. Returns whether the statement is still well formed (a loop whose
/// body still reads a removed parameter would not be).
pub fn prune_inputs(names: &NameTable, ctx: &mut Ctx, stm: &mut Stm) {
    if let Exp::Soac(Soac::Map { lam, arrays, .. }) = &mut stm.exp {
        let used = free_in_body(names, &lam.body);
        let keep: Vec<bool> = lam
            .params
            .iter()
            .zip(arrays.iter())
            .map(|(p, a)| used.contains(p) || matches!(names.ty(*a), Type::Acc { .. }))
            .collect();
        if keep.iter().all(|k| *k) || !keep.iter().any(|k| *k) {
            return;
        }
        ctx.fire("map-dead-input");
        filter(&mut lam.params, &keep);
        filter(arrays, &keep);
    }
}

fn filter<T>(xs: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    xs.retain(|_| {
        let k = keep.get(i).copied().unwrap_or(true);
        i += 1;
        k
    });
}

/// Whether `se` is a variable in `set`.
pub fn mentions(se: &SubExp, set: &HashSet<Var>) -> bool {
    se.as_var().is_some_and(|v| set.contains(&v))
}
