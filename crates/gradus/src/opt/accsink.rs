//! Accumulator sinking (pass `acc-sink`).
//!
//! Reverse mode gives the adjoint of a `map` whose lambda reads rows of a free array as a map
//! that returns one adjoint row per iteration, followed by a *full update*: a second map over
//! `iota(w)` that adds every element of row `j` into position `[j, ..]` of an accumulator
//! (`map(w, \(j, row, a) -> map(d, \(i, e, a) -> update_acc(a, [j, i], [e]), iota(d), row,
//! a), iota(w), rows, acc)`, nested as deep as the rows' rank). Inside the lambda the row is
//! often itself built by a `with_acc` over zeros: per iteration an array is allocated,
//! zero-filled, filled and then added element by element into the outer accumulator.
//!
//! Rules (on a full update of accumulator `acc` by the array `ys` that one earlier `map` of
//! the same width and body returns, when the full update is the only use of `ys` and nothing
//! between the two statements mentions `acc`):
//! * `acc-sink-with-acc`: the row is made by a `with_acc` over `replicate(shape, 0)` (alone, or
//!   as one group of several with one array each): the map takes `acc` and `iota(w)` as
//!   inputs and returns the updated accumulator instead of `ys`; the `with_acc`'s body runs on
//!   the outer accumulator, every `update_acc(a, is, vs)` on the dataflow of the local
//!   accumulator becoming `update_acc(a, [j] ++ is, vs)`, with the accumulators threaded
//!   through maps, loops, ifs and nested `with_acc`s retyped to the outer one's type. The
//!   zero array is never built;
//! * `acc-sink-update`: a row made any other way: the full update of that row moves into the
//!   map's lambda (no array of rows is built).
//!
//! and one rule on a full update of one row, `map(w, \(j, y, a) -> update_acc(a, [p.., j],
//! [s(y)]), iota(w), ys, acc)`, with `s` the identity, negation or multiplication by a value
//! bound outside:
//! * `acc-sink-local`: `ys` is made earlier in the same body by a `with_acc` over
//!   `replicate([w], 0)`: that `with_acc` runs on `acc` at `[p..]`, each of its terms `t`
//!   added as `s(t)`. Reverse mode gives this shape for the adjoint of `x - mu[j]` inside a
//!   map over `j` (GMM): the difference's adjoint was a zeroed array per iteration, filled,
//!   then subtracted from `mu`'s.
//!
//! Each element of `acc` receives the same terms in the same order as before, except that
//! they are no longer summed into a zero array first: `acc + (0 + t1 + t2)` becomes
//! `(acc + t1) + t2`, and `acc + s(0 + t1 + t2)` becomes `(acc + s(t1)) + s(t2)` (exact for
//! negation), equal up to rounding. Rows that are constants, `with_acc` groups of
//! several arrays, and accumulators the local one's dataflow cannot be followed through
//! (other SOACs, calls) are left alone.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use super::acc_reduce::{collect_defs, full_update};
use crate::core::ir::{BasicOp, Body, Exp, Lambda, NameTable, Prog, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp, UnOp};
use crate::core::recognise::{is_counter, is_zero};
use crate::core::scalar::PrimType;
use crate::core::subst::subst_body;
use crate::core::visit::{free_in_exp, visit_body, walk_bodies_mut};
use std::collections::{HashMap, HashSet};

/// Runs the pass on every body of every function.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("acc-sink") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        let mut defs = HashMap::new();
        collect_defs(&f.body, &mut defs);
        walk_bodies_mut(&mut f.body, &mut |body| {
            let mut i = 0;
            while i < body.stms.len() {
                // A rewrite removes the full update at `i` and may add an `iota` before the
                // producer: the statement at `i` or the one after it is the next one.
                let n = body.stms.len();
                let fired =
                    sink(names, ctx, &defs, body, i) || sink_local(names, ctx, &defs, body, i);
                if !fired || body.stms.len() == n {
                    i += 1;
                }
            }
        });
    }
}

