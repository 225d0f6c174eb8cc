//! Declarations and application: references to declarations and function calls.
//!
//! Takes function values ([`FunVal`]) and their arguments and inlines the call: partial
//! applications stay function values until all arguments are there, and a declaration's body
//! is internalised with its parameters and size parameters bound. Guarantees every call is
//! gone from the output (the program is first-order); calls nested deeper than
//! `MAX_INLINE_DEPTH` are reported as recursion, which inlining cannot handle.

use super::intrinsics;
use super::pattern::project;
use super::value::{Callee, Env, FunVal, IVal};
use super::{ClosureDef, Internaliser, MAX_INLINE_DEPTH, R, bug, i64c, limitation};
use crate::core::ir::SubExp;
use crate::core::prim::BinOp;
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use crate::syntax::ast::{self, ExpKind, Pat};
use crate::types::ty::{BindingId, Size, Ty};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

impl<'a> Internaliser<'a> {
    /// The value of a reference to declaration `i`: a function value, or the evaluated
    /// constant.
    pub(super) fn decl_value(
        &mut self,
        i: usize,
        ty: Option<&Ty>,
        env: &Env,
        span: Span,
    ) -> R<IVal> {
        self.decl_value_at(i, ty, env, span, None)
    }

    /// As [`Self::decl_value`], remembering the referencing node (whose instantiation gives
    /// the sizes of size parameters that occur only in the result type).
    pub(super) fn decl_value_at(
        &mut self,
        i: usize,
        ty: Option<&Ty>,
        env: &Env,
        span: Span,
        node: Option<ast::NodeId>,
    ) -> R<IVal> {
        let info = &self.decls[i];
        let dec = info.dec;
        let is_hole = matches!(dec.body.kind, ExpKind::Hole);
        if is_hole {
            let name = crate::prelude::intrinsic_name(&info.module_path, &dec.name);
            if dec.params.is_empty() {
                let path = info.module_path.clone();
                return self.intrinsic_constant(&path, &dec.name, span);
            }
            return Ok(IVal::Fun(Rc::new(FunVal {
                callee: Callee::Intrinsic(name, dec.params.len()),
                args: Vec::new(),
                ty: ty.cloned(),
                env: env.clone(),
                node,
            })));
        }
        let sized_constant = dec.params.is_empty()
            && self
                .typed
                .size_params
                .get(&dec.body.id)
                .is_some_and(|v| !v.is_empty());
        if sized_constant {
            // `def indices [n] : [n]i64 = iota n`: the sizes come from each use's
            // instantiation, so the constant is evaluated per use, like a call.
            let fv = FunVal {
                callee: Callee::Decl(i),
                args: Vec::new(),
                ty: ty.cloned(),
                env: env.clone(),
                node,
            };
            return self.call(&fv, Vec::new(), span);
        }
        if dec.params.is_empty() {
            if let Some(v) = self.constants.get(&i) {
                return Ok(v.clone());
            }
            let saved = self.em.at(dec.body.span);
            let v = self.exp(&dec.body, &Rc::new(HashMap::new()));
            self.em.at(saved);
            let v = v?;
            // Only a value made of constants can be reused anywhere: one that names variables
            // names them in the scope of its first use (a branch, a lambda, a loop body),
            // where a later use elsewhere cannot see them.
            if !v.has_function() && v.leaves().iter().all(|l| matches!(l, SubExp::Const(_))) {
                self.constants.insert(i, v.clone());
            }
            return Ok(v);
        }
        Ok(IVal::Fun(Rc::new(FunVal {
            callee: Callee::Decl(i),
            args: Vec::new(),
            ty: ty.cloned(),
            env: env.clone(),
            node,
        })))
    }

    fn intrinsic_constant(&mut self, path: &[String], name: &str, span: Span) -> R<IVal> {
        let t = path
            .first()
            .and_then(|m| PrimType::from_name(m))
            .ok_or_else(|| bug(span, format!("unknown intrinsic constant {name}")))?;
        let v = intrinsics::float_constant(t, name)
            .ok_or_else(|| bug(span, format!("unknown intrinsic constant {name}")))?;
        Ok(IVal::Leaf(SubExp::Const(Scalar::from_f64(t, v))))
    }

    pub(super) fn arity(&self, callee: &Callee) -> usize {
        callee.arity(|i| match callee {
            Callee::Decl(_) => self.decls[i].dec.params.len(),
            _ => match &self.closures[i] {
                ClosureDef::Lambda { params, .. } => params.len(),
                ClosureDef::IndexSection { .. } => 1,
            },
        })
    }

