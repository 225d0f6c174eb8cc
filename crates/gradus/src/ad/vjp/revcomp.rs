//! Reverse computing: recovering a loop's previous iterate with the inverse of its update
//! instead of a checkpoint.
//!
//! **Takes** a `for` loop whose loop-carried values are all scalars. **Finds** a *plan*: an
//! order in which the values at the start of an iteration (the *pre* values) can be computed
//! from the values after it (the *post* values, the body's results), the loop index and the
//! variables bound outside the loop. Each step solves one body result for one loop parameter,
//! or two results for two parameters, where the result is an affine function of the unknown
//! parameters whose coefficients do not depend on them:
//!
//! * `x' = α·x + γ` (`x + e`, `x - e`, `e - x`, `x * e`, `x / e`, `-x`, any nesting of these):
//!   `x = (x' - γ) / α`;
//! * `(x', y') = M·(x, y) + g` with a 2×2 matrix `M` (a rotation `(c·a − s·b, s·a + c·b)`, a
//!   shear): `(x, y) = M⁻¹·((x', y') − g)` by Cramer's rule;
//!
//! The coefficients `α`, `γ`, `M`, `g` may use the post values of every parameter and the pre
//! values of parameters solved in an earlier step, so triangular chains invert in reverse
//! order: symplectic Euler `x' = x + h·v; v' = v − h·x'` first gives `v = v' + h·x'`, then
//! `x = x' − h·v`. A parameter that is the result of another (`(a, b) -> (b, ..)`) is solved
//! from it with `α = 1`. When no step applies, the parameters no equation could solve even with
//! all others known are checkpointed (or, in a cycle such as `(y + z², z − sin y)`, the first
//! unsolved one), and the search goes on with their checkpointed values known.
//!
//! **Guarantees**, with `loops.rs`: the forward sweep allocates no `[n]` checkpoint array for a
//! solved parameter; the return sweep carries the current iterate and recomputes the statements
//! of the body the coefficients need (at most one more execution of the body per iteration).
//!
//! # Exactness
//!
//! Integer updates are solved only with `α = ±1` (`x + e`, `x - e`, `e - x`), which wrap-around
//! arithmetic inverts exactly. Floating-point inversion is exact only up to rounding: `(x + e) -
//! e` may differ from `x` by an ulp of `max(|x|, |e|)` per iteration, and the error of a long
//! loop can grow with the number of iterations (more for ill-conditioned matrices). The
//! recovered iterates, not the adjoints' formulas, carry that error; the gradient of a
//! well-conditioned loop stays accurate to a few ulps times the iteration count.
//!
//! A float update is not invertible when a coefficient `α` (or the determinant of `M`) is zero
//! or not finite, or when an iterate overflows. The forward sweep therefore computes, per
//! iteration, a flag `ok &&= 0 < |α| < ∞` (the determinant for a pair; nothing for `α = ±1`),
//! and after the loop `ok && |x| < ∞` for every solved float `x` (an iterate that overflows or
//! turns NaN stays non-finite: each update scales it by a checked factor and adds to it); a
//! sum whose value nothing else reads (`acc + x·y`, a dot product) is left out, since no
//! adjoint depends on its iterates (`unread_sums`). If
//! the flag is false, the return sweep falls back to re-running the loop with full
//! checkpoints and differentiating that (so a zero factor costs one more forward run and the
//! usual checkpoint memory, and the gradient is the checkpointed one). Loops whose solved
//! parameters are all integers need no flag. The per-iteration flag also requires `α·x` to
//! stay normal (or `x` to be zero): a product that underflows to zero or into subnormals
//! (`x · 1e-300`) loses the iterate its inverse needs, so such a run takes the checkpointed
//! path too.
//!
//! `#[checkpoint]` on a loop turns reverse computing off for it (checkpoints as before,
//! bit-for-bit the same iterates as the forward sweep).