/// Whether the full update at `body.stms[fi]` of `acc` by `ys` can move up to the statement
/// at `from`, which makes `ys`: `ys` is bound once and read only by the full update, nothing
/// from `from` on mentions the accumulator, and the full update reads nothing bound there but
/// `ys` and `also`.
fn movable_up(
    names: &NameTable,
    body: &Body,
    from: usize,
    fi: usize,
    ys: Var,
    acc: Var,
    also: &[Var],
) -> bool {
    if occurrences(body, ys) != 2 {
        return false;
    }
    let acc_set = HashSet::from([acc]);
    if body.stms[from..fi].iter().any(|s| mentions(s, &acc_set)) {
        return false;
    }
    let bound: HashSet<Var> = body.stms[from..fi]
        .iter()
        .flat_map(|s| s.pat.iter().copied())
        .collect();
    !free_in_exp(names, &body.stms[fi].exp)
        .iter()
        .any(|v| bound.contains(v) && *v != ys && !also.contains(v))
}

/// Whether `v` occurs (bound or used) in `stm`.
fn mentions(stm: &Stm, vs: &HashSet<Var>) -> bool {
    let mut found = false;
    let b = Body {
        stms: vec![stm.clone()],
        result: vec![],
    };
    visit_body(&b, &mut |u| found |= vs.contains(&u));
    found
}

fn occurrences(body: &Body, v: Var) -> usize {
    let mut n = 0;
    visit_body(body, &mut |u| n += usize::from(u == v));
    n
}

/// Tries the rules on the full update at `body.stms[fi]`.
fn sink(
    names: &mut NameTable,
    ctx: &mut Ctx,
    defs: &HashMap<Var, Exp>,
    body: &mut Body,
    fi: usize,
) -> bool {
    let fstm = &body.stms[fi];
    let Exp::Soac(Soac::Map {
        w,
        lam: flam,
        arrays: farrays,
    }) = &fstm.exp
    else {
        return false;
    };
    let ([_, ys, acc], [j, _, a], [acc_out]) = (&farrays[..], &flam.params[..], &fstm.pat[..])
    else {
        return false;
    };
    let (ys, acc, j, a, acc_out, w) = (*ys, *acc, *j, *a, *acc_out, *w);
    let Type::Acc { shape, elems } = names.ty(acc).clone() else {
        return false;
    };
    let [elem] = elems[..] else {
        return false;
    };
    if full_update(defs, fstm, acc, &shape) != Some(ys) {
        return false;
    }
    // The producer: an earlier map of the same width in this body.
    let Some(pi) = body.stms[..fi].iter().position(|s| s.pat.contains(&ys)) else {
        return false;
    };
    let pstm = &body.stms[pi];
    let Exp::Soac(Soac::Map {
        w: pw, lam: plam, ..
    }) = &pstm.exp
    else {
        return false;
    };
    // A map that only passes its inputs on is left to `map-identity`, which exposes the map
    // that computes the rows.
    let passes_on = plam.body.stms.is_empty()
        && plam
            .body
            .result
            .iter()
            .all(|r| r.as_var().is_some_and(|v| plam.params.contains(&v)));
    if *pw != w || passes_on {
        return false;
    }
    let r = pstm.pat.iter().position(|v| *v == ys).unwrap();
    if !movable_up(names, body, pi, fi, ys, acc, &[farrays[0]]) {
        return false;
    }
    let bound: HashSet<Var> = body.stms[pi..fi]
        .iter()
        .flat_map(|s| s.pat.iter().copied())
        .filter(|v| *v != ys)
        .collect();
    let SubExp::Var(y) = plam.body.result[r] else {
        return false;
    };
    let outer_ty = Type::Acc {
        shape: shape.clone(),
        elems: vec![elem],
    };
    let mut nlam = plam.clone();
    let fin = match sink_with_acc(names, defs, &mut nlam, y, j, a, &shape, elem) {
        Some(fin) => {
            ctx.fire("acc-sink-with-acc");
            fin
        }
        None => {
            // Move the full update of the row into the lambda.
            let mut nest = flam.body.clone();
            subst_body(
                &mut nest,
                &HashMap::from([(flam.params[1], SubExp::Var(y))]),
            );
            nlam.body.stms.extend(nest.stms);
            ctx.fire("acc-sink-update");
            nest.result[0]
        }
    };
    nlam.body.result[r] = fin;
    nlam.ret[r] = outer_ty;
    nlam.params.push(j);
    nlam.params.push(a);
    // The counter comes from the full update's `iota` where it is in scope at the producer,
    // from a new one otherwise.
    let fiota = farrays[0];
    let new_iota = bound.contains(&fiota);
    let iota = if new_iota {
        names.fresh("iota", Type::array(PrimType::I64, vec![w]))
    } else {
        fiota
    };
    let Exp::Soac(Soac::Map { arrays, .. }) = &body.stms[pi].exp else {
        unreachable!()
    };
    let mut narrays = arrays.clone();
    narrays.push(iota);
    narrays.push(acc);
    let mut pat = body.stms[pi].pat.clone();
    pat[r] = acc_out;
    let aux = body.stms[pi].aux.clone();
    body.stms[pi] = Stm {
        pat,
        exp: Exp::Soac(Soac::Map {
            w,
            lam: nlam,
            arrays: narrays,
        }),
        aux: aux.clone(),
    };
    body.stms.remove(fi);
    if new_iota {
        body.stms.insert(
            pi,
            Stm {
                pat: vec![iota],
                exp: Exp::BasicOp(BasicOp::Iota {
                    n: w,
                    start: SubExp::i64(0),
                    stride: SubExp::i64(1),
                    elem: PrimType::I64,
                }),
                aux,
            },
        );
    }
    true
}

