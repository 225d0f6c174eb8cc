//! Fusion of a `map` into the `reduce`, `scan`, `hist` or `scatter` that consumes its results,
//! and of reductions of the same array with each other (pass `consumer-fusion`).
//!
//! Rules, each turning `let ys = map(w, f, xs)` and a later consumer of `ys` in the same body
//! into one fused SOAC ([`Soac::Screma`]) at the consumer's place, so the mapped arrays are
//! never built and the inputs are traversed once:
//! * `map-into-reduce`: `reduce(w, op, ne, ys)` becomes `redomap(w, f, op, ne, xs)`;
//! * `map-into-reduce-kept`: as `map-into-reduce` (or `map-into-screma` into a `redomap`)
//!   when statements after the reduction read some of the map's results too, or the body
//!   returns them: the fused `redomap` also stores those, as its map results (softmax's
//!   exponentials are summed and stored in one traversal, then divided by the sum; GMM's
//!   gradient sums the squares of the triangular product's row it keeps for the return
//!   sweep as it writes the row, instead of reading it back right after its stores);
//! * `map-into-scan`: `scan(w, op, ne, ys)` becomes `scanomap(w, f, op, ne, xs)`;
//! * `map-into-histomap`: `hist(w, dests, op, ne, is, vs)` whose indices or values the map
//!   computes becomes `histomap(w, dests, f', op, ne, xs)` with `f'` returning the index
//!   and the values (float `+` histograms have become accumulators already, rule
//!   `map-into-hist` of the `fusion` pass);
//! * `map-into-scatter`: `scatter(w, dests, is, vs)` likewise becomes `scattermap`;
//! * `map-into-screma`: a map whose results a fused SOAC reads as inputs (and nothing else
//!   reads) becomes part of the fused SOAC's map, as in `map-map` fusion (a map read twice,
//!   by the index and the value maps of a histogram, meets them only after they have been
//!   fused horizontally and into the histogram);
//! * `split-for-reduce`: a map some of whose results only scalar reductions of the same
//!   width read, while others are read elsewhere, is split in two when the reduced results
//!   take a few cheap operations per row (no division, no function call): the part the
//!   reductions read then fuses into them (`map-into-reduce`). Those operations run twice,
//!   which costs less than writing an array and reading it back (the reverse of `lse`, whose
//!   map returns `e / s` for the gradient and `-(e / s)` for the adjoint of the maximum);
//! * `reduce-horizontal`: two reductions of scalars (plain or fused) of the same width
//!   become one `redomap` computing both (a mean and a variance, a sum and a maximum, the
//!   sum of `lse`'s exponentials and the position of its maximum: one traversal); the
//!   second must not depend on the statements between them, except `iota`s of that width,
//!   which move before the first;
//! * `map-reduce-horizontal`: likewise a `map` of scalars and a reduction of scalars of the
//!   same width that read a common input become one `redomap` whose map results are the
//!   map's (`lse`'s gradient scales the exponentials and sums their negations in one pass).
//!
//! A consumer input that the map does not compute becomes an input of the fused map, whose
//! lambda passes its row on. Conditions: the map's results are read by nothing but the
//! consumer's inputs (but for `map-into-reduce-kept`: scalar rows read only after the
//! reduction); same width; no accumulators; the consumer's values are scalars (a
//! reduction of rows is lowered better as an accumulator, `backend::lower::row_sums`); the
//! consumer's operator cannot fail, so interleaving it with the map reports the same errors;
//! nothing the map reads is consumed in the body, and for `hist` and `scatter` the map reads
//! nothing that may share memory with a destination (the destinations are updated while the
//! map still runs).
//!
//! The pass runs once, at the end of the pipeline: the other passes' rules look for `reduce`
//! and `scan` of a `map` (`single-point`, `fission`, `tuple-elim`) and know nothing of fused
//! SOACs beyond walking their lambdas.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use crate::core::ir::{
    BasicOp, Body, Exp, Lambda, NameTable, Prog, ScremaForm, Soac, Stm, SubExp, Type, Var,
};
use crate::core::safety::{Ranges, body_is_safe};
use crate::core::subst::subst_body;
use crate::core::visit::{consumed_in_body, free_in_exp, use_counts, walk_bodies_mut};
use std::collections::{HashMap, HashSet};

