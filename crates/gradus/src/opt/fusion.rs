//! SOAC fusion (pass `fusion`).
//!
//! Rules:
//! * `map-map` (vertical): `let ys = map(w, f, xs)` whose results are used only as inputs of
//!   one later `let zs = map(w, g, ys, us)` becomes `let zs = map(w, g ∘ f, xs, us)` at the
//!   consumer's place: no intermediate array;
//! * `map-split-consumers`: a map whose results are read by different later maps of its
//!   width (or by maps directly in the lambda of a later `with_acc`), each result costing a
//!   few cheap operations, becomes one map per consumer, so that each part fuses into its
//!   consumer. The return sweep's scalings of one cotangent (`ȳ`, `h·ȳ/6`, `2·h·ȳ/6` for
//!   the stages of a Runge-Kutta step) would otherwise be written out as arrays and read
//!   back by every stage's adjoint;
//! * `map-sink`: a cheap map whose single result is read only as an input of a map nested in
//!   the lambda of a later map moves next to that consumer, so that `map-map` can fuse them
//!   (the one-hot seeds of a forward-mode gradient meet the derivative's inner loop this
//!   way); the cheap map is then computed once per outer row, which fusion and `single-point`
//!   turn into no work at all. A map read by a map directly in the lambda of a `with_acc`
//!   moves into that lambda (which runs once: nothing is recomputed), so the adjoint a return
//!   sweep's accumulating map reads is computed where it is read;
//! * `map-horizontal`: two independent maps of the same width that share an input become one
//!   map with the results of both (one traversal);
//! * `map-of-replicate`: an input `replicate([w], x)` of a map of width `w` becomes `x` in
//!   the lambda (every row is the same value; the replicated array is never built), also when
//!   the replicate is bound in an enclosing body;
//! * `map-invariant-result` (a statement rule of the engine): a lambda result that is a
//!   constant or a variable bound outside the lambda becomes `replicate([w], x)` (zero
//!   tangents of values that do not depend on the differentiated input, which the rule above
//!   and the zero analysis of `single-point` then see through);
//! * `map-identity`: a map whose lambda computes nothing and returns its parameters is its
//!   input arrays, one copy per result (when none is consumed, so that sharing them is
//!   unobservable);
//! * `index-of-map` (a statement rule of the engine): `(map(w, f, xs))[i]` with `i` known in
//!   bounds and a cheap `f` (basic operations only) read at most one loop or lambda deeper
//!   than the map, or a map read nowhere else and bound in the same body or read at row `i`
//!   by the iteration `i` of a loop or lambda directly in that body (deeper, the row would be
//!   computed once per enclosing iteration), becomes `f(xs[i])`: one element is
//!   computed instead of read from an array that may then die. This is how map fuses into
//!   single-element consumers such as the index a reduction's fission produces.
//!
//! * `map-into-hist` (a statement rule of the engine): a float `+` histogram whose indices and
//!   values one map of the same body computes (and nothing else reads) becomes an
//!   accumulator over the histogram's destination that the map's body updates directly; the
//!   index and value arrays are never built.
//!
//! A `map` fuses into `reduce`, `scan`, `scatter` and other histograms in the last pass of
//! the pipeline, `consumer-fusion` (module `consumer`), which builds fused SOACs; the rules
//! here and in `single-point` look for the unfused forms. A map with accumulator inputs or
//! results is never fused into a later one (its updates would move); a map without them
//! fuses into one that has them.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use super::simplify::{Engine, Rewrite, Scope};
use crate::core::ir::{DimIndex, Exp, Lambda, Prog, Soac, Stm, SubExp, Type, Var};
use crate::core::subst::subst_body;
use crate::core::visit::{
    consumed_in_body, free_in_exp, reads_what_later_consume, use_counts, walk_bodies_mut,
};
use std::collections::{HashMap, HashSet};

