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
//! Each element of `acc` receives the same terms in the same order as before, except that
//! they are no longer summed into a zero array first: `acc + (0 + t1 + t2)` becomes
//! `(acc + t1) + t2`, equal up to rounding. Rows that are constants, `with_acc` groups of
//! several arrays, and accumulators the local one's dataflow cannot be followed through
//! (other SOACs, calls) are left alone.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use super::accred::{collect_defs, full_update};
use crate::core::ir::{BasicOp, Body, Exp, Lambda, NameTable, Prog, Soac, Stm, SubExp, Type, Var};
use crate::core::recognise::is_zero;
use crate::core::subst::subst_body;
use crate::core::visit::{free_in_exp, visit_body, walk_bodies_mut};
use crate::value::PrimType;
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
                if !sink(names, ctx, &defs, body, i) || body.stms.len() == n {
                    i += 1;
                }
            }
        });
    }
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
    // `ys` is bound once and read only by the full update.
    let whole = Body {
        stms: body.stms.clone(),
        result: body.result.clone(),
    };
    if occurrences(&whole, ys) != 2 {
        return false;
    }
    // Nothing from the producer on mentions the accumulator, and the full update needs
    // nothing bound there but `ys`.
    let acc_set = HashSet::from([acc]);
    if body.stms[pi..fi].iter().any(|s| mentions(s, &acc_set)) {
        return false;
    }
    let bound: HashSet<Var> = body.stms[pi..fi]
        .iter()
        .flat_map(|s| s.pat.iter().copied())
        .filter(|v| *v != ys)
        .collect();
    if free_in_exp(names, &fstm.exp)
        .iter()
        .any(|v| bound.contains(v) && *v != farrays[0])
    {
        return false;
    }
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
    let wstm = &lam.body.stms[wi];
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
    if gshape[..] != shape[1..] {
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
    retarget(&mut wl.body, &mut set, j, &outer_ty)?;
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
    let (stms, fin) = if inputs.len() == 1 {
        // The only accumulator: the body runs in place, its other results bound by copies.
        let mut stms = wl.body.stms;
        for (p, r) in wpat[narrays..].iter().zip(&wl.body.result[1..]) {
            stms.push(Stm {
                pat: vec![*p],
                exp: Exp::BasicOp(BasicOp::SubExp(*r)),
                aux: aux.clone(),
            });
        }
        (stms, wl.body.result[0])
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
    lam.body.stms.splice(wi..=wi, stms);
    Some(fin)
}

/// Follows the dataflow of the accumulators in `set` through `body`, adding every variable
/// that carries one of them to `set`: updates get the row index `j` in front, and the
/// declared result types that carry one become `outer`. `None` where an accumulator reaches
/// a statement the rule does not know.
fn retarget(body: &mut Body, set: &mut HashSet<Var>, j: Var, outer: &Type) -> Option<()> {
    let is_in = |se: &SubExp, set: &HashSet<Var>| se.as_var().is_some_and(|v| set.contains(&v));
    for stm in body.stms.iter_mut() {
        if !mentions(stm, set) {
            continue;
        }
        match &mut stm.exp {
            Exp::BasicOp(BasicOp::UpdateAcc { acc, indices, .. }) if set.contains(acc) => {
                indices.insert(0, SubExp::Var(j));
                set.insert(stm.pat[0]);
                // The new position is proved again, or checked.
                stm.aux
                    .attrs
                    .retain(|a| a != crate::core::safety::IN_BOUNDS);
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
                retarget(&mut lam.body, set, j, outer)?;
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
                retarget(body, set, j, outer)?;
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
                retarget(then_body, set, j, outer)?;
                retarget(else_body, set, j, outer)?;
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
                retarget(&mut lam.body, set, j, outer)?;
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
    }
    Some(())
}
