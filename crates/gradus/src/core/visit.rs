//! Reading the variables of core IR: every occurrence ([`visit_body`]), the binders of an
//! expression, free variables (of expressions, bodies and types), use counts, consumed
//! variables, and walks over every nested body.
//!
//! Everything here reads; [`walk_bodies_mut`] hands each body to a caller that may rewrite it.
//! Variable occurrences are found by [`crate::core::renumber::map_vars_body`], the one
//! traversal of every operand, so a new kind of expression is handled in one place.

use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, NameTable, Soac, Stm, SubExp, Type, Var};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::core::scalar::Scalar;
use std::collections::{HashMap, HashSet};

/// Wraps an expression in a statement without pattern, to reuse body-level traversals.
fn as_body(exp: &Exp) -> Body {
    Body {
        stms: vec![Stm {
            pat: vec![],
            exp: exp.clone(),
            aux: Aux::default(),
        }],
        result: vec![],
    }
}

/// Calls `f` on every variable occurrence in `body` (binders included, types in the IR
/// included, name-table types not).
pub fn visit_body(body: &Body, f: &mut impl FnMut(Var)) {
    let mut b = body.clone();
    map_vars_body(&mut b, &mut |v| {
        f(v);
        v
    });
}

/// The variables bound anywhere inside `exp` (lambda and loop parameters, counters,
/// patterns of nested statements).
pub fn exp_binders(exp: &Exp) -> HashSet<Var> {
    let mut out = Vec::new();
    body_binders(&as_body(exp), &mut out);
    out.into_iter().collect()
}

/// The variables `exp` needs from its enclosing scope: every occurrence that is not bound
/// inside it, plus the variables in the types of its inner binders.
pub fn free_in_exp(names: &NameTable, exp: &Exp) -> HashSet<Var> {
    let body = as_body(exp);
    let mut inner = Vec::new();
    body_binders(&body, &mut inner);
    let inner_set: HashSet<Var> = inner.iter().copied().collect();
    let mut out = HashSet::new();
    visit_body(&body, &mut |v| {
        if !inner_set.contains(&v) {
            out.insert(v);
        }
    });
    for b in inner {
        for d in type_vars(names.ty(b)) {
            if !inner_set.contains(&d) {
                out.insert(d);
            }
        }
    }
    out
}

/// Free variables of a body (as [`free_in_exp`]).
pub fn free_in_body(names: &NameTable, body: &Body) -> HashSet<Var> {
    let mut inner = Vec::new();
    body_binders(body, &mut inner);
    let inner_set: HashSet<Var> = inner.iter().copied().collect();
    let mut out = HashSet::new();
    visit_body(body, &mut |v| {
        if !inner_set.contains(&v) {
            out.insert(v);
        }
    });
    for b in inner {
        for d in type_vars(names.ty(b)) {
            if !inner_set.contains(&d) {
                out.insert(d);
            }
        }
    }
    out
}

/// The variables a type mentions (in its dimensions).
pub fn type_vars(t: &Type) -> Vec<Var> {
    let mut out = Vec::new();
    let mut t = t.clone();
    map_vars_type(&mut t, &mut |v| {
        out.push(v);
        v
    });
    out
}

/// How often each variable occurs in `body` as an operand, a result or a dimension of a
/// type (binders are not counted, but the dimensions of their types are).
pub fn use_counts(names: &NameTable, body: &Body) -> HashMap<Var, usize> {
    let mut binders = Vec::new();
    body_binders(body, &mut binders);
    let mut counts: HashMap<Var, usize> = HashMap::new();
    visit_body(body, &mut |v| *counts.entry(v).or_default() += 1);
    for b in &binders {
        if let Some(c) = counts.get_mut(b) {
            *c -= 1;
        }
        for d in type_vars(names.ty(*b)) {
            *counts.entry(d).or_default() += 1;
        }
    }
    counts.retain(|_, c| *c > 0);
    counts
}

/// The variables consumed anywhere in `body` (updated arrays, destinations of `hist` and
/// `scatter`, accumulators, `with_acc` inputs, loop initial values its body consumes).
pub fn consumed_in_body(body: &Body, out: &mut HashSet<Var>) {
    let mut ordered = Vec::new();
    consumed_in_body_ordered(body, &mut ordered);
    out.extend(ordered);
}

/// The variables consumed in `body`, in order of first consumption (repeats allowed).
/// The variables a statement consumes (at any depth), as [`consumed_in_body`].
pub fn consumed_in_stm(stm: &Stm) -> Vec<Var> {
    let mut out = Vec::new();
    consumed_in_exp(&stm.exp, &mut out);
    out
}

fn consumed_in_body_ordered(body: &Body, out: &mut Vec<Var>) {
    for stm in &body.stms {
        consumed_in_exp(&stm.exp, out);
    }
}

