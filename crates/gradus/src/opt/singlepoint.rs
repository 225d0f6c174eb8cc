//! Sums that are zero but at one index (pass `single-point`): the dF~ paper's rule that
//! makes forward-mode gradients cheap, in the form "map into reduce" fusion takes in an IR
//! without a fused map-reduce construct.
//!
//! Rule `reduce-single-point`: `reduce(+, 0, map(w, f, iota w, xs..))` where the mapped value
//! is zero unless the `iota` row equals some `c` that does not depend on the row (for example
//! `y[j] * (if j == c then 1 else 0)`, the tangent of a dot product at a one-hot seed) becomes
//! `f(c, xs[c]..)`, guarded by `0 <= c < w` unless that is known. The sparsity analysis
//! ([`sparse`]) follows products (a factor zero makes the product zero), quotients, negation,
//! sums of terms zero at the same index, `select` and `if` on conditions that imply `j == c`.
//! Products by zero count as zero only under the finite-math float policy (`crate::opt`).
//!
//! Rule `reduce-of-zeros`: a sum of an all-zero array (a replicate of zero) is zero.
//!
//! Rule `reduce-single-row`: the same sum when the map reads the rows of an array that is zero
//! but in one row instead of an index (a seed `copy zeros with [q, j] = 1`, its transpose, a
//! row of it), and returns zero for a zero row ([`array_point`], [`zero_under`]).
//!
//! Rule `acc-single-row`: a full update of an accumulator (a map over `iota(w)` adding every
//! element of row `j` of `ys` at `[j, ..]`, as reverse mode adds the adjoint of a map's free
//! array) where `ys` is made by a map reading rows of arrays that are zero but in one row `c`
//! (the same `c` for all of them, [`array_point`]) and returning zero for zero rows
//! ([`zero_under`]) adds row `c` only: `f(xs[c]..)`, added at `[c, ..]`, guarded by
//! `0 <= c < w` unless that is known. The adjoint of `minimum` over a map is such a one-hot
//! array: the k-means Newton direction's return sweep then adds one centroid's row per point
//! instead of all of them. Where the definitions give row `c` of a one-dimensional input (the
//! value an update stored, or a branch's choice between it and zero: [`point_value`]), that
//! value is used instead of reading the array, which then is not built at all.
//!
//! Takes verified IR and gives verified IR; the map is left for dead-code elimination.

use super::Ctx;
use super::simplify::{Engine, Rewrite, Scope};
use crate::core::builder::Builder;
use crate::core::ir::{Aux, BasicOp, Body, DimIndex, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::recognise::{is_plus, is_zero, zero_of};
use crate::core::scalar::PrimType;
use crate::core::subst::{instantiate_lambda, substitute_lambda};
use crate::core::visit::exp_binders;
use std::collections::HashSet;

/// Where a value is non-zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sparse {
    /// Zero everywhere.
    Zero,
    /// Zero unless the index variable `j` equals `c`.
    At(Var, SubExp),
}

/// The analysis context: the index variables and the variables bound in the region
/// analysed (`c` must not be one of them).
pub struct Region<'a> {
    /// Index variables (rows of `iota`, loop counters).
    pub index_vars: &'a [Var],
    /// Variables bound inside the region.
    pub bound: &'a HashSet<Var>,
}

fn combine(a: Option<Sparse>, b: Option<Sparse>) -> Option<Sparse> {
    match (a?, b?) {
        (Sparse::Zero, x) | (x, Sparse::Zero) => Some(x),
        (x, y) if x == y => Some(x),
        _ => None,
    }
}

/// The point `(j, c)` at which `cond` being true implies `j == c`.
pub fn cond_point(eng: &Engine, cond: &SubExp, r: &Region) -> Option<Sparse> {
    let (op, args) = eng.prim_def(cond)?;
    match (op, args.as_slice()) {
        (PrimOp::Cmp(CmpOp::Eq, PrimType::I64), [a, b]) => {
            for (j, c) in [(a, b), (b, a)] {
                if let SubExp::Var(jv) = j {
                    let inv = match c {
                        SubExp::Var(cv) => !r.bound.contains(cv),
                        SubExp::Const(_) => true,
                    };
                    if r.index_vars.contains(jv) && inv {
                        return Some(Sparse::At(*jv, *c));
                    }
                }
            }
            None
        }
        (PrimOp::Bin(BinOp::And, PrimType::Bool), [a, b]) => {
            cond_point(eng, a, r).or_else(|| cond_point(eng, b, r))
        }
        _ => None,
    }
}

