//! Constant folding and algebraic simplification (pass `fold`).
//!
//! Takes a statement and what the engine knows of its operands; gives a simpler equivalent.
//! Rules:
//!
//! * `fold-const`: a primitive operation on constants is evaluated with the interpreter's own
//!   arithmetic ([`crate::core::prim::PrimOp::eval`]); operations that would fail (integer
//!   division by zero) are left to fail at run time;
//! * `add-zero` (`x + -0.0`, `-0.0 + x`; with `+0.0` as `mul-zero`, since `-0.0 + 0.0` is
//!   `+0.0`), `sub-zero` (`x - 0.0`), `mul-one` (`x * 1`, `1 * x`), `div-one` (`x / 1`),
//!   `neg-neg`: exact for every type;
//! * `mul-zero` (`x * 0`, `0 * x` to `0`), `sub-self` (`x - x` to `0`), `neg-zero-sub`
//!   (`0 - x` to `-x`), `mul-select` (`x * select(c, 1, 0)` to `select(c, x, 0)`) and
//!   `div-zero` (`0 / x` to `0`): for integers (where `div-zero` does not apply), and for floats
//!   only in derivative code or under `--fast-math` (the float policy of [`crate::opt`]);
//! * `fma-zero` (`fma(a, 0, c)` to `c`, `fma(a, b, 0)` to `a * b`; as `mul-zero`) and
//!   `fma-one` (`fma(a, 1, c)` to `a + c`: one rounding either way);
//! * `cmp-self`: `x == x`, `x <= x`, `x >= x` to `true`, `x != x`, `x < x`, `x > x` to `false`
//!   (not for floats: NaN);
//! * `select-const`, `select-same`, `select-bool`, `logic-const` (`and`/`or` with a constant),
//!   `not-cmp` (`!(a < b)` on integers to `a >= b`);
//! * `index-iota` (`iota(n, s, d)[i]` to `s + i*d` when `0 <= i < n` is known),
//!   `index-replicate`, `index-rearrange` (a full index of a permuted array becomes an index of
//!   the original), `index-single-lit`, `index-index` (`x[i][j]` to `x[i, j]`),
//!   `index-one-hot` (an element, known in bounds, of an all-zero array updated at one
//!   element is `select(i == c, v, 0)`: reading a one-hot seed `copy zeros with [c] = v`
//!   never needs the array);
//! * `index-in-bounds`: an index whose every position is known to lie in its dimension is
//!   marked [`crate::core::safety::IN_BOUNDS`] when the engine keeps it (`simplify.rs`), and
//!   the backends emit no bounds check for it (a triangular loop's
//!   `q[i, c]` with `c <= i < n`);
//! * `array-of-equal-rows`: an array literal whose rows are all the same is a `replicate`;
//! * `rearrange-rearrange` (permutations compose; `transpose (transpose x)` is `x`),
//!   `rearrange-id`, `reshape-same`, `coerce-same`, `assert-true`;
//! * `rearrange-replicate`: a permutation that keeps a `replicate`'s leading dimensions in
//!   place permutes the replicated value instead (`replicate n v` is never materialised
//!   twice, and a row of the result is a row of the replicate, which `index-replicate` reads
//!   as the value);
//! * `rearrange-map-replicate`: a permuted result of a `map` whose lambda returns
//!   `replicate(shape, v)` with a shape the lambda does not compute is the permuted
//!   `replicate(shape, map (\x -> v) xs)`: the map no longer copies `v` into every row, and
//!   with `rearrange-replicate` a row of the result is the map's small array (a seed
//!   `tabulate k (\j -> replicate n e_j)` of `jmp` is `k` values, not `k·n`);
//! * `map-gather`: a nest of maps over `iota`s whose innermost result is an element of one
//!   array indexed by all the nest's rows (`map (\i -> map (\j -> a[j, i]) ..) ..`) is that
//!   array permuted (`transpose a`), or the array itself.

