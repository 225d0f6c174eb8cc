//! Control flow for the verifier: `if`, loops, calls and lambdas. Checks branch, body and
//! argument types against the pattern or the parameters (with existential sizes standing for
//! the values that give them) and works out what each construct consumes of its scope.

use super::{R, Subst, Verifier, same_shape_class};
use crate::core::ir::{Body, Lambda, LoopForm, Stm, SubExp, Type, Var};
use crate::core::scalar::PrimType;

impl<'a> Verifier<'a> {
    /// Checks an `if`; returns what either branch consumes of the enclosing scope.
    pub(super) fn if_(
        &mut self,
        stm: &'a Stm,
        cond: &SubExp,
        then_body: &'a Body,
        else_body: &'a Body,
        ret: &[Type],
    ) -> R<Vec<Var>> {
        self.expect_se(cond, PrimType::Bool, "the condition")?;
        self.expect_pattern_class(stm, ret, "the if")?;
        let pat = self.pat_types(stm)?;
        let mut consumed = Vec::new();
        for (body, which) in [(then_body, "then"), (else_body, "else")] {
            self.push_frame();
            let tys = self.body(body)?;
            let (free, _) = self.pop_frame();
            consumed.extend(free);
            if tys.len() != pat.len() {
                return self.fail(format!(
                    "the {which} branch returns {} values, expected {}",
                    tys.len(),
                    pat.len()
                ));
            }
            let subst: Subst = stm
                .pat
                .iter()
                .zip(&body.result)
                .map(|(p, r)| (*p, Some(*r)))
                .collect();
            for (i, (p, t)) in pat.iter().zip(&tys).enumerate() {
                self.expect_type(p, t, &subst, &format!("result {i} of the {which} branch"))?;
            }
        }
        Ok(consumed)
    }

    /// Checks a call against the callee's signature; a call consumes nothing.
    pub(super) fn apply(
        &mut self,
        stm: &'a Stm,
        fun: &str,
        args: &[SubExp],
        ret: &[Type],
    ) -> R<Vec<Var>> {
        let arg_tys = self.use_ses(args)?;
        let Some(callee) = self.funs.get(fun).copied() else {
            return self.fail(format!("call of unknown function `{fun}`"));
        };
        if args.len() != callee.params.len() {
            return self.fail(format!(
                "`{fun}` takes {} arguments, given {}",
                callee.params.len(),
                args.len()
            ));
        }
        for (i, (a, p)) in arg_tys.iter().zip(&callee.params).enumerate() {
            let pt = self.ty(*p)?;
            if !same_shape_class(&pt, a) {
                return self.fail(format!(
                    "argument {i} of `{fun}` has type {}, the parameter {}",
                    self.show_ty(a),
                    self.show_ty(&pt)
                ));
            }
        }
        if ret.len() != callee.ret.len()
            || !ret
                .iter()
                .zip(&callee.ret)
                .all(|(a, b)| same_shape_class(a, b))
        {
            return self.fail(format!(
                "the declared result types do not match those of `{fun}`"
            ));
        }
        self.expect_pattern_class(stm, ret, "the call")?;
        Ok(vec![])
    }

