//! The on-demand sparse derivatives (`Program::sparse`) on random smooth functions.
//!
//! **Takes** the AD functions of a seed ([`AdFunction`]). Each becomes two entry points over
//! its input flattened to one array `v = x ++ [s]` (`[n + 1]`):
//!
//! * `sj{k} c v`: the function's result, flattened (a scalar stays a scalar), for the sparse
//!   Jacobian;
//! * `sh{k} c w v`: `Σ_i w[i] · y[i]` over the flattened result `y`, with the weights `w` the
//!   function's first cotangent, for the sparse Hessian (the Hessian of a random combination
//!   of the outputs, so that every output's second derivatives count).
//!
//! **Guarantees** a [`Failure`] for each function whose sparse Jacobian or Hessian, on the
//! optimised interpreter, is not well-formed compressed sparse rows, differs from the dense
//! Jacobian or Hessian (`Program::derive`) at a listed entry, or leaves out an entry that is
//! not zero there. This is checked at the function's point and at three more points (its two
//! tangent directions and the negated point) with the *same* plan, the pattern traced at the
//! first point: the tracer claims a pattern that holds for every point. A trace that refuses
//! the function (a loop count that depends on the point) is an accepted outcome, counted in
//! [`SparseStats::refused`]; so is a function that fails at run time at its point (skipped) or
//! at one of the other points (that point is skipped).

use crate::adcheck::{AdFunction, f64s, flatten};
use crate::diff::{self, Config, Failure, Kind, Subject};
use gradus::derive::Derivative;
use gradus::program::{CallError, Program};
use gradus::sparse::{SparseDerived, SparseKind};
use gradus::value::Value;
use gradus_check::Tolerance;
use std::fmt::Write;
use std::sync::Arc;

/// The sparse and the dense derivative: two exact derivatives computed differently.
const TOLERANCE: Tolerance = Tolerance {
    abs: 1e-9,
    rel: 1e-8,
};

/// What the sparse checks did.
#[derive(Clone, Debug, Default)]
pub struct SparseStats {
    /// Sparse derivatives checked (a Jacobian and a Hessian per function).
    pub checked: u64,
    /// Points at which a sparse derivative was compared with the dense one.
    pub points: u64,
    /// Entries listed by the patterns checked.
    pub entries: u64,
    /// Sparse derivatives refused by the tracer (a loop count that depends on the point).
    pub refused: u64,
    /// Functions that fail at run time at their point (not checked).
    pub unfit: u64,
    /// Seconds spent in these checks (compiling included).
    pub seconds: f64,
}

impl SparseStats {
    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &SparseStats) {
        self.checked += other.checked;
        self.points += other.points;
        self.entries += other.entries;
        self.refused += other.refused;
        self.unfit += other.unfit;
        self.seconds += other.seconds;
    }
}

/// The program of the flat entry points of every function (and the functions).
pub fn subject(name: &str, functions: &[AdFunction]) -> Subject {
    let mut source = String::new();
    for (k, f) in functions.iter().enumerate() {
        source.push_str(&f.def_source(k));
        let (ty, flat) = match f.result.rank() {
            0 => ("f64", "y"),
            1 => ("[]f64", "y"),
            _ => ("[]f64", "flatten y"),
        };
        let weighted = match f.result.rank() {
            0 => "w[0] * y",
            _ => "f64.sum (map (\\i -> w[i] * fy[i]) (iota (length fy)))",
        };
        let call = format!("let y = f{k} c (take n v, v[n])");
        let _ = writeln!(
            source,
            "entry sj{k} [n] [m] (c: [n][m]f64) (v: []f64) : {ty} =\n  {call} in {flat}\n"
        );
        let _ = writeln!(
            source,
            "entry sh{k} [n] [m] (c: [n][m]f64) (w: []f64) (v: []f64) : f64 =\n  {call}\n  let fy = {flat} in {weighted}\n"
        );
    }
    Subject {
        name: name.to_string(),
        source,
        cases: Vec::new(),
    }
}

/// Runs the sparse checks of every function on the optimised interpreter.
pub fn check_all(functions: &[AdFunction], name: &str, stats: &mut SparseStats) -> Vec<Failure> {
    let started = std::time::Instant::now();
    let failures = check_program(functions, name, stats);
    stats.seconds += started.elapsed().as_secs_f64();
    failures
}