use super::Ctx;
use super::simplify::{Engine, Rewrite, Scope};
use crate::core::builder::Builder;
use crate::core::ir::{Aux, BasicOp, DimIndex, Exp, Lambda, Soac, Stm, SubExp, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::recognise::{is_one, is_zero, zero_of};
use crate::core::scalar::{PrimType, Scalar};

/// The `fold` rules.
pub fn rule(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
    if let Exp::Soac(crate::core::ir::Soac::Map { .. }) = &stm.exp {
        return gather(eng, ctx, stm, scope);
    }
    let Exp::BasicOp(op) = &stm.exp else {
        return None;
    };
    match op {
        BasicOp::Prim(p, args) => prim(eng, ctx, *p, args),
        BasicOp::Index { array, slice } => index(eng, ctx, *array, slice, scope, &stm.aux),
        BasicOp::Rearrange { array, perm } => {
            if perm.iter().enumerate().all(|(i, p)| i == *p) {
                ctx.fire("rearrange-id");
                return Some(Rewrite::Exp(Exp::BasicOp(BasicOp::SubExp((*array).into()))));
            }
            if let Some(Stm {
                exp:
                    Exp::BasicOp(BasicOp::Rearrange {
                        array: inner,
                        perm: p0,
                    }),
                ..
            }) = eng.def(*array)
            {
                // result[i] = mid[perm[i]] = inner[p0[perm[i]]]
                let composed: Vec<usize> = perm.iter().map(|&i| p0[i]).collect();
                ctx.fire("rearrange-rearrange");
                return Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Rearrange {
                    array: *inner,
                    perm: composed,
                })));
            }
            rearrange_replicate(eng, ctx, stm, *array, perm)
                .or_else(|| rearrange_map_replicate(eng, ctx, stm, *array, perm))
        }
        BasicOp::Reshape { array, shape } | BasicOp::Coerce { array, shape, .. } => {
            if eng.names.ty(*array).dims() == shape.as_slice() {
                ctx.fire(if matches!(op, BasicOp::Reshape { .. }) {
                    "reshape-same"
                } else {
                    "coerce-same"
                });
                return Some(Rewrite::Exp(Exp::BasicOp(BasicOp::SubExp((*array).into()))));
            }
            None
        }
        BasicOp::Assert {
            cond: SubExp::Const(Scalar::Bool(true)),
            ..
        } => {
            ctx.fire("assert-true");
            Some(Rewrite::Subst(vec![]))
        }
        BasicOp::ArrayLit { elems, .. }
            if elems.len() > 1 && elems.iter().all(|e| *e == elems[0]) =>
        {
            ctx.fire("array-of-equal-rows");
            Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Replicate {
                shape: vec![SubExp::i64(elems.len() as i64)],
                value: elems[0],
            })))
        }
        _ => None,
    }
}

fn c(s: Scalar) -> SubExp {
    SubExp::Const(s)
}