    pub(super) fn loop_(
        &mut self,
        stm: &'a Stm,
        params: &'a [(Var, SubExp)],
        form: &'a LoopForm,
        body: &'a Body,
    ) -> R<Vec<Var>> {
        let init_tys = params
            .iter()
            .map(|(_, e)| self.use_se(e))
            .collect::<R<Vec<_>>>()?;
        if let LoopForm::For { bound, .. } = form {
            self.use_se(bound)?;
        }
        let inits: Vec<SubExp> = params.iter().map(|(_, e)| *e).collect();
        self.loop_values(params, &inits, &init_tys, |i| {
            format!("the initial value of {}", self.show(params[i].0))
        })?;
        self.push_frame();
        for (p, _) in params {
            self.bind(*p)?;
        }
        match form {
            LoopForm::For { i, bound } => {
                self.bind(*i)?;
                let it = self.ty(*i)?;
                let bt = self.se_ty(bound)?;
                if it != bt || !matches!(bt, Type::Prim(t) if t.is_int()) {
                    return self.fail(format!(
                        "the loop counter {} has type {} and the bound {}: expected the same integer type",
                        self.show(*i),
                        self.show_ty(&it),
                        self.show_ty(&bt)
                    ));
                }
            }
            LoopForm::While { cond } => {
                if !params.iter().any(|(p, _)| p == cond) {
                    return self.fail(format!(
                        "the while condition {} is not a loop parameter",
                        self.show(*cond)
                    ));
                }
                if self.ty(*cond)? != Type::Prim(PrimType::Bool) {
                    return self.fail(format!(
                        "the while condition {} is not a bool",
                        self.show(*cond)
                    ));
                }
            }
        }
        let tys = self.body(body)?;
        let (free, own) = self.pop_frame();
        if let Some(v) = free.iter().next() {
            return self.fail(format!(
                "the loop body consumes {}, which is bound outside the loop",
                self.show(*v)
            ));
        }
        if tys.len() != params.len() {
            return self.fail(format!(
                "the loop body returns {} values for {} parameters",
                tys.len(),
                params.len()
            ));
        }
        self.loop_values(params, &body.result, &tys, |i| {
            format!("the loop body's result for {}", self.show(params[i].0))
        })?;
        // The pattern has the parameters' types, with parameters standing for the pattern.
        if stm.pat.len() != params.len() {
            return self.fail(format!(
                "the pattern binds {} variables, the loop has {} parameters",
                stm.pat.len(),
                params.len()
            ));
        }
        let pat: Vec<SubExp> = stm.pat.iter().map(|v| SubExp::Var(*v)).collect();
        let pat_tys = self.pat_types(stm)?;
        self.loop_values(params, &pat, &pat_tys, |i| {
            format!("pattern variable {}", self.show(stm.pat[i]))
        })?;
        Ok(params
            .iter()
            .filter(|(p, _)| own.contains(p))
            .filter_map(|(_, e)| e.as_var())
            .collect())
    }

    /// Each of `values`, of types `tys`, has its loop parameter's type, where a size that is
    /// a parameter stands for the corresponding value; `what` names value `i`.
    fn loop_values(
        &self,
        params: &[(Var, SubExp)],
        values: &[SubExp],
        tys: &[Type],
        what: impl Fn(usize) -> String,
    ) -> R {
        let subst: Subst = params
            .iter()
            .zip(values)
            .map(|((p, _), v)| (*p, Some(*v)))
            .collect();
        for (i, ((p, _), t)) in params.iter().zip(tys).enumerate() {
            let pt = self.ty(*p)?;
            self.expect_type(&pt, t, &subst, &what(i))?;
        }
        Ok(())
    }

    /// Checks a lambda whose parameters must have `param_tys`; checks its body against its
    /// declared result types.
    pub(super) fn lambda(&mut self, lam: &'a Lambda, param_tys: &[Type], what: &str) -> R {
        let once = std::mem::take(&mut self.lambda_runs_once);
        if lam.params.len() != param_tys.len() {
            return self.fail(format!(
                "{what} takes {} parameters, expected {}",
                lam.params.len(),
                param_tys.len()
            ));
        }
        self.push_frame();
        for (p, t) in lam.params.iter().zip(param_tys) {
            self.bind(*p)?;
            let pt = self.ty(*p)?;
            self.expect_type(
                t,
                &pt,
                &Subst::new(),
                &format!("parameter {} of {what}", self.show(*p)),
            )?;
        }
        let sizes_inside = std::mem::take(&mut self.lambda_sizes_inside);
        if !sizes_inside {
            for t in &lam.ret {
                self.check_type_dims(t, &format!("the result type of {what}"))?;
            }
        }
        self.body_results(&lam.body, &lam.ret, &Subst::new(), what)?;
        if sizes_inside {
            // The parameters and the body's top-level variables are in scope here.
            for t in &lam.ret {
                self.check_type_dims(t, &format!("the result type of {what}"))?;
            }
        }
        let (free, _) = self.pop_frame();
        if once {
            // A with_acc lambda runs exactly once: consuming an outer value (an enclosing
            // accumulator threaded through it) consumes it in the enclosing scope.
            for v in free {
                self.consume(v);
            }
            return Ok(());
        }
        if let Some(v) = free.iter().next() {
            return self.fail(format!(
                "{what} consumes {}, which is bound outside it",
                self.show(*v)
            ));
        }
        Ok(())
    }
}
