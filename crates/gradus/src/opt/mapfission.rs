//! Map fission for code motion (pass `map-fission`): a `map` inside a loop body or a SOAC
//! lambda whose own lambda does invariant work next to variant work is split in two, so that
//! [`super::hoist`] can move the invariant map out.
//!
//! Rule `map-split-invariant`: in `map(w, \ps -> body, xs)`, the statements of `body` that
//! read neither the enclosing scope's variant variables nor the parameters bound to variant
//! inputs (nor anything computed from them) form a map of their own over the invariant
//! inputs, whose results (the values the rest needs, one array each) become extra inputs of
//! the remaining map. Nested maps are split first, so a whole invariant map nest leaves at
//! once. This is what makes forward-mode gradients of a matrix product cheap: the tangent
//! of `matmul w h` is computed in the same inner maps as the primal product, and the primal
//! product (which does not depend on the seed) would otherwise be recomputed for every seed.
//!
//! The split is only made when the invariant part reduces, scans, loops or calls (element-wise
//! work is not worth an array) and the caller can move the invariant map ([`split_invariant`]
//! returns it for the caller to check). Both maps run over the same rows, so nothing runs
//! more often than before; statements consuming arrays, accumulators and types that mention
//! values bound inside the lambda stop the split.
//!
//! Takes verified IR and gives verified IR.

use crate::core::ir::{Body, Exp, Lambda, LoopForm, NameTable, Soac, Stm, SubExp, Type, Var};
use crate::core::recognise::zero_of;
use crate::core::subst::{deps_in, fresh_copy, prune};
use crate::core::visit::{consumed_in_body, free_in_exp, type_vars};
use std::collections::{HashMap, HashSet};

/// Splits the `map` statement `stm` into a map of the part of its lambda that reads nothing
/// in `variant`, and the rest (in this order), if that part does some array work and is
/// needed by the rest.
pub fn split_invariant(
    names: &mut NameTable,
    stm: &Stm,
    variant: &HashSet<Var>,
) -> Option<(Stm, Stm)> {
    split(names, stm, variant, true)
}