use super::{Diagnostic, Extra, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, LoopForm, NameTable, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::visit::stm_free_vars;
use crate::value::{PrimType, Scalar};
use std::collections::{HashMap, HashSet};

/// A coefficient: an expression over variables the return sweep can compute.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Term {
    Zero,
    One,
    Se(SubExp),
    Neg(Box<Term>),
    Add(Box<Term>, Box<Term>),
    Sub(Box<Term>, Box<Term>),
    Mul(Box<Term>, Box<Term>),
    Div(Box<Term>, Box<Term>),
}

impl Term {
    pub(super) fn add(a: Term, b: Term) -> Term {
        match (a, b) {
            (Term::Zero, x) | (x, Term::Zero) => x,
            (a, b) => Term::Add(Box::new(a), Box::new(b)),
        }
    }
    pub(super) fn sub(a: Term, b: Term) -> Term {
        match (a, b) {
            (x, Term::Zero) => x,
            (Term::Zero, x) => Term::neg(x),
            (a, b) => Term::Sub(Box::new(a), Box::new(b)),
        }
    }
    pub(super) fn neg(a: Term) -> Term {
        match a {
            Term::Zero => Term::Zero,
            Term::Neg(x) => *x,
            x => Term::Neg(Box::new(x)),
        }
    }
    pub(super) fn mul(a: Term, b: Term) -> Term {
        match (a, b) {
            (Term::Zero, _) | (_, Term::Zero) => Term::Zero,
            (Term::One, x) | (x, Term::One) => x,
            (Term::Neg(a), b) => Term::neg(Term::mul(*a, b)),
            (a, Term::Neg(b)) => Term::neg(Term::mul(a, *b)),
            (a, b) => Term::Mul(Box::new(a), Box::new(b)),
        }
    }
    pub(super) fn div(a: Term, b: Term) -> Term {
        match (a, b) {
            (Term::Zero, _) => Term::Zero,
            (x, Term::One) => x,
            (a, Term::Neg(b)) => Term::neg(Term::div(a, *b)),
            (a, b) => Term::Div(Box::new(a), Box::new(b)),
        }
    }
    /// `x / self`, written so that dividing by `c / b` multiplies by `b`.
    pub(super) fn unscale(&self, x: Term) -> Term {
        match self {
            Term::One => x,
            Term::Neg(a) => Term::neg(a.unscale(x)),
            Term::Div(c, b) => Term::div(Term::mul(x, (**b).clone()), (**c).clone()),
            a => Term::div(x, a.clone()),
        }
    }
    /// `±1`: dividing by it is exact.
    pub(super) fn is_unit(&self) -> bool {
        match self {
            Term::One => true,
            Term::Neg(a) => a.is_unit(),
            _ => false,
        }
    }
    pub(super) fn vars(&self, out: &mut Vec<Var>) {
        match self {
            Term::Zero | Term::One | Term::Se(SubExp::Const(_)) => {}
            Term::Se(SubExp::Var(v)) => out.push(*v),
            Term::Neg(a) => a.vars(out),
            Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) | Term::Div(a, b) => {
                a.vars(out);
                b.vars(out);
            }
        }
    }
}

/// One step of a plan (indices are positions among the loop parameters / body results).
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// `result[eq] = alpha · param + gamma`.
    One {
        param: usize,
        eq: usize,
        alpha: Term,
        gamma: Term,
    },
    /// `result[eqs[r]] = m[r][0] · param[0] + m[r][1] · param[1] + g[r]`.
    Two {
        params: [usize; 2],
        eqs: [usize; 2],
        m: [[Term; 2]; 2],
        g: [Term; 2],
    },
}

/// The steps, in the order the return sweep runs them.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    pub steps: Vec<Step>,
    /// Per loop parameter: solved by some step.
    pub solved: Vec<bool>,
    /// Per loop parameter: an accumulator whose value nothing reads ([`unread_sums`]).
    pub unread: Vec<bool>,
}

impl Plan {
    /// Whether some step needs the invertibility flag (it solves a float that is read).
    pub(super) fn needs_flag(&self, params: &[Var], names: &NameTable) -> bool {
        self.steps.iter().any(|s| match s {
            Step::One { param, .. } => {
                names.ty(params[*param]).elem().is_float() && !self.unread[*param]
            }
            Step::Two { .. } => true,
        })
    }

