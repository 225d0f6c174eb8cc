//! Maxima and minima over the rows (docs/mpi.md §How the compiler shards an entry point).
//!
//! Takes a statement of the entry point's body and the kinds the other rules gave its
//! results. Where it is a reduction over this process's rows (`reduce`, or a `redomap` whose
//! function of each row reads only replicated values) and a component of its operator is
//! `max` or `min` of that component's two operands (and of nothing else: no other component
//! reads them), on floats or on integers whose order an `i64` keeps (all but `u64`), with a
//! replicated neutral element, each process's value of that component is the extremum of its
//! own rows, and the unsharded value is the extremum of the processes' values (`MPI_MAX`,
//! `MPI_MIN`). Such a value combines across processes only as it is: it may be a result of
//! the entry point and nothing else may read it, so it gets a mixed kind (whose message says
//! so) and is recorded in [`Analysis::extrema`], from which [`super::derive`] makes the
//! result's [`Combine`]. Neutral elements need no masking: `max` and `min` are idempotent.
//! The other components keep their kinds (a sum fused into the same reduction stays a sum).

use super::Combine;
use super::analyse::Analysis;
use super::kind::Kind;
use crate::core::ir::*;
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;

/// Gives the extremum components of `stm`'s results their kinds in `kinds`.
pub(crate) fn refine(a: &mut Analysis, stm: &Stm, kinds: &mut [Kind]) {
    let Exp::Soac(soac) = &stm.exp else {
        return;
    };
    let (w, arrays, lam, neutral, map) = match soac {
        Soac::Reduce {
            w,
            lam,
            neutral,
            arrays,
            ..
        } => (w, arrays, lam, neutral, None),
        Soac::Screma {
            w,
            map,
            arrays,
            form,
        } => match form.as_ref() {
            ScremaForm::Reduce { lam, neutral, .. } => (w, arrays, lam, neutral, Some(map)),
            _ => return,
        },
        _ => return,
    };
    if !a.is_row_soac(w, arrays) || arrays.iter().any(|v| a.kind_of(*v) != Kind::Rows) {
        return;
    }
    let span = stm.aux.span;
    if map.is_some_and(|m| a.row_lambda_ok(m, span).is_some()) {
        return;
    }
    for (j, ne) in neutral.iter().enumerate() {
        let Some(how) = component(lam, j) else {
            continue;
        };
        if !a.kind_of_subexp(ne).is_rep() || j >= kinds.len() || j >= stm.pat.len() {
            continue;
        }
        let what = if how == Combine::Max {
            "a maximum"
        } else {
            "a minimum"
        };
        let msg = format!(
            "{what} over the rows combines across processes only as a result of the entry point, not as an operand"
        );
        let outer = std::mem::replace(&mut a.here, stm.aux.clone());
        kinds[j] = a.mixed(span, msg);
        a.here = outer;
        a.extrema.insert(stm.pat[j], how);
    }
}

/// Whether component `j` of the operator `lam` (of `2k` parameters) is `max` or `min` of
/// parameters `j` and `k + j`, which nothing else in `lam` reads, of a type whose order an
/// `i64` or `f64` keeps; `None` otherwise.
fn component(lam: &Lambda, j: usize) -> Option<Combine> {
    let k = lam.params.len() / 2;
    let r = lam.body.result.get(j)?.as_var()?;
    let (x, y) = (lam.params[j], lam.params[k + j]);
    let mut found = None;
    for s in &lam.body.stms {
        if s.pat == [r] {
            found = Some(s);
        } else if crate::core::visit::stm_free_vars(s)
            .iter()
            .any(|v| *v == x || *v == y)
        {
            return None;
        }
    }
    if lam
        .body
        .result
        .iter()
        .any(|v| *v == x.into() || *v == y.into())
    {
        return None;
    }
    let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op, t), args)) = &found?.exp else {
        return None;
    };
    let ordered = t.is_float()
        || matches!(
            t,
            PrimType::I8
                | PrimType::I16
                | PrimType::I32
                | PrimType::I64
                | PrimType::U8
                | PrimType::U16
                | PrimType::U32
        );
    let operands =
        args.as_slice() == [x.into(), y.into()] || args.as_slice() == [y.into(), x.into()];
    match op {
        BinOp::Max if ordered && operands => Some(Combine::Max),
        BinOp::Min if ordered && operands => Some(Combine::Min),
        _ => None,
    }
}
