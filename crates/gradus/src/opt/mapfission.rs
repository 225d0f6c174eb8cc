//! Map fission for code motion (pass `map-fission`): a `map` inside a loop body or a SOAC
//! lambda whose own lambda does invariant work next to variant work is split in two, so that
//! [`super::hoist`] can move the invariant map out.
//!
//! Rule `map-split-invariant`: in `map(w, \ps -> body, xs)`, the statements of `body` that
//! read neither the enclosing scope's variant variables nor the parameters bound to variant
//! inputs (nor anything computed from them) form a map of their own over the invariant
//! inputs, whose results (the values the rest needs, one array each) become extra inputs of
//! the remaining map. Nested maps, `if`s, `redomap`s and loops are split first (rules
//! `if-split-invariant`, `redomap-split-invariant` below and the loop rules of
//! [`super::loopsplit`]), so a whole invariant nest leaves at once. This is what makes
//! forward mode cheap under a map over seeds (`jmp`): the tangent of `matmul w h` is
//! computed in the same inner maps as the primal product, the tangent of a loop in the same
//! loop, and the primal (which does not depend on the seed) would otherwise be recomputed for
//! every seed.
//!
//! The split is made when the invariant part reduces, scans, loops or calls, or when its
//! element-wise work outweighs the values it hands over (counted by element: each is
//! written once and read in every run), and the caller can move the invariant map
//! ([`split_invariant`] returns it for the caller to check). Reads the rest needs are
//! repeated there rather than handed over. Both maps run over the same rows, so nothing
//! runs more often than before; statements consuming arrays, accumulators and types that
//! mention values bound inside the lambda stop the split.
//!
//! Takes verified IR and gives verified IR.

use crate::core::ir::{Body, Exp, Lambda, NameTable, Soac, Stm, SubExp, Type, Var};
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
        if is_invariant(names, &s, &vb, &consumed) {
            inv_stms.push(s);
            continue;
        }
        if let Some((inner_inv, inner_rest)) = split_nested(names, &s, &vb, &rest_stms)
            && inner_inv
                .iter()
                .all(|st| is_invariant(names, st, &vb, &consumed))
        {
            inv_stms.extend(inner_inv);
            vb.extend(inner_rest.pat.iter().copied());
            rest_stms.push(inner_rest);
            continue;
        }
        vb.extend(s.pat.iter().copied());
        rest_stms.push(s);
    }
    let worth = inv_stms.iter().any(|s| reduces(&s.exp))
        || work(&inv_stms) >= ELEMENTWISE_WORTH * needed_count(names, &inv_stms, &rest_stms, lam);
    if (top && !worth) || inv_stms.is_empty() || rest_stms.is_empty() {
        return None;
    }
    let rest_stms = repeat_reads(names, &inv_stms, rest_stms, &HashSet::new());
    // The invariant values the rest reads (and does not read again itself): they leave the
    // first map as arrays.
    let rest_bound: HashSet<Var> = rest_stms.iter().flat_map(|s| s.pat.clone()).collect();
    let inv_bound: HashSet<Var> = inv_stms
        .iter()
        .flat_map(|s| s.pat.clone())
        .filter(|v| !rest_bound.contains(v))
        .collect();
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

/// `rest` preceded by copies of the reads among `inv` (indexing of arrays that neither the
/// invariant part computes nor `excluded` holds) whose values `rest` uses: repeating a read
/// costs less than handing its value over through an array written once and read in every
/// run. A read that succeeded in the invariant part succeeds again.
pub fn repeat_reads(
    names: &NameTable,
    inv: &[Stm],
    rest: Vec<Stm>,
    excluded: &HashSet<Var>,
) -> Vec<Stm> {
    use crate::core::ir::BasicOp;
    let mut inv_bound: HashSet<Var> = inv.iter().flat_map(|s| s.pat.iter().copied()).collect();
    inv_bound.extend(excluded.iter().copied());
    let mut used: HashSet<Var> = HashSet::new();
    for s in &rest {
        used.extend(free_in_exp(names, &s.exp));
    }
    let mut out: Vec<Stm> = inv
        .iter()
        .filter(|s| {
            matches!(s.exp, Exp::BasicOp(BasicOp::Index { .. }))
                && s.pat.len() == 1
                && used.contains(&s.pat[0])
                && matches!(names.ty(s.pat[0]), Type::Prim(_))
                && free_in_exp(names, &s.exp).is_disjoint(&inv_bound)
        })
        .cloned()
        .collect();
    out.extend(rest);
    out
}