    pub(super) fn apply(&mut self, f: IVal, args: Vec<IVal>, span: Span) -> R<IVal> {
        let IVal::Fun(fv) = f else {
            return Err(bug(span, "application of a value that is not a function"));
        };
        let mut all = fv.args.clone();
        all.extend(args);
        let arity = self.arity(&fv.callee);
        if all.len() < arity {
            return Ok(IVal::Fun(Rc::new(FunVal {
                callee: fv.callee.clone(),
                args: all,
                ty: fv.ty.clone(),
                env: fv.env.clone(),
                node: fv.node,
            })));
        }
        let rest = all.split_off(arity);
        self.depth += 1;
        if self.depth > MAX_INLINE_DEPTH {
            self.depth -= 1;
            return Err(limitation(
                span,
                "recursive functions (calls nested deeper than the inlining limit)",
            ));
        }
        let result = self.call(&fv, all, span);
        self.depth -= 1;
        let result = result?;
        if rest.is_empty() {
            Ok(result)
        } else {
            self.apply(result, rest, span)
        }
    }

    pub(super) fn call(&mut self, fv: &FunVal, args: Vec<IVal>, span: Span) -> R<IVal> {
        match &fv.callee {
            Callee::Decl(i) => {
                let dec = self.decls[*i].dec;
                let saved_callers = self.em.aux().callers.clone();
                self.em.aux_mut().callers.insert(0, span);
                let tenv = self.callee_tenv(fv.node);
                let saved_tenv = std::mem::replace(&mut self.tenv, tenv);
                let r = self.call_def(&dec.params, &dec.body, Rc::new(HashMap::new()), args, fv);
                self.tenv = saved_tenv;
                self.em.aux_mut().callers = saved_callers;
                r
            }
            Callee::Closure(i) => match &self.closures[*i] {
                ClosureDef::Lambda {
                    params,
                    body,
                    env,
                    tenv,
                } => {
                    let (params, body, env) = (*params, *body, env.clone());
                    // The closure's own type parameters (a polymorphic local function) are
                    // instantiated at the use `fv.node`, on top of those where it was defined.
                    let mut inner = (**tenv).clone();
                    inner.extend(
                        self.callee_tenv(fv.node)
                            .iter()
                            .map(|(k, t)| (k.clone(), t.clone())),
                    );
                    let saved_tenv = std::mem::replace(&mut self.tenv, Rc::new(inner));
                    let r = self.call_def(params, body, env, args, fv);
                    self.tenv = saved_tenv;
                    r
                }
                ClosureDef::IndexSection { indices, env, span } => {
                    let (indices, env, span) = (*indices, env.clone(), *span);
                    let target = args.into_iter().next().unwrap_or_else(IVal::unit);
                    self.index_value(&target, indices, &env, span)
                }
            },
            Callee::Intrinsic(name, _) => self.intrinsic(name, args, fv, span),
            Callee::Builtin(op, _) => self.builtin(op, args, span),
            Callee::RightSection(op, rhs) => {
                let mut a = args;
                a.push((**rhs).clone());
                self.apply(IVal::Fun(op.clone()), a, span)
            }
            Callee::Project(fields) => {
                let mut v = args.into_iter().next().unwrap_or_else(IVal::unit);
                for f in fields {
                    v = project(&v, f, span)?;
                }
                Ok(v)
            }
        }
    }

    /// Inlines a function definition: binds size parameters and parameters, then
    /// internalises the body.
    fn call_def(
        &mut self,
        params: &'a [Pat],
        body: &'a ast::Exp,
        env: Env,
        args: Vec<IVal>,
        fv: &FunVal,
    ) -> R<IVal> {
        let mut env = env;
        let pending: HashSet<BindingId> = self
            .typed
            .size_params
            .get(&body.id)
            .map(|v| v.iter().map(|(_, b)| *b).collect())
            .unwrap_or_default();
        for (p, a) in params.iter().zip(&args) {
            if !pending.is_empty()
                && let Some(pty) = self.typed.pat_types.get(&p.id)
            {
                self.bind_sizes(pty, a, &pending, &mut env);
            }
            self.bind_pat(p, a.clone(), &mut env)?;
        }
        // Size parameters that occur only in the result type come from the type the function
        // was instantiated at (docs/language.md §Size rules).
        if let Some(inst) = fv.node.and_then(|n| self.typed.instances.get(&n)) {
            for (b, size) in &inst.sizes {
                if pending.contains(b)
                    && !env.contains_key(b)
                    && let Some(se) = self.eval_size(size, &fv.env)
                {
                    Rc::make_mut(&mut env).insert(*b, IVal::Leaf(se));
                }
            }
        }
        if pending.iter().any(|b| !env.contains_key(b))
            && let (Some(declared), Some(inst)) = (self.typed.exp_types.get(&body.id), &fv.ty)
        {
            let mut inst_ret = inst;
            for _ in 0..params.len() {
                if let Ty::Arrow(_, r) = inst_ret {
                    inst_ret = r;
                }
            }
            let mut found = Vec::new();
            match_sizes(declared, inst_ret, &pending, &mut found);
            for (b, size) in found {
                if !env.contains_key(&b)
                    && let Some(se) = self.eval_size(&size, &fv.env)
                {
                    Rc::make_mut(&mut env).insert(b, IVal::Leaf(se));
                }
            }
        }
        self.exp(body, &env)
    }

