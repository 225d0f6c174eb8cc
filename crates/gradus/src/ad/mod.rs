//! Automatic differentiation as transformations of core IR.
//!
//! * [`jvp`]: forward mode. Each statement is followed by its tangent statements; SOAC
//!   lambdas are transformed recursively, loops carry tangents as extra parameters, so the
//!   program's parallel structure is kept (a `map` stays a `map`).
//! * [`vjp`]: reverse mode, by redundant execution instead of a tape.
//! * [`derivatives`]: the table of partial derivatives of primitive operations
//!   (docs/language.md §Integer and boolean leaves and §Partial derivatives), kept apart from the
//!   traversal.
//!
//! Both modes emit code with a [`crate::core::builder::Builder`] whose common-subexpression
//! elimination of primitive operations is on, so that a derivative reuses the primal's `cos x`
//! instead of computing it again. Forward mode records the primal's operations too and lets
//! nested bodies reuse the enclosing ones ([`crate::core::builder::CseScope::Inherit`]);
//! reverse mode starts each nested body without any ([`crate::core::builder::CseScope::Fresh`]).
//!
//! Naming scheme (STYLE.md item 10): the tangent of `x` is named `x_tan`; Rust code says
//! `tangent_of`.
//!
//! # The AD pass ([`run`])
//!
//! **Takes** a verified core program in which internalisation left the language's AD
//! operators as [`Exp::Ad`] statements (`jvp` and `vjp` of a lambda at a point; `jmp` and
//! `mjp` are a `map` of them over the seeds).
//!
//! **Guarantees** the same program with every [`Exp::Ad`] expanded, innermost first: the
//! lambda's parameters are bound to the arguments, followed by the statements
//! [`jvp::differentiate`] or [`vjp::differentiate`] make of its body, and the statement's
//! pattern is bound to the results and their tangents (or the parameters' adjoints).
//! A `map` of one `jvp` over seeds (`jmp`) is expanded in vector mode ([`vector`]): the
//! primal once, the directions as an innermost dimension of every tangent.
//! Custom derivatives (`with_vjp`, `with_jvp`, [`custom`]) are not expanded on their own:
//! the enclosing operator's rule reads them, and once every operator is expanded the ones
//! left (outside any operator) are replaced by the function they wrap.
//! Expanding the innermost operators first means a `jvp` of a function that calls `vjp`
//! differentiates the already expanded reverse sweep (a Hessian-vector product). Every
//! variable is bound once, so nested operators cannot confuse their perturbations.

pub mod custom;
pub mod derivatives;
pub mod jvp;
pub mod vector;
pub mod vjp;

use crate::core::builder::Builder;
use crate::core::ir::{AdMode, Aux, BasicOp, Body, Exp, NameTable, Prog, Stm, SubExp, Var};
use crate::diag::Diagnostic;
use std::collections::HashMap;

/// Expands every [`Exp::Ad`] of `prog`, innermost first (see the module documentation).
pub fn run(prog: &mut Prog) -> Result<(), Diagnostic> {
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        expand_body(names, &mut f.body, false)?;
        custom::strip(names, &mut f.body);
    }
    Ok(())
}

/// Expands the AD statements of `body` and of every body nested in it; `under_vjp` says
/// whether `body` is part of a function that reverse mode differentiates afterwards.
fn expand_body(names: &mut NameTable, body: &mut Body, under_vjp: bool) -> Result<(), Diagnostic> {
    if !contains_ad(body) {
        return Ok(());
    }
    let stms = std::mem::take(&mut body.stms);
    let mut out = Vec::with_capacity(stms.len());
    for mut stm in stms {
        if let Some(function) = vector::jmp_function_mut(&mut stm) {
            expand_body(names, function, under_vjp)?;
            if let Some(stms) = vector::expand_jmp(names, &stm, under_vjp) {
                out.extend(stms);
                continue;
            }
        }
        let inner_under_vjp = under_vjp
            || matches!(
                stm.exp,
                Exp::Ad {
                    mode: AdMode::Vjp,
                    ..
                }
            );
        for inner in stm.exp.bodies_mut() {
            expand_body(names, inner, inner_under_vjp)?;
        }
        if matches!(stm.exp, Exp::Ad { mode, .. } if !mode.is_custom()) {
            out.extend(expand(names, stm)?);
        } else {
            out.push(stm);
        }
    }
    body.stms = out;
    Ok(())
}

fn contains_ad(body: &Body) -> bool {
    body.stms
        .iter()
        .any(|s| matches!(s.exp, Exp::Ad { .. }) || s.exp.bodies().into_iter().any(contains_ad))
}

/// The statements replacing one [`Exp::Ad`] statement whose lambda has no AD statements left.
fn expand(names: &mut NameTable, stm: Stm) -> Result<Vec<Stm>, Diagnostic> {
    let Stm { pat, exp, aux } = stm;
    let Exp::Ad {
        mode,
        lam,
        args,
        seeds,
    } = exp
    else {
        return Ok(vec![Stm { pat, exp, aux }]);
    };
    let mut out = bind_all(&lam.params, &args, &aux);
    let results = &lam.body.result;
    let derivative: Vec<SubExp> = match mode {
        AdMode::Jvp => {
            let seeds: HashMap<Var, SubExp> = lam.params.iter().copied().zip(seeds).collect();
            let d = jvp::differentiate(names, &lam.body.stms, seeds)?;
            out.extend(d.stms);
            let mut zeros = Builder::new(names).marking_derivatives();
            zeros.set_aux(aux.clone());
            // A result without a tangent (a constant, or independent of the parameters)
            // has a zero one, materialised here.
            let tangents = results
                .iter()
                .map(|r| match r.as_var().and_then(|v| d.tangents.get(&v)) {
                    Some(t) => *t,
                    None => {
                        let ty = zeros.ty(r);
                        jvp::zero_of(&mut zeros, &ty)
                    }
                })
                .collect();
            out.extend(zeros.take_stms());
            tangents
        }
        AdMode::Vjp => {
            let d = vjp::differentiate(names, &lam.body.stms, &lam.params, results, &seeds)?;
            out.extend(d.stms);
            d.adjoints
        }
        AdMode::WithVjp | AdMode::WithJvp => {
            return Err(Diagnostic::bug("a custom derivative expanded on its own"));
        }
    };
    if pat.len() != results.len() + derivative.len() {
        return Err(Diagnostic::bug(format!(
            "{} binds {} variables, expected {}",
            mode.name(),
            pat.len(),
            results.len() + derivative.len()
        )));
    }
    out.extend(bind_all(
        &pat,
        &results
            .iter()
            .chain(&derivative)
            .copied()
            .collect::<Vec<_>>(),
        &aux,
    ));
    Ok(out)
}

/// `let v = se` for each pair of `vars` and `values`: a differentiated function's parameters
/// bound to the point, an AD statement's pattern to its results.
fn bind_all(vars: &[Var], values: &[SubExp], aux: &Aux) -> Vec<Stm> {
    vars.iter()
        .zip(values)
        .map(|(v, se)| Stm {
            pat: vec![*v],
            exp: Exp::BasicOp(BasicOp::SubExp(*se)),
            aux: aux.clone(),
        })
        .collect()
}
