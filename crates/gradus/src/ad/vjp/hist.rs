//! Return sweep of `hist` (`reduce_by_index`): each bin is
//! `dest[b] ⊕ vs[j1] ⊕ vs[j2] ⊕ ..` over the `j` with `is[j] == b`, in increasing order
//! (SC'22, rule for `reduce_by_index`; docs/language.md §Array operations).
//!
//! Forward sweep: the `hist` consumes its destination, so for the operators whose adjoint
//! depends on the original bins (`*`, `min`, `max`, and `select_payload` operators:
//! [`hist_needs_bins`]) the forward sweep keeps a copy of them (`Extra::Copies`).
//!
//! Return sweep, with `ȳ` the adjoint of the result (scalar bins unless noted):
//! * **`+`** (also independent sums, and element-wise sums of rows): a bin is linear in its
//!   contributions, so `vs̄[j] = ȳ[is[j]]` and `dest̄ = ȳ`. `O(w)`.
//! * **`*`** (floats): two hists give, per bin, the product `P` of the non-zero factors and the
//!   count `Z` of zeros (the destination included); then `∂/∂x` of the bin is `P / x` if
//!   `Z = 0`, `P` if `Z = 1` and `x = 0`, else 0 (`product_partial`): exact with zeros and
//!   `O(w)`. Integers are exact under wrap-around through odd parts and powers of two instead
//!   of division (`rev_hist_int_product`).
//! * **`min`/`max`**: a bin's result comes from one contributor, so its whole adjoint goes to
//!   the first contributor equal to the result, the destination counting as first; a `min`
//!   hist over the candidates' indices finds it. `O(w)`.
//! * **max/min carrying payloads** ([`select_payload`], what `jvp` makes of a max/min hist): the
//!   same operator run on (value, index) pairs finds each bin's winning contribution, and every
//!   component's adjoint goes to it.
//!
//! * **any other operator** (tuples, rows, matrices, several dimensions of bins as rows):
//!   sort by bin, segmented scans forward and backward, one `vjp` of the operator per
//!   contribution (`hist_general.rs`).
//!
//! Contributions with out-of-range indices were dropped by the `hist`, so they get zero.

use super::soac::{additive_components, c, simple_op};
use super::{Diagnostic, Extra, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::PrimType;
use std::collections::{HashMap, HashSet};

/// An operator that picks one side by a condition on the first components and carries the
/// other components of that side along: `\(a0, a1.., b0, b1..) -> (max a0 b0, if c then a1
/// else b1, ..)` (or `if c then a0 else b0` first), where `c` depends on `a0` and `b0` only
/// — what `jvp` makes of a max or min `hist`. Returns the statements computing `c` (in
/// order), `c`, and the max/min statement when the first result is one.
fn select_payload(lam: &Lambda) -> Option<(Vec<Stm>, Var, Option<Stm>)> {
    let m = lam.body.result.len();
    if m < 2 || lam.params.len() != 2 * m {
        return None;
    }
    let (a0, b0) = (lam.params[0], lam.params[m]);
    // The condition that picks side a for result k, if it is picked by one.
    let picked_by = |k: usize| -> Option<Var> {
        let SubExp::Var(r) = lam.body.result[k] else {
            return None;
        };
        let st = lam.body.stms.iter().find(|st| st.pat.contains(&r))?;
        let (a, b) = (SubExp::Var(lam.params[k]), SubExp::Var(lam.params[m + k]));
        match &st.exp {
            Exp::BasicOp(BasicOp::Prim(PrimOp::Tern(TernOp::Select, _), args)) => {
                match args.as_slice() {
                    [SubExp::Var(c), x, y] if *x == a && *y == b => Some(*c),
                    _ => None,
                }
            }
            Exp::If {
                cond: SubExp::Var(c),
                then_body,
                else_body,
                ..
            } if then_body.stms.is_empty() && else_body.stms.is_empty() => {
                let j = st.pat.iter().position(|p| *p == r)?;
                (then_body.result.get(j) == Some(&a) && else_body.result.get(j) == Some(&b))
                    .then_some(*c)
            }
            _ => None,
        }
    };
    let mut cond = None;
    for k in 1..m {
        let c = picked_by(k)?;
        if cond.is_some_and(|c0| c0 != c) {
            return None;
        }
        cond = Some(c);
    }
    let cond = cond?;
    if lam.params.contains(&cond) {
        return None;
    }
    let SubExp::Var(r0) = lam.body.result[0] else {
        return None;
    };
    let top = match picked_by(0) {
        Some(c) if c == cond => None,
        Some(_) => return None,
        None => {
            let top = lam.body.stms.iter().find(|st| st.pat == [r0])?;
            match &top.exp {
                Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Max | BinOp::Min, _), args))
                    if args.as_slice() == [SubExp::Var(a0), SubExp::Var(b0)] => {}
                _ => return None,
            }
            Some(top.clone())
        }
    };
    // The statements `cond` needs, which may read only a0 and b0 of the parameters.
    let mut need: HashSet<Var> = [cond].into_iter().collect();
    let mut slice = Vec::new();
    for st in lam.body.stms.iter().rev() {
        if !st.pat.iter().any(|p| need.contains(p)) {
            continue;
        }
        let Exp::BasicOp(BasicOp::Prim(_, args)) = &st.exp else {
            return None;
        };
        for a in args {
            if let SubExp::Var(v) = a {
                if lam.params.contains(v) && *v != a0 && *v != b0 {
                    return None;
                }
                need.insert(*v);
            }
        }
        slice.push(st.clone());
    }
    slice.reverse();
    Some((slice, cond, top))
}

