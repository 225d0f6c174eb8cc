//! Reverse mode of code that uses accumulators (`with_acc`, `update_acc`, and `map`s and
//! `if`s that pass accumulators along), which is what reverse mode itself produces: this is
//! what makes `vjp` of a `vjp` (reverse-over-reverse) work.
//!
//! An accumulator adds values into arrays, so the arrays a `with_acc` returns are its inputs
//! plus every value added. The adjoint of that is simple: each input array gets the adjoint
//! of the corresponding result, and each added value `v` at position `i` gets that adjoint's
//! element `i` (zero for an out-of-range `i`, which the accumulator ignores). So every
//! accumulator variable derived from one `with_acc` parameter shares one read-only adjoint,
//! the adjoint arrays of the `with_acc`'s results, and accumulators themselves never get
//! adjoints.
//!
//! In the return sweep of a `with_acc`, its lambda body is re-executed like any nested scope;
//! there the accumulators are *virtual*: nothing binds them in the generated code, so the
//! forward sweep drops the statements that only update them and removes accumulator inputs
//! and results from `map`s, `if`s and nested `with_acc`s (`strip_virtual`), while the return
//! sweep still sees the original statements and reads the adjoint arrays at their positions.
//! A loop that carries an accumulator loses that parameter (`drop_acc_params`: every
//! iteration's accumulator stands for the same adjoint) and is checkpointed like any loop
//! for the rest.

use super::{R, Vjp, limitation};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;
use crate::core::visit::stm_free_vars;
use crate::diag::Diagnostic;
use std::collections::HashMap;

fn is_acc(t: &Type) -> bool {
    matches!(t, Type::Acc { .. })
}

