//! Control flow: `if` and the three `loop` forms.
//!
//! Takes the branches or the loop body as code that builds them. Guarantees the sizes are
//! explicit: array sizes that differ between branches, or that a loop iteration changes, become
//! existential results (`if`) or size parameters (`loop`) of the emitted statement.

use super::pattern::pat_name;
use super::value::{Env, IVal};
use super::{Internaliser, R, bug, i64c, limitation};
use crate::core::ir::{DimIndex, Exp, LoopForm, SubExp, Type, Var};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use crate::syntax::ast::{self, Pat, PatKind};
use crate::types::Resolved;
use std::collections::{HashMap, HashSet};

impl<'a> Internaliser<'a> {
    /// Emits an `if` whose branches `then_f` and `else_f` build; array sizes that differ
    /// between the branches (or are bound inside them) become existential results.
    pub(super) fn if_then_else(
        &mut self,
        cond: SubExp,
        span: Span,
        then_f: impl FnOnce(&mut Self) -> R<IVal>,
        else_f: impl FnOnce(&mut Self) -> R<IVal>,
    ) -> R<IVal> {
        if let SubExp::Const(Scalar::Bool(c)) = cond {
            return if c { then_f(self) } else { else_f(self) };
        }
        let (tv, mut then_body) = self.body_of(then_f)?;
        let (ev, mut else_body) = self.body_of(else_f)?;
        let (tl, el) = (tv.leaves(), ev.leaves());
        if tl.len() != el.len() || tv.has_function() {
            return Err(bug(span, "branches of an `if` have different structures"));
        }
        let bound_inside: HashSet<Var> = bound_vars(&then_body)
            .into_iter()
            .chain(bound_vars(&else_body))
            .collect();
        let mut ext_then = Vec::new();
        let mut ext_else = Vec::new();
        let mut ext_vars = Vec::new();
        let mut types = Vec::new();
        for (t, f) in tl.iter().zip(&el) {
            let tt = self.em.ty(t);
            let ft = self.em.ty(f);
            let mut dims = Vec::new();
            for (k, dt) in tt.dims().iter().enumerate() {
                let df = ft.dims().get(k).copied().unwrap_or(*dt);
                let outside = |d: &SubExp| d.as_var().is_none_or(|v| !bound_inside.contains(&v));
                if *dt == df && outside(dt) {
                    dims.push(*dt);
                } else {
                    let v = self.em.fresh("d", Type::Prim(PrimType::I64));
                    ext_then.push(*dt);
                    ext_else.push(df);
                    ext_vars.push(v);
                    dims.push(SubExp::Var(v));
                }
            }
            types.push(Type::array(tt.elem(), dims));
        }
        then_body.result.splice(0..0, ext_then);
        else_body.result.splice(0..0, ext_else);
        let mut pat = ext_vars.clone();
        let hint = "if_res";
        let mut ret: Vec<Type> = ext_vars.iter().map(|_| Type::Prim(PrimType::I64)).collect();
        let mut results = Vec::new();
        for t in &types {
            let v = self.em.fresh(hint, t.clone());
            pat.push(v);
            results.push(SubExp::Var(v));
            ret.push(t.clone());
        }
        self.em.push(
            pat,
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            },
        );
        Ok(tv.rebuild(&mut results.into_iter()))
    }

    pub(super) fn loop_exp(
        &mut self,
        e: &'a ast::Exp,
        pat: &'a Pat,
        init: Option<&'a ast::Exp>,
        form: &'a ast::LoopForm,
        body: &'a ast::Exp,
        env: &Env,
    ) -> R<IVal> {
        let init_v = match init {
            Some(i) => self.exp(i, env)?,
            None => self.shorthand_init(pat, env)?,
        };
        let init_leaves = init_v.leaves();
        // Fixed parts of the form, evaluated before the loop.
        enum Form<'b> {
            For(SubExp, &'b Pat),
            ForIn(IVal, SubExp, &'b Pat),
            While(&'b ast::Exp),
        }
        let f = match form {
            ast::LoopForm::For { var, bound } => {
                let b = self.exp(bound, env)?;
                Form::For(self.leaf(&b, bound.span)?, var)
            }
            ast::LoopForm::ForIn { pat, array } => {
                let a = self.exp(array, env)?;
                let first =
                    a.leaves().first().copied().ok_or_else(|| {
                        limitation(array.span, "`for ... in` over an empty record")
                    })?;
                let n = self.em.dims(&first).first().copied().unwrap_or(i64c(0));
                Form::ForIn(a, n, pat)
            }
            ast::LoopForm::While(c) => Form::While(c),
        };
        // Which dimensions of the carried arrays vary: first try with none, then with those
        // the first attempt found changing.
        let mut varying: HashSet<(usize, usize)> = HashSet::new();
        for _attempt in 0..2 {
            let mut size_params: Vec<(Var, SubExp)> = Vec::new();
            let mut size_of: HashMap<(usize, usize), Var> = HashMap::new();
            let mut params = Vec::new();
            for (k, l) in init_leaves.iter().enumerate() {
                let t = self.em.ty(l);
                let mut dims = t.dims().to_vec();
                for (j, d) in dims.iter_mut().enumerate() {
                    if varying.contains(&(k, j)) {
                        let v = self.em.fresh("loop_d", Type::Prim(PrimType::I64));
                        size_params.push((v, *d));
                        size_of.insert((k, j), v);
                        *d = SubExp::Var(v);
                    }
                }
                let hint = pat_name(pat).unwrap_or_else(|| "loop_p".into());
                let v = self.em.fresh(&hint, Type::array(t.elem(), dims));
                params.push((v, *l));
            }
            let param_val = init_v.rebuild(
                &mut params
                    .iter()
                    .map(|(v, _)| SubExp::Var(*v))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            let cond_param = match &f {
                Form::While(_) => Some(self.em.fresh("loop_cond", Type::Prim(PrimType::Bool))),
                _ => None,
            };
            let cond_init = match &f {
                Form::While(c) => {
                    let mut env2 = env.clone();
                    self.bind_pat(pat, init_v.clone(), &mut env2)?;
                    let cv = self.exp(c, &env2)?;
                    Some(self.leaf(&cv, c.span)?)
                }
                _ => None,
            };
            self.em.open_body();
            let res = (|| -> R<(Vec<SubExp>, LoopForm)> {
                let mut env2 = env.clone();
                self.bind_pat(pat, param_val.clone(), &mut env2)?;
                let lf = match &f {
                    Form::For(bound, var) => {
                        let t = self.em.ty(bound).elem();
                        let i = self
                            .em
                            .fresh(&pat_name(var).unwrap_or("i".into()), Type::Prim(t));
                        self.bind_pat(var, IVal::Leaf(SubExp::Var(i)), &mut env2)?;
                        LoopForm::For { i, bound: *bound }
                    }
                    Form::ForIn(arr, n, p) => {
                        let i = self.em.fresh("i", Type::Prim(PrimType::I64));
                        let elem = self.index_leaves(arr, &[DimIndex::Fix(SubExp::Var(i))])?;
                        self.bind_pat(p, elem, &mut env2)?;
                        LoopForm::For { i, bound: *n }
                    }
                    Form::While(_) => LoopForm::While {
                        cond: cond_param.unwrap_or(Var(0)),
                    },
                };
                let r = self.exp(body, &env2)?;
                let mut leaves = r.leaves();
                if let Form::While(c) = &f {
                    let mut env3 = env.clone();
                    self.bind_pat(pat, r.clone(), &mut env3)?;
                    let cv = self.exp(c, &env3)?;
                    leaves.insert(0, self.leaf(&cv, c.span)?);
                }
                Ok((leaves, lf))
            })();
            let (mut leaves, lf) = match res {
                Ok(x) => x,
                Err(err) => {
                    self.em.close_body(vec![]);
                    return Err(err);
                }
            };
            let offset = usize::from(cond_param.is_some());
            // Compare the result sizes with the parameters'.
            let mut new_varying = varying.clone();
            for (k, (p, _)) in params.iter().enumerate() {
                let pt = self.em.names.ty(*p).clone();
                let rt = self.em.ty(&leaves[k + offset]);
                for (j, (pd, rd)) in pt.dims().iter().zip(rt.dims()).enumerate() {
                    if pd != rd && !varying.contains(&(k, j)) {
                        new_varying.insert((k, j));
                    }
                }
            }
            if new_varying != varying && _attempt == 0 {
                self.em.close_body(vec![]);
                varying = new_varying;
                continue;
            }
            // Size results first, in the order of the size parameters.
            let mut size_results = Vec::new();
            let mut keys: Vec<_> = size_of.keys().copied().collect();
            keys.sort();
            let mut ordered_size_params = Vec::new();
            for key in keys {
                let (k, j) = key;
                let rt = self.em.ty(&leaves[k + offset]);
                size_results.push(rt.dims().get(j).copied().unwrap_or(i64c(0)));
                let v = size_of[&key];
                let init_d = size_params
                    .iter()
                    .find(|(sv, _)| *sv == v)
                    .map(|(_, d)| *d)
                    .unwrap_or(i64c(0));
                ordered_size_params.push((v, init_d));
            }
            leaves.splice(0..0, size_results);
            let body_ir = self.em.close_body(leaves);
            let mut all_params = ordered_size_params.clone();
            if let (Some(cp), Some(ci)) = (cond_param, cond_init) {
                all_params.push((cp, ci));
            }
            all_params.extend(params.iter().copied());
            // The statement's pattern: fresh variables whose types mention the pattern's own
            // size variables.
            let mut subst: HashMap<Var, Var> = HashMap::new();
            let mut pat_vars = Vec::new();
            for (v, _) in &ordered_size_params {
                let nv = self.em.fresh("loop_d", Type::Prim(PrimType::I64));
                subst.insert(*v, nv);
                pat_vars.push(nv);
            }
            if cond_param.is_some() {
                pat_vars.push(self.em.fresh("loop_cond", Type::Prim(PrimType::Bool)));
            }
            let mut results = Vec::new();
            for (p, _) in &params {
                let t = substitute(self.em.names.ty(*p), &subst);
                let nv = self
                    .em
                    .fresh(self.em.names.hint(*p).to_string().as_str(), t);
                pat_vars.push(nv);
                results.push(SubExp::Var(nv));
            }
            self.em.push(
                pat_vars,
                Exp::Loop {
                    params: all_params,
                    form: lf,
                    body: body_ir,
                },
            );
            let _ = e;
            return Ok(init_v.rebuild(&mut results.into_iter()));
        }
        Err(bug(e.span, "loop sizes did not settle"))
    }

    fn shorthand_init(&mut self, pat: &'a Pat, env: &Env) -> R<IVal> {
        // `loop p for ...`: initial values from the variables the pattern names, which the
        // checker resolved at the pattern's nodes.
        match &pat.kind {
            PatKind::Name(n) => match self.typed.resolved.get(&pat.id) {
                Some(Resolved::Local(b)) => env
                    .get(b)
                    .cloned()
                    .ok_or_else(|| bug(pat.span, format!("unbound variable {n}"))),
                _ => Err(limitation(pat.span, "`loop x for ...` shorthand")),
            },
            PatKind::Tuple(ps) => {
                let vals = ps
                    .iter()
                    .map(|p| self.shorthand_init(p, env))
                    .collect::<R<Vec<_>>>()?;
                Ok(IVal::tuple(vals))
            }
            PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => {
                self.shorthand_init(pat, env)
            }
            _ => Err(limitation(
                pat.span,
                "`loop p for ...` shorthand with this pattern",
            )),
        }
    }
}

fn substitute(t: &Type, subst: &HashMap<Var, Var>) -> Type {
    match t {
        Type::Array { elem, dims } => Type::Array {
            elem: *elem,
            dims: dims
                .iter()
                .map(|d| match d {
                    SubExp::Var(v) => SubExp::Var(*subst.get(v).unwrap_or(v)),
                    c => *c,
                })
                .collect(),
        },
        other => other.clone(),
    }
}

/// Every variable bound anywhere in a body (statements, nested bodies, lambda parameters).
fn bound_vars(body: &crate::core::ir::Body) -> Vec<Var> {
    let mut out = Vec::new();
    crate::core::renumber::body_binders(body, &mut out);
    out
}
