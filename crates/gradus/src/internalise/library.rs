//! Calls of the prelude's intrinsic functions (declarations whose body is `???`).
//!
//! Takes the intrinsic's name and its arguments. SOACs go to `soac`, the AD operators
//! to `ad_ops`, array functions (`iota`, `concat`, `transpose`, ...) become core basic
//! operations on every leaf, and the numeric modules' functions become primitive operations.

use super::intrinsics;
use super::value::{FunVal, IVal};
use super::{Internaliser, R, bug, i64c};
use crate::core::ir::{BasicOp, DimIndex, SubExp};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::types::ty::Ty;

impl<'a> Internaliser<'a> {
    pub(super) fn intrinsic(
        &mut self,
        name: &str,
        args: Vec<IVal>,
        fv: &FunVal,
        span: Span,
    ) -> R<IVal> {
        let arg = |k: usize| args.get(k).cloned().unwrap_or_else(IVal::unit);
        match name {
            "map" => self.map(arg(0), vec![arg(1)], span),
            "reduce" | "reduce_comm" => {
                self.reduce(arg(0), arg(1), arg(2), name == "reduce_comm", span)
            }
            "scan" => self.scan(arg(0), arg(1), arg(2), span),
            "reduce_by_index" => self.hist(arg(0), arg(1), arg(2), arg(3), arg(4), span),
            "scatter" => self.scatter(arg(0), arg(1), arg(2), span),
            "iota" => {
                let n = self.leaf(&arg(0), span)?;
                Ok(IVal::Leaf(SubExp::Var(self.em.iota(n, "iota"))))
            }
            "replicate" => {
                let n = self.leaf(&arg(0), span)?;
                let neg = self
                    .em
                    .prim(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), vec![n, i64c(0)]);
                let ok = self
                    .em
                    .prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![neg]);
                self.assert(ok, "Range 0..<{} is invalid.".into(), vec![n]);
                Ok(self.map_leaves(&arg(1), |s, l| {
                    let op = BasicOp::Replicate {
                        shape: vec![n],
                        value: l,
                    };
                    SubExp::Var(s.em.basic(op, "replicate"))
                }))
            }
            "copy" => Ok(self.map_leaves(&arg(0), |s, l| s.em.copy(l))),
            "concat" => {
                let (xs, ys) = (arg(0), arg(1));
                let mut out = Vec::new();
                for (a, b) in xs.leaves().into_iter().zip(ys.leaves()) {
                    let ta = self.em.ty(&a);
                    let tb = self.em.ty(&b);
                    let n = self.em.i64_bin(
                        BinOp::Add,
                        ta.dims().first().copied().unwrap_or(i64c(0)),
                        tb.dims().first().copied().unwrap_or(i64c(0)),
                    );
                    let mut dims = ta.dims().to_vec();
                    if let Some(d) = dims.first_mut() {
                        *d = n;
                    }
                    let arrays = vec![self.em.as_var(a, "const"), self.em.as_var(b, "const")];
                    out.push(SubExp::Var(
                        self.em.basic(BasicOp::Concat { arrays, size: n }, "concat"),
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "reverse" => Ok(self.map_leaves(&arg(0), |s, l| {
                let n = s.em.dims(&l).first().copied().unwrap_or(i64c(0));
                let start = s.em.i64_bin(BinOp::Sub, n, i64c(1));
                let arr = s.em.as_var(l, "const");
                let stride = i64c(-1);
                let slice = vec![DimIndex::Slice {
                    start,
                    count: n,
                    stride,
                }];
                let hint = s.em.names.hint(arr).to_string();
                SubExp::Var(s.em.index(arr, slice, &hint))
            })),
            "rotate" => {
                let amount = self.leaf(&arg(0), span)?;
                Ok(self.map_leaves(&arg(1), |s, l| {
                    let array = s.em.as_var(l, "const");
                    SubExp::Var(s.em.basic(BasicOp::Rotate { array, amount }, "rotate"))
                }))
            }
            "transpose" => Ok(self.map_leaves(&arg(0), |s, l| {
                let mut perm: Vec<usize> = (0..s.em.ty(&l).rank()).collect();
                if perm.len() >= 2 {
                    perm.swap(0, 1);
                }
                let array = s.em.as_var(l, "const");
                let op = BasicOp::Rearrange { array, perm };
                SubExp::Var(s.em.basic(op, "transpose"))
            })),
            "flatten" => Ok(self.map_leaves(&arg(0), |s, l| {
                let d = s.em.dims(&l);
                let n =
                    s.em.i64_bin(BinOp::Mul, d[0], d.get(1).copied().unwrap_or(i64c(1)));
                let mut shape = vec![n];
                shape.extend_from_slice(d.get(2..).unwrap_or(&[]));
                SubExp::Var(s.em.reshape(l, shape, "flat"))
            })),
            "unflatten" => {
                let xs = arg(0);
                let (n, m) = self.unflatten_sizes(&xs, fv, span)?;
                Ok(self.map_leaves(&xs, |s, l| {
                    let mut shape = vec![n, m];
                    shape.extend_from_slice(s.em.dims(&l).get(1..).unwrap_or(&[]));
                    SubExp::Var(s.em.reshape(l, shape, "unflat"))
                }))
            }
            "zip" => {
                let (xs, ys) = (arg(0), arg(1));
                let n = xs
                    .leaves()
                    .first()
                    .and_then(|l| self.em.dims(l).first().copied());
                let ys = match n {
                    Some(n) => self.coerce_outer(ys, n)?,
                    None => ys,
                };
                Ok(IVal::tuple(vec![xs, ys]))
            }
            "unzip" | "opaque" | "trace" => Ok(arg(0)),
            "length" => {
                let xs = arg(0);
                let n = xs
                    .leaves()
                    .first()
                    .and_then(|l| self.em.dims(l).first().copied())
                    .unwrap_or(i64c(0));
                Ok(IVal::Leaf(n))
            }
            "jvp" | "jvp2" | "jmp" | "jmp2" | "vjp" | "vjp2" | "mjp" | "mjp2" => {
                self.ad_operator(name, &args, span)
            }
            "with_vjp" | "with_jvp" => self.custom_derivative(name, &args, span),
            _ => self.scalar_intrinsic(name, args, span),
        }
    }

    /// The value shaped like `xs` whose leaves are `f` of the leaves of `xs`, in order.
    fn map_leaves(&mut self, xs: &IVal, mut f: impl FnMut(&mut Self, SubExp) -> SubExp) -> IVal {
        let out: Vec<SubExp> = xs.leaves().into_iter().map(|l| f(self, l)).collect();
        xs.rebuild(&mut out.into_iter())
    }

    fn unflatten_sizes(&mut self, xs: &IVal, fv: &FunVal, span: Span) -> R<(SubExp, SubExp)> {
        let total = xs
            .leaves()
            .first()
            .and_then(|l| self.em.dims(l).first().copied())
            .unwrap_or(i64c(0));
        let mut ret = fv.ty.as_ref();
        while let Some(Ty::Arrow(_, r)) = ret {
            ret = Some(r);
        }
        let (n, m) = match ret {
            Some(Ty::Array(dims, _)) if dims.len() >= 2 => (
                self.eval_size(&dims[0], &fv.env),
                self.eval_size(&dims[1], &fv.env),
            ),
            _ => (None, None),
        };
        let (n, m) = match (n, m) {
            (Some(n), Some(m)) => (n, m),
            (Some(n), None) => {
                let m = self
                    .em
                    .prim(PrimOp::Bin(BinOp::Div, PrimType::I64), vec![total, n]);
                (n, m)
            }
            (None, Some(m)) => {
                let n = self
                    .em
                    .prim(PrimOp::Bin(BinOp::Div, PrimType::I64), vec![total, m]);
                (n, m)
            }
            (None, None) => {
                return Err(Diagnostic::error(
                    span,
                    "the sizes of the result of `unflatten` cannot be determined",
                )
                .with_note(
                    "annotate the result type, e.g. `unflatten xs : [n][m]t`, or use `sized`",
                ));
            }
        };
        Ok((n, m))
    }

    fn scalar_intrinsic(&mut self, name: &str, args: Vec<IVal>, span: Span) -> R<IVal> {
        let (module, fname) = name
            .split_once('.')
            .ok_or_else(|| bug(span, format!("unknown intrinsic {name}")))?;
        let t = PrimType::from_name(module)
            .ok_or_else(|| bug(span, format!("unknown intrinsic {name}")))?;
        let op = intrinsics::scalar_op(t, fname)
            .ok_or_else(|| bug(span, format!("unknown intrinsic {name}")))?;
        let leaves = args
            .iter()
            .map(|a| self.leaf(a, span))
            .collect::<R<Vec<_>>>()?;
        Ok(IVal::Leaf(self.em.prim(op, leaves)))
    }
}
