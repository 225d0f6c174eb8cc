//! The sharding rules of SOACs over this process's rows (docs/mpi.md §How the compiler
//! shards an entry point).
//!
//! Takes a SOAC whose width is the local number of rows or which reads a [`Kind::Rows`]
//! array. A `map` whose function reads only replicated values from outside (its rows come in
//! as parameters) gives rows, and accumulators it updates become partial sums; a reduction
//! or histogram whose operator is linear in its operands gives partial sums (its neutral
//! element and initial bins counted once). Scans and scatters over the rows, and functions
//! that read partial sums or other rows, are refused with the statement's span.

use super::analyse::Analysis;
use super::kind::Kind;
use crate::core::ir::*;
use crate::diag::Span;

type Pre = Vec<Stm>;

/// The kinds of the results of `soac`, a SOAC over the rows.
pub(crate) fn soac(
    a: &mut Analysis,
    soac: &mut Soac,
    span: Span,
    pre: &mut Pre,
    n: usize,
) -> Vec<Kind> {
    match soac {
        Soac::Map { lam, arrays, .. } => {
            if let Some(m) = inputs_are_rows(a, arrays, span) {
                return vec![m; n];
            }
            if let Some(m) = a.row_lambda_ok(lam, span) {
                return vec![m; n];
            }
            lam.ret
                .iter()
                .map(|t| match t {
                    Type::Acc { .. } => Kind::Part,
                    _ => Kind::Rows,
                })
                .collect()
        }
        Soac::Reduce {
            lam,
            neutral,
            arrays,
            ..
        } => {
            if let Some(m) = inputs_are_rows(a, arrays, span) {
                return vec![m; n];
            }
            let parts = vec![Kind::Part; neutral.len()];
            a.operator(lam, neutral, &parts, span, pre)
        }
        Soac::Screma {
            map, arrays, form, ..
        } => {
            if let Some(m) = inputs_are_rows(a, arrays, span) {
                return vec![m; n];
            }
            if let Some(m) = a.row_lambda_ok(map, span) {
                return vec![m; n];
            }
            match form.as_mut() {
                ScremaForm::Reduce { lam, neutral, .. } => {
                    let k = neutral.len();
                    let parts = vec![Kind::Part; k];
                    let mut out = a.operator(lam, neutral, &parts, span, pre);
                    out.extend(std::iter::repeat_n(Kind::Rows, n.saturating_sub(k)));
                    out
                }
                ScremaForm::Hist {
                    dests,
                    lam,
                    neutral,
                } => hist(a, dests, lam, neutral, span, pre, n),
                _ => refuse(a, span, n),
            }
        }
        Soac::Hist {
            dests,
            lam,
            neutral,
            indices,
            values,
            ..
        } => {
            let mut ins = vec![*indices];
            ins.extend(values.iter().copied());
            if let Some(m) = inputs_are_rows(a, &ins, span) {
                return vec![m; n];
            }
            hist(a, dests, lam, neutral, span, pre, n)
        }
        Soac::Scan { .. } | Soac::Scatter { .. } => refuse(a, span, n),
    }
}

fn refuse(a: &mut Analysis, span: Span, n: usize) -> Vec<Kind> {
    let m = a.mixed(
        span,
        "a scan or scatter over the rows: each row's result depends on other rows",
    );
    vec![m; n]
}

/// A histogram over the rows: its bins are partial sums when the operator is linear.
fn hist(
    a: &mut Analysis,
    dests: &mut [Var],
    lam: &mut Lambda,
    neutral: &mut [SubExp],
    span: Span,
    pre: &mut Pre,
    n: usize,
) -> Vec<Kind> {
    let parts = vec![Kind::Part; neutral.len()];
    let t = a.operator(lam, neutral, &parts, span, pre);
    if let Some(m) = t.iter().find(|k| matches!(k, Kind::Mixed(_))) {
        return vec![*m; n];
    }
    for d in dests.iter_mut() {
        if a.kind_of(*d).has_rows() {
            let m = a.mixed(span, "a histogram into rows of the sharded data");
            return vec![m; n];
        }
        *d = a.masked_var(*d, Kind::Part, pre);
    }
    vec![Kind::Part; n]
}

/// `None` when every input is this process's rows (or an accumulator); a mixed kind naming
/// the statement otherwise.
fn inputs_are_rows(a: &mut Analysis, arrays: &[Var], span: Span) -> Option<Kind> {
    for v in arrays {
        let k = a.kind_of(*v);
        if let Kind::Mixed(_) = k {
            return Some(k);
        }
        if k != Kind::Rows && !matches!(a.names.ty(*v), Type::Acc { .. }) {
            return Some(a.mixed(
                span,
                format!(
                    "a SOAC over the rows also reads `{}`, which is not split by rows",
                    a.names.hint(*v)
                ),
            ));
        }
    }
    None
}