/// Runs the pass on every body of `prog`, innermost first.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("consumer-fusion") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        walk_bodies_mut(&mut f.body, &mut |b| fuse_body(names, ctx, b));
    }
}

fn fuse_body(names: &mut NameTable, ctx: &mut Ctx, body: &mut Body) {
    let counts = use_counts(names, body);
    let mut consumed = HashSet::new();
    consumed_in_body(body, &mut consumed);
    // Reductions of the same array pair up first (a map read by two of them can then fuse
    // into the pair), and again once maps have fused into them, until nothing changes.
    split_for_reduce(names, ctx, body, &counts, &consumed);
    loop {
        let before = ctx.changes();
        horizontal(names, ctx, body, &consumed);
        vertical(names, ctx, body, &consumed);
        if ctx.changes() == before {
            break;
        }
    }
}

/// Rule `split-for-reduce` on every map of `body`.
fn split_for_reduce(
    names: &mut NameTable,
    ctx: &mut Ctx,
    body: &mut Body,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) {
    // Reads of each variable as the input of a scalar reduction whose operator cannot fail
    // (such a reduction has the width of its inputs; a map's results are read only after it,
    // so counting the whole body is the same as counting what follows each map).
    let mut reduced: HashMap<Var, usize> = HashMap::new();
    for s in &body.stms {
        if let Exp::Soac(Soac::Reduce { lam, arrays, .. }) = &s.exp
            && lam.ret.iter().all(|t| matches!(t, Type::Prim(_)))
            && body_is_safe(&lam.body, &Ranges::default(), names)
        {
            for a in arrays {
                *reduced.entry(*a).or_default() += 1;
            }
        }
    }
    let mut p = 0;
    while p < body.stms.len() {
        if let Some((kept, split)) = split_map(names, &body.stms[p], &reduced, counts, consumed) {
            body.stms[p] = kept;
            body.stms.insert(p + 1, split);
            ctx.fire("split-for-reduce");
            p += 2;
        } else {
            p += 1;
        }
    }
}

/// `stm` split into the map of the results read elsewhere and the map of those that only
/// the reductions counted in `reduced` read, if it is a map worth splitting.
fn split_map(
    names: &mut NameTable,
    stm: &Stm,
    reduced: &HashMap<Var, usize>,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) -> Option<(Stm, Stm)> {
    let Exp::Soac(Soac::Map { lam, arrays, .. }) = &stm.exp else {
        return None;
    };
    let is_acc = |v: &Var| matches!(names.ty(*v), Type::Acc { .. });
    if arrays.iter().any(is_acc) || stm.pat.iter().any(is_acc) {
        return None;
    }
    let (split, keep): (Vec<usize>, Vec<usize>) = (0..stm.pat.len()).partition(|k| {
        let v = stm.pat[*k];
        let n = counts.get(&v).copied().unwrap_or(0);
        n > 0 && reduced.get(&v) == Some(&n) && !consumed.contains(&v)
    });
    if split.is_empty() || keep.is_empty() {
        return None;
    }
    let results =
        |ks: &[usize]| -> Vec<SubExp> { ks.iter().map(|k| lam.body.result[*k]).collect() };
    let sliced = crate::core::subst::prune(names, &lam.body, results(&split));
    if !few_cheap_ops(&sliced) {
        return None;
    }
    // The kept part loses the statements only the split-off results needed, unless the
    // body has assertions (which pruning would drop).
    let kept = if lam.body.stms.iter().any(|s| s.pat.is_empty()) {
        Body {
            stms: lam.body.stms.clone(),
            result: results(&keep),
        }
    } else {
        crate::core::subst::prune(names, &lam.body, results(&keep))
    };
    Some((
        map_part(names, stm, &keep, &kept)?,
        map_part(names, stm, &split, &sliced)?,
    ))
}

