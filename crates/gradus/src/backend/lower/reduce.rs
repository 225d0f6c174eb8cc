//! `reduce` and `scan`, with or without a fused map, and a map feeding only a reduction.
//!
//! Takes a reduction or scan whose operator fits its neutral elements and inputs. Guarantees
//! the interpreter's left-to-right results sequentially; with `parallel` and scalar operands,
//! when the work reaches [`PAR_CHUNK_MIN_WORK`], chunks are reduced in parallel and combined
//! in order (see [`Combine`]: a fixed split, so results do not depend on the thread count),
//! and a scan is finished by scanning each chunk from its prefix (reduce-then-scan); a scan with a fused
//! map runs the map once per element; a `redomap`'s map results are stored row by row in
//! the same traversal; a reduction whose operator is element-wise over one-dimensional
//! arrays accumulates in one owned array, with no allocation per row; a minimum or maximum
//! of floats steps by a compare and a blend instead of a branch on the data: one
//! accumulator, with the interpreter's results, where each element takes a loop, and
//! otherwise lanes (sequentially and in each parallel chunk), equal to the left-to-right
//! result up to the sign of equal zeros, unless the interpreter's exact floats are asked
//! for.

use super::imp::{Ex, IdxOp, Stm as I};
use super::soac::store_scalars;
use super::{Lw, PAR_CHUNK_MIN_WORK, PAR_CHUNK_MIN_WORK_DEFAULT, R, lt};
use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, NameTable, Soac, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::visit::free_in_exp;

/// Lanes of a minimum or maximum reduction of floats ([`Lw::extremes_in_lanes`]): enough for
/// the compare-and-blend steps of one lane to overlap those of the others.
const EXTREME_LANES: usize = 4;

/// A minimum (`less`) or maximum of floats of type `t`; `elem_first` when the operator
/// takes the element before the accumulator (then an equal element replaces it).
#[derive(Clone, Copy)]
struct Extreme {
    less: bool,
    elem_first: bool,
    t: PrimType,
}

/// Minimum or maximum reductions stepped by a compare and a blend ([`Lw::extremes`]), in
/// `lanes` accumulators each.
struct Extremes {
    ops: Vec<Extreme>,
    lanes: usize,
}

/// A `reduce` or `scan` (with a fused map `pre`: `redomap`, `scanomap`) being lowered.
struct Reduction<'l> {
    /// The reduced values (or scanned arrays).
    pat: &'l [Var],
    /// A `redomap`'s map results (allocated), stored row by row.
    mapped: &'l [Var],
    /// The width, checked.
    w: Ex,
    lam: &'l Lambda,
    neutral: &'l [SubExp],
    pre: Option<&'l Lambda>,
    arrays: &'l [Var],
    scan: bool,
}

impl Reduction<'_> {
    /// The estimated work: the width times the cost of the operator and the fused map.
    fn work(&self) -> Ex {
        Ex::times(self.w.clone(), Ex::int(self.cost()))
    }

    /// The estimated cost of one element: the operator's and the `redomap`'s map's.
    fn cost(&self) -> i64 {
        Lw::cost(&self.lam.body) + self.pre.map_or(0, |m| Lw::cost(&m.body))
    }
}

