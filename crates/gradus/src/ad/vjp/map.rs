//! Return sweep of `map` (SC'22, rule for `map`).
//!
//! Forward sweep: the `map` is emitted as it is; nothing is saved.
//!
//! Return sweep: one `map` over the inputs and the rows of `ȳ` whose lambda re-executes the
//! original lambda on its row (redundant execution) and then runs the lambda's return sweep. It
//! returns, per row, the adjoints of the row parameters (so the inputs' adjoints come out as
//! arrays) and the row's contributions to the adjoints of free scalars (summed afterwards with a
//! `reduce`); free arrays are added into through accumulators (`with_acc` around the map, or the
//! enclosing lambda's accumulator when the map is itself inside a lambda).
//!
//! Correct because the rows are independent: the map's Jacobian is block-diagonal in the row
//! parameters, and a variable bound outside the lambda is used by every row, so its adjoint is
//! the sum of the rows' adjoints. Efficient because re-execution costs one more run of the
//! lambda, and accumulators let a row that reads `xs[i]` of a free array add `O(1)` to its
//! adjoint instead of producing a full adjoint array per row (`O(w)` rather than `O(w · n)`).

use super::loops::Preset;
use super::{Adj, Diagnostic, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{Exp, Lambda, Soac, SubExp, Type, Var};
use crate::core::type_of::acc_type;
use crate::core::visit::lambda_free_vars;
use std::collections::HashMap;

impl Vjp<'_> {
    pub(super) fn rev_map(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        arrays: &[Var],
        kept: &[(usize, Var)],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let free: Vec<Var> = lambda_free_vars(lam)
            .into_iter()
            .filter(|v| self.active.contains(v) && !matches!(self.e.names.ty(*v), Type::Acc { .. }))
            .collect();
        let (free_arrays, free_scalars): (Vec<Var>, Vec<Var>) = free
            .into_iter()
            .partition(|v| self.e.names.ty(*v).rank() > 0);
        // Free arrays add into accumulators: the enclosing lambda's, or new ones.
        let mut outer = Vec::new();
        let mut groups = Vec::new();
        for x in free_arrays {
            match self.adjs.remove(&x) {
                Some(Adj::Acc(a)) => outer.push((x, a)),
                other => {
                    let a = self.owned_adj(x, other)?;
                    groups.push((x, a));
                }
            }
        }
        let ybar_arrays: Vec<(usize, Var)> = ybars
            .iter()
            .enumerate()
            .filter_map(|(k, y)| match y {
                Some((SubExp::Var(v), _)) => Some((k, *v)),
                _ => None,
            })
            .collect();
        // Accumulator inputs (in a `vjp` of a `vjp`) are virtual: the adjoint map does not
        // take them, and their parameters stand for them (see `accs.rs`).
        let real_params: Vec<usize> = (0..lam.params.len())
            .filter(|k| !self.is_acc_var(arrays[*k]))
            .collect();
        let active_params: Vec<usize> = real_params
            .iter()
            .copied()
            .filter(|k| self.active.contains(&arrays[*k]))
            .collect();
        let build = |v: &mut Self, accs: Vec<(Var, Var)>| -> R<Vec<Var>> {
            let mut ptys: Vec<(&str, Type)> = real_params
                .iter()
                .map(|k| ("x", v.e.names.ty(lam.params[*k]).clone()))
                .collect();
            for (_, y) in &ybar_arrays {
                ptys.push(("ybar", v.e.names.ty(*y).row()));
            }
            for (_, r) in kept {
                ptys.push(("kept", v.e.names.ty(*r).row()));
            }
            for (_, a) in &accs {
                ptys.push(("acc", v.e.names.ty(*a).clone()));
            }
            let rev_lam = v.try_lambda(&ptys, |v, ps| {
                let k = real_params.len();
                let mut subst: HashMap<Var, Var> = HashMap::new();
                let mut new_param = HashMap::new();
                for (j, p) in real_params.iter().zip(ps) {
                    subst.insert(lam.params[*j], *p);
                    new_param.insert(*j, *p);
                }
                for (j, p) in lam.params.iter().enumerate() {
                    if !new_param.contains_key(&j) {
                        let d = v.virtual_param(*p, arrays[j]);
                        subst.insert(*p, d);
                    }
                }
                for j in &active_params {
                    v.active.insert(new_param[j]);
                }
                let saved = std::mem::take(&mut v.adjs);
                let nk = k + ybar_arrays.len();
                for ((x, _), p) in accs.iter().zip(&ps[nk + kept.len()..]) {
                    v.adjs.insert(*x, Adj::Acc(*p));
                }
                let mut res_adjs = vec![None; lam.body.result.len()];
                for ((r, _), p) in ybar_arrays.iter().zip(&ps[k..]) {
                    res_adjs[*r] = Some((SubExp::Var(*p), false));
                }
                // Values an enclosing loop's forward sweep kept are read, not computed.
                for ((j, _), p) in kept.iter().zip(&ps[nk..]) {
                    v.preset.insert(*j, Preset::Value(*p));
                }
                v.rev_reexec(&lam.body.stms, &lam.body.result, &res_adjs, subst)?;
                let mut out = Vec::new();
                for (x, _) in &accs {
                    out.push(v.adj_out(*x)?);
                }
                for j in &active_params {
                    out.push(v.adj_out(new_param[j])?);
                }
                for x in &free_scalars {
                    out.push(v.adj_out(*x)?);
                }
                v.adjs = saved;
                Ok(out)
            })?;
            let mut inputs: Vec<Var> = real_params.iter().map(|k| arrays[*k]).collect();
            inputs.extend(ybar_arrays.iter().map(|(_, y)| *y));
            inputs.extend(kept.iter().map(|(_, r)| *r));
            inputs.extend(accs.iter().map(|(_, a)| *a));
            Ok(v.e.bind_exp(
                Exp::Soac(Soac::Map {
                    w,
                    lam: rev_lam,
                    arrays: inputs,
                }),
                "map_adj",
            ))
        };
        let out: Vec<Var> = if groups.is_empty() {
            build(self, outer.clone())?
        } else {
            let acc_tys: Vec<(&str, Type)> = groups
                .iter()
                .map(|(_, a)| {
                    let shape = self.e.names.ty(*a).dims().to_vec();
                    ("acc", acc_type(&self.e.names, &shape, &[*a]))
                })
                .collect();
            let no = outer.len();
            let outer2 = outer.clone();
            let groups_x: Vec<Var> = groups.iter().map(|(x, _)| *x).collect();
            let wlam = self.try_lambda(&acc_tys, |v, ps| {
                let mut accs = outer2.clone();
                accs.extend(groups_x.iter().copied().zip(ps.iter().copied()));
                let pat = build(v, accs)?;
                // The new accumulators first, then the enclosing ones and the rest.
                let mut res: Vec<SubExp> = pat[no..no + ps.len()]
                    .iter()
                    .map(|x| SubExp::Var(*x))
                    .collect();
                res.extend(pat[..no].iter().map(|x| SubExp::Var(*x)));
                res.extend(pat[no + ps.len()..].iter().map(|x| SubExp::Var(*x)));
                Ok(res)
            })?;
            let inputs = groups
                .iter()
                .map(|(_, a)| (self.e.names.ty(*a).dims().to_vec(), vec![*a]))
                .collect();
            let r = self.e.bind_exp(Exp::WithAcc { inputs, lam: wlam }, "adj");
            // Reorder to the map's order: enclosing accumulators, new ones, rest.
            let ng = groups.len();
            let mut out = r[ng..ng + no].to_vec();
            out.extend_from_slice(&r[..ng]);
            out.extend_from_slice(&r[ng + no..]);
            out
        };
        let mut it = out.into_iter();
        for (x, _) in &outer {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            self.adjs.insert(*x, Adj::Acc(a));
        }
        for (x, _) in &groups {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            self.adjs.insert(*x, Adj::Val(SubExp::Var(a), true));
        }
        for j in &active_params {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            self.add_adj(arrays[*j], SubExp::Var(a), true)?;
        }
        for x in &free_scalars {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            let sum = self.sum_outer(a)?;
            self.add_adj(*x, sum, false)?;
        }
        Ok(())
    }
}
