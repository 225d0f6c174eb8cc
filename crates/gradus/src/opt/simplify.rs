//! The simplification engine: one forward walk over every body that applies the
//! statement-level rules of the passes `copy-prop`, `fold`, `if-simp`, `loop-norm`,
//! `single-point`, `fission`, `fusion` (index of a map) and `cse`.
//!
//! Takes verified IR and returns verified IR. It keeps, while walking, what the rules need to
//! know about the scope: the definition of every variable bound so far, the pending
//! substitutions (copy propagation, folded constants, common subexpressions), the available
//! expressions for CSE (scoped: a lambda sees its enclosing scope's, not the other way), and
//! range facts (`0 <= i < n` for rows of `iota n`, loop counters, branch conditions). A rule
//! either keeps the statement (possibly with a new expression), replaces its pattern variables
//! by sub-expressions, or replaces it by statements that are simplified in turn.

use super::Ctx;
use crate::core::ir::{
    Aux, BasicOp, Body, Exp, LoopForm, NameTable, Prog, Soac, Stm, SubExp, Type, Var,
};
use crate::core::safety::{IN_BOUNDS, Ranges};
use crate::core::subst::{subst_body, subst_names};
use crate::core::visit::consumed_in_body;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// What a rule does with a statement.
pub enum Rewrite {
    /// Keep the statement with this expression (same pattern).
    Exp(Exp),
    /// Drop the statement; its pattern variables become these sub-expressions.
    Subst(Vec<SubExp>),
    /// Replace the statement by these statements (simplified in turn); its pattern variables
    /// become the given sub-expressions (one per pattern variable), which the new statements
    /// compute.
    Stms(Vec<Stm>, Vec<SubExp>),
}

/// The scope-dependent knowledge of the engine.
#[derive(Clone, Default)]
pub struct Scope {
    /// Available expressions: canonical key to the pattern that computed it.
    pub cse: HashMap<String, Vec<Var>>,
    /// Range facts.
    pub ranges: Ranges,
    /// Variables bound in the body being simplified (not in enclosing ones).
    pub local: HashSet<Var>,
    /// Variables bound in the body directly enclosing it.
    pub parent_local: HashSet<Var>,
    /// The iteration variables of the loop or SOAC whose body is being simplified (its
    /// counter, its lambda's parameters); empty in the bodies of `if`s and `with_acc`s.
    pub row_vars: HashSet<Var>,
    /// Variables bound since the innermost enclosing loop or lambda began (in this body and
    /// the bodies around it up to that loop or lambda: branches do not repeat anything).
    pub this_level: HashSet<Var>,
    /// Variables bound in the bodies one loop or lambda further out: a value computed here
    /// from one of them is computed once per iteration of one construct more than it.
    pub outer_level: HashSet<Var>,
}

impl Scope {
    /// The scope's levels as the body of a loop or lambda inside it sees them.
    fn enter_level(&mut self) {
        self.outer_level = std::mem::take(&mut self.this_level);
    }
}

/// State of one walk over a function.
pub struct Engine<'n> {
    /// The name table.
    pub names: &'n mut NameTable,
    /// Definitions of the variables seen so far (variable to its statement and position).
    /// Shared: one copy per statement, not one per variable it binds.
    pub defs: HashMap<Var, (Rc<Stm>, usize)>,
    /// Variables consumed somewhere in the function.
    pub consumed: HashSet<Var>,
    /// Whether the float policy is strict IEEE for the statement being rewritten: the
    /// policy of user code or of derivative code, as the statement is.
    pub strict: bool,
    /// The policy for statements of the program ([`super::OptOptions::strict_float`]).
    strict_user: bool,
    /// The policy for derivative code ([`super::OptOptions::strong_zero_derivatives`]).
    strict_derivative: bool,
    /// Use counts at the start of the walk (variables created since are absent).
    pub uses: HashMap<Var, usize>,
    /// Range facts about variables created by rewrites (valid wherever they are in scope).
    pub extra_facts: HashMap<Var, (i64, SubExp)>,
    subst: HashMap<Var, SubExp>,
}

impl<'n> Engine<'n> {
    /// Whether the float policy is strict IEEE for `stm`: the policy of derivative code or of
    /// the program's own statements, as `stm` is.
    pub fn strict_at(&self, stm: &Stm) -> bool {
        if stm.aux.derivative {
            self.strict_derivative
        } else {
            self.strict_user
        }
    }

    /// The definition of `v`, if it is a statement's single result (or any result).
    pub fn def(&self, v: Var) -> Option<&Stm> {
        self.defs.get(&v).map(|(s, _)| &**s)
    }

