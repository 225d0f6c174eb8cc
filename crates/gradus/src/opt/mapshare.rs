//! Sharing between `map`s over the same rows (pass `map-share`).
//!
//! Reverse mode re-executes a `map`'s lambda in the return sweep (`ad/vjp/map.rs`): the
//! forward sweep's `ys = map f xs` is followed, later in the same body, by the adjoint's
//! `map (\x ybar -> f x; f's return sweep) xs ybars`, which recomputes `f`'s work per row. In
//! a nested scope (GMM's clusters, inside the return sweep of the map over points) the earlier
//! `map` is itself a re-execution, so each row's triangular matrix-vector product is computed
//! there and again in the adjoint map. CSE cannot see across the two lambdas.
//!
//! Rule `map-share`: for two `map`s of one body over the same width, a top-level statement of
//! the later lambda that equals one of the earlier lambda (up to renaming of what it binds;
//! operands compared after identifying the lambdas' parameters that take rows of the same
//! array, and the pairs matched before it) is computed once when it is worth storing: the
//! earlier `map` returns its value per row as an extra result (a residual, as a tape would
//! keep it), and the later `map` takes the rows of that result as an extra input instead of
//! recomputing it.
//!
//! Worth storing: a `loop`, a reduction, a SOAC whose lambda itself iterates (more work than
//! values), or a transcendental function (an LSTM cell's `exp` and `tanh`), whose type's sizes are bound outside the earlier `map`, of rank no higher than the
//! highest-ranked row the earlier `map` reads, so that the residual costs at most a constant
//! factor of the memory of the earlier `map`'s inputs. Cheap element-wise statements are
//! matched (so that statements built on them match) but recomputed.
//!
//! Takes verified IR; gives verified IR computing the same values: the shared statement ran on
//! the same row values and the same free variables, at the top level of the earlier lambda,
//! for every row, and it has no effects (assertions, updates, accumulators, calls and
//! consumers are never shared, nor are values either lambda consumes).

use super::Ctx;
use super::cse::alpha_key;
use crate::core::ir::{BasicOp, Body, Exp, NameTable, Prog, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp, UnOp};
use crate::core::renumber::map_vars_body;
use crate::core::subst::subst_body;
use crate::core::visit::{consumed_in_body, exp_binders, type_vars, walk_bodies_mut};
use std::collections::{HashMap, HashSet};

/// Runs the rule on every body of `prog`.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("map-share") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        walk_bodies_mut(&mut f.body, &mut |b| share_body(names, ctx, b));
    }
}

fn map_width(stm: &Stm) -> Option<SubExp> {
    match &stm.exp {
        Exp::Soac(Soac::Map { w, .. }) => Some(*w),
        _ => None,
    }
}

fn share_body(names: &mut NameTable, ctx: &mut Ctx, body: &mut Body) {
    for later in 0..body.stms.len() {
        let Some(w) = map_width(&body.stms[later]) else {
            continue;
        };
        for earlier in (0..later).rev() {
            if map_width(&body.stms[earlier]) != Some(w) {
                continue;
            }
            let (head, tail) = body.stms.split_at_mut(later);
            if share_maps(names, &mut head[earlier], &mut tail[0]) {
                ctx.fire("map-share");
            }
        }
    }
}

/// Whether a statement may be computed in one lambda and read in another: no effects, no
/// consumption, no accumulators.
fn shareable(names: &NameTable, stm: &Stm) -> bool {
    if stm.pat.is_empty()
        || stm
            .pat
            .iter()
            .any(|v| matches!(names.ty(*v), Type::Acc { .. }))
    {
        return false;
    }
    match &stm.exp {
        Exp::BasicOp(
            BasicOp::Update { .. }
            | BasicOp::UpdateAcc { .. }
            | BasicOp::Scratch { .. }
            | BasicOp::Assert { .. },
        )
        | Exp::Apply { .. }
        | Exp::WithAcc { .. }
        | Exp::Ad { .. } => false,
        Exp::BasicOp(_) => true,
        Exp::If { .. } | Exp::Loop { .. } | Exp::Soac(_) => {
            let mut consumed = HashSet::new();
            consumed_in_body(
                &Body {
                    stms: vec![stm.clone()],
                    result: vec![],
                },
                &mut consumed,
            );
            consumed.is_empty()
        }
    }
}

/// Whether a statement does more work than the values it produces: a loop, a reduction, a
/// SOAC whose lambda iterates, or a transcendental function (tens of cycles, against a store
/// and a load of its value).
fn worth_storing(stm: &Stm) -> bool {
    let iterates = |b: &Body| {
        b.stms
            .iter()
            .any(|s| matches!(s.exp, Exp::Loop { .. } | Exp::Soac(_)))
    };
    match &stm.exp {
        Exp::Loop { .. } => true,
        Exp::Soac(Soac::Map { lam, .. }) => iterates(&lam.body),
        Exp::Soac(_) => true,
        Exp::BasicOp(BasicOp::Prim(op, _)) => transcendental(*op),
        _ => false,
    }
}

fn transcendental(op: PrimOp) -> bool {
    use UnOp::*;
    match op {
        PrimOp::Un(u, _) => matches!(
            u,
            Cbrt | Exp
                | Log
                | Log2
                | Log10
                | Log1p
                | Sin
                | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Sinpi
                | Cospi
                | Tanpi
                | Asinpi
                | Acospi
                | Atanpi
                | Sinh
                | Cosh
                | Tanh
                | Asinh
                | Acosh
                | Atanh
                | Gamma
                | Lgamma
                | Erf
                | Erfc
        ),
        PrimOp::Bin(BinOp::Pow, t) => t.is_float(),
        _ => false,
    }
}

