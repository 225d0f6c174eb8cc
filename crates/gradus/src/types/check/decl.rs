//! Declarations: values and functions (top-level and local), type abbreviations, modules and
//! `open`, with the generalisation that ends each value declaration.
//!
//! A top-level declaration is inferred one level deeper than its surroundings; when it is
//! done, overloaded variables are defaulted, pending checks run and what is still free is
//! generalised (see the module doc of [`super`]).

use super::typeops::{
    arrows, bare_in, bare_in_value, free_size_vars, free_vars, size_is_known, size_mentions,
    ty_mentions,
};
use super::{
    AbbrParam, Anon, Checker, FunctionParts, Item, ModEnv, PendingStatic, R, Scheme, SizeParams,
    TypeAbbr, TypeParams, ValEntry, err, limitation, strip,
};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::types::infer::PrimSet;
use crate::types::ty::{BindingId, Size, Ty, TyVar};
use crate::types::{DecPath, DeclInfo, DeclRef, EntrySig, FIRST_CHECKER_BINDING, LocalFunInfo};
use std::rc::Rc;

fn type_param_names(tps: &[TypeParam]) -> Vec<String> {
    tps.iter()
        .map(|tp| match tp {
            TypeParam::Size { name, .. } | TypeParam::Type { name, .. } => name.clone(),
        })
        .collect()
}

/// See [`Checker::settle`].
struct Settled {
    /// The function type, resolved.
    ty: Ty,
    /// The parameter types, resolved.
    params: Vec<Ty>,
    deps: Vec<Option<BindingId>>,
    static_sizes: SizeParams,
}

/// The binding of a parameter pattern that is a single (possibly annotated) name.
fn single_name(p: &Pat) -> Option<BindingId> {
    match &p.kind {
        PatKind::Name(_) => Some(BindingId(p.id.0)),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => single_name(pat),
        _ => None,
    }
}

/// Whether a parameter pattern is annotated unique at its top.
fn pat_unique(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascribe { ty, pat } => {
            matches!(ty.kind, TypeExpKind::Unique(_)) || pat_unique(pat)
        }
        PatKind::Attr { pat, .. } => pat_unique(pat),
        _ => false,
    }
}

impl Checker {
    pub(super) fn check_decs(&mut self, decs: &[Dec]) -> R<()> {
        for (i, d) in decs.iter().enumerate() {
            self.dec_path.push(i);
            let r = self.check_dec(d);
            self.dec_path.pop();
            r?;
        }
        Ok(())
    }

    fn check_dec(&mut self, d: &Dec) -> R<()> {
        match &d.kind {
            DecKind::Value(vd) => self.check_value_dec(vd),
            DecKind::TypeAbbrev(td) => self.check_type_dec(td),
            DecKind::Module(md) => {
                if let Some(p) = md.params.first() {
                    return Err(limitation(p.span, "parametric modules"));
                }
                if let Some(s) = &md.sig {
                    return Err(limitation(s.span, "module type ascription"));
                }
                let env = self.check_modexp(&md.body, &md.name)?;
                self.declare(&md.name, Item::Mod(Rc::new(env)));
                Ok(())
            }
            DecKind::ModuleType(mt) => Err(limitation(mt.name_span, "module types")),
            DecKind::Open(me) => {
                let env = match &me.kind {
                    ModExpKind::Var(q) => {
                        let mut path = q.qualifiers.clone();
                        path.push(q.name.clone());
                        self.lookup_mod_path(&path, me.span)?
                    }
                    ModExpKind::Import(_) => return Err(limitation(me.span, "`import`")),
                    _ => {
                        return Err(limitation(
                            me.span,
                            "`open` of a module expression that is not a name",
                        ));
                    }
                };
                self.open_module(&env, true);
                Ok(())
            }
            DecKind::Local(inner) => {
                self.local_depth += 1;
                let r = self.check_dec(inner);
                self.local_depth -= 1;
                r
            }
            DecKind::Import { path_span, .. } => Err(limitation(*path_span, "`import`")),
        }
    }