    /// The definition of a sub-expression's variable.
    pub fn def_se(&self, se: &SubExp) -> Option<&Stm> {
        se.as_var().and_then(|v| self.def(v))
    }

    /// Whether a rule may read `v` where a variable defined from it was read: true unless
    /// something in the function updates `v` in place, which may happen in between. (Rules
    /// that see through an index, a permutation or a literal to the array behind it move a
    /// read of that array to a later statement.)
    pub fn readable_later(&self, v: Var) -> bool {
        !self.consumed.contains(&v)
    }

    /// The primitive operation and operands defining `se`, if any.
    pub fn prim_def(&self, se: &SubExp) -> Option<(crate::core::prim::PrimOp, Vec<SubExp>)> {
        match self.def_se(se) {
            Some(Stm {
                exp: Exp::BasicOp(BasicOp::Prim(op, args)),
                ..
            }) => Some((*op, args.clone())),
            _ => None,
        }
    }
}

/// Runs the engine on every function.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        let mut consumed = HashSet::new();
        consumed_in_body(&f.body, &mut consumed);
        let uses = crate::core::visit::use_counts(names, &f.body);
        let mut eng = Engine {
            names,
            defs: HashMap::new(),
            consumed,
            strict: ctx.opts.strict_float,
            strict_user: ctx.opts.strict_float,
            strict_derivative: ctx.opts.strict_float && !ctx.opts.strong_zero_derivatives,
            extra_facts: HashMap::new(),
            uses,
            subst: HashMap::new(),
        };
        let body = std::mem::take(&mut f.body);
        f.body = eng.body(ctx, body, &Scope::default());
        let all: HashMap<Var, SubExp> = eng
            .subst
            .keys()
            .map(|v| (*v, eng.resolve(SubExp::Var(*v))))
            .collect();
        subst_names(names, &all);
        let mut ret = std::mem::take(&mut f.ret);
        for t in &mut ret {
            *t = crate::core::subst::subst_type(t, &all);
        }
        f.ret = ret;
    }
}

impl<'n> Engine<'n> {
    /// Applies the pending substitutions to `stm`, and to the types of the variables it
    /// binds (at any depth) in the name table: a rule that copies the statement's bodies
    /// (unrolling, fusion) gives the copies' variables these types, so they must be current,
    /// not only at the end of the pass.
    fn apply_subst(&mut self, stm: &mut Stm) {
        if self.subst.is_empty() {
            return;
        }
        let mut binders = stm.pat.clone();
        crate::core::renumber::exp_binders(&stm.exp, &mut binders);
        for b in binders {
            let t = self.names.ty(b);
            let dims: HashMap<Var, SubExp> = t
                .dims()
                .iter()
                .chain(match t {
                    Type::Acc { shape, .. } => shape.iter(),
                    _ => [].iter(),
                })
                .filter_map(|d| d.as_var())
                .filter(|v| self.subst.contains_key(v))
                .map(|v| (v, self.resolve(SubExp::Var(v))))
                .collect();
            if !dims.is_empty() {
                let t = crate::core::subst::subst_type(t, &dims);
                self.names.set_ty(b, t);
            }
        }
        let mut b = Body {
            stms: vec![std::mem::replace(
                stm,
                Stm {
                    pat: vec![],
                    exp: Exp::BasicOp(BasicOp::SubExp(SubExp::i64(0))),
                    aux: Aux::default(),
                },
            )],
            result: vec![],
        };
        let mut local = HashMap::new();
        crate::core::visit::visit_body(&b, &mut |v| {
            if self.subst.contains_key(&v) {
                local.insert(v, self.resolve(SubExp::Var(v)));
            }
        });
        subst_body(&mut b, &local);
        if let Some(s) = b.stms.pop() {
            *stm = s;
        }
    }

    fn resolve(&self, mut se: SubExp) -> SubExp {
        // Substitutions may chain (`y := x` recorded before `x := 3`).
        for _ in 0..64 {
            match se {
                SubExp::Var(v) => match self.subst.get(&v) {
                    Some(next) => se = *next,
                    None => return se,
                },
                c => return c,
            }
        }
        se
    }