fn check_program(functions: &[AdFunction], name: &str, stats: &mut SparseStats) -> Vec<Failure> {
    let config = Config::Interp { opt: true };
    let prog = match diff::compile(&subject(name, functions), config) {
        Ok(p) => p,
        Err(f) => return vec![f],
    };
    let mut failures = Vec::new();
    for (k, f) in functions.iter().enumerate() {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_function(&prog, f, k, stats)
        }));
        let (kind, detail) = match r {
            Ok(Ok(())) => continue,
            Ok(Err(e)) => (Kind::Derivative, e),
            Err(p) => (
                Kind::Panic,
                format!(
                    "panic while checking the sparse derivatives of f{k}: {}",
                    diff::panic_text(p)
                ),
            ),
        };
        failures.push(Failure {
            kind,
            config: Some(config),
            case: None,
            detail,
        });
    }
    failures
}

/// The arguments of `sj{k}` (`weights` None) or `sh{k}` at the flat point `v`.
fn args(f: &AdFunction, weights: Option<&[f64]>, v: &[f64]) -> Vec<Value> {
    let mut a = vec![f.c.clone()];
    if let Some(w) = weights {
        a.push(vector(w));
    }
    a.push(vector(v));
    a
}

fn vector(xs: &[f64]) -> Value {
    f64s(&[xs.len()], xs)
}

/// The points checked: the function's own first, then its directions and the negated point.
fn points(f: &AdFunction) -> Vec<Vec<f64>> {
    let neg: Vec<f64> = f.point.iter().map(|x| -x).collect();
    vec![
        f.point.clone(),
        f.directions[0].clone(),
        f.directions[1].clone(),
        neg,
    ]
}

fn check_function(
    prog: &Program,
    f: &AdFunction,
    k: usize,
    stats: &mut SparseStats,
) -> Result<(), String> {
    if prog
        .call(&format!("sj{k}"), args(f, None, &f.point))
        .is_err()
    {
        stats.unfit += 1;
        return Ok(());
    }
    let w = f.cotangents[0].as_slice();
    for (kind, entry, weights) in [
        (SparseKind::Jacobian, format!("sj{k}"), None),
        (SparseKind::Hessian, format!("sh{k}"), Some(w)),
    ] {
        let wrt = if weights.is_some() { 2 } else { 1 };
        let what = format!("{} of {entry}", kind.name());
        let sparse = prog
            .sparse(kind, &entry, Some(wrt))
            .map_err(|e| format!("{what}: {e}"))?;
        let dense_kind = match kind {
            SparseKind::Jacobian => Derivative::Jacobian,
            SparseKind::Hessian => Derivative::Hessian,
        };
        let dense = prog
            .derive(dense_kind, &entry, Some(&[wrt]))
            .map_err(|e| format!("dense {} of {entry}: {e}", dense_kind.name()))?;
        let first = args(f, weights, &f.point);
        let plan = match sparse.plan(&first) {
            Ok(p) => p,
            Err(CallError::BadInput(m)) if m.contains("depends on the point") => {
                stats.refused += 1;
                continue;
            }
            // The derivative itself fails at the point (its code kept a failing operation
            // whose result the function's optimised code does not use): nothing to compare.
            Err(_) if dense.call(first.clone()).is_err() => {
                stats.unfit += 1;
                continue;
            }
            Err(e) => return Err(format!("{what}: no plan at the point: {e}")),
        };
        stats.checked += 1;
        for (j, v) in points(f).iter().enumerate() {
            let a = args(f, weights, v);
            let Ok(want) = dense.call(a.clone()) else {
                // The function fails at this point (an unguarded index): nothing to compare.
                continue;
            };
            let same = sparse
                .plan(&a)
                .map_err(|e| format!("{what} at point {j} {v:?}: {e}"))?;
            if !Arc::ptr_eq(&plan, &same) {
                return Err(format!("{what}: point {j} got another plan"));
            }
            stats.entries += check_at(&sparse, &want[0], a)
                .map_err(|e| format!("{what} at point {j} {v:?}: {e}"))?
                as u64;
            stats.points += 1;
        }
    }
    Ok(())
}

/// The sparse derivative at `args` against the dense matrix `dense`; the entries listed.
fn check_at(sparse: &SparseDerived, dense: &Value, args: Vec<Value>) -> Result<usize, String> {
    let out = sparse.call(args).map_err(|e| e.to_string())?;
    let (rows, cols) = match dense.shape() {
        [c] => (1, *c),
        [r, c] => (*r, *c),
        s => return Err(format!("the dense matrix has shape {s:?}")),
    };
    check_csr(&out, &flatten(dense), rows, cols)
}

