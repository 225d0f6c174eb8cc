//! Sparse matrices in CSC form (docs/reversible.md §Examples and tests, §API): the Frobenius dot
//! `⟨A, B⟩` over merged column patterns with a `bool` branch keeper, and the complex sparse × dense
//! accumulate `Y += A X`. Patterns are constant data; values are differentiable state.

use crate::prelude::*;

/// A CSC sparsity pattern (values are separate, so they can be differentiated).
#[derive(Clone, Debug)]
pub struct Csc {
    /// Rows, columns.
    pub m: usize,
    /// Columns.
    pub n: usize,
    /// Column pointers (length n + 1).
    pub colptr: Vec<usize>,
    /// Row index of every stored entry.
    pub rowval: Vec<usize>,
}

/// `r += ⟨A, B⟩` for CSC patterns `pa`, `pb` (same shape) and values `a`, `b`. Per column,
/// a merge walk over the two row lists records in `keep` (false on entry, at least
/// `2·m` long) whether `B`'s pointer moved at each step, accumulates the products of matching
/// rows, then walks back (`inv!`), so the pointers and `keep` are restored (NiLang's `idot`).
#[reversible(loss = r)]
pub fn dot<T: RevReal>(r: &mut T, a: &mut [T], b: &mut [T], pa: &Csc, pb: &Csc, keep: &mut [bool]) {
    for col in 0..pa.n {
        if (pa.colptr[col] < pa.colptr[col + 1] && pb.colptr[col] < pb.colptr[col + 1]) {
            let mut ia = pa.colptr[col];
            let mut ib = pb.colptr[col];
            for i in 0..merge_steps(&pa, &pb, col) {
                if pa.rowval[ia] == pb.rowval[ib] {
                    r += a[ia] * b[ib];
                }
                keep[i] ^= constant!(b_moves(&pa, &pb, col, ia, ib));
                if keep[i] {
                    INC(ib);
                } else {
                    INC(ia);
                }
            }
            inv! {
                for i in 0..merge_steps(&pa, &pb, col) {
                    keep[i] ^= constant!(b_moves(&pa, &pb, col, ia, ib));
                    if keep[i] {
                        INC(ib);
                    } else {
                        INC(ia);
                    }
                }
            }
        }
    }
}

/// Steps of the merge walk of one column: every entry of both columns but the last.
pub fn merge_steps(pa: &Csc, pb: &Csc, col: usize) -> usize {
    (pa.colptr[col + 1] - pa.colptr[col]) + (pb.colptr[col + 1] - pb.colptr[col]) - 1
}

/// Whether `B`'s pointer moves at this step: `A` is at its last entry, or `A`'s row is
/// past `B`'s and `B` is not at its last entry.
pub fn b_moves(pa: &Csc, pb: &Csc, col: usize, ia: usize, ib: usize) -> bool {
    ia == pa.colptr[col + 1] - 1 || (ib != pb.colptr[col + 1] - 1 && pa.rowval[ia] > pb.rowval[ib])
}

/// `Y += A X` for complex sparse `A` (pattern `pa`, values `a`) and dense `X` (`n × p`,
/// row-major), `Y` `m × p` row-major.
#[reversible]
pub fn mul_acc<T: RevReal>(
    y: &mut [Complex<T>],
    a: &mut [Complex<T>],
    x: &mut [Complex<T>],
    pa: &Csc,
    p: usize,
) {
    for col in 0..pa.n {
        for k in pa.colptr[col]..pa.colptr[col + 1] {
            for j in 0..p {
                y[pa.rowval[k] * p + j] += a[k] * x[col * p + j];
            }
        }
    }
}
