//! SOACs: `map`, `reduce`, `scan`, `reduce_by_index` and `scatter`.
//!
//! Takes function values and (flattened) arrays. Guarantees the functions become core lambdas,
//! built by inlining the function on the lambda's parameters, so SOACs are the only place
//! lambdas survive internalisation.

use super::value::IVal;
use super::{Internaliser, R, i64c, limitation};
use crate::core::ir::{Lambda, Soac, SubExp, Type, Var};
use crate::diag::Span;

impl<'a> Internaliser<'a> {
    /// Applies `f` inside a lambda whose parameters are rows of the leaves of `arrays`.
    pub(super) fn map(&mut self, f: IVal, arrays: Vec<IVal>, span: Span) -> R<IVal> {
        self.map_with(arrays, span, |s, rows| s.apply(f, rows, span))
    }

    /// A `map` whose lambda body `body` builds from the rows of `arrays`.
    pub(super) fn map_with(
        &mut self,
        arrays: Vec<IVal>,
        span: Span,
        body: impl FnOnce(&mut Self, Vec<IVal>) -> R<IVal>,
    ) -> R<IVal> {
        let input = IVal::tuple(arrays.clone());
        let leaves = input.leaves();
        let Some(first) = leaves.first() else {
            return Err(limitation(span, "`map` over arrays of empty records"));
        };
        let w = self.em.dims(first).first().copied().unwrap_or(i64c(0));
        let row_types: Vec<Type> = leaves.iter().map(|l| self.em.ty(l).row()).collect();
        let params: Vec<Var> = row_types
            .iter()
            .map(|t| self.em.fresh("x", t.clone()))
            .collect();
        let rows: Vec<IVal> = arrays
            .iter()
            .scan(params.iter().map(|p| SubExp::Var(*p)), |it, a| {
                Some(a.rebuild(it))
            })
            .collect();
        let (res, body) = self.body_of(|s| body(s, rows))?;
        if res.has_function() {
            return Err(limitation(span, "`map` producing functions"));
        }
        let arrays: Vec<Var> = leaves.iter().map(|l| self.em.as_var(*l, "const")).collect();
        let (res, body) = self.outer_result_sizes(w, &arrays, &params, body, res)?;
        let ret: Vec<Type> = body.result.iter().map(|l| self.em.ty(l)).collect();
        let lam = Lambda {
            params,
            body,
            ret: ret.clone(),
        };
        let types = ret.iter().map(|t| t.array_of(w)).collect();
        let outs = self.em.soac(Soac::Map { w, lam, arrays }, types, "map_res");
        Ok(res.rebuild(&mut outs.into_iter()))
    }

    /// A lambda of `2k` parameters applying the binary operator `op` to two values shaped
    /// like `shape` (whose leaves have types `types`).
    fn operator_lambda(&mut self, op: IVal, shape: &IVal, types: &[Type], span: Span) -> R<Lambda> {
        let params: Vec<Var> = types
            .iter()
            .chain(types.iter())
            .map(|t| self.em.fresh("acc", t.clone()))
            .collect();
        let k = types.len();
        let x = shape.rebuild(&mut params[..k].iter().map(|p| SubExp::Var(*p)));
        let y = shape.rebuild(&mut params[k..].iter().map(|p| SubExp::Var(*p)));
        let (_, body) = self.body_of(|s| s.apply(op, vec![x, y], span))?;
        Ok(Lambda {
            params,
            body,
            ret: types.to_vec(),
        })
    }

    pub(super) fn reduce(
        &mut self,
        op: IVal,
        ne: IVal,
        xs: IVal,
        commutative: bool,
        span: Span,
    ) -> R<IVal> {
        let (w, lam, arrays) = self.reduction_parts(op, &ne, &xs, span)?;
        let types = lam.ret.clone();
        let outs = self.em.soac(
            Soac::Reduce {
                w,
                lam,
                neutral: ne.leaves(),
                arrays,
                commutative,
            },
            types,
            "reduce_res",
        );
        Ok(ne.rebuild(&mut outs.into_iter()))
    }

