//! Arrays: literals, indexing, slicing, in-place updates and ranges.
//!
//! Takes the source forms and emits the core operations on every leaf of a (flattened) array
//! value, together with the run-time checks docs/language.md §Indexing and slicing and §Ranges ask
//! for: slice bounds and range validity, reported with the values involved.

use super::value::{Env, IVal};
use super::{Internaliser, R, bug, i64c, limitation};
use crate::core::builder::Builder;
use crate::core::ir::{BasicOp, DimIndex, SubExp};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use crate::syntax::ast::{self};
use crate::types::ty::{Size, Ty};
use std::collections::BTreeMap;

impl<'a> Internaliser<'a> {
    pub(super) fn array_literal(
        &mut self,
        e: &'a ast::Exp,
        xs: &'a [ast::Exp],
        env: &Env,
    ) -> R<IVal> {
        let vals = xs.iter().map(|x| self.exp(x, env)).collect::<R<Vec<_>>>()?;
        let Some(first) = vals.first() else {
            // An empty array: its element structure comes from the type.
            let ty = self.exp_type(e).cloned().unwrap_or(Ty::Array(
                vec![Size::Const(0)],
                Box::new(Ty::Prim(PrimType::I32)),
            ));
            return self.empty_array(&ty, env, e.span);
        };
        let per_leaf: Vec<Vec<SubExp>> = vals.iter().map(IVal::leaves).collect();
        let mut out = Vec::new();
        for j in 0..per_leaf[0].len() {
            let row = self.em.ty(&per_leaf[0][j]);
            let elems: Vec<SubExp> = per_leaf.iter().map(|l| l[j]).collect();
            out.push(SubExp::Var(
                self.em.basic(BasicOp::ArrayLit { elems, row }, "arr"),
            ));
        }
        Ok(first.rebuild(&mut out.into_iter()))
    }

    fn empty_array(&mut self, ty: &Ty, env: &Env, span: Span) -> R<IVal> {
        match ty {
            Ty::Array(dims, elem) => {
                let mut core = Vec::new();
                for (k, d) in dims.iter().enumerate() {
                    core.push(if k == 0 {
                        i64c(0)
                    } else {
                        self.eval_size(d, env).unwrap_or(i64c(0))
                    });
                }
                self.scratch_of(elem, &core, span)
            }
            _ => Err(bug(span, "empty array literal of non-array type")),
        }
    }

    fn scratch_of(&mut self, elem: &Ty, dims: &[SubExp], span: Span) -> R<IVal> {
        match elem {
            Ty::Prim(t) => Ok(IVal::Leaf(SubExp::Var(self.em.basic(
                BasicOp::Scratch {
                    elem: *t,
                    shape: dims.to_vec(),
                },
                "empty",
            )))),
            Ty::Record(fields) => {
                let mut out = BTreeMap::new();
                for (k, t) in fields {
                    out.insert(k.clone(), self.scratch_of(t, dims, span)?);
                }
                Ok(IVal::Record(out))
            }
            Ty::Array(inner, e) => {
                let mut all = dims.to_vec();
                all.extend(inner.iter().map(|d| match d {
                    Size::Const(c) => i64c(*c),
                    _ => i64c(0),
                }));
                self.scratch_of(e, &all, span)
            }
            _ => Err(limitation(span, "empty arrays of this element type")),
        }
    }

