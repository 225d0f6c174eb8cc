//! Return sweep of a `hist` with any associative operator `⊕` on scalars, tuples or arrays
//! (SC'22, the general rule for `reduce_by_index`), for the operators `hist.rs` has no
//! cheaper rule for.
//!
//! Bin `b` of the result is `dest[b] ⊕ v(j1) ⊕ v(j2) ⊕ ..` over the contributions `j1 < j2 <
//! ..` with `is[j] == b`. The contributions are **sorted by bin** (a stable radix sort on the
//! bin numbers, out-of-range ones last), so that each bin's contributions are one segment, in
//! their original order. Two **segmented exclusive scans** then give each contribution `j` of
//! bin `b` what comes before it in its bin, `pre(j)`, and what comes after, `suf(j)` (the
//! second scan runs over the reversed segments with the operands flipped, as `⊕` need not
//! commute), so that bin `b` is `(dest[b] ⊕ pre(j)) ⊕ v(j) ⊕ suf(j)`. Per contribution,
//!
//! * `v̄(j) = vjp (\x -> ((dest[b] ⊕ pre(j)) ⊕ x) ⊕ suf(j)) v(j) ȳ[b]`,
//!
//! and per bin, with `h[b]` the bin's contributions combined (a `hist` into neutral bins),
//!
//! * `dest̄[b] = vjp (\d -> d ⊕ h[b]) dest[b] ȳ[b]`.
//!
//! Contributions with out-of-range indices were dropped by the `hist` and get zero. The
//! per-contribution adjoints are scattered back to the original positions. An operator that
//! reads a value being differentiated from its surroundings is reported as not supported
//! (its operands are what is differentiated), here and by `scan.rs`'s general rule.
//!
//! Cost: the sort makes one pass per bit of the number of bins (a map, a `+` scan and a
//! scatter over the `w` contributions each), the scans and maps a constant number of
//! operator applications and their derivatives per contribution: `O(w · log k)` for `k`
//! bins, parallel throughout. Memory: the sorted copies, `O(w)` values.

use super::{R, Vjp, limitation};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Exp, Lambda, LoopForm, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::visit::lambda_free_vars;
use std::collections::HashMap;

/// A general `hist` being differentiated, with its results' adjoints.
struct GeneralHist<'h> {
    w: SubExp,
    dests: &'h [Var],
    lam: &'h Lambda,
    neutral: &'h [SubExp],
    indices: Var,
    values: &'h [Var],
    /// The destination's original values, saved by the forward sweep.
    bins: &'h [Var],
    /// The results' adjoints, zeros where there are none.
    ybar: Vec<Var>,
    /// The number of bins.
    nb: SubExp,
}

