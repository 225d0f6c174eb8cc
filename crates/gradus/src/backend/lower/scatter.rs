//! `scatter` and `scattermap`.
//!
//! Takes destinations to consume and the positions and values to write. Guarantees the
//! destinations updated in place (copied first when shared), writes in input order (the
//! last write to a position wins), out-of-range positions ignored.

use super::imp::{Ex, Share, Stm as I, Ty};
use super::{Lw, R, convert, in_range};
use crate::core::ir::{Aux, Lambda, SubExp, Var};
use crate::core::scalar::PrimType;

impl<'a> Lw<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scatter(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        dests: &[Var],
        indices: Var,
        values: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.width(w, &[indices], aux, out);
        let ity = self.ty(indices).elem();
        let iname = self.name(indices);
        for ((d, v), p) in dests.iter().zip(values).zip(pat) {
            let dims = self.var_dims(*d);
            let elem = self.ty(*d).elem();
            let vdims = self.var_dims(*v);
            let mut want = vec![w.clone()];
            want.extend(dims[1..].iter().cloned());
            self.size_check(out, &vdims, &want, elem, String::new(), aux);
            let n = self.consume_unique(*d, out);
            let block = Ex::product(dims[1..].iter().cloned());
            let i = self.fresh("i");
            let k = self.fresh("k");
            let load = Ex::Load {
                elem: ity,
                arr: iname.clone(),
                idx: Box::new(Ex::var(&i)),
            };
            let write = if dims.len() == 1 {
                I::Store {
                    elem,
                    arr: n.clone(),
                    idx: Ex::var(&k),
                    val: Ex::Load {
                        elem,
                        arr: self.name(*v),
                        idx: Box::new(Ex::var(&i)),
                    },
                }
            } else {
                I::Copy {
                    elem,
                    dst: n.clone(),
                    dst_off: Ex::times(Ex::var(&k), block.clone()),
                    src: self.name(*v),
                    src_off: Ex::times(Ex::var(&i), block.clone()),
                    count: block.clone(),
                }
            };
            out.push(I::For {
                down: false,
                independent: false,
                var: i.clone(),
                bound: w.clone(),
                body: vec![
                    I::Decl {
                        ty: Ty::Prim(PrimType::I64),
                        name: k.clone(),
                        init: Some(convert(load, ity, PrimType::I64)),
                    },
                    I::If {
                        cond: in_range(Ex::var(&k), dims[0].clone()),
                        then: vec![write],
                        els: vec![],
                    },
                ],
                at: None,
            });
            out.push(I::SetArr {
                dst: self.name(*p),
                src: n,
                offset: Ex::int(0),
                share: Share::Move,
            });
        }
        Ok(())
    }

    /// `scattermap`: one loop computes each position and its values and writes them to every
    /// destination (scalar rows: see [`Lw::elems`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scattermap(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        dests: &[Var],
        map: &Lambda,
        arrays: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.width(w, arrays, aux, out);
        let dn: Vec<String> = dests.iter().map(|d| self.consume_unique(*d, out)).collect();
        let i = self.fresh("i");
        let mut body = Vec::new();
        let vals = self.elems(Some(map), arrays, &Ex::var(&i), &mut body)?;
        let Some(((k, _), values)) = vals.split_first() else {
            return Err("internal error: scattermap lambda returns no position".into());
        };
        if values.len() != dests.len() {
            return Err("internal error: scattermap has a value per destination".into());
        }
        for ((d, n), (v, _)) in dests.iter().zip(&dn).zip(values) {
            let n0 = self.var_dims(*d)[0].clone();
            body.push(I::If {
                cond: in_range(Ex::var(k), n0),
                then: vec![I::Store {
                    elem: self.ty(*d).elem(),
                    arr: n.clone(),
                    idx: Ex::var(k),
                    val: Ex::var(v),
                }],
                els: vec![],
            });
        }
        out.push(I::For {
            down: false,
            independent: false,
            var: i,
            bound: w,
            body,
            at: None,
        });
        self.move_results(pat, &dn, out);
        Ok(())
    }
}