/// [`split_invariant`]; a nested map (`top` false) is split even when its invariant part is
/// scalar work, since that part leaves with the outer invariant map.
fn split(
    names: &mut NameTable,
    stm: &Stm,
    variant: &HashSet<Var>,
    top: bool,
) -> Option<(Stm, Stm)> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &stm.exp else {
        return None;
    };
    if matches!(w, SubExp::Var(v) if variant.contains(v)) {
        return None;
    }
    let mut consumed = HashSet::new();
    consumed_in_body(&lam.body, &mut consumed);
    let mut bound_here: HashSet<Var> = lam.params.iter().copied().collect();
    for s in &lam.body.stms {
        bound_here.extend(s.pat.iter().copied());
    }
    // Consuming a parameter or a free variable would consume an input of both maps.
    if consumed
        .iter()
        .any(|v| lam.params.contains(v) || !bound_here.contains(v))
    {
        return None;
    }
    let mut vb: HashSet<Var> = variant.clone();
    let mut inv_params = Vec::new();
    let mut inv_arrays = Vec::new();
    for (p, a) in lam.params.iter().zip(arrays) {
        if variant.contains(a) {
            vb.insert(*p);
        } else {
            inv_params.push(*p);
            inv_arrays.push(*a);
        }
    }
    let mut inv_stms: Vec<Stm> = Vec::new();
    let mut rest_stms: Vec<Stm> = Vec::new();
    let mut pending: Vec<Stm> = lam.body.stms.iter().rev().cloned().collect();
    while let Some(s) = pending.pop() {
        let free = free_in_exp(names, &s.exp);
        let invariant = free.is_disjoint(&vb)
            && !s.pat.is_empty()
            && s.pat.iter().all(|v| {
                !consumed.contains(v)
                    && !matches!(names.ty(*v), Type::Acc { .. })
                    && type_vars(names.ty(*v)).iter().all(|d| !vb.contains(d))
            });
        if invariant {
            inv_stms.push(s);
            continue;
        }
        if matches!(s.exp, Exp::Soac(Soac::Map { .. }))
            && let Some((inner_inv, inner_rest)) = split(names, &s, &vb, false)
        {
            pending.push(inner_rest);
            pending.push(inner_inv);
            continue;
        }
        vb.extend(s.pat.iter().copied());
        rest_stms.push(s);
    }
    let worth = inv_stms.iter().any(|s| reduces(&s.exp));
    if (top && !worth) || inv_stms.is_empty() || rest_stms.is_empty() {
        return None;
    }
    // The invariant values the rest reads: they leave the first map as arrays.
    let inv_bound: HashSet<Var> = inv_stms.iter().flat_map(|s| s.pat.clone()).collect();
    let mut needed: Vec<Var> = Vec::new();
    let need = |v: Var, needed: &mut Vec<Var>| {
        if inv_bound.contains(&v) && !needed.contains(&v) {
            needed.push(v);
        }
    };
    for s in &rest_stms {
        let mut fv: Vec<Var> = free_in_exp(names, &s.exp).into_iter().collect();
        fv.sort();
        for v in fv {
            need(v, &mut needed);
        }
        for p in &s.pat {
            if type_vars(names.ty(*p))
                .iter()
                .any(|d| inv_bound.contains(d))
            {
                return None;
            }
        }
    }
    // Results computed by the invariant part come straight out of the invariant map.
    let inv_result: Vec<bool> = lam
        .body
        .result
        .iter()
        .map(|r| matches!(r, SubExp::Var(v) if inv_bound.contains(v)))
        .collect();
    if inv_result.iter().all(|b| *b)
        || (needed.is_empty() && !inv_result.iter().any(|b| *b))
        || lam
            .ret
            .iter()
            .any(|t| type_vars(t).iter().any(|d| inv_bound.contains(d)))
    {
        return None;
    }
    let mut outputs: Vec<Var> = needed.clone();
    let mut out_pat: Vec<Var> = Vec::new();
    for v in &needed {
        let t = names.ty(*v).array_of(*w);
        let hint = format!("{}_arr", names.hint(*v));
        out_pat.push(names.fresh(&hint, t));
    }
    for (i, r) in lam.body.result.iter().enumerate() {
        if inv_result[i]
            && let SubExp::Var(v) = r
        {
            outputs.push(*v);
            out_pat.push(stm.pat[i]);
        }
    }
    // The outputs' types must make sense outside the lambda.
    let out_tys: Vec<Type> = outputs.iter().map(|v| names.ty(*v).clone()).collect();
    if out_tys
        .iter()
        .any(|t| type_vars(t).iter().any(|d| bound_here.contains(d)))
    {
        return None;
    }
    // The invariant map: fresh parameters, fresh names inside.
    let inv_body = Body {
        stms: inv_stms,
        result: outputs.iter().map(|v| SubExp::Var(*v)).collect(),
    };
    let (params, inv_body) = fresh_copy(names, &inv_params, &inv_body);
    let inv = Stm {
        pat: out_pat.clone(),
        exp: Exp::Soac(Soac::Map {
            w: *w,
            lam: Lambda {
                params,
                body: inv_body,
                ret: out_tys,
            },
            arrays: inv_arrays,
        }),
        aux: stm.aux.clone(),
    };
    // The rest reads the invariant values through parameters named as they were bound.
    let mut rest_params = lam.params.clone();
    rest_params.extend(needed.iter().copied());
    let mut rest_arrays = arrays.clone();
    rest_arrays.extend(out_pat[..needed.len()].iter().copied());
    let keep = |i: &usize| !inv_result[*i];
    let idx: Vec<usize> = (0..lam.body.result.len()).filter(keep).collect();
    let rest = Stm {
        pat: idx.iter().map(|i| stm.pat[*i]).collect(),
        exp: Exp::Soac(Soac::Map {
            w: *w,
            lam: Lambda {
                params: rest_params,
                body: Body {
                    stms: rest_stms,
                    result: idx.iter().map(|i| lam.body.result[*i]).collect(),
                },
                ret: idx.iter().map(|i| lam.ret[*i].clone()).collect(),
            },
            arrays: rest_arrays,
        }),
        aux: stm.aux.clone(),
    };
    Some((inv, rest))
}

/// Whether `exp` does work that is not element-wise: a reduction, scan, histogram, loop or
/// call, possibly inside maps and branches. Hoisting only element-wise work out of a lambda
/// would trade a few operations per element for a materialised array.
fn reduces(exp: &Exp) -> bool {
    match exp {
        Exp::Soac(Soac::Map { lam, .. }) => lam.body.stms.iter().any(|s| reduces(&s.exp)),
        Exp::Soac(_) | Exp::Loop { .. } | Exp::Apply { .. } => true,
        Exp::If {
            then_body,
            else_body,
            ..
        } => then_body
            .stms
            .iter()
            .chain(&else_body.stms)
            .any(|s| reduces(&s.exp)),
        Exp::WithAcc { .. } | Exp::BasicOp(_) | Exp::Ad { .. } => false,
    }
}