impl Vjp<'_> {
    /// The general rule (module documentation): `bins` are the destination's original values,
    /// saved by the forward sweep.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rev_hist_general(
        &mut self,
        w: SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: &[SubExp],
        indices: Var,
        values: &[Var],
        bins: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        self.no_active_captures(lam)?;
        let k = dests.len();
        let nb = self.e.names.ty(dests[0]).dims()[0];
        // The results' adjoints, zeros where there are none.
        let mut ybar = Vec::with_capacity(k);
        for (d, y) in dests.iter().zip(ybars) {
            ybar.push(match y {
                Some((SubExp::Var(a), _)) => *a,
                _ => {
                    let t = self.e.names.ty(*d).clone();
                    let z = self.zero(&t);
                    self.e.as_var(z, "adj")
                }
            });
        }
        let h = GeneralHist {
            w,
            dests,
            lam,
            neutral,
            indices,
            values,
            bins,
            ybar,
            nb,
        };
        let active_values: Vec<usize> = (0..k)
            .filter(|c| self.active.contains(&values[*c]))
            .collect();
        if !active_values.is_empty() {
            self.general_hist_values_adjoint(&h, &active_values)?;
        }
        let active_dests: Vec<usize> = (0..k)
            .filter(|c| self.active.contains(&dests[*c]))
            .collect();
        if !active_dests.is_empty() {
            self.general_hist_dests_adjoint(&h, &active_dests)?;
        }
        Ok(())
    }

    /// The adjoints of the contributions `values[c]` for `c` in `active`:
    /// `v̄(j) = vjp (\x -> ((dest[b] ⊕ pre(j)) ⊕ x) ⊕ suf(j)) v(j) ȳ[b]`, computed on the
    /// contributions sorted by bin and scattered back.
    fn general_hist_values_adjoint(&mut self, h: &GeneralHist, active: &[usize]) -> R<()> {
        let (w, lam, neutral) = (h.w, h.lam, h.neutral);
        let (keys, perm) = self.sort_by_bin(w, h.indices, h.nb)?;
        let sorted: Vec<Var> = h
            .values
            .iter()
            .map(|v| {
                self.map_soac(w, vec![perm], |s, ps| {
                    Ok(vec![s.read(*v, ps[0].into(), "v")])
                })
                .map(|r| r[0])
            })
            .collect::<R<_>>()?;
        let (starts, ends) = self.segment_bounds(w, keys)?;
        let pre = self.exclusive_segmented_scan(w, lam, neutral, starts, &sorted, false)?;
        let rev_sorted: Vec<Var> = sorted.iter().map(|a| self.reversed(w, *a)).collect();
        let rev_ends = self.reversed(w, ends);
        let rev_suf =
            self.exclusive_segmented_scan(w, lam, neutral, rev_ends, &rev_sorted, true)?;
        let suf: Vec<Var> = rev_suf.iter().map(|a| self.reversed(w, *a)).collect();
        let mut inputs = vec![keys];
        inputs.extend(&pre);
        inputs.extend(&sorted);
        inputs.extend(&suf);
        let xbar_sorted = self.sorted_contribution_adjoints(h, active, inputs)?;
        for (c, xs) in active.iter().zip(xbar_sorted) {
            let t = self.e.names.ty(h.values[*c]).clone();
            let z = self.zero(&t);
            let zeros = self.e.as_var(z, "adj");
            let back = self.e.bind1(
                Exp::Soac(Soac::Scatter {
                    w,
                    dests: vec![zeros],
                    indices: perm,
                    values: vec![xs],
                }),
                "hist_adj",
            );
            self.add_adj(h.values[*c], SubExp::Var(back), true)?;
        }
        Ok(())
    }

    /// Per position of the bin numbers `keys` (sorted): whether it starts a segment, and
    /// whether it ends one (its bin differs from the previous, or the next, one's).
    fn segment_bounds(&mut self, w: SubExp, keys: Var) -> R<(Var, Var)> {
        let i = self.e.iota(w, "iota");
        let last = self.e.i64_bin(BinOp::Sub, w, SubExp::i64(1));
        let bounds = self.map_soac(w, vec![i, keys], |s, ps| {
            let (i, key) = (SubExp::Var(ps[0]), SubExp::Var(ps[1]));
            let mut out = Vec::new();
            for (edge, step) in [(SubExp::i64(0), -1), (last, 1)] {
                let at_edge =
                    s.e.prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![i, edge]);
                let boundary = s.try_if(
                    at_edge,
                    |_| Ok(vec![SubExp::Const(Scalar::Bool(true))]),
                    |s| {
                        let j = s.e.i64_bin(BinOp::Add, i, SubExp::i64(step));
                        let other = s.read(keys, j, "key");
                        let same =
                            s.e.prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![key, other]);
                        Ok(vec![
                            s.e.prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![same]),
                        ])
                    },
                    "edge",
                )?;
                out.push(SubExp::Var(boundary[0]));
            }
            Ok(out)
        })?;
        Ok((bounds[0], bounds[1]))
    }

    /// The adjoints of the sorted contributions `active` from `inputs` (the sorted bin
    /// numbers, then per operand the prefixes, the sorted values and the suffixes); zero for
    /// a contribution out of range.
    fn sorted_contribution_adjoints(
        &mut self,
        h: &GeneralHist,
        active: &[usize],
        inputs: Vec<Var>,
    ) -> R<Vec<Var>> {
        let (lam, nb, k) = (h.lam, h.nb, h.dests.len());
        let adj_rows: Vec<Type> = active
            .iter()
            .map(|c| self.e.names.ty(h.values[*c]).row())
            .collect();
        self.map_soac(h.w, inputs, |s, ps| {
            let (key, pre, x, suf) = (ps[0], &ps[1..=k], &ps[k + 1..=2 * k], &ps[2 * k + 1..]);
            let in_range =
                s.e.prim(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), vec![key.into(), nb]);
            let r = s.try_if(
                in_range,
                |s| {
                    let mut d = Vec::with_capacity(k);
                    for b in h.bins {
                        let se = s.read(*b, key.into(), "bin");
                        d.push(s.e.as_var(se, "bin"));
                    }
                    let yb: Vec<SubExp> = h
                        .ybar
                        .iter()
                        .map(|y| s.read(*y, key.into(), "yb"))
                        .collect();
                    let (stms, res) = s.nested(|s| {
                        let left = s.apply_op(lam, &d, pre);
                        let with_x = s.apply_op(lam, &left, x);
                        Ok(s.apply_op_se(lam, &with_x, suf))
                    })?;
                    s.adjoints_of(
                        &stms,
                        &res,
                        &yb,
                        &active.iter().map(|c| x[*c]).collect::<Vec<_>>(),
                    )
                },
                |s| Ok(adj_rows.iter().map(|t| s.zero(t)).collect()),
                "adj",
            )?;
            Ok(r.into_iter().map(SubExp::Var).collect())
        })
    }

    /// The adjoints of the destinations `dests[c]` for `c` in `active`: each bin's
    /// contributions combined (`h[b]`), then `dest̄[b] = vjp (\d -> d ⊕ h[b]) dest[b] ȳ[b]`.
    fn general_hist_dests_adjoint(&mut self, h: &GeneralHist, active: &[usize]) -> R<()> {
        let (lam, nb, k) = (h.lam, h.nb, h.dests.len());
        let mut empty = Vec::new();
        for ne in h.neutral {
            empty.push(self.e.basic(
                BasicOp::Replicate {
                    shape: vec![nb],
                    value: *ne,
                },
                "neutral_bins",
            ));
        }
        let op = self.renamed_lambda(lam);
        let combined = self.e.bind_exp(
            Exp::Soac(Soac::Hist {
                w: h.w,
                dests: empty,
                lam: op,
                neutral: h.neutral.to_vec(),
                indices: h.indices,
                values: h.values.to_vec(),
            }),
            "contributions",
        );
        let mut inputs = h.bins.to_vec();
        inputs.extend(&combined);
        inputs.extend(&h.ybar);
        let db = self.map_soac(nb, inputs, |s, ps| {
            let (d, hb, yb) = (&ps[..k], &ps[k..2 * k], &ps[2 * k..]);
            let (stms, res) = s.nested(|s| Ok(s.apply_op_se(lam, d, hb)))?;
            let yb: Vec<SubExp> = yb.iter().map(|y| SubExp::Var(*y)).collect();
            let wrt: Vec<Var> = active.iter().map(|c| d[*c]).collect();
            let r = s.adjoints_of(&stms, &res, &yb, &wrt)?;
            Ok(r)
        })?;
        for (c, a) in active.iter().zip(db) {
            self.add_adj(h.dests[*c], SubExp::Var(a), true)?;
        }
        Ok(())
    }

    /// The general rules differentiate the operator with respect to its operands only: an
    /// operator that reads a value being differentiated is reported instead.
    pub(super) fn no_active_captures(&self, lam: &Lambda) -> R<()> {
        if lambda_free_vars(lam)
            .iter()
            .any(|v| self.active.contains(v))
        {
            return Err(limitation(
                self.e.aux().span,
                "reverse-mode AD of a hist or scan whose operator reads a value being \
                 differentiated (pass it in the elements instead)",
            ));
        }
        Ok(())
    }

    /// `lam` applied to `a` and `b` (emitted, renamed), its results bound to variables.
    fn apply_op(&mut self, lam: &Lambda, a: &[Var], b: &[Var]) -> Vec<Var> {
        let r = self.apply_op_se(lam, a, b);
        r.into_iter().map(|se| self.e.as_var(se, "op")).collect()
    }

    /// `lam` applied to `a` and `b` (emitted, renamed).
    fn apply_op_se(&mut self, lam: &Lambda, a: &[Var], b: &[Var]) -> Vec<SubExp> {
        let mut args = a.to_vec();
        args.extend_from_slice(b);
        let (stms, result) = self.renamed_body(lam, &args);
        self.e.add_stms(stms);
        result
    }

    /// The adjoints of `wrt` (free variables of `stms`) given `res_adjs` for `result`: `stms`
    /// re-executed and swept back, the current adjoints left untouched.
    pub(super) fn adjoints_of(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        res_adjs: &[SubExp],
        wrt: &[Var],
    ) -> R<Vec<SubExp>> {
        let saved = std::mem::take(&mut self.adjs);
        let was_active: Vec<bool> = wrt.iter().map(|x| self.active.contains(x)).collect();
        self.active.extend(wrt.iter().copied());
        let seeds: Vec<Option<(SubExp, bool)>> =
            res_adjs.iter().map(|a| Some((*a, false))).collect();
        self.rev_reexec(stms, result, &seeds, HashMap::new())?;
        let out = wrt
            .iter()
            .map(|x| self.adj_out(*x))
            .collect::<R<Vec<_>>>()?;
        for (x, was) in wrt.iter().zip(was_active) {
            if !was {
                self.active.remove(x);
            }
        }
        self.adjs = saved;
        Ok(out)
    }

    /// Exclusive scan of `arrays` with `lam` restarted at every position where `starts` is
    /// true: per position, the earlier elements of its segment combined in order, or the
    /// neutral element at a segment's start. `flip`: combine with the operands swapped (for a
    /// scan of reversed segments, whose elements come in reverse order).
    fn exclusive_segmented_scan(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        starts: Var,
        arrays: &[Var],
        flip: bool,
    ) -> R<Vec<Var>> {
        let k = arrays.len();
        let mut params: Vec<(&str, Type)> = vec![("fa", Type::Prim(PrimType::Bool))];
        let rows: Vec<Type> = arrays.iter().map(|a| self.e.names.ty(*a).row()).collect();
        params.extend(rows.iter().map(|t| ("a", t.clone())));
        params.push(("fb", Type::Prim(PrimType::Bool)));
        params.extend(rows.iter().map(|t| ("b", t.clone())));
        // (fa, a) ⊕' (fb, b) = (fa || fb, if fb then b else a ⊕ b): associative, and it
        // restarts the combination at every flagged element.
        let lifted = self.try_lambda(&params, |s, ps| {
            let (fa, a, fb, b) = (ps[0], &ps[1..=k], ps[k + 1], &ps[k + 2..]);
            let f = s.e.prim(
                PrimOp::Bin(BinOp::Or, PrimType::Bool),
                vec![fa.into(), fb.into()],
            );
            let r = s.try_if(
                fb.into(),
                |_| Ok(b.iter().map(|v| SubExp::Var(*v)).collect()),
                |s| {
                    Ok(if flip {
                        s.apply_op_se(lam, b, a)
                    } else {
                        s.apply_op_se(lam, a, b)
                    })
                },
                "seg",
            )?;
            let mut out = vec![f];
            out.extend(r.into_iter().map(SubExp::Var));
            Ok(out)
        })?;
        let mut scan_neutral = vec![SubExp::Const(Scalar::Bool(false))];
        scan_neutral.extend_from_slice(neutral);
        let mut scan_arrays = vec![starts];
        scan_arrays.extend_from_slice(arrays);
        let incl = self.e.bind_exp(
            Exp::Soac(Soac::Scan {
                w,
                lam: lifted,
                neutral: scan_neutral,
                arrays: scan_arrays,
            }),
            "segscan",
        );
        let i = self.e.iota(w, "iota");
        self.map_soac(w, vec![i, starts], |s, ps| {
            let r = s.try_if(
                ps[1].into(),
                |_| Ok(neutral.to_vec()),
                |s| {
                    let prev = s.e.i64_bin(BinOp::Sub, ps[0].into(), SubExp::i64(1));
                    Ok(s.read_each(&incl[1..], prev, "prev"))
                },
                "excl",
            )?;
            Ok(r.into_iter().map(SubExp::Var).collect())
        })
    }

    /// The contributions sorted by bin: the sorted bins (out-of-range ones replaced by `nb`,
    /// so they come last) and the permutation (`perm[p]` is the original position of the
    /// `p`-th). A stable least-significant-digit radix sort: one pass per bit of `nb`, each a
    /// map, a `+` scan and a scatter.
    fn sort_by_bin(&mut self, w: SubExp, indices: Var, nb: SubExp) -> R<(Var, Var)> {
        let i64t = PrimType::I64;
        let keys = self.map_soac(w, vec![indices], |s, ps| {
            let ok = s.in_range(ps[0].into(), nb);
            Ok(vec![s.e.select(ok, ps[0].into(), nb)])
        })?[0];
        let perm = self.e.iota(w, "perm");
        let clz = self.e.prim(PrimOp::Un(UnOp::Clz, i64t), vec![nb]);
        let clz = self.e.prim(PrimOp::Conv(PrimType::I32, i64t), vec![clz]);
        let passes = self.e.i64_bin(BinOp::Sub, SubExp::i64(64), clz);
        let arr_t = self.e.names.ty(keys).clone();
        let key_p = self.e.fresh("keys", arr_t.clone());
        let perm_p = self.e.fresh("perm", arr_t.clone());
        let bit = self.e.fresh("bit", Type::Prim(i64t));
        let body = self.try_body(|s| {
            let flags = s.map_soac(w, vec![key_p], |s, ps| {
                let shifted = s.e.prim(
                    PrimOp::Bin(BinOp::LShr, i64t),
                    vec![ps[0].into(), bit.into()],
                );
                let one =
                    s.e.prim(PrimOp::Bin(BinOp::And, i64t), vec![shifted, SubExp::i64(1)]);
                let zero = s.e.i64_bin(BinOp::Sub, SubExp::i64(1), one);
                Ok(vec![one, zero])
            })?;
            let (ones, zeros) = (flags[0], flags[1]);
            let add = s.bin_op_lambda(BinOp::Add, i64t)?;
            let zeros_upto = s.e.bind1(
                Exp::Soac(Soac::Scan {
                    w,
                    lam: add,
                    neutral: vec![SubExp::i64(0)],
                    arrays: vec![zeros],
                }),
                "zeros_upto",
            );
            let add = s.bin_op_lambda(BinOp::Add, i64t)?;
            let n_zeros = s.e.bind1(
                Exp::Soac(Soac::Reduce {
                    w,
                    lam: add,
                    neutral: vec![SubExp::i64(0)],
                    arrays: vec![zeros],
                    commutative: true,
                }),
                "n_zeros",
            );
            let i = s.e.iota(w, "iota");
            // Zeros keep their order at the front, ones after them: a zero goes to the number
            // of zeros up to it, minus one; a one to the number of zeros plus the ones before
            // it.
            let pos = s.map_soac(w, vec![i, ones, zeros_upto], |s, ps| {
                let as_zero = s.e.i64_bin(BinOp::Sub, ps[2].into(), SubExp::i64(1));
                let ones_before = s.e.i64_bin(BinOp::Sub, ps[0].into(), ps[2].into());
                let as_one = s.e.i64_bin(BinOp::Add, n_zeros.into(), ones_before);
                let is_one = s.e.prim(
                    PrimOp::Cmp(CmpOp::Eq, i64t),
                    vec![ps[1].into(), SubExp::i64(1)],
                );
                Ok(vec![s.e.select(is_one, as_one, as_zero)])
            })?[0];
            let mut out = Vec::new();
            for src in [key_p, perm_p] {
                let scratch = s.e.basic(
                    BasicOp::Replicate {
                        shape: vec![w],
                        value: SubExp::i64(0),
                    },
                    "scratch",
                );
                out.push(SubExp::Var(s.e.bind1(
                    Exp::Soac(Soac::Scatter {
                        w,
                        dests: vec![scratch],
                        indices: pos,
                        values: vec![src],
                    }),
                    "sorted",
                )));
            }
            Ok(out)
        })?;
        let sorted = self.e.fresh("sorted_bins", arr_t.clone());
        let order = self.e.fresh("order", arr_t);
        self.e.push(
            vec![sorted, order],
            Exp::Loop {
                params: vec![(key_p, keys.into()), (perm_p, perm.into())],
                form: LoopForm::For {
                    i: bit,
                    bound: passes,
                },
                body,
            },
        );
        Ok((sorted, order))
    }
}