/// The `acc-sink-local` rule on the statement at `body.stms[fi]`: a map over `iota(w)` that
/// adds `ys[j]`, `-ys[j]` or `ys[j] * c` into `acc[p.., j]` (`p` and `c` bound outside it),
/// where `ys` is made earlier in the same body by a `with_acc` over `replicate([w], 0)` and
/// read by nothing else. The `with_acc` then adds its scaled terms into `acc` at `p..`
/// directly: no zero array, no second pass over it. (Reverse mode gives this for the adjoint
/// of an array computed inside a lambda from a row of a free array, as `x - mu[j]`.)
fn sink_local(
    names: &mut NameTable,
    ctx: &mut Ctx,
    defs: &HashMap<Var, Exp>,
    body: &mut Body,
    fi: usize,
) -> bool {
    let fstm = &body.stms[fi];
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &fstm.exp else {
        return false;
    };
    let ([x0, x1, acc], [p0, p1, a], [acc_out]) = (&arrays[..], &lam.params[..], &fstm.pat[..])
    else {
        return false;
    };
    // The counter and the array, in either order.
    let (ys, j, y) = if is_counter(defs.get(x0), w) {
        (*x1, *p0, *p1)
    } else if is_counter(defs.get(x1), w) {
        (*x0, *p1, *p0)
    } else {
        return false;
    };
    let (acc, a, acc_out, w) = (*acc, *a, *acc_out, *w);
    let Type::Acc { shape, elems } = names.ty(acc).clone() else {
        return false;
    };
    let [elem] = elems[..] else {
        return false;
    };
    // The lambda: the term, scaled or not, then its addition at `[p.., j]`.
    let bound_inside = |se: &SubExp| se.as_var().is_some_and(|v| [j, y, a].contains(&v));
    let (scale, term, update) = match &lam.body.stms[..] {
        [u] => (Scale::One, y, u),
        [sc, u] => {
            let [t] = sc.pat[..] else {
                return false;
            };
            let scale = match &sc.exp {
                Exp::BasicOp(BasicOp::Prim(PrimOp::Un(UnOp::Neg, ty), args))
                    if args[..] == [SubExp::Var(y)] =>
                {
                    Scale::Neg(*ty)
                }
                Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Mul, ty), args)) => match &args[..] {
                    [SubExp::Var(v), c] | [c, SubExp::Var(v)] if *v == y && !bound_inside(c) => {
                        Scale::By(*ty, *c)
                    }
                    _ => return false,
                },
                _ => return false,
            };
            (scale, t, u)
        }
        _ => return false,
    };
    let Exp::BasicOp(BasicOp::UpdateAcc {
        acc: ua,
        indices,
        values,
    }) = &update.exp
    else {
        return false;
    };
    let Some((last, prefix)) = indices.split_last() else {
        return false;
    };
    if *ua != a
        || update.pat.len() != 1
        || lam.body.result != [SubExp::Var(update.pat[0])]
        || values[..] != [SubExp::Var(term)]
        || *last != SubExp::Var(j)
        || prefix
            .iter()
            .any(|p| bound_inside(p) || *p == SubExp::Var(term))
        || shape.len() != indices.len()
        || shape[prefix.len()] != w
        || occurrences(&lam.body, y) != 1
    {
        return false;
    }
    let to = Target {
        prefix: prefix.to_vec(),
        scale,
        elem,
    };
    // The producer: a with_acc earlier in this body; `ys` is read by the full update only.
    let Some(wi) = body.stms[..fi].iter().position(|s| s.pat.contains(&ys)) else {
        return false;
    };
    if !movable_up(names, body, wi, fi, ys, acc, &[]) {
        return false;
    }
    let aux = fstm.aux.clone();
    let mut stms = body.stms.clone();
    stms.remove(fi);
    let before = stms.len();
    let Some(fin) = on_outer(names, defs, &mut stms, wi, ys, acc, &shape, &to) else {
        return false;
    };
    // The updated accumulator is bound right after the statements that replace the with_acc.
    let end = wi + 1 + stms.len() - before;
    stms.insert(
        end,
        Stm {
            pat: vec![acc_out],
            exp: Exp::BasicOp(BasicOp::SubExp(fin)),
            aux,
        },
    );
    body.stms = stms;
    ctx.fire("acc-sink-local");
    true
}

