//! Indexing and slicing: bounds checks, views, copies of strided slices, in-place updates.
//!
//! Takes an array and a slice of it (fixed indices and `start:count:stride` ranges).
//! Guarantees the interpreter's bounds checks first; an element is loaded, a row or a
//! contiguous slice is a view sharing the buffer, any other slice is copied block by block
//! into a fresh buffer; an update makes its array unique, then writes the element or copies
//! the value's blocks in place.

use super::imp::{Ex, IdxOp, Share, SiteKind, Stm as I};
use super::{Lw, R, and, bool_ex, eq, in_range, le};
use crate::core::ir::{Aux, DimIndex, SubExp, Type, Var};
use crate::core::safety::IN_BOUNDS;
use crate::core::scalar::PrimType;

/// A resolved index entry.
#[derive(Clone)]
enum Ix {
    Fix(Ex),
    Slice { start: Ex, count: Ex, stride: Ex },
}

/// Row-major strides (in elements) of dimensions `dims`.
pub(super) fn strides(dims: &[Ex]) -> Vec<Ex> {
    let mut out = vec![Ex::int(1); dims.len()];
    for j in (0..dims.len().saturating_sub(1)).rev() {
        out[j] = Ex::times(out[j + 1].clone(), dims[j + 1].clone());
    }
    out
}

/// The flat offset of the first element `ixs` selects in an array of dimensions `dims`.
fn offset(ixs: &[Ix], dims: &[Ex]) -> Ex {
    let st = strides(dims);
    ixs.iter().zip(&st).fold(Ex::int(0), |o, (ix, s)| {
        let first = match ix {
            Ix::Fix(i) => i,
            Ix::Slice { start, .. } => start,
        };
        Ex::plus(o, Ex::times(first.clone(), s.clone()))
    })
}

/// The dimensions of what `ixs` selects in an array of dimensions `dims`.
fn selected_dims(ixs: &[Ix], dims: &[Ex]) -> Vec<Ex> {
    let mut sel: Vec<Ex> = ixs
        .iter()
        .filter_map(|i| match i {
            Ix::Slice { count, .. } => Some(count.clone()),
            Ix::Fix(_) => None,
        })
        .collect();
    sel.extend(dims[ixs.len()..].iter().cloned());
    sel
}

impl<'a> Lw<'a> {
    fn resolve(&self, slice: &[DimIndex]) -> Vec<Ix> {
        slice
            .iter()
            .map(|d| match d {
                DimIndex::Fix(i) => Ix::Fix(self.ix(i)),
                DimIndex::Slice {
                    start,
                    count,
                    stride,
                } => Ix::Slice {
                    start: self.ix(start),
                    count: self.ix(count),
                    stride: self.ix(stride),
                },
            })
            .collect()
    }

    /// Copies, block by block inside the loops it builds, between the positions `ixs` selects
    /// in the array `arr` of dimensions `dims` and the buffer `sel` holding the selection in
    /// row-major order: from `arr` into `sel` with `gather`, from `sel` into `arr` otherwise.
    #[allow(clippy::too_many_arguments)]
    fn copy_slice(
        &mut self,
        ixs: &[Ix],
        dims: &[Ex],
        elem: PrimType,
        arr: &str,
        sel: &str,
        gather: bool,
        out: &mut Vec<I>,
    ) {
        let st = strides(dims);
        let inner = Ex::product(dims[ixs.len()..].iter().cloned());
        // Loop counters of the slice entries, outermost first.
        let mut counters: Vec<(String, Ex)> = Vec::new();
        let mut at_arr = Ex::int(0);
        for (j, ix) in ixs.iter().enumerate() {
            match ix {
                Ix::Fix(i) => at_arr = Ex::plus(at_arr, Ex::times(i.clone(), st[j].clone())),
                Ix::Slice {
                    start,
                    count,
                    stride,
                } => {
                    let c = self.fresh("s");
                    let pos = Ex::plus(start.clone(), Ex::times(Ex::var(&c), stride.clone()));
                    at_arr = Ex::plus(at_arr, Ex::times(pos, st[j].clone()));
                    counters.push((c, count.clone()));
                }
            }
        }
        // Offset in the selection: row-major over the counters, times the block.
        let mut at_sel = Ex::int(0);
        for (c, n) in &counters {
            at_sel = Ex::plus(Ex::times(at_sel, n.clone()), Ex::var(c));
        }
        at_sel = Ex::times(at_sel, inner.clone());
        let ((dst, dst_off), (src, src_off)) = if gather {
            ((sel, at_sel), (arr, at_arr))
        } else {
            ((arr, at_arr), (sel, at_sel))
        };
        let mut body = vec![I::Copy {
            elem,
            dst: dst.to_string(),
            dst_off,
            src: src.to_string(),
            src_off,
            count: inner,
        }];
        for (c, n) in counters.into_iter().rev() {
            body = vec![I::For {
                down: false,
                independent: false,
                var: c,
                bound: n,
                body,
                at: None,
            }];
        }
        out.extend(body);
    }

