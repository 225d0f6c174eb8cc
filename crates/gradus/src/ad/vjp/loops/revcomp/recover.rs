//! Reverse computing's emitted code: the invertibility checks of the forward sweep and the
//! recovery of an iteration's start from its end in the return sweep.
//!
//! **Takes** a [`Plan`] of a loop. **Emits** its coefficients as code ([`Vjp::emit_term`]),
//! the per-iteration flag that every factor and determinant is finite and non-zero
//! ([`Vjp::rc_guard`]), and the inverse updates: `x = (x' - γ) / α` for a single step,
//! `(x, y) = M⁻¹·((x', y') − g)` by Cramer's rule for a pair ([`Vjp::rc_recover`]),
//! recomputing the body statements the coefficients need ([`Vjp::rc_ensure`]).

use super::super::super::{Diagnostic, R, Vjp};
use super::plan::{Plan, Step, Term};
use crate::core::ir::{Body, SubExp, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::visit::stm_free_vars;
use std::collections::HashMap;

impl Vjp<'_> {
    /// Term `t` as code of type `ty`, its variables renamed by `map`.
    fn emit_term(&mut self, t: &Term, ty: PrimType, map: &HashMap<Var, Var>) -> SubExp {
        let bin = |v: &mut Self, op: BinOp, a: &Term, b: &Term| {
            let a = v.emit_term(a, ty, map);
            let b = v.emit_term(b, ty, map);
            v.e.prim(PrimOp::Bin(op, ty), vec![a, b])
        };
        match t {
            Term::Zero => SubExp::Const(Scalar::zero(ty)),
            Term::One => SubExp::Const(Scalar::one(ty)),
            Term::Se(SubExp::Var(x)) => SubExp::Var(map.get(x).copied().unwrap_or(*x)),
            Term::Se(c) => *c,
            Term::Neg(a) => {
                let a = self.emit_term(a, ty, map);
                self.e.prim(PrimOp::Un(UnOp::Neg, ty), vec![a])
            }
            Term::Add(a, b) => bin(self, BinOp::Add, a, b),
            Term::Sub(a, b) => bin(self, BinOp::Sub, a, b),
            Term::Mul(a, b) => bin(self, BinOp::Mul, a, b),
            Term::Div(a, b) => bin(self, BinOp::Div, a, b),
        }
    }

    /// `|x| < ∞` (false for NaN).
    pub(super) fn finite(&mut self, x: SubExp, ty: PrimType) -> SubExp {
        let a = self.e.prim(PrimOp::Un(UnOp::Abs, ty), vec![x]);
        let inf = SubExp::Const(Scalar::from_f64(ty, f64::INFINITY));
        self.e.prim(PrimOp::Cmp(CmpOp::Lt, ty), vec![a, inf])
    }

    /// `0 < |x| < ∞`.
    fn invertible_factor(&mut self, x: SubExp, ty: PrimType) -> SubExp {
        let a = self.e.prim(PrimOp::Un(UnOp::Abs, ty), vec![x]);
        let inf = SubExp::Const(Scalar::from_f64(ty, f64::INFINITY));
        let lt = self.e.prim(PrimOp::Cmp(CmpOp::Lt, ty), vec![a, inf]);
        let zero = SubExp::Const(Scalar::zero(ty));
        let gt = self.e.prim(PrimOp::Cmp(CmpOp::Lt, ty), vec![zero, a]);
        self.e
            .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![lt, gt])
    }

    /// `α·x` is normal or `x` is zero: scaling `x` by `α` lost nothing to underflow.
    fn no_underflow(&mut self, alpha: SubExp, x: SubExp, ty: PrimType) -> SubExp {
        let ax = self.e.prim(PrimOp::Bin(BinOp::Mul, ty), vec![alpha, x]);
        let abs = self.e.prim(PrimOp::Un(UnOp::Abs, ty), vec![ax]);
        let min = match ty {
            PrimType::F32 => f64::from(f32::MIN_POSITIVE),
            _ => f64::MIN_POSITIVE,
        };
        let min = SubExp::Const(Scalar::from_f64(ty, min));
        let normal = self.e.prim(PrimOp::Cmp(CmpOp::Le, ty), vec![min, abs]);
        let zero = SubExp::Const(Scalar::zero(ty));
        let is_zero = self.e.prim(PrimOp::Cmp(CmpOp::Eq, ty), vec![x, zero]);
        self.e.prim(
            PrimOp::Bin(BinOp::Or, PrimType::Bool),
            vec![normal, is_zero],
        )
    }

    /// `a && b`, or `b` alone without `a`.
    pub(super) fn and(&mut self, a: Option<SubExp>, b: SubExp) -> Option<SubExp> {
        Some(match a {
            None => b,
            Some(a) => self
                .e
                .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![a, b]),
        })
    }

    /// In the forward loop body: whether this iteration's solved updates are invertible (the
    /// factors and determinants finite and non-zero).
    pub(super) fn rc_guard(&mut self, steps: &[Step], params: &[Var]) -> SubExp {
        let id = HashMap::new();
        let mut g = None;
        for step in steps {
            match step {
                Step::One { param, alpha, .. } => {
                    let ty = self.e.names.ty(params[*param]).elem();
                    if !ty.is_float() {
                        continue;
                    }
                    if !alpha.is_unit() {
                        let a = self.emit_term(alpha, ty, &id);
                        let f = self.invertible_factor(a, ty);
                        g = self.and(g, f);
                        // A non-zero iterate whose scaled value `α·x` underflows (to zero
                        // or into subnormals) cannot be recovered by dividing by `α`.
                        let kept = self.no_underflow(a, SubExp::Var(params[*param]), ty);
                        g = self.and(g, kept);
                    }
                }
                Step::Two { params: ps, m, .. } => {
                    let ty = self.e.names.ty(params[ps[0]]).elem();
                    let det = det(m);
                    let d = self.emit_term(&det, ty, &id);
                    let f = self.invertible_factor(d, ty);
                    g = self.and(g, f);
                }
            }
        }
        g.unwrap_or(SubExp::Const(Scalar::Bool(true)))
    }

    /// In the return sweep: fills `pre` (the iterate before iteration `i`) for the parameters
    /// the plan solves, from `posts` (the iterate after it) and the known `pre` values,
    /// re-emitting the body statements the coefficients need.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rc_recover(
        &mut self,
        plan: &Plan,
        params: &[Var],
        body: &Body,
        i: Var,
        iv: Var,
        posts: &[Var],
        pre: &mut [Option<Var>],
    ) -> R<()> {
        let mut def = HashMap::new();
        for (k, st) in body.stms.iter().enumerate() {
            for p in &st.pat {
                def.insert(*p, k);
            }
        }
        let mut map: HashMap<Var, Var> = HashMap::new();
        map.insert(i, iv);
        for (r, post) in body.result.iter().zip(posts) {
            if let SubExp::Var(r) = r {
                map.insert(*r, *post);
            }
        }
        for (p, pv) in params.iter().zip(pre.iter()) {
            if let Some(pv) = pv {
                map.insert(*p, *pv);
            }
        }
        let post = |k: usize| Term::Se(SubExp::Var(posts[k]));
        for step in &plan.steps {
            let mut vs = Vec::new();
            match step {
                Step::One { alpha, gamma, .. } => {
                    alpha.vars(&mut vs);
                    gamma.vars(&mut vs);
                }
                Step::Two { m, g, .. } => {
                    for t in m.iter().flatten().chain(g) {
                        t.vars(&mut vs);
                    }
                }
            }
            for x in vs {
                self.rc_ensure(x, &mut map, &def, body, params)?;
            }
            match step {
                Step::One {
                    param,
                    eq,
                    alpha,
                    gamma,
                } => {
                    let ty = self.e.names.ty(params[*param]).elem();
                    let x = alpha.unscale(Term::sub(post(*eq), gamma.clone()));
                    let se = self.emit_term(&x, ty, &map);
                    let hint = self.e.names.hint(params[*param]).to_string();
                    let pv = self.e.as_var(se, &hint);
                    map.insert(params[*param], pv);
                    pre[*param] = Some(pv);
                }
                Step::Two {
                    params: ps,
                    eqs,
                    m,
                    g,
                } => {
                    let ty = self.e.names.ty(params[ps[0]]).elem();
                    let d0 = Term::sub(post(eqs[0]), g[0].clone());
                    let d1 = Term::sub(post(eqs[1]), g[1].clone());
                    let det = det(m);
                    let x0 = Term::div(
                        Term::sub(
                            Term::mul(m[1][1].clone(), d0.clone()),
                            Term::mul(m[0][1].clone(), d1.clone()),
                        ),
                        det.clone(),
                    );
                    let x1 = Term::div(
                        Term::sub(
                            Term::mul(m[0][0].clone(), d1),
                            Term::mul(m[1][0].clone(), d0),
                        ),
                        det,
                    );
                    for (j, x) in ps.iter().zip([x0, x1]) {
                        let se = self.emit_term(&x, ty, &map);
                        let hint = self.e.names.hint(params[*j]).to_string();
                        let pv = self.e.as_var(se, &hint);
                        pre[*j] = Some(pv);
                    }
                    for j in ps {
                        if let Some(pv) = pre[*j] {
                            map.insert(params[*j], pv);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Makes `x` available in the return sweep: a body variable is recomputed (with the
    /// statements it depends on) from the values in `map`.
    fn rc_ensure(
        &mut self,
        x: Var,
        map: &mut HashMap<Var, Var>,
        def: &HashMap<Var, usize>,
        body: &Body,
        params: &[Var],
    ) -> R<()> {
        if map.contains_key(&x) {
            return Ok(());
        }
        if params.contains(&x) {
            return Err(Diagnostic::bug(
                "reverse computing reads an iterate it has not recovered",
            ));
        }
        let Some(&k) = def.get(&x) else {
            return Ok(());
        };
        let st = &body.stms[k];
        for f in stm_free_vars(st) {
            self.rc_ensure(f, map, def, body, params)?;
        }
        let (stms, _) = self.rename(std::slice::from_ref(st), &[], map.clone());
        if let Some(ns) = stms.first() {
            for (o, n) in st.pat.iter().zip(&ns.pat) {
                map.insert(*o, *n);
            }
        }
        self.e.add_stms(stms);
        Ok(())
    }
}

/// The determinant of a 2×2 matrix.
fn det(m: &[[Term; 2]; 2]) -> Term {
    Term::sub(
        Term::mul(m[0][0].clone(), m[1][1].clone()),
        Term::mul(m[0][1].clone(), m[1][0].clone()),
    )
}