/// The `index-of-map` rule.
pub fn index_of_map(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
    let Exp::BasicOp(crate::core::ir::BasicOp::Index { array, slice }) = &stm.exp else {
        return None;
    };
    let Some(DimIndex::Fix(i)) = slice.first() else {
        return None;
    };
    let (def, o) = eng.defs.get(array)?.clone();
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &def.exp else {
        return None;
    };
    // An expensive row is computed here only if nothing else reads the array, and the read
    // is in the map's own body or in a loop or lambda directly in it that reads row `i` in
    // its iteration `i`: deeper, or at another row, it would be computed again by every
    // iteration of what encloses the read.
    let by_row = matches!(i, SubExp::Var(v) if scope.row_vars.contains(v));
    let only_read_here = eng.uses.get(array) == Some(&1)
        && (scope.local.contains(array) || (scope.parent_local.contains(array) && by_row));
    // A cheap row is computed at the read unless the read is deeper than a loop or lambda
    // directly in the map's body: there every iteration of what encloses it would compute the
    // row again (`(x - mu)[c]` in a triangular loop over `c` inside a map over rows).
    let near = scope.this_level.contains(array) || scope.outer_level.contains(array);
    if !scope.ranges.in_bounds(i, w) || !((cheap(lam) && near) || only_read_here) {
        return None;
    }
    if arrays
        .iter()
        .any(|a| matches!(eng.names.ty(*a), Type::Acc { .. }))
    {
        return None;
    }
    // The row is computed at the read, later than the map: what the map reads must still be
    // intact there.
    if crate::core::visit::stm_free_vars(&def)
        .iter()
        .any(|v| !eng.readable_later(*v))
    {
        return None;
    }
    ctx.fire("index-of-map");
    let (mut stms, r) = super::singlepoint::value_at(eng, lam, arrays, *i, o, &stm.aux);
    if slice.len() == 1 {
        return Some(Rewrite::Stms(stms, vec![r]));
    }
    let SubExp::Var(rv) = r else {
        return None;
    };
    let t = eng.names.ty(stm.pat[0]).clone();
    let v = eng.names.fresh("elem", t);
    stms.push(Stm {
        pat: vec![v],
        exp: Exp::BasicOp(crate::core::ir::BasicOp::Index {
            array: rv,
            slice: slice[1..].to_vec(),
        }),
        aux: stm.aux.clone(),
    });
    Some(Rewrite::Stms(stms, vec![v.into()]))
}

fn cheap(lam: &Lambda) -> bool {
    lam.body.stms.len() <= 8
        && lam.body.stms.iter().all(|s| match &s.exp {
            Exp::BasicOp(_) => true,
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                then_body.stms.len() + else_body.stms.len() <= 4
                    && then_body
                        .stms
                        .iter()
                        .chain(&else_body.stms)
                        .all(|s| matches!(s.exp, Exp::BasicOp(_)))
            }
            _ => false,
        })
}

/// Runs vertical map fusion (`horizontal` false) or horizontal map fusion on every body of
/// every function. Horizontal fusion runs only once the other passes are done, since a map
/// merged with a variant one can no longer be hoisted.
pub fn run(prog: &mut Prog, ctx: &mut Ctx, horizontal_only: bool) {
    if !ctx.on("fusion") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        let mut counts = use_counts(names, &f.body);
        let mut consumed = HashSet::new();
        consumed_in_body(&f.body, &mut consumed);
        let sunk = ctx.stats.rules.get("map-sink").copied();
        let reps = replicates(names, &mut f.body);
        walk_bodies_mut(&mut f.body, &mut |body| {
            if horizontal_only {
                horizontal(names, ctx, body, &consumed);
            } else {
                replicate_inputs(names, ctx, body, &reps);
                split_consumers(names, ctx, body, &mut counts, &consumed);
                identity_maps(names, ctx, body, &consumed);
                vertical(names, ctx, body, &counts, &consumed);
                sink(names, ctx, body, &counts, &consumed);
            }
        });
        // A sunk map fuses with its consumer now, before hoisting could take it out again.
        if ctx.stats.rules.get("map-sink").copied() != sunk {
            // Sinking replaced a lambda's parameters by the sunk map's results, whose use
            // counts have changed since.
            let counts = use_counts(names, &f.body);
            walk_bodies_mut(&mut f.body, &mut |body| {
                vertical(names, ctx, body, &counts, &consumed);
            });
        }
    }
}

