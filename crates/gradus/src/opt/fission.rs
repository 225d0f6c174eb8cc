//! Reduction fission (pass `fission`): splits a `reduce` so that the part that does not depend
//! on an enclosing lambda's parameters can be hoisted, and the rest eliminated by projection.
//!
//! Rules:
//! * `reduce-split`: a `reduce` whose components fall into groups that do not read each
//!   other's parameters becomes one `reduce` per group (the primal and the tangent of
//!   `jvp (\x -> sum x)` are such groups);
//! * `reduce-payload`: a `reduce` in which some components (the payload) are only *selected*,
//!   `select(c, acc_p, x_p)`, by a condition `c` computed from the other components (the key),
//!   as the tangent of a maximum is selected by the comparison of the values, becomes a
//!   `reduce` of the key and of the index of the selected element (neutral `-1`), followed by
//!   `if idx >= 0 then payload[idx] else neutral`. Every accumulated payload is either the
//!   neutral element or some element's payload, chosen by the same selections as the index,
//!   so the result is the same in any association order.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use super::simplify::{Engine, Rewrite};
use crate::core::builder::Builder;
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{CmpOp, PrimOp, TernOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::subst::{deps_in, prune};
use std::collections::HashSet;

/// The `fission` rules.
pub fn rule(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm) -> Option<Rewrite> {
    let Exp::Soac(Soac::Reduce {
        w,
        lam,
        neutral,
        arrays,
        commutative,
    }) = &stm.exp
    else {
        return None;
    };
    let k = neutral.len();
    if k < 2 || lam.params.len() != 2 * k || lam.body.result.len() != k {
        return None;
    }
    // Component of each parameter.
    let comp_of = |v: &Var| lam.params.iter().position(|p| p == v).map(|i| i % k);
    let all: HashSet<Var> = lam.params.iter().copied().collect();
    let deps: Vec<HashSet<usize>> = lam
        .body
        .result
        .iter()
        .map(|r| {
            deps_in(eng.names, &lam.body, r, &all)
                .iter()
                .filter_map(comp_of)
                .collect()
        })
        .collect();
    if let Some(r) = split(eng, ctx, stm, *w, lam, neutral, arrays, *commutative, &deps) {
        return Some(r);
    }
    payload(eng, ctx, stm, *w, lam, neutral, arrays, *commutative, &all)
}

fn reduce_stm(
    w: SubExp,
    lam: Lambda,
    neutral: Vec<SubExp>,
    arrays: Vec<Var>,
    commutative: bool,
    pat: Vec<Var>,
    aux: &crate::core::ir::Aux,
) -> Stm {
    Stm {
        pat,
        exp: Exp::Soac(Soac::Reduce {
            w,
            lam,
            neutral,
            arrays,
            commutative,
        }),
        aux: aux.clone(),
    }
}

fn fresh_like(eng: &mut Engine, v: Var) -> Var {
    let t = eng.names.ty(v).clone();
    let h = eng.names.hint(v).to_string();
    eng.names.fresh(&h, t)
}

#[allow(clippy::too_many_arguments)]
fn split(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    w: SubExp,
    lam: &Lambda,
    neutral: &[SubExp],
    arrays: &[Var],
    commutative: bool,
    deps: &[HashSet<usize>],
) -> Option<Rewrite> {
    let k = neutral.len();
    // Union-find over components.
    let mut group: Vec<usize> = (0..k).collect();
    fn find(g: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while g[x] != x {
            x = g[x];
        }
        x
    }
    for (r, ds) in deps.iter().enumerate() {
        for &d in ds {
            let (a, b) = (find(&mut group, r), find(&mut group, d));
            group[a] = b;
        }
    }
    let roots: Vec<usize> = (0..k).map(|i| find(&mut group, i)).collect();
    let mut distinct: Vec<usize> = roots.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return None;
    }
    ctx.fire("reduce-split");
    let mut stms = Vec::new();
    let mut res = vec![SubExp::i64(0); k];
    for g in distinct {
        let comps: Vec<usize> = (0..k).filter(|&i| roots[i] == g).collect();
        let results: Vec<SubExp> = comps.iter().map(|&i| lam.body.result[i]).collect();
        let body = prune(eng.names, &lam.body, results);
        let body = Body {
            stms: body.stms,
            result: body.result,
        };
        let mut params: Vec<Var> = comps.iter().map(|&i| lam.params[i]).collect();
        params.extend(comps.iter().map(|&i| lam.params[k + i]));
        let sub = Lambda {
            params,
            body,
            ret: comps.iter().map(|&i| lam.ret[i].clone()).collect(),
        };
        // The pieces share no binders: give each a fresh copy.
        let sub = freshen_lambda(eng, &sub);
        let pat: Vec<Var> = comps.iter().map(|&i| fresh_like(eng, stm.pat[i])).collect();
        for (j, &i) in comps.iter().enumerate() {
            res[i] = pat[j].into();
        }
        stms.push(reduce_stm(
            w,
            sub,
            comps.iter().map(|&i| neutral[i]).collect(),
            comps.iter().map(|&i| arrays[i]).collect(),
            commutative,
            pat,
            &stm.aux,
        ));
    }
    Some(Rewrite::Stms(stms, res))
}

/// A copy of a lambda with fresh parameters and inner binders.
pub fn freshen_lambda(eng: &mut Engine, lam: &Lambda) -> Lambda {
    let mut map = std::collections::HashMap::new();
    let mut params = Vec::new();
    for p in &lam.params {
        let q = fresh_like(eng, *p);
        map.insert(*p, SubExp::Var(q));
        params.push(q);
    }
    let mut body = lam.body.clone();
    crate::core::subst::subst_body(&mut body, &map);
    let body = crate::core::subst::freshen_body(eng.names, &body);
    Lambda {
        params,
        body,
        ret: lam.ret.clone(),
    }
}

