//! `jmp` as vector forward mode.
//!
//! **Takes** a `map` over a constant number of seeds whose body is one `jvp` at a point that
//! does not depend on the seed, returning only tangents: what internalisation makes of
//! `jmp f x seeds` (and of a user's `map (\s -> jvp f x s) seeds`).
//!
//! **Guarantees** the same results computed by [`jvp::differentiate_lanes`] with the `k`
//! seeds as lanes: the primal is computed once and every tangent carries the `k` directions
//! in an innermost dimension, instead of `k` passes of the whole forward sweep. The seeds
//! (`[k]` rows of the parameters' shapes) are transposed to that layout and the tangents
//! back (a transpose that a following `transpose`, as in a Jacobian `[m][k]`, cancels).
//! The number of directions must be a constant (the 26 pose parameters of a hand model, the
//! 15 parameters of a bundle-adjustment block): lanes of a known width fit in registers and
//! vectorise. With a number known only at run time, typically one direction per input element
//! (a whole Jacobian or gradient), each direction usually touches one input (a one-hot seed),
//! and one `jvp` per direction lets the optimiser compute only what that input affects
//! (`single-point`), which lanes cannot; such maps are expanded as written.
//!
//! Where the body has a construct without a lane rule (accumulators of reverse mode: `jmp`
//! of a `vjp`), nothing is rewritten and the `map` of `jvp`s is expanded as written. So too
//! under an enclosing `vjp` when the body has a `scan` or a histogram: their lane tangents
//! combine arrays, which reverse mode does not differentiate yet, while one `jvp` per
//! direction keeps them scalar.

use super::jvp;
use crate::core::builder::Builder;
use crate::core::ir::{AdMode, BasicOp, Body, Exp, NameTable, ScremaForm, Soac, Stm, SubExp, Var};
use crate::core::visit::lambda_free_vars;
use std::collections::{HashMap, HashSet};

/// The body of the function differentiated by `stm`, if `stm` is a `map` whose body is
/// one `jvp` (to expand the AD inside it first).
pub fn jmp_function_mut(stm: &mut Stm) -> Option<&mut Body> {
    let Exp::Soac(Soac::Map { lam, .. }) = &mut stm.exp else {
        return None;
    };
    match lam.body.stms.as_mut_slice() {
        [
            Stm {
                exp:
                    Exp::Ad {
                        mode: AdMode::Jvp,
                        lam: f,
                        ..
                    },
                ..
            },
        ] => Some(&mut f.body),
        _ => None,
    }
}

/// The statements computing `stm` in vector mode, or `None` if `stm` is not a `map` of one
/// `jvp` over its seeds, or its body has no lane rule. AD statements inside the `jvp`'s
/// function must already be expanded.
pub fn expand_jmp(names: &mut NameTable, stm: &Stm, under_vjp: bool) -> Option<Vec<Stm>> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &stm.exp else {
        return None;
    };
    if !matches!(w, SubExp::Const(_)) {
        return None;
    }
    let [ad] = lam.body.stms.as_slice() else {
        return None;
    };
    let Exp::Ad {
        mode: AdMode::Jvp,
        lam: f,
        args,
        seeds,
    } = &ad.exp
    else {
        return None;
    };
    if under_vjp && has_scan_or_hist(&f.body) {
        return None;
    }
    // The point and the function must not depend on the seed.
    let seed_params: HashSet<Var> = lam.params.iter().copied().collect();
    let depends = |se: &SubExp| se.as_var().is_some_and(|v| seed_params.contains(&v));
    if args.iter().any(depends) || lambda_free_vars(f).iter().any(|v| seed_params.contains(v)) {
        return None;
    }
    // The map returns tangents of the jvp only.
    let n_results = f.body.result.len();
    let tangent_of_result: Vec<usize> = lam
        .body
        .result
        .iter()
        .map(|r| {
            let v = r.as_var()?;
            let pos = ad.pat.iter().position(|p| *p == v)?;
            pos.checked_sub(n_results)
        })
        .collect::<Option<_>>()?;

    let mut e = Builder::new(names).marking_derivatives();
    e.set_aux(stm.aux.clone());
    // Seeds in lane layout: the `[k]` rows moved innermost.
    let mut lane_seeds = HashMap::new();
    for (p, seed) in f.params.iter().zip(seeds) {
        let rows = match seed.as_var() {
            Some(v) if seed_params.contains(&v) => {
                let j = lam.params.iter().position(|q| *q == v)?;
                arrays[j]
            }
            // A seed shared by every direction.
            _ => e.basic(
                BasicOp::Replicate {
                    shape: vec![*w],
                    value: *seed,
                },
                "seed",
            ),
        };
        let rank = e.names.ty(*p).rank();
        let lanes = if rank == 0 {
            rows
        } else {
            let mut perm: Vec<usize> = (1..=rank).collect();
            perm.push(0);
            // A view: reads of constant seeds (unit vectors) still fold to constants.
            e.basic(BasicOp::Rearrange { array: rows, perm }, "seed_lanes")
        };
        lane_seeds.insert(*p, SubExp::Var(lanes));
    }
    let mut out = e.take_stms();
    // The function's parameters are bound to the point.
    out.extend(super::bind_all(&f.params, args, &stm.aux));
    let (stms, tangents) = jvp::differentiate_lanes(names, &f.body, lane_seeds, *w).ok()?;
    out.extend(stms);
    let mut e = Builder::new(names).marking_derivatives();
    e.set_aux(stm.aux.clone());
    for (v, i) in stm.pat.iter().zip(tangent_of_result) {
        let t = tangents[i];
        let rank = e.ty(&t).rank() - 1;
        let exp = if rank == 0 {
            BasicOp::SubExp(t)
        } else {
            let mut perm = vec![rank];
            perm.extend(0..rank);
            BasicOp::Rearrange {
                array: t.as_var()?,
                perm,
            }
        };
        e.push(vec![*v], Exp::BasicOp(exp));
    }
    out.extend(e.take_stms());
    Some(out)
}

/// Whether `body` has a `scan` or a histogram at any depth.
fn has_scan_or_hist(body: &Body) -> bool {
    body.stms.iter().any(|s| {
        let here = match &s.exp {
            Exp::Soac(Soac::Scan { .. } | Soac::Hist { .. }) => true,
            Exp::Soac(Soac::Screma { form, .. }) => {
                matches!(**form, ScremaForm::Scan { .. } | ScremaForm::Hist { .. })
            }
            _ => false,
        };
        here || s.exp.bodies().into_iter().any(has_scan_or_hist)
    })
}