/// The one-dimensional replicates bound anywhere in `body`: variable to width and value. A
/// map input that is one of them is in the scope of its definition, and so is the value.
fn replicates(
    names: &crate::core::ir::NameTable,
    body: &mut crate::core::ir::Body,
) -> HashMap<Var, (SubExp, SubExp)> {
    let mut reps = HashMap::new();
    walk_bodies_mut(body, &mut |b| {
        for stm in &b.stms {
            if let (Exp::BasicOp(crate::core::ir::BasicOp::Replicate { shape, value }), [v]) =
                (&stm.exp, &stm.pat[..])
            {
                let is_acc = value
                    .as_var()
                    .is_some_and(|x| matches!(names.ty(x), Type::Acc { .. }));
                if shape.len() == 1 && !is_acc {
                    reps.insert(*v, (shape[0], *value));
                }
            }
        }
    });
    reps
}

/// The `map-of-replicate` rule on the maps of one body.
fn replicate_inputs(
    names: &mut crate::core::ir::NameTable,
    ctx: &mut Ctx,
    body: &mut crate::core::ir::Body,
    reps: &HashMap<Var, (SubExp, SubExp)>,
) {
    for stm in body.stms.iter_mut() {
        let Exp::Soac(Soac::Map { w, lam, arrays }) = &mut stm.exp else {
            continue;
        };
        let mut consumed = HashSet::new();
        consumed_in_body(&lam.body, &mut consumed);
        let mut k = 0;
        while k < arrays.len() {
            match reps.get(&arrays[k]) {
                Some((n, x)) if n == w && !consumed.contains(&lam.params[k]) => {
                    let p = lam.params.remove(k);
                    arrays.remove(k);
                    let map = HashMap::from([(p, *x)]);
                    subst_body(&mut lam.body, &map);
                    crate::core::subst::subst_names(names, &map);
                    ctx.fire("map-of-replicate");
                }
                _ => k += 1,
            }
        }
    }
}

/// The `map-identity` rule on the maps of one body: a map whose lambda computes nothing and
/// returns only its parameters becomes one copy of an input per result.
fn identity_maps(
    names: &crate::core::ir::NameTable,
    ctx: &mut Ctx,
    body: &mut crate::core::ir::Body,
    consumed: &HashSet<Var>,
) {
    let mut i = 0;
    while i < body.stms.len() {
        let stm = &body.stms[i];
        let Exp::Soac(Soac::Map { lam, arrays, .. }) = &stm.exp else {
            i += 1;
            continue;
        };
        if !lam.body.stms.is_empty() || stm.pat.is_empty() {
            i += 1;
            continue;
        }
        // The input each result returns, when all of them return a parameter.
        let inputs: Option<Vec<Var>> = stm
            .pat
            .iter()
            .zip(&lam.body.result)
            .map(|(v, r)| {
                let SubExp::Var(r) = r else { return None };
                let k = lam.params.iter().position(|p| p == r)?;
                let a = arrays[k];
                let ok = !consumed.contains(&a)
                    && !consumed.contains(v)
                    && names.ty(a) == names.ty(*v)
                    && !matches!(names.ty(a), Type::Acc { .. });
                ok.then_some(a)
            })
            .collect();
        let Some(inputs) = inputs else {
            i += 1;
            continue;
        };
        ctx.fire("map-identity");
        let aux = stm.aux.clone();
        let copies: Vec<Stm> = stm
            .pat
            .iter()
            .zip(inputs)
            .map(|(v, a)| Stm {
                pat: vec![*v],
                exp: Exp::BasicOp(crate::core::ir::BasicOp::SubExp(SubExp::Var(a))),
                aux: aux.clone(),
            })
            .collect();
        let n = copies.len();
        body.stms.splice(i..=i, copies);
        i += n;
    }
}