impl<'a> Lw<'a> {
    /// Lowers statements `j` and `j + 1` of `body` as one loop when they are a sequential
    /// `map` producing a scalar array that only the next statement, a `reduce` with a
    /// floating-point operator of basic operations, consumes: the map's values go straight
    /// into the accumulator instead of through an array allocated for them (the optimiser has
    /// no fused map-reduce form, and such pairs sit in the innermost loops, e.g. the dot
    /// products of a matrix-vector product). Floating-point operators cannot fail, so the
    /// interleaving reports the same errors as running the map first. Returns whether it did.
    pub(super) fn map_reduce(&mut self, body: &Body, j: usize, out: &mut Vec<I>) -> R<bool> {
        let (Some(s1), Some(s2)) = (body.stms.get(j), body.stms.get(j + 1)) else {
            return Ok(false);
        };
        if self.opts.parallel && !self.in_par {
            return Ok(false);
        }
        let (
            Exp::Soac(Soac::Map {
                w: w1,
                lam: ml,
                arrays: ma,
            }),
            Exp::Soac(Soac::Reduce {
                w: w2,
                lam: rl,
                neutral,
                arrays: ra,
                ..
            }),
        ) = (&s1.exp, &s2.exp)
        else {
            return Ok(false);
        };
        let ([y], [r], [ne], [ry], [t]) =
            (&s1.pat[..], &s2.pat[..], &neutral[..], &ra[..], &rl.ret[..])
        else {
            return Ok(false);
        };
        let fits = w1 == w2
            && ry == y
            && ml.body.result.len() == 1
            && ml.params.len() == ma.len()
            && rl.params.len() == 2
            && matches!(t, Type::Prim(PrimType::F32 | PrimType::F64))
            && matches!(self.ty(*y), Type::Array { elem, dims }
                if dims.len() == 1 && Type::Prim(*elem) == *t)
            && ma.iter().all(|a| matches!(self.ty(*a), Type::Array { .. }))
            && rl
                .body
                .stms
                .iter()
                .all(|s| matches!(s.exp, Exp::BasicOp(_)))
            && !body.result.contains(&SubExp::Var(*y))
            && !body.stms[j + 2..]
                .iter()
                .any(|s| free_in_exp(&self.prog.names, &s.exp).contains(y));
        if !fits {
            return Ok(false);
        }
        // `y` is declared (and released at the end of the scope) but never allocated.
        self.declare(*y, out);
        self.declare(*r, out);
        let w = self.width(w1, ma, &s1.aux, out);
        let acc = self.fresh("acc");
        self.decl_named(&acc, t, out);
        self.assign_named(&acc, t, ne, out);
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut b = Vec::new();
        for (p, a) in ml.params.iter().zip(ma) {
            self.bind_row(*p, *a, &iv, &mut b);
        }
        self.stms(&ml.body, &mut b)?;
        let v = self.fresh("row");
        self.decl_named(&v, t, &mut b);
        self.assign_named(&v, t, &ml.body.result[0], &mut b);
        self.end_scope(&ml.body, &mut b);
        let nx = self.fresh("nx");
        self.decl_named(&nx, t, &mut b);
        self.apply(
            rl,
            &[(acc.clone(), t.clone()), (v, t.clone())],
            &[(nx.clone(), t.clone())],
            &mut b,
        )?;
        self.move_into(&acc, &nx, t, &mut b);
        if let Some(mark) = self.simd_sum_mark(rl, std::slice::from_ref(&acc)) {
            b.insert(0, mark);
        }
        out.push(I::For {
            down: false,
            independent: super::independent::writes_only_rows(&b),
            var: i,
            bound: w,
            body: b,
            at: None,
        });
        let rn = self.name(*r);
        self.move_into(&rn, &acc, t, out);
        Ok(true)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.width(w, arrays, aux, out);
        let k = neutral.len();
        let inputs = pre.map_or(arrays.len(), |m| m.ret.len());
        // A `redomap`'s map may return more than the reduced values: its map results.
        let mapped = if scan || pre.is_none() {
            0
        } else {
            inputs.saturating_sub(k)
        };
        if inputs != k + mapped
            || pat.len() != k + mapped
            || lam.params.len() != 2 * k
            || lam.ret.len() != k
        {
            return Err("internal error: reduce/scan operator does not fit".into());
        }
        let (pat, mapped) = pat.split_at(k);
        if scan {
            for &p in pat {
                let Type::Array { elem, dims } = self.ty(p) else {
                    return Err("internal error: scan result is not an array".into());
                };
                let count = Ex::product(self.dims(dims));
                out.push(I::Alloc {
                    arr: self.name(p),
                    elem: *elem,
                    count,
                });
            }
        }
        let r = Reduction {
            pat,
            mapped,
            w,
            lam,
            neutral,
            pre,
            arrays,
            scan,
        };
        let all_scalar = lam.ret.iter().all(|t| matches!(t, Type::Prim(_)));
        if self.opts.parallel && !self.in_par && all_scalar {
            // Where one element costs the threshold, only an empty input is below it, and
            // the chunks give the same result for it (the neutral element): the sequential
            // version would be another copy of the body to compile for nothing (13 % of
            // `benchmarks/gmm.fut`'s multicore C).
            if r.cost() >= PAR_CHUNK_MIN_WORK_DEFAULT {
                return self.par_reduce_or_scan(&r, out);
            }
            // Small inputs run sequentially: splitting them into chunks costs more than it
            // saves. The choice depends on the width only, so results do not depend on the
            // number of threads.
            let mut par = Vec::new();
            self.par_reduce_or_scan(&r, &mut par)?;
            let mut seq = Vec::new();
            self.seq_reduce_or_scan(&r, &mut seq)?;
            out.push(I::If {
                cond: Ex::Idx(
                    IdxOp::Le,
                    Box::new(Ex::var(PAR_CHUNK_MIN_WORK)),
                    Box::new(r.work()),
                ),
                then: par,
                els: seq,
            });
            return Ok(());
        }
        self.seq_reduce_or_scan(&r, out)
    }

