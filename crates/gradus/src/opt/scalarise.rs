//! Small arrays of known size become scalars (pass `scalarise`, rules run by `simplify`).
//!
//! Programs about geometry build 2-, 3- and 4-element vectors and 4×4 matrices inside the
//! body of a large `map` (`[x[0] - c[3], x[1] - c[4], x[2] - c[5]]`, `map3 (\a b c -> ..)
//! y exy e`, `tabulate_2d 4 4 ..`); reverse mode adds the adjoints of each of them. Kept as
//! arrays they cost an allocation, a loop and bounds checks per use per iteration of the
//! enclosing map; as scalars they live in registers. The rules take a statement and what the
//! engine knows of its operands, and give an equivalent one:
//!
//! * `index-lit`: `[a, b, c][k]` with a constant `k` in range is `b` (for a literal of
//!   arrays indexed further, the row indexed by the rest of the slice);
//! * `update-lit`: `[a, b, c] with [1] = v` is the literal `[a, v, c]`, and
//!   `replicate 3 z with [1] = v` is `[z, v, z]` (reverse mode's adjoints of small arrays),
//!   so that later reads of constant elements stay direct;
//! * `concat-lit`: a concatenation of literals of scalars is one literal;
//! * `map-unroll`: a `map` over a constant width of at most [`UNROLL_WIDTH`] whose body is
//!   small (at most [`UNROLL_WORK`] statements in all copies, and nested SOACs and loops
//!   only over such widths) becomes one copy of the body per row and array literals of the
//!   copies' results;
//! * `if-split`: an `if` returning a small array of known size that one of its branches
//!   builds (a literal, a `replicate` or a `map`) returns its elements instead, and the array
//!   is rebuilt after the `if`: reads of constant elements then see the branches' scalars.
//!
//! Rows that a `map`'s body consumes, and accumulator inputs, are left alone. What stays an
//! array (an element read at a run-time index) is rebuilt by one literal, which dead-code
//! elimination removes when nothing reads it.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use super::simplify::{Engine, Rewrite, Scope};
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, Soac, Stm, SubExp, Type, Var};
use crate::core::subst::instantiate_lambda;
use std::collections::HashSet;

/// Widest `map` that is unrolled, and longest array that an `if` returns element-wise.
pub const UNROLL_WIDTH: i64 = 16;
/// Most statements (counting nested bodies) that unrolling a `map` may create.
pub const UNROLL_WORK: usize = 512;

/// The `scalarise` rules.
pub fn rule(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, _scope: &Scope) -> Option<Rewrite> {
    match &stm.exp {
        Exp::BasicOp(BasicOp::Index { array, slice }) => index_lit(eng, ctx, stm, *array, slice),
        Exp::BasicOp(BasicOp::Update {
            array,
            slice,
            value,
        }) => update_lit(eng, ctx, *array, slice, *value),
        Exp::BasicOp(BasicOp::Concat { arrays, .. }) => concat_lit(eng, ctx, arrays),
        Exp::Soac(Soac::Map { w, lam, arrays }) => map_unroll(eng, ctx, stm, *w, lam, arrays),
        Exp::If { .. } => if_split(eng, ctx, stm),
        _ => None,
    }
}

/// A constant `k` with `0 <= k < len`.
fn const_index(se: &SubExp, len: usize) -> Option<usize> {
    let SubExp::Const(c) = se else {
        return None;
    };
    let k = c.as_i64()?;
    (0..len as i64).contains(&k).then_some(k as usize)
}

/// A dimension known as a constant no wider than [`UNROLL_WIDTH`].
fn small_width(se: &SubExp) -> Option<i64> {
    let SubExp::Const(c) = se else {
        return None;
    };
    let n = c.as_i64()?;
    (1..=UNROLL_WIDTH).contains(&n).then_some(n)
}

fn index_lit(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    array: Var,
    slice: &[DimIndex],
) -> Option<Rewrite> {
    let Some(Stm {
        exp: Exp::BasicOp(BasicOp::ArrayLit { elems, .. }),
        ..
    }) = eng.def(array)
    else {
        return None;
    };
    let (DimIndex::Fix(i), rest) = slice.split_first()? else {
        return None;
    };
    let row = elems[const_index(i, elems.len())?];
    // A literal holds copies of its rows: reading the row's variable instead is only the
    // same while nothing updates that variable in place.
    if let SubExp::Var(v) = row
        && !eng.readable_later(v)
    {
        return None;
    }
    if rest.is_empty() {
        // A whole row of a literal of arrays is that row's variable: the same value, but
        // an alias of it, so only when nothing consumes the result.
        if stm.pat.iter().any(|v| eng.consumed.contains(v)) && row.as_var().is_some() {
            return None;
        }
        ctx.fire("index-lit");
        return Some(Rewrite::Subst(vec![row]));
    }
    let SubExp::Var(row) = row else {
        return None;
    };
    ctx.fire("index-lit");
    Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Index {
        array: row,
        slice: rest.to_vec(),
    })))
}

