//! Entry points, statement sequences, `if`, loops and lambda application.
//!
//! Takes bodies of a verified program. Guarantees one [`imp::Function`] per entry point whose
//! results are the body's results and whose cleanup releases the arrays of its scope;
//! statements run in order (see [`super::reduce`] for the one pair that is merged), both
//! branches of an `if` and the iterations of a loop assign the same declared variables,
//! and a loop's parameters are replaced by its body's results only after the body has
//! released its own arrays.

use super::imp::{self, Ex, Share, Stm as I, Ty};
use super::soac::virtual_iotas;
use super::{Lw, R, convert};
use crate::core::ir::{Body, Exp, FunDef, Lambda, LoopForm, Stm, SubExp, Type, Var};
use crate::core::scalar::PrimType;
use crate::diag::Span;

impl<'a> Lw<'a> {
    pub(super) fn function(&mut self, f: &FunDef, entry: &str, k: usize) -> R<imp::Function> {
        let mut inputs = Vec::new();
        let mut input_dims = Vec::new();
        for &p in f.size_params.iter().chain(&f.params) {
            let ty = match self.ty(p) {
                Type::Prim(t) => Ty::Prim(*t),
                Type::Array { elem, .. } => Ty::Array(*elem),
                Type::Acc { .. } => {
                    return Err("internal error: an entry point takes an accumulator".into());
                }
            };
            input_dims.push(match ty {
                Ty::Array(_) => self.var_dims(p),
                _ => vec![],
            });
            inputs.push((self.name(p), ty));
        }
        self.virtual_iotas = virtual_iotas(&self.prog.names, &f.body);
        let mut body = Vec::new();
        self.stms(&f.body, &mut body)?;
        let mut results = Vec::new();
        for r in &f.body.result {
            match r {
                SubExp::Const(c) => results.push(imp::EntryResult {
                    elem: c.prim_type(),
                    value: Ex::Const(*c),
                    dims: vec![],
                }),
                SubExp::Var(v) => {
                    let t = self.ty(*v);
                    if matches!(t, Type::Acc { .. }) {
                        return Err("internal error: an entry point returns an accumulator".into());
                    }
                    results.push(imp::EntryResult {
                        elem: t.elem(),
                        value: Ex::Var(self.name(*v)),
                        dims: self.var_dims(*v),
                    });
                }
            }
        }
        let mut cleanup = Vec::new();
        self.end_scope(&f.body, &mut cleanup);
        Ok(imp::Function {
            entry: entry.to_string(),
            c_name: format!("gradus_entry_{k}"),
            inputs,
            input_dims,
            body,
            results,
            cleanup,
        })
    }

    /// Lowers the statements of `body`; the caller uses its results, then calls
    /// [`Lw::end_scope`].
    pub(super) fn stms(&mut self, body: &Body, out: &mut Vec<I>) -> R<()> {
        let placements = self.placements(body);
        let mut plan = self.scope_plan(body);
        let mut releases = std::mem::take(&mut plan.releases);
        self.copied_views.extend(plan.copied_views.drain());
        let mut j = 0;
        while j < body.stms.len() {
            // Arrays no statement from here on uses: their buffers may then be updated in
            // place by what follows instead of copied.
            while let Some(entry) = releases.first_entry() {
                if *entry.key() > j {
                    break;
                }
                for name in entry.remove() {
                    out.push(I::Decref(name));
                }
            }
            // A producer is a map, never the reduce of a map-reduce pair.
            self.place_before(&placements, j, out);
            // Only for this statement: a loop it contains, lowered here, takes it.
            self.last_used_once = plan.last_used_once.remove(&j).unwrap_or_default();
            if self.map_reduce(body, j, out)? {
                j += 2;
            } else {
                self.stm(&body.stms[j], out)?;
                j += 1;
            }
        }
        Ok(())
    }