fn consumed_in_exp(exp: &Exp, out: &mut Vec<Var>) {
    match exp {
        Exp::BasicOp(BasicOp::Update { array, .. }) => out.push(*array),
        Exp::BasicOp(BasicOp::UpdateAcc { acc, .. }) => out.push(*acc),
        Exp::BasicOp(_) | Exp::Apply { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            consumed_in_body_ordered(then_body, out);
            consumed_in_body_ordered(else_body, out);
        }
        Exp::Loop { params, body, .. } => {
            // A loop consumes the initial value of every parameter its body consumes.
            let mut inner = Vec::new();
            consumed_in_body_ordered(body, &mut inner);
            for (p, init) in params {
                if inner.contains(p)
                    && let SubExp::Var(v) = init
                {
                    out.push(*v);
                }
            }
            out.extend(inner);
        }
        Exp::Soac(soac) => {
            match soac {
                Soac::Hist { dests, .. } | Soac::Scatter { dests, .. } => {
                    out.extend(dests.iter().copied())
                }
                Soac::Screma { form, .. } => out.extend(form.dests().iter().copied()),
                _ => {}
            }
            for lam in soac.lambdas() {
                consumed_in_body_ordered(&lam.body, out);
            }
        }
        Exp::WithAcc { inputs, lam } => {
            for (_, arrays) in inputs {
                out.extend(arrays.iter().copied());
            }
            consumed_in_body_ordered(&lam.body, out);
        }
        Exp::Ad { lam, .. } => consumed_in_body_ordered(&lam.body, out),
    }
}

/// The variables bound outside `stm` that it consumes (at any depth), in order of first
/// consumption: update targets, `hist` and `scatter` destinations, `with_acc` inputs,
/// accumulators, and the initial values of loop parameters that the loop body consumes.
pub fn stm_consumed_vars(stm: &Stm) -> Vec<Var> {
    let mut out = Vec::new();
    consumed_in_exp(&stm.exp, &mut out);
    let bound = stm_binders(stm);
    let mut seen = HashSet::new();
    out.retain(|v| !bound.contains(v) && seen.insert(*v));
    out
}

/// Whether `stm`, moved to after the statements `later`, would read a variable that one of
/// them consumes: a statement may move later only past statements that leave everything it
/// reads intact (a read of an array moved past an in-place update of that array would see
/// the new values, or an array that no longer exists).
pub fn reads_what_later_consume(stm: &Stm, later: &[Stm]) -> bool {
    let reads: HashSet<Var> = stm_free_vars(stm).into_iter().collect();
    later
        .iter()
        .any(|s| stm_consumed_vars(s).iter().any(|v| reads.contains(v)))
}

/// Every variable bound by `stm` or inside it.
fn stm_binders(stm: &Stm) -> HashSet<Var> {
    let mut bound = Vec::new();
    body_binders(
        &Body {
            stms: vec![stm.clone()],
            result: vec![],
        },
        &mut bound,
    );
    bound.into_iter().collect()
}

/// The variables a statement uses but does not bind (at any depth), in order of first
/// occurrence (the order matters to passes whose output lists them).
pub fn stm_free_vars(stm: &Stm) -> Vec<Var> {
    let bound = stm_binders(stm);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut probe = Body {
        stms: vec![stm.clone()],
        result: vec![],
    };
    map_vars_body(&mut probe, &mut |v| {
        if !bound.contains(&v) && seen.insert(v) {
            out.push(v);
        }
        v
    });
    out
}

/// The variables a lambda uses but does not bind, in order of first occurrence.
pub fn lambda_free_vars(lam: &Lambda) -> Vec<Var> {
    let stm = Stm {
        pat: vec![],
        exp: Exp::If {
            cond: SubExp::Const(Scalar::Bool(true)),
            then_body: lam.body.clone(),
            else_body: Body::default(),
            ret: vec![],
        },
        aux: Aux::default(),
    };
    let params: HashSet<Var> = lam.params.iter().copied().collect();
    stm_free_vars(&stm)
        .into_iter()
        .filter(|v| !params.contains(v))
        .collect()
}

/// Walks every body of `body` (itself and all nested ones), innermost first.
pub fn walk_bodies_mut(body: &mut Body, f: &mut impl FnMut(&mut Body)) {
    for stm in &mut body.stms {
        walk_exp_bodies_mut(&mut stm.exp, f);
    }
    f(body);
}

/// Walks the bodies nested in `exp`, innermost first.
pub fn walk_exp_bodies_mut(exp: &mut Exp, f: &mut impl FnMut(&mut Body)) {
    for body in exp.bodies_mut() {
        walk_bodies_mut(body, f);
    }
}
