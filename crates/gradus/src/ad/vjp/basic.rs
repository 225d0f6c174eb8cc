//! Return-sweep rules of basic operations. With `ȳ` the adjoint of the result:
//!
//! ```text
//! y = op(x1, .., xk)        xi += ∂op/∂xi · ȳ     (the table of derivatives.rs; conversions
//!                                                and bit casts go back with the opposite one)
//! y = xs[slice]             xs_adj[slice] += ȳ    (in place, or into an accumulator)
//! y = xs with [slice] = v   v += ȳ[slice];  xs += ȳ with [slice] = 0
//! y = iota(n, s, d)         n += Σȳ, s += Σȳ, d += Σ k·ȳ[k]
//!                           (docs/language.md §Integer and boolean leaves)
//! y = replicate(shape, v)   v += ȳ summed over the leading `shape` dimensions
//! [a, b, ..], concat        each part gets its rows of ȳ
//! copy, coerce, reshape     ȳ, reshaped to the operand's shape
//! rearrange, rotate         the inverse permutation, rotation by the opposite amount
//! ```
//! Scalar partial derivatives are the forward table applied to a one-hot tangent: for a scalar
//! function the derivative in direction `ȳ` of argument `i` is `∂op/∂xi · ȳ`.

use super::{Diagnostic, R, Vjp, limitation};
use crate::ad::derivatives::prim_tangent;
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, DimIndex, Exp, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};