impl Vjp<'_> {
    /// Whether `v` is an accumulator.
    pub(super) fn is_acc_var(&self, v: Var) -> bool {
        is_acc(self.e.names.ty(v))
    }

    /// Whether the statement uses a virtual accumulator (one that only exists in the primal
    /// code, during the return sweep of its `with_acc`).
    pub(super) fn touches_virtual(&self, s: &Stm) -> bool {
        !self.virt.is_empty() && stm_free_vars(s).iter().any(|v| self.virt.contains(v))
    }

    /// A fresh virtual accumulator standing for `of` (a parameter of a re-executed lambda)
    /// that derives from `from`.
    pub(super) fn virtual_param(&mut self, of: Var, from: Var) -> Var {
        let t = self.e.names.ty(of).clone();
        let h = self.e.names.hint(of).to_string();
        let d = self.e.fresh(&h, t);
        self.virt.insert(d);
        self.acc_link.insert(d, from);
        d
    }

    /// The adjoint arrays behind accumulator `acc` (one per accumulated array).
    fn acc_bars_of(&self, acc: Var) -> R<Vec<Var>> {
        let mut v = acc;
        for _ in 0..1_000_000 {
            if let Some(b) = self.acc_bars.get(&v) {
                return Ok(b.clone());
            }
            match self.acc_link.get(&v) {
                Some(n) => v = *n,
                None => break,
            }
        }
        Err(Diagnostic::bug(format!(
            "accumulator {} has no adjoint in reverse mode",
            self.e.names.hint(acc)
        )))
    }

    /// The statement without its virtual accumulators (see the module documentation), or
    /// `None` when it only updates them. Records where each removed accumulator result comes
    /// from.
    pub(super) fn strip_virtual(&mut self, s: &Stm) -> R<Option<Stm>> {
        let unsupported = |what: &str| {
            limitation(
                s.aux.span,
                format!(
                    "reverse-mode AD of {what} that passes on an accumulator (a `vjp` inside it is differentiated again)"
                ),
            )
        };
        match &s.exp {
            Exp::BasicOp(BasicOp::UpdateAcc { acc, .. }) => {
                if self.virt.contains(acc) {
                    self.virt.insert(s.pat[0]);
                    self.acc_link.insert(s.pat[0], *acc);
                    Ok(None)
                } else {
                    Ok(Some(s.clone()))
                }
            }
            Exp::Soac(Soac::Map { w, lam, arrays }) => {
                let mut lam = lam.clone();
                let mut keep_in = Vec::new();
                let mut keep_params = Vec::new();
                for (a, p) in arrays.iter().zip(&lam.params) {
                    if self.virt.contains(a) {
                        self.virt.insert(*p);
                        self.acc_link.insert(*p, *a);
                    } else {
                        keep_in.push(*a);
                        keep_params.push(*p);
                    }
                }
                lam.params = keep_params;
                let links = self.strip_body(&mut lam.body)?;
                let pat = self.strip_results(&s.pat, &mut lam, &links);
                if pat.is_empty() {
                    return Ok(None);
                }
                Ok(Some(Stm {
                    pat,
                    exp: Exp::Soac(Soac::Map {
                        w: *w,
                        lam,
                        arrays: keep_in,
                    }),
                    aux: s.aux.clone(),
                }))
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => self.strip_virtual_if(s, *cond, then_body, else_body, ret),
            Exp::WithAcc { inputs, lam } => self.strip_virtual_with_acc(s, inputs, lam),
            Exp::Loop { .. } => {
                let mut s2 = self.drop_acc_params(s);
                if let Exp::Loop { body, .. } = &mut s2.exp {
                    let links = self.strip_body(body)?;
                    if links.iter().any(Option::is_some) {
                        return Err(unsupported("a loop"));
                    }
                }
                Ok(Some(s2))
            }
            _ => Err(unsupported("a statement")),
        }
    }

    /// [`Vjp::strip_virtual`] of an `if`: the results that are virtual accumulators in
    /// either branch are removed.
    fn strip_virtual_if(
        &mut self,
        s: &Stm,
        cond: SubExp,
        then_body: &Body,
        else_body: &Body,
        ret: &[Type],
    ) -> R<Option<Stm>> {
        let mut tb = then_body.clone();
        let mut eb = else_body.clone();
        let tl = self.strip_body(&mut tb)?;
        let el = self.strip_body(&mut eb)?;
        let mut pat = Vec::new();
        let mut ret2 = Vec::new();
        let mut tr = Vec::new();
        let mut er = Vec::new();
        for (k, p) in s.pat.iter().enumerate() {
            match (tl[k], el[k]) {
                (Some(from), _) | (None, Some(from)) => {
                    self.virt.insert(*p);
                    self.acc_link.insert(*p, from);
                }
                (None, None) => {
                    pat.push(*p);
                    ret2.push(ret[k].clone());
                    tr.push(tb.result[k]);
                    er.push(eb.result[k]);
                }
            }
        }
        if pat.is_empty() {
            return Ok(None);
        }
        tb.result = tr;
        eb.result = er;
        Ok(Some(Stm {
            pat,
            exp: Exp::If {
                cond,
                then_body: tb,
                else_body: eb,
                ret: ret2,
            },
            aux: s.aux.clone(),
        }))
    }

    /// [`Vjp::strip_virtual`] of a `with_acc`: the lambda's results beyond the accumulators
    /// that are virtual accumulators are removed.
    fn strip_virtual_with_acc(
        &mut self,
        s: &Stm,
        inputs: &[(Vec<SubExp>, Vec<Var>)],
        lam: &Lambda,
    ) -> R<Option<Stm>> {
        let mut lam = lam.clone();
        let links = self.strip_body(&mut lam.body)?;
        // The pattern binds the accumulated arrays, then the lambda's other results.
        let n_arrays: usize = inputs.iter().map(|(_, a)| a.len()).sum();
        let n_accs = inputs.len();
        let mut pat = s.pat[..n_arrays].to_vec();
        let mut result = lam.body.result[..n_accs].to_vec();
        let mut ret = lam.ret[..n_accs].to_vec();
        for (k, p) in s.pat.iter().enumerate().skip(n_arrays) {
            let j = k - n_arrays + n_accs;
            match links[j] {
                Some(from) => {
                    self.virt.insert(*p);
                    self.acc_link.insert(*p, from);
                }
                None => {
                    pat.push(*p);
                    result.push(lam.body.result[j]);
                    ret.push(lam.ret[j].clone());
                }
            }
        }
        lam.body.result = result;
        lam.ret = ret;
        Ok(Some(Stm {
            pat,
            exp: Exp::WithAcc {
                inputs: inputs.to_vec(),
                lam,
            },
            aux: s.aux.clone(),
        }))
    }

    /// Emits a primal statement, without its virtual accumulators.
    pub(super) fn push_primal(&mut self, s: &Stm) -> R<()> {
        if self.touches_virtual(s) {
            if let Some(s2) = self.strip_virtual(s)? {
                self.e.add_stm(s2);
            }
        } else {
            self.e.add_stm(s.clone());
        }
        Ok(())
    }

    /// A loop without the parameters that carry virtual accumulators: they become free
    /// (virtual) variables of the body, standing for their initial values, and the loop's
    /// results for them become virtual too.
    pub(super) fn drop_acc_params(&mut self, s: &Stm) -> Stm {
        let Exp::Loop { params, form, body } = &s.exp else {
            return s.clone();
        };
        let mut keep = Vec::new();
        let mut pat = Vec::new();
        let mut result = Vec::new();
        for (k, (p, init)) in params.iter().enumerate() {
            match init {
                SubExp::Var(a) if self.virt.contains(a) => {
                    self.virt.insert(*p);
                    self.acc_link.insert(*p, *a);
                    self.virt.insert(s.pat[k]);
                    self.acc_link.insert(s.pat[k], *a);
                }
                _ => {
                    keep.push((*p, *init));
                    pat.push(s.pat[k]);
                    result.push(body.result[k]);
                }
            }
        }
        Stm {
            pat,
            exp: Exp::Loop {
                params: keep,
                form: form.clone(),
                body: Body {
                    stms: body.stms.clone(),
                    result,
                },
            },
            aux: s.aux.clone(),
        }
    }

    /// Strips the virtual accumulators from a body's statements; for each result, the
    /// accumulator it passes on when it is a virtual one.
    fn strip_body(&mut self, b: &mut Body) -> R<Vec<Option<Var>>> {
        let mut stms = Vec::new();
        for s in &b.stms {
            if self.touches_virtual(s) {
                if let Some(s2) = self.strip_virtual(s)? {
                    stms.push(s2);
                }
            } else {
                stms.push(s.clone());
            }
        }
        b.stms = stms;
        Ok(b.result
            .iter()
            .map(|r| match r {
                SubExp::Var(v) if self.virt.contains(v) => Some(*v),
                _ => None,
            })
            .collect())
    }

    /// Removes the virtual results (`links`) from a stripped lambda and returns the pattern
    /// variables that remain; the removed ones become virtual.
    fn strip_results(&mut self, pat: &[Var], lam: &mut Lambda, links: &[Option<Var>]) -> Vec<Var> {
        let mut keep = Vec::new();
        let mut result = Vec::new();
        let mut ret = Vec::new();
        for (k, p) in pat.iter().enumerate() {
            match links[k] {
                Some(from) => {
                    self.virt.insert(*p);
                    self.acc_link.insert(*p, from);
                }
                None => {
                    keep.push(*p);
                    result.push(lam.body.result[k]);
                    ret.push(lam.ret[k].clone());
                }
            }
        }
        lam.body.result = result;
        lam.ret = ret;
        keep
    }

    /// Return sweep of `acc2 = update_acc(acc, is, vs)`: each active `v` gets the adjoint of
    /// its accumulated array at `is` (zero out of range).
    pub(super) fn rev_update_acc(
        &mut self,
        acc: Var,
        indices: &[SubExp],
        values: &[SubExp],
    ) -> R<()> {
        if !values.iter().any(|v| self.is_active(v)) {
            return Ok(());
        }
        let bars = self.acc_bars_of(acc)?;
        let Type::Acc { shape, .. } = self.e.names.ty(acc).clone() else {
            return Err(Diagnostic::bug("update_acc of a non-accumulator"));
        };
        let mut ok = SubExp::Const(crate::core::scalar::Scalar::Bool(true));
        for (i, n) in indices.iter().zip(&shape) {
            let c = self.in_range(*i, *n);
            ok = if matches!(ok, SubExp::Const(_)) {
                c
            } else {
                self.e
                    .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![ok, c])
            };
        }
        for (v, bar) in values.iter().zip(bars) {
            if !self.is_active(v) {
                continue;
            }
            let t = self.e.ty(v);
            let slice: Vec<DimIndex> = indices.iter().map(|i| DimIndex::Fix(*i)).collect();
            let r = self.try_if(
                ok,
                |w| {
                    Ok(vec![SubExp::Var(
                        w.e.basic(BasicOp::Index { array: bar, slice }, "acc_bar"),
                    )])
                },
                |w| Ok(vec![w.zero(&t)]),
                "adj",
            )?;
            self.add_adj_se(v, SubExp::Var(r[0]), false)?;
        }
        Ok(())
    }

    /// Return sweep of a `with_acc`: the input arrays get their results' adjoints, and the
    /// lambda body is re-executed with its accumulators virtual, their adjoint being those
    /// same arrays.
    pub(super) fn rev_with_acc(
        &mut self,
        s: &Stm,
        inputs: &[(Vec<SubExp>, Vec<Var>)],
        lam: &Lambda,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let mut subst = HashMap::new();
        let mut k = 0;
        for ((_, arrays), p) in inputs.iter().zip(&lam.params) {
            let mut bars = Vec::new();
            for a in arrays {
                let bar = match ybars[k] {
                    Some((SubExp::Var(b), _)) => b,
                    _ => {
                        let t = self.e.names.ty(s.pat[k]).clone();
                        let z = self.zero(&t);
                        self.e.as_var(z, "zero")
                    }
                };
                self.add_adj(*a, SubExp::Var(bar), false)?;
                bars.push(bar);
                k += 1;
            }
            let t = self.e.names.ty(*p).clone();
            let h = self.e.names.hint(*p).to_string();
            let d = self.e.fresh(&h, t);
            self.virt.insert(d);
            self.acc_bars.insert(d, bars);
            subst.insert(*p, d);
        }
        let n_accs = inputs.len();
        let mut res_adjs = vec![None; lam.body.result.len()];
        for (j, r) in res_adjs.iter_mut().enumerate().skip(n_accs) {
            *r = ybars[k + j - n_accs].map(|(se, _)| (se, false));
        }
        self.rev_reexec(&lam.body.stms, &lam.body.result, &res_adjs, subst)?;
        Ok(())
    }
}