/// The `map-split-consumers` rule on the maps of one body.
fn split_consumers(
    names: &mut crate::core::ir::NameTable,
    ctx: &mut Ctx,
    body: &mut crate::core::ir::Body,
    counts: &mut HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) {
    let mut p = 0;
    while p < body.stms.len() {
        match split_by_consumer(names, body, p, counts, consumed) {
            Some(parts) => {
                // Every part reads what the map read: the counts the later rules rely on
                // (a producer fuses only into the single reader of its results) follow.
                let one = |stms: Vec<Stm>| crate::core::ir::Body {
                    stms,
                    result: vec![],
                };
                let before = use_counts(names, &one(vec![body.stms[p].clone()]));
                for (v, n) in use_counts(names, &one(parts.clone())) {
                    let c = counts.entry(v).or_default();
                    *c = (*c + n).saturating_sub(before.get(&v).copied().unwrap_or(0));
                }
                let n = parts.len();
                body.stms.splice(p..=p, parts);
                ctx.fire("map-split-consumers");
                p += n;
            }
            None => p += 1,
        }
    }
}

/// The map at `p` as one map per later statement reading its results, if every result read
/// is read once, as an input of a map of the same width that `map-map` or `map-sink` can
/// fuse it into, costs a few cheap operations, and the results have at least two readers.
fn split_by_consumer(
    names: &mut crate::core::ir::NameTable,
    body: &crate::core::ir::Body,
    p: usize,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) -> Option<Vec<Stm>> {
    let stm = &body.stms[p];
    let (w, lam, arrays) = map_parts(stm)?;
    if stm.pat.len() < 2
        || has_acc(names, arrays)
        || has_acc(names, &stm.pat)
        || arrays.iter().any(|a| consumed.contains(a))
        || lam.body.stms.iter().any(|s| s.pat.is_empty())
    {
        return None;
    }
    let reads_as_input = |e: &Exp, v: &Var| matches!(e, Exp::Soac(Soac::Map { w: cw, arrays, .. }) if cw == w && arrays.contains(v));
    // The results read, each once and costing a few cheap operations.
    let mut pending: Vec<usize> = Vec::new();
    for (k, v) in stm.pat.iter().enumerate() {
        match counts.get(v).copied().unwrap_or(0) {
            0 => continue,
            1 if !consumed.contains(v) => {}
            _ => return None,
        }
        let slice = crate::core::subst::prune(names, &lam.body, vec![lam.body.result[k]]);
        if !super::consumer_fusion::few_cheap_ops(&slice) {
            return None;
        }
        pending.push(k);
    }
    // The reader of each (the index of its statement), found in one walk over what follows.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for q in p + 1..body.stms.len() {
        if pending.is_empty() {
            break;
        }
        let free = free_in_exp(names, &body.stms[q].exp);
        let (read, rest): (Vec<usize>, Vec<usize>) =
            pending.iter().partition(|k| free.contains(&stm.pat[**k]));
        pending = rest;
        for k in read {
            let v = &stm.pat[k];
            let fusible = match &body.stms[q].exp {
                e @ Exp::Soac(Soac::Map { .. }) => reads_as_input(e, v),
                Exp::WithAcc { lam, .. } => lam.body.stms.iter().any(|s| reads_as_input(&s.exp, v)),
                _ => false,
            };
            if !fusible {
                return None;
            }
            match groups.iter_mut().find(|(g, _)| *g == q) {
                Some((_, ks)) => ks.push(k),
                None => groups.push((q, vec![k])),
            }
        }
    }
    // `map-sink` moves maps of one result into a `with_acc`.
    let sinks_whole = |(q, ks): &(usize, Vec<usize>)| {
        ks.len() == 1 || matches!(body.stms[*q].exp, Exp::Soac(Soac::Map { .. }))
    };
    if !pending.is_empty() || groups.len() < 2 || !groups.iter().all(sinks_whole) {
        return None;
    }
    groups
        .into_iter()
        .map(|(_, ks)| {
            let results: Vec<SubExp> = ks.iter().map(|k| lam.body.result[*k]).collect();
            let sliced = crate::core::subst::prune(names, &lam.body, results);
            super::consumer_fusion::map_part(names, stm, &ks, &sliced)
        })
        .collect()
}