impl Vjp<'_> {
    /// The return sweep of a basic operation (the table above).
    pub(super) fn rev_basic(
        &mut self,
        s: &Stm,
        op: &BasicOp,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Some(Some((ybar, owned))) = ybars.first().copied() else {
            return Ok(());
        };
        let Some(&y) = s.pat.first() else {
            return Ok(());
        };
        match op {
            BasicOp::SubExp(se) => self.add_adj_se(se, ybar, owned),
            BasicOp::Prim(p, args) => self.rev_prim(*p, args, ybar),
            BasicOp::Index { array, slice } => self.add_adj_at(*array, slice, ybar),
            BasicOp::Update {
                array,
                slice,
                value,
            } => self.rev_update(*array, slice, value, ybar, owned),
            BasicOp::Iota {
                n,
                start,
                stride,
                elem,
            } => self.rev_iota(n, start, stride, elem, ybar),
            BasicOp::Replicate { shape, value } => self.rev_replicate(shape, value, ybar),
            BasicOp::Scratch { .. } | BasicOp::Assert { .. } => Ok(()),
            BasicOp::ArrayLit { elems, .. } => self.rev_array_lit(elems, ybar),
            BasicOp::Concat { arrays, .. } => self.rev_concat(arrays, ybar),
            BasicOp::Copy(a) => self.add_adj(*a, ybar, owned),
            BasicOp::Reshape { array, .. } | BasicOp::Coerce { array, .. } => {
                let SubExp::Var(yb) = ybar else {
                    return Ok(());
                };
                let dims = self.e.names.ty(*array).dims().to_vec();
                let r = self.e.reshape(yb.into(), dims, "reshape_adj");
                self.add_adj(*array, SubExp::Var(r), owned)
            }
            BasicOp::Rearrange { array, perm } => self.rev_rearrange(*array, perm, ybar),
            BasicOp::Rotate { array, amount } => self.rev_rotate(*array, amount, ybar),
            BasicOp::UpdateAcc { .. } => Err(limitation(
                s.aux.span,
                format!(
                    "reverse-mode AD of accumulator updates ({})",
                    self.e.names.hint(y)
                ),
            )),
        }
    }

    /// The adjoint of `array with [slice] = value`: `value += ȳ[slice]`, `array += ȳ with [slice] =
    /// 0`.
    fn rev_update(
        &mut self,
        array: Var,
        slice: &[DimIndex],
        value: &SubExp,
        ybar: SubExp,
        owned: bool,
    ) -> R<()> {
        let SubExp::Var(yb) = ybar else {
            return Err(Diagnostic::bug("array adjoint that is a constant"));
        };
        if self.is_active(value) {
            let vb = self.e.index(yb, slice.to_vec(), "upd_adj");
            self.add_adj_se(value, SubExp::Var(vb), true)?;
        }
        if self.active.contains(&array) {
            let yb = if owned {
                yb
            } else {
                self.e.basic(BasicOp::Copy(yb), "adj")
            };
            let vt = self.e.ty(value);
            let z = self.zero(&vt);
            let cleared = self.e.basic(
                BasicOp::Update {
                    array: yb,
                    slice: slice.to_vec(),
                    value: z,
                },
                "adj",
            );
            self.add_adj(array, SubExp::Var(cleared), true)?;
        }
        Ok(())
    }

    /// The adjoint of `iota(n, start, stride)`: `n` and `start` get `Σȳ`, `stride` gets `Σ k·ȳ[k]`.
    fn rev_iota(
        &mut self,
        n: &SubExp,
        start: &SubExp,
        stride: &SubExp,
        elem: &PrimType,
        ybar: SubExp,
    ) -> R<()> {
        let SubExp::Var(yb) = ybar else {
            return Ok(());
        };
        let sum = if self.is_active(n) || self.is_active(start) {
            Some(self.sum_outer(yb)?)
        } else {
            None
        };
        if let Some(sum) = sum {
            if self.is_active(n) {
                let c = if *elem == PrimType::I64 {
                    sum
                } else {
                    self.e.prim(PrimOp::Conv(*elem, PrimType::I64), vec![sum])
                };
                self.add_adj_se(n, c, false)?;
            }
            self.add_adj_se(start, sum, false)?;
        }
        if self.is_active(stride) {
            let k = self.e.basic(
                BasicOp::Iota {
                    n: *n,
                    start: SubExp::Const(Scalar::zero(*elem)),
                    stride: SubExp::Const(Scalar::one(*elem)),
                    elem: *elem,
                },
                "iota",
            );
            let t = Type::Prim(*elem);
            let lam = self.try_lambda(&[("k", t.clone()), ("yb", t)], |v, ps| {
                Ok(vec![v.e.prim(
                    PrimOp::Bin(BinOp::Mul, *elem),
                    vec![ps[0].into(), ps[1].into()],
                )])
            })?;
            let prods = self.e.bind1(
                Exp::Soac(Soac::Map {
                    w: *n,
                    lam,
                    arrays: vec![k, yb],
                }),
                "iota_adj",
            );
            let d = self.sum_outer(prods)?;
            self.add_adj_se(stride, d, false)?;
        }
        Ok(())
    }

    /// The adjoint of `replicate(shape, value)`: `ȳ` summed over the leading `shape` dimensions.
    fn rev_replicate(&mut self, shape: &[SubExp], value: &SubExp, ybar: SubExp) -> R<()> {
        if !self.is_active(value) {
            return Ok(());
        }
        let SubExp::Var(yb) = ybar else {
            return Ok(());
        };
        let vt = self.e.ty(value);
        let mut outer = SubExp::i64(1);
        for d in shape.iter().copied() {
            outer = self.e.i64_bin(BinOp::Mul, outer, d);
        }
        let mut dims = vec![outer];
        dims.extend_from_slice(vt.dims());
        let flat = if shape.len() == 1 {
            yb
        } else {
            self.e.reshape(yb.into(), dims, "rep_adj")
        };
        let sum = self.sum_outer(flat)?;
        self.add_adj_se(value, sum, true)
    }

    /// The adjoint of an array literal: each element gets its row of `ȳ`.
    fn rev_array_lit(&mut self, elems: &[SubExp], ybar: SubExp) -> R<()> {
        let SubExp::Var(yb) = ybar else {
            return Ok(());
        };
        for (k, el) in elems.iter().enumerate() {
            if self.is_active(el) {
                let r = self
                    .e
                    .index(yb, vec![DimIndex::Fix(SubExp::i64(k as i64))], "lit_adj");
                self.add_adj_se(el, SubExp::Var(r), true)?;
            }
        }
        Ok(())
    }

    /// The adjoint of a concatenation: each part gets its rows of `ȳ`.
    fn rev_concat(&mut self, arrays: &[Var], ybar: SubExp) -> R<()> {
        let SubExp::Var(yb) = ybar else {
            return Ok(());
        };
        let mut offset = SubExp::i64(0);
        for a in arrays {
            let n = self.e.names.ty(*a).dims()[0];
            if self.active.contains(a) {
                let part = self.e.index(
                    yb,
                    vec![DimIndex::Slice {
                        start: offset,
                        count: n,
                        stride: SubExp::i64(1),
                    }],
                    "concat_adj",
                );
                self.add_adj(*a, SubExp::Var(part), true)?;
            }
            offset = self.e.i64_bin(BinOp::Add, offset, n);
        }
        Ok(())
    }

    /// The adjoint of a rearrangement: `ȳ` rearranged by the inverse permutation.
    fn rev_rearrange(&mut self, array: Var, perm: &[usize], ybar: SubExp) -> R<()> {
        let SubExp::Var(yb) = ybar else {
            return Ok(());
        };
        let mut inv = vec![0; perm.len()];
        for (i, p) in perm.iter().enumerate() {
            if let Some(slot) = inv.get_mut(*p) {
                *slot = i;
            }
        }
        let r = self.e.basic(
            BasicOp::Rearrange {
                array: yb,
                perm: inv,
            },
            "transpose_adj",
        );
        self.add_adj(array, SubExp::Var(r), true)
    }

    /// The adjoint of a rotation: `ȳ` rotated by the opposite amount.
    fn rev_rotate(&mut self, array: Var, amount: &SubExp, ybar: SubExp) -> R<()> {
        let SubExp::Var(yb) = ybar else {
            return Ok(());
        };
        let neg = self
            .e
            .prim(PrimOp::Un(UnOp::Neg, PrimType::I64), vec![*amount]);
        let r = self.e.basic(
            BasicOp::Rotate {
                array: yb,
                amount: neg,
            },
            "rotate_adj",
        );
        self.add_adj(array, SubExp::Var(r), true)
    }

    fn rev_prim(&mut self, op: PrimOp, args: &[SubExp], ybar: SubExp) -> R<()> {
        for (i, x) in args.iter().enumerate() {
            if !self.is_active(x) {
                continue;
            }
            let xt = self.e.ty(x).elem();
            let c = match op {
                PrimOp::Conv(from, to) => {
                    if from == PrimType::Bool || to == PrimType::Bool {
                        None
                    } else {
                        Some(self.e.prim(PrimOp::Conv(to, from), vec![ybar]))
                    }
                }
                PrimOp::FromBits(_, float) => {
                    Some(self.e.prim(PrimOp::Un(UnOp::ToBits, float), vec![ybar]))
                }
                PrimOp::Un(UnOp::ToBits, float) => {
                    let bits = op.result_type();
                    Some(self.e.prim(PrimOp::FromBits(bits, float), vec![ybar]))
                }
                _ => {
                    let mut tans = vec![None; args.len()];
                    tans[i] = Some(ybar);
                    prim_tangent(&mut self.e, op, args, &tans)
                }
            };
            // Operands of another type than the result (conditions of `select`, shift
            // amounts, ...) have derivative zero.
            if let Some(c) = c
                && self.e.ty(&c).elem() == xt
            {
                self.add_adj_se(x, c, false)?;
            }
        }
        Ok(())
    }

    /// The sum of the rows of an array (a `reduce` with element-wise addition).
    pub(super) fn sum_outer(&mut self, arr: Var) -> R<SubExp> {
        let t = self.e.names.ty(arr).clone();
        let row = t.row();
        let n = t.dims()[0];
        let lam = self.try_lambda(&[("a", row.clone()), ("b", row.clone())], |v, ps| {
            Ok(vec![v.add_values(ps[0].into(), ps[1].into())?])
        })?;
        let ne = self.zero(&row);
        Ok(SubExp::Var(self.e.bind1(
            Exp::Soac(Soac::Reduce {
                w: n,
                lam,
                neutral: vec![ne],
                arrays: vec![arr],
                commutative: true,
            }),
            "sum",
        )))
    }
}
