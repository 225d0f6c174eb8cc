//! Fresh node ids for a copy of a piece of syntax.
//!
//! Takes a tree (usually a clone) and gives every expression and pattern node in it, including
//! those inside types (size expressions) and module expressions, a fresh [`NodeId`] from the
//! compilation's counter. Spans are kept, so diagnostics still point at the original text.
//! The module eliminator copies a parametric module's body once per application; the type
//! checker's side tables are keyed by node id, so each copy needs ids of its own.

use super::ast::*;

/// Renumbers a declaration.
pub fn dec(d: &mut Dec, ids: &mut NodeIdGen) {
    match &mut d.kind {
        DecKind::Value(v) => {
            for p in &mut v.params {
                pat(p, ids);
            }
            if let Some(t) = &mut v.ret {
                type_exp(t, ids);
            }
            exp(&mut v.body, ids);
        }
        DecKind::TypeAbbrev(t) => type_exp(&mut t.ty, ids),
        DecKind::Module(m) => {
            for p in &mut m.params {
                mod_type(&mut p.sig, ids);
            }
            if let Some(s) = &mut m.sig {
                mod_type(s, ids);
            }
            mod_exp(&mut m.body, ids);
        }
        DecKind::ModuleType(m) => mod_type(&mut m.body, ids),
        DecKind::Open(m) => mod_exp(m, ids),
        DecKind::Local(inner) => dec(inner, ids),
        DecKind::Import { .. } => {}
    }
}

/// Renumbers a module expression.
pub fn mod_exp(m: &mut ModExp, ids: &mut NodeIdGen) {
    match &mut m.kind {
        ModExpKind::Var(_) | ModExpKind::Import(_) => {}
        ModExpKind::Decs(ds) => {
            for d in ds {
                dec(d, ids);
            }
        }
        ModExpKind::Apply(f, a) => {
            mod_exp(f, ids);
            mod_exp(a, ids);
        }
        ModExpKind::Ascribe(e, t) => {
            mod_exp(e, ids);
            mod_type(t, ids);
        }
        ModExpKind::Lambda { param, sig, body } => {
            mod_type(&mut param.sig, ids);
            if let Some(s) = sig {
                mod_type(s, ids);
            }
            mod_exp(body, ids);
        }
    }
}

/// Renumbers a module type.
pub fn mod_type(m: &mut ModTypeExp, ids: &mut NodeIdGen) {
    match &mut m.kind {
        ModTypeExpKind::Var(_) => {}
        ModTypeExpKind::Specs(specs) => {
            for s in specs {
                spec(s, ids);
            }
        }
        ModTypeExpKind::With { base, ty, .. } => {
            mod_type(base, ids);
            type_exp(ty, ids);
        }
        ModTypeExpKind::Arrow { param, result, .. } => {
            mod_type(param, ids);
            mod_type(result, ids);
        }
    }
}

/// Renumbers a specification.
pub fn spec(s: &mut Spec, ids: &mut NodeIdGen) {
    match &mut s.kind {
        SpecKind::Val { ty, .. } => type_exp(ty, ids),
        SpecKind::Type { ty, .. } => {
            if let Some(t) = ty {
                type_exp(t, ids);
            }
        }
        SpecKind::Module { sig, .. } => mod_type(sig, ids),
        SpecKind::Include(t) => mod_type(t, ids),
    }
}

/// Renumbers a type expression (its size expressions).
pub fn type_exp(t: &mut TypeExp, ids: &mut NodeIdGen) {
    match &mut t.kind {
        TypeExpKind::Prim(_) => {}
        TypeExpKind::Named { args, .. } => {
            for a in args {
                match a {
                    TypeArg::Size(s, _) => size_exp(s, ids),
                    TypeArg::Type(t) => type_exp(t, ids),
                }
            }
        }
        TypeExpKind::Array { size, elem, .. } => {
            size_exp(size, ids);
            type_exp(elem, ids);
        }
        TypeExpKind::Tuple(ts) => {
            for t in ts {
                type_exp(t, ids);
            }
        }
        TypeExpKind::Record(fs) => {
            for f in fs {
                type_exp(&mut f.ty, ids);
            }
        }
        TypeExpKind::Function { param, ret, .. } => {
            type_exp(param, ids);
            type_exp(ret, ids);
        }
        TypeExpKind::Unique(t) => type_exp(t, ids),
        TypeExpKind::Sum(cs) => {
            for c in cs {
                for t in &mut c.args {
                    type_exp(t, ids);
                }
            }
        }
        TypeExpKind::Existential { ty, .. } => type_exp(ty, ids),
    }
}

fn size_exp(s: &mut SizeExp, ids: &mut NodeIdGen) {
    if let SizeExp::Exp(e) = s {
        exp(e, ids);
    }
}