fn prim(eng: &Engine, ctx: &mut Ctx, p: PrimOp, args: &[SubExp]) -> Option<Rewrite> {
    let subst = |ctx: &mut Ctx, rule: &'static str, se: SubExp| {
        ctx.fire(rule);
        Some(Rewrite::Subst(vec![se]))
    };
    let exp = |ctx: &mut Ctx, rule: &'static str, p: PrimOp, args: Vec<SubExp>| {
        ctx.fire(rule);
        Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Prim(p, args))))
    };
    if args.iter().all(|a| matches!(a, SubExp::Const(_))) {
        let vals: Vec<Scalar> = args
            .iter()
            .filter_map(|a| match a {
                SubExp::Const(s) => Some(*s),
                _ => None,
            })
            .collect();
        if let Ok(r) = p.eval(&vals) {
            return subst(ctx, "fold-const", c(r));
        }
        return None;
    }
    // Rules inexact under IEEE apply to floats only under the finite-math policy.
    let loose = |t: PrimType| t.is_int() || (t.is_float() && !eng.strict);
    match (p, args) {
        (PrimOp::Bin(BinOp::Add, _), [a, b]) => {
            if is_zero(b) && (is_neg_zero(b) || loose(p.result_type())) {
                return subst(ctx, "add-zero", *a);
            }
            if is_zero(a) && (is_neg_zero(a) || loose(p.result_type())) {
                return subst(ctx, "add-zero", *b);
            }
            None
        }
        (PrimOp::Bin(BinOp::Sub, t), [a, b]) => {
            if is_zero(b) && !is_neg_zero(b) {
                return subst(ctx, "sub-zero", *a);
            }
            if a == b && loose(t) {
                return subst(ctx, "sub-self", zero_of(t));
            }
            if is_zero(a) && loose(t) {
                return exp(ctx, "neg-zero-sub", PrimOp::Un(UnOp::Neg, t), vec![*b]);
            }
            None
        }
        (PrimOp::Bin(BinOp::Mul, t), [a, b]) => {
            if is_one(b) {
                return subst(ctx, "mul-one", *a);
            }
            if is_one(a) {
                return subst(ctx, "mul-one", *b);
            }
            if (is_zero(a) || is_zero(b)) && loose(t) {
                return subst(ctx, "mul-zero", zero_of(t));
            }
            if loose(t) {
                for (x, s) in [(a, b), (b, a)] {
                    if let Some((PrimOp::Tern(TernOp::Select, _), sa)) = eng.prim_def(s) {
                        if is_one(&sa[1]) && is_zero(&sa[2]) {
                            return exp(
                                ctx,
                                "mul-select",
                                PrimOp::Tern(TernOp::Select, t),
                                vec![sa[0], *x, zero_of(t)],
                            );
                        }
                        if is_zero(&sa[1]) && is_one(&sa[2]) {
                            return exp(
                                ctx,
                                "mul-select",
                                PrimOp::Tern(TernOp::Select, t),
                                vec![sa[0], zero_of(t), *x],
                            );
                        }
                    }
                }
            }
            None
        }
        (PrimOp::Bin(BinOp::Div, t), [a, b]) => {
            if is_one(b) {
                return subst(ctx, "div-one", *a);
            }
            if is_zero(a) && t.is_float() && !eng.strict {
                return subst(ctx, "div-zero", zero_of(t));
            }
            None
        }
        (PrimOp::Un(UnOp::Neg, _), [a]) => match eng.prim_def(a) {
            Some((PrimOp::Un(UnOp::Neg, _), inner)) => subst(ctx, "neg-neg", inner[0]),
            _ => None,
        },
        (PrimOp::Un(UnOp::Not, PrimType::Bool), [a]) => match eng.prim_def(a) {
            Some((PrimOp::Un(UnOp::Not, PrimType::Bool), inner)) => subst(ctx, "not-cmp", inner[0]),
            Some((PrimOp::Cmp(op, t), inner)) if t.is_int() || t == PrimType::Bool => {
                let neg = match op {
                    CmpOp::Eq => CmpOp::Ne,
                    CmpOp::Ne => CmpOp::Eq,
                    CmpOp::Lt => CmpOp::Ge,
                    CmpOp::Le => CmpOp::Gt,
                    CmpOp::Gt => CmpOp::Le,
                    CmpOp::Ge => CmpOp::Lt,
                };
                exp(ctx, "not-cmp", PrimOp::Cmp(neg, t), inner)
            }
            _ => None,
        },
        (PrimOp::Cmp(op, t), [a, b]) if a == b && !t.is_float() => {
            let r = matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge);
            subst(ctx, "cmp-self", c(Scalar::Bool(r)))
        }
        // fma(a, b, c) = a * b + c: a zero factor leaves c, a factor one an addition, a zero
        // addend a product (forward mode multiplies one-hot seeds into sums this way).
        (PrimOp::Tern(TernOp::Fma | TernOp::Mad, t), [a, b, cc]) => {
            if (is_zero(a) || is_zero(b)) && loose(t) {
                return subst(ctx, "fma-zero", *cc);
            }
            if is_one(a) || is_one(b) {
                let other = if is_one(a) { *b } else { *a };
                return exp(ctx, "fma-one", PrimOp::Bin(BinOp::Add, t), vec![other, *cc]);
            }
            if is_zero(cc) && loose(t) {
                return exp(ctx, "fma-zero", PrimOp::Bin(BinOp::Mul, t), vec![*a, *b]);
            }
            None
        }
        (PrimOp::Tern(TernOp::Select, _), [cnd, x, y]) => {
            if let SubExp::Const(Scalar::Bool(b)) = cnd {
                return subst(ctx, "select-const", if *b { *x } else { *y });
            }
            if x == y {
                return subst(ctx, "select-same", *x);
            }
            if x == &c(Scalar::Bool(true)) && y == &c(Scalar::Bool(false)) {
                return subst(ctx, "select-bool", *cnd);
            }
            None
        }
        (PrimOp::Bin(op @ (BinOp::And | BinOp::Or), PrimType::Bool), [a, b]) => {
            for (k, other) in [(a, b), (b, a)] {
                if let SubExp::Const(Scalar::Bool(kv)) = k {
                    let r = match (op, kv) {
                        (BinOp::And, true) | (BinOp::Or, false) => *other,
                        (BinOp::And, false) => c(Scalar::Bool(false)),
                        _ => c(Scalar::Bool(true)),
                    };
                    return subst(ctx, "logic-const", r);
                }
            }
            if a == b {
                return subst(ctx, "logic-const", *a);
            }
            None
        }
        _ => None,
    }
}

