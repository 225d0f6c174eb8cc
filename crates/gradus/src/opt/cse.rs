//! Common-subexpression elimination: a statement whose expression equals, up to renaming of
//! the variables bound inside it, one computed earlier in the same or an enclosing scope is
//! removed and its pattern replaced by the earlier pattern.
//!
//! Rule `cse`. Guarantees: statements with effects (assertions, in-place updates,
//! accumulator updates, `scratch`, `with_acc`, calls, consumers) and statements whose results
//! are consumed are never merged, so no consumed array gains an alias.

use super::simplify::Engine;
use crate::core::ir::{BasicOp, Body, Exp, NameTable, Stm, Type, Var};
use crate::core::renumber::map_vars_body;
use crate::core::visit::{consumed_in_body, exp_binders, type_vars};
use std::collections::{HashMap, HashSet};

/// The canonical key of a statement's expression, if it may be merged with an equal one.
pub fn key(eng: &Engine, stm: &Stm) -> Option<String> {
    if stm.pat.is_empty() {
        return None;
    }
    for v in &stm.pat {
        if eng.consumed.contains(v) || matches!(eng.names.ty(*v), Type::Acc { .. }) {
            return None;
        }
    }
    match &stm.exp {
        Exp::BasicOp(op) => match op {
            BasicOp::Update { .. }
            | BasicOp::UpdateAcc { .. }
            | BasicOp::Scratch { .. }
            | BasicOp::Assert { .. } => return None,
            _ => {}
        },
        Exp::Apply { .. } | Exp::WithAcc { .. } | Exp::Ad { .. } => return None,
        Exp::If { .. } | Exp::Loop { .. } | Exp::Soac(_) => {
            let mut c = HashSet::new();
            consumed_in_body(
                &Body {
                    stms: vec![stm.clone()],
                    result: vec![],
                },
                &mut c,
            );
            if !c.is_empty() {
                return None;
            }
        }
    }
    Some(alpha_key(&*eng.names, stm))
}

/// A statement's expression and the types of its results, with the variables bound inside the
/// expression renamed to their position: equal for alpha-equivalent statements computing
/// values of the same types.
pub fn alpha_key(names: &NameTable, stm: &Stm) -> String {
    // Inner binders are renamed to their position so alpha-equivalent expressions agree.
    let binders = exp_binders(&stm.exp);
    let mut order: Vec<Var> = Vec::new();
    let mut b = Body {
        stms: vec![Stm {
            pat: vec![],
            exp: stm.exp.clone(),
            aux: Default::default(),
        }],
        result: vec![],
    };
    crate::core::renumber::body_binders(&b, &mut order);
    let canon: HashMap<Var, Var> = order
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, Var(u32::MAX - i as u32)))
        .collect();
    map_vars_body(&mut b, &mut |v| canon.get(&v).copied().unwrap_or(v));
    let mut key = format!("{:?}", b.stms[0].exp);
    // Types of the binders and of the results, renamed the same way.
    for v in order.iter().chain(&stm.pat) {
        let mut t = names.ty(*v).clone();
        if type_vars(&t).iter().any(|d| binders.contains(d)) {
            crate::core::renumber::map_vars_type(&mut t, &mut |d| {
                canon.get(&d).copied().unwrap_or(d)
            });
        }
        key.push_str(&format!("|{t:?}"));
    }
    key
}
