//! Basic operations for the verifier: operand types of primitive operations, indexing and
//! updates, array construction and reshaping, assertions. Returns what each operation
//! consumes (the array of an update, the accumulator of `update_acc`).

use super::{R, Subst, Verifier};
use crate::core::ir::{BasicOp, DimIndex, SubExp, Type, Var};
use crate::core::prim::PrimOp;
use crate::core::scalar::PrimType;
use crate::core::type_of::slice_dims;

impl<'a> Verifier<'a> {
    pub(super) fn slice(&self, array_ty: &Type, slice: &[DimIndex], what: &str) -> R {
        if array_ty.rank() == 0 {
            return self.fail(format!(
                "{what} of a value of type {}, which is not an array",
                self.show_ty(array_ty)
            ));
        }
        if slice.len() > array_ty.rank() {
            return self.fail(format!(
                "{what} with {} indices of an array of rank {}",
                slice.len(),
                array_ty.rank()
            ));
        }
        for d in slice {
            match d {
                DimIndex::Fix(i) => self.expect_se(i, PrimType::I64, "index")?,
                DimIndex::Slice {
                    start,
                    count,
                    stride,
                } => {
                    self.expect_se(start, PrimType::I64, "slice start")?;
                    self.expect_se(count, PrimType::I64, "slice count")?;
                    self.expect_se(stride, PrimType::I64, "slice stride")?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn shape(&self, shape: &[SubExp], what: &str) -> R {
        for d in shape {
            self.use_se(d)?;
            self.check_dim(d, what)?;
        }
        Ok(())
    }

    pub(super) fn array(&self, v: Var, what: &str) -> R<Type> {
        let t = self.use_var(v)?;
        if t.rank() == 0 {
            return self.fail(format!(
                "{what} {} has type {}, which is not an array",
                self.show(v),
                self.show_ty(&t)
            ));
        }
        Ok(t)
    }

    /// Checks a basic operation; returns the variables it consumes.
    pub(super) fn basic_op(&mut self, op: &BasicOp) -> R<Vec<Var>> {
        match op {
            BasicOp::SubExp(se) => {
                self.use_se(se)?;
            }
            BasicOp::Prim(p, args) => self.prim(*p, args)?,
            BasicOp::Index { array, slice } => {
                let t = self.use_var(*array)?;
                self.slice(&t, slice, "indexing")?;
            }
            BasicOp::Update {
                array,
                slice,
                value,
            } => {
                let t = self.use_var(*array)?;
                self.slice(&t, slice, "an update")?;
                let vt = self.use_se(value)?;
                let expected = Type::array(t.elem(), slice_dims(t.dims(), slice));
                self.expect_type(&expected, &vt, &Subst::new(), "the updated value")?;
                return Ok(vec![*array]);
            }
            BasicOp::Iota {
                n,
                start,
                stride,
                elem,
            } => {
                if !elem.is_int() {
                    return self.fail(format!("iota of non-integer type {elem}"));
                }
                self.expect_se(n, PrimType::I64, "the iota count")?;
                self.expect_se(start, *elem, "the iota start")?;
                self.expect_se(stride, *elem, "the iota stride")?;
            }
            BasicOp::Replicate { shape, value } => {
                self.shape(shape, "the replicate shape")?;
                let t = self.use_se(value)?;
                if matches!(t, Type::Acc { .. }) {
                    return self.fail("replicate of an accumulator");
                }
            }
            BasicOp::Scratch { shape, .. } => self.shape(shape, "the scratch shape")?,
            BasicOp::ArrayLit { elems, row } => {
                self.check_type_dims(row, "the row type of the array literal")?;
                if matches!(row, Type::Acc { .. }) {
                    return self.fail("array literal of accumulators");
                }
                for (i, e) in elems.iter().enumerate() {
                    let t = self.use_se(e)?;
                    self.expect_type(row, &t, &Subst::new(), &format!("element {i}"))?;
                }
            }
            BasicOp::Concat { arrays, size } => {
                self.expect_se(size, PrimType::I64, "the concat size")?;
                let Some(first) = arrays.first() else {
                    return self.fail("concat of no arrays");
                };
                let t0 = self.array(*first, "concat input")?;
                for a in &arrays[1..] {
                    let t = self.array(*a, "concat input")?;
                    if t.elem() != t0.elem() || t.dims()[1..] != t0.dims()[1..] {
                        return self.fail(format!(
                            "concat inputs of types {} and {}",
                            self.show_ty(&t0),
                            self.show_ty(&t)
                        ));
                    }
                }
            }
            BasicOp::Copy(v) => {
                let t = self.use_var(*v)?;
                if matches!(t, Type::Acc { .. }) {
                    return self.fail("copy of an accumulator");
                }
            }
            BasicOp::Reshape { array, shape } => {
                self.array(*array, "reshape input")?;
                self.shape(shape, "the reshape shape")?;
                if shape.is_empty() {
                    return self.fail("reshape to an empty shape");
                }
            }
            BasicOp::Rearrange { array, perm } => {
                let t = self.array(*array, "rearrange input")?;
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..t.rank()).collect::<Vec<_>>() {
                    return self.fail(format!(
                        "{:?} is not a permutation of the {} dimensions of {}",
                        perm,
                        t.rank(),
                        self.show(*array)
                    ));
                }
            }
            BasicOp::Rotate { array, amount } => {
                self.array(*array, "rotate input")?;
                self.expect_se(amount, PrimType::I64, "the rotation amount")?;
            }
            BasicOp::Coerce { array, shape, .. } => {
                let t = self.array(*array, "coerce input")?;
                self.shape(shape, "the coerce shape")?;
                if shape.len() != t.rank() {
                    return self.fail(format!(
                        "coerce of {} (rank {}) to rank {}",
                        self.show(*array),
                        t.rank(),
                        shape.len()
                    ));
                }
            }
            BasicOp::Assert {
                cond,
                message,
                args,
            } => {
                self.expect_se(cond, PrimType::Bool, "the assertion")?;
                self.use_ses(args)?;
                let holes = message.matches("{}").count();
                if holes != args.len() {
                    return self.fail(format!(
                        "the assertion message has {holes} `{{}}` for {} arguments",
                        args.len()
                    ));
                }
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => {
                self.update_acc(*acc, indices, values)?;
                return Ok(vec![*acc]);
            }
        }
        Ok(vec![])
    }

    pub(super) fn prim(&self, p: PrimOp, args: &[SubExp]) -> R {
        let expected = p.operand_types();
        if args.len() != expected.len() {
            return self.fail(format!(
                "{p} takes {} operands, given {}",
                expected.len(),
                args.len()
            ));
        }
        for (i, (a, t)) in args.iter().zip(expected).enumerate() {
            self.expect_se(a, t, &format!("operand {i} of {p}"))?;
        }
        Ok(())
    }
}
