//! Return sweep of `scatter dest is vs` (SC'22, rule for `scatter`; docs/language.md §Array
//! operations).
//!
//! Forward sweep: the `scatter` is emitted as it is. Nothing is saved: the result is linear in
//! `dest` and `vs` (each position holds either its original element or one written value), so
//! the adjoint needs only the indices, which are in scope, never the overwritten elements.
//!
//! Return sweep: a sequential loop over the writes from the last to the first reads
//! `ȳ[is[j]]` into `vs̄[j]` and zeroes that position of `ȳ`. A position written several times
//! holds the last write (the language's rule), and the loop meets that write first, so only it
//! gets the adjoint; after the loop, `ȳ` with every written position zeroed is `dest`'s adjoint.
//! Out-of-range writes get zero. `O(w)` work (`ȳ` is updated in place, copied first unless the
//! adjoint is owned).

use super::{Diagnostic, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Exp, LoopForm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::PrimType;

impl Vjp<'_> {
    pub(super) fn rev_scatter(
        &mut self,
        w: SubExp,
        dests: &[Var],
        indices: Var,
        values: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        for ((dest, vals), yb) in dests.iter().zip(values).zip(ybars) {
            let Some((SubExp::Var(yb), owned)) = *yb else {
                continue;
            };
            if !self.active.contains(dest) && !self.active.contains(vals) {
                continue;
            }
            let yb = if owned {
                yb
            } else {
                self.e.basic(BasicOp::Copy(yb), "adj")
            };
            let vt = self.e.names.ty(*vals).clone();
            let vb0 = match self.zero(&vt) {
                SubExp::Var(v) => v,
                _ => return Err(Diagnostic::bug("scatter values that are not an array")),
            };
            let m = self.e.names.ty(*dest).dims()[0];
            let mu = self
                .e
                .prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![m]);
            // From the last write to the first: the first one seen wins.
            let p_yb = self.e.fresh("scatter_adj", self.e.names.ty(yb).clone());
            let p_vb = self.e.fresh("vals_adj", vt.clone());
            let jj = self.e.fresh("j", Type::Prim(PrimType::I64));
            let (stms, res) = self.nested(|v| {
                let last = v.e.i64_bin(BinOp::Sub, w, SubExp::i64(1));
                let j = v.e.i64_bin(BinOp::Sub, last, jj.into());
                let b = v.read(indices, j, "b");
                let bu =
                    v.e.prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![b]);
                let ok =
                    v.e.prim(PrimOp::Cmp(CmpOp::Lt, PrimType::U64), vec![bu, mu]);
                let r = v.try_if(
                    ok,
                    |v| {
                        let got = v.read(p_yb, b, "got");
                        let vb = v.write(p_vb, j, got, "vals_adj");
                        let z = v.zero(&vt.row());
                        let yb2 = v.write(p_yb, b, z, "scatter_adj");
                        Ok(vec![yb2, vb])
                    },
                    |_| Ok(vec![SubExp::Var(p_yb), SubExp::Var(p_vb)]),
                    "adj",
                )?;
                Ok(r.into_iter().map(SubExp::Var).collect::<Vec<_>>())
            })?;
            let out = self.e.bind_exp(
                Exp::Loop {
                    params: vec![(p_yb, SubExp::Var(yb)), (p_vb, SubExp::Var(vb0))],
                    form: LoopForm::For { i: jj, bound: w },
                    body: crate::core::ir::Body { stms, result: res },
                },
                "scatter_adj",
            );
            self.add_adj(*vals, SubExp::Var(out[1]), true)?;
            self.add_adj(*dest, SubExp::Var(out[0]), true)?;
        }
        Ok(())
    }
}