/// Shares the statements of the later map's lambda that the earlier one computes; returns
/// whether it shared any.
fn share_maps(names: &mut NameTable, s1: &mut Stm, s2: &mut Stm) -> bool {
    let (
        Exp::Soac(Soac::Map {
            lam: l1,
            arrays: a1,
            ..
        }),
        Exp::Soac(Soac::Map {
            lam: l2,
            arrays: a2,
            ..
        }),
    ) = (&s1.exp, &s2.exp)
    else {
        return false;
    };
    // Later-lambda variables identified with earlier-lambda ones: first the parameters that
    // take rows of the same array, then matched statements, in order.
    let mut same: HashMap<Var, Var> = HashMap::new();
    for (p2, x2) in l2.params.iter().zip(a2) {
        if let Some(k) = a1.iter().position(|x1| x1 == x2)
            && !matches!(names.ty(*p2), Type::Acc { .. })
        {
            same.insert(*p2, l1.params[k]);
        }
    }
    if same.is_empty() {
        return false;
    }
    let available: HashMap<String, &Stm> = l1
        .body
        .stms
        .iter()
        .filter(|st| shareable(names, st))
        .map(|st| (alpha_key(names, st), st))
        .collect();
    let mut matched: Vec<(usize, &Stm)> = Vec::new();
    for (i, st2) in l2.body.stms.iter().enumerate() {
        if !shareable(names, st2) {
            continue;
        }
        let mut renamed = Body {
            stms: vec![st2.clone()],
            result: vec![],
        };
        let inner = exp_binders(&st2.exp);
        map_vars_body(&mut renamed, &mut |v| {
            if inner.contains(&v) {
                v
            } else {
                *same.get(&v).unwrap_or(&v)
            }
        });
        if let Some(st1) = available.get(&alpha_key(names, &renamed.stms[0]))
            && st1.pat.len() == st2.pat.len()
        {
            for (v2, v1) in st2.pat.iter().zip(&st1.pat) {
                same.insert(*v2, *v1);
            }
            matched.push((i, st1));
        }
    }
    // What is handed over: matched statements worth storing whose values fit the bound.
    let bound_in_l1: HashSet<Var> = {
        let mut b = Vec::new();
        crate::core::renumber::body_binders(&l1.body, &mut b);
        b.into_iter().chain(l1.params.iter().copied()).collect()
    };
    let max_rank = l1
        .params
        .iter()
        .map(|p| names.ty(*p).rank())
        .max()
        .unwrap_or(0);
    let mut consumed1 = HashSet::new();
    consumed_in_body(&l1.body, &mut consumed1);
    let mut consumed2 = HashSet::new();
    consumed_in_body(&l2.body, &mut consumed2);
    let fits = |v: Var| {
        let t = names.ty(v);
        t.rank() <= max_rank
            && !matches!(t, Type::Acc { .. })
            && type_vars(t).iter().all(|d| !bound_in_l1.contains(d))
    };
    let handed: Vec<(usize, Vec<(Var, Var)>)> = matched
        .iter()
        .filter(|(i, st1)| {
            let st2 = &l2.body.stms[*i];
            worth_storing(st1)
                && st2.pat.iter().all(|v| !consumed2.contains(v))
                && st1.pat.iter().all(|v| fits(*v) && !consumed1.contains(v))
        })
        .map(|(i, st1)| {
            let st2 = &l2.body.stms[*i];
            (*i, st2.pat.iter().copied().zip(st1.pat.clone()).collect())
        })
        .collect();
    if handed.is_empty() {
        return false;
    }
    // The earlier map returns each handed value as an extra result; the later one takes its
    // rows as an extra input.
    let Exp::Soac(Soac::Map { w: w1, lam: l1, .. }) = &mut s1.exp else {
        return false;
    };
    let w = *w1;
    let mut extra: Vec<(Var, Var)> = Vec::new();
    for (_, pairs) in &handed {
        for (v2, v1) in pairs {
            // A value the earlier map returns already is read from that result.
            if let Some(k) = l1.body.result.iter().position(|r| *r == SubExp::Var(*v1)) {
                extra.push((*v2, s1.pat[k]));
                continue;
            }
            let ty = names.ty(*v1).clone();
            let hint = names.hint(*v1).to_string();
            let residual = names.fresh(&hint, ty.array_of(w));
            l1.body.result.push(SubExp::Var(*v1));
            l1.ret.push(ty);
            s1.pat.push(residual);
            extra.push((*v2, residual));
        }
    }
    let Exp::Soac(Soac::Map {
        lam: l2,
        arrays: a2,
        ..
    }) = &mut s2.exp
    else {
        return false;
    };
    let removed: HashSet<usize> = handed.iter().map(|(i, _)| *i).collect();
    let mut subst: HashMap<Var, SubExp> = HashMap::new();
    for (v2, residual) in extra {
        let ty = names.ty(v2).clone();
        let hint = names.hint(v2).to_string();
        let p = names.fresh(&hint, ty);
        l2.params.push(p);
        a2.push(residual);
        subst.insert(v2, SubExp::Var(p));
    }
    let mut k = 0;
    l2.body.stms.retain(|_| {
        k += 1;
        !removed.contains(&(k - 1))
    });
    subst_body(&mut l2.body, &subst);
    true
}
