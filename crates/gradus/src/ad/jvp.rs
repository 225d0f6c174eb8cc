//! Forward-mode AD (jvp) on core IR.
//!
//! Takes statements in which AD operators are already expanded, and seed tangents for some
//! variables (the parameters of the differentiated function). Returns the same statements,
//! each followed by its tangent statements, and the tangent of every variable that has one.
//! A variable without a tangent has an implicit zero tangent, materialised only where a
//! construct needs a value (a loop parameter, a lambda result, one side of an update).
//!
//! Rules (forward sweep only, cost a constant factor of the primal):
//! ```text
//! y = op(x1, x2)          y_tan = Σ ∂op/∂xi · xi_tan          (derivatives.rs)
//! y = xs[i]               y_tan = xs_tan[i]                   (indices are not differentiated)
//! y = xs with [i] = v     y_tan = xs_tan with [i] = v_tan
//! y = iota n              y_tan = replicate n 0               (the count has no tangent)
//! reshape/rearrange/rotate/concat/copy/array literals/replicate: the same operation on tangents
//! if c then A else B      if c then (A, A_tan) else (B, B_tan)
//! loop p = x ...          loop (p, p_tan) = (x, x_tan) ... body and its tangents
//! map f xs                map (\x x_tan -> (f x, jvp f x x_tan)) xs xs_tan
//! reduce op ne xs         reduce op' (ne, 0) (xs, xs_tan), op' (a, a_tan) (b, b_tan) =
//!                           (op a b, jvp op (a, b) (a_tan, b_tan))   -- associative again
//! scan, hist              likewise with op'
//! scatter dest is vs      scatter (dest, dest_tan) is (vs, vs_tan)
//! with_acc(arrays, \accs -> ..)  with_acc(arrays ++ arrays_tan, \accs accs_tan -> ..): each
//!                         accumulator's tangent is an accumulator into the arrays' tangents
//! update_acc(acc, i, v)   also update_acc(acc_tan, i, v_tan)
//! ```
//! (`iota`: docs/language.md §Integer and boolean leaves.) Accumulators come from reverse mode
//! (`jvp` of a `vjp`: Hessian-vector products). Calls (`Apply`) are reported as limitations: the
//! front end inlines every call.
//!
//! Vector mode ([`differentiate_lanes`], for `jmp`): the same rules with `k` directions at
//! once. Every tangent has its primal's shape followed by `[k]`, and each primitive
//! operation's tangent is a `map` over the `k` lanes of the combination of its partial
//! derivatives, which are computed once (`derivatives::prim_tangent_lanes`); accumulators
//! have no lane rule.

use super::custom;
use super::derivatives::{prim_tangent, prim_tangent_lanes};
use crate::core::builder::{Builder, CseScope, HasBuilder};
use crate::core::ir::{
    AdMode, BasicOp, Body, DimIndex, Exp, Lambda, LoopForm, NameTable, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::PrimOp;
use crate::core::safety::CHECKED_BEFORE;
use crate::core::scalar::Scalar;
use crate::core::screma::{is_fused, unfuse_stms};
use crate::diag::{Diagnostic, Span};
use std::collections::HashMap;

type R<T> = Result<T, Diagnostic>;

/// The differentiated statements and the tangents known after them.
pub struct Differentiated {
    /// The primal statements interleaved with their tangent statements.
    pub stms: Vec<Stm>,
    /// Tangent of each variable that has a non-zero one.
    pub tangents: HashMap<Var, SubExp>,
}

/// Differentiates `stms` with the given seed tangents.
pub fn differentiate(
    names: &mut NameTable,
    stms: &[Stm],
    seeds: HashMap<Var, SubExp>,
) -> R<Differentiated> {
    let mut j = sweep(names, stms, seeds, None)?;
    Ok(Differentiated {
        stms: j.e.take_stms(),
        tangents: j.tangents,
    })
}

/// Vector forward mode: differentiates the body in `lanes` directions at once. Every tangent
/// has its primal's shape followed by an innermost dimension of `lanes` (a scalar's tangent
/// is a `[lanes]` array, an `[n][3]` array's an `[n][3][lanes]` one), so the primal is
/// computed once and each primitive operation's partial derivatives once, and only their
/// combination with the tangents is a `map` over the lanes, innermost, where consecutive
/// ones fuse and the C compiler can vectorise them. `seeds` are the parameters' tangents in
/// that layout. Returns the statements and the tangents of the body's results (zeros
/// materialised). Fails on constructs without a lane rule (accumulators, from reverse
/// mode); the caller then differentiates one direction at a time.
pub fn differentiate_lanes(
    names: &mut NameTable,
    body: &Body,
    seeds: HashMap<Var, SubExp>,
    lanes: SubExp,
) -> R<(Vec<Stm>, Vec<SubExp>)> {
    let mut j = sweep(names, &body.stms, seeds, Some(lanes))?;
    let tangents = body.result.iter().map(|r| j.tangent_or_zero(r)).collect();
    Ok((j.e.take_stms(), tangents))
}

/// The forward sweep over `stms` (fused SOACs split first) with the given seeds, in one
/// direction or in `lanes`.
fn sweep<'a>(
    names: &'a mut NameTable,
    stms: &[Stm],
    seeds: HashMap<Var, SubExp>,
    lanes: Option<SubExp>,
) -> R<Jvp<'a>> {
    let stms = &unfuse_stms(names, stms, &is_fused);
    let mut j = Jvp {
        e: Builder::new(names)
            .with_cse(CseScope::Inherit)
            .marking_derivatives(),
        tangents: seeds,
        lanes,
    };
    for s in stms {
        j.stm(s)?;
    }
    Ok(j)
}

