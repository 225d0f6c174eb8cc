//! How a parallel `reduce` or `scan` is split into chunks and how the chunks' partial results
//! are combined ([`Combine`]), and the mark that lets the C compiler vectorise a loop of float
//! sums ([`SIMD_SUM`]): a `reduce (+)`, or a sequential `loop` that only carries sums.
//!
//! Takes the partial results of a reduction's chunks, in order. Guarantees their combination
//! in that order with the reduction's operator (only assumed associative, never commutative),
//! the split and the grouping depending on the width only, so results do not vary from run to
//! run: in one sequential loop ([`Combine::InOrder`]), or in two levels where a GPU runs the
//! chunks ([`Combine::TwoLevel`]): groups of consecutive partial results combined in parallel
//! (by trees in work-groups' local memory where the operator allows, see
//! [`super::group_tree`]; otherwise one work-item folding each group), then the groups'
//! results in one loop; for a scan each partial result is left replaced by its exclusive
//! prefix.

use super::imp::{Ex, Stm as I, Ty};
use super::soac::store_scalars;
use super::{Combine, GPU_COMBINE_GROUPS, GPU_REDUCE_CHUNKS, Lw, R, lt};
use crate::core::ir::{BasicOp, Body, Exp, Lambda, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;

/// The prefix of the comment in the body of a loop of float sums (see `Lw::simd_sum_mark`),
/// followed by the accumulators' names.
pub const SIMD_SUM: &str = "simd-sum ";

/// The prefix of the comment in the body of a sequential loop that carries only float sums
/// of one type (see `Lw::loop_sum_mark`), followed by that type (`f32` or `f64`) and the
/// accumulators' names: the C printer runs such a loop in lanes.
pub const LANE_SUM: &str = "lane-sum ";

impl Lw<'_> {
    /// The mark ([`SIMD_SUM`]) that makes the first statement of a loop body whose only
    /// carried values are the float accumulators `accs`, each combined with its element by
    /// `lam` as `acc + x` (or `x + acc`): the C printer may then let the C compiler vectorise
    /// the loop's sums (reassociating those additions only). `None` with exact floats or any
    /// other operator.
    pub(super) fn simd_sum_mark(&self, lam: &Lambda, accs: &[String]) -> Option<I> {
        if !self.opts.reorder_floats || accs.is_empty() || lam.params.len() != 2 * accs.len() {
            return None;
        }
        let k = accs.len();
        let stms = &lam.body.stms;
        let sums = stms.len() == k
            && stms.iter().enumerate().all(|(j, s)| {
                let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Add, t), args)) = &s.exp else {
                    return false;
                };
                let (a, b) = (SubExp::Var(lam.params[j]), SubExp::Var(lam.params[j + k]));
                t.is_float()
                    && s.pat.len() == 1
                    && lam.body.result.get(j) == Some(&SubExp::Var(s.pat[0]))
                    && (args[..] == [a, b] || args[..] == [b, a])
            });
        sums.then(|| I::Comment(format!("{SIMD_SUM}{}", accs.join(" "))))
    }

    /// The mark ([`LANE_SUM`]) for a sequential `for` loop with parameters `params` and body
    /// `body` that carries nothing but float sums of one type (`f32` or `f64`): every
    /// parameter `p` is read once in the body, in a statement `r = p + e` (or `e + p`), and
    /// that `r`, used nowhere else, is `p`'s next value. No iteration then sees a partial
    /// sum, so the loop is a `reduce (+)` over the `e`s and may be reassociated as one
    /// (GMM's triangular `loop acc = 0 for c < r + 1 do acc + q[r, c] * v[c]`). The caller
    /// marks only independent loops (see [`super::independent`]): no inner loop, no
    /// allocation, no memory written that another iteration reads. `None` with exact floats
    /// or for any other loop.
    pub(super) fn loop_sum_mark(&self, params: &[(Var, SubExp)], body: &Body) -> Option<I> {
        let ty = match params.first().map(|(p, _)| self.ty(*p)) {
            Some(Type::Prim(t @ (PrimType::F32 | PrimType::F64))) => *t,
            _ => return None,
        };
        if !self.opts.reorder_floats || body.result.len() != params.len() {
            return None;
        }
        let uses = crate::core::visit::use_counts(&self.prog.names, body);
        let once = |v: Var| uses.get(&v) == Some(&1);
        let sums = params.iter().zip(&body.result).all(|((p, _), r)| {
            let SubExp::Var(r) = r else { return false };
            let summed = body.stms.iter().any(|s| {
                let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Add, t), args)) = &s.exp else {
                    return false;
                };
                *t == ty && s.pat[..] == [*r] && args.contains(&SubExp::Var(*p))
            });
            *self.ty(*p) == Type::Prim(ty) && summed && once(*p) && once(*r)
        });
        let accs: Vec<String> = params.iter().map(|(p, _)| self.name(*p)).collect();
        sums.then(|| I::Comment(format!("{LANE_SUM}{ty} {}", accs.join(" "))))
    }

    /// The number of chunks a parallel reduction of `w` elements is split into (see
    /// [`Combine`]): a constant, or declared here as `min(w, most)`.
    pub(super) fn chunk_count(&mut self, w: &Ex, out: &mut Vec<I>) -> Ex {
        match self.opts.combine {
            Combine::InOrder => Ex::int(self.opts.chunks),
            Combine::TwoLevel => self.declare_min("nchunks", w, Ex::var(GPU_REDUCE_CHUNKS), out),
        }
    }

    /// Declares a fresh `i64` named after `hint`: the smaller of `a` and `b`.
    fn declare_min(&mut self, hint: &str, a: &Ex, b: Ex, out: &mut Vec<I>) -> Ex {
        let name = self.fresh(hint);
        out.push(I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: name.clone(),
            init: Some(Ex::Prim(
                PrimOp::Bin(BinOp::Min, PrimType::I64),
                vec![a.clone(), b],
            )),
        });
        Ex::var(&name)
    }

    /// Combines the `count` partial results in `parts` in order with `lam` from `neutral`,
    /// returning the total (declared scalars); for a `scan`, also replaces each partial result
    /// by the combination of those before it (its exclusive prefix). [`Combine::InOrder`]:
    /// one sequential loop. [`Combine::TwoLevel`]: groups of consecutive partial results
    /// combined in parallel (each left holding exclusive prefixes within its group), the
    /// groups' results combined by one sequential loop, and for a scan each group's prefix
    /// combined with its partial results in parallel.
    pub(super) fn combine_parts(
        &mut self,
        lam: &Lambda,
        neutral: &[Ex],
        parts: &[(String, PrimType)],
        count: &Ex,
        scan: bool,
        out: &mut Vec<I>,
    ) -> R<Vec<(String, Type)>> {
        if self.opts.combine == Combine::InOrder {
            return self.combine_in_order(lam, neutral, parts, count, scan, out);
        }
        if !scan && let Some((gparts, ngroups)) = self.group_tree(lam, parts, count, out)? {
            let total = self.combine_in_order(lam, neutral, &gparts, &ngroups, false, out)?;
            for (g, _) in gparts {
                out.push(I::Decref(g));
            }
            return Ok(total);
        }
        let groups = Ex::var(GPU_COMBINE_GROUPS);
        let tys: Vec<PrimType> = parts.iter().map(|(_, t)| *t).collect();
        let ngroups = self.declare_min("ngroups", count, groups, out);
        let gnames = self.alloc_scratch("gpart", &tys, &ngroups, out);
        let gparts: Vec<(String, PrimType)> = gnames.iter().cloned().zip(tys.clone()).collect();
        let work = Ex::times(count.clone(), Ex::int(Self::cost(&lam.body)));
        self.par_chunks_of(&ngroups, work.clone(), out, |s, d| {
            let mut b = Vec::new();
            let (lo, hi) = s.chunk_range_of(&Ex::var(d), count, &ngroups, &mut b);
            let accs = s.init_scalars("acc", &tys, &|j| neutral[j].clone(), &mut b);
            let items = s.chunk_for(&lo, &hi, |s, c, inner| {
                s.fold_part(lam, &accs, parts, c, scan, inner)
            })?;
            b.push(items);
            store_scalars(&gparts, &Ex::var(d), &accs, &mut b);
            Ok(b)
        })?;
        let total = self.combine_in_order(lam, neutral, &gparts, &ngroups, scan, out)?;
        if scan {
            self.par_chunks_of(&ngroups, work, out, |s, d| {
                let mut b = Vec::new();
                let (lo, hi) = s.chunk_range_of(&Ex::var(d), count, &ngroups, &mut b);
                let prefix = s.load_scalars("pre", &gparts, &Ex::var(d), &mut b);
                b.push(s.combine_prefix(lam, &prefix, parts, (&lo, &hi))?);
                Ok(vec![I::If {
                    cond: lt(Ex::int(0), Ex::var(d)),
                    then: b,
                    els: vec![],
                }])
            })?;
        }
        for g in gnames {
            out.push(I::Decref(g));
        }
        Ok(total)
    }

    /// One sequential loop combining the `count` partial results in `parts` in order with
    /// `lam` from `neutral` (for a `scan`, leaving each one's exclusive prefix in its place);
    /// returns the total.
    fn combine_in_order(
        &mut self,
        lam: &Lambda,
        neutral: &[Ex],
        parts: &[(String, PrimType)],
        count: &Ex,
        scan: bool,
        out: &mut Vec<I>,
    ) -> R<Vec<(String, Type)>> {
        let tys: Vec<PrimType> = parts.iter().map(|(_, t)| *t).collect();
        let accs = self.init_scalars("tot", &tys, &|j| neutral[j].clone(), out);
        let c = self.fresh("c");
        let mut body = Vec::new();
        self.fold_part(lam, &accs, parts, &Ex::var(&c), scan, &mut body)?;
        out.push(I::For {
            down: false,
            independent: false,
            var: c,
            bound: count.clone(),
            body,
            at: None,
        });
        Ok(accs)
    }

    /// Combines partial result `c` of `parts` into the accumulators `accs` with `lam`; for a
    /// `scan`, first stores the accumulators in its place (its exclusive prefix).
    fn fold_part(
        &mut self,
        lam: &Lambda,
        accs: &[(String, Type)],
        parts: &[(String, PrimType)],
        c: &Ex,
        scan: bool,
        out: &mut Vec<I>,
    ) -> R<()> {
        let mut args = accs.to_vec();
        args.extend(self.load_scalars("pv", parts, c, out));
        if scan {
            store_scalars(parts, c, accs, out);
        }
        self.apply(lam, &args, accs, out)
    }

    /// A loop over the items `lo..hi` of `arrays` replacing each by `lam` of `prefix` and it.
    pub(super) fn combine_prefix(
        &mut self,
        lam: &Lambda,
        prefix: &[(String, Type)],
        arrays: &[(String, PrimType)],
        (lo, hi): (&str, &str),
    ) -> R<I> {
        self.chunk_for(lo, hi, |s, i, inner| {
            let mut args = prefix.to_vec();
            args.extend(s.load_scalars("x", arrays, i, inner));
            let tys = arrays.iter().map(|(_, t)| Type::Prim(*t));
            let combined = s.decl_fresh("r", tys, inner);
            s.apply(lam, &args, &combined, inner)?;
            store_scalars(arrays, i, &combined, inner);
            Ok(())
        })
    }
}
