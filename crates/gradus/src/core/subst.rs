//! Rewriting the variables of core IR: substitution of variables by sub-expressions (in the
//! IR and in the name table's types), fresh copies of bodies and lambdas that can sit next to
//! the original, a lambda instantiated on arguments, and pruning a body to what some results
//! need.
//!
//! Every function keeps the IR's invariants when its caller does: fresh copies rename every
//! binder, so unique naming survives.

use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, NameTable, Stm, SubExp, Type, Var};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::core::visit::{free_in_body, free_in_exp, type_vars};
use crate::core::walk::{Visitor, walk_body};
use std::collections::{HashMap, HashSet};

/// A substitution of variables by sub-expressions, applied to a body. Variables mapped to
/// constants may only occur as operands (not as arrays or binders); callers ensure that.
pub fn subst_body(body: &mut Body, map: &HashMap<Var, SubExp>) {
    if map.is_empty() {
        return;
    }
    // First replace operands that become constants, then rename variables.
    walk_body(body, &mut ConstOperands(map));
    map_vars_body(body, &mut |v| match map.get(&v) {
        Some(SubExp::Var(w)) => *w,
        _ => v,
    });
}

/// Applies a renaming to the types in the name table (dimensions that are renamed variables
/// or become constants).
pub fn subst_names(names: &mut NameTable, map: &HashMap<Var, SubExp>) {
    if map.is_empty() {
        return;
    }
    for k in 0..names.len() {
        let v = Var(k as u32);
        let t = names.ty(v);
        if !type_vars(t).iter().any(|d| map.contains_key(d)) {
            continue;
        }
        let t = subst_type(t, map);
        names.set_ty(v, t);
    }
}

/// [`subst_body`] together with the types of the variables `body` binds, for a rewrite that
/// keeps the body: types that name a substituted variable (a size) name its replacement.
pub fn subst_body_and_types(names: &mut NameTable, body: &mut Body, map: &HashMap<Var, SubExp>) {
    subst_body(body, map);
    subst_binder_types(names, body, map);
}

/// Applies `map` to the types of the variables `body` binds.
fn subst_binder_types(names: &mut NameTable, body: &Body, map: &HashMap<Var, SubExp>) {
    let mut binders = Vec::new();
    body_binders(body, &mut binders);
    for b in binders {
        let t = names.ty(b);
        if t.dims()
            .iter()
            .any(|d| d.as_var().is_some_and(|v| map.contains_key(&v)))
        {
            let t = subst_type(t, map);
            names.set_ty(b, t);
        }
    }
}

/// A copy of `body` with `map` applied to what it reads, in which every variable it binds
/// gets a fresh name whose type names the substituted variables too (sizes among them). The
/// original's variables keep their types, so a pass may build the copy and then drop it.
pub fn substituted_copy(names: &mut NameTable, body: &Body, map: &HashMap<Var, SubExp>) -> Body {
    let mut copy = body.clone();
    subst_body(&mut copy, map);
    let copy = freshen_body(names, &copy);
    subst_binder_types(names, &copy, map);
    copy
}

/// A type with its dimensions substituted.
pub fn subst_type(t: &Type, map: &HashMap<Var, SubExp>) -> Type {
    let sub = |d: &SubExp| match d {
        SubExp::Var(v) => map.get(v).copied().unwrap_or(*d),
        c => *c,
    };
    match t {
        Type::Prim(_) => t.clone(),
        Type::Array { elem, dims } => Type::Array {
            elem: *elem,
            dims: dims.iter().map(sub).collect(),
        },
        Type::Acc { shape, elems } => Type::Acc {
            shape: shape.iter().map(sub).collect(),
            elems: elems.clone(),
        },
    }
}

/// Replaces the operands mapped to constants (the first half of [`subst_body`]).
struct ConstOperands<'a>(&'a HashMap<Var, SubExp>);

impl Visitor for ConstOperands<'_> {
    fn binder(&mut self, _: &mut Var) {}
    fn var(&mut self, _: &mut Var) {}
    fn operand(&mut self, se: &mut SubExp) {
        if let SubExp::Var(v) = se
            && let Some(c @ SubExp::Const(_)) = self.0.get(v)
        {
            *se = *c;
        }
    }
}

