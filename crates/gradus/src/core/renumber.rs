//! Dense renumbering of variables, so that printed snapshots do not churn.
//!
//! [`renumber`] returns a copy of a program whose variables are numbered `0, 1, 2, ..` in the
//! order in which their bindings appear in the printed text (size parameters, parameters,
//! then each statement's pattern before the bindings nested in its expression; loop parameters
//! before the counter; lambda parameters before their bodies). Variables that are used but
//! never bound (invalid IR) are numbered after all bound ones, in order of first use. Entries
//! of the name table that the program never mentions are dropped. Hints and types are kept.
//!
//! [`map_vars_prog`] and friends, which apply a renaming to every occurrence of a variable
//! (bindings, uses, and dimensions inside types), are public for passes that need them.

use crate::core::ir::{Body, Exp, FunDef, Lambda, LoopForm, NameTable, Prog, Type, Var};
use crate::core::walk::{Rename, walk_body, walk_fun, walk_prog, walk_type};
use std::collections::HashMap;

/// A copy of `prog` with variables numbered densely in order of first binding.
pub fn renumber(prog: &Prog) -> Prog {
    let mut order: Vec<Var> = Vec::new();
    let mut seen: HashMap<Var, u32> = HashMap::new();
    let mut bind = |v: Var, order: &mut Vec<Var>| {
        seen.entry(v).or_insert_with(|| {
            order.push(v);
            order.len() as u32 - 1
        });
    };
    for f in &prog.funs {
        let mut bs = Vec::new();
        fun_binders(f, &mut bs);
        for v in bs {
            bind(v, &mut order);
        }
    }
    // Uses of unbound variables, in order of first use.
    let mut extra = Vec::new();
    let mut probe = prog.funs.clone();
    for f in &mut probe {
        map_vars_fun(f, &mut |v| {
            extra.push(v);
            v
        });
    }
    for v in extra {
        bind(v, &mut order);
    }
    // Variables only mentioned in the types of others.
    let mut k = 0;
    while k < order.len() {
        let v = order[k];
        if (v.0 as usize) < prog.names.len() {
            let mut t = prog.names.ty(v).clone();
            let mut dims = Vec::new();
            map_vars_type(&mut t, &mut |d| {
                dims.push(d);
                d
            });
            for d in dims {
                bind(d, &mut order);
            }
        }
        k += 1;
    }
    let new_of: HashMap<Var, Var> = order
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, Var(i as u32)))
        .collect();
    let mut rename = |v: Var| new_of.get(&v).copied().unwrap_or(v);
    let mut names = NameTable::new();
    for v in &order {
        let hint = prog.names.hint(*v).to_string();
        let mut ty = if (v.0 as usize) < prog.names.len() {
            prog.names.ty(*v).clone()
        } else {
            Type::Prim(crate::core::scalar::PrimType::Bool)
        };
        map_vars_type(&mut ty, &mut rename);
        names.fresh(&hint, ty);
    }
    let mut funs = prog.funs.clone();
    for f in &mut funs {
        map_vars_fun(f, &mut rename);
    }
    Prog { names, funs }
}

/// The variables a function binds, in printed order.
pub fn fun_binders(f: &FunDef, out: &mut Vec<Var>) {
    out.extend(&f.size_params);
    out.extend(&f.params);
    body_binders(&f.body, out);
}

/// The variables a body binds (at any depth), in printed order.
pub fn body_binders(body: &Body, out: &mut Vec<Var>) {
    for stm in &body.stms {
        out.extend(&stm.pat);
        exp_binders(&stm.exp, out);
    }
}

fn lambda_binders(lam: &Lambda, out: &mut Vec<Var>) {
    out.extend(&lam.params);
    body_binders(&lam.body, out);
}

/// The variables an expression binds (at any depth), in printed order.
pub fn exp_binders(exp: &Exp, out: &mut Vec<Var>) {
    match exp {
        Exp::BasicOp(_) | Exp::Apply { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            body_binders(then_body, out);
            body_binders(else_body, out);
        }
        Exp::Loop { params, form, body } => {
            out.extend(params.iter().map(|(p, _)| *p));
            if let LoopForm::For { i, .. } = form {
                out.push(*i);
            }
            body_binders(body, out);
        }
        Exp::Soac(soac) => {
            for lam in soac.lambdas() {
                lambda_binders(lam, out);
            }
        }
        Exp::WithAcc { lam, .. } | Exp::Ad { lam, .. } => lambda_binders(lam, out),
    }
}

/// Applies `f` to every variable of a function (bindings, uses, dimensions in types, entry
/// information), in printed order.
pub fn map_vars_fun(fun: &mut FunDef, f: &mut impl FnMut(Var) -> Var) {
    walk_fun(fun, &mut Rename(f));
}

/// Applies `f` to every variable of a program's functions (not to the name table).
pub fn map_vars_prog(prog: &mut Prog, f: &mut impl FnMut(Var) -> Var) {
    walk_prog(prog, &mut Rename(f));
}

/// Applies `f` to every variable of a body.
pub fn map_vars_body(body: &mut Body, f: &mut impl FnMut(Var) -> Var) {
    walk_body(body, &mut Rename(f));
}

/// Applies `f` to the variables in a type's dimensions.
pub fn map_vars_type(t: &mut Type, f: &mut impl FnMut(Var) -> Var) {
    walk_type(t, &mut Rename(f));
}

/// Applies `f` to the [`crate::core::ir::Aux`] of every statement of a body, at any depth.
pub fn map_aux_body(body: &mut Body, f: &mut impl FnMut(&mut crate::core::ir::Aux)) {
    for stm in &mut body.stms {
        f(&mut stm.aux);
        for inner in stm.exp.bodies_mut() {
            map_aux_body(inner, f);
        }
    }
}
