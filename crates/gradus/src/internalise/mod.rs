//! Internalisation: typed AST -> core IR.
//!
//! Takes the declarations of the prelude and the program with the type checker's side tables
//! ([`TypedProgram`]) and produces a [`Prog`] with one core function per entry point.
//!
//! Guarantees on the output:
//! * **monomorphic and first-order**: every call is inlined at its call site with the actual
//!   argument values, so polymorphic functions are specialised and function values
//!   (lambdas, partial applications, sections, functions in tuples and records) are
//!   evaluated away; lambdas survive only as arguments of SOACs;
//! * **flat**: tuples and records become separate variables, arrays of tuples become tuples
//!   of arrays ([`value::IVal`]);
//! * **sized**: every array variable's type gives its dimensions as constants or `i64`
//!   variables in scope; sizes a branch or loop changes become explicit existential results;
//! * **checked**: slices, ranges, size coercions, `zip`, and `assert` emit the run-time checks
//!   of LANGUAGE.md 8.5, with the source location of the expression.
//!
//! It does not optimise (that is the optimiser's job) and it does not differentiate: `jvp`
//! and `vjp` become [`Exp::Ad`] statements (and `jmp`, `mjp` a `map` of them over the seeds)
//! that the AD pass ([`crate::ad::run`]) expands. Recursive functions (T2) are reported as
//! not supported: inlining cannot terminate for them.

pub mod emit;
pub mod intrinsics;
pub mod sizes;
pub mod value;

use crate::core::external::ExternalType;
use crate::core::ir::{
    AdMode, Aux, BasicOp, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, Prog, Soac, SubExp,
    Type, Var,
};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::diag::{Diagnostic, SourceMap, Span};
use crate::syntax::ast::{self, Dec, DecKind, ExpKind, Pat, PatKind, ValueDec};
use crate::types::ty::{BindingId, Size, Ty};
use crate::types::{EntrySig, Resolved, TypedProgram};
use crate::value::{PrimType, Scalar};
use emit::Emitter;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use value::{Callee, Env, FunVal, IVal};

type R<T> = Result<T, Diagnostic>;

/// How deep calls may nest while inlining before the program is taken to be recursive.
const MAX_INLINE_DEPTH: usize = 100;

/// A value declaration and the module path it lives in.
struct DeclInfo<'a> {
    dec: &'a ValueDec,
    module_path: Vec<String>,
    prelude: bool,
}

/// A lambda, local function, or index section, with the environment it captured.
enum ClosureDef<'a> {
    Lambda {
        params: &'a [Pat],
        body: &'a ast::Exp,
        env: Env,
    },
    IndexSection {
        indices: &'a [ast::DimIndex],
        env: Env,
        span: Span,
    },
}

/// Internalises a type-checked program. `prelude` and `program` are the declarations the
/// checker saw, in the same order.
pub fn internalise(
    prelude: &[Dec],
    program: &[Dec],
    typed: &TypedProgram,
    sources: &SourceMap,
) -> Result<Prog, Diagnostic> {
    let mut decls = Vec::new();
    for info in &typed.decls {
        let files = if info.location.in_prelude {
            prelude
        } else {
            program
        };
        let dec = dec_at(files, &info.location.path).ok_or_else(|| {
            Diagnostic::bug(format!(
                "declaration {} not found in the AST",
                info.decl.name
            ))
        })?;
        decls.push(DeclInfo {
            dec,
            module_path: info.decl.module_path.clone(),
            prelude: info.location.in_prelude,
        });
    }
    let mut ctx = Internaliser {
        typed,
        sources,
        em: Emitter::new(),
        decls,
        closures: Vec::new(),
        constants: HashMap::new(),
        depth: 0,
    };
    let mut funs = Vec::new();
    for sig in &typed.entries {
        funs.push(ctx.entry(sig)?);
    }
    let mut prog = Prog {
        names: ctx.em.names,
        funs,
    };
    sizes::hoist_result_sizes(&mut prog);
    Ok(prog)
}

/// The value declaration at a [`crate::types::DecPath`] path: indices down through module
/// bodies; `local` wrappers take no step.
fn dec_at<'a>(decs: &'a [Dec], path: &[usize]) -> Option<&'a ValueDec> {
    let (first, rest) = path.split_first()?;
    let mut d = decs.get(*first)?;
    while let DecKind::Local(inner) = &d.kind {
        d = inner;
    }
    match (&d.kind, rest.is_empty()) {
        (DecKind::Value(v), true) => Some(v),
        (DecKind::Module(m), false) => match &m.body.kind {
            ast::ModExpKind::Decs(inner) => dec_at(inner, rest),
            _ => None,
        },
        _ => None,
    }
}

struct Internaliser<'a> {
    typed: &'a TypedProgram,
    sources: &'a SourceMap,
    em: Emitter,
    decls: Vec<DeclInfo<'a>>,
    closures: Vec<ClosureDef<'a>>,
    constants: HashMap<usize, IVal>,
    depth: usize,
}

fn limitation(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::limitation(span, msg)
}

fn bug(span: Span, msg: impl Into<String>) -> Diagnostic {
    let mut d = Diagnostic::bug(msg);
    d.primary = Some((span, String::new()));
    d
}

fn i64c(n: i64) -> SubExp {
    SubExp::i64(n)
}

impl<'a> Internaliser<'a> {
    // ---------------------------------------------------------------- entry points

    fn entry(&mut self, sig: &'a EntrySig) -> R<FunDef> {
        self.constants.clear();
        self.em.open_body();
        let decl_index = self.decl_index_of(sig)?;
        let dec = self.decls[decl_index].dec;
        let span = dec.name_span;
        self.em.aux = Aux {
            span,
            ..Aux::default()
        };
        let mut size_params = Vec::new();
        let mut size_env: HashMap<BindingId, SubExp> = HashMap::new();
        let mut params = Vec::new();
        let mut ext_params = Vec::new();
        let mut args = Vec::new();
        for (k, pty) in sig.params.iter().enumerate() {
            let hint = dec
                .params
                .get(k)
                .and_then(pat_name)
                .unwrap_or_else(|| format!("arg{k}"));
            let mut vars = Vec::new();
            let val =
                self.fresh_value_of_type(pty, &hint, &mut size_params, &mut size_env, &mut vars)?;
            ext_params.push((external_type(pty), vars.clone()));
            params.extend(vars);
            args.push(val);
        }
        let f = self.decl_value(decl_index, None, &Rc::new(HashMap::new()), span)?;
        let result = if args.is_empty() {
            f
        } else {
            self.apply(f, args, span)?
        };
        if result.has_function() {
            return Err(limitation(
                span,
                format!("entry point `{}` returns a function", sig.name),
            ));
        }
        let leaves = result.leaves();
        let ret: Vec<Type> = leaves.iter().map(|l| self.em.ty(l)).collect();
        let mut ext_results = Vec::new();
        let comps = match &sig.ret {
            t if t.tuple_components().is_some() => t
                .tuple_components()
                .unwrap_or_default()
                .into_iter()
                .cloned()
                .collect(),
            Ty::Record(f) if f.is_empty() => Vec::new(),
            t => vec![t.clone()],
        };
        match &result {
            IVal::Record(fields) if comps.len() > 1 || (comps.is_empty() && fields.is_empty()) => {
                for (c, key) in comps.iter().zip(value::ordered_keys(fields)) {
                    ext_results.push((external_type(c), fields[key].leaves().len()));
                }
            }
            _ => {
                if let Some(c) = comps.first() {
                    ext_results.push((external_type(c), leaves.len()));
                }
            }
        }
        let body = self.em.close_body(leaves);
        Ok(FunDef {
            name: format!("entry_{}", sig.name),
            size_params,
            params,
            body,
            ret,
            entry: Some(EntryInfo {
                name: sig.name.clone(),
                params: ext_params,
                results: ext_results,
            }),
            span,
        })
    }

    /// Fresh parameters for a value of type `ty`: arrays get their sizes from size
    /// parameters (one per named size, bound once) or constants.
    fn fresh_value_of_type(
        &mut self,
        ty: &Ty,
        hint: &str,
        size_params: &mut Vec<Var>,
        size_env: &mut HashMap<BindingId, SubExp>,
        vars: &mut Vec<Var>,
    ) -> R<IVal> {
        match ty {
            Ty::Prim(t) => {
                let v = self.em.names.fresh(hint, Type::Prim(*t));
                vars.push(v);
                Ok(IVal::Leaf(SubExp::Var(v)))
            }
            Ty::Array(dims, elem) => {
                let mut core_dims = Vec::new();
                for d in dims {
                    let se = match d {
                        Size::Const(c) => i64c(*c),
                        Size::Named(b, name) => match size_env.get(b) {
                            Some(se) => *se,
                            None => {
                                let v = self.em.names.fresh(name, Type::Prim(PrimType::I64));
                                size_params.push(v);
                                size_env.insert(*b, SubExp::Var(v));
                                SubExp::Var(v)
                            }
                        },
                        _ => {
                            let v = self.em.names.fresh("d", Type::Prim(PrimType::I64));
                            size_params.push(v);
                            SubExp::Var(v)
                        }
                    };
                    core_dims.push(se);
                }
                self.fresh_array_leaves(elem, &core_dims, hint, vars)
            }
            Ty::Record(fields) => {
                let mut out = BTreeMap::new();
                for k in value::ordered_keys(fields) {
                    let v = self.fresh_value_of_type(
                        &fields[k],
                        &format!("{hint}_{k}"),
                        size_params,
                        size_env,
                        vars,
                    )?;
                    out.insert(k.clone(), v);
                }
                Ok(IVal::Record(out))
            }
            _ => Err(limitation(
                Span::default(),
                format!("entry-point parameter of type {ty}"),
            )),
        }
    }