fn map_parts(stm: &Stm) -> Option<(&SubExp, &Lambda, &Vec<Var>)> {
    match &stm.exp {
        Exp::Soac(Soac::Map { w, lam, arrays }) => Some((w, lam, arrays)),
        _ => None,
    }
}

fn has_acc(names: &crate::core::ir::NameTable, vs: &[Var]) -> bool {
    vs.iter().any(|v| matches!(names.ty(*v), Type::Acc { .. }))
}

fn vertical(
    names: &mut crate::core::ir::NameTable,
    ctx: &mut Ctx,
    body: &mut crate::core::ir::Body,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) {
    let mut p = 0;
    while p < body.stms.len() {
        let Some((pw, plam, parrays)) = map_parts(&body.stms[p]) else {
            p += 1;
            continue;
        };
        let ppat = body.stms[p].pat.clone();
        if has_acc(names, parrays)
            || has_acc(names, &ppat)
            || parrays.iter().any(|a| consumed.contains(a))
        {
            p += 1;
            continue;
        }
        // The one consumer: a later map taking the used outputs as inputs, and nothing else
        // using them.
        let used: Vec<Var> = ppat
            .iter()
            .copied()
            .filter(|v| counts.get(v).copied().unwrap_or(0) > 0)
            .collect();
        if used.is_empty() {
            p += 1;
            continue;
        }
        let mut consumer = None;
        for c in p + 1..body.stms.len() {
            let Some((cw, _, carrays)) = map_parts(&body.stms[c]) else {
                continue;
            };
            if carrays.iter().any(|a| used.contains(a)) {
                let ok = cw == pw
                    && used.iter().all(|v| {
                        counts.get(v).copied().unwrap_or(0)
                            == carrays.iter().filter(|a| *a == v).count()
                    });
                if ok {
                    consumer = Some(c);
                }
                break;
            }
        }
        // The producer's work moves to the consumer: nothing up to and including the
        // consumer may consume what it reads.
        let Some(c) =
            consumer.filter(|&c| !reads_what_later_consume(&body.stms[p], &body.stms[p + 1..=c]))
        else {
            p += 1;
            continue;
        };
        let (plam, parrays) = (plam.clone(), parrays.clone());
        let (cw, clam, carrays) = match map_parts(&body.stms[c]) {
            Some((w, l, a)) => (*w, l.clone(), a.clone()),
            None => break,
        };
        let mut params = plam.params.clone();
        let mut arrays = parrays.clone();
        let mut map: HashMap<Var, SubExp> = HashMap::new();
        for (cp, ca) in clam.params.iter().zip(&carrays) {
            if let Some(o) = ppat.iter().position(|v| v == ca) {
                map.insert(*cp, plam.body.result[o]);
            } else {
                params.push(*cp);
                arrays.push(*ca);
            }
        }
        let mut cbody = clam.body.clone();
        subst_body(&mut cbody, &map);
        let mut stms = plam.body.stms.clone();
        stms.extend(cbody.stms);
        let fused = Lambda {
            params,
            body: crate::core::ir::Body {
                stms,
                result: cbody.result,
            },
            ret: clam.ret.clone(),
        };
        body.stms[c].exp = Exp::Soac(Soac::Map {
            w: cw,
            lam: fused,
            arrays,
        });
        body.stms.remove(p);
        ctx.fire("map-map");
        let _ = &names;
    }
}

