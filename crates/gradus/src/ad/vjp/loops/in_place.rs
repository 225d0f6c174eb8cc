//! In-place saves: how a loop's array parameter that the body only updates in place is
//! recovered for the return sweep without a whole checkpoint per iteration.
//!
//! **Takes** a loop parameter that a chain of in-place updates `p with [idx] = v` carries to
//! the body's result ([`update_chains`]).
//!
//! **Does**, for `Save::InPlace`: the forward sweep saves, per iteration and update, the
//! positions written and the values they overwrote; the return sweep turns the array after
//! iteration `i` into the array before it by writing those values back, last update first
//! ([`Vjp::restore`]). For `Save::Initial` ([`write_once`]): when every row is written at
//! most once in the whole loop and the body reads the array only at the rows the same
//! iteration writes (`xs with [i] = f xs[i]`, or rows `2i` and `2i + 1`), every value the
//! body reads is still the initial one, so nothing is saved and the return sweep reads the
//! initial array.
//!
//! **Cost**: memory is the overwritten rows and their indices, not a copy of the array per
//! iteration; nothing at all for `Save::Initial`.

use super::super::Vjp;
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, Stm, SubExp, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::visit::stm_free_vars;
use std::collections::HashMap;

/// One in-place update of a chain: per iteration, its indices and the overwritten value.
pub(super) struct Overwrite {
    pub(super) indices: Vec<Var>,
    pub(super) old: Var,
}

/// For each loop parameter, the positions in `body.stms` of the in-place updates that carry
/// it to its result, if it is an array that only such updates change.
pub(super) fn update_chains(
    params: &[(Var, SubExp)],
    body: &Body,
    names: &crate::core::ir::NameTable,
) -> Vec<Option<Vec<usize>>> {
    params
        .iter()
        .zip(&body.result)
        .map(|((p, _), r)| {
            if names.ty(*p).rank() == 0 {
                return None;
            }
            let mut cur = *p;
            let mut chain = Vec::new();
            for (k, st) in body.stms.iter().enumerate() {
                if let Exp::BasicOp(BasicOp::Update { array, slice, .. }) = &st.exp
                    && *array == cur
                    && slice.iter().all(|d| matches!(d, DimIndex::Fix(_)))
                {
                    chain.push(k);
                    cur = st.pat[0];
                }
            }
            (*r == SubExp::Var(cur)).then_some(chain)
        })
        .collect()
}