    /// Whether some step needs a check in every iteration (a float factor other than ±1, or
    /// a determinant).
    fn needs_loop_flag(&self, params: &[Var], names: &NameTable) -> bool {
        self.steps.iter().any(|s| match s {
            Step::One { param, alpha, .. } => {
                names.ty(params[*param]).elem().is_float()
                    && !alpha.is_unit()
                    && !self.unread[*param]
            }
            Step::Two { .. } => true,
        })
    }
}

/// Per loop parameter: whether it is a sum `p' = p + e` (`e + p`, `p - e`, `e - p`,
/// `fma(a, b, p)`) whose value nothing else in the body reads. Its adjoint passes through
/// each iteration unchanged and no derivative needs its value, so iterates recovered
/// imprecisely (or from an overflowed sum) change no adjoint: it needs no invertibility check
/// (a dot product accumulated in a loop would otherwise make the forward sweep check its
/// result and the return sweep carry a checkpointed copy of the whole loop).
fn unread_sums(names: &NameTable, params: &[Var], body: &Body) -> Vec<bool> {
    let uses = crate::core::visit::use_counts(names, body);
    params
        .iter()
        .zip(&body.result)
        .map(|(p, r)| {
            let Some(r) = r.as_var() else { return false };
            if uses.get(p) != Some(&1) || uses.get(&r) != Some(&1) {
                return false;
            }
            let Some(def) = body.stms.iter().find(|st| st.pat == [r]) else {
                return false;
            };
            let is_p = |a: &SubExp| a.as_var() == Some(*p);
            match &def.exp {
                Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Add | BinOp::Sub, t), args)) => {
                    t.is_float() && args.iter().any(is_p)
                }
                Exp::BasicOp(BasicOp::Prim(PrimOp::Tern(TernOp::Fma | TernOp::Mad, t), args)) => {
                    t.is_float() && args.len() == 3 && is_p(&args[2])
                }
                _ => false,
            }
        })
        .collect()
}

/// An affine function of the unknowns: `Σ coef[k] · unknown[k] + off`.
struct Affine {
    coef: Vec<Term>,
    off: Term,
}

impl Affine {
    fn constant(n: usize, off: Term) -> Affine {
        Affine {
            coef: vec![Term::Zero; n],
            off,
        }
    }
    fn is_constant(&self) -> bool {
        self.coef.iter().all(|c| *c == Term::Zero)
    }
    fn zip(self, o: Affine, f: impl Fn(Term, Term) -> Term) -> Affine {
        Affine {
            coef: self
                .coef
                .into_iter()
                .zip(o.coef)
                .map(|(a, b)| f(a, b))
                .collect(),
            off: f(self.off, o.off),
        }
    }
    fn map(self, f: impl Fn(Term) -> Term) -> Affine {
        Affine {
            coef: self.coef.into_iter().map(&f).collect(),
            off: f(self.off),
        }
    }
}

struct Solver<'b> {
    names: &'b NameTable,
    params: Vec<Var>,
    body: &'b Body,
    i: Var,
    /// Body variable -> position of its statement.
    def: HashMap<Var, usize>,
    /// Variables that are body results (their post values are known).
    results: HashSet<Var>,
    /// Parameters whose pre values are known.
    known_params: HashSet<Var>,
    memo: HashMap<Var, bool>,
}

