//! The AD operators `jvp`, `vjp`, `jmp`, `mjp` and their `2` forms.
//!
//! Takes the function, the point and the seed(s). The function's body is built inline on fresh
//! parameters bound to the point and differentiated by [`crate::ad::jvp`] (forward) or
//! [`crate::ad::vjp`] (reverse); the derivative's statements are emitted in place of the call.
//! `jmp` and `mjp` differentiate once per seed inside a `map` over the seeds.

use super::value::IVal;
use super::{Internaliser, R, bug};
use crate::core::ir::{BasicOp, SubExp};
use crate::diag::Span;
use std::collections::HashMap;

impl<'a> Internaliser<'a> {
    /// A call of the AD operator `name` (`jvp`, `vjp`, `jmp`, `mjp` and their `2` forms) with
    /// the arguments `f`, `x` and the seed(s).
    pub(super) fn ad_operator(&mut self, name: &str, args: &[IVal], span: Span) -> R<IVal> {
        let arg = |k: usize| args.get(k).cloned().unwrap_or_else(IVal::unit);
        type Diff<'a> = fn(&mut Internaliser<'a>, IVal, IVal, IVal, Span) -> R<(IVal, IVal)>;
        let with_value = name.ends_with('2');
        let (diff, per_seed): (Diff<'a>, bool) = match name.trim_end_matches('2') {
            "jvp" => (Self::jvp, false),
            "vjp" => (Self::vjp, false),
            "jmp" => (Self::jvp, true),
            "mjp" => (Self::vjp, true),
            _ => return Err(bug(span, format!("unknown AD operator {name}"))),
        };
        if !per_seed {
            let (y, d) = diff(self, arg(0), arg(1), arg(2), span)?;
            return Ok(if with_value {
                IVal::tuple(vec![y, d])
            } else {
                d
            });
        }
        // One derivative per seed, mapped over the seeds. The primal is computed inside the
        // map; hoisting it out is the optimiser's job.
        let (f, x) = (arg(0), arg(1));
        let ds = self.map_with(vec![arg(2)], span, |s, rows| {
            let seed = rows.into_iter().next().unwrap_or_else(IVal::unit);
            Ok(diff(s, f.clone(), x.clone(), seed, span)?.1)
        })?;
        if with_value {
            let y = self.apply(arg(0), vec![arg(1)], span)?;
            Ok(IVal::tuple(vec![y, ds]))
        } else {
            Ok(ds)
        }
    }

    /// `jvp f x x_tan`: builds `f`'s body on fresh parameters bound to `x`, differentiates
    /// it with the parameters' tangents seeded by `x_tan` (whose shapes must match `x`'s), and
    /// returns the value and the tangent.
    pub(super) fn jvp(&mut self, f: IVal, x: IVal, x_tan: IVal, span: Span) -> R<(IVal, IVal)> {
        let xl = x.leaves();
        let tl = x_tan.leaves();
        if xl.len() != tl.len() {
            return Err(bug(span, "tangent and point have different structures"));
        }
        let mut params = Vec::new();
        let mut seeds = HashMap::new();
        for (xv, tv) in xl.iter().zip(&tl) {
            let t = self.em.ty(xv);
            let p = self.em.basic("jvp_x", t.clone(), BasicOp::SubExp(*xv));
            // The tangent must have exactly the point's shape (LANGUAGE.md 10.1).
            let tv = match (t.dims(), *tv) {
                (dims, SubExp::Var(tvar)) if !dims.is_empty() && self.em.dims(tv) != dims => {
                    self.checked_coerce(tvar, dims.to_vec())
                }
                _ => *tv,
            };
            if let SubExp::Var(pv) = p {
                seeds.insert(pv, tv);
            }
            params.push(p);
        }
        let (y, body) =
            self.body_of(|s| s.apply(f, vec![x.rebuild(&mut params.into_iter())], span))?;
        let d = crate::ad::jvp::differentiate(&mut self.em.names, &body.stms, seeds)?;
        for s in d.stms {
            self.em.push_stm(s);
        }
        let mut tans = Vec::new();
        for r in &body.result {
            let t = match r {
                SubExp::Var(v) => d.tangents.get(v).copied(),
                SubExp::Const(_) => None,
            };
            tans.push(match t {
                Some(t) => t,
                None => {
                    let ty = self.em.ty(r);
                    let mut e = crate::ad::derivatives::Emit {
                        names: &mut self.em.names,
                        stms: Vec::new(),
                        aux: self.em.aux.clone(),
                        available: HashMap::new(),
                    };
                    let z = crate::ad::jvp::zero_of(&mut e, &ty);
                    let stms = e.stms;
                    for s in stms {
                        self.em.push_stm(s);
                    }
                    z
                }
            });
        }
        let y_tan = y.rebuild(&mut tans.into_iter());
        Ok((y, y_tan))
    }

    /// `vjp f x ybar`: builds `f`'s body on fresh parameters bound to `x`, differentiates it
    /// in reverse mode with the results' adjoints seeded by `ybar` (whose shapes must match
    /// the results', checked at run time), and returns the value and the adjoint of `x`.
    pub(super) fn vjp(&mut self, f: IVal, x: IVal, ybar: IVal, span: Span) -> R<(IVal, IVal)> {
        let mut params = Vec::new();
        let mut param_vars = Vec::new();
        for xv in x.leaves() {
            let t = self.em.ty(&xv);
            let p = self.em.basic("vjp_x", t, BasicOp::SubExp(xv));
            let pv = self.em.as_var(p);
            param_vars.push(pv);
            params.push(SubExp::Var(pv));
        }
        let (y, body) =
            self.body_of(|s| s.apply(f, vec![x.rebuild(&mut params.into_iter())], span))?;
        let seeds = ybar.leaves();
        if seeds.len() != body.result.len() {
            return Err(bug(span, "cotangent and result have different structures"));
        }
        let d = crate::ad::vjp::differentiate(
            &mut self.em.names,
            &body.stms,
            &param_vars,
            &body.result,
            &seeds,
        )?;
        for s in d.stms {
            self.em.push_stm(s);
        }
        let x_adj = x.rebuild(&mut d.adjoints.into_iter());
        Ok((y, x_adj))
    }
}