/// The loop counter's affine functions among a body's `i64` scalars: `v ↦ (a, b)` for
/// `v = a·i + b`, through additions, subtractions and multiplications by constants.
fn counter_affine(i: Var, stms: &[Stm]) -> HashMap<Var, (i64, i64)> {
    let mut aff = HashMap::from([(i, (1, 0))]);
    for st in stms {
        let [x] = st.pat[..] else {
            continue;
        };
        let val = |se: &SubExp| affine_value(&aff, se);
        let r = match &st.exp {
            Exp::BasicOp(BasicOp::SubExp(se)) => val(se),
            Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op, PrimType::I64), args))
                if args.len() == 2 =>
            {
                match (val(&args[0]), val(&args[1])) {
                    (Some((a1, b1)), Some((a2, b2))) => match op {
                        BinOp::Add => a1.checked_add(a2).zip(b1.checked_add(b2)),
                        BinOp::Sub => a1.checked_sub(a2).zip(b1.checked_sub(b2)),
                        BinOp::Mul if a1 == 0 => a2.checked_mul(b1).zip(b2.checked_mul(b1)),
                        BinOp::Mul if a2 == 0 => a1.checked_mul(b2).zip(b1.checked_mul(b2)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(r) = r {
            aff.insert(x, r);
        }
    }
    aff
}

/// `se` as an affine function of the loop counter, if [`counter_affine`] found one.
fn affine_value(aff: &HashMap<Var, (i64, i64)>, se: &SubExp) -> Option<(i64, i64)> {
    match se {
        SubExp::Const(Scalar::I64(c)) => Some((0, *c)),
        SubExp::Var(v) => aff.get(v).copied(),
        SubExp::Const(_) => None,
    }
}

/// Whether loop parameter `p`, which the in-place updates at positions `chain` of the body carry to
/// the body's result `j`, can be saved as [`Save::Initial`](super::Save::Initial): every row is
/// written at most once in the whole loop, and the body reads `p` only at rows the same iteration
/// writes, so every value the body reads from `p` is still the loop's initial one.
///
/// The updates' first indices must be `a·i + b_k` in the loop counter `i`, with one `a ≠ 0`
/// for all of them and offsets `b_k` that differ pairwise by less than `|a|` (then no two
/// pairs of iteration and update write the same row); the reads must be `p[a·i + b_k, ..]`;
/// nothing else may use `p` or the chain's intermediate arrays.
pub(super) fn write_once(i: Var, p: Var, j: usize, chain: &[usize], body: &Body) -> bool {
    if chain.is_empty() {
        return false;
    }
    let aff = counter_affine(i, &body.stms);
    let row = |slice: &[DimIndex]| match slice.first() {
        Some(DimIndex::Fix(se)) => affine_value(&aff, se),
        _ => None,
    };
    let mut rows = Vec::new();
    let mut chain_vars = vec![p];
    for k in chain {
        let Exp::BasicOp(BasicOp::Update { slice, .. }) = &body.stms[*k].exp else {
            return false;
        };
        let Some(r) = row(slice) else {
            return false;
        };
        rows.push(r);
        chain_vars.push(body.stms[*k].pat[0]);
    }
    let a = rows[0].0;
    if a == 0 || rows.iter().any(|(a2, _)| *a2 != a) {
        return false;
    }
    for (x, (_, b1)) in rows.iter().enumerate() {
        for (_, b2) in &rows[x + 1..] {
            let d = (i128::from(*b1) - i128::from(*b2)).unsigned_abs();
            if d == 0 || d >= u128::from(a.unsigned_abs()) {
                return false;
            }
        }
    }
    let in_chain = |v: &Var| chain_vars.contains(v);
    for (k, st) in body.stms.iter().enumerate() {
        if let Some(pos) = chain.iter().position(|c| *c == k) {
            let Exp::BasicOp(BasicOp::Update { array, value, .. }) = &st.exp else {
                return false;
            };
            if *array != chain_vars[pos] || matches!(value, SubExp::Var(v) if in_chain(v)) {
                return false;
            }
            continue;
        }
        if let Exp::BasicOp(BasicOp::Index { array, slice }) = &st.exp
            && *array == p
        {
            if !row(slice).is_some_and(|r| rows.contains(&r)) {
                return false;
            }
            continue;
        }
        if stm_free_vars(st).iter().any(in_chain) {
            return false;
        }
    }
    body.result
        .iter()
        .enumerate()
        .all(|(r, se)| r == j || !matches!(se, SubExp::Var(v) if in_chain(v)))
}

impl Vjp<'_> {
    /// Writes back the values that iteration `i`'s in-place updates overwrote, last update
    /// first: turns the array after iteration `i` into the array before it.
    pub(super) fn restore(&mut self, arr: Var, writes: &[Overwrite], i: SubExp) -> Var {
        let mut cur = arr;
        for w in writes.iter().rev() {
            let at = vec![DimIndex::Fix(i)];
            let slice = w
                .indices
                .iter()
                .map(|x| DimIndex::Fix(SubExp::Var(self.e.index(*x, at.clone(), "written_at"))))
                .collect();
            let old = self.e.index(w.old, at.clone(), "overwritten");
            cur = self.e.basic(
                BasicOp::Update {
                    array: cur,
                    slice,
                    value: SubExp::Var(old),
                },
                "restored",
            );
        }
        cur
    }
}
