//! Loop fission for code motion (pass `map-fission`, used by [`super::hoist`] and
//! [`super::mapfission`]): a `for` loop inside a lambda or loop body whose parameters split
//! into an invariant group and the rest becomes two loops, the invariant one first, for the
//! caller to move out.
//!
//! Rule `loop-split-invariant` ([`split_loop_invariant`]): the groups do not read each other.
//!
//! Rule `loop-split-materialise` ([`split_loop_materialise`]): the rest reads the invariant
//! group, but not the other way round. The first loop runs the invariant group and writes,
//! at each iteration, the scalars the rest reads into arrays indexed by the counter; the
//! second runs the rest and reads them back. This is the loop case of computing a `jmp`'s
//! primal once: forward mode carries primal and tangent through the same loop, the tangent
//! reads the primal's values of each iteration, and without the split the primal loop runs
//! once per seed. It pays one array element per scalar and iteration for the one-way
//! dependence.
//!
//! The materialising split is made only when nothing changes about errors: the first loop
//! runs all its
//! iterations before the second runs any, so either the invariant statements cannot fail,
//! or the rest can fail only where an earlier statement failed first
//! ([`crate::core::safety::fails_only_after_earlier`]: forward mode's reads of tangents).
//! Loops whose bodies consume free variables or variables the other part binds, parameters
//! whose types mention other parameters, and rests that read invariant arrays (rather than
//! scalars) are left alone.
//!
//! Takes verified IR and gives verified IR: the statements returned bind every variable
//! the original bound, under the same names.

use super::mapfission::{is_invariant, split_if_invariant};
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, LoopForm, NameTable, Stm, SubExp, Type, Var};
use crate::core::safety::{Ranges, fails_only_after_earlier, is_safe};
use crate::core::subst::{deps_in, fresh_copy, prune};
use crate::core::visit::{consumed_in_body, free_in_exp, type_vars};
use std::collections::HashSet;

/// The parts of a `for` loop that either rule may split: at least two parameters, a trip
/// count that reads nothing in `variant`, and no parameter or result whose type mentions a
/// parameter or the counter.
struct SplittableLoop<'s> {
    params: &'s [(Var, SubExp)],
    i: &'s Var,
    bound: &'s SubExp,
    body: &'s Body,
    pvars: Vec<Var>,
}

fn splittable_loop<'s>(
    names: &NameTable,
    stm: &'s Stm,
    variant: &HashSet<Var>,
) -> Option<SplittableLoop<'s>> {
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
    let mut scoped: HashSet<Var> = pvars.iter().copied().collect();
    scoped.insert(*i);
    if pvars
        .iter()
        .chain(&stm.pat)
        .any(|p| type_vars(names.ty(*p)).iter().any(|d| scoped.contains(d)))
    {
        return None;
    }
    Some(SplittableLoop {
        params,
        i,
        bound,
        body,
        pvars,
    })
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
    let SplittableLoop {
        params,
        body,
        pvars,
        ..
    } = splittable_loop(names, stm, variant)?;
    let pset: HashSet<Var> = pvars.iter().copied().collect();
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

/// A copy, under a fresh name, of the statement of `before` that binds `v`, if it builds a
/// fresh array from invariant sizes and values.
fn rebuild(names: &mut NameTable, v: Var, variant: &HashSet<Var>, before: &[Stm]) -> Option<Stm> {
    let def = before.iter().find(|s| s.pat == [v])?;
    let fresh_array = matches!(
        def.exp,
        Exp::BasicOp(BasicOp::Replicate { .. } | BasicOp::Scratch { .. })
    );
    if !fresh_array || !free_in_exp(names, &def.exp).is_disjoint(variant) {
        return None;
    }
    let ty = names.ty(v).clone();
    if type_vars(&ty).iter().any(|d| variant.contains(d)) {
        return None;
    }
    let hint = names.hint(v).to_string();
    Some(Stm {
        pat: vec![names.fresh(&hint, ty)],
        exp: def.exp.clone(),
        aux: def.aux.clone(),
    })
}

/// The statements of `body` that read nothing in `vb`, and the rest (whose variables join
/// `vb`); an `if` on an invariant condition is split into both.
fn classify(names: &mut NameTable, body: &Body, vb: &mut HashSet<Var>) -> (Vec<Stm>, Vec<Stm>) {
    // Consumption is checked once the parts are known (the caller's "neither part may
    // consume" test).
    let none = HashSet::new();
    let invariant =
        |names: &NameTable, s: &Stm, vb: &HashSet<Var>| is_invariant(names, s, vb, &none);
    let (mut inv_stms, mut rest_stms) = (Vec::new(), Vec::new());
    for s in &body.stms {
        if invariant(names, s, vb) {
            inv_stms.push(s.clone());
        } else if matches!(s.exp, Exp::If { .. })
            && let Some((if_inv, if_rest)) = split_if_invariant(names, s, vb)
            && invariant(names, &if_inv, vb)
        {
            inv_stms.push(if_inv);
            vb.extend(if_rest.pat.iter().copied());
            rest_stms.push(if_rest);
        } else {
            vb.extend(s.pat.iter().copied());
            rest_stms.push(s.clone());
        }
    }
    (inv_stms, rest_stms)
}

