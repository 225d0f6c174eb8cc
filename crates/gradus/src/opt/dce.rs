//! Dead-code elimination (pass `dce`): a statement none of whose results is used (as an
//! operand, a result, or a size in a type) is removed, unless it is an assertion. Runs
//! backwards over every body with one set of live variables for the whole function (names
//! are unique), and applies the `tuple-elim` rules ([`super::tuple_elim`]) to the statements it
//! keeps, so that unused results and what computes them disappear together.
//!
//! Rule `dce`. Takes verified IR, gives verified IR.

use super::Ctx;
use crate::core::ir::{BasicOp, Body, Exp, NameTable, Prog, Soac};
use crate::core::visit::{free_in_exp, type_vars};
use std::collections::HashSet;

/// Runs dead-code elimination (and projection elimination) on every function.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("dce") && !ctx.on("tuple-elim") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        let mut live = HashSet::new();
        for t in &f.ret {
            live.extend(type_vars(t));
        }
        body(names, ctx, &mut f.body, &mut live);
    }
}

fn body(names: &NameTable, ctx: &mut Ctx, b: &mut Body, live: &mut HashSet<crate::core::ir::Var>) {
    for r in &b.result {
        if let Some(v) = r.as_var() {
            live.insert(v);
        }
    }
    let stms = std::mem::take(&mut b.stms);
    let mut kept = Vec::with_capacity(stms.len());
    for mut stm in stms.into_iter().rev() {
        let effect = matches!(stm.exp, Exp::BasicOp(BasicOp::Assert { .. }));
        let used = stm.pat.iter().any(|v| live.contains(v));
        if !used && !effect && ctx.on("dce") {
            ctx.fire("dce");
            continue;
        }
        if ctx.on("tuple-elim") {
            super::tuple_elim::prune_results(names, ctx, &mut stm, live);
        }
        nested(names, ctx, &mut stm.exp, live);
        if ctx.on("tuple-elim") {
            super::tuple_elim::prune_inputs(names, ctx, &mut stm);
        }
        live.extend(free_in_exp(names, &stm.exp));
        for v in &stm.pat {
            live.extend(type_vars(names.ty(*v)));
        }
        kept.push(stm);
    }
    kept.reverse();
    b.stms = kept;
}

fn nested(names: &NameTable, ctx: &mut Ctx, e: &mut Exp, live: &mut HashSet<crate::core::ir::Var>) {
    match e {
        // The AD pass has expanded every `Exp::Ad` before the optimiser runs.
        Exp::BasicOp(_) | Exp::Apply { .. } | Exp::Ad { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            body(names, ctx, then_body, live);
            body(names, ctx, else_body, live);
        }
        Exp::Loop { body: b, .. } => body(names, ctx, b, live),
        Exp::Soac(s) => {
            for lam in s.lambdas_mut() {
                body(names, ctx, &mut lam.body, live);
            }
            let _ = matches!(s, Soac::Map { .. });
        }
        Exp::WithAcc { lam, .. } => body(names, ctx, &mut lam.body, live),
    }
}