impl Solver<'_> {
    /// Whether the return sweep can compute `v` from post values, known pre values, the loop
    /// index and outer variables.
    fn known(&mut self, v: Var) -> bool {
        if self.results.contains(&v) || v == self.i {
            return true;
        }
        if self.params.contains(&v) {
            return self.known_params.contains(&v);
        }
        let Some(&k) = self.def.get(&v) else {
            return true;
        };
        if let Some(b) = self.memo.get(&v) {
            return *b;
        }
        self.memo.insert(v, false);
        let st = &self.body.stms[k];
        let ok = crate::core::visit::stm_consumed_vars(st).is_empty()
            && st
                .pat
                .iter()
                .all(|p| !matches!(self.names.ty(*p), Type::Acc { .. }))
            && stm_free_vars(st).into_iter().all(|f| self.known(f));
        self.memo.insert(v, ok);
        ok
    }

    /// `parse` of a body result: the result itself is not taken as known (it is the post
    /// value being solved for).
    fn parse_result(&mut self, r: Var, unknowns: &[Var], t: PrimType) -> Option<Affine> {
        let was = self.results.remove(&r);
        let a = self.parse(r, unknowns, t);
        if was {
            self.results.insert(r);
        }
        self.memo.remove(&r);
        a
    }

    fn parse_se(&mut self, se: &SubExp, unknowns: &[Var], t: PrimType) -> Option<Affine> {
        match se {
            SubExp::Const(_) => Some(Affine::constant(unknowns.len(), Term::Se(*se))),
            SubExp::Var(v) => self.parse(*v, unknowns, t),
        }
    }

    fn parse(&mut self, v: Var, unknowns: &[Var], t: PrimType) -> Option<Affine> {
        if let Some(k) = unknowns.iter().position(|u| *u == v) {
            let mut a = Affine::constant(unknowns.len(), Term::Zero);
            a.coef[k] = Term::One;
            return Some(a);
        }
        if self.known(v) {
            return Some(Affine::constant(unknowns.len(), Term::Se(SubExp::Var(v))));
        }
        let k = *self.def.get(&v)?;
        let body = self.body;
        let st = &body.stms[k];
        if st.pat.len() != 1 {
            return None;
        }
        let Exp::BasicOp(op) = &st.exp else {
            return None;
        };
        match op {
            BasicOp::SubExp(x) => self.parse_se(x, unknowns, t),
            BasicOp::Prim(PrimOp::Un(UnOp::Neg, ty), args) if *ty == t => {
                Some(self.parse_se(&args[0], unknowns, t)?.map(Term::neg))
            }
            BasicOp::Prim(PrimOp::Bin(op, ty), args) if *ty == t => {
                let a = self.parse_se(&args[0], unknowns, t)?;
                let b = self.parse_se(&args[1], unknowns, t)?;
                match op {
                    BinOp::Add => Some(a.zip(b, Term::add)),
                    BinOp::Sub => Some(a.zip(b, Term::sub)),
                    BinOp::Mul if t.is_float() && a.is_constant() => {
                        let s = a.off;
                        Some(b.map(|c| Term::mul(s.clone(), c)))
                    }
                    BinOp::Mul if t.is_float() && b.is_constant() => {
                        let s = b.off;
                        Some(a.map(|c| Term::mul(c, s.clone())))
                    }
                    BinOp::Div if t.is_float() && b.is_constant() => {
                        let s = b.off;
                        Some(a.map(|c| Term::div(c, s.clone())))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The plan of a loop with parameters `params` (all scalars), index `i` and body `body`, or
/// `None` if no parameter can be solved.
#[allow(clippy::needless_range_loop)]
pub(super) fn plan(names: &NameTable, params: &[Var], i: Var, body: &Body) -> Option<Plan> {
    let mut def = HashMap::new();
    for (k, st) in body.stms.iter().enumerate() {
        for p in &st.pat {
            def.insert(*p, k);
        }
    }
    let results: HashSet<Var> = body
        .result
        .iter()
        .filter_map(|r| match r {
            SubExp::Var(v) => Some(*v),
            SubExp::Const(_) => None,
        })
        .collect();
    let mut s = Solver {
        names,
        params: params.to_vec(),
        body,
        i,
        def,
        results,
        known_params: HashSet::new(),
        memo: HashMap::new(),
    };
    let n = params.len();
    let ty = |j: usize| names.ty(params[j]).elem();
    let candidate = |j: usize| {
        let t = names.ty(params[j]);
        t.rank() == 0 && (t.elem().is_float() || t.elem().is_int())
    };
    let mut solved = vec![false; n];
    let mut used = vec![false; n];
    let mut steps = Vec::new();
    loop {
        let mut progress = false;
        'one: for j in 0..n {
            if solved[j] || !candidate(j) {
                continue;
            }
            for k in 0..n {
                if used[k] {
                    continue;
                }
                let SubExp::Var(r) = body.result[k] else {
                    continue;
                };
                let Some(a) = s.parse_result(r, &[params[j]], ty(j)) else {
                    continue;
                };
                let alpha = a.coef[0].clone();
                let fits = if ty(j).is_float() {
                    alpha != Term::Zero
                } else {
                    alpha.is_unit()
                };
                if fits {
                    steps.push(Step::One {
                        param: j,
                        eq: k,
                        alpha,
                        gamma: a.off,
                    });
                    solved[j] = true;
                    used[k] = true;
                    s.known_params.insert(params[j]);
                    s.memo.clear();
                    progress = true;
                    continue 'one;
                }
            }
        }
        if !progress {
            'two: for j0 in 0..n {
                for j1 in j0 + 1..n {
                    if solved[j0]
                        || solved[j1]
                        || !candidate(j0)
                        || !ty(j0).is_float()
                        || ty(j1) != ty(j0)
                        || !candidate(j1)
                    {
                        continue;
                    }
                    let us = [params[j0], params[j1]];
                    for k0 in 0..n {
                        for k1 in k0 + 1..n {
                            if used[k0] || used[k1] {
                                continue;
                            }
                            let (SubExp::Var(r0), SubExp::Var(r1)) =
                                (body.result[k0], body.result[k1])
                            else {
                                continue;
                            };
                            let (Some(a0), Some(a1)) = (
                                s.parse_result(r0, &us, ty(j0)),
                                s.parse_result(r1, &us, ty(j0)),
                            ) else {
                                continue;
                            };
                            let [m00, m01] = [a0.coef[0].clone(), a0.coef[1].clone()];
                            let [m10, m11] = [a1.coef[0].clone(), a1.coef[1].clone()];
                            // A structurally singular matrix (a zero row or column) is no use.
                            let z = |t: &Term| *t == Term::Zero;
                            if (z(&m00) && (z(&m01) || z(&m10)))
                                || (z(&m11) && (z(&m10) || z(&m01)))
                            {
                                continue;
                            }
                            steps.push(Step::Two {
                                params: [j0, j1],
                                eqs: [k0, k1],
                                m: [[m00, m01], [m10, m11]],
                                g: [a0.off, a1.off],
                            });
                            for (j, k) in [(j0, k0), (j1, k1)] {
                                solved[j] = true;
                                used[k] = true;
                                s.known_params.insert(params[j]);
                            }
                            s.memo.clear();
                            progress = true;
                            break 'two;
                        }
                    }
                }
            }
        }
        if progress {
            continue;
        }
        // Stuck: checkpoint the parameters that no equation solves even when every other
        // parameter is known, or else (a cycle) the first unsolved one, and try again.
        let open: Vec<usize> = (0..n)
            .filter(|j| !solved[*j] && !s.known_params.contains(&params[*j]))
            .collect();
        if open.is_empty() {
            break;
        }
        let mut hopeless = Vec::new();
        for &j in &open {
            if !candidate(j) {
                hopeless.push(j);
                continue;
            }
            let before = std::mem::replace(
                &mut s.known_params,
                params
                    .iter()
                    .enumerate()
                    .filter(|(m, _)| *m != j)
                    .map(|(_, p)| *p)
                    .collect(),
            );
            s.memo.clear();
            let alone = (0..n).any(|k| {
                let SubExp::Var(r) = body.result[k] else {
                    return false;
                };
                !used[k]
                    && s.parse_result(r, &[params[j]], ty(j)).is_some_and(|a| {
                        if ty(j).is_float() {
                            a.coef[0] != Term::Zero
                        } else {
                            a.coef[0].is_unit()
                        }
                    })
            });
            s.known_params = before;
            if !alone {
                hopeless.push(j);
            }
        }
        if hopeless.is_empty() {
            hopeless.push(open[0]);
        }
        for j in hopeless {
            s.known_params.insert(params[j]);
        }
        s.memo.clear();
    }
    let unread = unread_sums(names, params, body);
    (!steps.is_empty()).then_some(Plan {
        steps,
        solved,
        unread,
    })
}

/// What the forward sweep of a reverse-computed loop saved.
pub(super) struct Saved {
    /// The number of iterations, as a non-negative `i64`.
    n: SubExp,
    plan: Plan,
    /// Per loop parameter: its `[n]` checkpoints, for the parameters the plan does not solve.
    ck: Vec<Option<Var>>,
    /// The invertibility flag after the loop (when some solved parameter is a float).
    ok: Option<Var>,
}

impl Vjp<'_> {
    /// The forward sweep of a `for` loop, if reverse computing applies to it: all carried
    /// values are scalars, the loop is not marked `#[checkpoint]`, and the plan solves at least
    /// one of them.
    pub(super) fn rc_fwd_loop(&mut self, s: &Stm) -> R<Option<Extra>> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Ok(None);
        };
        let LoopForm::For { i, bound } = form else {
            return Ok(None);
        };
        if s.aux.attrs.iter().any(|a| a == "checkpoint") {
            return Ok(None);
        }
        // A body that updates virtual accumulators (see `accs.rs`) is checkpointed instead.
        if body.stms.iter().any(|st| self.touches_virtual(st)) {
            return Ok(None);
        }
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        if pvars.iter().any(|p| self.e.names.ty(*p).rank() != 0) {
            return Ok(None);
        }
        let Some(plan) = plan(&self.e.names, &pvars, *i, body) else {
            return Ok(None);
        };
        let bt = self.e.ty(bound).elem();
        let n64 = if bt == PrimType::I64 {
            *bound
        } else {
            self.e.prim(PrimOp::Conv(bt, PrimType::I64), vec![*bound])
        };
        let n = self.e.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![n64, SubExp::i64(0)],
        );
        let mut new_params = params.clone();
        let mut ck_params: Vec<Option<Var>> = Vec::new();
        for (j, p) in pvars.iter().enumerate() {
            if plan.solved[j] {
                ck_params.push(None);
                continue;
            }
            let elem = self.e.names.ty(*p).elem();
            let scratch = self.e.basic(
                BasicOp::Scratch {
                    elem,
                    shape: vec![n],
                },
                "checkpoints",
            );
            let st = self.e.names.ty(scratch).clone();
            let cp = self.e.fresh("checkpoints", st);
            new_params.push((cp, SubExp::Var(scratch)));
            ck_params.push(Some(cp));
        }
        let ok = plan
            .needs_loop_flag(&pvars, &self.e.names)
            .then(|| self.e.fresh("invertible", Type::Prim(PrimType::Bool)));
        if let Some(ok) = ok {
            new_params.push((ok, SubExp::Const(Scalar::Bool(true))));
        }
        let (stms, result) = self.nested(|v| {
            let i64i = if bt == PrimType::I64 {
                SubExp::Var(*i)
            } else {
                v.e.prim(PrimOp::Conv(bt, PrimType::I64), vec![SubExp::Var(*i)])
            };
            let mut saves = Vec::new();
            for (p, cp) in pvars.iter().zip(&ck_params) {
                if let Some(cp) = cp {
                    let u = v.e.basic(
                        BasicOp::Update {
                            array: *cp,
                            slice: vec![DimIndex::Fix(i64i)],
                            value: SubExp::Var(*p),
                        },
                        "checkpoints",
                    );
                    saves.push(SubExp::Var(u));
                }
            }
            v.e.add_stms(body.stms.iter().cloned());
            let mut result = body.result.clone();
            result.extend(saves);
            if let Some(ok) = ok {
                let g = v.rc_guard(&plan.steps, &pvars);
                let all = v.e.prim(
                    PrimOp::Bin(BinOp::And, PrimType::Bool),
                    vec![SubExp::Var(ok), g],
                );
                result.push(all);
            }
            Ok(result)
        })?;
        let mut pat = s.pat.clone();
        let mut ck = Vec::new();
        for cp in &ck_params {
            ck.push(cp.map(|cp| {
                let t = self.e.names.ty(cp).clone();
                let v = self.e.fresh("checkpoints", t);
                pat.push(v);
                v
            }));
        }
        let ok_out = ok.map(|_| {
            let v = self.e.fresh("invertible", Type::Prim(PrimType::Bool));
            pat.push(v);
            v
        });
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Loop {
                params: new_params,
                form: form.clone(),
                body: Body { stms, result },
            },
            aux: s.aux.clone(),
        });
        // A solved float that overflows (or turns NaN) stays non-finite to the end: each
        // update multiplies it by a finite non-zero factor (checked) and adds something. So
        // checking the final iterate covers every iteration.
        let ok_out = if plan.needs_flag(&pvars, &self.e.names) {
            let mut g = ok_out.map(SubExp::Var);
            for (j, p) in pvars.iter().enumerate() {
                let ty = self.e.names.ty(*p).elem();
                if plan.solved[j] && ty.is_float() && !plan.unread[j] {
                    let f = self.finite(SubExp::Var(s.pat[j]), ty);
                    g = self.and(g, f);
                }
            }
            g.map(|g| self.e.basic(BasicOp::SubExp(g), "invertible"))
        } else {
            None
        };
        Ok(Some(Extra::RevComp(Saved {
            n,
            plan,
            ck,
            ok: ok_out,
        })))
    }

    /// The return sweep of a loop whose forward sweep [`Vjp::rc_fwd_loop`] emitted: reverse
    /// computing when the flag says every inversion was valid, otherwise the loop run again
    /// with checkpoints and differentiated as usual.
    pub(super) fn rc_rev_loop(
        &mut self,
        s: &Stm,
        saved: Saved,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Some(ok) = saved.ok else {
            return self.rc_rev_inner(s, &saved, ybars);
        };
        // Both branches read the results' adjoints: neither may update them in place.
        let ybars: Vec<Option<(SubExp, bool)>> =
            ybars.iter().map(|y| y.map(|(se, _)| (se, false))).collect();
        self.branch_adjoints(s, SubExp::Var(ok), |v, invertible| {
            if invertible {
                return v.rc_rev_inner(s, &saved, &ybars);
            }
            let (mut stms, _) = v.rename(std::slice::from_ref(s), &[], HashMap::new());
            let mut s2 = stms
                .pop()
                .ok_or_else(|| Diagnostic::bug("renaming a loop gave no statement"))?;
            s2.aux.attrs.push("checkpoint".to_string());
            let extra = v.fwd_loop(&s2)?;
            v.rev_loop(&s2, extra, &ybars)
        })
    }

    /// The reverse-computing return sweep: a loop over `i = n-1 .. 0` carrying the adjoints of
    /// the loop parameters and of the body's active free variables, and the iterate after
    /// iteration `i` (the loop's results at first). Each iteration recovers the iterate before
    /// iteration `i` (checkpoints for unsolved parameters, the plan for the others),
    /// re-executes the body and runs its return sweep.
    fn rc_rev_inner(&mut self, s: &Stm, saved: &Saved, ybars: &[Option<(SubExp, bool)>]) -> R<()> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("rc_rev_inner of a non-loop"));
        };
        let LoopForm::For { i, bound } = form else {
            return Err(Diagnostic::bug("rc_rev_inner of a while loop"));
        };
        let bt = self.e.ty(bound).elem();
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let threaded = self.loop_threaded(&pvars, *i, body);
        let mut rparams = Vec::new();
        for (p, yb) in pvars.iter().zip(ybars) {
            let t = self.e.names.ty(*p).clone();
            let init = match yb {
                Some((se, _)) => *se,
                None => self.zero(&t),
            };
            let h = format!("{}_adj", self.e.names.hint(*p));
            rparams.push((self.e.fresh(&h, t), init));
        }
        let (tparams, thread_kinds) = self.threaded_loop_params(&threaded)?;
        rparams.extend(tparams);
        let k = pvars.len();
        let nt = threaded.len();
        for (j, p) in pvars.iter().enumerate() {
            let t = self.e.names.ty(*p).clone();
            let h = self.e.names.hint(*p).to_string();
            rparams.push((self.e.fresh(&h, t), SubExp::Var(s.pat[j])));
        }
        let posts: Vec<Var> = rparams[k + nt..].iter().map(|(v, _)| *v).collect();
        let ii = self.e.fresh("i_rev", Type::Prim(PrimType::I64));
        let (stms, result) = self.nested(|v| {
            let last = v.e.i64_bin(BinOp::Sub, saved.n, SubExp::i64(1));
            let i64i = v.e.i64_bin(BinOp::Sub, last, SubExp::Var(ii));
            let iv = if bt == PrimType::I64 {
                v.e.as_var(i64i, "i")
            } else {
                let c = v.e.prim(PrimOp::Conv(PrimType::I64, bt), vec![i64i]);
                v.e.as_var(c, "i")
            };
            let mut pre: Vec<Option<Var>> = Vec::new();
            for (p, ck) in pvars.iter().zip(&saved.ck) {
                pre.push(ck.map(|ck| {
                    v.e.index(
                        ck,
                        vec![DimIndex::Fix(i64i)],
                        v.e.names.hint(*p).to_string().as_str(),
                    )
                }));
            }
            v.rc_recover(&saved.plan, &pvars, body, *i, iv, &posts, &mut pre)?;
            let mut subst = HashMap::new();
            subst.insert(*i, iv);
            let mut prev = Vec::new();
            for (p, pv) in pvars.iter().zip(&pre) {
                let pv =
                    pv.ok_or_else(|| Diagnostic::bug("an iterate neither saved nor solved"))?;
                v.active.insert(pv);
                subst.insert(*p, pv);
                prev.push(pv);
            }
            let outer = std::mem::take(&mut v.adjs);
            let tvars: Vec<Var> = rparams[k..k + nt].iter().map(|(rp, _)| *rp).collect();
            v.set_threaded_adjs(&threaded, &thread_kinds, &tvars);
            let res_adjs: Vec<Option<(SubExp, bool)>> = rparams[..k]
                .iter()
                .map(|(rp, _)| Some((SubExp::Var(*rp), true)))
                .collect();
            let outer_consumable = std::mem::take(&mut v.consumable);
            let res = v.rev_reexec(&body.stms, &body.result, &res_adjs, subst);
            v.consumable = outer_consumable;
            res?;
            let mut out = Vec::new();
            for pv in &prev {
                out.push(v.adj_out(*pv)?);
            }
            for x in &threaded {
                out.push(v.adj_out(*x)?);
            }
            v.adjs = outer;
            out.extend(prev.iter().map(|pv| SubExp::Var(*pv)));
            Ok(out)
        })?;
        let out = self.e.bind_exp(
            Exp::Loop {
                params: rparams,
                form: LoopForm::For {
                    i: ii,
                    bound: saved.n,
                },
                body: Body { stms, result },
            },
            "loop_adj",
        );
        self.set_threaded_adjs(&threaded, &thread_kinds, &out[k..k + nt]);
        for ((_, init), a) in params.iter().zip(&out[..k]) {
            self.add_adj_se(init, SubExp::Var(*a), true)?;
        }
        Ok(())
    }

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
    fn finite(&mut self, x: SubExp, ty: PrimType) -> SubExp {
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

    fn and(&mut self, a: Option<SubExp>, b: SubExp) -> Option<SubExp> {
        Some(match a {
            None => b,
            Some(a) => self
                .e
                .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![a, b]),
        })
    }

    /// In the forward loop body: whether this iteration's solved updates are invertible (the
    /// factors and determinants finite and non-zero).
    fn rc_guard(&mut self, steps: &[Step], params: &[Var]) -> SubExp {
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
    fn rc_recover(
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
