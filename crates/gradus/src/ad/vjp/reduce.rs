//! Return sweep of `reduce` `r = ne ⊕ x0 ⊕ .. ⊕ x(w-1)` (SC'22, rule for `reduce`).
//!
//! Forward sweep: the `reduce` is emitted as it is; the rule needs only its result `r`, which is
//! in scope.
//!
//! Return sweep, with `r̄` the adjoint of the result:
//! * **`+`** (also independent sums on tuples or rows): `∂r/∂xᵢ = 1`, so `xs̄ = replicate w r̄`
//!   and the neutral element gets `r̄`. `O(w)`.
//! * **`min`/`max`**: `∂r/∂xᵢ` is 1 for the one element that is the result and 0 elsewhere; with
//!   ties the whole adjoint goes to the first element equal to the result, the neutral element
//!   counting as first (docs/language.md §Array operations). A `map` marks the candidates and a
//!   `min` reduce finds the first. `O(w)`.
//! * **any other operator** (`*`, tuples and arrays included): by associativity
//!   `r = lᵢ ⊕ xᵢ ⊕ rᵢ` with `lᵢ = ne ⊕ x0 ⊕ .. ⊕ x(i-1)` and `rᵢ = x(i+1) ⊕ .. ⊕ x(w-1)`, two
//!   exclusive scans (the second over the reversed array with the operands flipped, as the
//!   operator need not commute); then `x̄ᵢ = vjp (\x -> lᵢ ⊕ x ⊕ rᵢ) xᵢ r̄` in a `map`. Two
//!   scans and a map cost a constant times the primal's operator applications. For `*` that is
//!   `r̄ · lᵢ · rᵢ`: exact with zeros and for integers (no division), and differentiable again
//!   (Hessians), which a zero-counting formula is not.