    fn check_modexp(&mut self, me: &ModExp, name: &str) -> R<ModEnv> {
        match &me.kind {
            ModExpKind::Decs(decs) => {
                let mark = self.scope.len();
                let saved_local = self.local_depth;
                self.local_depth = 0;
                self.exports.push(ModEnv::default());
                self.module_path.push(name.to_string());
                let r = self.check_decs(decs);
                self.module_path.pop();
                let env = self.exports.pop().unwrap_or_default();
                self.local_depth = saved_local;
                self.scope.truncate(mark);
                r?;
                Ok(env)
            }
            ModExpKind::Var(q) => {
                let mut path = q.qualifiers.clone();
                path.push(q.name.clone());
                Ok((*self.lookup_mod_path(&path, me.span)?).clone())
            }
            ModExpKind::Apply(..) => Err(limitation(me.span, "parametric modules")),
            ModExpKind::Ascribe(..) => Err(limitation(me.span, "module type ascription")),
            ModExpKind::Import(_) => Err(limitation(me.span, "`import`")),
            ModExpKind::Lambda { .. } => Err(limitation(me.span, "parametric modules")),
        }
    }

    #[allow(clippy::redundant_closure_call)] // a closure so that `?` cannot skip the truncation
    fn check_type_dec(&mut self, td: &TypeDec) -> R<()> {
        let mark = self.scope.len();
        let mut params = Vec::new();
        let r = (|| -> R<Ty> {
            for tp in &td.params {
                match tp {
                    TypeParam::Size { name, .. } => {
                        let b = self.bind_size(name);
                        params.push(AbbrParam::Size(b));
                    }
                    TypeParam::Type { name, .. } => {
                        self.bind_type(name);
                        params.push(AbbrParam::Type(name.clone()));
                    }
                }
            }
            self.resolve_type(&td.ty, Anon::Unknown)
        })();
        self.scope.truncate(mark);
        let ty = r?;
        let ty = self.u.resolve(&ty);
        self.declare(&td.name, Item::Type(Rc::new(TypeAbbr { params, ty })));
        Ok(())
    }

    /// Binds `[n]` and `'t` parameters; returns size and type parameters.
    fn bind_type_params(&mut self, tps: &[TypeParam]) -> (SizeParams, TypeParams) {
        let mut sizes = Vec::new();
        let mut types = Vec::new();
        for tp in tps {
            match tp {
                TypeParam::Size { name, .. } => {
                    let b = self.bind_size(name);
                    sizes.push((name.clone(), b));
                }
                TypeParam::Type { name, lifted, .. } => {
                    self.bind_type(name);
                    let l = *lifted == Lift::Caret;
                    if l {
                        self.lifted.push(name.clone());
                    }
                    types.push((name.clone(), l));
                }
            }
        }
        (sizes, types)
    }

    /// Checks parameters, return type and body of a function-like declaration, in the
    /// current (already entered) level. Returns parameter types, result type, deps and
    /// uniqueness.
    fn check_function(
        &mut self,
        params: &[Pat],
        ret: Option<&TypeExp>,
        body: &Exp,
        rec: Option<(&str, ValEntry)>,
    ) -> R<FunctionParts> {
        if let Some((name, entry)) = rec {
            self.push_val(name, entry);
        }
        let mut ptys = Vec::new();
        let mut deps = Vec::new();
        let mut uniq = Vec::new();
        for p in params {
            let mut bs = Vec::new();
            let t = self.check_pat(p, Anon::Fresh, &mut bs)?;
            let unique = pat_unique(p);
            if !unique {
                for b in &bs {
                    self.nonunique_params.insert(b.id);
                }
            }
            self.push_binders(bs);
            ptys.push(t);
            deps.push(single_name(p));
            uniq.push(unique);
        }
        let ret_ty = match ret {
            Some(te) => Some(self.resolve_type(te, Anon::Unknown)?),
            None => None,
        };
        let body_start = self.local_uses.len();
        let body_ty = self.check_exp(body)?;
        self.body_uses_start = body_start;
        let result = match ret_ty {
            Some(rt) => {
                self.expect(
                    body.span,
                    "the body does not have the declared return type",
                    &rt,
                    &body_ty,
                )?;
                rt
            }
            None => body_ty,
        };
        Ok((ptys, result, deps, uniq))
    }