    pub(super) fn scan(&mut self, op: IVal, ne: IVal, xs: IVal, span: Span) -> R<IVal> {
        let (w, lam, arrays) = self.reduction_parts(op, &ne, &xs, span)?;
        let out_types = xs.leaves().iter().map(|l| self.em.ty(l)).collect();
        let outs = self.em.soac(
            Soac::Scan {
                w,
                lam,
                neutral: ne.leaves(),
                arrays,
            },
            out_types,
            "scan_res",
        );
        Ok(xs.rebuild(&mut outs.into_iter()))
    }

    /// What `reduce` and `scan` of the arrays `xs` with operator `op` and neutral element
    /// `ne` share: the width, the operator as a lambda on rows, and the arrays.
    fn reduction_parts(
        &mut self,
        op: IVal,
        ne: &IVal,
        xs: &IVal,
        span: Span,
    ) -> R<(SubExp, Lambda, Vec<Var>)> {
        let leaves = xs.leaves();
        let w = leaves
            .first()
            .and_then(|l| self.em.dims(l).first().copied())
            .unwrap_or(i64c(0));
        let types: Vec<Type> = leaves.iter().map(|l| self.em.ty(l).row()).collect();
        let lam = self.operator_lambda(op, ne, &types, span)?;
        let arrays = leaves.iter().map(|l| self.em.as_var(*l, "const")).collect();
        Ok((w, lam, arrays))
    }

    /// `reduce_by_index dest op ne is vs`: `dest` with the values `vs` combined by `op` into
    /// the elements at the indices `is`.
    pub(super) fn hist(
        &mut self,
        dest: IVal,
        op: IVal,
        ne: IVal,
        is: IVal,
        vs: IVal,
        span: Span,
    ) -> R<IVal> {
        self.update_at_indices(dest, Some((op, ne)), is, vs, span)
    }

    /// `scatter dest is vs`: `dest` with the elements at the indices `is` replaced by `vs`.
    pub(super) fn scatter(&mut self, dest: IVal, is: IVal, vs: IVal, span: Span) -> R<IVal> {
        self.update_at_indices(dest, None, is, vs, span)
    }

    /// The SOAC behind `reduce_by_index` (`combine` = `Some((op, ne))`) and `scatter`
    /// (`None`): both write values at indices into the destination arrays, which they consume.
    fn update_at_indices(
        &mut self,
        dest: IVal,
        combine: Option<(IVal, IVal)>,
        is: IVal,
        vs: IVal,
        span: Span,
    ) -> R<IVal> {
        let is = self.leaf(&is, span)?;
        let w = self.em.dims(&is).first().copied().unwrap_or(i64c(0));
        let dests: Vec<Var> = dest
            .leaves()
            .into_iter()
            .map(|l| self.em.as_var(l, "const"))
            .collect();
        let combine = match combine {
            Some((op, ne)) => {
                let types: Vec<Type> = dests.iter().map(|d| self.em.names.ty(*d).row()).collect();
                Some((self.operator_lambda(op, &ne, &types, span)?, ne))
            }
            None => None,
        };
        // The values have the indices' outer size (the checker unified the two sizes, but each
        // size expression was evaluated on its own, so they may be different variables; checked
        // at run time where they are not the same).
        let vs = self.coerce_outer(vs, w)?;
        let values = vs
            .leaves()
            .into_iter()
            .map(|l| self.em.as_var(l, "const"))
            .collect();
        let out_types = dests.iter().map(|d| self.em.names.ty(*d).clone()).collect();
        let indices = self.em.as_var(is, "const");
        let (hint, soac) = match combine {
            Some((lam, ne)) => (
                "hist_res",
                Soac::Hist {
                    w,
                    dests,
                    lam,
                    neutral: ne.leaves(),
                    indices,
                    values,
                },
            ),
            None => (
                "scatter_res",
                Soac::Scatter {
                    w,
                    dests,
                    indices,
                    values,
                },
            ),
        };
        let outs = self.em.soac(soac, out_types, hint);
        Ok(dest.rebuild(&mut outs.into_iter()))
    }
}