fn update_lit(
    eng: &mut Engine,
    ctx: &mut Ctx,
    array: Var,
    slice: &[DimIndex],
    value: SubExp,
) -> Option<Rewrite> {
    let [DimIndex::Fix(i)] = slice else {
        return None;
    };
    let (mut elems, row) = match &eng.def(array)?.exp {
        Exp::BasicOp(BasicOp::ArrayLit { elems, row }) if matches!(row, Type::Prim(_)) => {
            (elems.clone(), row.clone())
        }
        // A zero adjoint of a small array, updated element by element by reverse mode.
        Exp::BasicOp(BasicOp::Replicate { shape, value: v }) if shape.len() == 1 => {
            let n = small_width(&shape[0])?;
            let row = eng.names.ty(array).row();
            if !matches!(row, Type::Prim(_)) {
                return None;
            }
            (vec![*v; n as usize], row)
        }
        _ => return None,
    };
    let k = const_index(i, elems.len())?;
    elems[k] = value;
    ctx.fire("update-lit");
    Some(Rewrite::Exp(Exp::BasicOp(BasicOp::ArrayLit { elems, row })))
}

fn concat_lit(eng: &mut Engine, ctx: &mut Ctx, arrays: &[Var]) -> Option<Rewrite> {
    let mut all = Vec::new();
    let mut row = None;
    for a in arrays {
        match &eng.def(*a)?.exp {
            Exp::BasicOp(BasicOp::ArrayLit { elems, row: r }) if matches!(r, Type::Prim(_)) => {
                all.extend(elems.iter().copied());
                row = Some(r.clone());
            }
            _ => return None,
        }
    }
    // Longer literals are not small arrays any more: a copy of a buffer beats storing
    // each element from a scalar.
    if all.len() > 4 * UNROLL_WIDTH as usize {
        return None;
    }
    ctx.fire("concat-lit");
    Some(Rewrite::Exp(Exp::BasicOp(BasicOp::ArrayLit {
        elems: all,
        row: row?,
    })))
}

/// Statements in `body`, nested bodies included; `None` when a nested SOAC or loop runs
/// over a size not known here. A `map` over rows that each do work proportional to the
/// input stays a `map`: unrolling it saves nothing, and the rules that see through sums of
/// one-hot seeds (`single-point`) and code motion work on the map as a whole.
fn weight(body: &Body) -> Option<usize> {
    let mut total = 0;
    for s in &body.stms {
        let known = match &s.exp {
            Exp::Soac(soac) => small_width(soac.width()).is_some(),
            Exp::Loop {
                form: crate::core::ir::LoopForm::For { bound, .. },
                ..
            } => small_width(bound).is_some(),
            Exp::Loop { .. } => false,
            _ => true,
        };
        if !known {
            return None;
        }
        total += 1;
        for b in s.exp.bodies() {
            total += weight(b)?;
        }
    }
    Some(total)
}

fn map_unroll(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    w: SubExp,
    lam: &crate::core::ir::Lambda,
    arrays: &[Var],
) -> Option<Rewrite> {
    let n = small_width(&w)?;
    if (n as usize) * weight(&lam.body)? > UNROLL_WORK {
        return None;
    }
    if arrays
        .iter()
        .any(|a| matches!(eng.names.ty(*a), Type::Acc { .. }))
    {
        return None;
    }
    let mut consumed = HashSet::new();
    crate::core::visit::consumed_in_body(&lam.body, &mut consumed);
    if lam.params.iter().any(|p| consumed.contains(p)) {
        return None;
    }
    ctx.fire("map-unroll");
    let mut stms = Vec::new();
    let mut rows: Vec<Vec<SubExp>> = vec![Vec::new(); stm.pat.len()];
    for k in 0..n {
        let mut args = Vec::with_capacity(arrays.len());
        for a in arrays {
            let t = eng.names.ty(*a).row();
            let hint = format!("{}_row", eng.names.hint(*a));
            let v = eng.names.fresh(&hint, t);
            stms.push(Stm {
                pat: vec![v],
                exp: Exp::BasicOp(BasicOp::Index {
                    array: *a,
                    slice: vec![DimIndex::Fix(SubExp::i64(k))],
                }),
                aux: stm.aux.clone(),
            });
            args.push(SubExp::Var(v));
        }
        let (more, results) = instantiate_lambda(eng.names, lam, &args, &stm.aux);
        stms.extend(more);
        for (o, r) in results.into_iter().enumerate() {
            rows[o].push(r);
        }
    }
    // The results keep their names: each is now bound by a literal.
    for (v, elems) in stm.pat.iter().zip(rows) {
        let row = eng.names.ty(*v).row();
        stms.push(Stm {
            pat: vec![*v],
            exp: Exp::BasicOp(BasicOp::ArrayLit { elems, row }),
            aux: stm.aux.clone(),
        });
    }
    let same = stm.pat.iter().map(|v| SubExp::Var(*v)).collect();
    Some(Rewrite::Stms(stms, same))
}

