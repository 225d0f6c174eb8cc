//! The plan of a reverse-computed loop: in which order the values at the start of an
//! iteration can be solved from the values after it.
//!
//! **Takes** a `for` loop's scalar parameters, its counter and its body. **Finds** the steps
//! (see the parent module for the equations they solve): each step solves one body result
//! for one loop parameter (`x' = α·x + γ`), or two results for two parameters (a 2×2
//! system), where the result is an affine function of the unknown parameters whose
//! coefficients do not depend on them ([`Solver::parse`]). When no step applies, the
//! parameters no equation could solve even with all others known are checkpointed (or, in a
//! cycle, the first unsolved one), and the search goes on with their checkpointed values
//! known.
//!
//! **Guarantees**: the coefficients of a step use only the post values of every parameter,
//! the pre values of parameters solved in an earlier step or checkpointed, the loop index and
//! variables bound outside the loop; integer steps have `α = ±1`.

use crate::core::ir::{BasicOp, Body, Exp, NameTable, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::PrimType;
use crate::core::visit::stm_free_vars;
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
    pub(super) fn needs_loop_flag(&self, params: &[Var], names: &NameTable) -> bool {
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

/// A plan as the search builds it.
struct Search {
    /// Per loop parameter: solved by some step.
    solved: Vec<bool>,
    /// Per body result: the equation of some step.
    used: Vec<bool>,
    steps: Vec<Step>,
}

impl Solver<'_> {
    /// The element type of loop parameter `j`.
    fn ty(&self, j: usize) -> PrimType {
        self.names.ty(self.params[j]).elem()
    }

    /// Whether loop parameter `j` can be solved at all: a float or integer scalar.
    fn candidate(&self, j: usize) -> bool {
        let t = self.names.ty(self.params[j]);
        t.rank() == 0 && (t.elem().is_float() || t.elem().is_int())
    }

    /// Whether `alpha` may scale an unknown of loop parameter `j`: non-zero for a float, ±1
    /// for an integer (which wrap-around arithmetic inverts exactly).
    fn fits(&self, j: usize, alpha: &Term) -> bool {
        if self.ty(j).is_float() {
            *alpha != Term::Zero
        } else {
            alpha.is_unit()
        }
    }

    /// Marks parameter `j` solved by equation `k`.
    fn solve(&mut self, q: &mut Search, j: usize, k: usize) {
        q.solved[j] = true;
        q.used[k] = true;
        self.known_params.insert(self.params[j]);
    }

    /// One pass of single steps (`x' = α·x + γ`) over the unsolved parameters; whether any
    /// was solved.
    fn solve_ones(&mut self, q: &mut Search) -> bool {
        let n = self.params.len();
        let mut progress = false;
        for j in 0..n {
            if q.solved[j] || !self.candidate(j) {
                continue;
            }
            for k in 0..n {
                if q.used[k] {
                    continue;
                }
                let SubExp::Var(r) = self.body.result[k] else {
                    continue;
                };
                let Some(a) = self.parse_result(r, &[self.params[j]], self.ty(j)) else {
                    continue;
                };
                let alpha = a.coef[0].clone();
                if self.fits(j, &alpha) {
                    q.steps.push(Step::One {
                        param: j,
                        eq: k,
                        alpha,
                        gamma: a.off,
                    });
                    self.solve(q, j, k);
                    self.memo.clear();
                    progress = true;
                    break;
                }
            }
        }
        progress
    }

    /// The first pair of unsolved float parameters of one type that two unused equations
    /// solve together (a 2×2 system that is not structurally singular); whether one was
    /// found.
    fn solve_pair(&mut self, q: &mut Search) -> bool {
        let n = self.params.len();
        for j0 in 0..n {
            for j1 in j0 + 1..n {
                if q.solved[j0]
                    || q.solved[j1]
                    || !self.candidate(j0)
                    || !self.ty(j0).is_float()
                    || self.ty(j1) != self.ty(j0)
                    || !self.candidate(j1)
                {
                    continue;
                }
                if self.solve_pair_of(q, [j0, j1]) {
                    return true;
                }
            }
        }
        false
    }

    /// [`Solver::solve_pair`] for the parameters `js`.
    fn solve_pair_of(&mut self, q: &mut Search, js: [usize; 2]) -> bool {
        let n = self.params.len();
        let us = [self.params[js[0]], self.params[js[1]]];
        let t = self.ty(js[0]);
        for k0 in 0..n {
            for k1 in k0 + 1..n {
                if q.used[k0] || q.used[k1] {
                    continue;
                }
                let (SubExp::Var(r0), SubExp::Var(r1)) =
                    (self.body.result[k0], self.body.result[k1])
                else {
                    continue;
                };
                let (Some(a0), Some(a1)) =
                    (self.parse_result(r0, &us, t), self.parse_result(r1, &us, t))
                else {
                    continue;
                };
                let [m00, m01] = [a0.coef[0].clone(), a0.coef[1].clone()];
                let [m10, m11] = [a1.coef[0].clone(), a1.coef[1].clone()];
                // A structurally singular matrix (a zero row or column) is no use.
                let z = |t: &Term| *t == Term::Zero;
                if (z(&m00) && (z(&m01) || z(&m10))) || (z(&m11) && (z(&m10) || z(&m01))) {
                    continue;
                }
                q.steps.push(Step::Two {
                    params: js,
                    eqs: [k0, k1],
                    m: [[m00, m01], [m10, m11]],
                    g: [a0.off, a1.off],
                });
                for (j, k) in [(js[0], k0), (js[1], k1)] {
                    self.solve(q, j, k);
                }
                self.memo.clear();
                return true;
            }
        }
        false
    }

    /// Stuck: takes as known (checkpointed) the parameters that no equation solves even when
    /// every other parameter is known, or else (a cycle) the first unsolved one. False when
    /// every parameter is solved or known already.
    fn checkpoint_stuck(&mut self, q: &Search) -> bool {
        let n = self.params.len();
        let open: Vec<usize> = (0..n)
            .filter(|j| !q.solved[*j] && !self.known_params.contains(&self.params[*j]))
            .collect();
        if open.is_empty() {
            return false;
        }
        let mut hopeless = Vec::new();
        for &j in &open {
            if !self.candidate(j) || !self.solvable_alone(q, j) {
                hopeless.push(j);
            }
        }
        if hopeless.is_empty() {
            hopeless.push(open[0]);
        }
        for j in hopeless {
            self.known_params.insert(self.params[j]);
        }
        self.memo.clear();
        true
    }

    /// Whether some unused equation solves parameter `j` when every other parameter is known.
    fn solvable_alone(&mut self, q: &Search, j: usize) -> bool {
        let n = self.params.len();
        let others = self
            .params
            .iter()
            .enumerate()
            .filter(|(m, _)| *m != j)
            .map(|(_, p)| *p)
            .collect();
        let before = std::mem::replace(&mut self.known_params, others);
        self.memo.clear();
        let alone = (0..n).any(|k| {
            let SubExp::Var(r) = self.body.result[k] else {
                return false;
            };
            !q.used[k]
                && self
                    .parse_result(r, &[self.params[j]], self.ty(j))
                    .is_some_and(|a| self.fits(j, &a.coef[0]))
        });
        self.known_params = before;
        alone
    }
}

/// The plan of a loop with parameters `params` (all scalars), index `i` and body `body`, or
/// `None` if no parameter can be solved.
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
    let mut q = Search {
        solved: vec![false; n],
        used: vec![false; n],
        steps: Vec::new(),
    };
    loop {
        if s.solve_ones(&mut q) || s.solve_pair(&mut q) {
            continue;
        }
        if !s.checkpoint_stuck(&q) {
            break;
        }
    }
    let unread = unread_sums(names, params, body);
    (!q.steps.is_empty()).then_some(Plan {
        steps: q.steps,
        solved: q.solved,
        unread,
    })
}