fn horizontal(
    names: &mut crate::core::ir::NameTable,
    ctx: &mut Ctx,
    body: &mut crate::core::ir::Body,
    consumed: &HashSet<Var>,
) {
    let mut p = 0;
    while p < body.stms.len() {
        let Some((pw, _, parrays)) = map_parts(&body.stms[p]) else {
            p += 1;
            continue;
        };
        if has_acc(names, parrays) || has_acc(names, &body.stms[p].pat) {
            p += 1;
            continue;
        }
        let (pw, parrays) = (*pw, parrays.clone());
        let mut merged = false;
        let mut bound_between: HashSet<Var> = body.stms[p].pat.iter().copied().collect();
        for q in p + 1..body.stms.len() {
            if let Some((qw, _, qarrays)) = map_parts(&body.stms[q]) {
                let shares = qarrays.iter().any(|a| parrays.contains(a));
                if *qw == pw
                    && shares
                    && !has_acc(names, qarrays)
                    && !has_acc(names, &body.stms[q].pat)
                {
                    let free = free_in_exp(names, &body.stms[q].exp);
                    let mut tys = HashSet::new();
                    for v in &body.stms[q].pat {
                        tys.extend(crate::core::visit::type_vars(names.ty(*v)));
                    }
                    if free.is_disjoint(&bound_between)
                        && tys.is_disjoint(&bound_between)
                        && !qarrays.iter().any(|a| consumed.contains(a))
                    {
                        let qstm = body.stms.remove(q);
                        let Some((_, qlam, qarrays)) = map_parts(&qstm) else {
                            break;
                        };
                        let pstm = &mut body.stms[p];
                        if let Exp::Soac(Soac::Map { lam, arrays, .. }) = &mut pstm.exp {
                            lam.params.extend(qlam.params.iter().copied());
                            arrays.extend(qarrays.iter().copied());
                            lam.body.stms.extend(qlam.body.stms.iter().cloned());
                            lam.body.result.extend(qlam.body.result.iter().copied());
                            lam.ret.extend(qlam.ret.iter().cloned());
                        }
                        pstm.pat.extend(qstm.pat.iter().copied());
                        ctx.fire("map-horizontal");
                        merged = true;
                        break;
                    }
                }
            }
            bound_between.extend(body.stms[q].pat.iter().copied());
        }
        if !merged {
            p += 1;
        }
    }
}

fn sink(
    names: &mut crate::core::ir::NameTable,
    ctx: &mut Ctx,
    body: &mut crate::core::ir::Body,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) {
    let mut p = 0;
    while p < body.stms.len() {
        let movable = match map_parts(&body.stms[p]) {
            Some((_, lam, arrays)) => {
                let pat = &body.stms[p].pat;
                pat.len() == 1
                    && counts.get(&pat[0]) == Some(&1)
                    && cheap(lam)
                    && !has_acc(names, arrays)
                    && !arrays.iter().any(|a| consumed.contains(a))
            }
            None => false,
        };
        if !movable {
            p += 1;
            continue;
        }
        let out = body.stms[p].pat[0];
        // The later statement whose nested map lambdas hold the consumer.
        let mut target = None;
        for q in p + 1..body.stms.len() {
            if free_in_exp(names, &body.stms[q].exp).contains(&out) {
                target = Some(q);
                break;
            }
        }
        let Some(q) =
            target.filter(|&q| !reads_what_later_consume(&body.stms[p], &body.stms[p + 1..=q]))
        else {
            p += 1;
            continue;
        };
        let mut producer = Some(body.stms[p].clone());
        place(&mut body.stms[q], out, &mut producer);
        if producer.is_none() {
            body.stms.remove(p);
            ctx.fire("map-sink");
        } else {
            p += 1;
        }
    }
}

/// Puts `producer` (taken from the option) right before the map that takes `out` as an
/// input, inside the lambda of `stm` (a map) or of maps nested in it; leaves the option full
/// if there is none.
fn place(stm: &mut Stm, out: Var, producer: &mut Option<Stm>) {
    let lam = match &mut stm.exp {
        Exp::Soac(Soac::Map { lam, arrays, .. }) if !arrays.contains(&out) => lam,
        // The lambda of a `with_acc` runs once: the producer is computed once there too.
        Exp::WithAcc { lam, .. } => lam,
        _ => return,
    };
    place_in(&mut lam.body, out, producer);
}