/// Where `se` (computed in the region) is non-zero, if the analysis can tell.
pub fn sparse(eng: &Engine, se: &SubExp, r: &Region, depth: usize) -> Option<Sparse> {
    if is_zero(se) {
        return Some(Sparse::Zero);
    }
    if depth > 24 {
        return None;
    }
    let v = se.as_var()?;
    if !r.bound.contains(&v) {
        return None;
    }
    let (stm, k) = eng.defs.get(&v)?;
    let rec = |x: &SubExp| sparse(eng, x, r, depth + 1);
    match &stm.exp {
        Exp::BasicOp(BasicOp::Prim(op, args)) => {
            let strict = eng.strict_at(stm);
            let loose = |t: PrimType| t.is_int() || !strict;
            match (*op, args.as_slice()) {
                (PrimOp::Bin(BinOp::Mul, t), [a, b]) if loose(t) => rec(a).or_else(|| rec(b)),
                (PrimOp::Bin(BinOp::Div, t), [a, _]) if t.is_float() && !strict => rec(a),
                (PrimOp::Un(UnOp::Neg, _), [a]) => rec(a),
                (PrimOp::Bin(BinOp::Add | BinOp::Sub, _), [a, b]) => combine(rec(a), rec(b)),
                (PrimOp::Tern(TernOp::Fma, t), [a, b, c]) if loose(t) => {
                    combine(rec(a).or_else(|| rec(b)), rec(c))
                }
                (PrimOp::Tern(TernOp::Select, _), [c, a, b]) => {
                    if let (Some(p), Some(Sparse::Zero)) = (cond_point(eng, c, r), rec(b)) {
                        return Some(p);
                    }
                    combine(rec(a), rec(b))
                }
                (PrimOp::Conv(from, to), [a]) if from.is_float() && to.is_float() => rec(a),
                // `f64.bool c` is zero where `c` is false (one-hot seeds written with it).
                (PrimOp::Conv(PrimType::Bool, _), [c]) => cond_point(eng, c, r),
                _ => None,
            }
        }
        Exp::BasicOp(BasicOp::SubExp(x)) => rec(x),
        Exp::If {
            cond,
            then_body,
            else_body,
            ..
        } => {
            let e = else_body.result.get(*k)?;
            let t = then_body.result.get(*k)?;
            if else_body.stms.is_empty()
                && is_zero(e)
                && let Some(p) = cond_point(eng, cond, r)
            {
                return Some(p);
            }
            let _ = t;
            None
        }
        _ => None,
    }
}

/// The `reduce-single-point` rule.
pub fn rule(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
    let Exp::Soac(Soac::Reduce {
        w,
        lam,
        neutral,
        arrays,
        ..
    }) = &stm.exp
    else {
        return None;
    };
    let ([ne], [arr], [res]) = (neutral.as_slice(), arrays.as_slice(), stm.pat.as_slice()) else {
        return None;
    };
    if !is_zero(ne) || !is_plus(lam) {
        return None;
    }
    let Type::Prim(t) = eng.names.ty(*res).clone() else {
        return None;
    };
    if all_zero(eng, *arr, 0) {
        ctx.fire("reduce-of-zeros");
        return Some(Rewrite::Subst(vec![zero_of(t)]));
    }
    let (def, o) = eng.defs.get(arr)?.clone();
    let Exp::Soac(Soac::Map {
        w: mw,
        lam: mlam,
        arrays: marrays,
    }) = &def.exp
    else {
        return None;
    };
    if mw != w {
        return None;
    }
    let index_vars: Vec<Var> = mlam
        .params
        .iter()
        .zip(marrays)
        .filter(|(_, a)| scope.ranges.iotas.get(a) == Some(w))
        .map(|(p, _)| *p)
        .collect();
    if index_vars.is_empty() {
        return single_row(eng, ctx, stm, scope, *w, t, mlam, marrays, o);
    }
    let mut bound = exp_binders(&def.exp);
    bound.extend(mlam.params.iter().copied());
    let region = Region {
        index_vars: &index_vars,
        bound: &bound,
    };
    let r = mlam.body.result.get(o)?;
    let point = sparse(eng, r, &region, 0)?;
    ctx.fire("reduce-single-point");
    let Sparse::At(_, c) = point else {
        return Some(Rewrite::Subst(vec![zero_of(t)]));
    };
    let (mlam, marrays) = (mlam.clone(), marrays.clone());
    let in_bounds = scope.ranges.in_bounds(&c, w);
    let (stms, res) = value_at(eng, &mlam, &marrays, c, o, &stm.aux);
    if in_bounds {
        return Some(Rewrite::Stms(stms, vec![res]));
    }
    Some(guarded(eng, c, *w, stms, res, zero_of(t), t, &stm.aux))
}