    pub(super) fn stm(&mut self, stm: &Stm, out: &mut Vec<I>) -> R<()> {
        for &v in &stm.pat {
            if !self.preallocated.contains_key(&v) {
                self.declare(v, out);
            }
        }
        let aux = &stm.aux;
        match &stm.exp {
            Exp::BasicOp(op) => self.basic(&stm.pat, op, aux, out),
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let dsts: Vec<(String, Type)> = stm
                    .pat
                    .iter()
                    .map(|v| (self.name(*v), self.ty(*v).clone()))
                    .collect();
                let mut then = Vec::new();
                self.body_into(then_body, &dsts, &mut then)?;
                let mut els = Vec::new();
                self.body_into(else_body, &dsts, &mut els)?;
                out.push(I::If {
                    cond: self.se(cond),
                    then,
                    els,
                });
                Ok(())
            }
            Exp::Loop { params, form, body } => {
                self.lower_loop(&stm.pat, params, form, body, stm.aux.span, out)
            }
            Exp::Apply { fun, .. } => Err(format!(
                "the C backend cannot call functions (a call of {fun} was not inlined)"
            )),
            Exp::Ad { mode, .. } => Err(format!(
                "the C backend cannot lower an unexpanded {} (the AD pass did not run)",
                mode.name()
            )),
            Exp::Soac(soac) => self.soac(&stm.pat, soac, aux, out),
            Exp::WithAcc { inputs, lam } => self.with_acc(&stm.pat, inputs, lam, aux, out),
        }
    }

    /// Lowers `body` and assigns its results to the declared variables `dsts` (of types
    /// `tys`), then ends its scope.
    fn body_into(&mut self, body: &Body, dsts: &[(String, Type)], out: &mut Vec<I>) -> R<()> {
        self.stms(body, out)?;
        if body.result.len() != dsts.len() {
            return Err("internal error: a body returns the wrong number of values".into());
        }
        for ((d, t), r) in dsts.iter().zip(&body.result) {
            self.assign_named(d, t, r, out);
        }
        self.end_scope(body, out);
        Ok(())
    }

    fn lower_loop(
        &mut self,
        pat: &[Var],
        params: &[(Var, SubExp)],
        form: &LoopForm,
        body: &Body,
        at: Span,
        out: &mut Vec<I>,
    ) -> R<()> {
        let last_used_once = std::mem::take(&mut self.last_used_once);
        for (p, init) in params {
            self.declare(*p, out);
            match init {
                // Nothing reads the array after the loop (nor elsewhere in it): the
                // parameter takes its reference instead of sharing the buffer.
                SubExp::Var(x)
                    if matches!(self.ty(*p), Type::Array { .. }) && last_used_once.contains(x) =>
                {
                    let (pn, xn) = (self.name(*p), self.name(*x));
                    let ty = self.ty(*p).clone();
                    self.move_into(&pn, &xn, &ty, out);
                }
                _ => self.assign(*p, init, out),
            }
        }
        let mut inner = Vec::new();
        let owned: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        if let LoopForm::For { i, bound } = form {
            let t = self.ty(*i).elem();
            let _ = bound;
            let c = self.fresh("it");
            let val = convert(Ex::Var(c.clone()), PrimType::I64, t);
            inner.push(I::Decl {
                ty: Ty::Prim(t),
                name: self.name(*i),
                init: Some(val),
            });
            self.owned_params = owned;
            self.stms(body, &mut inner)?;
            self.loop_step(params, body, &mut inner)?;
            let bound = self.ix(bound);
            let independent = self.independent_loop(*i, params, body, &inner);
            if independent && let Some(mark) = self.loop_sum_mark(params, body) {
                inner.insert(0, mark);
            }
            out.push(I::For {
                down: false,
                independent,
                var: c,
                bound,
                body: inner,
                at: Some(at),
            });
        } else if let LoopForm::While { cond } = form {
            self.owned_params = owned;
            self.stms(body, &mut inner)?;
            self.loop_step(params, body, &mut inner)?;
            out.push(I::While {
                cond: Ex::Var(self.name(*cond)),
                body: inner,
                at: Some(at),
            });
        }
        for (v, (p, _)) in pat.iter().zip(params) {
            let (d, s) = (self.name(*v), self.name(*p));
            let ty = self.ty(*p).clone();
            self.move_into(&d, &s, &ty, out);
        }
        Ok(())
    }

    /// The end of a loop iteration: the body's results become the parameters.
    fn loop_step(&mut self, params: &[(Var, SubExp)], body: &Body, out: &mut Vec<I>) -> R<()> {
        if body.result.len() != params.len() {
            return Err("internal error: loop body and parameters disagree".into());
        }
        let mut tmps = Vec::new();
        for ((p, _), r) in params.iter().zip(&body.result) {
            let ty = self.ty(*p).clone();
            let t = self.fresh("next");
            self.decl_named(&t, &ty, out);
            self.assign_named(&t, &ty, r, out);
            tmps.push((t, ty));
        }
        self.end_scope(body, out);
        for (p, _) in params {
            if matches!(self.ty(*p), Type::Array { .. }) {
                out.push(I::Decref(self.name(*p)));
            }
        }
        for ((p, _), (t, ty)) in params.iter().zip(&tmps) {
            let pn = self.name(*p);
            self.move_into(&pn, t, ty, out);
        }
        Ok(())
    }

    /// Applies `lam` to `args` (declared names with types) and assigns its results to the
    /// declared `dsts`; everything inside one block.
    pub(super) fn apply(
        &mut self,
        lam: &Lambda,
        args: &[(String, Type)],
        dsts: &[(String, Type)],
        out: &mut Vec<I>,
    ) -> R<()> {
        if lam.params.len() != args.len() {
            return Err("internal error: lambda applied to the wrong number of values".into());
        }
        for (p, (a, t)) in lam.params.iter().zip(args) {
            self.declare(*p, out);
            let pn = self.name(*p);
            match t {
                Type::Array { .. } => out.push(I::SetArr {
                    dst: pn,
                    src: a.clone(),
                    offset: Ex::int(0),
                    share: Share::Ref,
                }),
                _ => out.push(I::Set {
                    name: pn,
                    val: Ex::var(a),
                }),
            }
        }
        self.stms(&lam.body, out)?;
        for ((d, t), r) in dsts.iter().zip(&lam.body.result) {
            self.assign_named(d, t, r, out);
        }
        self.end_scope(&lam.body, out);
        for p in &lam.params {
            if matches!(self.ty(*p), Type::Array { .. }) {
                out.push(I::Decref(self.name(*p)));
            }
        }
        Ok(())
    }
}