/// Whether the adjoint of a `hist` with this operator needs the original bins.
pub(super) fn hist_needs_bins(lam: &Lambda) -> bool {
    match simple_op(lam) {
        Some((op, _)) => op != BinOp::Add,
        // Sums need nothing; every other operator goes to a rule that reads the bins
        // (payload-carrying max/min, or the general one).
        None => !additive_components(lam),
    }
}

/// A `hist` with a `*`, `min` or `max` operator on scalar bins, as its return sweep sees it.
#[derive(Clone, Copy)]
struct ScalarHist {
    /// The number of contributions.
    w: SubExp,
    /// The number of bins.
    m: SubExp,
    dest: Var,
    vs: Var,
    indices: Var,
    /// The destination's original bins, which the forward sweep saved.
    bins: Var,
    /// The adjoint of the result.
    ybar: Var,
    t: PrimType,
}

impl Vjp<'_> {
    /// `ȳ · ∂(∏)/∂x` given the product `p` of the non-zero factors and the zero count `z`.
    fn product_partial(
        &mut self,
        p: SubExp,
        z: SubExp,
        x: SubExp,
        ybar: SubExp,
        t: PrimType,
    ) -> SubExp {
        let x0 = self.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, c(t, 0.0)]);
        let z0 = self.e.prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
            vec![z, SubExp::i64(0)],
        );
        let z1 = self.e.prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
            vec![z, SubExp::i64(1)],
        );
        let safe_x = self.e.select(x0, c(t, 1.0), x);
        let q = self.e.prim(PrimOp::Bin(BinOp::Div, t), vec![p, safe_x]);
        let only = self
            .e
            .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![z1, x0]);
        let other = self.e.select(only, p, c(t, 0.0));
        let d = self.e.select(z0, q, other);
        self.e.prim(PrimOp::Bin(BinOp::Mul, t), vec![d, ybar])
    }

    /// The adjoint of a hist whose operator is a max or min carrying payloads along
    /// ([`select_payload`]): the same operator run on the element indices instead of the
    /// payloads finds, per bin, the contribution that won (or the destination, -1); every
    /// component's adjoint goes to that winner.
    #[allow(clippy::too_many_arguments)]
    fn rev_hist_select(
        &mut self,
        w: SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: SubExp,
        indices: Var,
        values: &[Var],
        bins: &[Var],
        slice: &[Stm],
        cond: Var,
        top: &Option<Stm>,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let m = lam.body.result.len();
        let nb = self.e.names.ty(dests[0]).dims()[0];
        let t0 = self.e.names.ty(values[0]).elem();
        let i64t = Type::Prim(PrimType::I64);
        // The operator on (value, index) pairs.
        let (a0, b0) = (lam.params[0], lam.params[m]);
        let ilam = self.try_lambda(
            &[
                ("a", Type::Prim(t0)),
                ("ai", i64t.clone()),
                ("b", Type::Prim(t0)),
                ("bi", i64t.clone()),
            ],
            |v, ps| {
                let mut subst = HashMap::new();
                subst.insert(a0, ps[0]);
                subst.insert(b0, ps[2]);
                let mut stms = slice.to_vec();
                let mut out = vec![cond.into()];
                if let Some(top) = top {
                    stms.push(top.clone());
                    out.push(top.pat[0].into());
                }
                let (stms, res) = v.rename(&stms, &out, subst);
                v.e.add_stms(stms);
                let value = match res.get(1) {
                    Some(r) => *r,
                    None => v.e.prim(
                        PrimOp::Tern(TernOp::Select, t0),
                        vec![res[0], ps[0].into(), ps[2].into()],
                    ),
                };
                let pick = v.e.prim(
                    PrimOp::Tern(TernOp::Select, PrimType::I64),
                    vec![res[0], ps[1].into(), ps[3].into()],
                );
                Ok(vec![value, pick])
            },
        )?;
        let start = self.e.basic(BasicOp::Copy(bins[0]), "bins");
        let none = self.e.basic(
            BasicOp::Replicate {
                shape: vec![nb],
                value: SubExp::i64(-1),
            },
            "winner",
        );
        let ids = self.e.iota(w, "iota");
        let won = self.e.bind_exp(
            Exp::Soac(Soac::Hist {
                w,
                dests: vec![start, none],
                lam: ilam,
                neutral: vec![neutral, SubExp::i64(-1)],
                indices,
                values: vec![values[0], ids],
            }),
            "winner",
        );
        let winner = won[1];
        for k in 0..m {
            let Some((SubExp::Var(ybar), _)) = ybars[k] else {
                continue;
            };
            let t = self.e.names.ty(ybar).elem();
            if self.active.contains(&values[k]) {
                let i = self.e.iota(w, "iota");
                let reads = [("who", winner), ("yb", ybar)];
                let vb =
                    self.map_contributions(w, nb, vec![i, indices], 1, &reads, t, |v, ps, at| {
                        let mine = v.e.prim(
                            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                            vec![at[0], ps[0].into()],
                        );
                        Ok(v.e.select(mine, at[1], c(t, 0.0)))
                    })?;
                self.add_adj(values[k], SubExp::Var(vb), true)?;
            }
            if self.active.contains(&dests[k]) {
                let db = self.map_soac(nb, vec![winner, ybar], |v, ps| {
                    let kept = v.e.prim(
                        PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                        vec![ps[0].into(), SubExp::i64(-1)],
                    );
                    Ok(vec![v.e.select(kept, ps[1].into(), c(t, 0.0))])
                })?;
                self.add_adj(dests[k], SubExp::Var(db[0]), true)?;
            }
        }
        Ok(())
    }

    /// A map over the `w` contributions of a hist (the rows of `rows`, whose element `bin` is
    /// the contribution's bin): `f` of the row and of the arrays `per_bin` (hint, array) read
    /// at that bin, or a zero of type `t` where the bin is outside `0..nb` (the hist dropped
    /// that contribution, so it gets no adjoint).
    #[allow(clippy::too_many_arguments)]
    fn map_contributions(
        &mut self,
        w: SubExp,
        nb: SubExp,
        rows: Vec<Var>,
        bin: usize,
        per_bin: &[(&str, Var)],
        t: PrimType,
        f: impl FnOnce(&mut Self, &[Var], &[SubExp]) -> R<SubExp>,
    ) -> R<Var> {
        let r = self.map_soac(w, rows, |v, ps| {
            let ok = v.in_range(ps[bin].into(), nb);
            let r = v.try_if(
                ok,
                |v| {
                    let read: Vec<SubExp> = per_bin
                        .iter()
                        .map(|(hint, array)| v.read(*array, ps[bin].into(), hint))
                        .collect();
                    Ok(vec![f(v, ps, &read)?])
                },
                |_| Ok(vec![c(t, 0.0)]),
                "adj",
            )?;
            Ok(vec![SubExp::Var(r[0])])
        })?;
        Ok(r[0])
    }

    /// A `hist` of the contributions `values` at `h`'s indices into the one array `dest`, with
    /// operator `lam` and neutral element `ne`.
    fn scalar_hist(
        &mut self,
        h: &ScalarHist,
        dest: Var,
        lam: Lambda,
        ne: SubExp,
        values: Var,
        hint: &str,
    ) -> Var {
        self.e.bind1(
            Exp::Soac(Soac::Hist {
                w: h.w,
                dests: vec![dest],
                lam,
                neutral: vec![ne],
                indices: h.indices,
                values: vec![values],
            }),
            hint,
        )
    }

    /// The adjoint of a `+` hist: each value gets its bin's adjoint (zero out of range), the
    /// destination the result's.
    fn rev_hist_add(
        &mut self,
        w: SubExp,
        indices: Var,
        dest: Var,
        vs: Var,
        ybar: Var,
        owned: bool,
    ) -> R<()> {
        if self.active.contains(&vs) {
            let vb = self.map_soac(w, vec![indices], |v, ps| {
                Ok(vec![v.guarded_read(ybar, ps[0].into())?])
            })?;
            self.add_adj(vs, SubExp::Var(vb[0]), true)?;
        }
        self.add_adj(dest, SubExp::Var(ybar), owned)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn rev_hist(
        &mut self,
        s: &Stm,
        w: SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: &[SubExp],
        indices: Var,
        values: &[Var],
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        // A tuple of independent sums (what `jvp` makes of a `+` hist), or element-wise sums
        // of rows: one `+` adjoint each (a row of the bins' adjoint per value).
        if (dests.len() > 1 || dests.iter().any(|d| self.e.names.ty(*d).rank() > 1))
            && additive_components(lam)
        {
            for ((dest, vs), ybar) in dests.iter().zip(values).zip(ybars) {
                if let Some((SubExp::Var(ybar), owned)) = ybar {
                    self.rev_hist_add(w, indices, *dest, *vs, *ybar, *owned)?;
                }
            }
            return Ok(());
        }
        if let Some((slice, cond, top)) = select_payload(lam)
            && dests.iter().all(|d| self.e.names.ty(*d).rank() == 1)
        {
            let Extra::Copies(bins) = extra else {
                return Err(Diagnostic::bug("hist without saved bins"));
            };
            return self.rev_hist_select(
                w, dests, lam, neutral[0], indices, values, &bins, &slice, cond, &top, ybars,
            );
        }
        let (Some((op, t)), [dest], [vs], [Some((SubExp::Var(ybar), owned))]) =
            (simple_op(lam), dests, values, ybars)
        else {
            return self
                .rev_hist_general_saved(w, dests, lam, neutral, indices, values, extra, ybars);
        };
        if self.e.names.ty(*dest).rank() != 1 {
            return self
                .rev_hist_general_saved(w, dests, lam, neutral, indices, values, extra, ybars);
        }
        let (dest, vs, ybar, owned) = (*dest, *vs, *ybar, *owned);
        let m = self.e.names.ty(dest).dims()[0];
        match op {
            BinOp::Add => self.rev_hist_add(w, indices, dest, vs, ybar, owned),
            BinOp::Mul | BinOp::Min | BinOp::Max => {
                let Extra::Copies(bins) = extra else {
                    return Err(Diagnostic::bug("hist without saved bins"));
                };
                let h = ScalarHist {
                    w,
                    m,
                    dest,
                    vs,
                    indices,
                    bins: bins[0],
                    ybar,
                    t,
                };
                match op {
                    BinOp::Mul if t.is_float() => self.rev_hist_product(h),
                    BinOp::Mul => self.rev_hist_int_product(h),
                    _ => self.rev_hist_min_max(h, s.pat[0]),
                }
            }
            _ => self.rev_hist_general_saved(w, dests, lam, neutral, indices, values, extra, ybars),
        }
    }

    /// The general rule ([`Vjp::rev_hist_general`]) with the bins the forward sweep saved.
    #[allow(clippy::too_many_arguments)]
    fn rev_hist_general_saved(
        &mut self,
        w: SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: &[SubExp],
        indices: Var,
        values: &[Var],
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Extra::Copies(bins) = extra else {
            return Err(Diagnostic::bug("hist without saved bins"));
        };
        self.rev_hist_general(w, dests, lam, neutral, indices, values, &bins, ybars)
    }

    /// The adjoint of a `min` or `max` hist with result `r`: a bin's whole adjoint goes to
    /// its first contributor equal to the result, or to the destination if that equals it.
    fn rev_hist_min_max(&mut self, h: ScalarHist, r: Var) -> R<()> {
        let ScalarHist { w, m, t, .. } = h;
        let (dest, vs, indices, bins, ybar) = (h.dest, h.vs, h.indices, h.bins, h.ybar);
        // The first contributor equal to the result, per bin.
        let i = self.e.iota(w, "iota");
        let cand = self.map_soac(w, vec![i, indices, vs], |v, ps| {
            let rb = v.guarded_read(r, ps[1].into())?;
            let ok = v.in_range(ps[1].into(), m);
            let eq = v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[2].into(), rb]);
            let hit =
                v.e.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![ok, eq]);
            Ok(vec![v.e.select(hit, ps[0].into(), w)])
        })?;
        let init = self.e.basic(
            BasicOp::Replicate {
                shape: vec![m],
                value: w,
            },
            "first",
        );
        let lam_min = self.bin_op_lambda(BinOp::Min, PrimType::I64)?;
        let first = self.scalar_hist(&h, init, lam_min, w, cand[0], "first");
        if self.active.contains(&vs) {
            let i = self.e.iota(w, "iota");
            let reads = [("f", first), ("b", bins), ("r", r), ("yb", ybar)];
            let vb =
                self.map_contributions(w, m, vec![i, indices], 1, &reads, t, |v, ps, at| {
                    let [f, b0, rb, yb] = [at[0], at[1], at[2], at[3]];
                    let dest_wins = v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![b0, rb]);
                    let mine =
                        v.e.prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![f, ps[0].into()]);
                    let nd =
                        v.e.prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![dest_wins]);
                    let hit =
                        v.e.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![mine, nd]);
                    Ok(v.e.select(hit, yb, c(t, 0.0)))
                })?;
            self.add_adj(vs, SubExp::Var(vb), true)?;
        }
        if self.active.contains(&dest) {
            let db = self.map_soac(m, vec![bins, r, ybar], |v, ps| {
                let wins =
                    v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[0].into(), ps[1].into()]);
                Ok(vec![v.e.select(wins, ps[2].into(), c(t, 0.0))])
            })?;
            self.add_adj(dest, SubExp::Var(db[0]), true)?;
        }
        Ok(())
    }

    /// The adjoint of a float product `hist`, from the per-bin products of the non-zero
    /// factors and counts of zeros (`product_partial`).
    fn rev_hist_product(&mut self, h: ScalarHist) -> R<()> {
        let ScalarHist { w, m, t, .. } = h;
        let (dest, vs, indices, bins, ybar) = (h.dest, h.vs, h.indices, h.bins, h.ybar);
        let split = |v: &mut Self, n: SubExp, a: Var| -> R<Vec<Var>> {
            v.map_soac(n, vec![a], |v, ps| {
                let z =
                    v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[0].into(), c(t, 0.0)]);
                let f = v.e.select(z, c(t, 1.0), ps[0].into());
                let n = v.e.select(z, SubExp::i64(1), SubExp::i64(0));
                Ok(vec![f, n])
            })
        };
        let b = split(self, m, bins)?;
        let x = split(self, w, vs)?;
        let lm = self.bin_op_lambda(BinOp::Mul, t)?;
        let la = self.bin_op_lambda(BinOp::Add, PrimType::I64)?;
        let p = self.scalar_hist(&h, b[0], lm, c(t, 1.0), x[0], "prod");
        let z = self.scalar_hist(&h, b[1], la, SubExp::i64(0), x[1], "zeros");
        if self.active.contains(&vs) {
            let reads = [("p", p), ("z", z), ("yb", ybar)];
            let vb =
                self.map_contributions(w, m, vec![indices, vs], 0, &reads, t, |v, ps, at| {
                    Ok(v.product_partial(at[0], at[1], ps[1].into(), at[2], t))
                })?;
            self.add_adj(vs, SubExp::Var(vb), true)?;
        }
        if self.active.contains(&dest) {
            let db = self.map_soac(m, vec![p, z, bins, ybar], |v, ps| {
                Ok(vec![v.product_partial(
                    ps[0].into(),
                    ps[1].into(),
                    ps[2].into(),
                    ps[3].into(),
                    t,
                )])
            })?;
            self.add_adj(dest, SubExp::Var(db[0]), true)?;
        }
        Ok(())
    }

    /// The adjoint of an integer product `hist`, exact under wrap-around. Division by an
    /// element is not (a product modulo 2^k forgets factors of two), so every non-zero element
    /// is split into `2^e · o` with `o` odd: per bin, the odd parts are multiplied (`O`), the
    /// exponents and the zeros counted (`E`, `Z`); the product of the other elements of `x`'s
    /// bin is then `(O · o⁻¹) << (E - e)`, where `o⁻¹` is the inverse of `o` modulo 2^k
    /// (Newton's iteration `y ← y (2 - o y)`, which doubles the correct low bits from the 3
    /// of `y = o`), `0` when `E - e` reaches the width, and the zero rule of the float case.
    fn rev_hist_int_product(&mut self, h: ScalarHist) -> R<()> {
        let ScalarHist { w, m, t, .. } = h;
        let (dest, vs, indices, bins, ybar) = (h.dest, h.vs, h.indices, h.bins, h.ybar);
        let i64t = PrimType::I64;
        // (odd part, exponent of two, is zero) of an element; zero counts as 1 = 2^0 · 1.
        let split = |v: &mut Self, x: SubExp| -> [SubExp; 3] {
            let z = v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, c(t, 0.0)]);
            let safe = v.e.select(z, c(t, 1.0), x);
            let tz = v.e.prim(PrimOp::Un(UnOp::Ctz, t), vec![safe]);
            let tz_t = v.e.prim(PrimOp::Conv(PrimType::I32, t), vec![tz]);
            let odd = v.e.prim(PrimOp::Bin(BinOp::LShr, t), vec![safe, tz_t]);
            let e = v.e.prim(PrimOp::Conv(PrimType::I32, i64t), vec![tz]);
            let n = v.e.select(z, SubExp::i64(1), SubExp::i64(0));
            [odd, e, n]
        };
        let parts = |v: &mut Self, n: SubExp, a: Var| -> R<Vec<Var>> {
            v.map_soac(n, vec![a], |v, ps| Ok(split(v, ps[0].into()).to_vec()))
        };
        let b = parts(self, m, bins)?;
        let x = parts(self, w, vs)?;
        let mut per_bin = Vec::new();
        for (k, (op, pt, neutral)) in [
            (BinOp::Mul, t, c(t, 1.0)),
            (BinOp::Add, i64t, SubExp::i64(0)),
            (BinOp::Add, i64t, SubExp::i64(0)),
        ]
        .into_iter()
        .enumerate()
        {
            let lam = self.bin_op_lambda(op, pt)?;
            let hint = ["odd", "twos", "zeros"][k];
            per_bin.push(self.scalar_hist(&h, b[k], lam, neutral, x[k], hint));
        }
        let (odd, twos, zeros) = (per_bin[0], per_bin[1], per_bin[2]);
        let bits = SubExp::i64(t.bits() as i64);
        // d(product of x's bin)/dx times ybar, from the bin's (O, E, Z) and x.
        let partial = |v: &mut Self, o: SubExp, e: SubExp, z: SubExp, xv: SubExp, yb: SubExp| {
            let [ox, ex, _] = split(v, xv);
            let mut inv = ox;
            for _ in 0..6 {
                let oy = v.e.prim(PrimOp::Bin(BinOp::Mul, t), vec![ox, inv]);
                let two = v.e.prim(PrimOp::Bin(BinOp::Sub, t), vec![c(t, 2.0), oy]);
                inv = v.e.prim(PrimOp::Bin(BinOp::Mul, t), vec![inv, two]);
            }
            let others_odd = v.e.prim(PrimOp::Bin(BinOp::Mul, t), vec![o, inv]);
            let shift = v.e.prim(PrimOp::Bin(BinOp::Sub, i64t), vec![e, ex]);
            let wide = v.e.prim(PrimOp::Cmp(CmpOp::Ge, i64t), vec![shift, bits]);
            let safe_shift = v.e.select(wide, SubExp::i64(0), shift);
            let shift_t = v.e.prim(PrimOp::Conv(i64t, t), vec![safe_shift]);
            let shifted =
                v.e.prim(PrimOp::Bin(BinOp::Shl, t), vec![others_odd, shift_t]);
            let val = v.e.select(wide, c(t, 0.0), shifted);
            let x0 = v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![xv, c(t, 0.0)]);
            let z0 =
                v.e.prim(PrimOp::Cmp(CmpOp::Eq, i64t), vec![z, SubExp::i64(0)]);
            let z1 =
                v.e.prim(PrimOp::Cmp(CmpOp::Eq, i64t), vec![z, SubExp::i64(1)]);
            let only =
                v.e.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![z1, x0]);
            let nonzero =
                v.e.prim(PrimOp::Bin(BinOp::Or, PrimType::Bool), vec![z0, only]);
            let d = v.e.select(nonzero, val, c(t, 0.0));
            v.e.prim(PrimOp::Bin(BinOp::Mul, t), vec![d, yb])
        };
        if self.active.contains(&vs) {
            let reads = [("at", odd), ("at", twos), ("at", zeros), ("at", ybar)];
            let vb =
                self.map_contributions(w, m, vec![indices, vs], 0, &reads, t, |v, ps, at| {
                    Ok(partial(v, at[0], at[1], at[2], ps[1].into(), at[3]))
                })?;
            self.add_adj(vs, SubExp::Var(vb), true)?;
        }
        if self.active.contains(&dest) {
            let db = self.map_soac(m, vec![odd, twos, zeros, bins, ybar], |v, ps| {
                Ok(vec![partial(
                    v,
                    ps[0].into(),
                    ps[1].into(),
                    ps[2].into(),
                    ps[3].into(),
                    ps[4].into(),
                )])
            })?;
            self.add_adj(dest, SubExp::Var(db[0]), true)?;
        }
        Ok(())
    }
}