/// Rule `reduce-single-row`: `reduce(+, 0, map(w, f, xs..))` where one input `xs_s` is zero
/// but in row `c` ([`array_point`]) and `f` returns zero when its row of `xs_s` is all zero
/// ([`zero_under`]) becomes `f(xs[c]..)`, guarded by `0 <= c < w` unless that is known. This
/// is the same sum over a single point as `reduce-single-point`, for maps that read the rows
/// of a one-hot array (a seed `copy zeros with [q, j] = 1`, or its transpose) instead of an
/// index.
#[allow(clippy::too_many_arguments)]
fn single_row(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    scope: &Scope,
    w: SubExp,
    t: PrimType,
    mlam: &Lambda,
    marrays: &[Var],
    o: usize,
) -> Option<Rewrite> {
    let r = *mlam.body.result.get(o)?;
    for (p, a) in mlam.params.iter().zip(marrays) {
        let Some(point) = array_point(eng, *a, 0) else {
            continue;
        };
        let mut zero = HashSet::from([*p]);
        zero_under(eng, &mlam.body, &mut zero);
        if !(is_zero(&r) || matches!(r, SubExp::Var(v) if zero.contains(&v))) {
            continue;
        }
        ctx.fire("reduce-single-row");
        let c = point[0];
        let (mlam, marrays) = (mlam.clone(), marrays.to_vec());
        let (stms, res) = value_at(eng, &mlam, &marrays, c, o, &stm.aux);
        if scope.ranges.in_bounds(&c, &w) {
            return Some(Rewrite::Stms(stms, vec![res]));
        }
        return Some(guarded(eng, c, w, stms, res, zero_of(t), t, &stm.aux));
    }
    None
}

/// Whether the array `v` is all zeros (a replicate of zero, or a copy of one).
pub fn all_zero(eng: &Engine, v: Var, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    match eng.def(v).map(|s| &s.exp) {
        Some(Exp::BasicOp(BasicOp::Replicate { value, .. })) => {
            is_zero(value) || matches!(value, SubExp::Var(x) if all_zero(eng, *x, depth + 1))
        }
        Some(Exp::BasicOp(BasicOp::Copy(x))) => all_zero(eng, *x, depth + 1),
        Some(Exp::BasicOp(BasicOp::SubExp(SubExp::Var(x)))) => all_zero(eng, *x, depth + 1),
        _ => false,
    }
}