    /// The bounds check of an index or slice of an array with dimensions `dims`.
    fn index_check(&mut self, ixs: &[Ix], dims: &[Ex], aux: &Aux, out: &mut Vec<I>) {
        let mut cond = bool_ex(true);
        let mut args = Vec::new();
        let mut fixes = Vec::new();
        for (ix, d) in ixs.iter().zip(dims) {
            match ix {
                Ix::Fix(i) => {
                    cond = and(cond, in_range(i.clone(), d.clone()));
                    args.push(i.clone());
                    fixes.push(true);
                }
                Ix::Slice {
                    start,
                    count,
                    stride,
                } => {
                    let last = Ex::plus(
                        start.clone(),
                        Ex::times(
                            Ex::idx(IdxOp::Sub, count.clone(), Ex::int(1)),
                            stride.clone(),
                        ),
                    );
                    let zero_stride_ok = Ex::idx(
                        IdxOp::Or,
                        Ex::idx(IdxOp::Ne, stride.clone(), Ex::int(0)),
                        le(count.clone(), Ex::int(1)),
                    );
                    let empty_ok =
                        and(le(Ex::int(-1), start.clone()), le(start.clone(), d.clone()));
                    let full_ok = and(
                        in_range(start.clone(), d.clone()),
                        in_range(last, d.clone()),
                    );
                    let c = and(
                        and(le(Ex::int(0), count.clone()), zero_stride_ok),
                        Ex::idx(
                            IdxOp::Or,
                            and(eq(count.clone(), Ex::int(0)), empty_ok),
                            and(Ex::idx(IdxOp::Ne, count.clone(), Ex::int(0)), full_ok),
                        ),
                    );
                    cond = and(cond, c);
                    args.extend([start.clone(), count.clone(), stride.clone()]);
                    fixes.push(false);
                }
            }
        }
        args.extend(dims.iter().cloned());
        self.check(
            out,
            cond,
            SiteKind::Index {
                fixes,
                rank: dims.len(),
            },
            args,
            aux,
        );
    }

    /// The dimensions of `array` and the entries of `slice`, resolved, once they are checked
    /// to be in bounds.
    fn checked_slice(
        &mut self,
        array: Var,
        slice: &[DimIndex],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> (Vec<Ex>, Vec<Ix>) {
        let dims = self.var_dims(array);
        let ixs = self.resolve(slice);
        // The optimiser proved the positions in bounds (`index-in-bounds`).
        if !aux.attrs.iter().any(|a| a == IN_BOUNDS) {
            self.index_check(&ixs, &dims, aux, out);
        }
        (dims, ixs)
    }

    /// `dname = array[slice]`: an element, a view, or a copy (always a copy when `copy`).
    pub(super) fn index(
        &mut self,
        dname: String,
        array: Var,
        slice: &[DimIndex],
        copy: bool,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let (dims, ixs) = self.checked_slice(array, slice, aux, out);
        let elem = self.ty(array).elem();
        let an = self.name(array);
        let all_fix = ixs.iter().all(|i| matches!(i, Ix::Fix(_)));
        if all_fix && ixs.len() == dims.len() {
            out.push(I::Set {
                name: dname,
                val: Ex::Load {
                    elem,
                    arr: an,
                    idx: Box::new(offset(&ixs, &dims)),
                },
            });
            return Ok(());
        }
        let contiguous = ixs.iter().enumerate().all(|(j, ix)| match ix {
            Ix::Fix(_) => true,
            Ix::Slice { stride, .. } => j + 1 == ixs.len() && stride.as_int() == Some(1),
        });
        if contiguous && !copy {
            let share = self.share_of(array);
            out.push(I::SetArr {
                dst: dname,
                src: an,
                offset: offset(&ixs, &dims),
                share,
            });
            return Ok(());
        }
        out.push(I::Alloc {
            arr: dname.clone(),
            elem,
            count: Ex::product(selected_dims(&ixs, &dims)),
        });
        self.copy_slice(&ixs, &dims, elem, &an, &dname, true, out);
        Ok(())
    }

    /// `dname = array with [slice] = value`, updating `array`'s buffer in place.
    pub(super) fn update(
        &mut self,
        dname: String,
        array: Var,
        slice: &[DimIndex],
        value: &SubExp,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let (dims, ixs) = self.checked_slice(array, slice, aux, out);
        let elem = self.ty(array).elem();
        let an = self.consume_unique(array, out);
        let vty = match value {
            SubExp::Var(v) => self.ty(*v).clone(),
            SubExp::Const(c) => Type::Prim(c.prim_type()),
        };
        match vty {
            Type::Prim(_) => out.push(I::Store {
                elem,
                arr: an.clone(),
                idx: offset(&ixs, &dims),
                val: self.se(value),
            }),
            Type::Array { .. } => {
                let SubExp::Var(vv) = value else {
                    return Err("internal error: array constant".into());
                };
                let vdims = self.var_dims(*vv);
                let want = selected_dims(&ixs, &dims);
                self.size_check(out, &vdims, &want, elem, String::new(), aux);
                let vn = self.name(*vv);
                self.copy_slice(&ixs, &dims, elem, &an, &vn, false, out);
            }
            Type::Acc { .. } => return Err("internal error: update with an acc".into()),
        }
        out.push(I::SetArr {
            dst: dname,
            src: an,
            offset: Ex::int(0),
            share: Share::Move,
        });
        Ok(())
    }
}