/// The zero of a type, emitted (a constant for scalars, `replicate` for arrays).
pub fn zero_of(e: &mut Builder<'_>, t: &Type) -> SubExp {
    match t {
        Type::Prim(p) => SubExp::Const(Scalar::zero(*p)),
        Type::Array { elem, dims } => {
            let v = e.basic(
                BasicOp::Replicate {
                    shape: dims.clone(),
                    value: SubExp::Const(Scalar::zero(*elem)),
                },
                "zero",
            );
            SubExp::Var(v)
        }
        Type::Acc { .. } => SubExp::Const(Scalar::Bool(false)),
    }
}

struct Jvp<'a> {
    e: Builder<'a>,
    tangents: HashMap<Var, SubExp>,
    /// The number of directions in vector mode ([`differentiate_lanes`]); `None` for one.
    lanes: Option<SubExp>,
}

impl<'a> HasBuilder<'a> for Jvp<'a> {
    fn builder(&mut self) -> &mut Builder<'a> {
        &mut self.e
    }
}

fn limitation(span: Span, msg: &str) -> Diagnostic {
    Diagnostic::limitation(span, msg.to_string())
}

impl Jvp<'_> {
    fn tangent_of(&self, se: &SubExp) -> Option<SubExp> {
        match se {
            SubExp::Const(_) => None,
            SubExp::Var(v) => self.tangents.get(v).copied(),
        }
    }

    /// The tangent, materialising a zero when there is none.
    fn tangent_or_zero(&mut self, se: &SubExp) -> SubExp {
        match self.tangent_of(se) {
            Some(t) => t,
            None => {
                let t = self.e.ty(se);
                self.zero_tangent(&t)
            }
        }
    }

    /// A zero tangent for a primal of type `t`.
    fn zero_tangent(&mut self, t: &Type) -> SubExp {
        let t = self.tangent_type(t);
        zero_of(&mut self.e, &t)
    }

    /// The type of the tangent of a primal of type `t`: the same, or in vector mode with
    /// the lanes as innermost dimension.
    fn tangent_type(&self, t: &Type) -> Type {
        match (self.lanes, t) {
            (Some(k), Type::Prim(_) | Type::Array { .. }) => {
                let mut dims = t.dims().to_vec();
                dims.push(k);
                Type::array(t.elem(), dims)
            }
            _ => t.clone(),
        }
    }

    /// The tangent types of primal types `ts`.
    fn tangent_types(&self, ts: &[Type]) -> Vec<Type> {
        ts.iter().map(|t| self.tangent_type(t)).collect()
    }

    /// A fresh variable for the tangent of `of`.
    fn fresh_tangent(&mut self, of: Var) -> Var {
        let t = self.tangent_type(self.e.names.ty(of));
        let h = format!("{}_tan", self.e.names.hint(of));
        self.e.fresh(&h, t)
    }

    /// `dims` followed by the lanes in vector mode: the shape of a tangent.
    fn tangent_shape(&self, dims: &[SubExp]) -> Vec<SubExp> {
        let mut dims = dims.to_vec();
        dims.extend(self.lanes);
        dims
    }

    /// Accumulators have no lane rule.
    fn no_lanes(&self, span: Span, what: &str) -> R<()> {
        match self.lanes {
            Some(_) => Err(limitation(span, &format!("vector forward mode of {what}"))),
            None => Ok(()),
        }
    }

    fn set(&mut self, v: Var, t: Option<SubExp>) {
        if let Some(t) = t {
            self.tangents.insert(v, t);
        }
    }

    fn tan_var(&mut self, of: Var, exp: Exp) -> SubExp {
        let hint = format!("{}_tan", self.e.names.hint(of));
        SubExp::Var(self.e.bind1(exp, &hint))
    }

    fn body(&mut self, body: &Body) -> R<Body> {
        let (stms, result) = self.nested(|j| {
            for s in &body.stms {
                j.stm(s)?;
            }
            let mut result = body.result.clone();
            let tans: Vec<SubExp> = body.result.iter().map(|r| j.tangent_or_zero(r)).collect();
            result.extend(tans);
            Ok(result)
        })?;
        Ok(Body { stms, result })
    }

    fn stm(&mut self, s: &Stm) -> R<()> {
        self.e.set_aux(s.aux.clone());
        match &s.exp {
            Exp::BasicOp(op) => {
                self.e.add_stm(s.clone());
                self.e.record_prim(s);
                self.basic(s, op)
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                let tb = self.body(then_body)?;
                let eb = self.body(else_body)?;
                let mut pat = s.pat.clone();
                let mut ret = ret.clone();
                let tan_vars: Vec<Var> = s.pat.iter().map(|v| self.fresh_tangent(*v)).collect();
                for v in &tan_vars {
                    ret.push(self.e.names.ty(*v).clone());
                }
                pat.extend(&tan_vars);
                self.e.add_stm(Stm {
                    pat,
                    exp: Exp::If {
                        cond: *cond,
                        then_body: tb,
                        else_body: eb,
                        ret,
                    },
                    aux: s.aux.clone(),
                });
                for (v, t) in s.pat.iter().zip(tan_vars) {
                    self.tangents.insert(*v, SubExp::Var(t));
                }
                Ok(())
            }
            Exp::Loop { params, form, body } => self.loop_stm(s, params, form, body),
            Exp::Soac(soac) => self.soac(s, soac),
            Exp::Apply { .. } => Err(limitation(
                s.aux.span,
                "forward-mode AD of function calls (functions are inlined before AD)",
            )),
            Exp::WithAcc { inputs, lam } => self.with_acc(s, inputs, lam),
            Exp::Ad { mode, .. } if mode.is_custom() => self.custom(s),
            Exp::Ad { mode, .. } => Err(Diagnostic::bug(format!(
                "jvp reached an unexpanded {} (the AD pass expands innermost first)",
                mode.name()
            ))),
        }
    }

    /// A custom derivative ([`custom`]): the results' tangents of `with_jvp f f' x` are
    /// `f' x xdot`; `with_vjp` is differentiated as the function it wraps.
    fn custom(&mut self, s: &Stm) -> R<()> {
        let c =
            custom::as_custom(&s.exp).ok_or_else(|| Diagnostic::bug("not a custom derivative"))?;
        if c.mode == AdMode::WithVjp {
            let (stms, results) = custom::primal(&mut self.e.names, &c, &s.aux);
            for st in &stms {
                self.stm(st)?;
            }
            self.e.set_aux(s.aux.clone());
            for (y, r) in s.pat.iter().zip(&results) {
                self.e.push(vec![*y], Exp::BasicOp(BasicOp::SubExp(*r)));
                let t = self.tangent_of(r);
                self.set(*y, t);
            }
            return Ok(());
        }
        self.no_lanes(s.aux.span, "with_jvp")?;
        let mut inputs = c.args.to_vec();
        for a in c.args {
            inputs.push(self.tangent_or_zero(a));
        }
        let (stms, results) = custom::instantiate(&mut self.e.names, c.lam, &inputs, &s.aux);
        self.e.add_stms(stms);
        for (k, y) in s.pat.iter().enumerate() {
            self.e
                .push(vec![*y], Exp::BasicOp(BasicOp::SubExp(results[k])));
            let ydot = custom::coerce_like(&mut self.e, results[c.n_results + k], *y);
            self.set(*y, Some(ydot));
        }
        Ok(())
    }

    fn basic(&mut self, s: &Stm, op: &BasicOp) -> R<()> {
        let Some(&y) = s.pat.first() else {
            return Ok(());
        };
        let t = match op {
            BasicOp::SubExp(se) => self.tangent_of(se),
            BasicOp::Prim(p, args) => self.prim_op_tangent(*p, args)?,
            BasicOp::Index { array, slice } => match self.tangents.get(array).copied() {
                Some(SubExp::Var(ta)) => {
                    // The tangent has the primal's shape, and the primal read comes first.
                    self.e.aux_mut().attrs.push(CHECKED_BEFORE.to_string());
                    let t = self.tan_var(
                        y,
                        Exp::BasicOp(BasicOp::Index {
                            array: ta,
                            slice: slice.clone(),
                        }),
                    );
                    self.e.aux_mut().attrs.pop();
                    Some(t)
                }
                _ => None,
            },
            BasicOp::Update {
                array,
                slice,
                value,
            } => self.update_tangent(y, *array, slice, value),
            BasicOp::Iota { .. } | BasicOp::Scratch { .. } | BasicOp::Assert { .. } => None,
            BasicOp::Replicate { shape, value } => self.tangent_of(value).map(|tv| {
                self.tan_var(
                    y,
                    Exp::BasicOp(BasicOp::Replicate {
                        shape: shape.clone(),
                        value: tv,
                    }),
                )
            }),
            BasicOp::ArrayLit { elems, row } => {
                if elems.iter().all(|x| self.tangent_of(x).is_none()) {
                    None
                } else {
                    let elems = elems.iter().map(|x| self.tangent_or_zero(x)).collect();
                    let row = self.tangent_type(row);
                    Some(self.tan_var(y, Exp::BasicOp(BasicOp::ArrayLit { elems, row })))
                }
            }
            BasicOp::Concat { arrays, size } => self.concat_tangent(y, arrays, *size),
            BasicOp::Copy(a) => match self.tangents.get(a).copied() {
                Some(SubExp::Var(ta)) => Some(self.tan_var(y, Exp::BasicOp(BasicOp::Copy(ta)))),
                other => other,
            },
            BasicOp::Reshape { array, shape } => {
                let shape = self.tangent_shape(shape);
                self.map_array(y, *array, |ta| BasicOp::Reshape { array: ta, shape })
            }
            BasicOp::Rearrange { array, perm } => {
                // The lanes stay innermost.
                let mut perm = perm.clone();
                if self.lanes.is_some() {
                    perm.push(perm.len());
                }
                self.map_array(y, *array, |ta| BasicOp::Rearrange { array: ta, perm })
            }
            BasicOp::Rotate { array, amount } => self.map_array(y, *array, |ta| BasicOp::Rotate {
                array: ta,
                amount: *amount,
            }),
            BasicOp::Coerce {
                array,
                shape,
                type_text,
            } => {
                let shape = self.tangent_shape(shape);
                self.map_array(y, *array, |ta| BasicOp::Coerce {
                    array: ta,
                    shape,
                    type_text: type_text.clone(),
                })
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => self.update_acc_tangent(s, y, *acc, indices, values)?,
        };
        self.set(y, t);
        Ok(())
    }

    /// The tangent of a primitive operation on `args`.
    fn prim_op_tangent(&mut self, p: PrimOp, args: &[SubExp]) -> R<Option<SubExp>> {
        let tans: Vec<Option<SubExp>> = args.iter().map(|a| self.tangent_of(a)).collect();
        Ok(match self.lanes {
            None => prim_tangent(&mut self.e, p, args, &tans),
            Some(k) => {
                // Lane tangents are arrays: seeds, maps over lanes, or zeros
                // materialised with `replicate`.
                let lane_tans = tans
                    .iter()
                    .map(|t| match t {
                        None => Ok(None),
                        Some(SubExp::Var(v)) => Ok(Some(*v)),
                        Some(SubExp::Const(_)) => {
                            Err(Diagnostic::bug("a lane tangent is a constant"))
                        }
                    })
                    .collect::<R<Vec<_>>>()?;
                prim_tangent_lanes(&mut self.e, p, args, &lane_tans, k)
            }
        })
    }

    /// The tangent of `array with [slice] = value`.
    fn update_tangent(
        &mut self,
        y: Var,
        array: Var,
        slice: &[DimIndex],
        value: &SubExp,
    ) -> Option<SubExp> {
        let ta = self.tangents.get(&array).copied();
        let tv = self.tangent_of(value);
        if ta.is_none() && tv.is_none() {
            None
        } else {
            let ta = self.tangent_or_zero(&SubExp::Var(array));
            let tv = self.tangent_or_zero(value);
            let ta = self.e.as_var(ta, "tan");
            Some(self.tan_var(
                y,
                Exp::BasicOp(BasicOp::Update {
                    array: ta,
                    slice: slice.to_vec(),
                    value: tv,
                }),
            ))
        }
    }

    /// The tangent of a concatenation of `arrays`.
    fn concat_tangent(&mut self, y: Var, arrays: &[Var], size: SubExp) -> Option<SubExp> {
        if arrays.iter().all(|a| !self.tangents.contains_key(a)) {
            None
        } else {
            let mut tas = Vec::new();
            for a in arrays {
                let t = self.tangent_or_zero(&SubExp::Var(*a));
                tas.push(self.e.as_var(t, "tan"));
            }
            Some(self.tan_var(y, Exp::BasicOp(BasicOp::Concat { arrays: tas, size })))
        }
    }

    /// The tangent of an accumulator update: the tangent accumulator receives the values'
    /// tangents at the same position.
    fn update_acc_tangent(
        &mut self,
        s: &Stm,
        y: Var,
        acc: Var,
        indices: &[SubExp],
        values: &[SubExp],
    ) -> R<Option<SubExp>> {
        self.no_lanes(s.aux.span, "accumulator updates")?;
        let Some(SubExp::Var(ta)) = self.tangents.get(&acc).copied() else {
            return Err(limitation(
                s.aux.span,
                "forward-mode AD of an update of an accumulator without tangent",
            ));
        };
        let tvs = values.iter().map(|v| self.tangent_or_zero(v)).collect();
        Ok(Some(self.tan_var(
            y,
            Exp::BasicOp(BasicOp::UpdateAcc {
                acc: ta,
                indices: indices.to_vec(),
                values: tvs,
            }),
        )))
    }

    fn map_array(&mut self, y: Var, array: Var, f: impl FnOnce(Var) -> BasicOp) -> Option<SubExp> {
        match self.tangents.get(&array).copied() {
            Some(SubExp::Var(ta)) => Some(self.tan_var(y, Exp::BasicOp(f(ta)))),
            _ => None,
        }
    }

    fn loop_stm(
        &mut self,
        s: &Stm,
        params: &[(Var, SubExp)],
        form: &LoopForm,
        body: &Body,
    ) -> R<()> {
        let cond = match form {
            LoopForm::While { cond } => Some(*cond),
            LoopForm::For { .. } => None,
        };
        // Every parameter except a while loop's condition carries a tangent.
        let mut new_params = params.to_vec();
        let mut tan_params = Vec::new();
        for (p, init) in params {
            if Some(*p) == cond {
                continue;
            }
            let tp = self.fresh_tangent(*p);
            let ti = self.tangent_or_zero(init);
            tan_params.push((*p, tp));
            new_params.push((tp, ti));
        }
        for (p, tp) in &tan_params {
            self.tangents.insert(*p, SubExp::Var(*tp));
        }
        let (stms, result) = self.nested(|j| {
            for st in &body.stms {
                j.stm(st)?;
            }
            let mut result = body.result.clone();
            for ((p, _), r) in params.iter().zip(&body.result) {
                if Some(*p) == cond {
                    continue;
                }
                let t = j.tangent_or_zero(r);
                result.push(t);
            }
            Ok(result)
        })?;
        let mut pat = s.pat.clone();
        let mut outs = Vec::new();
        for ((p, _), v) in params.iter().zip(&s.pat) {
            if Some(*p) == cond {
                continue;
            }
            let tv = self.fresh_tangent(*v);
            pat.push(tv);
            outs.push((*v, tv));
        }
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Loop {
                params: new_params,
                form: form.clone(),
                body: Body { stms, result },
            },
            aux: s.aux.clone(),
        });
        for (v, tv) in outs {
            self.tangents.insert(v, SubExp::Var(tv));
        }
        Ok(())
    }

    /// `with_acc`: every accumulated array gets a tangent array, accumulated by a tangent
    /// accumulator (the tangent of the accumulator parameter) that each `update_acc` also
    /// updates with the tangents of its values. The lambda returns the accumulators, their
    /// tangents, the other results and their tangents; the statement binds the arrays, their
    /// tangents, the other results and their tangents.
    fn with_acc(&mut self, s: &Stm, inputs: &[(Vec<SubExp>, Vec<Var>)], lam: &Lambda) -> R<()> {
        self.no_lanes(s.aux.span, "accumulators")?;
        let mut new_inputs = inputs.to_vec();
        for (shape, arrays) in inputs {
            let mut tans = Vec::new();
            for a in arrays {
                let t = self.tangent_or_zero(&SubExp::Var(*a));
                tans.push(self.e.as_var(t, "tan"));
            }
            new_inputs.push((shape.clone(), tans));
        }
        let g = inputs.len();
        let mut params = lam.params.clone();
        for p in &lam.params {
            let tp = self.fresh_tangent(*p);
            self.tangents.insert(*p, SubExp::Var(tp));
            params.push(tp);
        }
        let body = self.body(&lam.body)?;
        // body() returns (results.., tangents..); the accumulators and their tangents go first.
        let n = lam.body.result.len();
        let (res, tans) = body.result.split_at(n);
        let mut result = res[..g].to_vec();
        result.extend_from_slice(&tans[..g]);
        result.extend_from_slice(&res[g..]);
        result.extend_from_slice(&tans[g..]);
        let mut ret = lam.ret[..g].to_vec();
        ret.extend_from_slice(&lam.ret[..g]);
        ret.extend_from_slice(&lam.ret[g..]);
        ret.extend_from_slice(&lam.ret[g..]);
        let new_lam = Lambda {
            params,
            body: Body {
                stms: body.stms,
                result,
            },
            ret,
        };
        let n_arrays: usize = inputs.iter().map(|(_, a)| a.len()).sum();
        let (arrays_out, others) = s.pat.split_at(n_arrays.min(s.pat.len()));
        let arrays_tan: Vec<Var> = arrays_out.iter().map(|v| self.fresh_tangent(*v)).collect();
        let others_tan: Vec<Var> = others.iter().map(|v| self.fresh_tangent(*v)).collect();
        let mut pat = arrays_out.to_vec();
        pat.extend(&arrays_tan);
        pat.extend_from_slice(others);
        pat.extend(&others_tan);
        self.e.add_stm(Stm {
            pat,
            exp: Exp::WithAcc {
                inputs: new_inputs,
                lam: new_lam,
            },
            aux: s.aux.clone(),
        });
        for (v, t) in arrays_out.iter().zip(arrays_tan) {
            self.tangents.insert(*v, SubExp::Var(t));
        }
        for (v, t) in others.iter().zip(others_tan) {
            self.tangents.insert(*v, SubExp::Var(t));
        }
        Ok(())
    }

    /// The tangent version of a combining operator: parameters
    /// `(a.., a_tan.., b.., b_tan..)`, results `(op a b.., tangents..)`.
    fn operator_lambda(&mut self, lam: &Lambda) -> R<Lambda> {
        let k = lam.params.len() / 2;
        let mut params = Vec::new();
        for half in [&lam.params[..k], &lam.params[k..]] {
            let tans: Vec<Var> = half.iter().map(|p| self.fresh_tangent(*p)).collect();
            for (p, t) in half.iter().zip(&tans) {
                self.tangents.insert(*p, SubExp::Var(*t));
            }
            params.extend_from_slice(half);
            params.extend(tans);
        }
        let body = self.body(&lam.body)?;
        let mut ret = lam.ret.clone();
        ret.extend(self.tangent_types(&lam.ret));
        Ok(Lambda { params, body, ret })
    }

    fn soac(&mut self, s: &Stm, soac: &Soac) -> R<()> {
        let tangent_pattern =
            |j: &mut Self| -> Vec<Var> { s.pat.iter().map(|v| j.fresh_tangent(*v)).collect() };
        let new_soac = match soac {
            Soac::Map { w, lam, arrays } => self.map_tangent(*w, lam, arrays)?,
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                commutative,
            } => {
                let lam2 = self.operator_lambda(lam)?;
                let (neutral, arrays) = self.paired(neutral, arrays);
                Soac::Reduce {
                    w: *w,
                    lam: lam2,
                    neutral,
                    arrays,
                    commutative: *commutative,
                }
            }
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => {
                let lam2 = self.operator_lambda(lam)?;
                let (neutral, arrays) = self.paired(neutral, arrays);
                Soac::Scan {
                    w: *w,
                    lam: lam2,
                    neutral,
                    arrays,
                }
            }
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                let lam2 = self.operator_lambda(lam)?;
                let (neutral, values) = self.paired(neutral, values);
                let mut new_dests = dests.clone();
                for d in dests {
                    let t = self.tangent_or_zero(&SubExp::Var(*d));
                    let t = self.e.as_var(t, "tan");
                    new_dests.push(t);
                }
                // Hist pairs destinations by position: primal then tangent.
                Soac::Hist {
                    w: *w,
                    dests: new_dests,
                    lam: lam2,
                    neutral,
                    indices: *indices,
                    values,
                }
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => self.scatter_tangent(*w, dests, *indices, values),
            Soac::Screma { .. } => {
                return Err(Diagnostic::bug("a fused SOAC reached forward mode unsplit"));
            }
        };
        let tans = tangent_pattern(self);
        let mut pat = s.pat.clone();
        pat.extend(&tans);
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Soac(new_soac),
            aux: s.aux.clone(),
        });
        for (v, t) in s.pat.iter().zip(tans) {
            self.tangents.insert(*v, SubExp::Var(t));
        }
        Ok(())
    }

    /// The `map` that also computes the tangents: only inputs with tangents get tangent
    /// parameters, and the lambda returns its results' tangents after them.
    fn map_tangent(&mut self, w: SubExp, lam: &Lambda, arrays: &[Var]) -> R<Soac> {
        let mut params = lam.params.clone();
        let mut new_arrays = arrays.to_vec();
        for (p, a) in lam.params.iter().zip(arrays) {
            if let Some(SubExp::Var(ta)) = self.tangents.get(a).copied() {
                let tp = self.fresh_tangent(*p);
                self.tangents.insert(*p, SubExp::Var(tp));
                params.push(tp);
                new_arrays.push(ta);
            }
        }
        let body = self.body(&lam.body)?;
        let mut ret = lam.ret.clone();
        ret.extend(self.tangent_types(&lam.ret));
        Ok(Soac::Map {
            w,
            lam: Lambda { params, body, ret },
            arrays: new_arrays,
        })
    }

    /// The `scatter` that also scatters the tangents of the values into the tangents of the
    /// destinations.
    fn scatter_tangent(&mut self, w: SubExp, dests: &[Var], indices: Var, values: &[Var]) -> Soac {
        let mut new_dests = dests.to_vec();
        let mut new_values = values.to_vec();
        for (d, v) in dests.iter().zip(values) {
            let td = self.tangent_or_zero(&SubExp::Var(*d));
            let td = self.e.as_var(td, "tan");
            let tv = self.tangent_or_zero(&SubExp::Var(*v));
            let tv = self.e.as_var(tv, "tan");
            new_dests.push(td);
            new_values.push(tv);
        }
        Soac::Scatter {
            w,
            dests: new_dests,
            indices,
            values: new_values,
        }
    }

    /// Neutral elements followed by their zero tangents, and arrays followed by their
    /// (materialised) tangents.
    fn paired(&mut self, neutral: &[SubExp], arrays: &[Var]) -> (Vec<SubExp>, Vec<Var>) {
        let mut ne = neutral.to_vec();
        for n in neutral {
            let t = self.e.ty(n);
            let z = self.zero_tangent(&t);
            ne.push(z);
        }
        let mut arrs = arrays.to_vec();
        for a in arrays {
            let t = self.tangent_or_zero(&SubExp::Var(*a));
            let t = self.e.as_var(t, "tan");
            arrs.push(t);
        }
        (ne, arrs)
    }
}
