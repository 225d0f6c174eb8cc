//! Built-in overloaded operators (`+`, `==`, ...) on internalised values.
//!
//! Takes the operator's name and its two operands. Arithmetic and comparison become one
//! primitive operation at the operands' type; `==` and `!=` compare structurally (records field
//! by field, arrays by shape, then element by element).

use super::intrinsics;
use super::value::IVal;
use super::{Internaliser, R, bug, i64c};
use crate::core::builder::HasBuilder;
use crate::core::ir::{Soac, SubExp, Type};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;

impl<'a> Internaliser<'a> {
    pub(super) fn builtin(&mut self, op: &str, args: Vec<IVal>, span: Span) -> R<IVal> {
        let mut it = args.into_iter();
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return Err(bug(span, format!("operator {op} needs two operands")));
        };
        if op == "==" || op == "!=" {
            let eq = self.equal(&a, &b, span)?;
            return Ok(IVal::Leaf(if op == "==" {
                eq
            } else {
                self.em
                    .prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![eq])
            }));
        }
        let a = self.leaf(&a, span)?;
        let b = self.leaf(&b, span)?;
        let t = self.em.ty(&a).elem();
        let pop = intrinsics::builtin_op(t, op)
            .ok_or_else(|| bug(span, format!("no operator {op} at type {t}")))?;
        Ok(IVal::Leaf(self.em.prim(pop, vec![a, b])))
    }

    /// Structural equality (arrays: same shape and elements; records: all fields; sums:
    /// same tag and payload, [`Internaliser::sum_equal`]).
    pub(super) fn equal(&mut self, a: &IVal, b: &IVal, span: Span) -> R<SubExp> {
        if let (IVal::Record(fa), IVal::Record(fb)) = (a, b)
            && has_sum(a)
        {
            // A single sum (not an array of sums, whose tag is an array).
            if let Some(IVal::Leaf(tag)) = fa.get(super::sums::TAG)
                && self.em.ty(tag).rank() == 0
            {
                return self.sum_equal(fa, fb, span);
            }
            let mut acc = SubExp::Const(Scalar::Bool(true));
            for (k, x) in fa {
                let Some(y) = fb.get(k) else {
                    return Err(bug(span, format!("no field {k} to compare")));
                };
                let eq = self.equal(x, y, span)?;
                acc = if acc == SubExp::Const(Scalar::Bool(true)) {
                    eq
                } else {
                    self.em
                        .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![acc, eq])
                };
            }
            return Ok(acc);
        }
        let la = a.leaves();
        let lb = b.leaves();
        let mut acc = SubExp::Const(Scalar::Bool(true));
        for (x, y) in la.iter().zip(&lb) {
            let eq = self.equal_leaf(*x, *y, span)?;
            acc = if acc == SubExp::Const(Scalar::Bool(true)) {
                eq
            } else {
                self.em
                    .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![acc, eq])
            };
        }
        Ok(acc)
    }

    fn equal_leaf(&mut self, x: SubExp, y: SubExp, span: Span) -> R<SubExp> {
        let tx = self.em.ty(&x);
        let ty = self.em.ty(&y);
        let t = tx.elem();
        if tx.rank() == 0 {
            return Ok(self.em.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, y]));
        }
        if tx.rank() != ty.rank() {
            return Ok(SubExp::Const(Scalar::Bool(false)));
        }
        let mut same_shape = SubExp::Const(Scalar::Bool(true));
        for (dx, dy) in tx.dims().iter().zip(ty.dims()) {
            if dx == dy {
                continue;
            }
            let e = self
                .em
                .prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![*dx, *dy]);
            same_shape = self
                .em
                .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![same_shape, e]);
        }
        let xv = self.em.as_var(x, "const");
        let yv = self.em.as_var(y, "const");
        self.if_then_else(
            same_shape,
            span,
            |s| {
                let mut n = i64c(1);
                for d in tx.dims() {
                    n = s.em.i64_bin(BinOp::Mul, n, *d);
                }
                let fx = s.em.reshape(SubExp::Var(xv), vec![n], "flat");
                let fy = s.em.reshape(SubExp::Var(yv), vec![n], "flat");
                let elem = [("elem", Type::Prim(t)), ("elem", Type::Prim(t))];
                let lam = s.em.try_lambda(&elem, |em, p| -> R<Vec<SubExp>> {
                    Ok(vec![em.prim(
                        PrimOp::Cmp(CmpOp::Eq, t),
                        vec![p[0].into(), p[1].into()],
                    )])
                })?;
                let arrays = vec![fx, fy];
                let eqs = s.em.soac(
                    Soac::Map { w: n, lam, arrays },
                    vec![Type::array(PrimType::Bool, vec![n])],
                    "eqs",
                );
                let bools = [
                    ("b", Type::Prim(PrimType::Bool)),
                    ("b", Type::Prim(PrimType::Bool)),
                ];
                let and = s.em.try_lambda(&bools, |em, p| -> R<Vec<SubExp>> {
                    Ok(vec![em.prim(
                        PrimOp::Bin(BinOp::And, PrimType::Bool),
                        vec![p[0].into(), p[1].into()],
                    )])
                })?;
                let arrays = vec![s.em.as_var(eqs[0], "const")];
                let r = s.em.soac(
                    Soac::Reduce {
                        w: n,
                        lam: and,
                        neutral: vec![SubExp::Const(Scalar::Bool(true))],
                        arrays,
                        commutative: true,
                    },
                    vec![Type::Prim(PrimType::Bool)],
                    "all_eq",
                );
                Ok(IVal::Leaf(r[0]))
            },
            |_| Ok(IVal::Leaf(SubExp::Const(Scalar::Bool(false)))),
        )
        .and_then(|v| self.leaf(&v, span))
    }
}

/// Whether the value is or contains a sum (a record with a tag field).
fn has_sum(v: &IVal) -> bool {
    match v {
        IVal::Record(fs) => fs.contains_key(super::sums::TAG) || fs.values().any(has_sum),
        _ => false,
    }
}
