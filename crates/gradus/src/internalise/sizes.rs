//! Sizes of lambda results computed inside the lambda (pass of internalisation): lambdas of
//! SOACs and of the AD operators.
//!
//! A lambda whose result has a size the lambda computes itself from outer values (for
//! example `flatten` of an `[n][3]` array inside a `map`: the result has `n * 3` elements)
//! would otherwise name that size in its result type, where it is not in scope. The
//! statements computing such sizes read nothing bound in the lambda, cannot fail, and are
//! moved in front of the SOAC, so the result type only names variables in scope.
//!
//! Takes the internalised program; gives the same program with those statements moved.

use crate::core::ir::{BasicOp, Body, Exp, Prog, Stm, Var};
use crate::core::safety::prim_can_fail;
use crate::core::visit::{exp_binders, free_in_exp, type_vars, walk_bodies_mut};
use std::collections::HashSet;

/// Moves the size computations out of every lambda of `prog` whose result type needs them.
pub fn hoist_result_sizes(prog: &mut Prog) {
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        walk_bodies_mut(&mut f.body, &mut |b| {
            let stms = std::mem::take(&mut b.stms);
            let mut out = Vec::with_capacity(stms.len());
            for mut stm in stms {
                let lambdas = match &mut stm.exp {
                    Exp::Soac(soac) => soac.lambdas_mut(),
                    Exp::Ad { lam, .. } => vec![lam],
                    _ => vec![],
                };
                for lam in lambdas {
                    let wanted: HashSet<Var> = lam.ret.iter().flat_map(type_vars).collect();
                    let moved = take_sizes(names, &mut lam.body, &lam.params, &wanted);
                    out.extend(moved);
                }
                out.push(stm);
            }
            b.stms = out;
        });
    }
}

/// Removes from `body` the statements computing `wanted` (and what they need), when they
/// read nothing bound in the lambda and cannot fail; returns them in order.
fn take_sizes(
    names: &crate::core::ir::NameTable,
    body: &mut Body,
    params: &[Var],
    wanted: &HashSet<Var>,
) -> Vec<Stm> {
    // What the lambda binds: its parameters, its patterns, and the existential sizes of its
    // `jvp` and `vjp` statements, which are bound inside them and in scope after them.
    let bound: HashSet<Var> = body
        .stms
        .iter()
        .flat_map(|s| {
            let mut vs: Vec<Var> = s.pat.clone();
            if let Exp::Ad { .. } = &s.exp {
                vs.extend(exp_binders(&s.exp));
            }
            vs
        })
        .chain(params.iter().copied())
        .collect();
    let mut need: HashSet<Var> = wanted
        .iter()
        .copied()
        .filter(|v| bound.contains(v))
        .collect();
    if need.is_empty() {
        return vec![];
    }
    // Backwards: the statements the wanted sizes depend on.
    let mut take = vec![false; body.stms.len()];
    for (k, s) in body.stms.iter().enumerate().rev() {
        if s.pat.iter().any(|v| need.contains(v)) {
            let pure = match &s.exp {
                Exp::BasicOp(BasicOp::Prim(op, _)) => !prim_can_fail(*op),
                Exp::BasicOp(BasicOp::SubExp(_)) => true,
                _ => false,
            };
            if !pure || params.iter().any(|p| s.pat.contains(p)) {
                return vec![];
            }
            take[k] = true;
            need.extend(free_in_exp(names, &s.exp));
        }
    }
    if need.iter().any(|v| params.contains(v)) {
        return vec![];
    }
    // Everything moved must read only outer values or other moved statements.
    let moved_vars: HashSet<Var> = body
        .stms
        .iter()
        .zip(&take)
        .filter(|(_, t)| **t)
        .flat_map(|(s, _)| s.pat.iter().copied())
        .collect();
    let ok = body
        .stms
        .iter()
        .zip(&take)
        .filter(|(_, t)| **t)
        .all(|(s, _)| {
            free_in_exp(names, &s.exp)
                .iter()
                .all(|v| !bound.contains(v) || moved_vars.contains(v))
        });
    if !ok {
        return vec![];
    }
    let mut moved = Vec::new();
    let mut kept = Vec::new();
    for (s, t) in std::mem::take(&mut body.stms).into_iter().zip(take) {
        if t { moved.push(s) } else { kept.push(s) }
    }
    body.stms = kept;
    moved
}