    /// Computes a core slice for source indices into the (flattened) array value `v`,
    /// emitting the bounds checks of slices; `doing` names the operation for the error about
    /// arrays without leaves.
    fn slice_of(
        &mut self,
        v: &IVal,
        indices: &'a [ast::DimIndex],
        env: &Env,
        span: Span,
        doing: &str,
    ) -> R<Vec<DimIndex>> {
        let first = v
            .leaves()
            .first()
            .copied()
            .ok_or_else(|| limitation(span, format!("{doing} an array of empty records")))?;
        let dims = self.em.dims(&first);
        let mut out = Vec::new();
        let mut msg_parts = Vec::new();
        let mut msg_args = Vec::new();
        let mut ok = SubExp::Const(Scalar::Bool(true));
        let mut has_slice = false;
        for (k, ix) in indices.iter().enumerate() {
            let n = dims.get(k).copied().unwrap_or(i64c(0));
            match ix {
                ast::DimIndex::Fix(x) => {
                    let i = self.index_exp(x, env)?;
                    out.push(DimIndex::Fix(i));
                    msg_parts.push("{}".to_string());
                    msg_args.push(i);
                }
                ast::DimIndex::Slice { start, end, stride } => {
                    has_slice = true;
                    let eval = |s: &mut Self, x: &'a Option<ast::Exp>| -> R<Option<SubExp>> {
                        match x {
                            Some(x) => Ok(Some(s.index_exp(x, env)?)),
                            None => Ok(None),
                        }
                    };
                    let i = eval(self, start)?;
                    let j = eval(self, end)?;
                    let s = eval(self, stride)?;
                    let mut part = String::new();
                    if let Some(i) = i {
                        part.push_str("{}");
                        msg_args.push(i);
                    }
                    part.push(':');
                    if let Some(j) = j {
                        part.push_str("{}");
                        msg_args.push(j);
                    }
                    if let Some(s) = s {
                        part.push_str(":{}");
                        msg_args.push(s);
                    }
                    msg_parts.push(part);
                    let (d, valid) = self.slice_dim(n, i, j, s);
                    out.push(d);
                    ok = if ok == SubExp::Const(Scalar::Bool(true)) {
                        valid
                    } else {
                        self.em
                            .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![ok, valid])
                    };
                }
            }
        }
        if has_slice {
            let mut msg = format!(
                "Index [{}] out of bounds for array of shape ",
                msg_parts.join(", ")
            );
            for d in dims {
                msg.push_str("[{}]");
                msg_args.push(d);
            }
            msg.push('.');
            self.assert(ok, msg, msg_args);
        }
        Ok(out)
    }

    /// One slice dimension `i:j:s` over size `n`: the core slice and its validity
    /// (docs/language.md §Indexing and slicing).
    fn slice_dim(
        &mut self,
        n: SubExp,
        i: Option<SubExp>,
        j: Option<SubExp>,
        s: Option<SubExp>,
    ) -> (DimIndex, SubExp) {
        use BinOp::*;
        let i64t = PrimType::I64;
        let cmp = |em: &mut Builder<'_>, op: CmpOp, a: SubExp, b: SubExp| {
            em.prim(PrimOp::Cmp(op, i64t), vec![a, b])
        };
        let and = |em: &mut Builder<'_>, a: SubExp, b: SubExp| {
            em.prim(PrimOp::Bin(And, PrimType::Bool), vec![a, b])
        };
        let stride = s.unwrap_or(i64c(1));
        let positive = match stride {
            SubExp::Const(Scalar::I64(v)) => Some(v > 0),
            _ => None,
        };
        if positive == Some(true) {
            let start = i.unwrap_or(i64c(0));
            let end = j.unwrap_or(n);
            let diff = self.em.i64_bin(Sub, end, start);
            let count = if stride == i64c(1) {
                diff
            } else {
                let t = self.em.i64_bin(Add, diff, stride);
                let t = self.em.i64_bin(Sub, t, i64c(1));
                self.em.prim(PrimOp::Bin(Div, i64t), vec![t, stride])
            };
            let c1 = cmp(&mut self.em, CmpOp::Le, i64c(0), start);
            let c2 = cmp(&mut self.em, CmpOp::Le, start, end);
            let c3 = cmp(&mut self.em, CmpOp::Le, end, n);
            let a = and(&mut self.em, c1, c2);
            let valid = and(&mut self.em, a, c3);
            let empty = cmp(&mut self.em, CmpOp::Eq, start, end);
            let valid = self
                .em
                .prim(PrimOp::Bin(Or, PrimType::Bool), vec![valid, empty]);
            return (
                DimIndex::Slice {
                    start,
                    count,
                    stride,
                },
                valid,
            );
        }
        // General stride: defaults depend on the sign.
        let pos = cmp(&mut self.em, CmpOp::Gt, stride, i64c(0));
        let n_minus_1 = self.em.i64_bin(Sub, n, i64c(1));
        let sel = |em: &mut Builder<'_>, c: SubExp, a: SubExp, b: SubExp| {
            em.prim(PrimOp::Tern(TernOp::Select, i64t), vec![c, a, b])
        };
        let start = match i {
            Some(i) => i,
            None => sel(&mut self.em, pos, i64c(0), n_minus_1),
        };
        let end = match j {
            Some(j) => j,
            None => sel(&mut self.em, pos, n, i64c(-1)),
        };
        // count = ceil(|end - start| / |stride|), clamped at 0 when the direction is wrong.
        let diff = self.em.i64_bin(Sub, end, start);
        let neg_stride = self.em.prim(PrimOp::Un(UnOp::Neg, i64t), vec![stride]);
        let abs_s = sel(&mut self.em, pos, stride, neg_stride);
        let neg_diff = self.em.prim(PrimOp::Un(UnOp::Neg, i64t), vec![diff]);
        let dist = sel(&mut self.em, pos, diff, neg_diff);
        let t = self.em.i64_bin(Add, dist, abs_s);
        let t = self.em.i64_bin(Sub, t, i64c(1));
        let count = self.em.prim(PrimOp::Bin(Div, i64t), vec![t, abs_s]);
        // Validity: s > 0: 0 <= i <= j <= n; s < 0: -1 <= j <= i <= n - 1; i == j always.
        let c1 = cmp(&mut self.em, CmpOp::Le, i64c(0), start);
        let c2 = cmp(&mut self.em, CmpOp::Le, start, end);
        let c3 = cmp(&mut self.em, CmpOp::Le, end, n);
        let a = and(&mut self.em, c1, c2);
        let valid_pos = and(&mut self.em, a, c3);
        let d1 = cmp(&mut self.em, CmpOp::Le, i64c(-1), end);
        let d2 = cmp(&mut self.em, CmpOp::Le, end, start);
        let d3 = cmp(&mut self.em, CmpOp::Le, start, n_minus_1);
        let b = and(&mut self.em, d1, d2);
        let valid_neg = and(&mut self.em, b, d3);
        let valid = self.em.prim(
            PrimOp::Tern(TernOp::Select, PrimType::Bool),
            vec![pos, valid_pos, valid_neg],
        );
        let empty = cmp(&mut self.em, CmpOp::Eq, start, end);
        let nonzero = cmp(&mut self.em, CmpOp::Ne, stride, i64c(0));
        let v = self
            .em
            .prim(PrimOp::Bin(Or, PrimType::Bool), vec![valid, empty]);
        let valid = and(&mut self.em, v, nonzero);
        (
            DimIndex::Slice {
                start,
                count,
                stride,
            },
            valid,
        )
    }

    pub(super) fn index_value(
        &mut self,
        v: &IVal,
        indices: &'a [ast::DimIndex],
        env: &Env,
        span: Span,
    ) -> R<IVal> {
        let slice = self.slice_of(v, indices, env, span, "indexing")?;
        self.index_leaves(v, &slice)
    }

    pub(super) fn index_leaves(&mut self, v: &IVal, slice: &[DimIndex]) -> R<IVal> {
        let mut out = Vec::new();
        for l in v.leaves() {
            let arr = self.em.as_var(l, "const");
            let hint = self.em.names.hint(arr).to_string();
            out.push(SubExp::Var(self.em.index(arr, slice.to_vec(), &hint)));
        }
        Ok(v.rebuild(&mut out.into_iter()))
    }

    pub(super) fn update_value(
        &mut self,
        target: &IVal,
        indices: &'a [ast::DimIndex],
        value: &IVal,
        env: &Env,
        span: Span,
    ) -> R<IVal> {
        let slice = self.slice_of(target, indices, env, span, "updating")?;
        let vals = value.leaves();
        let mut out = Vec::new();
        for (l, v) in target.leaves().into_iter().zip(vals) {
            let arr = self.em.as_var(l, "const");
            let hint = self.em.names.hint(arr).to_string();
            let op = BasicOp::Update {
                array: arr,
                slice: slice.clone(),
                value: v,
            };
            out.push(SubExp::Var(self.em.basic(op, &hint)));
        }
        Ok(target.rebuild(&mut out.into_iter()))
    }

    pub(super) fn range(
        &mut self,
        start: &'a ast::Exp,
        second: Option<&'a ast::Exp>,
        end: &'a ast::Exp,
        kind: ast::RangeKind,
        env: &Env,
    ) -> R<IVal> {
        use BinOp::*;
        let a = self.exp(start, env)?;
        let a = self.leaf(&a, start.span)?;
        let z = self.exp(end, env)?;
        let z = self.leaf(&z, end.span)?;
        let t = self.em.ty(&a).elem();
        let sec = match second {
            Some(s) => {
                let v = self.exp(s, env)?;
                Some(self.leaf(&v, s.span)?)
            }
            None => None,
        };
        let one = SubExp::Const(Scalar::from_f64(t, 1.0));
        let zero = SubExp::Const(Scalar::from_f64(t, 0.0));
        let stride = match (sec, kind) {
            (Some(y), _) => self.em.prim(PrimOp::Bin(Sub, t), vec![y, a]),
            (None, ast::RangeKind::DownToExclusive) => {
                self.em.prim(PrimOp::Un(UnOp::Neg, t), vec![one])
            }
            (None, _) => one,
        };
        let op = match kind {
            ast::RangeKind::UpToExclusive => "..<",
            ast::RangeKind::Inclusive => "...",
            ast::RangeKind::DownToExclusive => "..>",
        };
        let cmp = |s: &mut Self, op: CmpOp, x: SubExp, y: SubExp| {
            s.em.prim(PrimOp::Cmp(op, t), vec![x, y])
        };
        // Validity (docs/language.md §Ranges) and element count in the range's type.
        // An exclusive range in one direction: the stride has the direction's sign
        // (`stride_cmp` 0), the ends are in its order (`a ends_cmp z`), and the distance
        // is `to - from`.
        let one_way = |s: &mut Self, stride_cmp, ends_cmp, from, to| {
            let sign = cmp(s, stride_cmp, stride, zero);
            let order = cmp(s, ends_cmp, a, z);
            let v =
                s.em.prim(PrimOp::Bin(And, PrimType::Bool), vec![sign, order]);
            let d = s.em.prim(PrimOp::Bin(Sub, t), vec![to, from]);
            (v, d)
        };
        let (valid, dist) = match kind {
            ast::RangeKind::UpToExclusive => one_way(self, CmpOp::Gt, CmpOp::Le, a, z),
            ast::RangeKind::DownToExclusive => one_way(self, CmpOp::Lt, CmpOp::Ge, z, a),
            ast::RangeKind::Inclusive => {
                let pos = cmp(self, CmpOp::Gt, stride, zero);
                let neg = cmp(self, CmpOp::Lt, stride, zero);
                let le = cmp(self, CmpOp::Le, a, z);
                let ge = cmp(self, CmpOp::Ge, a, z);
                let p = self
                    .em
                    .prim(PrimOp::Bin(And, PrimType::Bool), vec![pos, le]);
                let n = self
                    .em
                    .prim(PrimOp::Bin(And, PrimType::Bool), vec![neg, ge]);
                let v = self.em.prim(PrimOp::Bin(Or, PrimType::Bool), vec![p, n]);
                let up = self.em.prim(PrimOp::Bin(Sub, t), vec![z, a]);
                let down = self.em.prim(PrimOp::Bin(Sub, t), vec![a, z]);
                let d = self
                    .em
                    .prim(PrimOp::Tern(TernOp::Select, t), vec![pos, up, down]);
                let d = self.em.prim(PrimOp::Bin(Add, t), vec![d, one]);
                (v, d)
            }
        };
        let mut msg = String::from("Range {}");
        let mut args = vec![a];
        if let Some(y) = sec {
            msg.push_str("..{}");
            args.push(y);
        }
        msg.push_str(op);
        msg.push_str("{} is invalid.");
        args.push(z);
        self.assert(valid, msg, args);
        // count = ceil(dist / |stride|), in i64.
        let dist64 = self.convert_to_i64(dist, t);
        let stride64 = self.convert_to_i64(stride, t);
        let abs_s = self
            .em
            .prim(PrimOp::Un(UnOp::Abs, PrimType::I64), vec![stride64]);
        let count = if abs_s == i64c(1) {
            dist64
        } else {
            let x = self.em.i64_bin(Add, dist64, abs_s);
            let x = self.em.i64_bin(Sub, x, i64c(1));
            self.em
                .prim(PrimOp::Bin(Div, PrimType::I64), vec![x, abs_s])
        };
        Ok(IVal::Leaf(SubExp::Var(self.em.basic(
            BasicOp::Iota {
                n: count,
                start: a,
                stride,
                elem: t,
            },
            "range",
        ))))
    }

    /// An index, slice bound or stride: any integer type (docs/language.md §Indexing and slicing),
    /// converted to `i64` so that the bounds checks see its value (a negative `i32` stays negative,
    /// a `u8` keeps its value).
    fn index_exp(&mut self, x: &'a ast::Exp, env: &Env) -> R<SubExp> {
        let v = self.exp(x, env)?;
        let i = self.leaf(&v, x.span)?;
        let t = self.prim_type_of(x, PrimType::I64);
        Ok(self.convert_to_i64(i, t))
    }

    fn convert_to_i64(&mut self, x: SubExp, t: PrimType) -> SubExp {
        if t == PrimType::I64 {
            x
        } else if let SubExp::Const(c) = x {
            SubExp::Const(Scalar::I64(c.as_i64().unwrap_or(0)))
        } else {
            self.em.prim(PrimOp::Conv(t, PrimType::I64), vec![x])
        }
    }
}