/// A copy of `body` in which every variable bound inside it gets a fresh name (same hint,
/// type renamed), so the copy can be placed anywhere the original's free variables are in
/// scope.
pub fn freshen_body(names: &mut NameTable, body: &Body) -> Body {
    let mut binders = Vec::new();
    body_binders(body, &mut binders);
    let mut ren: HashMap<Var, Var> = HashMap::new();
    for b in &binders {
        let hint = names.hint(*b).to_string();
        let t = names.ty(*b).clone();
        ren.insert(*b, names.fresh(&hint, t));
    }
    for b in &binders {
        let mut t = names.ty(ren[b]).clone();
        map_vars_type(&mut t, &mut |v| ren.get(&v).copied().unwrap_or(v));
        names.set_ty(ren[b], t);
    }
    let mut out = body.clone();
    map_vars_body(&mut out, &mut |v| ren.get(&v).copied().unwrap_or(v));
    out
}

/// A copy of `body` that can sit next to the original: `params` (the binders it takes from
/// outside, such as lambda or loop parameters) become fresh variables, returned in order,
/// and every variable bound inside gets a fresh name.
pub fn fresh_copy(names: &mut NameTable, params: &[Var], body: &Body) -> (Vec<Var>, Body) {
    let mut ren = HashMap::new();
    let mut fresh = Vec::with_capacity(params.len());
    for p in params {
        let (hint, t) = (names.hint(*p).to_string(), names.ty(*p).clone());
        let p2 = names.fresh(&hint, t);
        ren.insert(*p, SubExp::Var(p2));
        fresh.push(p2);
    }
    let mut copy = body.clone();
    subst_body(&mut copy, &ren);
    (fresh, freshen_body(names, &copy))
}

/// The statements of `lam`'s body with its parameters replaced by `args` (no copies: a use
/// of the argument is where the parameter's was, which passes that consume an accumulator or
/// fuse a producer with its reader need) and fresh names for what it binds, and its results.
pub fn substitute_lambda(
    names: &mut NameTable,
    lam: &Lambda,
    args: &[SubExp],
) -> (Vec<Stm>, Vec<SubExp>) {
    let map: HashMap<Var, SubExp> = lam
        .params
        .iter()
        .copied()
        .zip(args.iter().copied())
        .collect();
    let mut body = lam.body.clone();
    subst_body(&mut body, &map);
    let body = freshen_body(names, &body);
    (body.stms, body.result)
}

/// Statements computing `lam` applied to `args` (one sub-expression per parameter), with
/// fresh names, and its results.
pub fn instantiate_lambda(
    names: &mut NameTable,
    lam: &Lambda,
    args: &[SubExp],
    aux: &Aux,
) -> (Vec<Stm>, Vec<SubExp>) {
    let mut stms = Vec::new();
    let mut map = HashMap::new();
    for (p, a) in lam.params.iter().zip(args) {
        let t = names.ty(*p).clone();
        let hint = names.hint(*p).to_string();
        let p2 = names.fresh(&hint, t);
        stms.push(Stm {
            pat: vec![p2],
            exp: Exp::BasicOp(BasicOp::SubExp(*a)),
            aux: aux.clone(),
        });
        map.insert(*p, SubExp::Var(p2));
    }
    let mut body = lam.body.clone();
    subst_body(&mut body, &map);
    let body = freshen_body(names, &body);
    stms.extend(body.stms);
    (stms, body.result)
}

/// A copy of `body` keeping only the statements needed for `results` (a local dead-code
/// elimination for passes that take a body apart).
pub fn prune(names: &NameTable, body: &Body, results: Vec<SubExp>) -> Body {
    let mut live: HashSet<Var> = results.iter().filter_map(|r| r.as_var()).collect();
    let mut keep = vec![false; body.stms.len()];
    for (k, stm) in body.stms.iter().enumerate().rev() {
        if stm.pat.iter().any(|v| live.contains(v)) {
            keep[k] = true;
            live.extend(free_in_exp(names, &stm.exp));
            for v in &stm.pat {
                live.extend(type_vars(names.ty(*v)));
            }
        }
    }
    Body {
        stms: body
            .stms
            .iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(s, _)| s.clone())
            .collect(),
        result: results,
    }
}

/// The variables among `of` that `se` depends on through the statements of `body`.
pub fn deps_in(names: &NameTable, body: &Body, se: &SubExp, of: &HashSet<Var>) -> HashSet<Var> {
    let pruned = prune(names, body, vec![*se]);
    let mut out: HashSet<Var> = free_in_body(names, &pruned)
        .into_iter()
        .filter(|v| of.contains(v))
        .collect();
    if let SubExp::Var(v) = se
        && of.contains(v)
    {
        out.insert(*v);
    }
    out
}

/// Replaces the free variable `from` by `to` in a statement.
pub fn rename_in_stm(stm: &mut Stm, from: Var, to: Var) {
    let mut body = Body {
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
    map_vars_body(&mut body, &mut |v| if v == from { to } else { v });
    if let Some(s) = body.stms.pop() {
        *stm = s;
    }
}
