//! Expressions: the dispatch over the source expression forms.
//!
//! Takes a typed source expression and an environment and returns its internalised value,
//! emitting statements into the current body with the expression's location as their span.
//! Variables, operators and sections resolve to values or function values here; the other
//! forms are handed to the files of their construct.

use super::pattern::{project, record_update};
use super::value::{Callee, Env, FunVal, IVal};
use super::{ClosureDef, Internaliser, R, bug, limitation};
use crate::core::ir::SubExp;
use crate::core::prim::{PrimOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use crate::syntax::ast::{self, ExpKind};
use crate::types::Resolved;
use crate::types::ty::{BindingId, Ty};
use std::collections::BTreeMap;
use std::rc::Rc;

impl<'a> Internaliser<'a> {
    pub(super) fn exp_type(&self, e: &ast::Exp) -> Option<&'a Ty> {
        self.typed.exp_types.get(&e.id)
    }

    pub(super) fn prim_type_of(&self, e: &ast::Exp, default: PrimType) -> PrimType {
        match self.exp_type(e) {
            Some(Ty::Prim(t)) => *t,
            _ => default,
        }
    }

    pub(super) fn leaf(&self, v: &IVal, span: Span) -> R<SubExp> {
        match v {
            IVal::Leaf(se) => Ok(*se),
            _ => Err(bug(span, "expected a primitive or array value")),
        }
    }

    pub(super) fn exp(&mut self, e: &'a ast::Exp, env: &Env) -> R<IVal> {
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
                    tenv: self.tenv.clone(),
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
                    tenv: self.tenv.clone(),
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
                self.em.aux_mut().attrs.push(name);
                let r = self.exp(exp, env);
                self.em.aux_mut().attrs.pop();
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
            ExpKind::Match { scrutinee, cases } => self.match_exp(e, scrutinee, cases, env),
            ExpKind::Constructor { name, args } => self.construct(e, name, args, env),
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

    pub(super) fn var(&mut self, e: &'a ast::Exp, qn: &ast::QualName, env: &Env) -> R<IVal> {
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
                // A polymorphic local function: remember where it is used, so that its body
                // is inlined with the type and size parameters instantiated as they are here
                // (a size parameter that no parameter has as a whole dimension, as `m` of
                // `[m + 1]`, is known only from the instance, in this environment).
                if let IVal::Fun(fv) = &v
                    && matches!(fv.callee, Callee::Closure(_))
                    && fv.args.is_empty()
                    && fv.node.is_none()
                    && self
                        .typed
                        .instances
                        .get(&e.id)
                        .is_some_and(|i| !i.types.is_empty() || !i.sizes.is_empty())
                {
                    let mut fv = (**fv).clone();
                    fv.node = Some(e.id);
                    fv.env = env.clone();
                    v = IVal::Fun(Rc::new(fv));
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

    pub(super) fn find_decl(&self, d: &crate::types::DeclRef, span: Span) -> R<usize> {
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
}

/// An integer literal of magnitude `value` at type `t` (wrapping, so that the negation of
/// the type's minimum's magnitude is exact).
fn int_literal(t: PrimType, value: u128) -> Scalar {
    Scalar::from_i128(t, value as i128)
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