fn is_neg_zero(se: &SubExp) -> bool {
    match se {
        SubExp::Const(Scalar::F64(x)) => *x == 0.0 && x.is_sign_negative(),
        SubExp::Const(Scalar::F32(x)) => *x == 0.0 && x.is_sign_negative(),
        _ => false,
    }
}

fn index(
    eng: &mut Engine,
    ctx: &mut Ctx,
    array: crate::core::ir::Var,
    slice: &[DimIndex],
    scope: &Scope,
    aux: &Aux,
) -> Option<Rewrite> {
    let def = eng.def(array)?.clone();
    let Exp::BasicOp(op) = &def.exp else {
        return None;
    };
    match op {
        BasicOp::Index {
            array: inner,
            slice: first,
        } if first.iter().all(|d| matches!(d, DimIndex::Fix(_))) && eng.readable_later(*inner) => {
            let mut full = first.clone();
            full.extend_from_slice(slice);
            ctx.fire("index-index");
            Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Index {
                array: *inner,
                slice: full,
            })))
        }
        BasicOp::Iota {
            n,
            start,
            stride,
            elem,
        } => {
            let [DimIndex::Fix(i)] = slice else {
                return None;
            };
            if !scope.ranges.in_bounds(i, n) || *elem != PrimType::I64 {
                return None;
            }
            ctx.fire("index-iota");
            if crate::core::recognise::is_int_const(start, 0)
                && crate::core::recognise::is_int_const(stride, 1)
            {
                return Some(Rewrite::Subst(vec![*i]));
            }
            let mut b = crate::core::builder::Builder::new(eng.names);
            b.set_aux(aux.clone());
            let m = b.prim_named(
                PrimOp::Bin(BinOp::Mul, PrimType::I64),
                vec![*i, *stride],
                "idx",
            );
            let s = b.prim_named(
                PrimOp::Bin(BinOp::Add, PrimType::I64),
                vec![*start, m.into()],
                "idx",
            );
            Some(Rewrite::Stms(b.take_stms(), vec![s.into()]))
        }
        BasicOp::Replicate { shape, value } => {
            // Only a full index into the replicated dimensions, known in bounds.
            if slice.len() != shape.len() {
                return None;
            }
            for (d, n) in slice.iter().zip(shape) {
                match d {
                    DimIndex::Fix(i) if scope.ranges.in_bounds(i, n) => {}
                    _ => return None,
                }
            }
            ctx.fire("index-replicate");
            Some(Rewrite::Subst(vec![*value]))
        }
        BasicOp::Rearrange { array: inner, perm } => {
            if slice.len() != perm.len()
                || !slice.iter().all(|d| matches!(d, DimIndex::Fix(_)))
                || !eng.readable_later(*inner)
            {
                return None;
            }
            // result[i_0, .., i_k] = inner[j] with j[perm[a]] = i_a.
            let mut inner_slice = slice.to_vec();
            for (a, &p) in perm.iter().enumerate() {
                inner_slice[p] = slice[a];
            }
            ctx.fire("index-rearrange");
            Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Index {
                array: *inner,
                slice: inner_slice,
            })))
        }
        BasicOp::Update {
            array: inner,
            slice: point,
            value,
        } if slice.len() == point.len()
            && point.len() == eng.names.ty(def.pat[0]).rank()
            && slice
                .iter()
                .chain(point)
                .all(|d| matches!(d, DimIndex::Fix(_)))
            && super::singlepoint::all_zero(eng, *inner, 0) =>
        {
            // An element of a one-hot array: the value where the indices agree, else zero.
            if !scope
                .ranges
                .fixed_in_bounds(slice, eng.names.ty(def.pat[0]).dims())
            {
                return None;
            }
            let t = eng.names.ty(def.pat[0]).elem();
            let mut b = crate::core::builder::Builder::new(eng.names);
            b.set_aux(aux.clone());
            let mut all = None;
            for (d, p) in slice.iter().zip(point) {
                let (DimIndex::Fix(i), DimIndex::Fix(c)) = (d, p) else {
                    return None;
                };
                let eq = b.prim_named(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![*i, *c], "at");
                all = Some(match all {
                    None => eq,
                    Some(a) => b.prim_named(
                        PrimOp::Bin(BinOp::And, PrimType::Bool),
                        vec![SubExp::Var(a), eq.into()],
                        "at",
                    ),
                });
            }
            let r = b.prim_named(
                PrimOp::Tern(TernOp::Select, t),
                vec![all?.into(), *value, crate::core::recognise::zero_of(t)],
                "onehot",
            );
            ctx.fire("index-one-hot");
            Some(Rewrite::Stms(b.take_stms(), vec![r.into()]))
        }
        BasicOp::ArrayLit { elems, .. } if elems.len() == 1 => {
            let [DimIndex::Fix(SubExp::Const(k))] = slice else {
                return None;
            };
            if k.as_i64() != Some(0) || eng.names.ty(def.pat[0]).rank() != 1 {
                return None;
            }
            ctx.fire("index-single-lit");
            Some(Rewrite::Subst(vec![elems[0]]))
        }
        _ => None,
    }
}

