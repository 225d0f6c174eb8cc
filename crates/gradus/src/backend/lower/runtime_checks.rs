//! Run-time checks: error sites and the `Check` statements for sizes and SOAC widths (bounds
//! checks are in [`super::slice`]).
//!
//! Takes the operands of a check as index expressions and the statement's [`Aux`] (its
//! locations). Guarantees that with `safe` every failing check reports the interpreter's
//! message at the statement's locations (one [`Site`] per check), and that without it only
//! the checks the caller emits unconditionally (negative counts) remain.

use super::imp::{Ex, Site, SiteKind, Stm as I};
use super::{Lw, and, bool_ex, eq};
use crate::core::ir::{Aux, SubExp, Type, Var};
use crate::core::scalar::PrimType;

impl<'a> Lw<'a> {
    pub(super) fn site(&mut self, kind: SiteKind, aux: &Aux) -> usize {
        let locations = std::iter::once(&aux.span)
            .chain(&aux.callers)
            .map(|s| self.sources.location(*s))
            .collect();
        self.sites.push(Site { kind, locations });
        self.sites.len() - 1
    }

    /// A check that stays in unsafe mode only when `always`.
    pub(super) fn check(
        &mut self,
        out: &mut Vec<I>,
        cond: Ex,
        kind: SiteKind,
        args: Vec<Ex>,
        aux: &Aux,
    ) {
        if !self.opts.safe || cond == bool_ex(true) {
            return;
        }
        let site = self.site(kind, aux);
        out.push(I::Check { cond, site, args });
    }

    /// A size check: `actual` must equal `required` (dimension by dimension).
    pub(super) fn size_check(
        &mut self,
        out: &mut Vec<I>,
        actual: &[Ex],
        required: &[Ex],
        elem: PrimType,
        text: String,
        aux: &Aux,
    ) {
        if actual.len() != required.len() {
            return;
        }
        let cond = actual
            .iter()
            .zip(required)
            .fold(bool_ex(true), |c, (a, r)| and(c, eq(a.clone(), r.clone())));
        let mut args = actual.to_vec();
        args.extend_from_slice(required);
        self.check(
            out,
            cond,
            SiteKind::Size {
                actual: actual.len(),
                required: required.len(),
                elem,
                text,
            },
            args,
            aux,
        );
    }

    /// The width `w` of a SOAC, after checking that every array of `inputs` has it as its
    /// outer size (accumulators have none).
    pub(super) fn width(&mut self, w: &SubExp, inputs: &[Var], aux: &Aux, out: &mut Vec<I>) -> Ex {
        let w = self.ix(w);
        for &a in inputs {
            if !matches!(self.ty(a), Type::Array { .. }) {
                continue;
            }
            let dims = self.var_dims(a);
            let mut want = vec![w.clone()];
            want.extend(dims[1..].iter().cloned());
            let elem = self.ty(a).elem();
            self.size_check(out, &dims, &want, elem, String::new(), aux);
        }
        w
    }
}