#[allow(clippy::too_many_arguments)]
fn payload(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    w: SubExp,
    lam: &Lambda,
    neutral: &[SubExp],
    arrays: &[Var],
    commutative: bool,
    all: &HashSet<Var>,
) -> Option<Rewrite> {
    let k = neutral.len();
    // Candidate payloads: result = select(c, acc_p, x_p) or select(c, x_p, acc_p), scalar.
    let mut cand: Vec<(usize, SubExp, bool)> = Vec::new();
    for (p, arr) in arrays.iter().enumerate() {
        let Some((PrimOp::Tern(TernOp::Select, _), args)) = eng.prim_def(&lam.body.result[p])
        else {
            continue;
        };
        // An index already (this rule's own output): selecting it again gains nothing.
        if let Some(Stm {
            exp: Exp::BasicOp(BasicOp::Iota { .. }),
            ..
        }) = eng.def(*arr)
        {
            continue;
        }
        let (acc, x) = (SubExp::Var(lam.params[p]), SubExp::Var(lam.params[k + p]));
        if args[1] == acc && args[2] == x {
            cand.push((p, args[0], true));
        } else if args[1] == x && args[2] == acc {
            cand.push((p, args[0], false));
        }
    }
    let (_, cnd, acc_first) = *cand.first()?;
    let mut payload: Vec<usize> = cand
        .iter()
        .filter(|(_, c, o)| *c == cnd && *o == acc_first)
        .map(|(p, _, _)| *p)
        .collect();
    let pset: HashSet<Var> = payload
        .iter()
        .flat_map(|&p| [lam.params[p], lam.params[k + p]])
        .collect();
    let bad = (0..k)
        .filter(|i| !payload.contains(i))
        .map(|i| lam.body.result[i])
        .chain(std::iter::once(cnd))
        .any(|r| !deps_in(eng.names, &lam.body, &r, all).is_disjoint(&pset));
    if bad {
        // The condition or a key reads a payload.
        payload.clear();
    }
    if payload.is_empty() || payload.len() == k {
        return None;
    }
    for &p in &payload {
        if !matches!(lam.ret[p], Type::Prim(_)) {
            return None;
        }
    }
    let keys: Vec<usize> = (0..k).filter(|i| !payload.contains(i)).collect();
    ctx.fire("reduce-payload");
    let i64t = Type::Prim(PrimType::I64);
    let acc_idx = eng.names.fresh("acc_idx", i64t.clone());
    let x_idx = eng.names.fresh("x_idx", i64t.clone());
    let idx_res = eng.names.fresh("sel_idx", i64t.clone());
    let mut results: Vec<SubExp> = keys.iter().map(|&i| lam.body.result[i]).collect();
    let mut body = prune(eng.names, &lam.body, {
        let mut r = results.clone();
        r.push(cnd);
        r
    });
    let (a, b) = if acc_first {
        (acc_idx, x_idx)
    } else {
        (x_idx, acc_idx)
    };
    body.stms.push(Stm {
        pat: vec![idx_res],
        exp: Exp::BasicOp(BasicOp::Prim(
            PrimOp::Tern(TernOp::Select, PrimType::I64),
            vec![cnd, a.into(), b.into()],
        )),
        aux: stm.aux.clone(),
    });
    results.push(idx_res.into());
    body.result = results;
    let mut params: Vec<Var> = keys.iter().map(|&i| lam.params[i]).collect();
    params.push(acc_idx);
    params.extend(keys.iter().map(|&i| lam.params[k + i]));
    params.push(x_idx);
    let mut ret: Vec<Type> = keys.iter().map(|&i| lam.ret[i].clone()).collect();
    ret.push(i64t.clone());
    let new_lam = freshen_lambda(eng, &Lambda { params, body, ret });
    let mut b = Builder::new(eng.names);
    b.set_aux(stm.aux.clone());
    let iota = b.iota(w, "idx");
    let mut new_neutral: Vec<SubExp> = keys.iter().map(|&i| neutral[i]).collect();
    new_neutral.push(SubExp::Const(Scalar::I64(-1)));
    let mut new_arrays: Vec<Var> = keys.iter().map(|&i| arrays[i]).collect();
    new_arrays.push(iota);
    let mut pat: Vec<Var> = Vec::new();
    for &i in &keys {
        let t = b.names.ty(stm.pat[i]).clone();
        let h = b.names.hint(stm.pat[i]).to_string();
        pat.push(b.names.fresh(&h, t));
    }
    let idx = b.names.fresh("sel_idx", i64t);
    pat.push(idx);
    b.add_stm(reduce_stm(
        w,
        new_lam,
        new_neutral,
        new_arrays,
        commutative,
        pat.clone(),
        &stm.aux,
    ));
    let found = b.prim_named(
        PrimOp::Cmp(CmpOp::Ge, PrimType::I64),
        vec![idx.into(), SubExp::i64(0)],
        "found",
    );
    let mut res = vec![SubExp::i64(0); k];
    for (j, &i) in keys.iter().enumerate() {
        res[i] = pat[j].into();
    }
    for &p in &payload {
        let arr = arrays[p];
        let v = b.if_then_else(
            found.into(),
            |bb| vec![bb.index(arr, vec![DimIndex::Fix(idx.into())], "sel").into()],
            |_| vec![neutral[p]],
            "selected",
        );
        res[p] = v[0].into();
    }
    eng.extra_facts.insert(idx, (-1, w));
    Some(Rewrite::Stms(b.take_stms(), res))
}
