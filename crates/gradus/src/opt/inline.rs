//! Inlining (pass `inline`): a call of a function of the program that is not itself
//! recursive is replaced by the callee's body with fresh names, its size parameters bound
//! from the shapes of the arguments. Internalisation already inlines every source-level call,
//! so this matters for IR built or parsed by other means.
//!
//! Rule `inline`. Takes verified IR, gives verified IR; the callee stays in the program.

use super::Ctx;
use crate::core::ir::{BasicOp, Body, Exp, FunDef, Prog, Stm, SubExp, Var};
use crate::core::subst::{freshen_body, subst_body};
use crate::core::visit::walk_bodies_mut;
use std::collections::HashMap;

/// Runs inlining on every function.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("inline") {
        return;
    }
    let callees: HashMap<String, FunDef> = prog
        .funs
        .iter()
        .filter(|f| !calls(&f.body, &f.name))
        .map(|f| (f.name.clone(), f.clone()))
        .collect();
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        let me = f.name.clone();
        walk_bodies_mut(&mut f.body, &mut |body| {
            let mut out = Vec::with_capacity(body.stms.len());
            let mut map: HashMap<Var, SubExp> = HashMap::new();
            for stm in std::mem::take(&mut body.stms) {
                let Exp::Apply { fun, args, .. } = &stm.exp else {
                    out.push(stm);
                    continue;
                };
                let Some(callee) = callees.get(fun).filter(|c| c.name != me) else {
                    out.push(stm);
                    continue;
                };
                if callee.params.len() != args.len() {
                    out.push(stm);
                    continue;
                }
                ctx.fire("inline");
                // Parameters and size parameters as statements, then the body renamed.
                let mut pre = Body {
                    stms: vec![],
                    result: vec![],
                };
                let mut sizes: HashMap<Var, SubExp> = HashMap::new();
                for (p, a) in callee.params.iter().zip(args) {
                    for (d, ad) in names
                        .ty(*p)
                        .dims()
                        .to_vec()
                        .iter()
                        .zip(names.subexp_ty(a).dims().to_vec())
                    {
                        if let SubExp::Var(s) = d
                            && callee.size_params.contains(s)
                        {
                            sizes.entry(*s).or_insert(ad);
                        }
                    }
                }
                for s in &callee.size_params {
                    let v = sizes.get(s).copied().unwrap_or(SubExp::i64(0));
                    pre.stms.push(Stm {
                        pat: vec![*s],
                        exp: Exp::BasicOp(BasicOp::SubExp(v)),
                        aux: stm.aux.clone(),
                    });
                }
                for (p, a) in callee.params.iter().zip(args) {
                    pre.stms.push(Stm {
                        pat: vec![*p],
                        exp: Exp::BasicOp(BasicOp::SubExp(*a)),
                        aux: stm.aux.clone(),
                    });
                }
                pre.stms.extend(callee.body.stms.iter().cloned());
                pre.result = callee.body.result.clone();
                let fresh = freshen_body(names, &pre);
                for (v, r) in stm.pat.iter().zip(&fresh.result) {
                    map.insert(*v, *r);
                }
                out.extend(fresh.stms);
            }
            body.stms = out;
            subst_body(body, &map);
        });
    }
}

fn calls(body: &Body, name: &str) -> bool {
    let mut found = false;
    let mut b = body.clone();
    walk_bodies_mut(&mut b, &mut |bb| {
        for s in &bb.stms {
            if let Exp::Apply { fun, .. } = &s.exp
                && fun == name
            {
                found = true;
            }
        }
    });
    found
}
