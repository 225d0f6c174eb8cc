//! Custom derivatives: `with_vjp f f' x` and `with_jvp f f' x` (docs/language.md §Custom
//! derivatives).
//!
//! **Takes** the [`Exp::Ad`] statements of mode [`AdMode::WithVjp`] or [`AdMode::WithJvp`]
//! that internalisation makes of them: a lambda that computes `f x` and then the user's
//! derivative from one more group of parameters (the results' adjoints for `with_vjp`, the
//! arguments' tangents for `with_jvp`).
//!
//! **Gives** the two forms the AD pass resolves them to, each a copy of the lambda with fresh
//! names for everything it binds (every variable is bound once):
//!
//! * [`primal`]: the statements computing `f x` alone. This is what an operator of the other
//!   direction differentiates (`jvp` through `with_vjp`, `vjp` through `with_jvp`, as the
//!   automatic derivative of `f`), and what replaces the statement outside any AD operator
//!   ([`strip`]).
//! * [`instantiate`]: the whole lambda on the arguments and the derivative inputs, which the
//!   rule of the matching direction emits in place of the automatic derivative (`vjp` adds
//!   the derivative results to the arguments' adjoints; `jvp` takes them as the results'
//!   tangents).
//!
//! Values the lambda captures are constants for the user's derivative: the rules pass
//! derivatives to the arguments only, so captured values receive none.

use crate::core::builder::Builder;
use crate::core::ir::{AdMode, Aux, BasicOp, Body, Exp, Lambda, NameTable, Stm, SubExp, Var};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::core::visit::stm_free_vars;
use std::collections::{HashMap, HashSet};

/// A custom-derivative statement's parts.
pub struct Custom<'s> {
    /// `WithVjp` or `WithJvp`.
    pub mode: AdMode,
    /// The lambda: arguments then derivative inputs, results then derivative.
    pub lam: &'s Lambda,
    /// The point.
    pub args: &'s [SubExp],
    /// How many of the lambda's results are the function's (the statement's pattern).
    pub n_results: usize,
}

/// The parts of `exp` if it is a custom-derivative statement.
pub fn as_custom(exp: &Exp) -> Option<Custom<'_>> {
    match exp {
        Exp::Ad {
            mode, lam, args, ..
        } if mode.is_custom() => Some(Custom {
            mode: *mode,
            lam,
            args,
            n_results: mode.primal_results(lam, args.len()),
        }),
        _ => None,
    }
}

/// A copy of `lam` applied to `inputs` (one per parameter): statements binding fresh copies
/// of the parameters to the inputs, then the body with fresh names; returns them and the
/// copied results.
pub fn instantiate(
    names: &mut NameTable,
    lam: &Lambda,
    inputs: &[SubExp],
    aux: &Aux,
) -> (Vec<Stm>, Vec<SubExp>) {
    let mut body = lam.body.clone();
    let mut binders = lam.params.clone();
    body_binders(&body, &mut binders);
    let mut subst: HashMap<Var, Var> = HashMap::new();
    for b in &binders {
        let (hint, ty) = (names.hint(*b).to_owned(), names.ty(*b).clone());
        let fresh = names.fresh(&hint, ty);
        subst.insert(*b, fresh);
    }
    for b in &binders {
        let fresh = subst[b];
        let mut t = names.ty(fresh).clone();
        map_vars_type(&mut t, &mut |v| subst.get(&v).copied().unwrap_or(v));
        names.set_ty(fresh, t);
    }
    map_vars_body(&mut body, &mut |v| subst.get(&v).copied().unwrap_or(v));
    let mut stms: Vec<Stm> = lam
        .params
        .iter()
        .zip(inputs)
        .map(|(p, input)| Stm {
            pat: vec![subst[p]],
            exp: Exp::BasicOp(BasicOp::SubExp(*input)),
            aux: aux.clone(),
        })
        .collect();
    stms.extend(body.stms);
    (stms, body.result)
}

/// The statements computing the function's results of `c` alone (the lambda's body sliced
/// to what they depend on, on a copy with fresh names) and those results.
pub fn primal(names: &mut NameTable, c: &Custom<'_>, aux: &Aux) -> (Vec<Stm>, Vec<SubExp>) {
    let results = &c.lam.body.result[..c.n_results];
    let mut needed: HashSet<Var> = results.iter().filter_map(SubExp::as_var).collect();
    let mut kept = Vec::new();
    for s in c.lam.body.stms.iter().rev() {
        if s.pat.iter().any(|v| needed.contains(v)) {
            needed.extend(stm_free_vars(s));
            kept.push(s.clone());
        }
    }
    kept.reverse();
    let sliced = Lambda {
        params: c.lam.params[..c.args.len()].to_vec(),
        body: Body {
            stms: kept,
            result: results.to_vec(),
        },
        ret: c.lam.ret[..c.n_results].to_vec(),
    };
    instantiate(names, &sliced, c.args, aux)
}

/// `let pat_i = value_i` for each variable of `pat`.
pub fn bind_results(pat: &[Var], values: &[SubExp], aux: &Aux) -> Vec<Stm> {
    super::bind_all(pat, values, aux)
}

/// `value` checked to have the shape of `like` (a run-time size error at the statement being
/// emitted otherwise): the user's derivative must have exactly the shape of what it is the
/// derivative of (docs/language.md §Differentiation operators).
pub fn coerce_like(e: &mut Builder<'_>, value: SubExp, like: Var) -> SubExp {
    let want = e.names.ty(like).clone();
    let SubExp::Var(v) = value else { return value };
    if want.rank() == 0 || e.names.ty(v).dims() == want.dims() {
        return value;
    }
    let type_text = format!("{}{}", "[]".repeat(want.rank()), want.elem().name());
    SubExp::Var(e.basic(
        BasicOp::Coerce {
            array: v,
            shape: want.dims().to_vec(),
            type_text,
        },
        "derivative",
    ))
}

/// Replaces every custom-derivative statement of `body`, at any depth, by the function it
/// wraps ([`primal`]): outside the AD operators the user's derivative is not used.
pub fn strip(names: &mut NameTable, body: &mut Body) {
    let stms = std::mem::take(&mut body.stms);
    let mut out = Vec::with_capacity(stms.len());
    for mut stm in stms {
        for inner in stm.exp.bodies_mut() {
            strip(names, inner);
        }
        match as_custom(&stm.exp) {
            Some(c) => {
                let (stms, results) = primal(names, &c, &stm.aux);
                out.extend(stms);
                out.extend(bind_results(&stm.pat, &results, &stm.aux));
            }
            None => out.push(stm),
        }
    }
    body.stms = out;
}