    fn fresh_array_leaves(
        &mut self,
        elem: &Ty,
        dims: &[SubExp],
        hint: &str,
        vars: &mut Vec<Var>,
    ) -> R<IVal> {
        match elem {
            Ty::Prim(t) => {
                let v = self.em.names.fresh(hint, Type::array(*t, dims.to_vec()));
                vars.push(v);
                Ok(IVal::Leaf(SubExp::Var(v)))
            }
            Ty::Array(inner, e) => {
                let mut all = dims.to_vec();
                for d in inner {
                    all.push(match d {
                        Size::Const(c) => i64c(*c),
                        _ => {
                            return Err(limitation(
                                Span::default(),
                                "entry-point arrays with unknown inner sizes",
                            ));
                        }
                    });
                }
                self.fresh_array_leaves(e, &all, hint, vars)
            }
            Ty::Record(fields) => {
                let mut out = BTreeMap::new();
                for k in value::ordered_keys(fields) {
                    let v =
                        self.fresh_array_leaves(&fields[k], dims, &format!("{hint}_{k}"), vars)?;
                    out.insert(k.clone(), v);
                }
                Ok(IVal::Record(out))
            }
            other => Err(limitation(
                Span::default(),
                format!("entry-point parameter with elements of type {other}"),
            )),
        }
    }

    fn decl_index_of(&self, sig: &EntrySig) -> R<usize> {
        self.find_decl(&sig.decl, Span::default())
    }

    // ---------------------------------------------------------------- declarations

    /// The value of a reference to declaration `i`: a function value, or the evaluated
    /// constant.
    fn decl_value(&mut self, i: usize, ty: Option<&Ty>, env: &Env, span: Span) -> R<IVal> {
        self.decl_value_at(i, ty, env, span, None)
    }

