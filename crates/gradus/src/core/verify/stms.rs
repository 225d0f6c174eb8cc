//! Functions, bodies and statements: the walk of the verifier. Checks function headers and
//! entry points, binds patterns after their expression, compares patterns with expression
//! types and sends each expression to the check of its construct.

use super::{R, Subst, Verifier, is_i64, same_shape_class, type_matches};
use crate::core::ir::{BasicOp, Body, Exp, FunDef, Stm, SubExp, Type, Var};
use crate::core::type_of::type_of_exp;

impl<'a> Verifier<'a> {
    pub(super) fn fun(&mut self, f: &'a FunDef) -> R {
        self.fun_name = f.name.clone();
        self.stms.clear();
        self.scope.clear();
        self.push_frame();
        // Size parameters and parameters are all in scope before their types are checked.
        for &v in f.size_params.iter().chain(&f.params) {
            self.ty(v)?;
            if !self.bound.insert(v) {
                return self.fail(format!("{} is bound more than once", self.show(v)));
            }
            self.scope.insert(v);
        }
        for &v in &f.size_params {
            let t = self.ty(v)?;
            if !is_i64(&t) {
                return self.fail(format!(
                    "size parameter {} has type {}, expected i64",
                    self.show(v),
                    self.show_ty(&t)
                ));
            }
        }
        for &v in &f.params {
            let t = self.ty(v)?;
            if matches!(t, Type::Acc { .. }) {
                return self.fail(format!("parameter {} is an accumulator", self.show(v)));
            }
            self.check_type_dims(&t, &format!("the type of parameter {}", self.show(v)))?;
        }
        let mut subst = Subst::new();
        for t in &f.ret {
            if matches!(t, Type::Acc { .. }) {
                return self.fail("a function returns an accumulator");
            }
            self.check_type_dims_loose(t, "the result type")?;
            for d in t.dims() {
                if let SubExp::Var(d) = d
                    && !f.size_params.contains(d)
                    && !f.params.contains(d)
                {
                    subst.insert(*d, None);
                }
            }
        }
        if let Some(e) = &f.entry {
            for (_, vs) in &e.params {
                for v in vs {
                    if !f.params.contains(v) {
                        return self.fail(format!(
                            "entry point parameter {} is not a parameter of the function",
                            self.show(*v)
                        ));
                    }
                }
            }
            let n: usize = e.results.iter().map(|r| r.1).sum();
            if n != f.ret.len() {
                return self.fail(format!(
                    "entry point results account for {n} values, the function returns {}",
                    f.ret.len()
                ));
            }
        }
        self.body_results(&f.body, &f.ret, &subst, "the function body")?;
        self.pop_frame();
        Ok(())
    }

    /// Checks a body in a new frame (which the caller must pop) and its results against
    /// `ret`.
    pub(super) fn body_results(
        &mut self,
        body: &'a Body,
        ret: &[Type],
        subst: &Subst,
        what: &str,
    ) -> R {
        let tys = self.body(body)?;
        if tys.len() != ret.len() {
            return self.fail(format!(
                "{what} returns {} values, expected {}",
                tys.len(),
                ret.len()
            ));
        }
        for (i, (t, e)) in tys.iter().zip(ret).enumerate() {
            self.expect_type(e, t, subst, &format!("result {i} of {what}"))?;
        }
        Ok(())
    }

    /// Checks the statements and results of a body in the current frame; returns the
    /// results' types.
    pub(super) fn body(&mut self, body: &'a Body) -> R<Vec<Type>> {
        for stm in &body.stms {
            self.stms.push(stm);
            self.stm(stm)?;
            self.stms.pop();
        }
        self.use_ses(&body.result)
    }

    pub(super) fn stm(&mut self, stm: &'a Stm) -> R {
        let consumed = self.exp(stm)?;
        // The existential sizes of a `jvp` or `vjp`, already bound (uniquely) inside it.
        for v in std::mem::take(&mut self.statement_sizes) {
            if self.scope.insert(v)
                && let Some(f) = self.frames.last_mut()
            {
                f.bound.insert(v);
            }
        }
        // Bind the pattern; a pattern variable's type may mention earlier ones.
        for &v in &stm.pat {
            self.bind(v)?;
        }
        // Declared result types of `if` and calls may mention the pattern.
        if let Exp::If { ret, .. } | Exp::Apply { ret, .. } = &stm.exp {
            for t in ret {
                self.check_type_dims(t, "the declared result type")?;
            }
        }
        for v in consumed {
            self.consume(v);
        }
        Ok(())
    }

    pub(super) fn pat_types(&self, stm: &Stm) -> R<Vec<Type>> {
        stm.pat.iter().map(|v| self.ty(*v)).collect()
    }

    /// The pattern has exactly the types [`type_of_exp`] gives the statement's expression.
    pub(super) fn expect_pattern(&self, stm: &Stm) -> R {
        let tys = type_of_exp(self.names, &stm.exp);
        self.pattern_against(
            stm,
            &tys,
            |t, p| type_matches(t, p, &Subst::new()),
            |n| format!("the expression has {n} results"),
            "the expression gives",
        )
    }

    /// The pattern agrees with the declared types `tys` of `what` (an `if` or a call) in
    /// element type and rank only: their sizes may mention the pattern itself.
    pub(super) fn expect_pattern_class(&self, stm: &Stm, tys: &[Type], what: &str) -> R {
        self.pattern_against(
            stm,
            tys,
            |t, p| same_shape_class(p, t),
            |n| format!("{what} has {n}"),
            &format!("{what} declares"),
        )
    }

    /// The pattern has as many variables as `tys` and each agrees with its type; `has` says
    /// how many results the expression has, `gives` introduces a type in the message.
    fn pattern_against(
        &self,
        stm: &Stm,
        tys: &[Type],
        agree: impl Fn(&Type, &Type) -> bool,
        has: impl Fn(usize) -> String,
        gives: &str,
    ) -> R {
        let pat = self.pat_types(stm)?;
        if pat.len() != tys.len() {
            return self.fail(format!(
                "the pattern binds {} variables, {}",
                pat.len(),
                has(tys.len())
            ));
        }
        for (i, (p, t)) in pat.iter().zip(tys).enumerate() {
            if !agree(t, p) {
                return self.fail(format!(
                    "pattern variable {} has type {}, {gives} {}",
                    self.show(stm.pat[i]),
                    self.show_ty(p),
                    self.show_ty(t)
                ));
            }
        }
        Ok(())
    }

    /// Checks an expression; returns the variables the statement consumes.
    pub(super) fn exp(&mut self, stm: &'a Stm) -> R<Vec<Var>> {
        match &stm.exp {
            Exp::BasicOp(op) => {
                let consumed = self.basic_op(op)?;
                if let BasicOp::Assert { .. } = op
                    && !stm.pat.is_empty()
                {
                    return self.fail("assert binds no variables");
                }
                self.expect_pattern(stm)?;
                Ok(consumed)
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => self.if_(stm, cond, then_body, else_body, ret),
            Exp::Loop { params, form, body } => self.loop_(stm, params, form, body),
            Exp::Apply { fun, args, ret } => self.apply(stm, fun, args, ret),
            Exp::Soac(soac) => {
                let consumed = self.soac(soac)?;
                self.expect_pattern(stm)?;
                Ok(consumed)
            }
            Exp::WithAcc { inputs, lam } => self.with_acc(stm, inputs, lam),
            Exp::Ad {
                mode,
                lam,
                args,
                seeds,
            } => self.ad(stm, *mode, lam, args, seeds),
        }
    }
}
