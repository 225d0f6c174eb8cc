//! Loop-invariant code motion (pass `hoist`): statements of a SOAC lambda or a loop body that
//! read nothing bound inside it move out, before the SOAC or loop, so they run once instead of
//! once per element or iteration. Nested scopes are done first, so a statement can travel
//! out of several levels in one run.
//!
//! Rule `hoist`. Only statements that can neither fail nor have an effect
//! ([`crate::core::safety::is_safe`], with range facts of the enclosing scopes) move, since the lambda
//! may run zero times; out of a `map` of constant positive width or a `for` loop of constant
//! positive trip count (a `jmp`'s map over its seeds), a statement that may fail moves too
//! (assertions included) when nothing before it in the body may fail first, since the first
//! run would report its error: statements that cannot fail, and reads that fail only where
//! an earlier statement failed ([`crate::core::safety::fails_only_after_earlier`], forward
//! mode's reads of tangents), do not count. Statements that consume or bind accumulators
//! never move; nothing moves out of `if` branches or `with_acc`. A `map`, `redomap`, `for`
//! loop or `if` that is not invariant as a whole may be split by [`super::mapfission`] and
//! [`super::loopsplit`] (pass `map-fission`) into an invariant part, which then moves, and
//! the rest.
//!
//! Takes verified IR, gives verified IR.

use super::Ctx;
use crate::core::ir::{BasicOp, Body, Exp, LoopForm, NameTable, Prog, Soac, Stm, Type, Var};
use crate::core::safety::{Ranges, fails_only_after_earlier, is_safe};
use crate::core::visit::{free_in_exp, type_vars};
use std::collections::HashSet;

/// Runs code motion on every function.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("hoist") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        body(names, ctx, &mut f.body, &Ranges::default());
    }
}

/// Processes the bodies nested in `b`'s statements; hoisted statements are placed before the
/// statement they left.
fn body(names: &mut NameTable, ctx: &mut Ctx, b: &mut Body, ranges: &Ranges) {
    let mut ranges = ranges.clone();
    let stms = std::mem::take(&mut b.stms);
    let mut out = Vec::with_capacity(stms.len());
    for mut stm in stms {
        let hoisted = nested(names, ctx, &mut stm, &ranges);
        for h in hoisted {
            ranges.note_iota(&h);
            out.push(h);
        }
        ranges.note_iota(&stm);
        out.push(stm);
    }
    b.stms = out;
}

/// Cleans the nested bodies of `stm` and returns the statements that leave it.
fn nested(names: &mut NameTable, ctx: &mut Ctx, stm: &mut Stm, ranges: &Ranges) -> Vec<Stm> {
    match &mut stm.exp {
        Exp::BasicOp(_) | Exp::Apply { .. } | Exp::Ad { .. } => vec![],
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            body(names, ctx, then_body, ranges);
            body(names, ctx, else_body, ranges);
            vec![]
        }
        Exp::WithAcc { lam, .. } => {
            body(names, ctx, &mut lam.body, ranges);
            vec![]
        }
        Exp::Loop {
            params,
            form,
            body: lb,
        } => {
            let mut inner = ranges.clone();
            let mut local: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
            match form {
                LoopForm::For { i, bound } => {
                    local.insert(*i);
                    if names.ty(*i) == &Type::Prim(crate::core::scalar::PrimType::I64) {
                        inner.insert(*i, 0, *bound);
                    }
                }
                LoopForm::While { cond } => {
                    local.insert(*cond);
                }
            }
            body(names, ctx, lb, &inner);
            let once = matches!(form, LoopForm::For { bound, .. } if positive(bound));
            extract(names, ctx, lb, local, ranges, once)
        }
        Exp::Soac(soac) => {
            let mut inner = ranges.clone();
            if let Soac::Map { lam: f, arrays, .. } | Soac::Screma { map: f, arrays, .. } = soac {
                let (ps, arrs) = (f.params.clone(), arrays.clone());
                inner.from_inputs(&ps, &arrs);
            }
            let once = matches!(soac, Soac::Map { w, .. } if positive(w));
            let mut moved = Vec::new();
            for lam in soac.lambdas_mut() {
                body(names, ctx, &mut lam.body, &inner);
                let local: HashSet<Var> = lam.params.iter().copied().collect();
                moved.extend(extract(names, ctx, &mut lam.body, local, ranges, once));
            }
            moved
        }
    }
}