    /// The values row `i` contributes to the reduction ([`Lw::elems`]), after storing a
    /// `redomap`'s map results of that row.
    fn reduced_elems(
        &mut self,
        r: &Reduction<'_>,
        i: &Ex,
        out: &mut Vec<I>,
    ) -> R<Vec<(String, Type)>> {
        let mut vals = self.elems(r.pre, r.arrays, i, out)?;
        let stored = vals.split_off(r.neutral.len());
        for (p, (v, t)) in r.mapped.iter().zip(stored) {
            out.push(I::Store {
                elem: t.elem(),
                arr: self.name(*p),
                idx: i.clone(),
                val: Ex::var(&v),
            });
        }
        Ok(vals)
    }

    /// `reduce`/`scan` left to right.
    fn seq_reduce_or_scan(&mut self, r: &Reduction<'_>, out: &mut Vec<I>) -> R<()> {
        if let Some(ew) = elementwise(r, &self.prog.names) {
            return self.elementwise_reduce(r, &ew, out);
        }
        if let Some(ext) = self.extremes(r) {
            let accs = self.init_accs(r, out);
            self.extremes_in_lanes(r, &ext, (&Ex::int(0), &r.w), &accs, out)?;
            for (p, (a, t)) in r.pat.iter().zip(&accs) {
                let pn = self.name(*p);
                self.move_into(&pn, a, t, out);
            }
            return Ok(());
        }
        let lam = r.lam;
        let accs = self.init_accs(r, out);
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut body = Vec::new();
        let mut args = accs.clone();
        args.extend(self.reduced_elems(r, &iv, &mut body)?);
        let nexts = self.decl_fresh("nx", lam.ret.iter().cloned(), &mut body);
        self.apply(lam, &args, &nexts, &mut body)?;
        for ((a, t), (n, _)) in accs.iter().zip(&nexts) {
            if matches!(t, Type::Array { .. }) {
                body.push(I::Decref(a.clone()));
            }
            self.move_into(a, n, t, &mut body);
        }
        let acc_names: Vec<String> = accs.iter().map(|(a, _)| a.clone()).collect();
        if let Some(mark) = self.simd_sum_mark(lam, &acc_names).filter(|_| !r.scan) {
            body.insert(0, mark);
        }
        if r.scan {
            for (p, (a, _)) in r.pat.iter().zip(&accs) {
                let pn = self.name(*p);
                let pty = self.ty(*p).clone();
                let elem = pty.elem();
                let rdims = self.dims(&pty.dims()[1..]);
                if rdims.is_empty() {
                    body.push(I::Store {
                        elem,
                        arr: pn,
                        idx: iv.clone(),
                        val: Ex::var(a),
                    });
                } else {
                    let block = Ex::product(rdims);
                    body.push(I::Copy {
                        elem,
                        dst: pn,
                        dst_off: Ex::times(iv.clone(), block.clone()),
                        src: a.clone(),
                        src_off: Ex::int(0),
                        count: block,
                    });
                }
            }
        }
        out.push(I::For {
            down: false,
            independent: super::independent::writes_only_rows(&body),
            var: i,
            bound: r.w.clone(),
            body,
            at: None,
        });
        if r.scan {
            for (a, t) in &accs {
                if matches!(t, Type::Array { .. }) {
                    out.push(I::Decref(a.clone()));
                }
            }
        } else {
            for (p, (a, t)) in r.pat.iter().zip(&accs) {
                let pn = self.name(*p);
                self.move_into(&pn, a, t, out);
                if let Type::Array { elem, dims } = t {
                    let count = Ex::product(self.dims(dims));
                    out.push(I::MakeUnique {
                        arr: pn,
                        elem: *elem,
                        count,
                        counted: true,
                    });
                }
            }
        }
        Ok(())
    }