/// The one index at which the array `v` may be non-zero, if the definitions show one: an
/// all-zero array updated at one element, rearranged, copied, or indexed in its leading
/// dimensions.
pub fn array_point(eng: &Engine, v: Var, depth: usize) -> Option<Vec<SubExp>> {
    if depth > 16 {
        return None;
    }
    let rank = eng.names.ty(v).rank();
    match &eng.def(v)?.exp {
        Exp::BasicOp(BasicOp::Update {
            array,
            slice,
            value: _,
        }) => {
            let point: Vec<SubExp> = slice
                .iter()
                .map(|d| match d {
                    DimIndex::Fix(i) => Some(*i),
                    DimIndex::Slice { .. } => None,
                })
                .collect::<Option<_>>()?;
            (point.len() == rank && all_zero(eng, *array, depth + 1)).then_some(point)
        }
        Exp::BasicOp(BasicOp::Rearrange { array, perm }) => {
            let inner = array_point(eng, *array, depth + 1)?;
            Some(perm.iter().map(|&p| inner[p]).collect())
        }
        Exp::BasicOp(BasicOp::Copy(x)) | Exp::BasicOp(BasicOp::SubExp(SubExp::Var(x))) => {
            array_point(eng, *x, depth + 1)
        }
        Exp::BasicOp(BasicOp::Index { array, slice })
            if slice.iter().all(|d| matches!(d, DimIndex::Fix(_))) =>
        {
            let inner = array_point(eng, *array, depth + 1)?;
            Some(inner[slice.len()..].to_vec())
        }
        // A branch zero but at a point, the other all zero or zero but at the same point
        // (the adjoint of `minimum`: one-hot where the minimum was found, if it was).
        e @ Exp::If {
            then_body,
            else_body,
            ..
        } => {
            let k = eng.def(v)?.pat.iter().position(|p| *p == v)?;
            let branch = |b: &Body| -> Option<Option<Vec<SubExp>>> {
                let x = b.result.get(k)?.as_var()?;
                if all_zero(eng, x, depth + 1) {
                    return Some(None);
                }
                array_point(eng, x, depth + 1).map(Some)
            };
            let point = match (branch(then_body)?, branch(else_body)?) {
                (Some(p), None) | (None, Some(p)) => p,
                (Some(p), Some(q)) if p == q => p,
                _ => return None,
            };
            // The point must be a value from outside the branches.
            let inside = exp_binders(e);
            point
                .iter()
                .all(|c| !matches!(c, SubExp::Var(x) if inside.contains(x)))
                .then_some(point)
        }
        _ => None,
    }
}

/// The element at the point `c` of a one-dimensional array zero but there ([`array_point`]),
/// where the definitions give it without reading the array: zero, the value an update stored,
/// or a branch's choice between those.
enum PointValue {
    Known(SubExp),
    Select(SubExp, Box<PointValue>, Box<PointValue>),
}

impl PointValue {
    /// The value, built as `select`s of the branch conditions where it is a choice.
    fn emit(self, b: &mut Builder<'_>, t: PrimType) -> SubExp {
        match self {
            PointValue::Known(v) => v,
            PointValue::Select(cond, x, y) => {
                let (x, y) = (x.emit(b, t), y.emit(b, t));
                if x == y {
                    return x;
                }
                let op = BasicOp::Prim(PrimOp::Tern(TernOp::Select, t), vec![cond, x, y]);
                b.basic(op, "point").into()
            }
        }
    }

    /// Whether every value and condition is bound outside `inside`.
    fn bound_outside(&self, inside: &HashSet<Var>) -> bool {
        let out = |v: &SubExp| !matches!(v, SubExp::Var(x) if inside.contains(x));
        match self {
            PointValue::Known(v) => out(v),
            PointValue::Select(cond, x, y) => {
                out(cond) && x.bound_outside(inside) && y.bound_outside(inside)
            }
        }
    }
}

/// Element `c` of the one-dimensional array `v` without reading it, if its definitions say
/// (see [`PointValue`]). The adjoint of `minimum` is a one-hot array built in a branch (the
/// minimum may not be found); its single row is then the branch's choice of the adjoint or
/// zero, and the array itself, a zero-filled allocation per point in k-means, is left dead.
fn point_value(eng: &Engine, v: Var, c: &SubExp, depth: usize) -> Option<PointValue> {
    if depth > 16 {
        return None;
    }
    if all_zero(eng, v, depth) {
        return Some(PointValue::Known(zero_of(eng.names.ty(v).elem())));
    }
    let stm = eng.def(v)?;
    match &stm.exp {
        Exp::BasicOp(BasicOp::Update {
            array,
            slice,
            value,
        }) if slice[..] == [DimIndex::Fix(*c)] && all_zero(eng, *array, depth + 1) => {
            Some(PointValue::Known(*value))
        }
        Exp::BasicOp(BasicOp::Copy(x)) | Exp::BasicOp(BasicOp::SubExp(SubExp::Var(x))) => {
            point_value(eng, *x, c, depth + 1)
        }
        e @ Exp::If {
            cond,
            then_body,
            else_body,
            ..
        } => {
            let k = stm.pat.iter().position(|p| *p == v)?;
            let branch = |b: &Body| point_value(eng, b.result.get(k)?.as_var()?, c, depth + 1);
            let pv = PointValue::Select(
                *cond,
                Box::new(branch(then_body)?),
                Box::new(branch(else_body)?),
            );
            pv.bound_outside(&exp_binders(e)).then_some(pv)
        }
        _ => None,
    }
}