/// Whether `s` reads nothing in `variant` and binds values that may leave the body it is in
/// (not consumed there, no accumulators, types that mention nothing variant).
pub(super) fn is_invariant(
    names: &NameTable,
    s: &Stm,
    variant: &HashSet<Var>,
    consumed: &HashSet<Var>,
) -> bool {
    free_in_exp(names, &s.exp).is_disjoint(variant)
        && !s.pat.is_empty()
        && s.pat.iter().all(|v| {
            !consumed.contains(v)
                && !matches!(names.ty(*v), Type::Acc { .. })
                && type_vars(names.ty(*v)).iter().all(|d| !variant.contains(d))
        })
}

/// A statement of a lambda being split, itself split into an invariant part and the rest:
/// a nested `map` (rule `map-split-invariant`), an `if` on an invariant condition
/// (`if-split-invariant`), a `for` loop (`loop-split-invariant`) or a reduction of several
/// independent values (`redomap-split-invariant`), or a loop whose rest reads the invariant
/// part's values of each iteration (`loop-split-materialise`). Forward mode computes primal and tangent
/// in the same statements, so each of these holds a primal part that does not depend on the
/// seed.
fn split_nested(
    names: &mut NameTable,
    s: &Stm,
    variant: &HashSet<Var>,
    before: &[Stm],
) -> Option<(Vec<Stm>, Stm)> {
    let one = |r: Option<(Stm, Stm)>| r.map(|(inv, rest)| (vec![inv], rest));
    match &s.exp {
        Exp::Soac(Soac::Map { .. }) => one(split(names, s, variant, false)),
        Exp::Soac(Soac::Screma { .. }) => one(split_redomap_invariant(names, s, variant)),
        Exp::If { .. } => one(split_if_invariant(names, s, variant)),
        Exp::Loop { .. } => one(super::loopsplit::split_loop_invariant(names, s, variant))
            .or_else(|| super::loopsplit::split_loop_materialise(names, s, variant, before)),
        _ => None,
    }
}

/// How many times the invariant part's work must exceed the number of values it hands to
/// the rest for an element-wise split to pay: each handed value is written to an array once
/// and read back by every run of the enclosing scope.
const ELEMENTWISE_WORTH: usize = 2;

/// The number of invariant scalars the rest of a split lambda reads or returns.
fn needed_count(names: &NameTable, inv: &[Stm], rest: &[Stm], lam: &Lambda) -> usize {
    let bound: HashSet<Var> = inv.iter().flat_map(|s| s.pat.iter().copied()).collect();
    let mut needed: HashSet<Var> = HashSet::new();
    for s in rest {
        needed.extend(free_in_exp(names, &s.exp).intersection(&bound));
    }
    for r in &lam.body.result {
        if let SubExp::Var(v) = r
            && bound.contains(v)
        {
            needed.insert(*v);
        }
    }
    // A handed-over array counts once per element (16 for a size not known here).
    let elements = |v: &Var| {
        names.ty(*v).dims().iter().fold(1usize, |n, d| {
            let d = match d {
                SubExp::Const(c) => c.as_i64().unwrap_or(1).max(1) as usize,
                SubExp::Var(_) => 16,
            };
            n.saturating_mul(d)
        })
    };
    needed.iter().map(elements).sum::<usize>().max(1)
}

/// A rough count of the scalar operations `stms` perform once (transcendental functions and
/// divisions weigh more; a nested map of constant width counts once per row).
fn work(stms: &[Stm]) -> usize {
    use crate::core::ir::BasicOp;
    use crate::core::prim::{BinOp, PrimOp, UnOp};
    stms.iter()
        .map(|s| match &s.exp {
            Exp::BasicOp(BasicOp::Prim(op, _)) => match op {
                PrimOp::Un(
                    UnOp::Neg
                    | UnOp::Not
                    | UnOp::Abs
                    | UnOp::Sgn
                    | UnOp::Ceil
                    | UnOp::Floor
                    | UnOp::Trunc
                    | UnOp::Round
                    | UnOp::IsNan
                    | UnOp::IsInf
                    | UnOp::ToBits
                    | UnOp::Popc
                    | UnOp::Clz
                    | UnOp::Ctz,
                    _,
                ) => 1,
                PrimOp::Un(..) => 8,
                PrimOp::Bin(BinOp::Pow | BinOp::Atan2 | BinOp::Atan2pi | BinOp::Hypot, _) => 8,
                PrimOp::Bin(BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem, _) => 4,
                _ => 1,
            },
            Exp::BasicOp(_) => 0,
            Exp::If {
                then_body,
                else_body,
                ..
            } => 1 + work(&then_body.stms).max(work(&else_body.stms)),
            Exp::Soac(Soac::Map { w, lam, .. }) => {
                let rows = match w {
                    SubExp::Const(c) => c.as_i64().unwrap_or(1).max(1) as usize,
                    SubExp::Var(_) => 16,
                };
                rows.saturating_mul(work(&lam.body.stms))
            }
            _ => 16,
        })
        .fold(0usize, usize::saturating_add)
}