/// The `acc-sink-with-acc` rule inside the producer's lambda `lam`, whose result `y` is the
/// row: when `y` is an array a `with_acc` of `lam`'s body accumulates from zeros, that
/// `with_acc` runs on the outer accumulator `a` at row `j` instead. Returns the updated outer
/// accumulator; leaves `lam` unchanged when the rule does not apply.
#[allow(clippy::too_many_arguments)]
fn sink_with_acc(
    names: &mut NameTable,
    defs: &HashMap<Var, Exp>,
    lam: &mut Lambda,
    y: Var,
    j: Var,
    a: Var,
    shape: &[SubExp],
    elem: PrimType,
) -> Option<SubExp> {
    // `y` is bound by the with_acc and is only the lambda's result.
    if occurrences(&lam.body, y) != 2 {
        return None;
    }
    let wi = lam.body.stms.iter().position(|s| s.pat.contains(&y))?;
    let to = Target {
        prefix: vec![SubExp::Var(j)],
        scale: Scale::One,
        elem,
    };
    on_outer(names, defs, &mut lam.body.stms, wi, y, a, shape, &to)
}

/// Makes the `with_acc` at `stms[wi]`, which accumulates the array `y` from zeros, add into
/// the outer accumulator `a` (of shape `shape`) instead, at `to.prefix` followed by `y`'s own
/// position, each term scaled by `to.scale`. Returns the updated outer accumulator; leaves
/// `stms` unchanged when the `with_acc` does not have that form. The caller has checked that
/// nothing but the full update it replaces reads `y`.
#[allow(clippy::too_many_arguments)]
fn on_outer(
    names: &mut NameTable,
    defs: &HashMap<Var, Exp>,
    stms: &mut Vec<Stm>,
    wi: usize,
    y: Var,
    a: Var,
    shape: &[SubExp],
    to: &Target,
) -> Option<SubExp> {
    let elem = to.elem;
    let wstm = &stms[wi];
    let Exp::WithAcc { inputs, lam: wlam } = &wstm.exp else {
        return None;
    };
    let q = wstm.pat.iter().position(|v| *v == y)?;
    // The group of `y`: exactly one array, zeros of the row's shape.
    let mut off = 0;
    let mut group = None;
    for (g, (_, arrays)) in inputs.iter().enumerate() {
        if q < off + arrays.len() {
            group = Some(g);
            break;
        }
        off += arrays.len();
    }
    let g = group?;
    let narrays = off + inputs[g..].iter().map(|(_, a)| a.len()).sum::<usize>();
    let (gshape, garrays) = &inputs[g];
    let [init] = garrays[..] else {
        return None;
    };
    if shape.len() < to.prefix.len() || gshape[..] != shape[to.prefix.len()..] {
        return None;
    }
    match defs.get(&init) {
        Some(Exp::BasicOp(BasicOp::Replicate { shape: s, value }))
            if s == gshape && is_zero(value) => {}
        _ => return None,
    }
    if names.ty(init).elem() != elem || names.ty(init).dims() != gshape.as_slice() {
        return None;
    }
    let acc_in = wlam.params[g];
    let outer_ty = Type::Acc {
        shape: shape.to_vec(),
        elems: vec![elem],
    };
    let mut wl = wlam.clone();
    let mut set = HashSet::from([acc_in]);
    retarget(names, &mut wl.body, &mut set, to, &outer_ty)?;
    // The local accumulator ends as the lambda's result `g`, and nowhere else.
    let fin = wl.body.result[g].as_var()?;
    if !set.contains(&fin)
        || wl
            .body
            .result
            .iter()
            .filter(|r| r.as_var().is_some_and(|v| set.contains(&v)))
            .count()
            != 1
    {
        return None;
    }
    for v in &set {
        if *v != acc_in {
            names.set_ty(*v, outer_ty.clone());
        }
    }
    subst_body(&mut wl.body, &HashMap::from([(acc_in, SubExp::Var(a))]));
    let wpat = wstm.pat.clone();
    let aux = wstm.aux.clone();
    let (new_stms, fin) = if inputs.len() == 1 {
        // The only accumulator: the body runs in place, its other results bound by copies.
        let mut new_stms = wl.body.stms;
        for (p, r) in wpat[narrays..].iter().zip(&wl.body.result[1..]) {
            new_stms.push(Stm {
                pat: vec![*p],
                exp: Exp::BasicOp(BasicOp::SubExp(*r)),
                aux: aux.clone(),
            });
        }
        (new_stms, wl.body.result[0])
    } else {
        // The outer accumulator becomes the with_acc's last result.
        let mut ninputs = inputs.clone();
        ninputs.remove(g);
        wl.params.remove(g);
        let r = wl.body.result.remove(g);
        wl.body.result.push(r);
        wl.ret.remove(g);
        wl.ret.push(outer_ty.clone());
        let out = names.fresh("acc", outer_ty);
        let mut pat = wpat;
        pat.remove(q);
        pat.push(out);
        (
            vec![Stm {
                pat,
                exp: Exp::WithAcc {
                    inputs: ninputs,
                    lam: wl,
                },
                aux,
            }],
            SubExp::Var(out),
        )
    };
    stms.splice(wi..=wi, new_stms);
    Some(fin)
}