/// Rule `acc-single-row` (see the module documentation): `stm` is a map over `iota(w)` (and
/// rows of arrays zero but in row `c`) whose only effects are accumulator updates; it becomes
/// its body at row `c`. Groups of several accumulators (a full update and its tangent, which
/// forward mode over reverse mode updates in one map) are handled alike.
pub fn acc_single_row(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    scope: &Scope,
) -> Option<Rewrite> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &stm.exp else {
        return None;
    };
    // Every result is an accumulator passed through.
    if stm.pat.is_empty()
        || !stm
            .pat
            .iter()
            .all(|v| matches!(eng.names.ty(*v), Type::Acc { .. }))
    {
        return None;
    }
    let mut point: Option<SubExp> = None;
    let mut agree = |c: SubExp| {
        let ok = point.is_none_or(|q| q == c);
        point = Some(c);
        ok
    };
    // Per input: the row index, an accumulator, or rows zero but at `c`, and how to read row
    // `c` (an element of the array, or the producing map's value there).
    enum Input {
        Index,
        Acc,
        Zero,
        Row,
        Made(Lambda, Vec<Var>, usize),
    }
    let mut inputs = Vec::new();
    let mut zero = HashSet::new();
    for (p, a) in lam.params.iter().zip(arrays) {
        let input = if matches!(eng.names.ty(*a), Type::Acc { .. }) {
            Input::Acc
        } else if scope.ranges.iotas.get(a) == Some(w) {
            Input::Index
        } else if all_zero(eng, *a, 0) {
            Input::Zero
        } else if let Some(c) = array_point(eng, *a, 0).and_then(|pt| pt.first().copied()) {
            if !agree(c) {
                return None;
            }
            Input::Row
        } else {
            let (def, o) = eng.defs.get(a)?.clone();
            let Exp::Soac(Soac::Map {
                w: mw,
                lam: mlam,
                arrays: marrays,
            }) = &def.exp
            else {
                return None;
            };
            if mw != w {
                return None;
            }
            let mut inner = HashSet::new();
            for (q, b) in mlam.params.iter().zip(marrays) {
                if all_zero(eng, *b, 0) {
                    inner.insert(*q);
                } else if let Some(c) = array_point(eng, *b, 0).and_then(|pt| pt.first().copied()) {
                    if !agree(c) {
                        return None;
                    }
                    inner.insert(*q);
                }
            }
            zero_under(eng, &mlam.body, &mut inner);
            let r = *mlam.body.result.get(o)?;
            if !(is_zero(&r) || matches!(r, SubExp::Var(v) if inner.contains(&v))) {
                return None;
            }
            Input::Made(mlam.clone(), marrays.clone(), o)
        };
        if matches!(input, Input::Zero | Input::Row | Input::Made(..)) {
            zero.insert(*p);
        }
        inputs.push(input);
    }
    let c = point?;
    if !matches!(inputs.first(), Some(Input::Index)) || !adds_only_zeros(eng, &lam.body, &mut zero)
    {
        return None;
    }
    // The accumulators passed in, which the map returns updated (and unchanged outside
    // the rows).
    let accs: Vec<SubExp> = inputs
        .iter()
        .zip(arrays)
        .filter(|(i, _)| matches!(i, Input::Acc))
        .map(|(_, a)| SubExp::Var(*a))
        .collect();
    if accs.len() != stm.pat.len() {
        return None;
    }
    ctx.fire("acc-single-row");
    let (lam, arrays, w) = (lam.clone(), arrays.clone(), *w);
    let mut stms = Vec::new();
    let mut args = Vec::new();
    for (input, a) in inputs.iter().zip(&arrays) {
        args.push(match input {
            Input::Index => c,
            Input::Acc => SubExp::Var(*a),
            Input::Zero | Input::Row => {
                let (more, row) = row_at(eng, *a, c, &stm.aux);
                stms.extend(more);
                row
            }
            Input::Made(mlam, marrays, o) => {
                let (more, r) = value_at(eng, mlam, marrays, c, *o, &stm.aux);
                stms.extend(more);
                r
            }
        });
    }
    let (more, res) = substitute_lambda(eng.names, &lam, &args);
    stms.extend(more);
    if scope.ranges.in_bounds(&c, &w) {
        return Some(Rewrite::Stms(stms, res));
    }
    // Outside the rows: nothing is added.
    let types: Vec<Type> = stm.pat.iter().map(|v| eng.names.ty(*v).clone()).collect();
    Some(guarded_all(eng, c, w, stms, res, accs, types, &stm.aux))
}

