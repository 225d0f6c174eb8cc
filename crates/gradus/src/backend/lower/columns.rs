//! Maps of column reductions, lowered with their loops interchanged.
//!
//! Takes a `map` whose lambda is a `redomap` of scalars reading a column of a matrix bound
//! outside it. Guarantees the results the map of reductions computes, every result folding
//! the same values in the same order, with the matrix read along its rows; with `parallel`,
//! blocks of results run in parallel. When two elements fail, another one may be reported
//! first.

use super::imp::{Ex, Stm as I, Ty};
use super::soac::store_scalars;
use super::{Lw, R};
use crate::core::ir::{Aux, BasicOp, DimIndex, Exp, Lambda, ScremaForm, Soac, SubExp, Type, Var};
use crate::core::scalar::PrimType;
use std::collections::HashSet;

/// The reduction of a map lowered by [`Lw::column_reduction`].
pub(super) struct ColumnReduction<'l> {
    w: &'l SubExp,
    map: &'l Lambda,
    arrays: &'l [Var],
    op: &'l Lambda,
    neutral: &'l [SubExp],
    aux: &'l Aux,
}

/// `map(n, \js -> redomap(m, f, op, ne, xs), ys)` whose lambda is only a reduction of
/// scalars over arrays bound outside it, where `f` reads an element of a row of `xs` at an
/// index the map's parameters give (a column of `xs`): loops interchanged, the rows of `xs`
/// are read along their length.
pub(super) fn column_reduction<'l>(
    lam: &'l Lambda,
    arrays: &[Var],
    pat: &[Var],
    ty: impl Fn(Var) -> &'l Type,
) -> Option<ColumnReduction<'l>> {
    let [stm] = &lam.body.stms[..] else {
        return None;
    };
    let Exp::Soac(Soac::Screma {
        w,
        map,
        arrays: xs,
        form,
    }) = &stm.exp
    else {
        return None;
    };
    let ScremaForm::Reduce {
        lam: op, neutral, ..
    } = &**form
    else {
        return None;
    };
    if map.ret.len() != neutral.len() {
        // A redomap with map results of its own.
        return None;
    }
    let outer: HashSet<Var> = lam.params.iter().copied().collect();
    let is_outer = |e: &SubExp| matches!(e, SubExp::Var(v) if outer.contains(v));
    let results_direct = lam.body.result.len() == stm.pat.len()
        && lam
            .body
            .result
            .iter()
            .zip(&stm.pat)
            .all(|(r, p)| *r == SubExp::Var(*p));
    let scalar_rows = pat
        .iter()
        .all(|p| matches!(ty(*p), Type::Array { dims, .. } if dims.len() == 1))
        && op.ret.iter().all(|t| matches!(t, Type::Prim(_)));
    let reads_column = map.body.stms.iter().any(|s| {
        matches!(&s.exp, Exp::BasicOp(BasicOp::Index { array, slice })
            if map.params.contains(array)
                && matches!(slice.last(), Some(DimIndex::Fix(j)) if is_outer(j)))
    });
    let independent = !is_outer(w)
        && !neutral.iter().any(is_outer)
        && !xs.iter().any(|x| outer.contains(x))
        && !arrays.iter().any(|a| matches!(ty(*a), Type::Acc { .. }));
    (results_direct && scalar_rows && reads_column && independent).then_some(ColumnReduction {
        w,
        map,
        arrays: xs,
        op,
        neutral,
        aux: &stm.aux,
    })
}

impl<'a> Lw<'a> {
    /// `map(n, \j -> redomap(m, f, op, ne, xs))` found by [`column_reduction`], with the loops
    /// interchanged: the results start as `ne`, and for each row `i` of `xs`, for each `j`,
    /// `res[j] = op(res[j], f(xs[i], j))`. Every result folds the same values in the same
    /// order as the map of reductions, but `f` reads `xs[i][j]` along rows instead of down
    /// columns (a column read touches one page per row). With `par`, [`CHUNKS`](super::CHUNKS) blocks of
    /// `j` run in parallel, each reading the rows of `xs` for its block.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn column_reduction(
        &mut self,
        pat: &[Var],
        n: &Ex,
        lam: &Lambda,
        arrays: &[Var],
        red: ColumnReduction<'_>,
        par: bool,
        out: &mut Vec<I>,
    ) -> R<()> {
        let m = self.width(red.w, red.arrays, red.aux, out);
        let results: Vec<(String, PrimType)> = pat
            .iter()
            .map(|p| (self.name(*p), self.ty(*p).elem()))
            .collect();
        let start: Vec<Ex> = red.neutral.iter().map(|ne| self.se(ne)).collect();
        out.push(I::Comment(
            "map of column reductions, loops interchanged".into(),
        ));
        // The block of results `lo..hi`, all rows of `xs`.
        let block = |s: &mut Self, lo: &str, hi: &str| -> R<Vec<I>> {
            let mut b = Vec::new();
            for ((arr, t), ne) in results.iter().zip(&start) {
                b.push(s.chunk_for(lo, hi, |_, j, init| {
                    init.push(I::Store {
                        elem: *t,
                        arr: arr.clone(),
                        idx: j.clone(),
                        val: ne.clone(),
                    });
                    Ok(())
                })?);
            }
            let i = s.fresh("i");
            let mut row = Vec::new();
            for (p, a) in red.map.params.iter().zip(red.arrays) {
                s.bind_row(*p, *a, &Ex::var(&i), &mut row);
            }
            let items = s.chunk_for(lo, hi, |s, j, item| {
                for (p, a) in lam.params.iter().zip(arrays) {
                    s.bind_row(*p, *a, j, item);
                }
                s.stms(&red.map.body, item)?;
                let mut args = s.load_scalars("acc", &results, j, item);
                for (r, t) in red.map.body.result.iter().zip(&red.map.ret) {
                    let v = s.fresh("mapped");
                    s.decl_named(&v, t, item);
                    s.assign_named(&v, t, r, item);
                    args.push((v, t.clone()));
                }
                s.end_scope(&red.map.body, item);
                let tys = results.iter().map(|(_, t)| Type::Prim(*t));
                let next = s.decl_fresh("nx", tys, item);
                s.apply(red.op, &args, &next, item)?;
                store_scalars(&results, j, &next, item);
                Ok(())
            })?;
            row.push(items);
            b.push(I::For {
                down: false,
                independent: false,
                var: i,
                bound: m.clone(),
                body: row,
                at: None,
            });
            Ok(b)
        };
        if par {
            let cost = Self::cost(&red.map.body) + Self::cost(&red.op.body);
            let work = Ex::times(Ex::times(n.clone(), m.clone()), Ex::int(cost));
            self.par_chunks(work, out, |s, c| {
                let mut b = Vec::new();
                let (lo, hi) = s.chunk_range(&Ex::var(c), n, &mut b);
                b.extend(block(s, &lo, &hi)?);
                Ok(b)
            })?;
        } else {
            let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
            for (name, v) in [(&lo, Ex::int(0)), (&hi, n.clone())] {
                out.push(I::Decl {
                    ty: Ty::Prim(PrimType::I64),
                    name: name.clone(),
                    init: Some(v),
                });
            }
            out.extend(block(self, &lo, &hi)?);
        }
        Ok(())
    }
}