    /// As [`Self::decl_value`], remembering the referencing node (whose instantiation gives
    /// the sizes of size parameters that occur only in the result type).
    fn decl_value_at(
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
        if dec.params.is_empty() {
            if let Some(v) = self.constants.get(&i) {
                return Ok(v.clone());
            }
            let saved = self.em.at(dec.body.span);
            let v = self.exp(&dec.body, &Rc::new(HashMap::new()));
            self.em.at(saved);
            let v = v?;
            self.constants.insert(i, v.clone());
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

    fn arity(&self, callee: &Callee) -> usize {
        callee.arity(|i| match callee {
            Callee::Decl(_) => self.decls[i].dec.params.len(),
            _ => match &self.closures[i] {
                ClosureDef::Lambda { params, .. } => params.len(),
                ClosureDef::IndexSection { .. } => 1,
            },
        })
    }

    // ---------------------------------------------------------------- application

    fn apply(&mut self, f: IVal, args: Vec<IVal>, span: Span) -> R<IVal> {
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

    fn call(&mut self, fv: &FunVal, args: Vec<IVal>, span: Span) -> R<IVal> {
        match &fv.callee {
            Callee::Decl(i) => {
                let dec = self.decls[*i].dec;
                let saved_callers = self.em.aux.callers.clone();
                self.em.aux.callers.insert(0, span);
                let r = self.call_def(&dec.params, &dec.body, Rc::new(HashMap::new()), args, fv);
                self.em.aux.callers = saved_callers;
                r
            }
            Callee::Closure(i) => match &self.closures[*i] {
                ClosureDef::Lambda { params, body, env } => {
                    let (params, body, env) = (*params, *body, env.clone());
                    self.call_def(params, body, env, args, fv)
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
        // was instantiated at (LANGUAGE.md 7.3 rule 1).
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

    /// Binds size parameters in `pending` from the dimensions of the value `v` of type `ty`.
    fn bind_sizes(&mut self, ty: &Ty, v: &IVal, pending: &HashSet<BindingId>, env: &mut Env) {
        match (ty, v) {
            (Ty::Array(dims, elem), _) => {
                let Some(first) = v.leaves().first().copied() else {
                    return;
                };
                let core_dims = self.em.dims(&first);
                for (d, cd) in dims.iter().zip(&core_dims) {
                    if let Size::Named(b, _) = d
                        && pending.contains(b)
                        && !env.contains_key(b)
                    {
                        Rc::make_mut(env).insert(*b, IVal::Leaf(*cd));
                    }
                }
                // Inner dimensions of an array of arrays.
                if let Ty::Array(..) = **elem {
                    // Covered by `dims` already: the checker keeps dims flat.
                }
            }
            (Ty::Record(fields), IVal::Record(vals)) => {
                for (k, t) in fields {
                    if let Some(v) = vals.get(k) {
                        self.bind_sizes(t, v, pending, env);
                    }
                }
            }
            _ => {}
        }
    }

    /// Binds the sizes of `let [n] (p: [n]t) = e` from the dimensions of the value at the
    /// positions where the pattern's type ascriptions name them.
    fn bind_let_sizes(&mut self, p: &Pat, v: &IVal, env: &mut Env) {
        match &p.kind {
            PatKind::Ascribe { pat, ty } => {
                if let Some(first) = v.leaves().first() {
                    let dims = self.em.dims(first);
                    let mut t = ty;
                    let mut k = 0;
                    loop {
                        match &t.kind {
                            ast::TypeExpKind::Array { size, elem, .. } => {
                                if let ast::SizeExp::Exp(se) = size
                                    && let ExpKind::Var(_) = &se.kind
                                    && let Some(Resolved::Local(b)) =
                                        self.typed.resolved.get(&se.id)
                                    && let Some(d) = dims.get(k)
                                    && !env.contains_key(b)
                                {
                                    Rc::make_mut(env).insert(*b, IVal::Leaf(*d));
                                }
                                k += 1;
                                t = elem;
                            }
                            ast::TypeExpKind::Unique(inner) => t = inner,
                            _ => break,
                        }
                    }
                }
                self.bind_let_sizes(pat, v, env);
            }
            PatKind::Attr { pat, .. } => self.bind_let_sizes(pat, v, env),
            PatKind::Tuple(ps) if ps.len() > 1 => {
                for (i, sub) in ps.iter().enumerate() {
                    if let Ok(f) = project(v, &i.to_string(), p.span) {
                        self.bind_let_sizes(sub, &f, env);
                    }
                }
            }
            PatKind::Tuple(ps) if ps.len() == 1 => self.bind_let_sizes(&ps[0], v, env),
            PatKind::Record(fps) => {
                for fp in fps {
                    if let Ok(f) = project(v, &fp.name, fp.name_span) {
                        self.bind_let_sizes(&fp.pat, &f, env);
                    }
                }
            }
            _ => {}
        }
    }

    fn eval_size(&mut self, s: &Size, env: &Env) -> Option<SubExp> {
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
                    _ => return None,
                };
                Some(self.em.i64_op(op, a, b))
            }
            Size::Var(_) | Size::Unknown => None,
        }
    }

    // ---------------------------------------------------------------- patterns

    fn bind_pat(&mut self, p: &Pat, v: IVal, env: &mut Env) -> R<()> {
        match &p.kind {
            PatKind::Name(_) => {
                Rc::make_mut(env).insert(BindingId(p.id.0), v);
                Ok(())
            }
            PatKind::Wildcard => Ok(()),
            PatKind::Tuple(ps) => {
                if ps.is_empty() {
                    return Ok(());
                }
                if ps.len() == 1 {
                    return self.bind_pat(&ps[0], v, env);
                }
                for (i, sub) in ps.iter().enumerate() {
                    let f = project(&v, &i.to_string(), p.span)?;
                    self.bind_pat(sub, f, env)?;
                }
                Ok(())
            }
            PatKind::Record(fps) => {
                for fp in fps {
                    let f = project(&v, &fp.name, fp.name_span)?;
                    self.bind_pat(&fp.pat, f, env)?;
                }
                Ok(())
            }
            PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => self.bind_pat(pat, v, env),
            PatKind::Constructor { .. } | PatKind::Literal(_) => Err(limitation(
                p.span,
                "constructor and literal patterns (sum types)",
            )),
        }
    }

    // ---------------------------------------------------------------- expressions

    fn exp_type(&self, e: &ast::Exp) -> Option<&'a Ty> {
        self.typed.exp_types.get(&e.id)
    }

    fn prim_type_of(&self, e: &ast::Exp, default: PrimType) -> PrimType {
        match self.exp_type(e) {
            Some(Ty::Prim(t)) => *t,
            _ => default,
        }
    }

    fn leaf(&self, v: &IVal, span: Span) -> R<SubExp> {
        match v {
            IVal::Leaf(se) => Ok(*se),
            _ => Err(bug(span, "expected a primitive or array value")),
        }
    }

    fn exp(&mut self, e: &'a ast::Exp, env: &Env) -> R<IVal> {
        let saved = self.em.at(e.span);
        let r = self.exp_inner(e, env);
        self.em.at(saved);
        r
    }

    fn exp_inner(&mut self, e: &'a ast::Exp, env: &Env) -> R<IVal> {
        match &e.kind {
            ExpKind::Int(lit) => {
                let t = self.prim_type_of(e, PrimType::I32);
                Ok(IVal::Leaf(SubExp::Const(int_literal(t, lit.value))))
            }
            ExpKind::Float(lit) => {
                let t = self.prim_type_of(e, PrimType::F64);
                Ok(IVal::Leaf(SubExp::Const(Scalar::from_f64(t, lit.value))))
            }
            ExpKind::Bool(b) => Ok(IVal::Leaf(SubExp::Const(Scalar::Bool(*b)))),
            ExpKind::Char(_) | ExpKind::String(_) => {
                Err(limitation(e.span, "character and string literals"))
            }
            ExpKind::Var(qn) => self.var(e, qn, env),
            ExpKind::Parens(x) => self.exp(x, env),
            ExpKind::Tuple(xs) => {
                let vals = xs.iter().map(|x| self.exp(x, env)).collect::<R<Vec<_>>>()?;
                Ok(IVal::tuple(vals))
            }
            ExpKind::Record(fields) => {
                let mut out = BTreeMap::new();
                for f in fields {
                    let v = self.exp(&f.value, env)?;
                    out.insert(f.name.clone(), v);
                }
                Ok(IVal::Record(out))
            }
            ExpKind::Array(xs) => self.array_literal(e, xs, env),
            ExpKind::Project { target, field, .. } => {
                let v = self.exp(target, env)?;
                project(&v, field, e.span)
            }
            ExpKind::Index { target, indices } => {
                let v = self.exp(target, env)?;
                self.index_value(&v, indices, env, e.span)
            }
            ExpKind::Apply { func, args } => {
                let f = self.exp(func, env)?;
                let args = args
                    .iter()
                    .map(|a| self.exp(a, env))
                    .collect::<R<Vec<_>>>()?;
                self.apply(f, args, e.span)
            }
            ExpKind::BinOp { op, lhs, rhs, .. } => self.binop(e, op, lhs, rhs, env),
            ExpKind::Neg(x) => {
                let v = self.exp(x, env)?;
                let se = self.leaf(&v, e.span)?;
                let t = self.em.ty(&se).elem();
                Ok(IVal::Leaf(self.em.prim(PrimOp::Un(UnOp::Neg, t), vec![se])))
            }
            ExpKind::Not(x) => {
                let v = self.exp(x, env)?;
                let se = self.leaf(&v, e.span)?;
                let t = self.em.ty(&se).elem();
                Ok(IVal::Leaf(self.em.prim(PrimOp::Un(UnOp::Not, t), vec![se])))
            }
            ExpKind::OpSection { op, .. } => self.operator_value(e, op, env),
            ExpKind::LeftSection { op, left, .. } => {
                let f = self.operator_value(e, op, env)?;
                let l = self.exp(left, env)?;
                self.apply(f, vec![l], e.span)
            }
            ExpKind::RightSection { op, right, .. } => {
                let f = self.operator_value(e, op, env)?;
                let r = self.exp(right, env)?;
                let IVal::Fun(fv) = f else {
                    return Err(bug(e.span, "operator section of a non-function"));
                };
                Ok(IVal::Fun(Rc::new(FunVal {
                    callee: Callee::RightSection(fv, Box::new(r)),
                    args: Vec::new(),
                    ty: None,
                    env: env.clone(),
                    node: None,
                })))
            }
            ExpKind::ProjectSection { fields } => Ok(IVal::Fun(Rc::new(FunVal {
                callee: Callee::Project(fields.iter().map(|(f, _)| f.clone()).collect()),
                args: Vec::new(),
                ty: None,
                env: env.clone(),
                node: None,
            }))),
            ExpKind::IndexSection { indices } => {
                self.closures.push(ClosureDef::IndexSection {
                    indices,
                    env: env.clone(),
                    span: e.span,
                });
                Ok(self.closure_value(self.closures.len() - 1, e, env))
            }
            ExpKind::Lambda { params, body, .. } => {
                self.closures.push(ClosureDef::Lambda {
                    params,
                    body,
                    env: env.clone(),
                });
                Ok(self.closure_value(self.closures.len() - 1, e, env))
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                let v = self.exp(value, env)?;
                let mut env2 = env.clone();
                if !sizes.is_empty() {
                    self.bind_let_sizes(pat, &v, &mut env2);
                }
                self.bind_pat(pat, v, &mut env2)?;
                self.exp(body, &env2)
            }
            ExpKind::LetFun {
                params,
                value,
                body,
                ..
            } => {
                self.closures.push(ClosureDef::Lambda {
                    params,
                    body: value,
                    env: env.clone(),
                });
                let f = IVal::Fun(Rc::new(FunVal {
                    callee: Callee::Closure(self.closures.len() - 1),
                    args: Vec::new(),
                    ty: None,
                    env: env.clone(),
                    node: None,
                }));
                let binding = self
                    .typed
                    .local_functions
                    .get(&e.id)
                    .map_or(BindingId(e.id.0), |info| info.binding);
                let mut env2 = env.clone();
                Rc::make_mut(&mut env2).insert(binding, f);
                self.exp(body, &env2)
            }
            ExpKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.exp(cond, env)?;
                let c = self.leaf(&c, cond.span)?;
                self.if_then_else(
                    c,
                    e.span,
                    |s| s.exp(then_branch, env),
                    |s| s.exp(else_branch, env),
                )
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_exp(e, pat, init.as_deref(), form, body, env),
            ExpKind::Update {
                target,
                indices,
                value,
            } => {
                let t = self.exp(target, env)?;
                let v = self.exp(value, env)?;
                self.update_value(&t, indices, &v, env, e.span)
            }
            ExpKind::RecordUpdate {
                target,
                fields,
                value,
            } => {
                let t = self.exp(target, env)?;
                let v = self.exp(value, env)?;
                let path: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).collect();
                record_update(t, &path, v, e.span)
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => self.range(start, second.as_deref(), end, *kind, env),
            ExpKind::Ascribe { exp, .. } | ExpKind::Coerce { exp, .. } => {
                let v = self.exp(exp, env)?;
                match self.exp_type(e) {
                    Some(t) => self.coerce(v, t, env),
                    None => Ok(v),
                }
            }
            ExpKind::LocalOpen { body, .. } => self.exp(body, env),
            ExpKind::Attr { attr, exp } => {
                let name = attr_text(attr);
                self.em.aux.attrs.push(name);
                let r = self.exp(exp, env);
                self.em.aux.attrs.pop();
                r
            }
            ExpKind::Assert { cond, body } => {
                let c = self.exp(cond, env)?;
                let c = self.leaf(&c, cond.span)?;
                let text = strip_parens(self.sources.snippet(cond.span)).to_string();
                self.assert(
                    c,
                    format!("Assertion is false: {}", escape_braces(&text)),
                    vec![],
                );
                self.exp(body, env)
            }
            ExpKind::Match { .. } | ExpKind::Constructor { .. } => {
                Err(limitation(e.span, "sum types and `match`"))
            }
            ExpKind::Hole => Err(limitation(e.span, "typed holes `???`")),
        }
    }

    fn closure_value(&self, i: usize, e: &ast::Exp, env: &Env) -> IVal {
        IVal::Fun(Rc::new(FunVal {
            callee: Callee::Closure(i),
            args: Vec::new(),
            ty: self.exp_type(e).cloned(),
            env: env.clone(),
            node: None,
        }))
    }

    fn var(&mut self, e: &'a ast::Exp, qn: &ast::QualName, env: &Env) -> R<IVal> {
        match self.typed.resolved.get(&e.id) {
            Some(Resolved::Local(b)) => {
                let mut v = env
                    .get(b)
                    .cloned()
                    .ok_or_else(|| bug(e.span, format!("unbound variable {qn}")))?;
                // A dotted name `r.f.g` whose head is a local variable: field accesses.
                if !qn.qualifiers.is_empty() {
                    for f in qn.qualifiers[1..].iter().chain(std::iter::once(&qn.name)) {
                        v = project(&v, f, e.span)?;
                    }
                }
                Ok(v)
            }
            Some(Resolved::Decl(d)) => {
                let i = self.find_decl(d, e.span)?;
                self.decl_value_at(i, self.exp_type(e), env, e.span, Some(e.id))
            }
            Some(Resolved::Builtin { op, .. }) => Ok(IVal::Fun(Rc::new(FunVal {
                callee: Callee::Builtin(op.clone(), 2),
                args: Vec::new(),
                ty: None,
                env: env.clone(),
                node: None,
            }))),
            Some(Resolved::Project { base, fields, .. }) => {
                let mut v = match &**base {
                    Resolved::Local(b) => env
                        .get(b)
                        .cloned()
                        .ok_or_else(|| bug(e.span, format!("unbound variable {qn}")))?,
                    Resolved::Decl(d) => {
                        let i = self.find_decl(d, e.span)?;
                        self.decl_value(i, None, env, e.span)?
                    }
                    _ => return Err(bug(e.span, format!("projection from {qn}"))),
                };
                for f in fields {
                    v = project(&v, f, e.span)?;
                }
                Ok(v)
            }
            None => Err(bug(e.span, format!("name {qn} was not resolved"))),
        }
    }

    fn find_decl(&self, d: &crate::types::DeclRef, span: Span) -> R<usize> {
        if d.index < self.decls.len() {
            Ok(d.index)
        } else {
            Err(bug(span, format!("declaration {} not found", d.name)))
        }
    }

    /// The function value an operator (in a binary operation or a section) refers to.
    fn operator_value(&mut self, e: &'a ast::Exp, op: &ast::QualName, env: &Env) -> R<IVal> {
        match self.typed.resolved.get(&e.id) {
            Some(Resolved::Decl(d)) => {
                let i = self.find_decl(d, e.span)?;
                let ty = self.typed.op_types.get(&e.id).or(self.exp_type(e));
                self.decl_value_at(i, ty, env, e.span, Some(e.id))
            }
            Some(Resolved::Builtin { op, .. }) => Ok(IVal::Fun(Rc::new(FunVal {
                callee: Callee::Builtin(op.clone(), 2),
                args: Vec::new(),
                ty: None,
                env: env.clone(),
                node: None,
            }))),
            Some(Resolved::Project { .. }) => Err(bug(e.span, format!("operator {op} is a field"))),
            Some(Resolved::Local(b)) => env
                .get(b)
                .cloned()
                .ok_or_else(|| bug(e.span, format!("unbound operator {op}"))),
            None => Err(bug(e.span, format!("operator {op} was not resolved"))),
        }
    }

    fn binop(
        &mut self,
        e: &'a ast::Exp,
        op: &ast::QualName,
        lhs: &'a ast::Exp,
        rhs: &'a ast::Exp,
        env: &Env,
    ) -> R<IVal> {
        let builtin = matches!(
            self.typed.resolved.get(&e.id),
            Some(Resolved::Builtin { .. })
        );
        let prelude_decl = match self.typed.resolved.get(&e.id) {
            Some(Resolved::Decl(d)) => self
                .find_decl(d, e.span)
                .map(|i| self.decls[i].prelude && self.decls[i].module_path.is_empty())
                .unwrap_or(false),
            _ => false,
        };
        if op.is_unqualified() && prelude_decl && (op.name == "|>" || op.name == "<|") {
            // Pipes are application; applying directly keeps the instantiated type of the
            // function for intrinsics such as `unflatten`.
            let (f, x) = if op.name == "|>" {
                (rhs, lhs)
            } else {
                (lhs, rhs)
            };
            let xv = self.exp(x, env)?;
            let fv = self.exp(f, env)?;
            return self.apply(fv, vec![xv], e.span);
        }
        if builtin && op.is_unqualified() && (op.name == "&&" || op.name == "||") {
            let l = self.exp(lhs, env)?;
            let l = self.leaf(&l, lhs.span)?;
            let and = op.name == "&&";
            return self.if_then_else(
                l,
                e.span,
                |s| {
                    if and {
                        s.exp(rhs, env)
                    } else {
                        Ok(IVal::Leaf(SubExp::Const(Scalar::Bool(true))))
                    }
                },
                |s| {
                    if and {
                        Ok(IVal::Leaf(SubExp::Const(Scalar::Bool(false))))
                    } else {
                        s.exp(rhs, env)
                    }
                },
            );
        }
        let f = self.operator_value(e, op, env)?;
        let l = self.exp(lhs, env)?;
        let r = self.exp(rhs, env)?;
        self.apply(f, vec![l, r], e.span)
    }

    // ---------------------------------------------------------------- built-in operators

    fn builtin(&mut self, op: &str, args: Vec<IVal>, span: Span) -> R<IVal> {
        let mut it = args.into_iter();
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return Err(bug(span, format!("operator {op} needs two operands")));
        };
        if op == "==" || op == "!=" {
            let eq = self.equal(&a, &b, span)?;
            return Ok(IVal::Leaf(if op == "==" {
                eq
            } else {
                self.em
                    .prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![eq])
            }));
        }
        let a = self.leaf(&a, span)?;
        let b = self.leaf(&b, span)?;
        let t = self.em.ty(&a).elem();
        let pop = intrinsics::builtin_op(t, op)
            .ok_or_else(|| bug(span, format!("no operator {op} at type {t}")))?;
        Ok(IVal::Leaf(self.em.prim(pop, vec![a, b])))
    }

    /// Structural equality (arrays: same shape and elements; records: all fields).
    fn equal(&mut self, a: &IVal, b: &IVal, span: Span) -> R<SubExp> {
        let la = a.leaves();
        let lb = b.leaves();
        let mut acc = SubExp::Const(Scalar::Bool(true));
        for (x, y) in la.iter().zip(&lb) {
            let eq = self.equal_leaf(*x, *y, span)?;
            acc = if acc == SubExp::Const(Scalar::Bool(true)) {
                eq
            } else {
                self.em
                    .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![acc, eq])
            };
        }
        Ok(acc)
    }