use super::soac::{additive_components, c, simple_op};
use super::{Adj, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::PrimType;
use std::collections::HashMap;

impl Vjp<'_> {
    pub(super) fn rev_reduce(
        &mut self,
        s: &Stm,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        // Independent sums on tuples or rows: each operand gets its result's adjoint.
        if simple_op(lam).is_none() && additive_components(lam) {
            for ((x, ne), ybar) in arrays.iter().zip(neutral).zip(ybars) {
                if let Some((ybar, _)) = ybar {
                    self.rev_sum_reduce(w, *x, ne, *ybar)?;
                }
            }
            return Ok(());
        }
        if let (Some((op, t)), [x], [ne], [Some((ybar, _))]) =
            (simple_op(lam), arrays, neutral, ybars)
        {
            let (x, ne, ybar) = (*x, *ne, *ybar);
            match op {
                BinOp::Add => return self.rev_sum_reduce(w, x, &ne, ybar),
                BinOp::Min | BinOp::Max => {
                    let r = SubExp::Var(s.pat[0]);
                    let ne_wins = self.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ne, r]);
                    let i = self.e.iota(w, "iota");
                    // The candidates' indices, and (in the same pass) the zeros of the
                    // adjoint array.
                    let cand = self.map_soac(w, vec![i, x], |v, ps| {
                        let hit = v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[1].into(), r]);
                        Ok(vec![v.e.select(hit, ps[0].into(), w), c(t, 0.0)])
                    })?;
                    let zeros = cand[1];
                    let cand = vec![cand[0]];
                    let lam_min = self.bin_op_lambda(BinOp::Min, PrimType::I64)?;
                    let first = self.e.bind1(
                        Exp::Soac(Soac::Reduce {
                            w,
                            lam: lam_min,
                            neutral: vec![w],
                            arrays: cand,
                            commutative: true,
                        }),
                        "first",
                    );
                    if self.active.contains(&x) {
                        // One non-zero element: zeros with [first] = ȳ (unless the neutral
                        // element or nothing won).
                        let val = self.e.select(ne_wins, c(t, 0.0), ybar);
                        let found = self
                            .e
                            .prim(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), vec![first.into(), w]);
                        // Where the adjoint array exists and is ours, ȳ is added at `first` in
                        // place instead of adding a one-hot array to it element by element.
                        let owned = match self.adjs.get(&x) {
                            Some(Adj::Val(SubExp::Var(a), true)) => Some(*a),
                            _ => None,
                        };
                        let base = owned.unwrap_or(zeros);
                        let xb = self.try_if(
                            found,
                            |v| {
                                let new = match owned {
                                    Some(a) => {
                                        let old = v.read(a, first.into(), "adj_elem");
                                        v.e.prim(PrimOp::Bin(BinOp::Add, t), vec![old, val])
                                    }
                                    None => val,
                                };
                                Ok(vec![v.write(base, first.into(), new, "red_adj")])
                            },
                            |_| Ok(vec![SubExp::Var(base)]),
                            "adj",
                        )?;
                        if owned.is_some() {
                            self.adjs.insert(x, Adj::Val(SubExp::Var(xb[0]), true));
                        } else {
                            self.add_adj(x, SubExp::Var(xb[0]), true)?;
                        }
                    }
                    if self.is_active(&ne) {
                        let nb = self.e.select(ne_wins, ybar, c(t, 0.0));
                        self.add_adj_se(&ne, nb, false)?;
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        self.rev_reduce_general(w, lam, neutral, arrays, ybars)
    }

    /// The adjoint of one sum `r = ne + x0 + .. + x(w-1)` (of scalars or rows): every
    /// element and the neutral element get `r̄` (`xs̄ = replicate w r̄`).
    fn rev_sum_reduce(&mut self, w: SubExp, x: Var, ne: &SubExp, ybar: SubExp) -> R<()> {
        if self.active.contains(&x) {
            let r = self.e.basic(
                BasicOp::Replicate {
                    shape: vec![w],
                    value: ybar,
                },
                "red_adj",
            );
            self.add_adj(x, SubExp::Var(r), true)?;
        }
        self.add_adj_se(ne, ybar, false)
    }

    /// `lam` applied to `(a.., b..)`, its statements renamed; returns the statements (emitted)
    /// and results.
    fn inline_op(&mut self, lam: &Lambda, args: &[Var]) -> Vec<SubExp> {
        let (stms, result) = self.renamed_body(lam, args);
        self.e.add_stms(stms);
        result
    }

    /// A lambda with the operands swapped: `\a b -> op b a`.
    fn flipped(&mut self, lam: &Lambda) -> R<Lambda> {
        let k = lam.params.len() / 2;
        let tys: Vec<(&str, Type)> = lam
            .params
            .iter()
            .map(|p| ("x", self.e.names.ty(*p).clone()))
            .collect();
        self.try_lambda(&tys, |v, ps| {
            let mut args = ps[k..].to_vec();
            args.extend_from_slice(&ps[..k]);
            Ok(v.inline_op(lam, &args))
        })
    }

    /// Exclusive scan: `[ne, x0, x0 ⊕ x1, ..]` (`k` arrays).
    pub(super) fn exclusive_scan(
        &mut self,
        w: SubExp,
        lam: Lambda,
        neutral: &[SubExp],
        arrays: Vec<Var>,
    ) -> R<Vec<Var>> {
        let incl = self.e.bind_exp(
            Exp::Soac(Soac::Scan {
                w,
                lam,
                neutral: neutral.to_vec(),
                arrays,
            }),
            "scan",
        );
        let i = self.e.iota(w, "iota");
        self.map_soac(w, vec![i], |v, ps| {
            let r = v.previous_or(&incl, neutral, ps[0].into(), "prev")?;
            Ok(r.into_iter().map(SubExp::Var).collect())
        })
    }

    fn rev_reduce_general(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let k = arrays.len();
        let copy = self.renamed_lambda(lam);
        let left = self.exclusive_scan(w, copy, neutral, arrays.to_vec())?;
        let revs: Vec<Var> = arrays.iter().map(|a| self.reversed(w, *a)).collect();
        let flip = self.flipped(lam)?;
        let rscan = self.exclusive_scan(w, flip, neutral, revs)?;
        let right: Vec<Var> = rscan.iter().map(|a| self.reversed(w, *a)).collect();
        let ybar_vals: Vec<Option<(SubExp, bool)>> =
            ybars.iter().map(|y| y.map(|(se, _)| (se, false))).collect();
        let mut inputs = left;
        inputs.extend_from_slice(arrays);
        inputs.extend(right);
        let active: Vec<usize> = (0..k)
            .filter(|j| self.active.contains(&arrays[*j]))
            .collect();
        let xb = self.map_soac(w, inputs, |v, ps| {
            let (l, x, r) = (&ps[..k], &ps[k..2 * k], &ps[2 * k..]);
            // The body `(l ⊕ x) ⊕ r`, differentiated with respect to x.
            let (stms, res) = v.nested(|v| {
                let mut args = l.to_vec();
                args.extend_from_slice(x);
                let t = v.inline_op(lam, &args);
                let mut args2: Vec<Var> = Vec::new();
                for se in t {
                    args2.push(v.e.as_var(se, "t"));
                }
                args2.extend_from_slice(r);
                Ok(v.inline_op(lam, &args2))
            })?;
            let saved = std::mem::take(&mut v.adjs);
            for j in &active {
                v.active.insert(x[*j]);
            }
            v.rev_reexec(&stms, &res, &ybar_vals, HashMap::new())?;
            let mut out = Vec::new();
            for j in &active {
                out.push(v.adj_out(x[*j])?);
            }
            v.adjs = saved;
            Ok(out)
        })?;
        for (j, a) in active.iter().zip(xb) {
            self.add_adj(arrays[*j], SubExp::Var(a), true)?;
        }
        Ok(())
    }
}