/// Renumbers a pattern.
pub fn pat(p: &mut Pat, ids: &mut NodeIdGen) {
    match &mut p.kind {
        PatKind::Name(_) | PatKind::Wildcard | PatKind::Literal(_) => {}
        PatKind::Tuple(ps) | PatKind::Constructor { args: ps, .. } => {
            for q in ps {
                pat(q, ids);
            }
        }
        PatKind::Record(fs) => {
            for f in fs {
                pat(&mut f.pat, ids);
            }
        }
        PatKind::Ascribe { pat: q, ty } => {
            pat(q, ids);
            type_exp(ty, ids);
        }
        PatKind::Attr { pat: q, .. } => pat(q, ids),
    }
    // Children first, as the parser numbers them.
    p.id = ids.fresh();
}

fn dims(ds: &mut [DimIndex], ids: &mut NodeIdGen) {
    for d in ds {
        match d {
            DimIndex::Fix(e) => exp(e, ids),
            DimIndex::Slice { start, end, stride } => {
                for e in [start, end, stride].into_iter().flatten() {
                    exp(e, ids);
                }
            }
        }
    }
}

/// Renumbers an expression.
pub fn exp(e: &mut Exp, ids: &mut NodeIdGen) {
    match &mut e.kind {
        ExpKind::Int(_)
        | ExpKind::Float(_)
        | ExpKind::Bool(_)
        | ExpKind::Char(_)
        | ExpKind::String(_)
        | ExpKind::Var(_)
        | ExpKind::OpSection { .. }
        | ExpKind::ProjectSection { .. }
        | ExpKind::Hole => {}
        ExpKind::Parens(x)
        | ExpKind::Neg(x)
        | ExpKind::Not(x)
        | ExpKind::Project { target: x, .. }
        | ExpKind::LeftSection { left: x, .. }
        | ExpKind::RightSection { right: x, .. }
        | ExpKind::LocalOpen { body: x, .. }
        | ExpKind::Attr { exp: x, .. } => exp(x, ids),
        ExpKind::Tuple(xs) | ExpKind::Array(xs) | ExpKind::Constructor { args: xs, .. } => {
            for x in xs {
                exp(x, ids);
            }
        }
        ExpKind::Record(fs) => {
            for f in fs {
                exp(&mut f.value, ids);
            }
        }
        ExpKind::Index { target, indices } => {
            exp(target, ids);
            dims(indices, ids);
        }
        ExpKind::IndexSection { indices } => dims(indices, ids),
        ExpKind::Apply { func, args } => {
            exp(func, ids);
            for a in args {
                exp(a, ids);
            }
        }
        ExpKind::BinOp { lhs, rhs, .. } => {
            exp(lhs, ids);
            exp(rhs, ids);
        }
        ExpKind::Lambda { params, ret, body } => {
            for p in params {
                pat(p, ids);
            }
            if let Some(t) = ret {
                type_exp(t, ids);
            }
            exp(body, ids);
        }
        ExpKind::Let {
            pat: p,
            value,
            body,
            ..
        } => {
            pat(p, ids);
            exp(value, ids);
            exp(body, ids);
        }
        ExpKind::LetFun {
            params,
            ret,
            value,
            body,
            ..
        } => {
            for p in params {
                pat(p, ids);
            }
            if let Some(t) = ret {
                type_exp(t, ids);
            }
            exp(value, ids);
            exp(body, ids);
        }
        ExpKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            exp(cond, ids);
            exp(then_branch, ids);
            exp(else_branch, ids);
        }
        ExpKind::Loop {
            pat: p,
            init,
            form,
            body,
        } => {
            pat(p, ids);
            if let Some(i) = init {
                exp(i, ids);
            }
            match &mut **form {
                LoopForm::For { var, bound } => {
                    pat(var, ids);
                    exp(bound, ids);
                }
                LoopForm::ForIn { pat: q, array } => {
                    pat(q, ids);
                    exp(array, ids);
                }
                LoopForm::While(c) => exp(c, ids),
            }
            exp(body, ids);
        }
        ExpKind::Update {
            target,
            indices,
            value,
        } => {
            exp(target, ids);
            dims(indices, ids);
            exp(value, ids);
        }
        ExpKind::RecordUpdate { target, value, .. } => {
            exp(target, ids);
            exp(value, ids);
        }
        ExpKind::Range {
            start, second, end, ..
        } => {
            exp(start, ids);
            if let Some(s) = second {
                exp(s, ids);
            }
            exp(end, ids);
        }
        ExpKind::Ascribe { exp: x, ty } | ExpKind::Coerce { exp: x, ty } => {
            exp(x, ids);
            type_exp(ty, ids);
        }
        ExpKind::Assert { cond, body } => {
            exp(cond, ids);
            exp(body, ids);
        }
        ExpKind::Match { scrutinee, cases } => {
            exp(scrutinee, ids);
            for c in cases {
                pat(&mut c.pat, ids);
                exp(&mut c.body, ids);
            }
        }
    }
    e.id = ids.fresh();
}