    /// Binds size parameters in `pending` from the dimensions of the value `v` of type `ty`:
    /// wherever `ty` has one of them as a whole dimension of an array, also inside tuples and
    /// records and in the element type of an array of tuples or records. Function values
    /// have no dimensions (the checker makes sizes that only they mention known at the call).
    pub(super) fn bind_sizes(
        &mut self,
        ty: &Ty,
        v: &IVal,
        pending: &HashSet<BindingId>,
        env: &mut Env,
    ) {
        self.bind_sizes_at(ty, v, 0, pending, env);
    }

    /// As [`Self::bind_sizes`], for a `v` that is the element of `outer` enclosing array
    /// dimensions: its leaves' first `outer` dimensions are not `ty`'s.
    fn bind_sizes_at(
        &mut self,
        ty: &Ty,
        v: &IVal,
        outer: usize,
        pending: &HashSet<BindingId>,
        env: &mut Env,
    ) {
        match (ty, v) {
            (Ty::Array(dims, elem), _) => {
                if let Some(first) = v.leaves().first().copied() {
                    let core_dims = self.em.dims(&first);
                    for (d, cd) in dims.iter().zip(core_dims.iter().skip(outer)) {
                        if let Size::Named(b, _) = d
                            && pending.contains(b)
                            && !env.contains_key(b)
                        {
                            Rc::make_mut(env).insert(*b, IVal::Leaf(*cd));
                        }
                    }
                }
                // An array of tuples or records is a tuple or record of arrays.
                self.bind_sizes_at(elem, v, outer + dims.len(), pending, env);
            }
            (Ty::Record(fields), IVal::Record(vals)) => {
                for (k, t) in fields {
                    if let Some(v) = vals.get(k) {
                        self.bind_sizes_at(t, v, outer, pending, env);
                    }
                }
            }
            _ => {}
        }
    }

    pub(super) fn eval_size(&mut self, s: &Size, env: &Env) -> Option<SubExp> {
        match s {
            Size::Const(c) => Some(i64c(*c)),
            Size::Named(b, _) => match env.get(b) {
                Some(IVal::Leaf(se)) => Some(*se),
                Some(_) => None,
                None => {
                    // A top-level constant used as a size.
                    let d = self.typed.decl_bindings.get(b)?.clone();
                    let i = self.find_decl(&d, Span::default()).ok()?;
                    match self.decl_value(i, None, env, Span::default()).ok()? {
                        IVal::Leaf(se) => Some(se),
                        _ => None,
                    }
                }
            },
            Size::Op(op, a, b) => {
                let a = self.eval_size(a, env)?;
                let b = self.eval_size(b, env)?;
                let op = match op {
                    '+' => BinOp::Add,
                    '-' => BinOp::Sub,
                    '*' => BinOp::Mul,
                    '/' => BinOp::Div,
                    '%' => BinOp::Mod,
                    _ => return None,
                };
                Some(self.em.i64_bin(op, a, b))
            }
            Size::Var(_) | Size::Unknown => None,
        }
    }
}

/// Finds, for each size variable in `pending` that `declared` mentions as `Size::Named`, the
/// size at the same position in `inst`.
fn match_sizes(
    declared: &Ty,
    inst: &Ty,
    pending: &HashSet<BindingId>,
    out: &mut Vec<(BindingId, Size)>,
) {
    match (declared, inst) {
        (Ty::Array(d1, e1), Ty::Array(d2, e2)) => {
            for (a, b) in d1.iter().zip(d2) {
                if let Size::Named(id, _) = a
                    && pending.contains(id)
                {
                    out.push((*id, b.clone()));
                }
            }
            match_sizes(e1, e2, pending, out);
        }
        (Ty::Record(f1), Ty::Record(f2)) => {
            for (k, t) in f1 {
                if let Some(u) = f2.get(k) {
                    match_sizes(t, u, pending, out);
                }
            }
        }
        (Ty::Arrow(a1, r1), Ty::Arrow(a2, r2)) => {
            match_sizes(a1, a2, pending, out);
            match_sizes(r1, r2, pending, out);
        }
        _ => {}
    }
}