/// Rule `loop-split-invariant`: a `for` loop whose parameters fall into groups that do not
/// read each other, some of which read nothing in `variant`, becomes two loops: the
/// invariant groups (returned first, for the caller to move out) and the rest. Statements
/// both need (reading only the counter and free variables) are computed in both; loops whose
/// bodies consume free variables, and parameters whose types mention other parameters, are
/// left alone.
pub fn split_loop_invariant(
    names: &mut NameTable,
    stm: &Stm,
    variant: &HashSet<Var>,
) -> Option<(Stm, Stm)> {
    let Exp::Loop {
        params,
        form: LoopForm::For { i, bound },
        body,
    } = &stm.exp
    else {
        return None;
    };
    if matches!(bound, SubExp::Var(v) if variant.contains(v)) || params.len() < 2 {
        return None;
    }
    let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
    let pset: HashSet<Var> = pvars.iter().copied().collect();
    let mut scoped = pset.clone();
    scoped.insert(*i);
    if pvars
        .iter()
        .chain(&stm.pat)
        .any(|p| type_vars(names.ty(*p)).iter().any(|d| scoped.contains(d)))
    {
        return None;
    }
    // Groups: parameters linked by reading each other (union-find on positions).
    let k = params.len();
    let mut group: Vec<usize> = (0..k).collect();
    fn find(g: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while g[x] != x {
            g[x] = g[g[x]];
            x = g[x];
        }
        x
    }
    for c in 0..k {
        for d in deps_in(names, body, &body.result[c], &pset) {
            let j = pvars.iter().position(|p| *p == d)?;
            let (a, b) = (find(&mut group, c), find(&mut group, j));
            group[a] = b;
        }
    }
    let roots: Vec<usize> = (0..k).map(|c| find(&mut group, c)).collect();
    let mut distinct = roots.clone();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return None;
    }
    // A group is invariant if its loop would read nothing variant.
    let mut inv = vec![false; k];
    for r in &distinct {
        let members: Vec<usize> = (0..k).filter(|c| roots[*c] == *r).collect();
        let part = loop_part(names, stm, &members);
        if free_in_exp(names, &part.exp).is_disjoint(variant) {
            for c in members {
                inv[c] = true;
            }
        }
    }
    if inv.iter().all(|b| *b) || !inv.iter().any(|b| *b) {
        return None;
    }
    let inv_idx: Vec<usize> = (0..k).filter(|c| inv[*c]).collect();
    let rest_idx: Vec<usize> = (0..k).filter(|c| !inv[*c]).collect();
    let inv_loop = loop_part(names, stm, &inv_idx);
    let rest_loop = loop_part(names, stm, &rest_idx);
    for part in [&inv_loop, &rest_loop] {
        let Exp::Loop { params, body, .. } = &part.exp else {
            return None;
        };
        let mut consumed = HashSet::new();
        consumed_in_body(body, &mut consumed);
        let own: HashSet<Var> = params
            .iter()
            .map(|(p, _)| *p)
            .chain(body.stms.iter().flat_map(|s| s.pat.clone()))
            .collect();
        if !consumed.is_subset(&own) {
            return None;
        }
    }
    // The invariant loop gets fresh names; the rest keeps the original ones.
    let Exp::Loop {
        params: ip,
        form: LoopForm::For { i: ii, bound: ib },
        body: ibody,
    } = inv_loop.exp
    else {
        return None;
    };
    let mut binders = vec![ii];
    binders.extend(ip.iter().map(|(p, _)| *p));
    let (fresh, ibody) = fresh_copy(names, &binders, &ibody);
    let i2 = fresh[0];
    let params2: Vec<(Var, SubExp)> = fresh[1..]
        .iter()
        .zip(&ip)
        .map(|(p2, (_, init))| (*p2, *init))
        .collect();
    let inv = Stm {
        pat: inv_loop.pat,
        exp: Exp::Loop {
            params: params2,
            form: LoopForm::For { i: i2, bound: ib },
            body: ibody,
        },
        aux: stm.aux.clone(),
    };
    Some((inv, rest_loop))
}

/// The loop `stm` restricted to the parameters at `idx` (its body pruned to what they need).
fn loop_part(names: &NameTable, stm: &Stm, idx: &[usize]) -> Stm {
    let Exp::Loop { params, form, body } = &stm.exp else {
        unreachable!("loop_part of a loop")
    };
    let results: Vec<SubExp> = idx.iter().map(|c| body.result[*c]).collect();
    Stm {
        pat: idx.iter().map(|c| stm.pat[*c]).collect(),
        exp: Exp::Loop {
            params: idx.iter().map(|c| params[*c]).collect(),
            form: form.clone(),
            body: prune(names, body, results),
        },
        aux: stm.aux.clone(),
    }
}