    fn equal_leaf(&mut self, x: SubExp, y: SubExp, span: Span) -> R<SubExp> {
        let tx = self.em.ty(&x);
        let ty = self.em.ty(&y);
        let t = tx.elem();
        if tx.rank() == 0 {
            return Ok(self.em.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, y]));
        }
        if tx.rank() != ty.rank() {
            return Ok(SubExp::Const(Scalar::Bool(false)));
        }
        let mut same_shape = SubExp::Const(Scalar::Bool(true));
        for (dx, dy) in tx.dims().iter().zip(ty.dims()) {
            if dx == dy {
                continue;
            }
            let e = self
                .em
                .prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![*dx, *dy]);
            same_shape = self
                .em
                .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![same_shape, e]);
        }
        let xv = self.em.as_var(x);
        let yv = self.em.as_var(y);
        self.if_then_else(
            same_shape,
            span,
            |s| {
                let mut n = i64c(1);
                for d in tx.dims() {
                    n = s.em.i64_op(BinOp::Mul, n, *d);
                }
                let fx = s.em.basic(
                    "flat",
                    Type::array(t, vec![n]),
                    BasicOp::Reshape {
                        array: xv,
                        shape: vec![n],
                    },
                );
                let fy = s.em.basic(
                    "flat",
                    Type::array(t, vec![n]),
                    BasicOp::Reshape {
                        array: yv,
                        shape: vec![n],
                    },
                );
                let lam = s.em.lambda(
                    vec![Type::Prim(t), Type::Prim(t)],
                    "elem",
                    |em, p| -> R<Vec<SubExp>> {
                        Ok(vec![em.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![p[0], p[1]])])
                    },
                )?;
                let arrays = vec![s.em.as_var(fx), s.em.as_var(fy)];
                let eqs = s.em.soac(
                    "eqs",
                    vec![Type::array(PrimType::Bool, vec![n])],
                    Soac::Map { w: n, lam, arrays },
                );
                let and = s.em.lambda(
                    vec![Type::Prim(PrimType::Bool), Type::Prim(PrimType::Bool)],
                    "b",
                    |em, p| -> R<Vec<SubExp>> {
                        Ok(vec![em.prim(
                            PrimOp::Bin(BinOp::And, PrimType::Bool),
                            vec![p[0], p[1]],
                        )])
                    },
                )?;
                let arrays = vec![s.em.as_var(eqs[0])];
                let r = s.em.soac(
                    "all_eq",
                    vec![Type::Prim(PrimType::Bool)],
                    Soac::Reduce {
                        w: n,
                        lam: and,
                        neutral: vec![SubExp::Const(Scalar::Bool(true))],
                        arrays,
                        commutative: true,
                    },
                );
                Ok(IVal::Leaf(r[0]))
            },
            |_| Ok(IVal::Leaf(SubExp::Const(Scalar::Bool(false)))),
        )
        .and_then(|v| self.leaf(&v, span))
    }

    // ---------------------------------------------------------------- control flow

    /// Emits an `if` whose branches `then_f` and `else_f` build; array sizes that differ
    /// between the branches (or are bound inside them) become existential results.
    fn if_then_else(
        &mut self,
        cond: SubExp,
        span: Span,
        then_f: impl FnOnce(&mut Self) -> R<IVal>,
        else_f: impl FnOnce(&mut Self) -> R<IVal>,
    ) -> R<IVal> {
        if let SubExp::Const(Scalar::Bool(c)) = cond {
            return if c { then_f(self) } else { else_f(self) };
        }
        self.em.open_body();
        let tv = match then_f(self) {
            Ok(v) => v,
            Err(e) => {
                self.em.close_body(vec![]);
                return Err(e);
            }
        };
        let tl = tv.leaves();
        let mut then_body = self.em.close_body(tl.clone());
        self.em.open_body();
        let ev = match else_f(self) {
            Ok(v) => v,
            Err(e) => {
                self.em.close_body(vec![]);
                return Err(e);
            }
        };
        let el = ev.leaves();
        let mut else_body = self.em.close_body(el.clone());
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
                    let v = self.em.names.fresh("d", Type::Prim(PrimType::I64));
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
            let v = self.em.names.fresh(hint, t.clone());
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

    fn loop_exp(
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
                        let v = self.em.names.fresh("loop_d", Type::Prim(PrimType::I64));
                        size_params.push((v, *d));
                        size_of.insert((k, j), v);
                        *d = SubExp::Var(v);
                    }
                }
                let hint = pat_name(pat).unwrap_or_else(|| "loop_p".into());
                let v = self.em.names.fresh(&hint, Type::array(t.elem(), dims));
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
                Form::While(_) => {
                    Some(self.em.names.fresh("loop_cond", Type::Prim(PrimType::Bool)))
                }
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
                            .names
                            .fresh(&pat_name(var).unwrap_or("i".into()), Type::Prim(t));
                        self.bind_pat(var, IVal::Leaf(SubExp::Var(i)), &mut env2)?;
                        LoopForm::For { i, bound: *bound }
                    }
                    Form::ForIn(arr, n, p) => {
                        let i = self.em.names.fresh("i", Type::Prim(PrimType::I64));
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
                let nv = self.em.names.fresh("loop_d", Type::Prim(PrimType::I64));
                subst.insert(*v, nv);
                pat_vars.push(nv);
            }
            if cond_param.is_some() {
                pat_vars.push(self.em.names.fresh("loop_cond", Type::Prim(PrimType::Bool)));
            }
            let mut results = Vec::new();
            for (p, _) in &params {
                let t = substitute(self.em.names.ty(*p), &subst);
                let nv = self
                    .em
                    .names
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

    // ---------------------------------------------------------------- arrays

    fn array_literal(&mut self, e: &'a ast::Exp, xs: &'a [ast::Exp], env: &Env) -> R<IVal> {
        let vals = xs.iter().map(|x| self.exp(x, env)).collect::<R<Vec<_>>>()?;
        let n = i64c(vals.len() as i64);
        let Some(first) = vals.first() else {
            // An empty array: its element structure comes from the type.
            let ty = self.exp_type(e).cloned().unwrap_or(Ty::Array(
                vec![Size::Const(0)],
                Box::new(Ty::Prim(PrimType::I32)),
            ));
            return self.empty_array(&ty, env, e.span);
        };
        let per_leaf: Vec<Vec<SubExp>> = vals.iter().map(IVal::leaves).collect();
        let mut out = Vec::new();
        for j in 0..per_leaf[0].len() {
            let row = self.em.ty(&per_leaf[0][j]);
            let elems: Vec<SubExp> = per_leaf.iter().map(|l| l[j]).collect();
            let t = row.array_of(n);
            out.push(self.em.basic("arr", t, BasicOp::ArrayLit { elems, row }));
        }
        Ok(first.rebuild(&mut out.into_iter()))
    }

    fn empty_array(&mut self, ty: &Ty, env: &Env, span: Span) -> R<IVal> {
        match ty {
            Ty::Array(dims, elem) => {
                let mut core = Vec::new();
                for (k, d) in dims.iter().enumerate() {
                    core.push(if k == 0 {
                        i64c(0)
                    } else {
                        self.eval_size(d, env).unwrap_or(i64c(0))
                    });
                }
                self.scratch_of(elem, &core, span)
            }
            _ => Err(bug(span, "empty array literal of non-array type")),
        }
    }

    fn scratch_of(&mut self, elem: &Ty, dims: &[SubExp], span: Span) -> R<IVal> {
        match elem {
            Ty::Prim(t) => Ok(IVal::Leaf(self.em.basic(
                "empty",
                Type::array(*t, dims.to_vec()),
                BasicOp::Scratch {
                    elem: *t,
                    shape: dims.to_vec(),
                },
            ))),
            Ty::Record(fields) => {
                let mut out = BTreeMap::new();
                for (k, t) in fields {
                    out.insert(k.clone(), self.scratch_of(t, dims, span)?);
                }
                Ok(IVal::Record(out))
            }
            Ty::Array(inner, e) => {
                let mut all = dims.to_vec();
                all.extend(inner.iter().map(|d| match d {
                    Size::Const(c) => i64c(*c),
                    _ => i64c(0),
                }));
                self.scratch_of(e, &all, span)
            }
            _ => Err(limitation(span, "empty arrays of this element type")),
        }
    }

    /// Computes a core slice for source indices over an array whose leading dimensions are
    /// `dims`, emitting the bounds checks of slices.
    fn slice_of(
        &mut self,
        dims: &[SubExp],
        indices: &'a [ast::DimIndex],
        env: &Env,
        span: Span,
    ) -> R<Vec<DimIndex>> {
        let mut out = Vec::new();
        let mut msg_parts = Vec::new();
        let mut msg_args = Vec::new();
        let mut ok = SubExp::Const(Scalar::Bool(true));
        let mut has_slice = false;
        for (k, ix) in indices.iter().enumerate() {
            let n = dims.get(k).copied().unwrap_or(i64c(0));
            match ix {
                ast::DimIndex::Fix(x) => {
                    let v = self.exp(x, env)?;
                    let i = self.leaf(&v, x.span)?;
                    out.push(DimIndex::Fix(i));
                    msg_parts.push("{}".to_string());
                    msg_args.push(i);
                }
                ast::DimIndex::Slice { start, end, stride } => {
                    has_slice = true;
                    let eval = |s: &mut Self, x: &'a Option<ast::Exp>| -> R<Option<SubExp>> {
                        match x {
                            Some(x) => {
                                let v = s.exp(x, env)?;
                                Ok(Some(s.leaf(&v, x.span)?))
                            }
                            None => Ok(None),
                        }
                    };
                    let i = eval(self, start)?;
                    let j = eval(self, end)?;
                    let s = eval(self, stride)?;
                    let mut part = String::new();
                    if let Some(i) = i {
                        part.push_str("{}");
                        msg_args.push(i);
                    }
                    part.push(':');
                    if let Some(j) = j {
                        part.push_str("{}");
                        msg_args.push(j);
                    }
                    if let Some(s) = s {
                        part.push_str(":{}");
                        msg_args.push(s);
                    }
                    msg_parts.push(part);
                    let (d, valid) = self.slice_dim(n, i, j, s);
                    out.push(d);
                    ok = if ok == SubExp::Const(Scalar::Bool(true)) {
                        valid
                    } else {
                        self.em
                            .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![ok, valid])
                    };
                }
            }
        }
        if has_slice {
            let mut msg = format!(
                "Index [{}] out of bounds for array of shape ",
                msg_parts.join(", ")
            );
            for d in dims {
                msg.push_str("[{}]");
                msg_args.push(*d);
            }
            msg.push('.');
            let _ = span;
            self.assert(ok, msg, msg_args);
        }
        Ok(out)
    }

    /// One slice dimension `i:j:s` over size `n`: the core slice and its validity
    /// (LANGUAGE.md 5.5).
    fn slice_dim(
        &mut self,
        n: SubExp,
        i: Option<SubExp>,
        j: Option<SubExp>,
        s: Option<SubExp>,
    ) -> (DimIndex, SubExp) {
        use BinOp::*;
        let i64t = PrimType::I64;
        let cmp = |em: &mut Emitter, op: CmpOp, a: SubExp, b: SubExp| {
            em.prim(PrimOp::Cmp(op, i64t), vec![a, b])
        };
        let and = |em: &mut Emitter, a: SubExp, b: SubExp| {
            em.prim(PrimOp::Bin(And, PrimType::Bool), vec![a, b])
        };
        let stride = s.unwrap_or(i64c(1));
        let positive = match stride {
            SubExp::Const(Scalar::I64(v)) => Some(v > 0),
            _ => None,
        };
        if positive == Some(true) {
            let start = i.unwrap_or(i64c(0));
            let end = j.unwrap_or(n);
            let diff = self.em.i64_op(Sub, end, start);
            let count = if stride == i64c(1) {
                diff
            } else {
                let t = self.em.i64_op(Add, diff, stride);
                let t = self.em.i64_op(Sub, t, i64c(1));
                self.em.prim(PrimOp::Bin(Div, i64t), vec![t, stride])
            };
            let c1 = cmp(&mut self.em, CmpOp::Le, i64c(0), start);
            let c2 = cmp(&mut self.em, CmpOp::Le, start, end);
            let c3 = cmp(&mut self.em, CmpOp::Le, end, n);
            let a = and(&mut self.em, c1, c2);
            let valid = and(&mut self.em, a, c3);
            let empty = cmp(&mut self.em, CmpOp::Eq, start, end);
            let valid = self
                .em
                .prim(PrimOp::Bin(Or, PrimType::Bool), vec![valid, empty]);
            return (
                DimIndex::Slice {
                    start,
                    count,
                    stride,
                },
                valid,
            );
        }
        // General stride: defaults depend on the sign.
        let pos = cmp(&mut self.em, CmpOp::Gt, stride, i64c(0));
        let n_minus_1 = self.em.i64_op(Sub, n, i64c(1));
        let sel = |em: &mut Emitter, c: SubExp, a: SubExp, b: SubExp| {
            em.prim(PrimOp::Tern(TernOp::Select, i64t), vec![c, a, b])
        };
        let start = match i {
            Some(i) => i,
            None => sel(&mut self.em, pos, i64c(0), n_minus_1),
        };
        let end = match j {
            Some(j) => j,
            None => sel(&mut self.em, pos, n, i64c(-1)),
        };
        // count = ceil(|end - start| / |stride|), clamped at 0 when the direction is wrong.
        let diff = self.em.i64_op(Sub, end, start);
        let neg_stride = self.em.prim(PrimOp::Un(UnOp::Neg, i64t), vec![stride]);
        let abs_s = sel(&mut self.em, pos, stride, neg_stride);
        let neg_diff = self.em.prim(PrimOp::Un(UnOp::Neg, i64t), vec![diff]);
        let dist = sel(&mut self.em, pos, diff, neg_diff);
        let t = self.em.i64_op(Add, dist, abs_s);
        let t = self.em.i64_op(Sub, t, i64c(1));
        let count = self.em.prim(PrimOp::Bin(Div, i64t), vec![t, abs_s]);
        // Validity: s > 0: 0 <= i <= j <= n; s < 0: -1 <= j <= i <= n - 1; i == j always.
        let c1 = cmp(&mut self.em, CmpOp::Le, i64c(0), start);
        let c2 = cmp(&mut self.em, CmpOp::Le, start, end);
        let c3 = cmp(&mut self.em, CmpOp::Le, end, n);
        let a = and(&mut self.em, c1, c2);
        let valid_pos = and(&mut self.em, a, c3);
        let d1 = cmp(&mut self.em, CmpOp::Le, i64c(-1), end);
        let d2 = cmp(&mut self.em, CmpOp::Le, end, start);
        let d3 = cmp(&mut self.em, CmpOp::Le, start, n_minus_1);
        let b = and(&mut self.em, d1, d2);
        let valid_neg = and(&mut self.em, b, d3);
        let valid = self.em.prim(
            PrimOp::Tern(TernOp::Select, PrimType::Bool),
            vec![pos, valid_pos, valid_neg],
        );
        let empty = cmp(&mut self.em, CmpOp::Eq, start, end);
        let nonzero = cmp(&mut self.em, CmpOp::Ne, stride, i64c(0));
        let v = self
            .em
            .prim(PrimOp::Bin(Or, PrimType::Bool), vec![valid, empty]);
        let valid = and(&mut self.em, v, nonzero);
        (
            DimIndex::Slice {
                start,
                count,
                stride,
            },
            valid,
        )
    }

    fn index_value(
        &mut self,
        v: &IVal,
        indices: &'a [ast::DimIndex],
        env: &Env,
        span: Span,
    ) -> R<IVal> {
        let first = v
            .leaves()
            .first()
            .copied()
            .ok_or_else(|| limitation(span, "indexing an array of empty records"))?;
        let dims = self.em.dims(&first);
        let slice = self.slice_of(&dims, indices, env, span)?;
        self.index_leaves(v, &slice)
    }

    fn index_leaves(&mut self, v: &IVal, slice: &[DimIndex]) -> R<IVal> {
        let mut out = Vec::new();
        for l in v.leaves() {
            let arr = self.em.as_var(l);
            out.push(self.em.index(arr, slice.to_vec()));
        }
        Ok(v.rebuild(&mut out.into_iter()))
    }

    fn update_value(
        &mut self,
        target: &IVal,
        indices: &'a [ast::DimIndex],
        value: &IVal,
        env: &Env,
        span: Span,
    ) -> R<IVal> {
        let first = target
            .leaves()
            .first()
            .copied()
            .ok_or_else(|| limitation(span, "updating an array of empty records"))?;
        let dims = self.em.dims(&first);
        let slice = self.slice_of(&dims, indices, env, span)?;
        let vals = value.leaves();
        let mut out = Vec::new();
        for (l, v) in target.leaves().into_iter().zip(vals) {
            let arr = self.em.as_var(l);
            let t = self.em.names.ty(arr).clone();
            out.push(self.em.basic(
                self.em.names.hint(arr).to_string().as_str(),
                t,
                BasicOp::Update {
                    array: arr,
                    slice: slice.clone(),
                    value: v,
                },
            ));
        }
        Ok(target.rebuild(&mut out.into_iter()))
    }

    fn range(
        &mut self,
        start: &'a ast::Exp,
        second: Option<&'a ast::Exp>,
        end: &'a ast::Exp,
        kind: ast::RangeKind,
        env: &Env,
    ) -> R<IVal> {
        use BinOp::*;
        let a = self.exp(start, env)?;
        let a = self.leaf(&a, start.span)?;
        let z = self.exp(end, env)?;
        let z = self.leaf(&z, end.span)?;
        let t = self.em.ty(&a).elem();
        let sec = match second {
            Some(s) => {
                let v = self.exp(s, env)?;
                Some(self.leaf(&v, s.span)?)
            }
            None => None,
        };
        let one = SubExp::Const(Scalar::from_f64(t, 1.0));
        let zero = SubExp::Const(Scalar::from_f64(t, 0.0));
        let stride = match (sec, kind) {
            (Some(y), _) => self.em.prim(PrimOp::Bin(Sub, t), vec![y, a]),
            (None, ast::RangeKind::DownToExclusive) => {
                self.em.prim(PrimOp::Un(UnOp::Neg, t), vec![one])
            }
            (None, _) => one,
        };
        let op = match kind {
            ast::RangeKind::UpToExclusive => "..<",
            ast::RangeKind::Inclusive => "...",
            ast::RangeKind::DownToExclusive => "..>",
        };
        let cmp = |s: &mut Self, op: CmpOp, x: SubExp, y: SubExp| {
            s.em.prim(PrimOp::Cmp(op, t), vec![x, y])
        };
        // Validity (LANGUAGE.md 5.6) and element count in the range's type.
        let (valid, dist) = match kind {
            ast::RangeKind::UpToExclusive => {
                let pos = cmp(self, CmpOp::Gt, stride, zero);
                let le = cmp(self, CmpOp::Le, a, z);
                let v = self
                    .em
                    .prim(PrimOp::Bin(And, PrimType::Bool), vec![pos, le]);
                let d = self.em.prim(PrimOp::Bin(Sub, t), vec![z, a]);
                (v, d)
            }
            ast::RangeKind::DownToExclusive => {
                let neg = cmp(self, CmpOp::Lt, stride, zero);
                let ge = cmp(self, CmpOp::Ge, a, z);
                let v = self
                    .em
                    .prim(PrimOp::Bin(And, PrimType::Bool), vec![neg, ge]);
                let d = self.em.prim(PrimOp::Bin(Sub, t), vec![a, z]);
                (v, d)
            }
            ast::RangeKind::Inclusive => {
                let pos = cmp(self, CmpOp::Gt, stride, zero);
                let neg = cmp(self, CmpOp::Lt, stride, zero);
                let le = cmp(self, CmpOp::Le, a, z);
                let ge = cmp(self, CmpOp::Ge, a, z);
                let p = self
                    .em
                    .prim(PrimOp::Bin(And, PrimType::Bool), vec![pos, le]);
                let n = self
                    .em
                    .prim(PrimOp::Bin(And, PrimType::Bool), vec![neg, ge]);
                let v = self.em.prim(PrimOp::Bin(Or, PrimType::Bool), vec![p, n]);
                let up = self.em.prim(PrimOp::Bin(Sub, t), vec![z, a]);
                let down = self.em.prim(PrimOp::Bin(Sub, t), vec![a, z]);
                let d = self
                    .em
                    .prim(PrimOp::Tern(TernOp::Select, t), vec![pos, up, down]);
                let d = self.em.prim(PrimOp::Bin(Add, t), vec![d, one]);
                (v, d)
            }
        };
        let mut msg = String::from("Range {}");
        let mut args = vec![a];
        if let Some(y) = sec {
            msg.push_str("..{}");
            args.push(y);
        }
        msg.push_str(op);
        msg.push_str("{} is invalid.");
        args.push(z);
        self.assert(valid, msg, args);
        // count = ceil(dist / |stride|), in i64.
        let dist64 = self.convert_to_i64(dist, t);
        let stride64 = self.convert_to_i64(stride, t);
        let abs_s = self
            .em
            .prim(PrimOp::Un(UnOp::Abs, PrimType::I64), vec![stride64]);
        let count = if abs_s == i64c(1) {
            dist64
        } else {
            let x = self.em.i64_op(Add, dist64, abs_s);
            let x = self.em.i64_op(Sub, x, i64c(1));
            self.em
                .prim(PrimOp::Bin(Div, PrimType::I64), vec![x, abs_s])
        };
        Ok(IVal::Leaf(self.em.basic(
            "range",
            Type::array(t, vec![count]),
            BasicOp::Iota {
                n: count,
                start: a,
                stride,
                elem: t,
            },
        )))
    }

    fn convert_to_i64(&mut self, x: SubExp, t: PrimType) -> SubExp {
        if t == PrimType::I64 {
            x
        } else if let SubExp::Const(c) = x {
            SubExp::Const(Scalar::I64(c.as_i64().unwrap_or(0)))
        } else {
            self.em.prim(PrimOp::Conv(t, PrimType::I64), vec![x])
        }
    }

    /// Checks array leaves of `v` against the sizes of `ty` (an ascription or coercion).
    fn coerce(&mut self, v: IVal, ty: &Ty, env: &Env) -> R<IVal> {
        match (ty, &v) {
            (Ty::Array(dims, _), _) => {
                let mut shape = Vec::new();
                for d in dims {
                    match self.eval_size(d, env) {
                        Some(se) => shape.push(Some(se)),
                        None => shape.push(None),
                    }
                }
                let mut out = Vec::new();
                for l in v.leaves() {
                    let arr = self.em.as_var(l);
                    let t = self.em.names.ty(arr).clone();
                    let mut new_dims = t.dims().to_vec();
                    let mut changed = false;
                    for (k, s) in shape.iter().enumerate() {
                        if let (Some(s), Some(d)) = (s, new_dims.get_mut(k))
                            && *d != *s
                        {
                            *d = *s;
                            changed = true;
                        }
                    }
                    if changed {
                        out.push(self.checked_coerce(arr, new_dims));
                    } else {
                        out.push(SubExp::Var(arr));
                    }
                }
                Ok(v.rebuild(&mut out.into_iter()))
            }
            (Ty::Record(fields), IVal::Record(vals)) => {
                let mut out = BTreeMap::new();
                for (k, fv) in vals {
                    let nv = match fields.get(k) {
                        Some(ft) => self.coerce(fv.clone(), ft, env)?,
                        None => fv.clone(),
                    };
                    out.insert(k.clone(), nv);
                }
                Ok(IVal::Record(out))
            }
            _ => Ok(v),
        }
    }

    /// Emits the run-time size check of a coercion of `array` to `shape` (LANGUAGE.md 8.5:
    /// `value of shape [3] cannot match shape of type "[2]f64".`, with the values of the
    /// sizes) and the coercion itself.
    fn checked_coerce(&mut self, array: Var, shape: Vec<SubExp>) -> SubExp {
        let t = self.em.names.ty(array).clone();
        let old = t.dims().to_vec();
        let mut ok = SubExp::Const(Scalar::Bool(true));
        for (a, b) in old.iter().zip(&shape) {
            if a == b {
                continue;
            }
            let eq = self
                .em
                .prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![*a, *b]);
            ok = if ok == SubExp::Const(Scalar::Bool(true)) {
                eq
            } else {
                self.em
                    .prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![ok, eq])
            };
        }
        let dims = "[{}]".repeat(old.len());
        let message = format!(
            "value of shape {dims} cannot match shape of type \"{}{}\".",
            "[{}]".repeat(shape.len()),
            t.elem().name()
        );
        let mut args = old.clone();
        args.extend(shape.iter().copied());
        self.assert(ok, message, args);
        let type_text = type_text(&Type::array(t.elem(), shape.clone()), &self.em);
        self.em.basic(
            self.em.names.hint(array).to_string().as_str(),
            Type::array(t.elem(), shape.clone()),
            BasicOp::Coerce {
                array,
                shape,
                type_text,
            },
        )
    }

    fn assert(&mut self, cond: SubExp, message: String, args: Vec<SubExp>) {
        if cond == SubExp::Const(Scalar::Bool(true)) {
            return;
        }
        self.em.push(
            vec![],
            Exp::BasicOp(BasicOp::Assert {
                cond,
                message,
                args,
            }),
        );
    }

    // ---------------------------------------------------------------- intrinsics

    fn intrinsic(&mut self, name: &str, args: Vec<IVal>, fv: &FunVal, span: Span) -> R<IVal> {
        let arg = |k: usize| args.get(k).cloned().unwrap_or_else(IVal::unit);
        match name {
            "map" => self.map(arg(0), vec![arg(1)], span),
            "reduce" | "reduce_comm" => {
                self.reduce(arg(0), arg(1), arg(2), name == "reduce_comm", span)
            }
            "scan" => self.scan(arg(0), arg(1), arg(2), span),
            "reduce_by_index" => self.hist(arg(0), arg(1), arg(2), arg(3), arg(4), span),
            "scatter" => self.scatter(arg(0), arg(1), arg(2), span),
            "iota" => {
                let n = self.leaf(&arg(0), span)?;
                Ok(IVal::Leaf(self.em.basic(
                    "iota",
                    Type::array(PrimType::I64, vec![n]),
                    BasicOp::Iota {
                        n,
                        start: i64c(0),
                        stride: i64c(1),
                        elem: PrimType::I64,
                    },
                )))
            }
            "replicate" => {
                let n = self.leaf(&arg(0), span)?;
                let neg = self
                    .em
                    .prim(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), vec![n, i64c(0)]);
                let ok = self
                    .em
                    .prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![neg]);
                self.assert(ok, "Range 0..<{} is invalid.".into(), vec![n]);
                let x = arg(1);
                let mut out = Vec::new();
                for l in x.leaves() {
                    let t = self.em.ty(&l).array_of(n);
                    out.push(self.em.basic(
                        "replicate",
                        t,
                        BasicOp::Replicate {
                            shape: vec![n],
                            value: l,
                        },
                    ));
                }
                Ok(x.rebuild(&mut out.into_iter()))
            }
            "copy" => {
                let x = arg(0);
                let out: Vec<SubExp> = x.leaves().into_iter().map(|l| self.em.copy(l)).collect();
                Ok(x.rebuild(&mut out.into_iter()))
            }
            "concat" => {
                let (xs, ys) = (arg(0), arg(1));
                let mut out = Vec::new();
                for (a, b) in xs.leaves().into_iter().zip(ys.leaves()) {
                    let ta = self.em.ty(&a);
                    let tb = self.em.ty(&b);
                    let n = self.em.i64_op(
                        BinOp::Add,
                        ta.dims().first().copied().unwrap_or(i64c(0)),
                        tb.dims().first().copied().unwrap_or(i64c(0)),
                    );
                    let mut dims = ta.dims().to_vec();
                    if let Some(d) = dims.first_mut() {
                        *d = n;
                    }
                    let arrays = vec![self.em.as_var(a), self.em.as_var(b)];
                    out.push(self.em.basic(
                        "concat",
                        Type::array(ta.elem(), dims),
                        BasicOp::Concat { arrays, size: n },
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "reverse" => {
                let xs = arg(0);
                let mut out = Vec::new();
                for l in xs.leaves() {
                    let n = self.em.dims(&l).first().copied().unwrap_or(i64c(0));
                    let start = self.em.i64_op(BinOp::Sub, n, i64c(1));
                    let arr = self.em.as_var(l);
                    out.push(self.em.index(
                        arr,
                        vec![DimIndex::Slice {
                            start,
                            count: n,
                            stride: i64c(-1),
                        }],
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "rotate" => {
                let r = self.leaf(&arg(0), span)?;
                let xs = arg(1);
                let mut out = Vec::new();
                for l in xs.leaves() {
                    let t = self.em.ty(&l);
                    let arr = self.em.as_var(l);
                    out.push(self.em.basic(
                        "rotate",
                        t,
                        BasicOp::Rotate {
                            array: arr,
                            amount: r,
                        },
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "transpose" => {
                let xs = arg(0);
                let mut out = Vec::new();
                for l in xs.leaves() {
                    let t = self.em.ty(&l);
                    let mut dims = t.dims().to_vec();
                    if dims.len() >= 2 {
                        dims.swap(0, 1);
                    }
                    let mut perm: Vec<usize> = (0..t.rank()).collect();
                    if perm.len() >= 2 {
                        perm.swap(0, 1);
                    }
                    let arr = self.em.as_var(l);
                    out.push(self.em.basic(
                        "transpose",
                        Type::array(t.elem(), dims),
                        BasicOp::Rearrange { array: arr, perm },
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "flatten" => {
                let xs = arg(0);
                let mut out = Vec::new();
                for l in xs.leaves() {
                    let t = self.em.ty(&l);
                    let d = t.dims();
                    let n = self
                        .em
                        .i64_op(BinOp::Mul, d[0], d.get(1).copied().unwrap_or(i64c(1)));
                    let mut shape = vec![n];
                    shape.extend_from_slice(d.get(2..).unwrap_or(&[]));
                    let arr = self.em.as_var(l);
                    out.push(self.em.basic(
                        "flat",
                        Type::array(t.elem(), shape.clone()),
                        BasicOp::Reshape { array: arr, shape },
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "unflatten" => {
                let xs = arg(0);
                let (n, m) = self.unflatten_sizes(&xs, fv, span)?;
                let mut out = Vec::new();
                for l in xs.leaves() {
                    let t = self.em.ty(&l);
                    let mut shape = vec![n, m];
                    shape.extend_from_slice(t.dims().get(1..).unwrap_or(&[]));
                    let arr = self.em.as_var(l);
                    out.push(self.em.basic(
                        "unflat",
                        Type::array(t.elem(), shape.clone()),
                        BasicOp::Reshape { array: arr, shape },
                    ));
                }
                Ok(xs.rebuild(&mut out.into_iter()))
            }
            "zip" => {
                let (xs, ys) = (arg(0), arg(1));
                let n = xs
                    .leaves()
                    .first()
                    .and_then(|l| self.em.dims(l).first().copied());
                let ys = match n {
                    Some(n) => self.coerce_outer(ys, n)?,
                    None => ys,
                };
                Ok(IVal::tuple(vec![xs, ys]))
            }
            "unzip" | "opaque" | "trace" => Ok(arg(0)),
            "length" => {
                let xs = arg(0);
                let n = xs
                    .leaves()
                    .first()
                    .and_then(|l| self.em.dims(l).first().copied())
                    .unwrap_or(i64c(0));
                Ok(IVal::Leaf(n))
            }
            "jvp" | "jvp2" => {
                let (y, y_tan) = self.jvp(arg(0), arg(1), arg(2), span)?;
                Ok(if name == "jvp" {
                    y_tan
                } else {
                    IVal::tuple(vec![y, y_tan])
                })
            }
            "jmp" | "jmp2" => {
                // One jvp per seed, mapped over the seeds. The primal is computed inside the
                // map; hoisting it out is the optimiser's job.
                let (f, x) = (arg(0), arg(1));
                let tans = self.map_with(vec![arg(2)], span, |s, rows| {
                    let dx = rows.into_iter().next().unwrap_or_else(IVal::unit);
                    Ok(s.jvp(f.clone(), x.clone(), dx, span)?.1)
                })?;
                if name == "jmp" {
                    Ok(tans)
                } else {
                    let y = self.apply(arg(0), vec![arg(1)], span)?;
                    Ok(IVal::tuple(vec![y, tans]))
                }
            }
            "vjp" | "vjp2" => {
                let (y, x_adj) = self.vjp(arg(0), arg(1), arg(2), span)?;
                Ok(if name == "vjp" {
                    x_adj
                } else {
                    IVal::tuple(vec![y, x_adj])
                })
            }
            "mjp" | "mjp2" => {
                // One vjp per seed, mapped over the seeds, as for jmp.
                let (f, x) = (arg(0), arg(1));
                let adjs = self.map_with(vec![arg(2)], span, |s, rows| {
                    let ybar = rows.into_iter().next().unwrap_or_else(IVal::unit);
                    Ok(s.vjp(f.clone(), x.clone(), ybar, span)?.1)
                })?;
                if name == "mjp" {
                    Ok(adjs)
                } else {
                    let y = self.apply(arg(0), vec![arg(1)], span)?;
                    Ok(IVal::tuple(vec![y, adjs]))
                }
            }
            _ => self.scalar_intrinsic(name, args, span),
        }
    }

    /// `jvp f x x_tan`: builds `f`'s body as a lambda on fresh parameters and emits it as an
    /// [`Exp::Ad`] at the point `x` with the parameters' tangents `x_tan` (whose shapes must
    /// match `x`'s); returns the value and the tangent. The AD pass expands it.
    fn jvp(&mut self, f: IVal, x: IVal, x_tan: IVal, span: Span) -> R<(IVal, IVal)> {
        let xl = x.leaves();
        let tl = x_tan.leaves();
        if xl.len() != tl.len() {
            return Err(bug(span, "tangent and point have different structures"));
        }
        let mut seeds = Vec::new();
        for (xv, tv) in xl.iter().zip(&tl) {
            let dims = self.em.ty(xv).dims().to_vec();
            // The tangent must have exactly the point's shape (LANGUAGE.md 10.1).
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
        let out = self.em.bind(
            "jvp_res",
            tys,
            Exp::Ad {
                mode: AdMode::Jvp,
                lam,
                args: xl,
                seeds,
            },
        );
        let mut out = out.into_iter().map(SubExp::Var);
        let y = y.rebuild(&mut out);
        let y_tan = y.rebuild(&mut out);
        Ok((y, y_tan))
    }

    /// `vjp f x ybar`: builds `f`'s body as a lambda on fresh parameters and emits it as an
    /// [`Exp::Ad`] at the point `x` with the results' adjoints `ybar` (whose shapes must match
    /// the results', checked at run time); returns the value and the adjoint of `x`. The AD
    /// pass expands it.
    fn vjp(&mut self, f: IVal, x: IVal, ybar: IVal, span: Span) -> R<(IVal, IVal)> {
        let xl = x.leaves();
        let (y, lam) = self.ad_lambda(f, &x, "vjp_x", span)?;
        let seeds = ybar.leaves();
        if seeds.len() != lam.ret.len() {
            return Err(bug(span, "cotangent and result have different structures"));
        }
        let mut tys = lam.ret.clone();
        tys.extend(xl.iter().map(|a| self.em.ty(a)));
        let out = self.em.bind(
            "vjp_res",
            tys,
            Exp::Ad {
                mode: AdMode::Vjp,
                lam,
                args: xl,
                seeds,
            },
        );
        let mut out = out.into_iter().map(SubExp::Var);
        let y = y.rebuild(&mut out);
        let x_adj = x.rebuild(&mut out);
        Ok((y, x_adj))
    }

    /// `f` applied to fresh parameters shaped like `x`, as a lambda, and the structure of its
    /// result.
    fn ad_lambda(&mut self, f: IVal, x: &IVal, hint: &str, span: Span) -> R<(IVal, Lambda)> {
        let params: Vec<Var> = x
            .leaves()
            .iter()
            .map(|xv| {
                let t = self.em.ty(xv);
                self.em.names.fresh(hint, t)
            })
            .collect();
        self.em.open_body();
        let arg = x.rebuild(&mut params.iter().map(|p| SubExp::Var(*p)));
        let y = match self.apply(f, vec![arg], span) {
            Ok(y) => y,
            Err(e) => {
                self.em.close_body(vec![]);
                return Err(e);
            }
        };
        let body = self.em.close_body(y.leaves());
        let ret = body.result.iter().map(|r| self.em.ty(r)).collect();
        Ok((y, Lambda { params, body, ret }))
    }

    /// Checks that every array leaf of `v` has outer size `n` (`zip`, `map2`).
    fn coerce_outer(&mut self, v: IVal, n: SubExp) -> R<IVal> {
        let mut out = Vec::new();
        for l in v.leaves() {
            let arr = self.em.as_var(l);
            let t = self.em.names.ty(arr).clone();
            if t.dims().first() == Some(&n) {
                out.push(SubExp::Var(arr));
                continue;
            }
            let mut dims = t.dims().to_vec();
            if let Some(d) = dims.first_mut() {
                *d = n;
            }
            out.push(self.checked_coerce(arr, dims));
        }
        Ok(v.rebuild(&mut out.into_iter()))
    }

    fn unflatten_sizes(&mut self, xs: &IVal, fv: &FunVal, span: Span) -> R<(SubExp, SubExp)> {
        let total = xs
            .leaves()
            .first()
            .and_then(|l| self.em.dims(l).first().copied())
            .unwrap_or(i64c(0));
        let mut ret = fv.ty.as_ref();
        while let Some(Ty::Arrow(_, r)) = ret {
            ret = Some(r);
        }
        let (n, m) = match ret {
            Some(Ty::Array(dims, _)) if dims.len() >= 2 => (
                self.eval_size(&dims[0], &fv.env),
                self.eval_size(&dims[1], &fv.env),
            ),
            _ => (None, None),
        };
        let (n, m) = match (n, m) {
            (Some(n), Some(m)) => (n, m),
            (Some(n), None) => {
                let m = self
                    .em
                    .prim(PrimOp::Bin(BinOp::Div, PrimType::I64), vec![total, n]);
                (n, m)
            }
            (None, Some(m)) => {
                let n = self
                    .em
                    .prim(PrimOp::Bin(BinOp::Div, PrimType::I64), vec![total, m]);
                (n, m)
            }
            (None, None) => {
                return Err(Diagnostic::error(
                    span,
                    "the sizes of the result of `unflatten` cannot be determined",
                )
                .with_note(
                    "annotate the result type, e.g. `unflatten xs : [n][m]t`, or use `sized`",
                ));
            }
        };
        Ok((n, m))
    }

    fn scalar_intrinsic(&mut self, name: &str, args: Vec<IVal>, span: Span) -> R<IVal> {
        let (module, fname) = name
            .split_once('.')
            .ok_or_else(|| bug(span, format!("unknown intrinsic {name}")))?;
        let t = PrimType::from_name(module)
            .ok_or_else(|| bug(span, format!("unknown intrinsic {name}")))?;
        let op = intrinsics::scalar_op(t, fname)
            .ok_or_else(|| bug(span, format!("unknown intrinsic {name}")))?;
        let leaves = args
            .iter()
            .map(|a| self.leaf(a, span))
            .collect::<R<Vec<_>>>()?;
        Ok(IVal::Leaf(self.em.prim(op, leaves)))
    }

    // ---------------------------------------------------------------- SOACs

    /// Applies `f` inside a lambda whose parameters are rows of the leaves of `arrays`.
    fn map(&mut self, f: IVal, arrays: Vec<IVal>, span: Span) -> R<IVal> {
        self.map_with(arrays, span, |s, rows| s.apply(f, rows, span))
    }

    /// A `map` whose lambda body `body` builds from the rows of `arrays`.
    fn map_with(
        &mut self,
        arrays: Vec<IVal>,
        span: Span,
        body: impl FnOnce(&mut Self, Vec<IVal>) -> R<IVal>,
    ) -> R<IVal> {
        let input = IVal::tuple(arrays.clone());
        let leaves = input.leaves();
        let Some(first) = leaves.first() else {
            return Err(limitation(span, "`map` over arrays of empty records"));
        };
        let w = self.em.dims(first).first().copied().unwrap_or(i64c(0));
        let row_types: Vec<Type> = leaves.iter().map(|l| self.em.ty(l).row()).collect();
        let params: Vec<Var> = row_types
            .iter()
            .map(|t| self.em.names.fresh("x", t.clone()))
            .collect();
        self.em.open_body();
        let rows: Vec<IVal> = arrays
            .iter()
            .scan(params.iter().map(|p| SubExp::Var(*p)), |it, a| {
                Some(a.rebuild(it))
            })
            .collect();
        let res = body(self, rows);
        let res = match res {
            Ok(r) => r,
            Err(e) => {
                self.em.close_body(vec![]);
                return Err(e);
            }
        };
        if res.has_function() {
            self.em.close_body(vec![]);
            return Err(limitation(span, "`map` producing functions"));
        }
        let out_leaves = res.leaves();
        let ret: Vec<Type> = out_leaves.iter().map(|l| self.em.ty(l)).collect();
        let body = self.em.close_body(out_leaves);
        let lam = crate::core::ir::Lambda {
            params,
            body,
            ret: ret.clone(),
        };
        let arrays: Vec<Var> = leaves.iter().map(|l| self.em.as_var(*l)).collect();
        let types = ret.iter().map(|t| t.array_of(w)).collect();
        let outs = self.em.soac("map_res", types, Soac::Map { w, lam, arrays });
        Ok(res.rebuild(&mut outs.into_iter()))
    }

    /// A lambda of `2k` parameters applying the binary operator `op` to two values shaped
    /// like `shape` (whose leaves have types `types`).
    fn operator_lambda(
        &mut self,
        op: IVal,
        shape: &IVal,
        types: &[Type],
        span: Span,
    ) -> R<crate::core::ir::Lambda> {
        let params: Vec<Var> = types
            .iter()
            .chain(types.iter())
            .map(|t| self.em.names.fresh("acc", t.clone()))
            .collect();
        self.em.open_body();
        let k = types.len();
        let res = (|| -> R<Vec<SubExp>> {
            let x = shape.rebuild(&mut params[..k].iter().map(|p| SubExp::Var(*p)));
            let y = shape.rebuild(&mut params[k..].iter().map(|p| SubExp::Var(*p)));
            let r = self.apply(op, vec![x, y], span)?;
            Ok(r.leaves())
        })();
        let res = match res {
            Ok(r) => r,
            Err(e) => {
                self.em.close_body(vec![]);
                return Err(e);
            }
        };
        let body = self.em.close_body(res);
        Ok(crate::core::ir::Lambda {
            params,
            body,
            ret: types.to_vec(),
        })
    }

    fn reduce(&mut self, op: IVal, ne: IVal, xs: IVal, commutative: bool, span: Span) -> R<IVal> {
        let leaves = xs.leaves();
        let w = leaves
            .first()
            .and_then(|l| self.em.dims(l).first().copied())
            .unwrap_or(i64c(0));
        let types: Vec<Type> = leaves.iter().map(|l| self.em.ty(l).row()).collect();
        let lam = self.operator_lambda(op, &ne, &types, span)?;
        let arrays = leaves.iter().map(|l| self.em.as_var(*l)).collect();
        let outs = self.em.soac(
            "reduce_res",
            types,
            Soac::Reduce {
                w,
                lam,
                neutral: ne.leaves(),
                arrays,
                commutative,
            },
        );
        Ok(ne.rebuild(&mut outs.into_iter()))
    }

    fn scan(&mut self, op: IVal, ne: IVal, xs: IVal, span: Span) -> R<IVal> {
        let leaves = xs.leaves();
        let w = leaves
            .first()
            .and_then(|l| self.em.dims(l).first().copied())
            .unwrap_or(i64c(0));
        let types: Vec<Type> = leaves.iter().map(|l| self.em.ty(l).row()).collect();
        let lam = self.operator_lambda(op, &ne, &types, span)?;
        let arrays = leaves.iter().map(|l| self.em.as_var(*l)).collect();
        let out_types = leaves.iter().map(|l| self.em.ty(l)).collect();
        let outs = self.em.soac(
            "scan_res",
            out_types,
            Soac::Scan {
                w,
                lam,
                neutral: ne.leaves(),
                arrays,
            },
        );
        Ok(xs.rebuild(&mut outs.into_iter()))
    }

    fn hist(&mut self, dest: IVal, op: IVal, ne: IVal, is: IVal, vs: IVal, span: Span) -> R<IVal> {
        let is = self.leaf(&is, span)?;
        let w = self.em.dims(&is).first().copied().unwrap_or(i64c(0));
        let dests: Vec<Var> = dest
            .leaves()
            .into_iter()
            .map(|l| self.em.as_var(l))
            .collect();
        let types: Vec<Type> = dests.iter().map(|d| self.em.names.ty(*d).row()).collect();
        let lam = self.operator_lambda(op, &ne, &types, span)?;
        let values = vs.leaves().into_iter().map(|l| self.em.as_var(l)).collect();
        let out_types = dests.iter().map(|d| self.em.names.ty(*d).clone()).collect();
        let indices = self.em.as_var(is);
        let outs = self.em.soac(
            "hist_res",
            out_types,
            Soac::Hist {
                w,
                dests,
                lam,
                neutral: ne.leaves(),
                indices,
                values,
            },
        );
        Ok(dest.rebuild(&mut outs.into_iter()))
    }

    fn scatter(&mut self, dest: IVal, is: IVal, vs: IVal, span: Span) -> R<IVal> {
        let is = self.leaf(&is, span)?;
        let w = self.em.dims(&is).first().copied().unwrap_or(i64c(0));
        let dests: Vec<Var> = dest
            .leaves()
            .into_iter()
            .map(|l| self.em.as_var(l))
            .collect();
        let values = vs.leaves().into_iter().map(|l| self.em.as_var(l)).collect();
        let out_types = dests.iter().map(|d| self.em.names.ty(*d).clone()).collect();
        let indices = self.em.as_var(is);
        let outs = self.em.soac(
            "scatter_res",
            out_types,
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            },
        );
        Ok(dest.rebuild(&mut outs.into_iter()))
    }
}

// -------------------------------------------------------------------- helpers

fn project(v: &IVal, field: &str, span: Span) -> R<IVal> {
    match v {
        IVal::Record(fields) => fields
            .get(field)
            .cloned()
            .ok_or_else(|| bug(span, format!("no field {field}"))),
        _ => Err(bug(
            span,
            format!("field {field} of a value that is not a record"),
        )),
    }
}

fn record_update(target: IVal, path: &[&str], value: IVal, span: Span) -> R<IVal> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(value);
    };
    match target {
        IVal::Record(mut fields) => {
            let old = fields
                .remove(*first)
                .ok_or_else(|| bug(span, format!("no field {first}")))?;
            let new = record_update(old, rest, value, span)?;
            fields.insert((*first).to_string(), new);
            Ok(IVal::Record(fields))
        }
        _ => Err(bug(span, "record update of a value that is not a record")),
    }
}

/// An integer literal of magnitude `value` at type `t` (wrapping, so that the negation of
/// the type's minimum's magnitude is exact).
fn int_literal(t: PrimType, value: u128) -> Scalar {
    Scalar::from_i128(t, value as i128)
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

fn pat_name(p: &Pat) -> Option<String> {
    match &p.kind {
        PatKind::Name(n) => Some(n.clone()),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => pat_name(pat),
        _ => None,
    }
}

fn attr_text(a: &ast::Attr) -> String {
    match &a.kind {
        ast::AttrKind::Name(n) => n.clone(),
        ast::AttrKind::Call(n, args) => format!(
            "{n}({})",
            args.iter().map(attr_text).collect::<Vec<_>>().join(", ")
        ),
        ast::AttrKind::Int(i) => i.to_string(),
    }
}

/// The text of an expression without the parentheses that wrap all of it.
fn strip_parens(s: &str) -> &str {
    let t = s.trim();
    if t.starts_with('(') && t.ends_with(')') {
        // Only when the opening parenthesis closes at the very end.
        let mut depth = 0i32;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && i + 1 < t.len() {
                        return t;
                    }
                }
                _ => {}
            }
        }
        return strip_parens(&t[1..t.len() - 1]);
    }
    t
}

fn escape_braces(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}

fn type_text(t: &Type, em: &Emitter) -> String {
    let mut s = String::new();
    for d in t.dims() {
        s.push_str(&format!("[{}]", show_dim(em, d)));
    }
    s.push_str(t.elem().name());
    s
}

fn show_dim(em: &Emitter, d: &SubExp) -> String {
    match d {
        SubExp::Const(c) => c.as_i64().map_or("?".into(), |v| v.to_string()),
        SubExp::Var(v) => em.names.hint(*v).to_string(),
    }
}

/// The external type of an entry-point parameter or result.
pub fn external_type(t: &Ty) -> ExternalType {
    fn elem_rank(t: &Ty) -> Option<(PrimType, usize)> {
        match t {
            Ty::Prim(p) => Some((*p, 0)),
            Ty::Array(dims, e) => {
                let (p, r) = elem_rank(e)?;
                Some((p, r + dims.len()))
            }
            _ => None,
        }
    }
    match elem_rank(t) {
        Some((elem, rank)) => ExternalType::Value {
            elem,
            rank,
            text: t.to_string(),
        },
        None => ExternalType::Opaque(t.to_string()),
    }
}