/// Follows the dataflow of the accumulators in `set` through `body`, adding every variable
/// that carries one of them to `set`: updates get the row index `j` in front, and the
/// declared result types that carry one become `outer`. `None` where an accumulator reaches
/// a statement the rule does not know.
fn retarget(
    names: &mut NameTable,
    body: &mut Body,
    set: &mut HashSet<Var>,
    to: &Target,
    outer: &Type,
) -> Option<()> {
    let is_in = |se: &SubExp, set: &HashSet<Var>| se.as_var().is_some_and(|v| set.contains(&v));
    let mut k = 0;
    while k < body.stms.len() {
        let at = k;
        k += 1;
        if !mentions(&body.stms[at], set) {
            continue;
        }
        let mut scaling = None;
        let stm = &mut body.stms[at];
        match &mut stm.exp {
            Exp::BasicOp(BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            }) if set.contains(acc) => {
                indices.splice(0..0, to.prefix.iter().copied());
                set.insert(stm.pat[0]);
                // The new position is proved again, or checked.
                stm.aux
                    .attrs
                    .retain(|a| a != crate::core::safety::IN_BOUNDS);
                if let Some((op, factor)) = to.scale.op() {
                    // The term is scaled where it is added.
                    let [value] = &mut values[..] else {
                        return None;
                    };
                    let elem = to.elem;
                    let scaled = names.fresh("adj", Type::Prim(elem));
                    let args = match factor {
                        Some(c) => vec![*value, c],
                        None => vec![*value],
                    };
                    *value = SubExp::Var(scaled);
                    scaling = Some(Stm {
                        pat: vec![scaled],
                        exp: Exp::BasicOp(BasicOp::Prim(op, args)),
                        aux: stm.aux.clone(),
                    });
                }
            }
            Exp::BasicOp(BasicOp::SubExp(SubExp::Var(v))) if set.contains(v) => {
                set.insert(stm.pat[0]);
            }
            Exp::Soac(Soac::Map { lam, arrays, .. }) => {
                for (p, x) in lam.params.iter().zip(arrays.iter()) {
                    if set.contains(x) {
                        set.insert(*p);
                    }
                }
                retarget(names, &mut lam.body, set, to, outer)?;
                for (i, r) in lam.body.result.iter().enumerate() {
                    if is_in(r, set) {
                        set.insert(stm.pat[i]);
                        lam.ret[i] = outer.clone();
                    }
                }
            }
            Exp::Loop { params, body, .. } => {
                for (p, init) in params.iter() {
                    if is_in(init, set) {
                        set.insert(*p);
                    }
                }
                retarget(names, body, set, to, outer)?;
                for (i, (p, _)) in params.iter().enumerate() {
                    let res = is_in(&body.result[i], set);
                    if set.contains(p) != res {
                        return None;
                    }
                    if res {
                        set.insert(stm.pat[i]);
                    }
                }
            }
            Exp::If {
                then_body,
                else_body,
                ret,
                ..
            } => {
                retarget(names, then_body, set, to, outer)?;
                retarget(names, else_body, set, to, outer)?;
                for (i, t) in ret.iter_mut().enumerate() {
                    let carries = is_in(&then_body.result[i], set);
                    if carries != is_in(&else_body.result[i], set) {
                        return None;
                    }
                    if carries {
                        set.insert(stm.pat[i]);
                        *t = outer.clone();
                    }
                }
            }
            Exp::WithAcc { inputs, lam } => {
                if inputs
                    .iter()
                    .any(|(_, xs)| xs.iter().any(|x| set.contains(x)))
                {
                    return None;
                }
                retarget(names, &mut lam.body, set, to, outer)?;
                let n = inputs.len();
                let narrays: usize = inputs.iter().map(|(_, xs)| xs.len()).sum();
                for i in n..lam.body.result.len() {
                    if is_in(&lam.body.result[i], set) {
                        set.insert(stm.pat[narrays + i - n]);
                        lam.ret[i] = outer.clone();
                    }
                }
                if lam.body.result[..n].iter().any(|r| is_in(r, set)) {
                    return None;
                }
            }
            _ => return None,
        }
        if let Some(scaling) = scaling {
            body.stms.insert(at, scaling);
            k += 1;
        }
    }
    Some(())
}

/// Where [`retarget`] sends the terms of the local accumulator: the outer one at the local
/// position behind `prefix`, each term scaled by `scale`.
struct Target {
    prefix: Vec<SubExp>,
    scale: Scale,
    elem: PrimType,
}

/// A linear map of one term: what a full update applies to each element before adding it.
#[derive(Clone, Copy, PartialEq)]
enum Scale {
    /// `t`
    One,
    /// `-t`
    Neg(PrimType),
    /// `t * c`, `c` bound outside the accumulation.
    By(PrimType, SubExp),
}

impl Scale {
    /// The operation and its second operand, `None` for the identity.
    fn op(self) -> Option<(PrimOp, Option<SubExp>)> {
        match self {
            Scale::One => None,
            Scale::Neg(t) => Some((PrimOp::Un(UnOp::Neg, t), None)),
            Scale::By(t, c) => Some((PrimOp::Bin(BinOp::Mul, t), Some(c))),
        }
    }
}
