//! Sharing between `if`s on the same condition (pass `if-share`).
//!
//! Reverse mode re-executes a branch in the return sweep: the forward sweep's
//! `if c then {A} else {B}` is followed, later in the same body, by the adjoint's
//! `if c then {A'; ..} else {B'; ..}`, where `A'` recomputes `A`'s operations (a camera's
//! rotation angle, its sine and cosine, per observation of bundle adjustment). CSE cannot see
//! across the two branches.
//!
//! Rule `if-share`: for two `if`s of one body on the same condition variable, a primitive
//! operation in a branch of the later `if` that equals one in the same branch of the earlier
//! `if` (operands compared after identifying the pairs matched before it, so chains such as
//! `sqrt`, then `sin` of it, match) is computed once: the earlier `if` returns it as an extra
//! result (its other branch returns a zero of the type, which nothing reads) and the later one
//! reads that result instead of recomputing it.
//!
//! Takes verified IR; gives verified IR computing the same values: the shared operation ran
//! under the same condition on the same operands, and primitive operations are deterministic
//! (one that fails would have failed in the earlier `if` already, before the later one ran).
//! Only operations whose values the later branch still uses are handed over; the matched
//! statements are removed from it.

use super::Ctx;
use crate::core::builder::{PrimKey, prim_key};
use crate::core::ir::{BasicOp, Body, Exp, Prog, Stm, SubExp, Var};
use crate::core::prim::PrimOp;
use crate::core::scalar::Scalar;
use crate::core::subst::subst_body_and_types;
use crate::core::visit::{stm_free_vars, walk_bodies_mut};
use std::collections::{HashMap, HashSet};

/// Runs the rule on every body of `prog`.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("if-share") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        walk_bodies_mut(&mut f.body, &mut |b| share_body(names, ctx, b));
    }
}

fn cond_var(stm: &Stm) -> Option<Var> {
    match &stm.exp {
        Exp::If {
            cond: SubExp::Var(c),
            ..
        } => Some(*c),
        _ => None,
    }
}

fn share_body(names: &mut crate::core::ir::NameTable, ctx: &mut Ctx, body: &mut Body) {
    for later in 0..body.stms.len() {
        let Some(c) = cond_var(&body.stms[later]) else {
            continue;
        };
        // Every earlier `if` on the condition, nearest first: an operation a nearer one took
        // over from a farther one is found in the farther one.
        for earlier in (0..later).rev() {
            if cond_var(&body.stms[earlier]) != Some(c) {
                continue;
            }
            let (head, tail) = body.stms.split_at_mut(later);
            let (s1, s2) = (&mut head[earlier], &mut tail[0]);
            for then_branch in [true, false] {
                if share_branch(names, s1, s2, then_branch) {
                    ctx.fire("if-share");
                }
            }
        }
    }
}

/// The operation of a statement that binds one primitive operation's result.
fn prim_of(stm: &Stm) -> Option<(PrimOp, &[SubExp], Var)> {
    match (&stm.exp, stm.pat.as_slice()) {
        (Exp::BasicOp(BasicOp::Prim(op, args)), [v]) => Some((*op, args, *v)),
        _ => None,
    }
}

/// The `then` or `else` branch of an `if` statement.
fn branch(s: &Stm, then_branch: bool) -> Option<&Body> {
    match &s.exp {
        Exp::If {
            then_body,
            else_body,
            ..
        } => Some(if then_branch { then_body } else { else_body }),
        _ => None,
    }
}

/// Shares the operations of one branch (`then` or `else`) of `s2` that `s1`'s same branch
/// computes; returns whether it shared any.
fn share_branch(
    names: &mut crate::core::ir::NameTable,
    s1: &mut Stm,
    s2: &mut Stm,
    then_branch: bool,
) -> bool {
    let (Some(b1), Some(b2)) = (branch(s1, then_branch), branch(s2, then_branch)) else {
        return false;
    };
    let available: HashMap<PrimKey, Var> = b1
        .stms
        .iter()
        .filter_map(prim_of)
        .map(|(op, args, v)| (prim_key(op, args), v))
        .collect();
    if available.is_empty() {
        return false;
    }
    // Later-branch variables identified with earlier-branch ones, in statement order.
    let mut same: HashMap<Var, Var> = HashMap::new();
    for st in &b2.stms {
        let Some((op, args, v)) = prim_of(st) else {
            continue;
        };
        let args: Vec<SubExp> = args
            .iter()
            .map(|a| match a {
                SubExp::Var(x) => SubExp::Var(*same.get(x).unwrap_or(x)),
                c => *c,
            })
            .collect();
        if let Some(v1) = available.get(&prim_key(op, &args)) {
            same.insert(v, *v1);
        }
    }
    if same.is_empty() {
        return false;
    }
    // What the rest of the later branch still reads of the matched values.
    let mut read: HashSet<Var> = HashSet::new();
    for st in b2
        .stms
        .iter()
        .filter(|st| !st.pat.iter().any(|p| same.contains_key(p)))
    {
        read.extend(
            stm_free_vars(st)
                .into_iter()
                .filter(|v| same.contains_key(v)),
        );
    }
    for r in &b2.result {
        if let SubExp::Var(v) = r
            && same.contains_key(v)
        {
            read.insert(*v);
        }
    }
    // Hand each over as a new result of the earlier `if`, in a fixed order.
    let mut handed: Vec<Var> = read.into_iter().collect();
    handed.sort_by_key(|v| v.0);
    let mut subst: HashMap<Var, SubExp> = HashMap::new();
    let Exp::If {
        then_body: t1,
        else_body: e1,
        ret: ret1,
        ..
    } = &mut s1.exp
    else {
        return false;
    };
    for v2 in &handed {
        let v1 = same[v2];
        // A primitive operation's result: a scalar, whose zero the other branch returns.
        let ty = names.ty(v1).clone();
        let zero = Scalar::zero(ty.elem());
        let hint = names.hint(v1).to_string();
        let r = names.fresh(&hint, ty.clone());
        let (mine, other) = if then_branch {
            (&mut *t1, &mut *e1)
        } else {
            (&mut *e1, &mut *t1)
        };
        mine.result.push(SubExp::Var(v1));
        other.result.push(SubExp::Const(zero));
        ret1.push(ty);
        s1.pat.push(r);
        subst.insert(*v2, SubExp::Var(r));
    }
    let Exp::If {
        then_body: t2,
        else_body: e2,
        ..
    } = &mut s2.exp
    else {
        return false;
    };
    let b2 = if then_branch { t2 } else { e2 };
    b2.stms
        .retain(|st| !st.pat.iter().any(|p| same.contains_key(p)));
    // What the branch binds may have the handed-over values among its sizes.
    subst_body_and_types(names, b2, &subst);
    true
}
