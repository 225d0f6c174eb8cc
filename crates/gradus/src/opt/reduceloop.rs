//! Sums of array rows inside a lambda become loops (pass `reduce-loop`).
//!
//! Forward mode's vector form gives `f64.sum (map f xs)` over `k` directions the tangent
//! `reduce(w, map2 (+), zeros, rows)`, where a `map` makes one `[k]` row of lanes per
//! element. The backends compile a map fused into its reduction only where the map returns
//! scalars, so inside a lambda (HAND's skinning: a sum over bones per vertex and coordinate)
//! the `w` rows were stored and then added up by a second loop. Rule `reduce-loop` rewrites,
//! inside a SOAC's lambda,
//!
//! ```text
//! let (as, rows) = map(w, f, xs)          -- as and rows used by nothing else
//! let s = reduce(w, +, 0, as)
//! let t = reduce(w, map2 (+), zeros, rows)
//! ```
//!
//! when a reduced result of the map is an array, into
//!
//! ```text
//! let (s, t) = loop (s' = 0, t' = zeros) for i < w do
//!   let (a, row) = f(xs[i]) in (s' + a, map2 (+) t' row)
//! ```
//!
//! after which vertical fusion computes each row's elements inside the addition
//! (`map2 (+) t' (map g ..)` is one map), so no row is stored. Every reduction's operator is
//! applied to the same values in the same order as the sequential reduction's. Only inside
//! lambdas: there the reduction runs sequentially anyway, the enclosing SOAC being the
//! parallel loop (a top-level sum of rows is the pre-lowering pass `row-sums`'s). A map or
//! operator that consumes an array, and statements between the map and its last reduction
//! that consume one or read a reduction's result, leave the group alone.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use crate::core::ir::{
    BasicOp, Body, DimIndex, Exp, LoopForm, NameTable, Prog, Soac, Stm, SubExp, Type, Var,
};
use crate::core::safety::IN_BOUNDS;
use crate::core::scalar::PrimType;
use crate::core::subst::substitute_lambda as apply;
use crate::core::visit::{consumed_in_stm, free_in_exp, use_counts};
use std::collections::{HashMap, HashSet};

/// Runs the pass on every body nested in a SOAC's lambda.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("reduce-loop") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        walk(names, ctx, &mut f.body, false);
    }
}

fn walk(names: &mut NameTable, ctx: &mut Ctx, body: &mut Body, in_lambda: bool) {
    for stm in body.stms.iter_mut() {
        let inner = in_lambda || matches!(stm.exp, Exp::Soac(_));
        for b in stm.exp.bodies_mut() {
            walk(names, ctx, b, inner);
        }
    }
    if !in_lambda {
        return;
    }
    let mut p = 0;
    while p < body.stms.len() {
        if rewrite(names, body, p) {
            ctx.fire("reduce-loop");
        }
        p += 1;
    }
}

/// Whether a statement's expression consumes anything.
fn consumes(stm: &Stm) -> bool {
    !consumed_in_stm(stm).is_empty()
}

/// Rewrites the map at `p` and its reductions into one loop, if they qualify.
fn rewrite(names: &mut NameTable, body: &mut Body, p: usize) -> bool {
    let map_stm = &body.stms[p];
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &map_stm.exp else {
        return false;
    };
    if !lam.ret.iter().any(|t| t.rank() > 0) || consumes(map_stm) {
        return false;
    }
    let rows: &[Var] = &map_stm.pat;
    let uses = use_counts(names, body);
    // The reductions over the map's results, and how often they read each.
    let mut reduces = Vec::new();
    let mut read: HashMap<Var, usize> = HashMap::new();
    for (q, s) in body.stms.iter().enumerate().skip(p + 1) {
        if let Exp::Soac(Soac::Reduce {
            w: w2, arrays: ra, ..
        }) = &s.exp
            && w2 == w
            && !ra.is_empty()
            && ra.iter().all(|a| rows.contains(a))
        {
            if consumes(s) {
                return false;
            }
            for a in ra {
                *read.entry(*a).or_default() += 1;
            }
            reduces.push(q);
        }
    }
    let Some(&last) = reduces.last() else {
        return false;
    };
    if rows
        .iter()
        .any(|r| uses.get(r).copied().unwrap_or(0) != read.get(r).copied().unwrap_or(0))
    {
        return false;
    }
    // The loop goes where the last reduction is: nothing in between may need an earlier
    // one's result or update an array in place.
    let results: HashSet<Var> = reduces
        .iter()
        .flat_map(|q| body.stms[*q].pat.iter().copied())
        .collect();
    for (k, s) in body.stms.iter().enumerate().take(last).skip(p + 1) {
        if reduces.contains(&k) {
            continue;
        }
        if consumes(s)
            || free_in_exp(names, &s.exp)
                .iter()
                .any(|v| results.contains(v))
        {
            return false;
        }
    }

    let aux = map_stm.aux.clone();
    let (w, lam, arrays) = (*w, lam.clone(), arrays.clone());
    let rows = rows.to_vec();
    let i = names.fresh("i", Type::Prim(PrimType::I64));
    let mut stms = Vec::new();
    let mut args = Vec::new();
    // Row `i < w` of an input of width `w`: in bounds.
    let mut in_bounds = aux.clone();
    in_bounds.attrs.push(IN_BOUNDS.to_string());
    for a in &arrays {
        let hint = names.hint(*a).to_string();
        let row = names.fresh(&hint, names.ty(*a).row());
        stms.push(Stm {
            pat: vec![row],
            exp: Exp::BasicOp(BasicOp::Index {
                array: *a,
                slice: vec![DimIndex::Fix(SubExp::Var(i))],
            }),
            aux: in_bounds.clone(),
        });
        args.push(SubExp::Var(row));
    }
    let (f_stms, values) = apply(names, &lam, &args);
    stms.extend(f_stms);
    let mut params = Vec::new();
    let mut result = Vec::new();
    let mut pat = Vec::new();
    for q in &reduces {
        let s = &body.stms[*q];
        let Exp::Soac(Soac::Reduce {
            lam: op,
            neutral,
            arrays: ra,
            ..
        }) = &s.exp
        else {
            unreachable!("selected above");
        };
        let mut op_args = Vec::new();
        for (v, ne) in s.pat.iter().zip(neutral) {
            let hint = names.hint(*v).to_string();
            let acc = names.fresh(&hint, names.ty(*v).clone());
            params.push((acc, *ne));
            op_args.push(SubExp::Var(acc));
        }
        for a in ra {
            let k = rows.iter().position(|r| r == a).expect("a row of the map");
            op_args.push(values[k]);
        }
        let (op_stms, op_res) = apply(names, op, &op_args);
        stms.extend(op_stms);
        result.extend(op_res);
        pat.extend(s.pat.iter().copied());
    }
    let looped = Stm {
        pat,
        exp: Exp::Loop {
            params,
            form: LoopForm::For { i, bound: w },
            body: Body { stms, result },
        },
        aux,
    };
    let mut looped = Some(looped);
    let mut out = Vec::with_capacity(body.stms.len());
    for (k, s) in std::mem::take(&mut body.stms).into_iter().enumerate() {
        if k == last {
            out.extend(looped.take());
        } else if k != p && !reduces.contains(&k) {
            out.push(s);
        }
    }
    body.stms = out;
    true
}
