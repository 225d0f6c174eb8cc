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

/// What the return sweep of one `map` works from.
struct MapAdj<'l> {
    w: SubExp,
    lam: &'l Lambda,
    arrays: &'l [Var],
    /// Values an enclosing loop's forward sweep kept: positions in the lambda, and rows.
    kept: &'l [(usize, Var)],
    /// The results that have adjoints: their positions and adjoints.
    ybar_arrays: Vec<(usize, Var)>,
    /// The positions of the lambda's parameters that are not virtual accumulators.
    real_params: Vec<usize>,
    /// Those of them whose arrays are active.
    active_params: Vec<usize>,
    /// The active free scalars, whose adjoints each row returns.
    free_scalars: Vec<Var>,
}

impl Vjp<'_> {
    /// The return sweep of `map (lam) arrays` of width `w` (see the module's documentation).
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
        let m = MapAdj {
            w,
            lam,
            arrays,
            kept,
            ybar_arrays,
            real_params,
            active_params,
            free_scalars,
        };
        let out: Vec<Var> = if groups.is_empty() {
            self.adjoint_map(&m, outer.clone())?
        } else {
            self.adjoint_map_in_with_acc(&m, &outer, &groups)?
        };
        self.take_map_adjoints(&m, out, &outer, &groups)
    }

    /// The adjoint map, adding into the accumulators `accs` (adjoint owner, accumulator):
    /// returns the accumulators, then the adjoints of the active parameters' arrays, then
    /// the rows' contributions to the free scalars' adjoints.
    fn adjoint_map(&mut self, m: &MapAdj, accs: Vec<(Var, Var)>) -> R<Vec<Var>> {
        let mut ptys: Vec<(&str, Type)> = m
            .real_params
            .iter()
            .map(|k| ("x", self.e.names.ty(m.lam.params[*k]).clone()))
            .collect();
        for (_, y) in &m.ybar_arrays {
            ptys.push(("ybar", self.e.names.ty(*y).row()));
        }
        for (_, r) in m.kept {
            ptys.push(("kept", self.e.names.ty(*r).row()));
        }
        for (_, a) in &accs {
            ptys.push(("acc", self.e.names.ty(*a).clone()));
        }
        let rev_lam = self.try_lambda(&ptys, |v, ps| v.adjoint_row(m, &accs, ps))?;
        let mut inputs: Vec<Var> = m.real_params.iter().map(|k| m.arrays[*k]).collect();
        inputs.extend(m.ybar_arrays.iter().map(|(_, y)| *y));
        inputs.extend(m.kept.iter().map(|(_, r)| *r));
        inputs.extend(accs.iter().map(|(_, a)| *a));
        Ok(self.e.bind_exp(
            Exp::Soac(Soac::Map {
                w: m.w,
                lam: rev_lam,
                arrays: inputs,
            }),
            "map_adj",
        ))
    }

    /// The body of the adjoint map's lambda, on its parameters `ps` (rows of the inputs,
    /// of the results' adjoints, of kept values, then accumulators): the lambda
    /// re-executed on its row and swept backwards.
    fn adjoint_row(&mut self, m: &MapAdj, accs: &[(Var, Var)], ps: &[Var]) -> R<Vec<SubExp>> {
        let lam = m.lam;
        let k = m.real_params.len();
        let mut subst: HashMap<Var, Var> = HashMap::new();
        let mut new_param = HashMap::new();
        for (j, p) in m.real_params.iter().zip(ps) {
            subst.insert(lam.params[*j], *p);
            new_param.insert(*j, *p);
        }
        for (j, p) in lam.params.iter().enumerate() {
            if !new_param.contains_key(&j) {
                let d = self.virtual_param(*p, m.arrays[j]);
                subst.insert(*p, d);
            }
        }
        for j in &m.active_params {
            self.active.insert(new_param[j]);
        }
        let saved = std::mem::take(&mut self.adjs);
        let nk = k + m.ybar_arrays.len();
        for ((x, _), p) in accs.iter().zip(&ps[nk + m.kept.len()..]) {
            self.adjs.insert(*x, Adj::Acc(*p));
        }
        let mut res_adjs = vec![None; lam.body.result.len()];
        for ((r, _), p) in m.ybar_arrays.iter().zip(&ps[k..]) {
            res_adjs[*r] = Some((SubExp::Var(*p), false));
        }
        // Values an enclosing loop's forward sweep kept are read, not computed.
        for ((j, _), p) in m.kept.iter().zip(&ps[nk..]) {
            self.preset.insert(*j, Preset::Value(*p));
        }
        self.rev_reexec(&lam.body.stms, &lam.body.result, &res_adjs, subst)?;
        let mut out = Vec::new();
        for (x, _) in accs {
            out.push(self.adj_out(*x)?);
        }
        for j in &m.active_params {
            out.push(self.adj_out(new_param[j])?);
        }
        for x in &m.free_scalars {
            out.push(self.adj_out(*x)?);
        }
        self.adjs = saved;
        Ok(out)
    }

    /// The adjoint map inside a `with_acc` that makes accumulators for the adjoints
    /// `groups` (owner, owned adjoint array), besides the enclosing ones `outer`; returns
    /// what [`Vjp::adjoint_map`] does, in the same order.
    fn adjoint_map_in_with_acc(
        &mut self,
        m: &MapAdj,
        outer: &[(Var, Var)],
        groups: &[(Var, Var)],
    ) -> R<Vec<Var>> {
        let acc_tys: Vec<(&str, Type)> = groups
            .iter()
            .map(|(_, a)| {
                let shape = self.e.names.ty(*a).dims().to_vec();
                ("acc", acc_type(&self.e.names, &shape, &[*a]))
            })
            .collect();
        let no = outer.len();
        let groups_x: Vec<Var> = groups.iter().map(|(x, _)| *x).collect();
        let wlam = self.try_lambda(&acc_tys, |v, ps| {
            let mut accs = outer.to_vec();
            accs.extend(groups_x.iter().copied().zip(ps.iter().copied()));
            let pat = v.adjoint_map(m, accs)?;
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
        Ok(out)
    }

    /// Makes the adjoint map's results `out` the adjoints: accumulators of the enclosing
    /// lambda, new adjoint arrays, the parameters' arrays' adjoints, and the free scalars'
    /// (summed over the rows).
    fn take_map_adjoints(
        &mut self,
        m: &MapAdj,
        out: Vec<Var>,
        outer: &[(Var, Var)],
        groups: &[(Var, Var)],
    ) -> R<()> {
        let mut it = out.into_iter();
        let mut next = || {
            it.next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))
        };
        for (x, _) in outer {
            let a = next()?;
            self.adjs.insert(*x, Adj::Acc(a));
        }
        for (x, _) in groups {
            let a = next()?;
            self.adjs.insert(*x, Adj::Val(SubExp::Var(a), true));
        }
        for j in &m.active_params {
            let a = next()?;
            self.add_adj(m.arrays[*j], SubExp::Var(a), true)?;
        }
        for x in &m.free_scalars {
            let a = next()?;
            let sum = self.sum_outer(a)?;
            self.add_adj(*x, sum, false)?;
        }
        Ok(())
    }
}