/// `stm` split into statements reading nothing in `local` and the rest, and the rule's name;
/// `before` holds the statements kept before `stm`.
fn split(
    names: &mut NameTable,
    stm: &Stm,
    local: &HashSet<Var>,
    before: &[Stm],
) -> Option<(Vec<Stm>, Stm, &'static str)> {
    use super::loopsplit::{split_loop_invariant, split_loop_materialise};
    use super::mapfission::{split_if_invariant, split_invariant, split_redomap_invariant};
    let one = |r: Option<(Stm, Stm)>, rule| r.map(|(a, b)| (vec![a], b, rule));
    match stm.exp {
        Exp::If { .. } => one(split_if_invariant(names, stm, local), "if-split-invariant"),
        Exp::Soac(Soac::Map { .. }) => {
            one(split_invariant(names, stm, local), "map-split-invariant")
        }
        Exp::Loop { .. } => one(
            split_loop_invariant(names, stm, local),
            "loop-split-invariant",
        )
        .or_else(|| {
            split_loop_materialise(names, stm, local, before)
                .map(|(a, b)| (a, b, "loop-split-materialise"))
        }),
        Exp::Soac(Soac::Screma { .. }) => one(
            split_redomap_invariant(names, stm, local),
            "redomap-split-invariant",
        ),
        _ => None,
    }
}

/// A width or trip count known to be positive: the body runs at least once.
fn positive(se: &crate::core::ir::SubExp) -> bool {
    matches!(se, crate::core::ir::SubExp::Const(c) if c.as_i64().is_some_and(|n| n > 0))
}

/// Whether `stm` reads nothing in `local` and can run where it would run more often. A
/// statement that may fail moves only out of a body known to run at least once
/// (`first_fails`), and only when nothing before it in the body may fail: then its error is
/// the one the first run of the body would have reported.
fn movable(
    names: &NameTable,
    stm: &Stm,
    local: &HashSet<Var>,
    consumed: &HashSet<Var>,
    ranges: &Ranges,
    first_fails: bool,
) -> bool {
    let free = free_in_exp(names, &stm.exp);
    // An assertion binds nothing; it moves only where its first check would have run.
    let assertion = matches!(stm.exp, Exp::BasicOp(BasicOp::Assert { .. }));
    free.is_disjoint(local)
        && (!stm.pat.is_empty() || (assertion && first_fails))
        && stm.pat.iter().all(|v| {
            !matches!(names.ty(*v), Type::Acc { .. })
                && !consumed.contains(v)
                && type_vars(names.ty(*v)).iter().all(|d| !local.contains(d))
        })
        && (first_fails || is_safe(&stm.exp, ranges, names))
}

/// Takes the invariant statements out of `b`, whose own binders are `local`.
fn extract(
    names: &mut NameTable,
    ctx: &mut Ctx,
    b: &mut Body,
    mut local: HashSet<Var>,
    outer: &Ranges,
    runs_once: bool,
) -> Vec<Stm> {
    let mut out = Vec::new();
    let mut kept = Vec::with_capacity(b.stms.len());
    let mut ranges = outer.clone();
    let mut consumed = HashSet::new();
    crate::core::visit::consumed_in_body(b, &mut consumed);
    // Whether nothing kept so far can fail before a moved statement would; only asked, and
    // so only computed, for a body known to run at least once.
    let mut kept_safe = runs_once;
    for stm in std::mem::take(&mut b.stms) {
        let first_fails = kept_safe;
        if movable(names, &stm, &local, &consumed, &ranges, first_fails) {
            ctx.fire("hoist");
            ranges.note_iota(&stm);
            out.push(stm);
            continue;
        }
        if ctx.on("map-fission")
            && let Some((inv, rest, rule)) = split(names, &stm, &local, &kept)
            && inv
                .iter()
                .all(|s| movable(names, s, &local, &consumed, &ranges, first_fails))
        {
            ctx.fire(rule);
            ctx.fire("hoist");
            out.extend(inv);
            local.extend(rest.pat.iter().copied());
            kept_safe = kept_safe && fails_only_after_earlier(&rest, &ranges, names);
            kept.push(rest);
            continue;
        }
        local.extend(stm.pat.iter().copied());
        kept_safe = kept_safe && fails_only_after_earlier(&stm, &ranges, names);
        kept.push(stm);
    }
    b.stms = kept;
    out
}