/// The `map-gather` rule.
fn gather(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
    let [res] = stm.pat.as_slice() else {
        return None;
    };
    let mut widths = Vec::new();
    let mut params = Vec::new();
    let mut exp = &stm.exp;
    let mut ranges = scope.ranges.clone();
    // Walk down the nest: each level a map over one `iota`, whose body is one statement.
    let (array, slice) = loop {
        match exp {
            Exp::Soac(crate::core::ir::Soac::Map { w, lam, arrays }) => {
                let ([p], [a], [r]) = (
                    lam.params.as_slice(),
                    arrays.as_slice(),
                    lam.body.result.as_slice(),
                ) else {
                    return None;
                };
                if ranges.iotas.get(a) != Some(w) {
                    return None;
                }
                let [inner] = lam.body.stms.as_slice() else {
                    return None;
                };
                if inner.pat.as_slice() != [r.as_var()?] {
                    return None;
                }
                widths.push(*w);
                params.push(*p);
                ranges.insert(*p, 0, *w);
                exp = &inner.exp;
            }
            Exp::BasicOp(BasicOp::Index { array, slice }) => break (*array, slice.clone()),
            _ => return None,
        }
    };
    let dims = eng.names.ty(array).dims().to_vec();
    if slice.len() != dims.len() || slice.len() != params.len() {
        return None;
    }
    // perm[k] = the array dimension indexed by the k-th row.
    let mut perm = vec![usize::MAX; params.len()];
    for (d, idx) in slice.iter().enumerate() {
        let DimIndex::Fix(SubExp::Var(v)) = idx else {
            return None;
        };
        let k = params.iter().position(|p| p == v)?;
        if perm[k] != usize::MAX || widths[k] != dims[d] {
            return None;
        }
        perm[k] = d;
    }
    if eng.consumed.contains(res) || eng.consumed.contains(&array) {
        return None;
    }
    ctx.fire("map-gather");
    if perm.iter().enumerate().all(|(i, p)| i == *p) {
        return Some(Rewrite::Subst(vec![array.into()]));
    }
    Some(Rewrite::Exp(Exp::BasicOp(BasicOp::Rearrange {
        array,
        perm,
    })))
}