    fn fresh_param_name(&mut self, avoid: &[String]) -> String {
        loop {
            let i = self.param_counter as usize;
            self.param_counter += 1;
            let letter = (b'a' + (i % 26) as u8) as char;
            let name = if i < 26 {
                letter.to_string()
            } else {
                format!("{letter}{}", i / 26)
            };
            if !avoid.contains(&name) {
                return name;
            }
        }
    }

    fn check_value_dec(&mut self, vd: &ValueDec) -> R<()> {
        let uses_start = self.local_uses.len();
        let r = self.check_value_dec_inner(vd);
        self.local_uses.truncate(uses_start);
        r
    }

    fn check_value_dec_inner(&mut self, vd: &ValueDec) -> R<()> {
        let var_start = self.u.tvar_count();
        let svar_start = self.u.svar_count();
        let lit_start = self.pending_lits.len();
        let static_start = self.pending_static.len();
        let mark = self.scope.len();
        let lifted_mark = self.lifted.len();
        let index = self.out.decls.len();
        let dref = DeclRef {
            module_path: self.module_path.clone(),
            name: vd.name.clone(),
            index,
        };
        let binding = self.new_binding();
        self.level += 1;
        let (explicit_sizes, explicit_types) = self.bind_type_params(&vd.type_params);
        let self_ty = self.fresh();
        // Named functions may call themselves; operators are not in scope in their bodies
        // (`def (+) a b = (a.0 + b.0, ...)` in a module means the outer `+`).
        let rec = if vd.params.is_empty() || vd.operator {
            None
        } else {
            Some((
                vd.name.as_str(),
                ValEntry::RecDecl {
                    dref: dref.clone(),
                    ty: self_ty.clone(),
                },
            ))
        };
        let r = self.check_function(&vd.params, vd.ret.as_ref(), &vd.body, rec);
        self.level -= 1;
        self.scope.truncate(mark);
        let lifted_names: Vec<String> = self.lifted.split_off(lifted_mark);
        let (ptys, result, deps, consumes) = r?;
        let fn_ty = arrows(ptys.clone(), result.clone());
        self.expect(
            vd.name_span,
            "this recursive use does not match the function's type",
            &self_ty,
            &fn_ty,
        )?;
        let _ = lifted_names;

        self.finish_constraints(var_start, lit_start)?;

        // Generalise.
        let fn_res = self.u.resolve(&fn_ty);
        let mut avoid = type_param_names(&vd.type_params);
        let mut tparams = explicit_types;
        self.param_counter = 0;
        let mut free = Vec::new();
        free_vars(&fn_res, &mut free);
        for v in free {
            if (v.0 as usize) < var_start || self.u.is_bound(v) {
                continue;
            }
            let lifted = !self.u.info(v).is_some_and(|i| i.no_fun);
            let name = self.fresh_param_name(&avoid);
            avoid.push(name.clone());
            self.u.set(v, Ty::Param(name.clone()));
            tparams.push((name, lifted));
        }
        let mut sparams = explicit_sizes;
        let explicit_count = sparams.len();
        self.generalise_sizes(&ptys, svar_start, &mut sparams, &avoid);
        self.check_static_sizes(static_start, &sparams[explicit_count..], &ptys)?;
        // Sizes of the result only (or nowhere) are unknown.
        let fn_res = self.u.resolve(&fn_ty);
        let mut leftover = Vec::new();
        free_size_vars(&fn_res, &mut leftover);
        for v in leftover {
            if (v.0 as usize) >= svar_start {
                self.u.set_size(v, Size::Unknown);
            }
        }
        let Settled {
            ty: fn_res,
            params: ptys_res,
            deps,
            static_sizes,
        } = self.settle(&fn_ty, &ptys, deps, &sparams, explicit_count);
        let tparams_empty = tparams.is_empty();
        let static_sizes_of_entry: SizeParams = static_sizes
            .iter()
            .filter(|s| sparams[..explicit_count].contains(s))
            .cloned()
            .collect();
        let scheme = Rc::new(Scheme {
            name: vd.name.clone(),
            tparams: tparams.clone(),
            sparams: sparams.clone(),
            deps,
            consumes: consumes.clone(),
            static_sizes,
            ty: fn_res.clone(),
        });
        self.out.size_params.insert(vd.body.id, sparams.clone());
        self.out.decl_bindings.insert(binding, dref.clone());
        self.out.decls.push(DeclInfo {
            decl: dref.clone(),
            location: DecPath {
                in_prelude: self.in_prelude,
                path: self.dec_path.clone(),
            },
            body: vd.body.id,
            type_params: tparams,
            size_params: sparams,
            ty: fn_res.clone(),
            binding,
            intrinsic: matches!(strip(&vd.body).kind, ExpKind::Hole),
        });
        if !self.in_prelude && self.module_path.is_empty() && (vd.entry || vd.name == "main") {
            if vd.name.contains('\'') {
                return Err(err(
                    vd.name_span,
                    format!("entry point name `{}` must not contain `'`", vd.name),
                ));
            }
            if !tparams_empty {
                return Err(Box::new(
                    Diagnostic::error(
                        vd.name_span,
                        format!("entry point `{}` must not be polymorphic", vd.name),
                    )
                    .with_label(format!("its type is `{fn_res}`"))
                    .with_note("annotate the parameters with concrete types"),
                ));
            }
            let mut params = ptys_res;
            let mut unique_params = consumes;
            let mut ret = self.u.resolve(&result);
            while let Ty::Arrow(a, b) = ret {
                params.push(*a);
                unique_params.push(false);
                ret = *b;
            }
            // The caller of an entry point gives its arguments, not its sizes: every declared
            // size must be (part of) the size of an array argument.
            for (name, b) in &static_sizes_of_entry {
                if !params.iter().any(|t| ty_mentions(t, *b)) {
                    let span = vd
                        .type_params
                        .iter()
                        .find_map(|tp| match tp {
                            TypeParam::Size { name: n, span } if n == name => Some(*span),
                            _ => None,
                        })
                        .unwrap_or(vd.name_span);
                    return Err(Box::new(
                        Diagnostic::error(
                            span,
                            format!(
                                "the size `{name}` of entry point `{}` is not the size of any array parameter",
                                vd.name
                            ),
                        )
                        .with_label(format!("`{name}` cannot be determined from the arguments"))
                        .with_note("use it as the size of a parameter, or return an array of unknown size (`[]t`)"),
                    ));
                }
            }
            self.out.entries.retain(|e| e.name != vd.name);
            self.out.entries.push(EntrySig {
                name: vd.name.clone(),
                decl: dref.clone(),
                params,
                unique_params,
                ret,
            });
        }
        self.declare(&vd.name, Item::Val(ValEntry::Decl { dref, scheme }));
        Ok(())
    }