/// The map `stm` reduced to its results `ks`, which `body` (a slice of its lambda's body)
/// computes: a fresh copy of the lambda over the same inputs, binding the same variables.
/// `None` if `stm` is not a map.
pub(super) fn map_part(names: &mut NameTable, stm: &Stm, ks: &[usize], body: &Body) -> Option<Stm> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &stm.exp else {
        return None;
    };
    let (params, body) = crate::core::subst::fresh_copy(names, &lam.params, body);
    Some(Stm {
        pat: ks.iter().map(|k| stm.pat[*k]).collect(),
        exp: Exp::Soac(Soac::Map {
            w: *w,
            lam: Lambda {
                params,
                body,
                ret: ks.iter().map(|k| lam.ret[*k].clone()).collect(),
            },
            arrays: arrays.clone(),
        }),
        aux: stm.aux.clone(),
    })
}

/// Whether a slice of a lambda's body costs a few cycles per row and cannot fail: at most
/// four statements, each a [`cheap_op`]. Such a slice is worth computing twice rather than
/// writing its results out and reading them back.
pub(super) fn few_cheap_ops(body: &Body) -> bool {
    body.stms.len() <= 4 && body.stms.iter().all(cheap_op)
}

/// A statement of a few cycles that cannot fail: arithmetic, comparisons and selections
/// (no division, power or function of the float library).
fn cheap_op(stm: &Stm) -> bool {
    use crate::core::prim::{BinOp, PrimOp, UnOp};
    match &stm.exp {
        Exp::BasicOp(BasicOp::SubExp(_)) => true,
        Exp::BasicOp(BasicOp::Prim(op, _)) => match op {
            PrimOp::Un(u, _) => matches!(u, UnOp::Neg | UnOp::Abs | UnOp::Not),
            PrimOp::Bin(b, _) => matches!(
                b,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Min | BinOp::Max
            ),
            PrimOp::Cmp(..) | PrimOp::Tern(..) | PrimOp::Conv(..) => true,
            PrimOp::FromBits(..) => false,
        },
        _ => false,
    }
}

fn vertical(names: &mut NameTable, ctx: &mut Ctx, body: &mut Body, consumed: &HashSet<Var>) {
    // Counted afresh: splitting maps and pairing reductions change how often arrays are
    // read, and each fusion moves reads (a map kept as a `redomap`'s results is read less).
    let mut counts = use_counts(names, body);
    let mut c = 0;
    while c < body.stms.len() {
        if let Some((p, exp, rule, kept)) = fuse(names, body, c, &counts, consumed) {
            body.stms[c].exp = exp;
            body.stms[c].pat.extend(kept);
            body.stms.remove(p);
            counts = use_counts(names, body);
            ctx.fire(rule);
            // The fused statement moved up by one; it may absorb another map.
            c -= 1;
        } else {
            c += 1;
        }
    }
}