    /// The minimum or maximum reductions [`Lw::extremes_in_lanes`] steps by a compare and a
    /// blend: float accumulators, not a scan, each combined with its element by `min` or
    /// `max` (in either order) and starting from a neutral element that is not NaN.
    ///
    /// Elements made without loops (an array's, or a fused map of scalar operations) take a
    /// cycle or two each, less than one blend waiting for the previous one: they run in
    /// lanes where floats may be reordered, and keep the operator's branch (well predicted
    /// where the running extreme rarely changes) where they may not. Elements that take a
    /// loop each (a distance over `d` coordinates) cost more than the blend's wait, and their
    /// branch is mispredicted where the extreme changes often (k-means at k = 10 spent 42 %
    /// of its cost there): one accumulator, in every mode. Copying such a loop into lanes
    /// made k-means' cost at k = 1000 25 % slower.
    fn extremes(&self, r: &Reduction<'_>) -> Option<Extremes> {
        let cheap = r
            .pre
            .is_none_or(|m| m.body.stms.iter().all(|s| matches!(s.exp, Exp::BasicOp(_))));
        let lanes = match (cheap, self.opts.reorder_floats) {
            (false, _) => 1,
            (true, true) => EXTREME_LANES,
            (true, false) => return None,
        };
        let k = r.neutral.len();
        if r.scan || r.lam.body.stms.len() != k || r.lam.body.result.len() != k {
            return None;
        }
        let mut out = Vec::with_capacity(k);
        for (j, (ne, res)) in r.neutral.iter().zip(&r.lam.body.result).enumerate() {
            let ne_ok = match ne {
                SubExp::Const(Scalar::F64(v)) => !v.is_nan(),
                SubExp::Const(Scalar::F32(v)) => !v.is_nan(),
                _ => false,
            };
            let stm = r
                .lam
                .body
                .stms
                .iter()
                .find(|s| s.pat.len() == 1 && *res == SubExp::Var(s.pat[0]))?;
            let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op @ (BinOp::Min | BinOp::Max), t), args)) =
                &stm.exp
            else {
                return None;
            };
            let (a, b) = (
                SubExp::Var(r.lam.params[j]),
                SubExp::Var(r.lam.params[k + j]),
            );
            let elem_first = args[..] == [b, a];
            let operands_ok = args[..] == [a, b] || elem_first;
            if !ne_ok || !operands_ok || !matches!(t, PrimType::F32 | PrimType::F64) {
                return None;
            }
            out.push(Extreme {
                less: *op == BinOp::Min,
                elem_first,
                t: *t,
            });
        }
        Some(Extremes { ops: out, lanes })
    }

    /// Folds elements `lo .. lo + count` of a minimum or maximum reduction ([`Lw::extremes`])
    /// into the accumulators `accs`. The operators skip NaN operands, so an accumulator that
    /// starts as a number stays one, and each step is `y < a ? y : a` (`<=` where the
    /// operator takes the element first and so lets an equal one win; for a maximum `>`),
    /// a compare and a blend without a branch: with one lane, exactly the operator's
    /// results. With `L` lanes, element `lo + i` goes to lane `i mod L` while whole blocks of
    /// `L` last, the rest to lane 0 (`accs` itself), and the lanes are combined into `accs`
    /// at the end. The lanes' steps do not depend on each other, so the processor runs them
    /// side by side; the result is the sequential one except that of equal zeros either sign
    /// may win.
    fn extremes_in_lanes(
        &mut self,
        r: &Reduction<'_>,
        ext: &Extremes,
        (lo, count): (&Ex, &Ex),
        accs: &[(String, Type)],
        out: &mut Vec<I>,
    ) -> R<()> {
        // `lane = better(y, lane) ? y : lane`.
        let step = |e: &Extreme, lane: &str, y: Ex| -> I {
            let cmp = match (e.less, e.elem_first) {
                (true, false) => CmpOp::Lt,
                (true, true) => CmpOp::Le,
                (false, false) => CmpOp::Gt,
                (false, true) => CmpOp::Ge,
            };
            I::Set {
                name: lane.to_string(),
                val: Ex::Prim(
                    PrimOp::Tern(TernOp::Select, e.t),
                    vec![
                        Ex::Prim(PrimOp::Cmp(cmp, e.t), vec![y.clone(), Ex::var(lane)]),
                        y,
                        Ex::var(lane),
                    ],
                ),
            }
        };
        let at = |k: Ex| Ex::idx(IdxOp::Add, lo.clone(), k);
        if ext.lanes == 1 {
            let k = self.fresh("i");
            let mut body = Vec::new();
            let vals = self.reduced_elems(r, &at(Ex::var(&k)), &mut body)?;
            for ((e, (a, _)), (y, _)) in ext.ops.iter().zip(accs).zip(&vals) {
                body.push(step(e, a, Ex::var(y)));
            }
            out.push(I::For {
                down: false,
                independent: false,
                var: k,
                bound: count.clone(),
                body,
                at: None,
            });
            return Ok(());
        }
        // lanes[l][j]: lane `l` of accumulator `j`; lane 0 is the accumulator.
        let mut lanes: Vec<Vec<String>> = vec![accs.iter().map(|(a, _)| a.clone()).collect()];
        for _ in 1..ext.lanes {
            let mut lane = Vec::new();
            for ((_, t), ne) in accs.iter().zip(r.neutral) {
                let a = self.fresh("lane");
                self.decl_named(&a, t, out);
                self.assign_named(&a, t, ne, out);
                lane.push(a);
            }
            lanes.push(lane);
        }
        let width = ext.lanes as i64;
        let rest = Ex::idx(IdxOp::Rem, count.clone(), Ex::int(width));
        let whole = Ex::idx(IdxOp::Sub, count.clone(), rest.clone());
        // Whole blocks: the elements of each lane made in a scope of their own (the fused
        // map's code once per lane).
        let block = self.fresh("blk");
        let mut body = Vec::new();
        for (l, lane) in lanes.iter().enumerate() {
            let i = at(Ex::idx(
                IdxOp::Add,
                Ex::times(Ex::var(&block), Ex::int(width)),
                Ex::int(l as i64),
            ));
            let mut scope = Vec::new();
            let vals = self.reduced_elems(r, &i, &mut scope)?;
            for ((e, a), (y, _)) in ext.ops.iter().zip(lane).zip(&vals) {
                scope.push(step(e, a, Ex::var(y)));
            }
            body.push(I::If {
                cond: Ex::Const(Scalar::Bool(true)),
                then: scope,
                els: Vec::new(),
            });
        }
        out.push(I::For {
            down: false,
            independent: false,
            var: block,
            bound: Ex::Prim(
                PrimOp::Bin(BinOp::Quot, PrimType::I64),
                vec![count.clone(), Ex::int(width)],
            ),
            body,
            at: None,
        });
        // The rest into lane 0.
        let k = self.fresh("i");
        let mut body = Vec::new();
        let i = at(Ex::idx(IdxOp::Add, whole, Ex::var(&k)));
        let vals = self.reduced_elems(r, &i, &mut body)?;
        for ((e, a), (y, _)) in ext.ops.iter().zip(&lanes[0]).zip(&vals) {
            body.push(step(e, a, Ex::var(y)));
        }
        out.push(I::For {
            down: false,
            independent: false,
            var: k,
            bound: rest,
            body,
            at: None,
        });
        for lane in &lanes[1..] {
            for ((e, a), b) in ext.ops.iter().zip(&lanes[0]).zip(lane) {
                out.push(step(e, a, Ex::var(b)));
            }
        }
        Ok(())
    }

    /// A reduction whose operator is element-wise ([`elementwise`]), in place: the
    /// accumulators are one exclusively owned copy of the neutral arrays, and each row is
    /// combined into them element by element, instead of the operator building a new array
    /// per row (an allocation and a copy per step). The same operations in the same order.
    fn elementwise_reduce(
        &mut self,
        r: &Reduction<'_>,
        ew: &Elementwise<'_>,
        out: &mut Vec<I>,
    ) -> R<()> {
        let len = self.ix(&ew.len);
        let accs = self.init_unique_accs(r, &len, out);
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut body = Vec::new();
        let rows = self.rows(r.arrays, &iv, &mut body);
        // Where each parameter of the operator lives: accumulators, then the row's values.
        let storage: Vec<&(String, Type)> = accs.iter().chain(&rows).collect();
        let l = self.fresh("l");
        let lv = Ex::var(&l);
        let mut lanes = Vec::new();
        for (p, src) in ew.inner.params.iter().zip(&ew.sources) {
            self.declare(*p, &mut lanes);
            let (arr, t) = storage[*src];
            lanes.push(I::Set {
                name: self.name(*p),
                val: Ex::Load {
                    elem: t.elem(),
                    arr: arr.clone(),
                    idx: Box::new(lv.clone()),
                },
            });
        }
        self.stms(&ew.inner.body, &mut lanes)?;
        for ((a, t), res) in accs.iter().zip(&ew.inner.body.result) {
            lanes.push(I::Store {
                elem: t.elem(),
                arr: a.clone(),
                idx: lv.clone(),
                val: self.se(res),
            });
        }
        self.end_scope(&ew.inner.body, &mut lanes);
        body.push(I::For {
            down: false,
            independent: super::independent::writes_only_rows(&lanes),
            var: l,
            bound: len,
            body: lanes,
            at: None,
        });
        out.push(I::For {
            down: false,
            independent: false,
            var: i,
            bound: r.w.clone(),
            body,
            at: None,
        });
        for (p, (a, t)) in r.pat.iter().zip(&accs) {
            let pn = self.name(*p);
            self.move_into(&pn, a, t, out);
        }
        Ok(())
    }

    /// Fresh accumulators of the operator's result types, set to the neutral elements.
    fn init_accs(&mut self, r: &Reduction<'_>, out: &mut Vec<I>) -> Vec<(String, Type)> {
        let accs: Vec<(String, Type)> = r
            .lam
            .ret
            .iter()
            .map(|t| (self.fresh("acc"), t.clone()))
            .collect();
        for ((a, t), ne) in accs.iter().zip(r.neutral) {
            self.decl_named(a, t, out);
            self.assign_named(a, t, ne, out);
        }
        accs
    }

    /// Fresh accumulators of `len` elements each, exclusively owned, holding the neutral
    /// elements. A neutral array that lives on after the reduction is copied into a new
    /// allocation, which inside a loop is the site's slot (no `malloc` per run); one used
    /// here for the last time is taken over, and copied only if it is shared.
    fn init_unique_accs(
        &mut self,
        r: &Reduction<'_>,
        len: &Ex,
        out: &mut Vec<I>,
    ) -> Vec<(String, Type)> {
        let mut accs = Vec::new();
        for (t, ne) in r.lam.ret.iter().zip(r.neutral) {
            let a = self.fresh("acc");
            self.decl_named(&a, t, out);
            match ne {
                SubExp::Var(v)
                    if matches!(t, Type::Array { .. }) && !self.last_used_once.contains(v) =>
                {
                    out.push(I::Alloc {
                        arr: a.clone(),
                        elem: t.elem(),
                        count: len.clone(),
                    });
                    out.push(I::Copy {
                        elem: t.elem(),
                        dst: a.clone(),
                        dst_off: Ex::int(0),
                        src: self.name(*v),
                        src_off: Ex::int(0),
                        count: len.clone(),
                    });
                }
                _ => {
                    self.assign_named(&a, t, ne, out);
                    out.push(I::MakeUnique {
                        arr: a.clone(),
                        elem: t.elem(),
                        count: len.clone(),
                        counted: true,
                    });
                }
            }
            accs.push((a, t.clone()));
        }
        accs
    }

    /// `reduce`/`scan` over chunks in parallel, scalar operands only: each chunk reduced into
    /// a partial result, the partial results combined in order ([`Lw::combine_parts`]; for a
    /// scan, replaced by their exclusive prefixes), and for a scan each chunk scanned from its
    /// prefix — reduce-then-scan.
    fn par_reduce_or_scan(&mut self, r: &Reduction<'_>, out: &mut Vec<I>) -> R<()> {
        let &Reduction {
            pat,
            ref w,
            lam,
            neutral,
            pre,
            scan,
            ..
        } = r;
        let tys: Vec<PrimType> = lam.ret.iter().map(|t| t.elem()).collect();
        let extremes = self.extremes(r);
        let count = self.chunk_count(w, out);
        let parts = self.alloc_scratch("part", &tys, &count, out);
        let part_arrays: Vec<(String, PrimType)> = parts.iter().cloned().zip(tys.clone()).collect();
        let results: Vec<(String, PrimType)> = pat
            .iter()
            .map(|p| (self.name(*p), self.ty(*p).elem()))
            .collect();
        // Chunk `c` folded from `init` (with `write`, storing the running results: a scan),
        // then (with `write_part`) stored as the chunk's partial result.
        let chunk_loop = |s: &mut Self,
                          c: &str,
                          init: &dyn Fn(usize) -> Ex,
                          write: bool,
                          write_part: bool|
         -> R<Vec<I>> {
            let mut b = Vec::new();
            let (lo, hi) = s.chunk_range_of(&Ex::var(c), w, &count, &mut b);
            let accs = s.init_scalars("acc", &tys, init, &mut b);
            if let Some(ext) = &extremes {
                // Not a scan (see `extremes`): only the chunk's partial result is stored.
                let len = Ex::idx(IdxOp::Sub, Ex::var(&hi), Ex::var(&lo));
                s.extremes_in_lanes(r, ext, (&Ex::var(&lo), &len), &accs, &mut b)?;
                store_scalars(&part_arrays, &Ex::var(c), &accs, &mut b);
                return Ok(b);
            }
            let acc_names: Vec<String> = accs.iter().map(|(a, _)| a.clone()).collect();
            let mark = s.simd_sum_mark(lam, &acc_names).filter(|_| !write);
            let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                inner.extend(mark);
                let mut args = accs.clone();
                args.extend(s.reduced_elems(r, i, inner)?);
                s.apply(lam, &args, &accs, inner)?;
                if write {
                    store_scalars(&results, i, &accs, inner);
                }
                Ok(())
            })?;
            b.push(items);
            if write_part {
                store_scalars(&part_arrays, &Ex::var(c), &accs, &mut b);
            }
            Ok(b)
        };
        let neutral_ex: Vec<Ex> = neutral.iter().map(|n| self.se(n)).collect();
        // A scan with a fused map scans each chunk in phase 1 already (storing its results)
        // and adds the chunk's prefix to them in phase 3, so the map runs once per element;
        // a plain scan reads its input twice instead of writing its output twice.
        let propagate = scan && pre.is_some();
        // Phase 1: each chunk reduced from the neutral element into its partial result.
        self.par_chunks_of(&count, r.work(), out, |s, c| {
            chunk_loop(s, c, &|j| neutral_ex[j].clone(), propagate, true)
        })?;
        // Phase 2: combine the partial results in order (for scan: exclusive prefixes).
        let accs = self.combine_parts(lam, &neutral_ex, &part_arrays, &count, scan, out)?;
        if propagate {
            // Phase 3: each chunk but the first combines its prefix with its results.
            let work = Ex::times(w.clone(), Ex::int(Self::cost(&lam.body)));
            self.par_chunks_of(&count, work, out, |s, c| {
                let mut b = Vec::new();
                let (lo, hi) = s.chunk_range_of(&Ex::var(c), w, &count, &mut b);
                let prefix = s.load_scalars("pre", &part_arrays, &Ex::var(c), &mut b);
                let items = s.combine_prefix(lam, &prefix, &results, (&lo, &hi))?;
                b.push(items);
                Ok(vec![I::If {
                    cond: lt(Ex::int(0), Ex::var(c)),
                    then: b,
                    els: vec![],
                }])
            })?;
        } else if scan {
            // Phase 3: each chunk scanned from its prefix.
            self.par_chunks_of(&count, r.work(), out, |s, c| {
                let init = |j: usize| Ex::Load {
                    elem: tys[j],
                    arr: parts[j].clone(),
                    idx: Box::new(Ex::var(c)),
                };
                chunk_loop(s, c, &init, true, false)
            })?;
        } else {
            for (p, (a, _)) in pat.iter().zip(&accs) {
                out.push(I::Set {
                    name: self.name(*p),
                    val: Ex::var(a),
                });
            }
        }
        for p in parts {
            out.push(I::Decref(p));
        }
        Ok(())
    }
}