/// `out` (`[values, columns, offsets]`) against the dense `rows × cols` matrix: well-formed
/// (offsets from 0 to the number of entries, non-decreasing; columns in range and ascending
/// within a row), equal to `dense` at every listed entry, and listing every entry of `dense`
/// that is not zero. The number of entries listed.
pub fn check_csr(out: &[Value], dense: &[f64], rows: usize, cols: usize) -> Result<usize, String> {
    let [values, columns, offsets] = out else {
        return Err(format!("{} results, not 3", out.len()));
    };
    let (values, columns, offsets) = (flatten(values), flatten(columns), flatten(offsets));
    let nnz = values.len();
    if columns.len() != nnz
        || offsets.len() != rows + 1
        || offsets[0] != 0.0
        || offsets[rows] != nnz as f64
    {
        return Err(format!(
            "{nnz} values, {} columns, offsets {offsets:?} for {rows} rows",
            columns.len()
        ));
    }
    let mut listed = vec![false; rows * cols];
    let mut got = Vec::with_capacity(nnz);
    let mut want = Vec::with_capacity(nnz);
    let mut place = Vec::with_capacity(nnz);
    for i in 0..rows {
        let (lo, hi) = (offsets[i] as usize, offsets[i + 1] as usize);
        if lo > hi || hi > nnz {
            return Err(format!("offsets {offsets:?}"));
        }
        let row = &columns[lo..hi];
        if row.windows(2).any(|p| p[0] >= p[1]) || row.iter().any(|&c| c < 0.0 || c >= cols as f64)
        {
            return Err(format!("columns {row:?} of row {i}"));
        }
        for (e, &c) in row.iter().enumerate() {
            let at = i * cols + c as usize;
            listed[at] = true;
            got.push(values[lo + e]);
            place.push((i, c as usize));
            want.push(dense[at]);
        }
    }
    if let Some(at) = (0..rows * cols).find(|&at| !listed[at] && dense[at] != 0.0) {
        return Err(format!(
            "entry ({}, {}) = {} of the dense matrix is not listed",
            at / cols,
            at % cols,
            dense[at]
        ));
    }
    gradus_check::compare(&got, &want, TOLERANCE).map_err(|m| {
        let (i, j) = place[m.index];
        format!("entry ({i}, {j}) against the dense matrix: {m}")
    })?;
    Ok(nnz)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(values: &[f64], columns: &[f64], offsets: &[f64]) -> Vec<Value> {
        [values, columns, offsets]
            .iter()
            .map(|v| f64s(&[v.len()], v))
            .collect()
    }

    /// `[[1, 0], [0, 2]]` with the zero at (0, 1) listed as an entry.
    const DENSE: [f64; 4] = [1.0, 0.0, 0.0, 2.0];

    #[test]
    fn a_right_csr_passes_with_zeros_listed() {
        let out = csr(&[1.0, 0.0, 2.0], &[0.0, 1.0, 1.0], &[0.0, 2.0, 3.0]);
        assert_eq!(check_csr(&out, &DENSE, 2, 2), Ok(3));
    }

    #[test]
    fn a_missed_non_zero_fails() {
        let out = csr(&[1.0], &[0.0], &[0.0, 1.0, 1.0]);
        let e = check_csr(&out, &DENSE, 2, 2).unwrap_err();
        assert!(e.contains("(1, 1) = 2") && e.contains("not listed"), "{e}");
    }

    #[test]
    fn a_wrong_value_fails_with_its_place() {
        let out = csr(&[1.0, 2.5], &[0.0, 1.0], &[0.0, 1.0, 2.0]);
        let e = check_csr(&out, &DENSE, 2, 2).unwrap_err();
        assert!(e.contains("entry (1, 1)"), "{e}");
    }

    #[test]
    fn malformed_arrays_fail() {
        for (v, c, o) in [
            (&[1.0, 2.0][..], &[0.0, 1.0][..], &[0.0, 1.0][..]),
            (&[1.0, 2.0], &[1.0, 0.0], &[0.0, 2.0, 2.0]),
            (&[1.0, 2.0], &[0.0, 2.0], &[0.0, 1.0, 2.0]),
            (&[1.0, 2.0], &[0.0, 1.0], &[0.0, 2.0, 1.0]),
            (&[1.0, 2.0], &[0.0], &[0.0, 1.0, 2.0]),
        ] {
            assert!(
                check_csr(&csr(v, c, o), &DENSE, 2, 2).is_err(),
                "{c:?} {o:?}"
            );
        }
    }
}
