//! `map`.
//!
//! Takes a `map` whose results are arrays or accumulators passed through. Guarantees one
//! loop over the width writing each result row straight into freshly allocated outputs; with
//! `parallel`, the outermost map is a parallel loop whose accumulator updates are atomic or go
//! to per-thread copies (see [`imp::Stm::ParFor`]); a map of column reductions is lowered by
//! [`super::columns`].

use super::columns::column_reduction;
use super::imp::{self, Ex, Stm as I};
use super::{Lw, R};
use crate::core::ir::{Aux, Lambda, SubExp, Type, Var};

impl<'a> Lw<'a> {
    pub(super) fn map(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        lam: &Lambda,
        arrays: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.width(w, arrays, aux, out);
        // Outputs: fresh arrays, or the accumulators passed through.
        let mut accs_in = arrays
            .iter()
            .filter(|a| matches!(self.ty(**a), Type::Acc { .. }))
            .copied()
            .collect::<Vec<_>>()
            .into_iter();
        for &p in pat {
            match self.ty(p) {
                Type::Acc { .. } => {
                    if let Some(a) = accs_in.next() {
                        self.assign(p, &SubExp::Var(a), out);
                    }
                }
                Type::Array { elem, dims } => {
                    let count = Ex::product(self.dims(dims));
                    out.push(I::Alloc {
                        arr: self.name(p),
                        elem: *elem,
                        count,
                    });
                }
                Type::Prim(_) => return Err("internal error: map result is a scalar".into()),
            }
        }
        if lam.params.len() != arrays.len() || lam.body.result.len() != pat.len() {
            return Err("internal error: map lambda does not fit its inputs".into());
        }
        let par = self.opts.parallel && !self.in_par;
        if let Some(red) = column_reduction(lam, arrays, pat, |v| self.ty(v)) {
            return self.column_reduction(pat, &w, lam, arrays, red, par, out);
        }
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let body = self.in_parallel(par, |s| -> R<Vec<I>> {
            let mut b = Vec::new();
            for (p, a) in lam.params.iter().zip(arrays) {
                s.bind_row(*p, *a, &iv, &mut b);
            }
            s.stms(&lam.body, &mut b)?;
            for (d, r) in pat.iter().zip(&lam.body.result) {
                if !matches!(s.ty(*d), Type::Acc { .. }) {
                    s.write_row(*d, r, &iv, aux, &mut b);
                }
            }
            s.end_scope(&lam.body, &mut b);
            Ok(b)
        })?;
        if par {
            let work = Ex::times(w.clone(), Ex::int(Self::cost(&lam.body)));
            let private = self.privatisable(lam, arrays);
            let private_body = if private.is_empty() {
                Vec::new()
            } else {
                imp::without_atomics(&body)
            };
            out.push(I::ParFor {
                var: i,
                bound: w,
                work,
                body,
                private,
                private_body,
            });
        } else {
            out.push(I::For {
                var: i,
                bound: w,
                body,
            });
        }
        Ok(())
    }
}