/// An element-wise reduction operator: `\(a.., b..) -> map(n, f, a.., b..)` over
/// one-dimensional arrays of length `n` (accumulators, neutral elements and rows alike), with
/// a scalar `f` that reads nothing else of the operator (the vectorised `+` of vector
/// forward mode's tangents, a sum of rows inside a lambda).
struct Elementwise<'l> {
    /// The arrays' length.
    len: SubExp,
    /// The scalar function.
    inner: &'l Lambda,
    /// For each parameter of `inner`, the position of the operator parameter it reads.
    sources: Vec<usize>,
}

/// The element-wise form of a plain (unfused) reduction's operator, if it has one.
fn elementwise<'l>(r: &Reduction<'l>, names: &NameTable) -> Option<Elementwise<'l>> {
    if r.scan || r.pre.is_some() {
        return None;
    }
    let lam = r.lam;
    let [stm] = lam.body.stms.as_slice() else {
        return None;
    };
    let Exp::Soac(Soac::Map {
        w,
        lam: inner,
        arrays: ins,
    }) = &stm.exp
    else {
        return None;
    };
    let results_are_outputs = lam.body.result.len() == stm.pat.len()
        && lam
            .body
            .result
            .iter()
            .zip(&stm.pat)
            .all(|(r, p)| r.as_var() == Some(*p));
    let one_dim = |t: &Type| matches!(t, Type::Array { dims, .. } if dims.as_slice() == [*w]);
    let rows_fit = r.arrays.iter().all(|a| one_dim(&names.ty(*a).row()));
    if !results_are_outputs
        || !lam.ret.iter().all(one_dim)
        || !r.neutral.iter().all(|n| one_dim(&names.subexp_ty(n)))
        || !rows_fit
        || !inner.ret.iter().all(|t| matches!(t, Type::Prim(_)))
        || inner.params.len() != ins.len()
    {
        return None;
    }
    let sources = ins
        .iter()
        .map(|a| lam.params.iter().position(|p| p == a))
        .collect::<Option<Vec<_>>>()?;
    let free = crate::core::visit::lambda_free_vars(inner);
    if free.iter().any(|v| lam.params.contains(v)) {
        return None;
    }
    Some(Elementwise {
        len: *w,
        inner,
        sources,
    })
}