    /// Whether the body of the function checked last names the binding `b` (as a value or
    /// in a size).
    fn body_refers_to(&self, b: BindingId) -> bool {
        self.local_uses[self.body_uses_start.min(self.local_uses.len())..].contains(&b)
    }

    /// The facts of a function's scheme that follow from its type once its type and size
    /// parameters are generalised: which parameters sizes depend on (those of type `i64` the
    /// type mentions) and which size parameters must be known statically (those that no
    /// parameter type has as a whole dimension). The first `explicit` size parameters are the
    /// declared ones, which the body may use as values: one the body names must be a
    /// dimension of a parameter that is not a function (`def app [n] (g: [n]f64 -> f64) ...`
    /// cannot read `n` from `g`), or else be known at each call.
    fn settle(
        &self,
        fn_ty: &Ty,
        ptys: &[Ty],
        deps: Vec<Option<BindingId>>,
        sparams: &SizeParams,
        explicit: usize,
    ) -> Settled {
        let ty = self.u.resolve(fn_ty);
        let params: Vec<Ty> = ptys.iter().map(|t| self.u.resolve(t)).collect();
        let deps = deps
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                d.filter(|b| {
                    params.get(i) == Some(&Ty::Prim(PrimType::I64)) && ty_mentions(&ty, *b)
                })
            })
            .collect();
        let static_sizes = sparams
            .iter()
            .enumerate()
            .filter(|(i, (_, b))| {
                if *i < explicit && !params.iter().any(|t| bare_in_value(t, *b)) {
                    !params.iter().any(|t| bare_in(t, *b)) || self.body_refers_to(*b)
                } else {
                    !params.iter().any(|t| bare_in(t, *b))
                }
            })
            .map(|(_, s)| s)
            .cloned()
            .collect();
        Settled {
            ty,
            params,
            deps,
            static_sizes,
        }
    }

    /// Turns free size variables of parameter types (created since `svar_start`, above the
    /// current level) into implicit size parameters.
    fn generalise_sizes(
        &mut self,
        ptys: &[Ty],
        svar_start: usize,
        sparams: &mut Vec<(String, BindingId)>,
        avoid: &[String],
    ) {
        let mut vs = Vec::new();
        for t in ptys {
            free_size_vars(&self.u.resolve(t), &mut vs);
        }
        let names = ["n", "m", "k", "l", "p", "q"];
        let mut counter = 0usize;
        for v in vs {
            if (v.0 as usize) < svar_start
                || self.u.size_is_bound(v)
                || self.u.size_level(v) <= self.level
            {
                continue;
            }
            let name = loop {
                let base = names[counter % names.len()];
                let cand = if counter < names.len() {
                    base.to_string()
                } else {
                    format!("{base}{}", counter / names.len())
                };
                counter += 1;
                if !avoid.contains(&cand) && !sparams.iter().any(|(n, _)| *n == cand) {
                    break cand;
                }
            };
            let b = self.new_binding();
            self.u.set_size(v, Size::Named(b, name.clone()));
            sparams.push((name, b));
        }
    }

    /// Defaulting and the checks that wait until a top-level declaration is inferred.
    fn finish_constraints(&mut self, var_start: usize, lit_start: usize) -> R<()> {
        for i in var_start..self.u.tvar_count() {
            let v = TyVar(i as u32);
            if self.u.is_bound(v) {
                continue;
            }
            let Some(info) = self.u.info(v).cloned() else {
                continue;
            };
            if let Some(span) = info.field_span.filter(|_| info.fields.is_some()) {
                let f = info
                    .fields
                    .as_ref()
                    .and_then(|f| f.keys().next().cloned())
                    .unwrap_or_default();
                return Err(Box::new(
                    Diagnostic::error(
                        span,
                        format!("the type of this expression must be known to access field `{f}`"),
                    )
                    .with_label("type not known here")
                    .with_note("add a type annotation"),
                ));
            }
            if let Some(p) = info.prims.and_then(PrimSet::default_type) {
                self.u.set(v, Ty::Prim(p));
            }
            // A type only known to have some constructors is the sum of those (Futhark).
            if let Some(cs) = info.constrs {
                self.u.set(v, Ty::Sum(cs));
            }
        }
        self.check_pending_patterns()?;
        // Literal ranges.
        let lits: Vec<(Span, NodeId, u128)> = self.pending_lits.drain(lit_start..).collect();
        for (span, id, value) in lits {
            let recorded = self.out.exp_types.get(&id);
            // Literal patterns (`case 300`) are checked too.
            let recorded = recorded.or_else(|| self.out.pat_types.get(&id));
            let Some(t) = recorded.map(|t| self.u.resolve(t)) else {
                continue;
            };
            if let Ty::Prim(p) = t
                && p.is_int()
            {
                let bits = p.bits();
                let neg = self.negated_lits.contains(&id);
                let max: u128 = if p.is_signed_int() {
                    (1u128 << (bits - 1)) - 1 + u128::from(neg)
                } else {
                    (1u128 << bits) - 1
                };
                if value > max {
                    return Err(Box::new(
                        Diagnostic::error(
                            span,
                            format!("integer literal does not fit in type `{p}`"),
                        )
                        .with_label(format!(
                            "the largest `{p}` is {}",
                            (1u128 << (bits - u32::from(p.is_signed_int()))) - 1
                        )),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Sizes that must be known statically (docs/language.md §Size rules), checked once the
    /// declaration's implicit size parameters are generalised: a size that became one of them (`[]`
    /// in a parameter type) is known.
    /// An implicit parameter counts only where some parameter type has it as a whole
    /// dimension (`def f xs = unflatten xs` cannot tell the sizes of `unflatten`).
    fn check_static_sizes(
        &mut self,
        static_start: usize,
        implicit: &[(String, BindingId)],
        ptys: &[Ty],
    ) -> R<()> {
        let ptys: Vec<Ty> = ptys.iter().map(|t| self.u.resolve(t)).collect();
        let pend: Vec<PendingStatic> = self.pending_static.drain(static_start..).collect();
        for p in pend {
            let s = self.u.resolve_size(&p.size);
            let hidden = implicit
                .iter()
                .any(|(_, b)| size_mentions(&s, *b) && !ptys.iter().any(|t| bare_in(t, *b)));
            if hidden || !size_is_known(&s) {
                return Err(Box::new(
                    Diagnostic::error(p.span, format!("cannot determine the size `{}` of `{}`", p.size_name, p.func))
                        .with_label(format!("size `{}` must be known here", p.size_name))
                        .with_note("give the argument or the result a type with this size, e.g. with `:>` or `sized`"),
                ));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_let_fun(
        &mut self,
        e: &Exp,
        name: &str,
        name_span: Span,
        type_params: &[TypeParam],
        params: &[Pat],
        ret: Option<&TypeExp>,
        value: &Exp,
        body: &Exp,
    ) -> R<Ty> {
        let svar_start = self.u.svar_count();
        let mark = self.scope.len();
        let lifted_mark = self.lifted.len();
        self.level += 1;
        let (explicit_sizes, explicit_types) = self.bind_type_params(type_params);
        self.barrier += 1;
        let r = self.check_function(params, ret, value, None);
        self.barrier -= 1;
        self.level -= 1;
        self.scope.truncate(mark);
        self.lifted.truncate(lifted_mark);
        let (ptys, result, deps, consumes) = r?;
        let fn_ty = arrows(ptys.clone(), result);
        let fn_res = self.u.resolve(&fn_ty);
        let mut tparams = explicit_types;
        let mut free = Vec::new();
        free_vars(&fn_res, &mut free);
        // A variable that only constructors constrain stays a variable (it is closed when the
        // top-level declaration is finished), and so must the types of its payloads, which
        // a type parameter could not stand for outside this function.
        let mut pinned = Vec::new();
        let mut work: Vec<TyVar> = free.clone();
        while let Some(v) = work.pop() {
            let Some(cs) = self.u.info(v).and_then(|i| i.constrs.clone()) else {
                continue;
            };
            for t in cs.values().flatten() {
                let mut inner = Vec::new();
                free_vars(&self.u.resolve(t), &mut inner);
                for w in inner {
                    if !pinned.contains(&w) {
                        pinned.push(w);
                        work.push(w);
                    }
                }
            }
        }
        for v in free {
            let Some(info) = self.u.info(v).cloned() else {
                continue;
            };
            if self.u.is_bound(v)
                || pinned.contains(&v)
                || info.level <= self.level
                || info.prims.is_some()
                || info.fields.is_some()
                || info.constrs.is_some()
            {
                continue;
            }
            let pname = format!("t{}", self.next_binding - FIRST_CHECKER_BINDING);
            self.next_binding = self.next_binding.wrapping_add(1);
            self.u.set(v, Ty::Param(pname.clone()));
            tparams.push((pname, !info.no_fun));
        }
        let mut sparams = explicit_sizes;
        let explicit_count = sparams.len();
        self.generalise_sizes(
            &ptys,
            svar_start,
            &mut sparams,
            &type_param_names(type_params),
        );
        let Settled {
            ty: fn_res,
            deps,
            static_sizes,
            ..
        } = self.settle(&fn_ty, &ptys, deps, &sparams, explicit_count);
        let binding = self.new_binding();
        let scheme = Rc::new(Scheme {
            name: name.to_string(),
            tparams: tparams.clone(),
            sparams: sparams.clone(),
            deps,
            consumes,
            static_sizes,
            ty: fn_res.clone(),
        });
        let _ = name_span;
        self.out.size_params.insert(value.id, sparams);
        self.out.local_functions.insert(
            e.id,
            LocalFunInfo {
                binding,
                type_params: tparams,
                ty: fn_res,
            },
        );
        let mark = self.scope.len();
        self.push_val(
            name,
            ValEntry::LocalFun {
                id: binding,
                scheme,
            },
        );
        let r = self.check_exp(body);
        self.scope.truncate(mark);
        r
    }
}