/// `rearrange-replicate`: `rearrange(perm, replicate(shape, v))`, where `perm` keeps the
/// `shape.len()` leading dimensions in place, is `replicate(shape, rearrange(perm', v))`.
fn rearrange_replicate(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    array: Var,
    perm: &[usize],
) -> Option<Rewrite> {
    let Some(Stm {
        exp: Exp::BasicOp(BasicOp::Replicate { shape, value }),
        ..
    }) = eng.def(array)
    else {
        return None;
    };
    let (shape, value) = (shape.clone(), *value);
    let r = shape.len();
    if perm.len() <= r || perm[..r].iter().enumerate().any(|(i, p)| i != *p) {
        return None;
    }
    let v = value.as_var()?;
    if !eng.readable_later(v) {
        return None;
    }
    let inner: Vec<usize> = perm[r..].iter().map(|p| p - r).collect();
    let [res] = stm.pat.as_slice() else {
        return None;
    };
    ctx.fire("rearrange-replicate");
    let value_hint = eng.names.hint(v).to_string();
    let hint = eng.names.hint(*res).to_string();
    let mut b = Builder::new(eng.names);
    b.set_aux(stm.aux.clone());
    let permuted = b.basic(
        BasicOp::Rearrange {
            array: v,
            perm: inner,
        },
        &value_hint,
    );
    let out = b.basic(
        BasicOp::Replicate {
            shape,
            value: permuted.into(),
        },
        &hint,
    );
    Some(Rewrite::Stms(b.take_stms(), vec![out.into()]))
}

/// `rearrange-map-replicate`: `rearrange(perm, a)`, where `a` is a result of
/// `map(w, \x -> .. replicate(shape, v) .., xs)` and `shape` is computed outside the lambda,
/// is `rearrange(perm2, replicate(shape, map(w, \x -> v, xs)))`, with `perm2` the same
/// permutation of the dimensions of `a` now stored as `[shape][w][v's]`.
fn rearrange_map_replicate(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    array: Var,
    perm: &[usize],
) -> Option<Rewrite> {
    let def = eng.def(array)?;
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &def.exp else {
        return None;
    };
    let k = def.pat.iter().position(|p| *p == array)?;
    let rv = lam.body.result[k].as_var()?;
    let rep = lam.body.stms.iter().find(|s| s.pat.contains(&rv))?;
    let Exp::BasicOp(BasicOp::Replicate { shape, value }) = &rep.exp else {
        return None;
    };
    let mut inner = lam.params.clone();
    crate::core::renumber::body_binders(&lam.body, &mut inner);
    let bound: std::collections::HashSet<Var> = inner.into_iter().collect();
    let vt = eng.names.subexp_ty(value);
    let local = |se: &SubExp| se.as_var().is_some_and(|v| bound.contains(&v));
    if shape.iter().any(local) || vt.dims().iter().any(local) {
        return None;
    }
    // The copy of the lambda runs where `stm` is: what it reads must not have been updated.
    let mut consumed = std::collections::HashSet::new();
    crate::core::visit::consumed_in_body(&lam.body, &mut consumed);
    if !consumed.is_empty()
        || arrays.iter().any(|a| !eng.readable_later(*a))
        || crate::core::visit::lambda_free_vars(lam)
            .iter()
            .any(|v| !eng.readable_later(*v))
    {
        return None;
    }
    let [res] = stm.pat.as_slice() else {
        return None;
    };
    let (w, shape, value, arrays) = (*w, shape.clone(), *value, arrays.clone());
    let pruned = crate::core::subst::prune(eng.names, &lam.body, vec![value]);
    let lam_params = lam.params.clone();
    let (params, body) = crate::core::subst::fresh_copy(eng.names, &lam_params, &pruned);
    ctx.fire("rearrange-map-replicate");
    // Dimension a of `array` is dimension at(a) of the replicate.
    let r = shape.len();
    let at = |a: usize| match a {
        0 => r,
        a if a <= r => a - 1,
        a => a,
    };
    let hint = eng.names.hint(*res).to_string();
    let mut b = Builder::new(eng.names);
    b.set_aux(stm.aux.clone());
    let rows = b.bind(
        Exp::Soac(Soac::Map {
            w,
            lam: Lambda {
                params,
                body,
                ret: vec![vt.clone()],
            },
            arrays,
        }),
        vec![vt.array_of(w)],
        "map_res",
    )[0];
    let replicated = b.basic(
        BasicOp::Replicate {
            shape,
            value: rows.into(),
        },
        "replicate",
    );
    let out = b.basic(
        BasicOp::Rearrange {
            array: replicated,
            perm: perm.iter().map(|&a| at(a)).collect(),
        },
        &hint,
    );
    Some(Rewrite::Stms(b.take_stms(), vec![out.into()]))
}
