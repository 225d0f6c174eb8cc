//! Application of a function to arguments and indexing of arrays, with the sizes that flow
//! through them (size-dependent parameters, slices).

use super::typeops::rename_vars;
use super::{Callee, Checker, R, strip};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::types::ty::{Size, Ty};

impl Checker {
    pub(super) fn apply_args(
        &mut self,
        mut ft: Ty,
        callee: &Callee,
        fspan: Span,
        args: &[&Exp],
    ) -> R<Ty> {
        for (i, arg) in args.iter().enumerate() {
            let (p, r) = match self.u.shallow(&ft) {
                Ty::Arrow(p, r) => (*p, *r),
                Ty::Var(_) => {
                    let p = self.fresh();
                    let r = self.fresh();
                    let want = Ty::Arrow(Box::new(p.clone()), Box::new(r.clone()));
                    if self.u.unify(&want, &ft).is_err() {
                        let d = if i == 0 {
                            Diagnostic::error(fspan, "cannot apply a non-function")
                                .with_label(format!("this has type {}", self.show(&ft)))
                        } else {
                            Diagnostic::error(
                                arg.span,
                                format!("too many arguments to `{}`", callee.name),
                            )
                            .with_label("unexpected argument")
                            .with_secondary(
                                fspan,
                                format!(
                                    "the result after {i} argument(s) has type {}",
                                    self.show(&ft)
                                ),
                            )
                        };
                        return Err(Box::new(d));
                    }
                    (p, r)
                }
                other => {
                    let other = rename_vars(&self.u.resolve(&other), &mut Vec::new());
                    let d = if i == 0 {
                        Diagnostic::error(fspan, "cannot apply a non-function")
                            .with_label(format!("this has type `{other}`"))
                    } else {
                        Diagnostic::error(
                            arg.span,
                            format!(
                                "too many arguments: `{}` takes {i} argument(s) here",
                                callee.name
                            ),
                        )
                        .with_label("unexpected argument")
                        .with_secondary(
                            fspan,
                            format!("the result after {i} argument(s) has type `{other}`"),
                        )
                    };
                    return Err(Box::new(d));
                }
            };
            let at = self.check_exp(arg)?;
            let what = if callee.operator {
                let side = if i == 0 { "left" } else { "right" };
                format!("the {side} operand of `{}` has the wrong type", callee.name)
            } else {
                format!("argument {} of `{}` has the wrong type", i + 1, callee.name)
            };
            self.expect(arg.span, &what, &p, &at)?;
            if let Some(Some(dep)) = callee.deps.get(i) {
                let s = self.exp_to_size(arg).unwrap_or(Size::Unknown);
                self.u.unify_size(dep, &s);
            }
            if callee.consumes.get(i) == Some(&true) {
                self.consume(arg)?;
            }
            ft = r;
        }
        Ok(ft)
    }

    /// An index or slice part: any integer type (docs/language.md §Indexing and slicing). A type
    /// not yet known (a literal, a lambda parameter) becomes `i64`, as it would if indices had to
    /// be `i64`.
    fn check_index(&mut self, e: &Exp, what: &str) -> R<()> {
        let t = self.check_exp(e)?;
        match self.u.resolve(&t) {
            Ty::Prim(p) if p.is_int() => Ok(()),
            _ => self.expect(e.span, what, &Ty::Prim(PrimType::I64), &t),
        }
    }

    pub(super) fn index_type(&mut self, t: &Ty, idx: &[DimIndex], span: Span) -> R<Ty> {
        let mut slices: Vec<Option<&DimIndex>> = Vec::new();
        for d in idx {
            match d {
                DimIndex::Fix(e) => {
                    self.check_index(e, "an index must have an integer type")?;
                    slices.push(None);
                }
                DimIndex::Slice { start, end, stride } => {
                    for e in [start, end, stride].into_iter().flatten() {
                        self.check_index(e, "a slice bound must have an integer type")?;
                    }
                    slices.push(Some(d));
                }
            }
        }
        let mut t = self.u.resolve(t);
        if let Ty::Var(_) = t {
            let elem = self.fresh();
            let mut want = elem;
            for _ in 0..idx.len() {
                let s = self.fresh_size();
                want = self.u.resolve(&want).array_of(s);
            }
            self.expect(span, "cannot index this value", &want, &t)?;
            t = self.u.resolve(&t);
        }
        // An array whose element type is not known yet (a lambda parameter checked before the
        // array the lambda is mapped over) may have more dimensions than known so far.
        if let Ty::Array(dims, elem) = &t
            && idx.len() > dims.len()
            && matches!(self.u.resolve(elem), Ty::Var(_))
        {
            let mut want = self.fresh();
            for _ in dims.len()..idx.len() {
                let s = self.fresh_size();
                want = self.u.resolve(&want).array_of(s);
            }
            let elem = (**elem).clone();
            self.expect(span, "cannot index this value", &want, &elem)?;
            t = self.u.resolve(&t);
        }
        let Ty::Array(dims, elem) = &t else {
            return Err(Box::new(
                Diagnostic::error(span, format!("cannot index into a value of type `{t}`"))
                    .with_label("not an array"),
            ));
        };
        if idx.len() > dims.len() {
            return Err(Box::new(
                Diagnostic::error(
                    span,
                    format!(
                        "too many indices: type `{t}` has {} dimension(s)",
                        dims.len()
                    ),
                )
                .with_label(format!("{} indices", idx.len())),
            ));
        }
        let mut out = Vec::new();
        for (s, d) in slices.iter().zip(dims) {
            if let Some(DimIndex::Slice { start, end, stride }) = s {
                out.push(self.slice_size(d, start.as_ref(), end.as_ref(), stride.as_ref()));
            }
        }
        out.extend(dims[idx.len()..].iter().cloned());
        if out.is_empty() {
            Ok((**elem).clone())
        } else {
            Ok(Ty::Array(out, elem.clone()))
        }
    }

    fn slice_size(
        &self,
        d: &Size,
        start: Option<&Exp>,
        end: Option<&Exp>,
        stride: Option<&Exp>,
    ) -> Size {
        let is_lit = |e: &Exp, v: u128| matches!(&strip(e).kind, ExpKind::Int(l) if l.value == v);
        let is_minus_one = |e: &Exp| matches!(&strip(e).kind, ExpKind::Neg(i) if is_lit(i, 1));
        match (start, end, stride) {
            (None, None, None) => d.clone(),
            (None, None, Some(s)) if is_minus_one(s) => d.clone(),
            (st, Some(e), None) if st.is_none_or(|s| is_lit(s, 0)) => match self.exp_to_size(e) {
                Some(s @ (Size::Named(..) | Size::Const(_))) => s,
                _ => Size::Unknown,
            },
            _ => Size::Unknown,
        }
    }
}