/// Rule `redomap-split-invariant`: a `redomap` whose operator combines each of its values
/// on its own (result `c` reads only parameters `c` and `k + c`) and some of whose values
/// read nothing in `variant` becomes two `redomap`s: the invariant values (first, with fresh
/// names, for the caller to move out) and the rest. Each keeps only the map statements its
/// values need, so statements both need are computed in both; the rest never does more
/// work than before.
pub fn split_redomap_invariant(
    names: &mut NameTable,
    stm: &Stm,
    variant: &HashSet<Var>,
) -> Option<(Stm, Stm)> {
    use crate::core::ir::ScremaForm;
    let Exp::Soac(Soac::Screma { w, map, form, .. }) = &stm.exp else {
        return None;
    };
    let ScremaForm::Reduce { lam, neutral, .. } = form.as_ref() else {
        return None;
    };
    let k = neutral.len();
    if k < 2 || map.body.result.len() != k || lam.params.len() != 2 * k {
        return None;
    }
    if matches!(w, SubExp::Var(v) if variant.contains(v)) {
        return None;
    }
    let mut consumed = HashSet::new();
    consumed_in_body(&map.body, &mut consumed);
    consumed_in_body(&lam.body, &mut consumed);
    if !consumed.is_empty() {
        return None;
    }
    let op_params: HashSet<Var> = lam.params.iter().copied().collect();
    for c in 0..k {
        let own: HashSet<Var> = [lam.params[c], lam.params[k + c]].into_iter().collect();
        if !deps_in(names, &lam.body, &lam.body.result[c], &op_params).is_subset(&own) {
            return None;
        }
    }
    let parts: Vec<Stm> = (0..k).map(|c| redomap_part(names, stm, &[c])).collect();
    let inv: Vec<bool> = parts
        .iter()
        .map(|p| free_in_exp(names, &p.exp).is_disjoint(variant))
        .collect();
    if inv.iter().all(|b| *b) || !inv.iter().any(|b| *b) {
        return None;
    }
    let inv_idx: Vec<usize> = (0..k).filter(|c| inv[*c]).collect();
    let rest_idx: Vec<usize> = (0..k).filter(|c| !inv[*c]).collect();
    let inv_part = redomap_part(names, stm, &inv_idx);
    let rest_part = redomap_part(names, stm, &rest_idx);
    // The invariant part gets fresh names; the rest keeps the original ones.
    let Exp::Soac(Soac::Screma {
        w,
        map,
        arrays,
        form,
    }) = inv_part.exp
    else {
        return None;
    };
    let ScremaForm::Reduce {
        lam,
        neutral,
        commutative,
    } = *form
    else {
        return None;
    };
    let (map_params, map_body) = fresh_copy(names, &map.params, &map.body);
    let (op_params, op_body) = fresh_copy(names, &lam.params, &lam.body);
    let inv = Stm {
        pat: inv_part.pat,
        exp: Exp::Soac(Soac::Screma {
            w,
            map: Lambda {
                params: map_params,
                body: map_body,
                ret: map.ret,
            },
            arrays,
            form: Box::new(ScremaForm::Reduce {
                lam: Lambda {
                    params: op_params,
                    body: op_body,
                    ret: lam.ret,
                },
                neutral,
                commutative,
            }),
        }),
        aux: stm.aux.clone(),
    };
    Some((inv, rest_part))
}