/// Whether every accumulator update in `body` (through nested maps) adds values in `zero`
/// (extended with what is zero because of them); other nested bodies must not update.
fn adds_only_zeros(eng: &Engine, body: &Body, zero: &mut HashSet<Var>) -> bool {
    zero_under(eng, body, zero);
    body.stms.iter().all(|s| match &s.exp {
        Exp::BasicOp(BasicOp::UpdateAcc { values, .. }) => values
            .iter()
            .all(|v| is_zero(v) || matches!(v, SubExp::Var(x) if zero.contains(x))),
        Exp::Soac(Soac::Map { lam, arrays, .. }) => {
            let mut inner = zero.clone();
            for (p, a) in lam.params.iter().zip(arrays) {
                if zero.contains(a) {
                    inner.insert(*p);
                }
            }
            adds_only_zeros(eng, &lam.body, &mut inner)
        }
        e => e.bodies().is_empty(),
    })
}

/// Extends `zero` (variables known to be zero: scalars, or arrays of zeros) with the
/// variables of `body` that are zero because of them: products with a zero factor (under
/// the finite-math policy for floats), quotients of zero, sums of zeros, rows and elements of
/// zero arrays, maps returning zero for zero rows, sums of zero arrays.
pub fn zero_under(eng: &Engine, body: &Body, zero: &mut HashSet<Var>) {
    let z = |zero: &HashSet<Var>, se: &SubExp| match se {
        SubExp::Var(v) => zero.contains(v),
        c => is_zero(c),
    };
    for stm in &body.stms {
        let zs: Vec<bool> = match &stm.exp {
            Exp::BasicOp(BasicOp::Prim(op, args)) => {
                let strict = eng.strict_at(stm);
                let loose = |t: PrimType| t.is_int() || !strict;
                let r = match (*op, args.as_slice()) {
                    (PrimOp::Bin(BinOp::Mul, t), [a, b]) if loose(t) => z(zero, a) || z(zero, b),
                    (PrimOp::Bin(BinOp::Div, t), [a, _]) if t.is_float() && !strict => z(zero, a),
                    (PrimOp::Un(UnOp::Neg, _), [a]) => z(zero, a),
                    (PrimOp::Bin(BinOp::Add | BinOp::Sub, _), [a, b]) => z(zero, a) && z(zero, b),
                    (PrimOp::Tern(TernOp::Select, _), [_, a, b]) => z(zero, a) && z(zero, b),
                    (PrimOp::Tern(TernOp::Fma, t), [a, b, c]) if loose(t) => {
                        (z(zero, a) || z(zero, b)) && z(zero, c)
                    }
                    (PrimOp::Conv(from, to), [a]) if from.is_float() && to.is_float() => z(zero, a),
                    _ => false,
                };
                vec![r]
            }
            Exp::BasicOp(BasicOp::SubExp(x)) => vec![z(zero, x)],
            Exp::BasicOp(BasicOp::Index { array, .. })
            | Exp::BasicOp(BasicOp::Rearrange { array, .. }) => vec![zero.contains(array)],
            Exp::BasicOp(BasicOp::Copy(x)) => vec![zero.contains(x)],
            Exp::BasicOp(BasicOp::Replicate { value, .. }) => vec![z(zero, value)],
            Exp::Soac(Soac::Map { lam, arrays, .. }) => {
                let mut inner = zero.clone();
                for (p, a) in lam.params.iter().zip(arrays) {
                    if zero.contains(a) {
                        inner.insert(*p);
                    }
                }
                zero_under(eng, &lam.body, &mut inner);
                lam.body.result.iter().map(|r| z(&inner, r)).collect()
            }
            Exp::Soac(Soac::Reduce {
                lam,
                neutral,
                arrays,
                ..
            }) if neutral.len() == 1 && is_plus(lam) => {
                vec![is_zero(&neutral[0]) && zero.contains(&arrays[0])]
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                let mut zt = zero.clone();
                zero_under(eng, then_body, &mut zt);
                let mut ze = zero.clone();
                zero_under(eng, else_body, &mut ze);
                then_body
                    .result
                    .iter()
                    .zip(&else_body.result)
                    .map(|(a, b)| z(&zt, a) && z(&ze, b))
                    .collect()
            }
            _ => vec![],
        };
        for (v, is) in stm.pat.iter().zip(zs) {
            if is {
                zero.insert(*v);
            }
        }
    }
}