    /// Simplifies a body in `scope`.
    pub fn body(&mut self, ctx: &mut Ctx, body: Body, scope: &Scope) -> Body {
        let mut scope = scope.clone();
        scope.parent_local = std::mem::take(&mut scope.local);
        let mut out = Vec::with_capacity(body.stms.len());
        let mut work: VecDeque<Stm> = body.stms.into();
        let mut budget = 64 * (work.len() + 16);
        while let Some(mut stm) = work.pop_front() {
            self.apply_subst(&mut stm);
            self.nested(ctx, &mut stm, &scope);
            let mut tries = 0;
            loop {
                tries += 1;
                self.strict = self.strict_at(&stm);
                let rw = if budget > 0 && tries < 8 {
                    self.rules(ctx, &stm, &scope)
                } else {
                    None
                };
                budget = budget.saturating_sub(1);
                match rw {
                    None => {
                        self.keep(ctx, stm, &mut scope, &mut out);
                        break;
                    }
                    Some(Rewrite::Exp(e)) => {
                        // A new expression is proved in bounds (or not) afresh in `keep`.
                        stm.exp = e;
                        forget_in_bounds(&mut stm);
                    }
                    Some(Rewrite::Subst(ses)) => {
                        for (v, se) in stm.pat.iter().zip(ses) {
                            let se = self.resolve(se);
                            self.subst.insert(*v, se);
                        }
                        break;
                    }
                    Some(Rewrite::Stms(stms, ses)) => {
                        // A variable may keep its name, now bound by one of the new statements.
                        for (v, se) in stm.pat.iter().zip(ses) {
                            if se != SubExp::Var(*v) {
                                self.subst.insert(*v, se);
                            }
                        }
                        // New statements may consume new variables (an unrolled body's
                        // in-place updates); CSE must not merge those.
                        let new = Body {
                            stms,
                            result: vec![],
                        };
                        consumed_in_body(&new, &mut self.consumed);
                        for mut s in new.stms.into_iter().rev() {
                            forget_in_bounds(&mut s);
                            work.push_front(s);
                        }
                        break;
                    }
                }
            }
        }
        let result = body.result.into_iter().map(|r| self.resolve(r)).collect();
        // Substitutions found later in this body may apply to results of earlier ones only
        // through `resolve`, which already happened.
        Body { stms: out, result }
    }

    fn keep(&mut self, ctx: &mut Ctx, mut stm: Stm, scope: &mut Scope, out: &mut Vec<Stm>) {
        if ctx.on("cse")
            && let Some(key) = super::cse::key(self, &stm)
        {
            if let Some(prev) = scope.cse.get(&key)
                && prev.len() == stm.pat.len()
            {
                ctx.fire("cse");
                for (v, p) in stm.pat.iter().zip(prev.clone()) {
                    self.subst.insert(*v, SubExp::Var(p));
                }
                return;
            }
            scope.cse.insert(key, stm.pat.clone());
        }
        if let (
            Exp::BasicOp(BasicOp::Iota {
                n, start, stride, ..
            }),
            [v],
        ) = (&stm.exp, stm.pat.as_slice())
            && crate::core::recognise::is_int_const(start, 0)
            && crate::core::recognise::is_int_const(stride, 1)
        {
            scope.ranges.iotas.insert(*v, *n);
        }
        // Rule `index-in-bounds` (module `fold`): marked here, on the statement as kept.
        if ctx.on("fold") {
            mark_in_bounds(self, ctx, &mut stm, scope);
        }
        scope.ranges.note_arithmetic(&stm);
        let shared = Rc::new(stm.clone());
        for (k, v) in stm.pat.iter().enumerate() {
            self.defs.insert(*v, (shared.clone(), k));
            scope.local.insert(*v);
            scope.this_level.insert(*v);
        }
        out.push(stm);
    }