/// The `redomap` `stm` restricted to the values at `idx`: both lambdas pruned to what those
/// values need, and the map's inputs to those its pruned body reads.
fn redomap_part(names: &NameTable, stm: &Stm, idx: &[usize]) -> Stm {
    use crate::core::ir::ScremaForm;
    let Exp::Soac(Soac::Screma {
        w,
        map,
        arrays,
        form,
    }) = &stm.exp
    else {
        unreachable!("redomap_part of a screma")
    };
    let ScremaForm::Reduce {
        lam,
        neutral,
        commutative,
    } = form.as_ref()
    else {
        unreachable!("redomap_part of a redomap")
    };
    let k = neutral.len();
    let map_body = prune(
        names,
        &map.body,
        idx.iter().map(|c| map.body.result[*c]).collect(),
    );
    let used = crate::core::visit::free_in_body(names, &map_body);
    let mut params = Vec::new();
    let mut inputs = Vec::new();
    for (p, a) in map.params.iter().zip(arrays) {
        if used.contains(p) {
            params.push(*p);
            inputs.push(*a);
        }
    }
    let op_params: Vec<Var> = idx
        .iter()
        .map(|c| lam.params[*c])
        .chain(idx.iter().map(|c| lam.params[k + *c]))
        .collect();
    Stm {
        pat: idx.iter().map(|c| stm.pat[*c]).collect(),
        exp: Exp::Soac(Soac::Screma {
            w: *w,
            map: Lambda {
                params,
                body: map_body,
                ret: idx.iter().map(|c| map.ret[*c].clone()).collect(),
            },
            arrays: inputs,
            form: Box::new(ScremaForm::Reduce {
                lam: Lambda {
                    params: op_params,
                    body: prune(
                        names,
                        &lam.body,
                        idx.iter().map(|c| lam.body.result[*c]).collect(),
                    ),
                    ret: idx.iter().map(|c| lam.ret[*c].clone()).collect(),
                },
                neutral: idx.iter().map(|c| neutral[*c]).collect(),
                commutative: *commutative,
            }),
        }),
        aux: stm.aux.clone(),
    }
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
    // Results that are invariant in both branches come out of the invariant if, under
    // their own names, so that what the enclosing body computes from them is invariant too.
    let invariant_in = |r: &SubExp, branch_rest: &[Stm]| match r {
        SubExp::Const(_) => true,
        SubExp::Var(v) => !variant.contains(v) && !branch_rest.iter().any(|s| s.pat.contains(v)),
    };
    let inv_pos: Vec<usize> = (0..ret.len())
        .filter(|j| {
            invariant_in(&then_body.result[*j], &t_rest)
                && invariant_in(&else_body.result[*j], &e_rest)
        })
        .collect();
    // The invariant values the rest reads or returns pass from one if to the other; the
    // branch not taken fills its slots with zeros, so they must be scalars.
    let with_results = |mut needed: Vec<Var>, branch: &Body, inv: &[Stm]| {
        for (j, r) in branch.result.iter().enumerate() {
            if let SubExp::Var(v) = r
                && !inv_pos.contains(&j)
                && inv.iter().any(|s| s.pat.contains(v))
                && !needed.contains(v)
            {
                needed.push(*v);
            }
        }
        needed
    };
    let t_needed = with_results(t_needed, then_body, &t_inv);
    let e_needed = with_results(e_needed, else_body, &e_inv);
    if t_needed
        .iter()
        .chain(&e_needed)
        .any(|v| !matches!(names.ty(*v), Type::Prim(_)))
    {
        return None;
    }
    // The invariant if: its invariant results, then the then-branch's needed values, then
    // the else-branch's.
    let mut pat: Vec<Var> = inv_pos.iter().map(|j| stm.pat[*j]).collect();
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
    let mut t_res: Vec<SubExp> = inv_pos.iter().map(|j| then_body.result[*j]).collect();
    t_res.extend(t_needed.iter().map(|v| SubExp::Var(*v)));
    t_res.extend(zeros(&e_needed, names));
    let mut e_res: Vec<SubExp> = inv_pos.iter().map(|j| else_body.result[*j]).collect();
    e_res.extend(zeros(&t_needed, names));
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
    let rest_pos: Vec<usize> = (0..ret.len()).filter(|j| !inv_pos.contains(j)).collect();
    // The rest reads the invariant values under their new names; its own variables are
    // renamed too, so that their types can name those values while the original statement,
    // which the caller may keep, stays as it was.
    let then_rest = Body {
        stms: t_rest,
        result: rest_pos.iter().map(|j| then_body.result[*j]).collect(),
    };
    let else_rest = Body {
        stms: e_rest,
        result: rest_pos.iter().map(|j| else_body.result[*j]).collect(),
    };
    let then_rest = crate::core::subst::substituted_copy(names, &then_rest, &ren);
    let else_rest = crate::core::subst::substituted_copy(names, &else_rest, &ren);
    let rest = Stm {
        pat: rest_pos.iter().map(|j| stm.pat[*j]).collect(),
        exp: Exp::If {
            cond: *cond,
            then_body: then_rest,
            else_body: else_rest,
            ret: rest_pos.iter().map(|j| ret[*j].clone()).collect(),
        },
        aux: stm.aux.clone(),
    };
    Some((inv, rest))
}

/// A branch split into its invariant scalar statements, the rest, and the invariant values
/// the rest (or the branch's result) reads.
fn split_branch(
    names: &mut NameTable,
    body: &Body,
    variant: &HashSet<Var>,
) -> Option<(Vec<Stm>, Vec<Stm>, Vec<Var>)> {
    let mut consumed = HashSet::new();
    consumed_in_body(body, &mut consumed);
    let mut vb = variant.clone();
    let (mut inv, mut rest) = (Vec::new(), Vec::new());
    for s in &body.stms {
        if is_invariant(names, s, &vb, &consumed) {
            inv.push(s.clone());
        } else if matches!(s.exp, Exp::If { .. })
            && let Some((nested_inv, nested_rest)) = split_if_invariant(names, s, &vb)
            && is_invariant(names, &nested_inv, &vb, &consumed)
        {
            // A nested `if` (`else if` chains) splits the same way.
            inv.push(nested_inv);
            vb.extend(nested_rest.pat.iter().copied());
            rest.push(nested_rest);
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
    Some((inv, rest, needed))
}