/// Whether `body` builds `v` itself from elements (so that splitting exposes them).
fn builds(body: &Body, v: &SubExp) -> bool {
    let Some(v) = v.as_var() else {
        return false;
    };
    body.stms.iter().any(|s| {
        s.pat.contains(&v)
            && matches!(
                s.exp,
                Exp::BasicOp(BasicOp::ArrayLit { .. } | BasicOp::Replicate { .. })
                    | Exp::Soac(Soac::Map { .. })
            )
    })
}

fn if_split(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm) -> Option<Rewrite> {
    let Exp::If {
        cond,
        then_body,
        else_body,
        ret,
    } = &stm.exp
    else {
        return None;
    };
    // Which results to split: rank-1 arrays of a small constant length, built in a branch.
    let split: Vec<Option<i64>> = ret
        .iter()
        .enumerate()
        .map(|(o, t)| match t {
            Type::Array { dims, .. } if dims.len() == 1 => small_width(&dims[0]).filter(|_| {
                builds(then_body, &then_body.result[o]) || builds(else_body, &else_body.result[o])
            }),
            _ => None,
        })
        .collect();
    if split.iter().all(Option::is_none) {
        return None;
    }
    // Existential sizes are leading results whose types other results mention; splitting
    // keeps every result's position relative to them simple by requiring none.
    if ret.len() != stm.pat.len()
        || ret.iter().any(|t| {
            crate::core::visit::type_vars(t)
                .iter()
                .any(|d| stm.pat.contains(d))
        })
    {
        return None;
    }
    ctx.fire("if-split");
    let aux = &stm.aux;
    let branch = |body: &Body, eng: &mut Engine| -> Body {
        let mut b = body.clone();
        let mut result = Vec::new();
        for (r, n) in body.result.iter().zip(&split) {
            match (n, r) {
                (Some(n), SubExp::Var(a)) => {
                    let t = Type::Prim(eng.names.ty(*a).elem());
                    for k in 0..*n {
                        let e = eng.names.fresh("elem", t.clone());
                        b.stms.push(Stm {
                            pat: vec![e],
                            exp: Exp::BasicOp(BasicOp::Index {
                                array: *a,
                                slice: vec![DimIndex::Fix(SubExp::i64(k))],
                            }),
                            aux: aux.clone(),
                        });
                        result.push(SubExp::Var(e));
                    }
                }
                (Some(n), SubExp::Const(c)) => {
                    result.extend((0..*n).map(|_| SubExp::Const(*c)));
                }
                (None, r) => result.push(*r),
            }
        }
        b.result = result;
        b
    };
    let then_body = branch(then_body, eng);
    let else_body = branch(else_body, eng);
    // Unsplit results and the rebuilt arrays keep their names.
    let mut new_ret = Vec::new();
    let mut pat = Vec::new();
    let mut after = Vec::new();
    for ((v, t), n) in stm.pat.iter().zip(ret).zip(&split) {
        match n {
            Some(n) => {
                let et = Type::Prim(t.elem());
                let elems: Vec<SubExp> = (0..*n)
                    .map(|_| {
                        let hint = eng.names.hint(*v).to_string();
                        let e = eng.names.fresh(&hint, et.clone());
                        new_ret.push(et.clone());
                        pat.push(e);
                        SubExp::Var(e)
                    })
                    .collect();
                after.push(Stm {
                    pat: vec![*v],
                    exp: Exp::BasicOp(BasicOp::ArrayLit { elems, row: et }),
                    aux: stm.aux.clone(),
                });
            }
            None => {
                new_ret.push(t.clone());
                pat.push(*v);
            }
        }
    }
    let mut stms = vec![Stm {
        pat,
        exp: Exp::If {
            cond: *cond,
            then_body,
            else_body,
            ret: new_ret,
        },
        aux: stm.aux.clone(),
    }];
    stms.extend(after);
    let same = stm.pat.iter().map(|v| SubExp::Var(*v)).collect();
    Some(Rewrite::Stms(stms, same))
}