/// [`place`] on the statements of one lambda body.
fn place_in(body: &mut crate::core::ir::Body, out: Var, producer: &mut Option<Stm>) {
    for k in 0..body.stms.len() {
        let direct = matches!(&body.stms[k].exp,
            Exp::Soac(Soac::Map { arrays, .. }) if arrays.contains(&out));
        if direct {
            if let Some(p) = producer.take() {
                body.stms.insert(k, p);
            }
            return;
        }
        place(&mut body.stms[k], out, producer);
        if producer.is_none() {
            return;
        }
    }
}

/// Rule `map-invariant-result`: a result of a `map` lambda that is a constant or a variable
/// bound outside the lambda (the zero tangent of a computation that does not depend on the
/// differentiated input, for one) becomes a `replicate` of it, so the rules that see through
/// replicated arrays (`map-of-replicate`, `index-replicate`, the zero analysis of
/// `single-point`) apply to it.
pub fn invariant_results(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm) -> Option<Rewrite> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &stm.exp else {
        return None;
    };
    if has_acc(eng.names, &stm.pat) {
        return None;
    }
    let mut bound: HashSet<Var> = lam.params.iter().copied().collect();
    for s in &lam.body.stms {
        bound.extend(crate::core::visit::exp_binders(&s.exp));
        bound.extend(s.pat.iter().copied());
    }
    let invariant: Vec<bool> = lam
        .body
        .result
        .iter()
        .zip(&stm.pat)
        .map(|(r, p)| {
            // A consumed result keeps its own array (a replicate could be shared by CSE).
            !eng.consumed.contains(p)
                && match r {
                    SubExp::Const(_) => true,
                    SubExp::Var(v) => !bound.contains(v),
                }
        })
        .collect();
    if !invariant.iter().any(|b| *b) {
        return None;
    }
    ctx.fire("map-invariant-result");
    let keep: Vec<usize> = (0..invariant.len()).filter(|k| !invariant[*k]).collect();
    let tys: Vec<Type> = keep
        .iter()
        .map(|k| eng.names.ty(stm.pat[*k]).clone())
        .collect();
    let mut b = crate::core::builder::Builder::new(eng.names);
    b.set_aux(stm.aux.clone());
    let kept: Vec<Var> = if keep.is_empty() {
        vec![]
    } else {
        let exp = Exp::Soac(Soac::Map {
            w: *w,
            lam: Lambda {
                params: lam.params.clone(),
                body: crate::core::ir::Body {
                    stms: lam.body.stms.clone(),
                    result: keep.iter().map(|k| lam.body.result[*k]).collect(),
                },
                ret: keep.iter().map(|k| lam.ret[*k].clone()).collect(),
            },
            arrays: arrays.clone(),
        });
        b.bind(exp, tys, "map_res")
    };
    let mut results = Vec::new();
    let mut consumed_reps = Vec::new();
    let mut next = kept.into_iter();
    for (k, inv) in invariant.iter().enumerate() {
        if *inv {
            let t = b.names.ty(stm.pat[k]).clone();
            let v = b.bind(
                Exp::BasicOp(crate::core::ir::BasicOp::Replicate {
                    shape: vec![*w],
                    value: lam.body.result[k],
                }),
                vec![t],
                "rep",
            );
            // Its consumers may have been created after the walk's consumption analysis;
            // counting it as consumed keeps CSE from sharing it.
            consumed_reps.push(v[0]);
            results.push(SubExp::Var(v[0]));
        } else {
            results.push(SubExp::Var(next.next()?));
        }
    }
    let stms = b.take_stms();
    eng.consumed.extend(consumed_reps);
    Some(Rewrite::Stms(stms, results))
}

