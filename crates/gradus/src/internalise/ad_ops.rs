//! The AD operators `jvp`, `vjp`, `jmp`, `mjp` and their `2` forms.
//!
//! Takes the function, the point and the seed(s). The function's body is built as a lambda on
//! fresh parameters and emitted as an [`Exp::Ad`] statement (`jvp(lam, (x..), (seeds..))`),
//! which the AD pass ([`crate::ad::run`]) expands after internalisation. `jmp` and `mjp` emit
//! one such statement per seed, inside a `map` over the seeds.

use super::value::IVal;
use super::{Internaliser, R, bug};
use crate::core::ir::{AdMode, BasicOp, Exp, Lambda, SubExp, Type, Var};
use crate::core::scalar::PrimType;
use crate::core::visit::exp_binders;
use crate::diag::Span;
use std::collections::{HashMap, HashSet};

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

    /// `jvp f x x_tan`: builds `f`'s body as a lambda on fresh parameters and emits it as an
    /// [`Exp::Ad`] at the point `x` with the parameters' tangents `x_tan` (whose shapes must
    /// match `x`'s); returns the value and the tangent. The AD pass expands it.
    pub(super) fn jvp(&mut self, f: IVal, x: IVal, x_tan: IVal, span: Span) -> R<(IVal, IVal)> {
        let xl = x.leaves();
        let tl = x_tan.leaves();
        if xl.len() != tl.len() {
            return Err(bug(span, "tangent and point have different structures"));
        }
        let mut seeds = Vec::new();
        for (xv, tv) in xl.iter().zip(&tl) {
            let dims = self.em.ty(xv).dims().to_vec();
            // The tangent must have exactly the point's shape (docs/language.md §Differentiation
            // operators).
            seeds.push(match *tv {
                SubExp::Var(tvar) if !dims.is_empty() && self.em.dims(tv) != dims => {
                    self.checked_coerce(tvar, dims)
                }
                _ => *tv,
            });
        }
        let (y, lam) = self.ad_lambda(f, &x, "jvp_x", span)?;
        let mut tys = lam.ret.clone();
        tys.extend(lam.ret.clone());
        let exp = Exp::Ad {
            mode: AdMode::Jvp,
            lam,
            args: xl,
            seeds,
        };
        let inside = exp_binders(&exp);
        let mut out = self
            .em
            .bind(exp, tys, "jvp_res")
            .into_iter()
            .map(SubExp::Var);
        let y = y.rebuild(&mut out);
        let y_tan = y.rebuild(&mut out);
        let both = self.rebind_sizes(&inside, IVal::tuple(vec![y.clone(), y_tan]));
        let mut leaves = both.leaves().into_iter();
        let y_new = y.rebuild(&mut leaves);
        Ok((y_new, y.rebuild(&mut leaves)))
    }

    /// `vjp f x ybar`: builds `f`'s body as a lambda on fresh parameters and emits it as an
    /// [`Exp::Ad`] at the point `x` with the results' adjoints `ybar` (whose shapes must match
    /// the results', checked at run time); returns the value and the adjoint of `x`. The AD
    /// pass expands it.
    pub(super) fn vjp(&mut self, f: IVal, x: IVal, ybar: IVal, span: Span) -> R<(IVal, IVal)> {
        let xl = x.leaves();
        let (y, lam) = self.ad_lambda(f, &x, "vjp_x", span)?;
        let seeds = ybar.leaves();
        if seeds.len() != lam.ret.len() {
            return Err(bug(span, "cotangent and result have different structures"));
        }
        let mut tys = lam.ret.clone();
        tys.extend(xl.iter().map(|a| self.em.ty(a)));
        let exp = Exp::Ad {
            mode: AdMode::Vjp,
            lam,
            args: xl,
            seeds,
        };
        let inside = exp_binders(&exp);
        let mut out = self
            .em
            .bind(exp, tys, "vjp_res")
            .into_iter()
            .map(SubExp::Var);
        let y = y.rebuild(&mut out);
        let y = self.rebind_sizes(&inside, y);
        let x_adj = x.rebuild(&mut out);
        Ok((y, x_adj))
    }

    /// `with_vjp f df x` or `with_jvp f df x` (docs/language.md §Custom derivatives): a
    /// custom-derivative statement ([`AdMode::WithVjp`], [`AdMode::WithJvp`]) whose lambda takes
    /// fresh parameters shaped like `x` and then like the derivative's input (`f x` for `with_vjp`,
    /// `x` for `with_jvp`), and returns `f x` followed by `df`'s result. The statement binds
    /// `f x`; the AD pass decides what the derivative part becomes.
    pub(super) fn custom_derivative(&mut self, name: &str, args: &[IVal], span: Span) -> R<IVal> {
        let arg = |k: usize| args.get(k).cloned().unwrap_or_else(IVal::unit);
        let (f, df, x) = (arg(0), arg(1), arg(2));
        let mode = if name == "with_vjp" {
            AdMode::WithVjp
        } else {
            AdMode::WithJvp
        };
        let mut params: Vec<Var> = x
            .leaves()
            .iter()
            .map(|xv| {
                let t = self.em.ty(xv);
                self.em.fresh("custom_x", t)
            })
            .collect();
        let point = x.rebuild(&mut params.iter().map(|p| SubExp::Var(*p)));
        let mut inputs = Vec::new();
        let mut result = IVal::unit();
        let (_, body) = self.body_of(|s| {
            let y = s.apply(f, vec![point.clone()], span)?;
            // The derivative's input has the shape of the results (adjoints) or of the point
            // (tangents).
            let shaped_like = if mode == AdMode::WithVjp { &y } else { &point };
            inputs = shaped_like
                .leaves()
                .iter()
                .map(|l| {
                    let t = s.em.ty(l);
                    s.em.fresh(
                        if mode == AdMode::WithVjp {
                            "ybar"
                        } else {
                            "xdot"
                        },
                        t,
                    )
                })
                .collect();
            let input = shaped_like.rebuild(&mut inputs.iter().map(|p| SubExp::Var(*p)));
            let first = if mode == AdMode::WithVjp {
                y.clone()
            } else {
                point.clone()
            };
            let d = s.apply(df, vec![first, input], span)?;
            result = y.clone();
            Ok(IVal::tuple(vec![y, d]))
        })?;
        let y = result;
        let n_results = y.leaves().len();
        let ret: Vec<_> = body.result.iter().map(|r| self.em.ty(r)).collect();
        let tys = ret[..n_results].to_vec();
        params.extend(inputs);
        let exp = Exp::Ad {
            mode,
            lam: Lambda { params, body, ret },
            args: x.leaves(),
            seeds: Vec::new(),
        };
        let mut out = self.em.bind(exp, tys, name).into_iter().map(SubExp::Var);
        Ok(y.rebuild(&mut out))
    }

    /// The results of a `jvp` or `vjp` statement whose types mention sizes bound inside its
    /// lambda (existential sizes, such as a `filter`'s count) are given sizes bound by
    /// ordinary statements after it: `let k' = k` and a coercion of each such result to the
    /// new sizes. The statement itself may name `k` (the AD pass binds it where it expands
    /// the lambda), but an enclosing `jvp` or `vjp` whose lambda returns these results can
    /// then name sizes its own body binds, as the verifier requires.
    fn rebind_sizes(&mut self, inside: &HashSet<Var>, val: IVal) -> IVal {
        let mut renamed: HashMap<Var, SubExp> = HashMap::new();
        let leaves: Vec<SubExp> = val
            .leaves()
            .into_iter()
            .map(|leaf| {
                let SubExp::Var(v) = leaf else { return leaf };
                let dims = self.em.dims(&leaf);
                if !dims
                    .iter()
                    .any(|d| d.as_var().is_some_and(|k| inside.contains(&k)))
                {
                    return leaf;
                }
                let shape = dims
                    .iter()
                    .map(|d| match d.as_var() {
                        Some(k) if inside.contains(&k) => *renamed.entry(k).or_insert_with(|| {
                            let t = Type::Prim(PrimType::I64);
                            let e = Exp::BasicOp(BasicOp::SubExp(*d));
                            SubExp::Var(self.em.bind(e, vec![t], "ad_size")[0])
                        }),
                        _ => *d,
                    })
                    .collect();
                self.checked_coerce(v, shape)
            })
            .collect();
        val.rebuild(&mut leaves.into_iter())
    }

    /// `f` applied to fresh parameters shaped like `x`, as a lambda, and the structure of its
    /// result.
    fn ad_lambda(&mut self, f: IVal, x: &IVal, hint: &str, span: Span) -> R<(IVal, Lambda)> {
        let params: Vec<Var> = x
            .leaves()
            .iter()
            .map(|xv| {
                let t = self.em.ty(xv);
                self.em.fresh(hint, t)
            })
            .collect();
        let arg = x.rebuild(&mut params.iter().map(|p| SubExp::Var(*p)));
        let (y, body) = self.body_of(|s| s.apply(f, vec![arg], span))?;
        let ret = body.result.iter().map(|r| self.em.ty(r)).collect();
        Ok((y, Lambda { params, body, ret }))
    }
}