/// What [`fuse`] gives: the absorbed map's index, the fused expression, the rule, and the
/// map's results the fused statement binds after its own.
type Fused = (usize, Exp, &'static str, Vec<Var>);

/// A reduction of scalars as the parts of a `redomap`.
struct Redomap {
    w: SubExp,
    map: Lambda,
    arrays: Vec<Var>,
    op: Lambda,
    neutral: Vec<SubExp>,
    commutative: bool,
}

/// The reduction of scalars `stm` as a `redomap` (a plain `reduce` gets a map returning its
/// rows), or a `map` of scalars as a `redomap` with nothing to reduce.
fn as_redomap(names: &mut NameTable, stm: &Stm) -> Option<Redomap> {
    let scalar = |lam: &Lambda| lam.ret.iter().all(|t| matches!(t, Type::Prim(_)));
    match &stm.exp {
        Exp::Soac(Soac::Map { w, lam, arrays }) if scalar_map(names, stm) => Some(Redomap {
            w: *w,
            map: lam.clone(),
            arrays: arrays.clone(),
            op: Lambda {
                params: Vec::new(),
                body: Body {
                    stms: Vec::new(),
                    result: Vec::new(),
                },
                ret: Vec::new(),
            },
            neutral: Vec::new(),
            commutative: true,
        }),
        Exp::Soac(Soac::Reduce {
            w,
            lam,
            neutral,
            arrays,
            commutative,
        }) if scalar(lam) => {
            let rows: Vec<Type> = arrays.iter().map(|a| names.ty(*a).row()).collect();
            let params: Vec<Var> = rows.iter().map(|t| names.fresh("row", t.clone())).collect();
            let map = Lambda {
                body: Body {
                    stms: Vec::new(),
                    result: params.iter().map(|p| SubExp::Var(*p)).collect(),
                },
                params,
                ret: rows,
            };
            Some(Redomap {
                w: *w,
                map,
                arrays: arrays.clone(),
                op: lam.clone(),
                neutral: neutral.clone(),
                commutative: *commutative,
            })
        }
        Exp::Soac(Soac::Screma {
            w,
            map,
            arrays,
            form,
        }) => match &**form {
            ScremaForm::Reduce {
                lam,
                neutral,
                commutative,
            } if scalar(lam) => Some(Redomap {
                w: *w,
                map: map.clone(),
                arrays: arrays.clone(),
                op: lam.clone(),
                neutral: neutral.clone(),
                commutative: *commutative,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Width, inputs and operator of a reduction of scalars, plain or fused.
fn scalar_reduction(stm: &Stm) -> Option<(SubExp, &[Var], &Lambda)> {
    let (w, arrays, op) = match &stm.exp {
        Exp::Soac(Soac::Reduce { w, lam, arrays, .. }) => (w, arrays, lam),
        Exp::Soac(Soac::Screma {
            w, arrays, form, ..
        }) => match &**form {
            ScremaForm::Reduce { lam, .. } => (w, arrays, lam),
            _ => return None,
        },
        _ => return None,
    };
    let scalar = op.ret.iter().all(|t| matches!(t, Type::Prim(_)));
    scalar.then_some((*w, arrays.as_slice(), op))
}

/// Whether `stm` is a `map` of scalar rows without accumulators, whose values a fused
/// reduction's traversal can compute and store (a `redomap`'s map results).
fn scalar_map(names: &NameTable, stm: &Stm) -> bool {
    let Exp::Soac(Soac::Map { lam, arrays, .. }) = &stm.exp else {
        return false;
    };
    lam.ret.iter().all(|t| matches!(t, Type::Prim(_)))
        && !arrays
            .iter()
            .any(|a| matches!(names.ty(*a), Type::Acc { .. }))
}

/// Width and inputs of `stm` if it is a reduction of scalars (plain or fused) or a
/// [`scalar_map`], with whether it is the map.
fn reduction_or_map<'s>(names: &NameTable, stm: &'s Stm) -> Option<(SubExp, &'s [Var], bool)> {
    if let Some((w, arrays, _)) = scalar_reduction(stm) {
        return Some((w, arrays, false));
    }
    match &stm.exp {
        Exp::Soac(Soac::Map { w, arrays, .. }) if scalar_map(names, stm) => {
            Some((*w, arrays.as_slice(), true))
        }
        _ => None,
    }
}

/// Rule `reduce-horizontal`: two reductions of scalars (plain or fused) of the same width,
/// the later one independent of the statements between them (but `iota`s of that width),
/// become one `redomap` whose map and operator compute both (one traversal). Conditions as
/// for `map-horizontal`, plus operators that cannot fail (they now run interleaved).
fn horizontal(names: &mut NameTable, ctx: &mut Ctx, body: &mut Body, consumed: &HashSet<Var>) {
    let is_acc =
        |names: &NameTable, vs: &[Var]| vs.iter().any(|v| matches!(names.ty(*v), Type::Acc { .. }));
    // A map whose results the body returns stays a map (see `producer`).
    let returned = |stm: &Stm| {
        matches!(stm.exp, Exp::Soac(Soac::Map { .. }))
            && stm
                .pat
                .iter()
                .any(|v| body.result.contains(&SubExp::Var(*v)))
    };
    let mut p = 0;
    while p < body.stms.len() {
        if returned(&body.stms[p]) {
            p += 1;
            continue;
        }
        let Some((pw, parrays, pmap)) = reduction_or_map(names, &body.stms[p])
            .filter(|(_, a, _)| !is_acc(names, a))
            .map(|(w, a, m)| (w, a.to_vec(), m))
        else {
            p += 1;
            continue;
        };
        let mut bound_between: HashSet<Var> = body.stms[p].pat.iter().copied().collect();
        // `iota`s of the width between the two, which can move before the first (the index
        // argument of an argmax).
        let mut iotas = Vec::new();
        let mut partner = None;
        for q in p + 1..body.stms.len() {
            let stm = &body.stms[q];
            if let Exp::BasicOp(BasicOp::Iota { n, .. }) = &stm.exp
                && *n == pw
                && free_in_exp(names, &stm.exp).is_disjoint(&bound_between)
            {
                iotas.push(q);
                continue;
            }
            // A map pairs with a reduction reading one of its inputs (one traversal
            // instead of two); two maps are `map-horizontal`'s (module `fusion`).
            if let Some((w, arrays, qmap)) = reduction_or_map(names, stm)
                && !returned(stm)
                && w == pw
                && !(pmap && qmap)
                && (!(pmap || qmap) || arrays.iter().any(|a| parrays.contains(a)))
                && !is_acc(names, arrays)
                && !arrays.iter().any(|a| consumed.contains(a))
            {
                let free = free_in_exp(names, &stm.exp);
                let mut tys = HashSet::new();
                for v in &stm.pat {
                    tys.extend(crate::core::visit::type_vars(names.ty(*v)));
                }
                if free.is_disjoint(&bound_between) && tys.is_disjoint(&bound_between) {
                    partner = Some((q, pmap || qmap));
                    break;
                }
            }
            bound_between.extend(stm.pat.iter().copied());
        }
        // The operators, and a plain map's lambda, cannot fail: they now run interleaved.
        let safe = |k: usize| match scalar_reduction(&body.stms[k]) {
            Some((_, _, op)) => body_is_safe(&op.body, &Ranges::default(), names),
            None => matches!(&body.stms[k].exp, Exp::Soac(Soac::Map { lam, .. })
                if body_is_safe(&lam.body, &Ranges::default(), names)),
        };
        let Some((q, with_map)) = partner.filter(|(q, _)| safe(p) && safe(*q)) else {
            p += 1;
            continue;
        };
        let (Some(a), Some(b)) = (
            as_redomap(names, &body.stms[p]),
            as_redomap(names, &body.stms[q]),
        ) else {
            p += 1;
            continue;
        };
        let (ka, kb) = (a.neutral.len(), b.neutral.len());
        let Redomap {
            w,
            map: amap,
            mut arrays,
            op: aop,
            mut neutral,
            commutative: acomm,
            ..
        } = a;
        let Redomap {
            map: bmap,
            arrays: barrays,
            op: bop,
            neutral: bneutral,
            commutative: bcomm,
            ..
        } = b;
        // The second SOAC's lambdas get fresh names: both may be copies of one source.
        let (bmap_params, mut bmap_body) =
            crate::core::subst::fresh_copy(names, &bmap.params, &bmap.body);
        let (bop_params, bop_body) = crate::core::subst::fresh_copy(names, &bop.params, &bop.body);
        // An input both read is read once: the second map's parameter becomes the first's.
        let mut params = amap.params;
        let mut same: HashMap<Var, SubExp> = HashMap::new();
        for (q, a) in bmap_params.into_iter().zip(barrays) {
            match arrays.iter().position(|x| *x == a) {
                Some(j) => {
                    same.insert(q, SubExp::Var(params[j]));
                }
                None => {
                    params.push(q);
                    arrays.push(a);
                }
            }
        }
        subst_body(&mut bmap_body, &same);
        // The merged map returns both reduced values, then both sets of map results.
        let mut stms = amap.body.stms;
        stms.extend(bmap_body.stms);
        let map = Lambda {
            params,
            body: Body {
                stms,
                result: interleave(&amap.body.result, &bmap_body.result, ka, kb),
            },
            ret: interleave(&amap.ret, &bmap.ret, ka, kb),
        };
        neutral.extend(bneutral);
        let mut params = aop.params[..ka].to_vec();
        params.extend_from_slice(&bop_params[..kb]);
        params.extend_from_slice(&aop.params[ka..]);
        params.extend_from_slice(&bop_params[kb..]);
        let mut op_body = aop.body;
        op_body.stms.extend(bop_body.stms);
        op_body.result.extend(bop_body.result);
        let mut ret = aop.ret;
        ret.extend(bop.ret);
        let op = Lambda {
            params,
            body: op_body,
            ret,
        };
        let qstm = body.stms.remove(q);
        // The iotas go before the first reduction, in their order (each removal leaves the
        // later ones in place).
        let moved = iotas.len();
        for (j, k) in iotas.into_iter().enumerate() {
            let iota = body.stms.remove(k);
            body.stms.insert(p + j, iota);
        }
        p += moved;
        let pstm = &mut body.stms[p];
        pstm.pat = interleave(&pstm.pat, &qstm.pat, ka, kb);
        pstm.exp = Exp::Soac(Soac::Screma {
            w,
            map,
            arrays,
            form: Box::new(ScremaForm::Reduce {
                lam: op,
                neutral,
                commutative: acomm && bcomm,
            }),
        });
        ctx.fire(if with_map {
            "map-reduce-horizontal"
        } else {
            "reduce-horizontal"
        });
        // The merged statement may meet a third reduction.
    }
}

/// The first `ka` of `x` and `kb` of `y` (reduced values), then the rest of each (map
/// results): the order of a merged `redomap`'s map results and pattern.
fn interleave<T: Clone>(x: &[T], y: &[T], ka: usize, kb: usize) -> Vec<T> {
    let mut v = x[..ka].to_vec();
    v.extend_from_slice(&y[..kb]);
    v.extend_from_slice(&x[ka..]);
    v.extend_from_slice(&y[kb..]);
    v
}

/// The consumer at `c` split into its inputs and the rest.
struct Consumer {
    w: SubExp,
    inputs: Vec<Var>,
    /// The fused form, once the map's lambda is known.
    form: ScremaForm,
    rule: &'static str,
}

fn consumer(names: &NameTable, stm: &Stm) -> Option<Consumer> {
    let scalar_ops = |lam: &Lambda| lam.ret.iter().all(|t| matches!(t, Type::Prim(_)));
    let scalar_rows = |dests: &[Var]| dests.iter().all(|d| names.ty(*d).rank() == 1);
    let c = match &stm.exp {
        Exp::Soac(Soac::Reduce {
            w,
            lam,
            neutral,
            arrays,
            commutative,
        }) if scalar_ops(lam) => Consumer {
            w: *w,
            inputs: arrays.clone(),
            form: ScremaForm::Reduce {
                lam: lam.clone(),
                neutral: neutral.clone(),
                commutative: *commutative,
            },
            rule: "map-into-reduce",
        },
        Exp::Soac(Soac::Scan {
            w,
            lam,
            neutral,
            arrays,
        }) if scalar_ops(lam) => Consumer {
            w: *w,
            inputs: arrays.clone(),
            form: ScremaForm::Scan {
                lam: lam.clone(),
                neutral: neutral.clone(),
            },
            rule: "map-into-scan",
        },
        Exp::Soac(Soac::Hist {
            w,
            dests,
            lam,
            neutral,
            indices,
            values,
        }) if scalar_rows(dests) => Consumer {
            w: *w,
            inputs: std::iter::once(*indices)
                .chain(values.iter().copied())
                .collect(),
            form: ScremaForm::Hist {
                dests: dests.clone(),
                lam: lam.clone(),
                neutral: neutral.clone(),
            },
            rule: "map-into-histomap",
        },
        Exp::Soac(Soac::Scatter {
            w,
            dests,
            indices,
            values,
        }) if scalar_rows(dests) => Consumer {
            w: *w,
            inputs: std::iter::once(*indices)
                .chain(values.iter().copied())
                .collect(),
            form: ScremaForm::Scatter {
                dests: dests.clone(),
            },
            rule: "map-into-scatter",
        },
        _ => return None,
    };
    Some(c)
}

/// The fused statement replacing statement `c`, the index of the map it absorbs, the rule's
/// name and the map's results the fused statement binds after its own (map results of a
/// `redomap`).
fn fuse(
    names: &mut NameTable,
    body: &Body,
    c: usize,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) -> Option<Fused> {
    if matches!(body.stms[c].exp, Exp::Soac(Soac::Screma { .. })) {
        return absorb(names, body, c, counts, consumed);
    }
    let cons = consumer(names, &body.stms[c])?;
    if let Some(op) = cons.form.op()
        && !body_is_safe(&op.body, &Ranges::default(), names)
    {
        return None;
    }
    let keep = matches!(cons.form, ScremaForm::Reduce { .. });
    let (p, kept) = producer(
        names,
        body,
        c,
        &cons.w,
        &cons.inputs,
        cons.form.dests(),
        counts,
        consumed,
        keep,
    )?;
    let (pat, lam, arrays) = map_parts(&body.stms[p])?;
    // The fused lambda: the map's, returning what the consumer reads of each input.
    let mut params = lam.params.clone();
    let mut inputs = arrays.clone();
    let mut result = Vec::new();
    let mut ret = Vec::new();
    for a in &cons.inputs {
        match pat.iter().position(|v| v == a) {
            Some(o) => {
                result.push(lam.body.result[o]);
                ret.push(lam.ret[o].clone());
            }
            None => {
                let row = names.ty(*a).row();
                let param = names.fresh("row", row.clone());
                params.push(param);
                inputs.push(*a);
                result.push(SubExp::Var(param));
                ret.push(row);
            }
        }
    }
    let rule = if kept.is_empty() {
        cons.rule
    } else {
        "map-into-reduce-kept"
    };
    push_kept(&kept, pat, lam, &mut result, &mut ret)?;
    let map = Lambda {
        params,
        body: Body {
            stms: lam.body.stms.clone(),
            result,
        },
        ret,
    };
    let exp = Exp::Soac(Soac::Screma {
        w: cons.w,
        map,
        arrays: inputs,
        form: Box::new(cons.form),
    });
    Some((p, exp, rule, kept))
}

/// Rule `map-into-screma`: a map whose results only a fused SOAC at `c` reads, as inputs,
/// becomes part of the fused SOAC's map (as `map-map` fusion does for two maps).
fn absorb(
    names: &mut NameTable,
    body: &Body,
    c: usize,
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
) -> Option<Fused> {
    let Exp::Soac(Soac::Screma {
        w,
        map,
        arrays,
        form,
    }) = &body.stms[c].exp
    else {
        return None;
    };
    let keep = matches!(**form, ScremaForm::Reduce { .. });
    let (p, kept) = producer(
        names,
        body,
        c,
        w,
        arrays,
        form.dests(),
        counts,
        consumed,
        keep,
    )?;
    let (pat, lam, parrays) = map_parts(&body.stms[p])?;
    let mut params = lam.params.clone();
    let mut inputs = parrays.clone();
    let mut subst: HashMap<Var, SubExp> = HashMap::new();
    for (param, a) in map.params.iter().zip(arrays) {
        match pat.iter().position(|v| v == a) {
            Some(o) => {
                subst.insert(*param, lam.body.result[o]);
            }
            None => {
                params.push(*param);
                inputs.push(*a);
            }
        }
    }
    let mut rest = map.body.clone();
    subst_body(&mut rest, &subst);
    let mut stms = lam.body.stms.clone();
    stms.extend(rest.stms);
    let mut result = rest.result;
    let mut ret = map.ret.clone();
    push_kept(&kept, pat, lam, &mut result, &mut ret)?;
    let fused = Lambda {
        params,
        body: Body { stms, result },
        ret,
    };
    let exp = Exp::Soac(Soac::Screma {
        w: *w,
        map: fused,
        arrays: inputs,
        form: form.clone(),
    });
    let rule = if kept.is_empty() {
        "map-into-screma"
    } else {
        "map-into-reduce-kept"
    };
    Some((p, exp, rule, kept))
}

/// Appends to a fused map lambda's `result` and `ret` the absorbed map's (`pat`, `lam`)
/// results `kept`, which the fused `redomap` binds as its map results.
fn push_kept(
    kept: &[Var],
    pat: &[Var],
    lam: &Lambda,
    result: &mut Vec<SubExp>,
    ret: &mut Vec<Type>,
) -> Option<()> {
    for v in kept {
        let o = pat.iter().position(|x| x == v)?;
        result.push(lam.body.result[o]);
        ret.push(lam.ret[o].clone());
    }
    Some(())
}

fn map_parts(stm: &Stm) -> Option<(&[Var], &Lambda, &Vec<Var>)> {
    match &stm.exp {
        Exp::Soac(Soac::Map { lam, arrays, .. }) => Some((&stm.pat, lam, arrays)),
        _ => None,
    }
}

/// The statement before `c` that is a `map` of width `w` computing some of `inputs` and
/// may move to `c`, with the results it must still bind there: it has no accumulators,
/// nothing it reads is consumed in the body, and it reads nothing sharing memory with
/// `dests`. Its results are read by nothing but `inputs`, except, when `keep` (a reduction
/// of scalars consumes them), scalar rows read only after `c`, which the fused statement
/// binds as its map results.
#[allow(clippy::too_many_arguments)]
fn producer(
    names: &NameTable,
    body: &Body,
    c: usize,
    w: &SubExp,
    inputs: &[Var],
    dests: &[Var],
    counts: &HashMap<Var, usize>,
    consumed: &HashSet<Var>,
    keep: bool,
) -> Option<(usize, Vec<Var>)> {
    let p = (0..c).rev().find(|&p| {
        matches!(body.stms[p].exp, Exp::Soac(Soac::Map { .. }))
            && body.stms[p].pat.iter().any(|v| inputs.contains(v))
    })?;
    let stm = &body.stms[p];
    let Exp::Soac(Soac::Map {
        w: pw,
        arrays: parrays,
        ..
    }) = &stm.exp
    else {
        return None;
    };
    let is_acc = |v: &Var| matches!(names.ty(*v), Type::Acc { .. });
    if pw != w || parrays.iter().any(is_acc) || stm.pat.iter().any(is_acc) {
        return None;
    }
    let as_input = |v: &Var| inputs.iter().filter(|a| *a == v).count();
    let read_elsewhere: Vec<Var> = stm
        .pat
        .iter()
        .copied()
        .filter(|v| counts.get(v).copied().unwrap_or(0) != as_input(v))
        .collect();
    if !read_elsewhere.is_empty() {
        let Exp::Soac(Soac::Map { lam, .. }) = &stm.exp else {
            return None;
        };
        // Kept results are read after `c` only: not between the two, and at `c` only
        // as inputs.
        let at_c = use_counts(
            names,
            &Body {
                stms: vec![body.stms[c].clone()],
                result: Vec::new(),
            },
        );
        let between = || {
            body.stms[p + 1..c]
                .iter()
                .map(|s| free_in_exp(names, &s.exp))
        };
        // A result the body returns may be kept too: the lowering writes a `redomap`'s map
        // result, like a map's, straight into the row of the enclosing map's output.
        let keepable = keep
            && lam.ret.iter().all(|t| matches!(t, Type::Prim(_)))
            && read_elsewhere
                .iter()
                .all(|v| at_c.get(v).copied().unwrap_or(0) == as_input(v))
            && between().all(|free| read_elsewhere.iter().all(|v| !free.contains(v)));
        if !keepable {
            return None;
        }
    }
    let reads = free_in_exp(names, &stm.exp);
    if reads.iter().any(|v| consumed.contains(v)) {
        return None;
    }
    if !dests.is_empty() && !aliases(names, &body.stms[..c], dests).is_disjoint(&reads) {
        return None;
    }
    Some((p, read_elsewhere))
}

/// The variables of `stms` that may share memory with `dests`: the destinations, what they
/// were made from without a copy, and what was made from those without a copy.
fn aliases(names: &NameTable, stms: &[Stm], dests: &[Var]) -> HashSet<Var> {
    let mut set: HashSet<Var> = dests.iter().copied().collect();
    let copies = |s: &Stm| {
        matches!(
            s.exp,
            Exp::BasicOp(BasicOp::Copy(_)) | Exp::BasicOp(BasicOp::Prim(..)) | Exp::Soac(_)
        )
    };
    loop {
        let before = set.len();
        for s in stms.iter().filter(|s| !copies(s)) {
            let reads = free_in_exp(names, &s.exp);
            let arrays: Vec<Var> = s
                .pat
                .iter()
                .copied()
                .filter(|v| names.ty(*v).rank() > 0)
                .collect();
            if !reads.is_disjoint(&set) {
                set.extend(arrays.iter().copied());
            }
            if arrays.iter().any(|v| set.contains(v)) {
                set.extend(reads.iter().copied().filter(|v| names.ty(*v).rank() > 0));
            }
        }
        if set.len() == before {
            return set;
        }
    }
}