/// The statements computing result `o` of `lam` at row `c` of `arrays`.
pub fn value_at(
    eng: &mut Engine,
    lam: &Lambda,
    arrays: &[Var],
    c: SubExp,
    o: usize,
    aux: &Aux,
) -> (Vec<Stm>, SubExp) {
    let mut stms = Vec::new();
    let mut args = Vec::new();
    for a in arrays {
        let (more, row) = row_at(eng, *a, c, aux);
        stms.extend(more);
        args.push(row);
    }
    let (more, results) = instantiate_lambda(eng.names, lam, &args, aux);
    stms.extend(more);
    (stms, results[o])
}

/// Row `c` of the array `a`: its element there without reading it where the definitions
/// give it ([`point_value`]), otherwise read.
fn row_at(eng: &mut Engine, a: Var, c: SubExp, aux: &Aux) -> (Vec<Stm>, SubExp) {
    let known = (eng.names.ty(a).rank() == 1)
        .then(|| point_value(eng, a, &c, 0))
        .flatten();
    let elem = eng.names.ty(a).elem();
    let mut b = Builder::new(eng.names);
    b.set_aux(aux.clone());
    let row = match known {
        Some(pv) => pv.emit(&mut b, elem),
        None => b.index(a, vec![DimIndex::Fix(c)], "row").into(),
    };
    (b.take_stms(), row)
}

/// `if 0 <= c && c < w then {stms; res} else {otherwise}`, bound to a fresh variable.
#[allow(clippy::too_many_arguments)]
pub fn guarded(
    eng: &mut Engine,
    c: SubExp,
    w: SubExp,
    stms: Vec<Stm>,
    res: SubExp,
    otherwise: SubExp,
    t: PrimType,
    aux: &Aux,
) -> Rewrite {
    guarded_all(
        eng,
        c,
        w,
        stms,
        vec![res],
        vec![otherwise],
        vec![Type::Prim(t)],
        aux,
    )
}

/// `if 0 <= c && c < w then {stms; res} else {otherwise}` for results of the given types,
/// bound to fresh variables.
#[allow(clippy::too_many_arguments)]
pub fn guarded_all(
    eng: &mut Engine,
    c: SubExp,
    w: SubExp,
    stms: Vec<Stm>,
    res: Vec<SubExp>,
    otherwise: Vec<SubExp>,
    types: Vec<Type>,
    aux: &Aux,
) -> Rewrite {
    let mut b = Builder::new(eng.names);
    b.set_aux(aux.clone());
    let lo = b.prim_named(
        PrimOp::Cmp(CmpOp::Le, PrimType::I64),
        vec![SubExp::i64(0), c],
        "in_lo",
    );
    let hi = b.prim_named(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), vec![c, w], "in_hi");
    let ok = b.prim_named(
        PrimOp::Bin(BinOp::And, PrimType::Bool),
        vec![lo.into(), hi.into()],
        "in_range",
    );
    let r = b.bind(
        Exp::If {
            cond: ok.into(),
            then_body: Body { stms, result: res },
            else_body: Body {
                stms: vec![],
                result: otherwise,
            },
            ret: types.clone(),
        },
        types,
        "point",
    );
    Rewrite::Stms(b.take_stms(), r.into_iter().map(SubExp::Var).collect())
}