/// Rule `map-into-hist`: `hist(w, [dest], +, 0, is, vs)` whose indices or values (or both)
/// are results of one `map(w, f, xs)` of the same body read by nothing else becomes an
/// accumulator over `dest` that the map's body updates directly (the other array, if any,
/// becomes an input of the map): `with_acc(dest, \a -> map(w, \(x.., a) -> {f; update_acc(a,
/// [i], [v])}, xs, a))`. The index and value arrays are never built; updates happen in
/// increasing row order and out-of-range indices are ignored, as in the histogram, so the
/// result is the same to the bit. Only float `+` histograms of one destination (the
/// accumulator's operator).
pub fn map_into_hist(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
    let Exp::Soac(Soac::Hist {
        w,
        dests,
        lam,
        neutral,
        indices,
        values,
    }) = &stm.exp
    else {
        return None;
    };
    let ([dest], [ne], [vals], [_]) = (
        dests.as_slice(),
        neutral.as_slice(),
        values.as_slice(),
        stm.pat.as_slice(),
    ) else {
        return None;
    };
    let dest_ty = eng.names.ty(*dest).clone();
    if !crate::core::recognise::is_zero(ne)
        || !crate::core::recognise::is_plus(lam)
        || dest_ty.rank() != 1
        || !dest_ty.elem().is_float()
    {
        return None;
    }
    // The map computing the indices or the values (or both); the other comes in as an input.
    let from_map = |v: &Var| {
        let (def, _) = eng.defs.get(v)?;
        matches!(&def.exp, Exp::Soac(Soac::Map { .. })).then(|| def.clone())
    };
    let def = from_map(indices).or_else(|| from_map(vals))?;
    let Exp::Soac(Soac::Map {
        w: mw,
        lam: ml,
        arrays: ma,
    }) = &def.exp
    else {
        return None;
    };
    let oi = def.pat.iter().position(|v| v == indices);
    let ov = def.pat.iter().position(|v| v == vals);
    let once = |v: &Var| eng.uses.get(v) == Some(&1);
    // The map must be in this body: moving it into an accumulator here must not make it
    // run more often.
    let fused = |v: &Var, o: Option<usize>| {
        o.is_none() || (once(v) && !eng.consumed.contains(v) && scope.local.contains(v))
    };
    if mw != w
        || !fused(indices, oi)
        || !fused(vals, ov)
        || has_acc(eng.names, ma)
        || has_acc(eng.names, &def.pat)
    {
        return None;
    }
    ctx.fire("map-into-hist");
    let d = dest_ty.dims()[0];
    let acc_ty = Type::Acc {
        shape: vec![d],
        elems: vec![dest_ty.elem()],
    };
    let names = &mut *eng.names;
    // A fresh copy of the map's lambda (the map stays until dead-code elimination).
    let (mut params, body) = crate::core::subst::fresh_copy(names, &ml.params, &ml.body);
    let mut arrays = ma.clone();
    // The index and the value of a row: from the map's body, or a row of the input array.
    let mut row_of = |v: &Var, o: Option<usize>, hint: &str| match o {
        Some(o) => body.result[o],
        None => {
            let t = names.ty(*v).row();
            let p = names.fresh(hint, t);
            params.push(p);
            arrays.push(*v);
            SubExp::Var(p)
        }
    };
    let index = row_of(indices, oi, "index");
    let value = row_of(vals, ov, "value");
    let a = names.fresh("acc", acc_ty.clone());
    let a2 = names.fresh("acc", acc_ty.clone());
    params.push(a);
    let mut stms = body.stms;
    stms.push(Stm {
        pat: vec![a2],
        exp: Exp::BasicOp(crate::core::ir::BasicOp::UpdateAcc {
            acc: a,
            indices: vec![index],
            values: vec![value],
        }),
        aux: stm.aux.clone(),
    });
    let outer = names.fresh("acc", acc_ty.clone());
    let mapped = names.fresh("acc", acc_ty.clone());
    arrays.push(outer);
    let map = Stm {
        pat: vec![mapped],
        exp: Exp::Soac(Soac::Map {
            w: *w,
            lam: Lambda {
                params,
                body: crate::core::ir::Body {
                    stms,
                    result: vec![SubExp::Var(a2)],
                },
                ret: vec![acc_ty.clone()],
            },
            arrays,
        }),
        aux: stm.aux.clone(),
    };
    Some(Rewrite::Exp(Exp::WithAcc {
        inputs: vec![(vec![d], vec![*dest])],
        lam: Lambda {
            params: vec![outer],
            body: crate::core::ir::Body {
                stms: vec![map],
                result: vec![SubExp::Var(mapped)],
            },
            ret: vec![acc_ty],
        },
    }))
}
