//! `hist` (`reduce_by_index`) and `histomap`.
//!
//! Takes destinations to consume, an operator and the source of the indices and values.
//! Guarantees the destinations updated in place (copied first when shared), out-of-range
//! indices ignored; sequential, or with `parallel` when the bins are scalars, few against the
//! width and the operator cannot fail, one private histogram per chunk merged bin by bin in
//! chunk order.

use super::imp::{Ex, Stm as I, Ty};
use super::soac::store_scalars;
use super::{Lw, PAR_CHUNK_MIN_WORK, R, and, bool_ex, convert, eq, in_range, le};
use crate::core::ir::{Aux, Lambda, SubExp, Type, Var};
use crate::core::scalar::PrimType;

/// Where a histogram's indices and values come from.
pub(super) enum HistSource<'l> {
    /// Arrays (`hist`).
    Arrays { indices: Var, values: &'l [Var] },
    /// A fused map over `arrays` returning the index and the values (`histomap`).
    Mapped { map: &'l Lambda, arrays: &'l [Var] },
}

impl<'a> Lw<'a> {
    /// `hist`/`reduce_by_index` (with a fused map, `histomap`): sequential, or on the
    /// multicore backend, when the bins are scalars and few against the width, one private
    /// histogram per chunk merged bin by bin into the destination in chunk order (the
    /// operator is associative and commutative; results do not depend on the thread count).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hist(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: &[SubExp],
        src: HistSource<'_>,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let inputs: Vec<Var> = match &src {
            HistSource::Arrays { indices, values } => std::iter::once(*indices)
                .chain(values.iter().copied())
                .collect(),
            HistSource::Mapped { arrays, .. } => arrays.to_vec(),
        };
        let w = self.width(w, &inputs, aux, out);
        let dn: Vec<String> = dests.iter().map(|d| self.consume_unique(*d, out)).collect();
        let i = self.fresh("i");
        let mut body = Vec::new();
        let targets: Vec<(String, Ex)> = dn.iter().map(|n| (n.clone(), Ex::int(0))).collect();
        self.hist_element(&Ex::var(&i), dests, &targets, lam, &src, &mut body)?;
        let seq = vec![I::For {
            down: false,
            independent: false,
            var: i,
            bound: w.clone(),
            body,
            at: None,
        }];
        let scalar_bins = dests.iter().all(|d| self.ty(*d).dims().len() == 1);
        // The merge applies the operator to pairs the sequential order never forms (a bin's
        // neutral element with another's), so an operator that can fail stays sequential.
        let safe_op = crate::core::safety::body_is_safe(
            &lam.body,
            &crate::core::safety::Ranges::default(),
            &self.prog.names,
        );
        if self.opts.parallel
            && !self.in_par
            && scalar_bins
            && safe_op
            && neutral.len() == dests.len()
        {
            let bins: Vec<Ex> = dests.iter().map(|d| self.var_dims(*d)[0].clone()).collect();
            let cost = Self::cost(&lam.body)
                + match &src {
                    HistSource::Mapped { map, .. } => Self::cost(&map.body),
                    HistSource::Arrays { .. } => 0,
                };
            let mut par = Vec::new();
            self.par_hist(&w, cost, dests, &dn, &bins, lam, neutral, &src, &mut par)?;
            // Private histograms pay off when the input is large and they are small
            // against it; the test depends on sizes only, not on the thread count.
            let mut cond = and(
                le(
                    Ex::var(PAR_CHUNK_MIN_WORK),
                    Ex::times(w.clone(), Ex::int(cost)),
                ),
                le(
                    Ex::times(bins[0].clone(), Ex::int(self.opts.chunks)),
                    w.clone(),
                ),
            );
            for b in &bins[1..] {
                cond = and(cond, eq(b.clone(), bins[0].clone()));
            }
            out.push(I::If {
                cond,
                then: par,
                els: seq,
            });
        } else {
            out.extend(seq);
        }
        self.move_results(pat, &dn, out);
        Ok(())
    }

    /// Element `iv` of a `hist`: its bin, and when the bin is in range, the operator applied
    /// to the bin's contents and the element's values. Bin `b` of destination `j` is row
    /// `offset_j + b` of `targets[j]` (scalar bins; array bins are used with offset 0).
    fn hist_element(
        &mut self,
        iv: &Ex,
        dests: &[Var],
        targets: &[(String, Ex)],
        lam: &Lambda,
        src: &HistSource<'_>,
        body: &mut Vec<I>,
    ) -> R<()> {
        let bin = self.fresh("bin");
        // The values of a fused map are computed with the index, before the range test.
        let mut mapped_values = None;
        let bin_value = match src {
            HistSource::Arrays { indices, .. } => {
                let ity = self.ty(*indices).elem();
                let load = Ex::Load {
                    elem: ity,
                    arr: self.name(*indices),
                    idx: Box::new(iv.clone()),
                };
                convert(load, ity, PrimType::I64)
            }
            HistSource::Mapped { map, arrays } => {
                let mut vals = self.elems(Some(map), arrays, iv, body)?;
                if vals.is_empty() {
                    return Err("internal error: histomap lambda returns no index".into());
                }
                let (index, _) = vals.remove(0);
                mapped_values = Some(vals);
                Ex::var(&index)
            }
        };
        body.push(I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: bin.clone(),
            init: Some(bin_value),
        });
        let mut cond = bool_ex(true);
        for d in dests {
            let d0 = self.var_dims(*d)[0].clone();
            cond = and(cond, in_range(Ex::var(&bin), d0));
        }
        let mut then = Vec::new();
        // Current bin contents, then the values.
        let mut args = Vec::new();
        let mut binrows = Vec::new();
        for (d, (n, offset)) in dests.iter().zip(targets) {
            let row = self.ty(*d).row();
            let r = self.fresh("cur");
            self.decl_named(&r, &row, &mut then);
            let block = Ex::product(self.dims(row.dims()));
            let at = Ex::plus(offset.clone(), Ex::var(&bin));
            self.read_row(&r, n, &row, &at, &mut then);
            args.push((r, row.clone()));
            binrows.push((row, block, at));
        }
        match src {
            HistSource::Arrays { values, .. } => args.extend(self.rows(values, iv, &mut then)),
            HistSource::Mapped { .. } => args.extend(mapped_values.take().unwrap_or_default()),
        }
        let tys = binrows.iter().map(|(row, _, _)| row.clone());
        let nexts = self.decl_fresh("new", tys, &mut then);
        self.apply(lam, &args, &nexts, &mut then)?;
        for (((n, row), (_, block, at)), (d, (dname, _))) in
            nexts.iter().zip(&binrows).zip(dests.iter().zip(targets))
        {
            let elem = self.ty(*d).elem();
            match row {
                Type::Prim(_) => then.push(I::Store {
                    elem,
                    arr: dname.clone(),
                    idx: at.clone(),
                    val: Ex::var(n),
                }),
                _ => {
                    then.push(I::Copy {
                        elem,
                        dst: dname.clone(),
                        dst_off: Ex::times(at.clone(), block.clone()),
                        src: n.clone(),
                        src_off: Ex::int(0),
                        count: block.clone(),
                    });
                    then.push(I::Decref(n.clone()));
                }
            }
        }
        body.push(I::If {
            cond,
            then,
            els: vec![],
        });
        Ok(())
    }

    /// The parallel `hist` of [`Self::hist`]: chunk `c` of the input fills its private
    /// histogram (row `c` of a `CHUNKS × bins` array per destination, from the neutral
    /// element), then blocks of bins are merged in parallel, each bin folding the chunks'
    /// histograms into the destination in chunk order.
    #[allow(clippy::too_many_arguments)]
    fn par_hist(
        &mut self,
        w: &Ex,
        cost: i64,
        dests: &[Var],
        dn: &[String],
        bins: &[Ex],
        lam: &Lambda,
        neutral: &[SubExp],
        src: &HistSource<'_>,
        out: &mut Vec<I>,
    ) -> R<()> {
        let elems: Vec<PrimType> = dests.iter().map(|d| self.ty(*d).elem()).collect();
        let nbins = bins[0].clone();
        let count = Ex::times(Ex::int(self.opts.chunks), nbins.clone());
        let subs = self.alloc_scratch("sub", &elems, &count, out);
        let neutral_ex: Vec<Ex> = neutral.iter().map(|n| self.se(n)).collect();
        let work = Ex::times(w.clone(), Ex::int(cost));
        self.par_chunks(work, out, |s, c| {
            let mut b = Vec::new();
            let base = Ex::times(Ex::var(c), nbins.clone());
            for ((sub, t), ne) in subs.iter().zip(&elems).zip(&neutral_ex) {
                b.push(s.counted_loop("k", nbins.clone(), |k| I::Store {
                    elem: *t,
                    arr: sub.clone(),
                    idx: Ex::plus(base.clone(), k),
                    val: ne.clone(),
                }));
            }
            let (lo, hi) = s.chunk_range(&Ex::var(c), w, &mut b);
            let targets: Vec<(String, Ex)> =
                subs.iter().map(|sub| (sub.clone(), base.clone())).collect();
            let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                s.hist_element(i, dests, &targets, lam, src, inner)
            })?;
            b.push(items);
            Ok(b)
        })?;
        let work = Ex::times(
            Ex::times(nbins.clone(), Ex::int(self.opts.chunks)),
            Ex::int(Self::cost(&lam.body)),
        );
        self.par_chunks(work, out, |s, c| {
            let mut b = Vec::new();
            let (lo, hi) = s.chunk_range(&Ex::var(c), &nbins, &mut b);
            let sub_arrays: Vec<(String, PrimType)> =
                subs.iter().cloned().zip(elems.clone()).collect();
            let dest_arrays: Vec<(String, PrimType)> =
                dn.iter().cloned().zip(elems.clone()).collect();
            let bins = s.chunk_for(&lo, &hi, |s, bin, per_bin| {
                let accs = s.load_scalars("acc", &dest_arrays, bin, per_bin);
                let k = s.fresh("k");
                let mut fold = Vec::new();
                let mut args = accs.clone();
                let at = Ex::plus(Ex::times(Ex::var(&k), nbins.clone()), bin.clone());
                args.extend(s.load_scalars("pv", &sub_arrays, &at, &mut fold));
                s.apply(lam, &args, &accs, &mut fold)?;
                per_bin.push(I::For {
                    down: false,
                    independent: false,
                    var: k,
                    bound: Ex::int(s.opts.chunks),
                    body: fold,
                    at: None,
                });
                store_scalars(&dest_arrays, bin, &accs, per_bin);
                Ok(())
            })?;
            b.push(bins);
            Ok(b)
        })?;
        for s in subs {
            out.push(I::Decref(s));
        }
        Ok(())
    }
}