/// Rule `if-split-invariant`: an `if` inside a lambda or loop body whose condition is
/// invariant, and whose branches compute invariant scalars next to variant work, is split in
/// two `if`s on the same condition: the first computes the invariant scalars the rest needs
/// (the other branch's slots hold zeros), and can leave with [`super::hoist`]; the second
/// does the rest. This is what lets a `jvp` mapped over seeds (`jmp`) compute its primal
/// once: forward mode interleaves primal and tangent in each branch, and without the split
/// the whole `if` is variant. Both `if`s take the same branch, so nothing runs more often.
pub fn split_if_invariant(
    names: &mut NameTable,
    stm: &Stm,
    variant: &HashSet<Var>,
) -> Option<(Stm, Stm)> {
    let Exp::If {
        cond,
        then_body,
        else_body,
        ret,
    } = &stm.exp
    else {
        return None;
    };
    if matches!(cond, SubExp::Var(v) if variant.contains(v)) {
        return None;
    }
    let (t_inv, t_rest, t_needed) = split_branch(names, then_body, variant)?;
    let (e_inv, e_rest, e_needed) = split_branch(names, else_body, variant)?;
    if t_inv.is_empty() && e_inv.is_empty() {
        return None;
    }
    // The invariant if: the then-branch's needed values, then the else-branch's.
    let mut pat = Vec::new();
    let mut ren: HashMap<Var, SubExp> = HashMap::new();
    for v in t_needed.iter().chain(&e_needed) {
        let hint = format!("{}_inv", names.hint(*v));
        let p = names.fresh(&hint, names.ty(*v).clone());
        ren.insert(*v, SubExp::Var(p));
        pat.push(p);
    }
    let tys: Vec<Type> = pat.iter().map(|p| names.ty(*p).clone()).collect();
    let zeros = |vs: &[Var], names: &NameTable| -> Vec<SubExp> {
        vs.iter().map(|v| zero_of(names.ty(*v).elem())).collect()
    };
    let mut t_res: Vec<SubExp> = t_needed.iter().map(|v| SubExp::Var(*v)).collect();
    t_res.extend(zeros(&e_needed, names));
    let mut e_res = zeros(&t_needed, names);
    e_res.extend(e_needed.iter().map(|v| SubExp::Var(*v)));
    let inv = Stm {
        pat,
        exp: Exp::If {
            cond: *cond,
            then_body: Body {
                stms: t_inv,
                result: t_res,
            },
            else_body: Body {
                stms: e_inv,
                result: e_res,
            },
            ret: tys,
        },
        aux: stm.aux.clone(),
    };
    let mut then_rest = Body {
        stms: t_rest,
        result: then_body.result.clone(),
    };
    let mut else_rest = Body {
        stms: e_rest,
        result: else_body.result.clone(),
    };
    crate::core::subst::subst_body(&mut then_rest, &ren);
    crate::core::subst::subst_body(&mut else_rest, &ren);
    let rest = Stm {
        pat: stm.pat.clone(),
        exp: Exp::If {
            cond: *cond,
            then_body: then_rest,
            else_body: else_rest,
            ret: ret.clone(),
        },
        aux: stm.aux.clone(),
    };
    Some((inv, rest))
}

/// A branch split into its invariant scalar statements, the rest, and the invariant values
/// the rest (or the branch's result) reads.
fn split_branch(
    names: &NameTable,
    body: &Body,
    variant: &HashSet<Var>,
) -> Option<(Vec<Stm>, Vec<Stm>, Vec<Var>)> {
    let mut consumed = HashSet::new();
    consumed_in_body(body, &mut consumed);
    let mut vb = variant.clone();
    let (mut inv, mut rest) = (Vec::new(), Vec::new());
    for s in &body.stms {
        let free = free_in_exp(names, &s.exp);
        let invariant = free.is_disjoint(&vb)
            && !s.pat.is_empty()
            && s.pat
                .iter()
                .all(|v| !consumed.contains(v) && matches!(names.ty(*v), Type::Prim(_)));
        if invariant {
            inv.push(s.clone());
        } else {
            vb.extend(s.pat.iter().copied());
            rest.push(s.clone());
        }
    }
    let inv_bound: HashSet<Var> = inv.iter().flat_map(|s| s.pat.clone()).collect();
    let mut needed: Vec<Var> = Vec::new();
    let mut need = |v: Var| {
        if inv_bound.contains(&v) && !needed.contains(&v) {
            needed.push(v);
        }
    };
    for s in &rest {
        let mut fv: Vec<Var> = free_in_exp(names, &s.exp).into_iter().collect();
        fv.sort();
        fv.into_iter().for_each(&mut need);
    }
    for r in &body.result {
        if let SubExp::Var(v) = r {
            need(*v);
        }
    }
    Some((inv, rest, needed))
}