    fn nested(&mut self, ctx: &mut Ctx, stm: &mut Stm, scope: &Scope) {
        match &mut stm.exp {
            Exp::BasicOp(_) | Exp::Apply { .. } | Exp::Ad { .. } => {}
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let mut es = scope.clone();
                es.row_vars.clear();
                let mut ts = es.clone();
                for (v, lo, hi) in super::ifsimp::cond_facts(self, cond, &scope.ranges) {
                    ts.ranges.insert(v, lo, hi);
                }
                for (v, lo, hi) in super::ifsimp::else_facts(self, cond, &scope.ranges) {
                    es.ranges.insert(v, lo, hi);
                }
                *then_body = self.body(ctx, std::mem::take(then_body), &ts);
                *else_body = self.body(ctx, std::mem::take(else_body), &es);
            }
            Exp::Loop { params, form, body } => {
                let mut s = scope.clone();
                s.row_vars.clear();
                s.enter_level();
                if let LoopForm::For { i, bound } = form
                    && self.names.ty(*i)
                        == &crate::core::ir::Type::Prim(crate::core::scalar::PrimType::I64)
                {
                    s.ranges.insert(*i, 0, *bound);
                    s.row_vars.insert(*i);
                }
                *body = self.body(ctx, std::mem::take(body), &s);
                let mut own: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
                if let LoopForm::For { i, .. } = form {
                    own.push(*i);
                }
                super::own_copy::give_own_copies(self.names, body, &own);
            }
            Exp::Soac(soac) => {
                let mut s = scope.clone();
                s.row_vars.clear();
                s.enter_level();
                if let Soac::Map { lam: f, arrays, .. } | Soac::Screma { map: f, arrays, .. } = soac
                {
                    let (params, arrays) = (f.params.clone(), arrays.clone());
                    s.ranges.from_inputs(&params, &arrays);
                    s.row_vars.extend(params);
                }
                for lam in soac.lambdas_mut() {
                    lam.body = self.body(ctx, std::mem::take(&mut lam.body), &s);
                    super::own_copy::give_own_copies(self.names, &mut lam.body, &lam.params);
                }
            }
            Exp::WithAcc { lam, .. } => {
                // Its lambda runs once: the same level.
                let mut s = scope.clone();
                s.row_vars.clear();
                lam.body = self.body(ctx, std::mem::take(&mut lam.body), &s);
            }
        }
    }

    fn rules(&mut self, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
        if ctx.on("copy-prop")
            && let Some(r) = super::copyprop::rule(self, ctx, stm)
        {
            return Some(r);
        }
        if ctx.on("fold")
            && let Some(r) = super::fold::rule(self, ctx, stm, scope)
        {
            return Some(r);
        }
        if ctx.on("if-simp")
            && let Some(r) = super::ifsimp::rule(self, ctx, stm)
        {
            return Some(r);
        }
        if ctx.on("fusion")
            && let Some(r) = super::fusion::index_of_map(self, ctx, stm, scope)
        {
            return Some(r);
        }
        if ctx.on("fusion")
            && let Some(r) = super::fusion::invariant_results(self, ctx, stm)
        {
            return Some(r);
        }
        if ctx.on("fusion")
            && let Some(r) = super::fusion::map_into_hist(self, ctx, stm, scope)
        {
            return Some(r);
        }
        if ctx.on("single-point")
            && let Some(r) = super::singlepoint::rule(self, ctx, stm, scope)
        {
            return Some(r);
        }
        if ctx.on("single-point")
            && let Some(r) = super::singlepoint::acc_single_row(self, ctx, stm, scope)
        {
            return Some(r);
        }
        if ctx.on("fission")
            && let Some(r) = super::fission::rule(self, ctx, stm)
        {
            return Some(r);
        }
        if ctx.on("loop-norm")
            && let Some(r) = super::loop_norm::rule(self, ctx, stm, scope)
        {
            return Some(r);
        }
        if ctx.on("scalarise")
            && let Some(r) = super::scalarise::rule(self, ctx, stm, scope)
        {
            return Some(r);
        }
        None
    }
}

/// Drops the [`IN_BOUNDS`] mark of a statement a rule rewrote.
fn forget_in_bounds(stm: &mut Stm) {
    stm.aux.attrs.retain(|a| a != IN_BOUNDS);
}

/// Rule `index-in-bounds`: an index or an in-place update whose every position is known to lie
/// in its dimension is marked [`IN_BOUNDS`] (see the module `fold`).
fn mark_in_bounds(eng: &Engine, ctx: &mut Ctx, stm: &mut Stm, scope: &Scope) {
    if stm.aux.attrs.iter().any(|a| a == IN_BOUNDS) {
        return;
    }
    let proved = match &stm.exp {
        Exp::BasicOp(BasicOp::Index { array, slice })
        | Exp::BasicOp(BasicOp::Update { array, slice, .. }) => {
            !slice.is_empty()
                && scope
                    .ranges
                    .fixed_in_bounds(slice, eng.names.ty(*array).dims())
        }
        // An accumulator update outside the accumulator is skipped, not an error: proved in
        // bounds, it needs no test either.
        Exp::BasicOp(BasicOp::UpdateAcc { acc, indices, .. }) => match eng.names.ty(*acc) {
            crate::core::ir::Type::Acc { shape, .. } => {
                !indices.is_empty()
                    && indices.len() == shape.len()
                    && indices
                        .iter()
                        .zip(shape)
                        .all(|(i, n)| scope.ranges.in_bounds(i, n))
            }
            _ => false,
        },
        _ => false,
    };
    if proved {
        ctx.fire("index-in-bounds");
        stm.aux.attrs.push(IN_BOUNDS.to_string());
    }
}