/// Splits the loop `stm` as the module describes. Returns the statements of the invariant
/// part (the arrays' allocations, then the first loop), for the caller to move out, and the
/// second loop.
///
/// `before` holds the statements of the enclosing body before `stm`: an initial value that
/// is variant only because the loop consumes it where it was built (a `replicate` or
/// `scratch` of invariant sizes, which cannot leave the body since each run needs its own)
/// is built anew for the first loop.
pub fn split_loop_materialise(
    names: &mut NameTable,
    stm: &Stm,
    variant: &HashSet<Var>,
    before: &[Stm],
) -> Option<(Vec<Stm>, Stm)> {
    let SplittableLoop {
        params,
        i,
        bound,
        body,
        pvars,
    } = splittable_loop(names, stm, variant)?;
    let k = params.len();
    // The rest: parameters with variant initial values, and those whose updates come from
    // statements that read the rest (grown to a fixed point). The body's statements are
    // classified against it, `if`s split on the way.
    let mut consumed = HashSet::new();
    consumed_in_body(body, &mut consumed);
    let mut inits: Vec<SubExp> = params.iter().map(|(_, init)| *init).collect();
    let mut rebuilt: Vec<Stm> = Vec::new();
    let mut in_rest = vec![false; k];
    for c in 0..k {
        let SubExp::Var(v) = inits[c] else { continue };
        if !variant.contains(&v) {
            continue;
        }
        match rebuild(names, v, variant, before) {
            Some(s) => {
                inits[c] = SubExp::Var(s.pat[0]);
                rebuilt.push(s);
            }
            None => in_rest[c] = true,
        }
    }
    let (inv_stms, rest_stms, vb) = loop {
        let mut vb: HashSet<Var> = variant.clone();
        vb.extend((0..k).filter(|c| in_rest[*c]).map(|c| pvars[c]));
        let (inv_stms, rest_stms) = classify(names, body, &mut vb);
        let mut changed = false;
        for (rest, result) in in_rest.iter_mut().zip(&body.result) {
            if !*rest && matches!(result, SubExp::Var(v) if vb.contains(v)) {
                *rest = true;
                changed = true;
            }
        }
        if !changed {
            break (inv_stms, rest_stms, vb);
        }
    };
    if in_rest.iter().all(|b| *b) || !in_rest.iter().any(|b| *b) {
        return None;
    }
    let inv_idx: Vec<usize> = (0..k).filter(|c| !in_rest[*c]).collect();
    let rest_idx: Vec<usize> = (0..k).filter(|c| in_rest[*c]).collect();
    // Neither part may consume what the other reads or binds.
    let inv_bound: HashSet<Var> = inv_stms.iter().flat_map(|s| s.pat.clone()).collect();
    let mut rest_consumed = HashSet::new();
    consumed_in_body(
        &Body {
            stms: rest_stms.clone(),
            result: vec![],
        },
        &mut rest_consumed,
    );
    if rest_consumed
        .iter()
        .any(|v| inv_bound.contains(v) || !vb.contains(v))
    {
        return None;
    }
    // Errors: the invariant loop runs ahead of the rest.
    let mut ranges = Ranges::default();
    if names.ty(*i) == &Type::Prim(crate::core::scalar::PrimType::I64) {
        ranges.insert(*i, 0, *bound);
    }
    let inv_safe = inv_stms.iter().all(|s| is_safe(&s.exp, &ranges, names));
    let rest_follows = rest_stms
        .iter()
        .all(|s| fails_only_after_earlier(s, &ranges, names));
    if !inv_safe && !rest_follows {
        return None;
    }
    // Reads of arrays from outside are repeated; the other invariant values the rest reads
    // pass through arrays (scalars only, one array each).
    let inv_params: HashSet<Var> = inv_idx.iter().map(|c| pvars[*c]).collect();
    let rest_stms = super::mapfission::repeat_reads(names, &inv_stms, rest_stms, &inv_params);
    let inv_scope: HashSet<Var> = inv_bound
        .iter()
        .copied()
        .chain(inv_idx.iter().map(|c| pvars[*c]))
        .collect();
    let rest_bound: HashSet<Var> = rest_stms.iter().flat_map(|s| s.pat.clone()).collect();
    let mut needed: Vec<Var> = Vec::new();
    let reads = rest_stms
        .iter()
        .flat_map(|s| {
            let mut fv: Vec<Var> = free_in_exp(names, &s.exp).into_iter().collect();
            fv.sort();
            fv
        })
        .chain(rest_idx.iter().filter_map(|c| body.result[*c].as_var()));
    for v in reads {
        if inv_scope.contains(&v) && !rest_bound.contains(&v) && !needed.contains(&v) {
            needed.push(v);
        }
    }
    if needed.is_empty()
        || needed
            .iter()
            .any(|v| !matches!(names.ty(*v), Type::Prim(_)) || consumed.contains(v))
    {
        return None;
    }

    // The arrays the first loop fills, one per needed scalar.
    let mut out: Vec<Stm> = rebuilt
        .into_iter()
        .filter(|s| inv_idx.iter().any(|c| inits[*c] == SubExp::Var(s.pat[0])))
        .collect();
    let mut buf_params = Vec::new();
    let mut buf_outs = Vec::new();
    let mut writes = Vec::new();
    let mut buf_results = Vec::new();
    for v in &needed {
        let Type::Prim(t) = names.ty(*v).clone() else {
            return None;
        };
        let hint = format!("{}_iters", names.hint(*v));
        let ty = Type::array(t, vec![*bound]);
        let init = names.fresh(&hint, ty.clone());
        out.push(Stm {
            pat: vec![init],
            exp: Exp::BasicOp(BasicOp::Scratch {
                elem: t,
                shape: vec![*bound],
            }),
            aux: stm.aux.clone(),
        });
        let param = names.fresh(&hint, ty.clone());
        let written = names.fresh(&hint, ty.clone());
        writes.push(Stm {
            pat: vec![written],
            exp: Exp::BasicOp(BasicOp::Update {
                array: param,
                slice: vec![DimIndex::Fix(SubExp::Var(*i))],
                value: SubExp::Var(*v),
            }),
            aux: stm.aux.clone(),
        });
        buf_params.push((param, SubExp::Var(init)));
        buf_results.push(SubExp::Var(written));
        buf_outs.push(names.fresh(&hint, ty));
    }

    // The first loop: the invariant group and the arrays, on fresh names.
    let mut inv_body_stms = inv_stms;
    inv_body_stms.extend(writes);
    let mut inv_result: Vec<SubExp> = inv_idx.iter().map(|c| body.result[*c]).collect();
    inv_result.extend(buf_results);
    let inv_body = Body {
        stms: inv_body_stms,
        result: inv_result,
    };
    let mut binders = vec![*i];
    binders.extend(inv_idx.iter().map(|c| pvars[*c]));
    binders.extend(buf_params.iter().map(|(p, _)| *p));
    let (fresh, inv_body) = fresh_copy(names, &binders, &inv_body);
    let inits = inv_idx
        .iter()
        .map(|c| inits[*c])
        .chain(buf_params.iter().map(|(_, init)| *init));
    let mut inv_pat: Vec<Var> = inv_idx.iter().map(|c| stm.pat[*c]).collect();
    inv_pat.extend(buf_outs.iter().copied());
    out.push(Stm {
        pat: inv_pat,
        exp: Exp::Loop {
            params: fresh[1..].iter().copied().zip(inits).collect(),
            form: LoopForm::For {
                i: fresh[0],
                bound: *bound,
            },
            body: inv_body,
        },
        aux: stm.aux.clone(),
    });

    // The second loop reads the needed scalars back under their own names.
    let mut rest_body_stms: Vec<Stm> = needed
        .iter()
        .zip(&buf_outs)
        .map(|(v, buf)| Stm {
            pat: vec![*v],
            exp: Exp::BasicOp(BasicOp::Index {
                array: *buf,
                slice: vec![DimIndex::Fix(SubExp::Var(*i))],
            }),
            aux: stm.aux.clone(),
        })
        .collect();
    rest_body_stms.extend(rest_stms);
    let rest = Stm {
        pat: rest_idx.iter().map(|c| stm.pat[*c]).collect(),
        exp: Exp::Loop {
            params: rest_idx.iter().map(|c| params[*c]).collect(),
            form: LoopForm::For {
                i: *i,
                bound: *bound,
            },
            body: Body {
                stms: rest_body_stms,
                result: rest_idx.iter().map(|c| body.result[*c]).collect(),
            },
        },
        aux: stm.aux.clone(),
    };
    Some((out, rest))
}
