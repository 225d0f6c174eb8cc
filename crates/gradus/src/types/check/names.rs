//! Names: instantiation of schemes, resolution of possibly qualified names (module path or
//! field access), field projection, and operators (built-in overloaded or declared).

use super::typeops::{arrows, subst};
use super::{Callee, Checker, PendingStatic, R, Scheme, ValEntry};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::types::infer::PrimSet;
use crate::types::ty::Ty;
use crate::types::{Instance, Resolved};
use std::collections::HashMap;

impl Checker {
    fn instantiate(&mut self, s: &Scheme, node: NodeId, span: Span) -> (Ty, Callee) {
        let mut tm = HashMap::new();
        let mut inst = Instance::default();
        for (n, lifted) in &s.tparams {
            let v = self.u.fresh(self.level, None, !lifted);
            inst.types.push((n.clone(), v.clone()));
            tm.insert(n.clone(), v);
        }
        let mut sm = HashMap::new();
        for (_, b) in &s.sparams {
            let v = self.fresh_size();
            inst.sizes.push((*b, v.clone()));
            sm.insert(*b, v);
        }
        for b in s.deps.iter().flatten() {
            let v = self.fresh_size();
            inst.sizes.push((*b, v.clone()));
            sm.insert(*b, v);
        }
        for (n, b) in &s.static_sizes {
            if let Some(v) = sm.get(b) {
                self.pending_static.push(PendingStatic {
                    span,
                    func: s.name.clone(),
                    size_name: n.clone(),
                    size: v.clone(),
                });
            }
        }
        let ty = subst(&s.ty, &tm, &sm);
        if !inst.types.is_empty() || !inst.sizes.is_empty() {
            self.out.instances.insert(node, inst);
        }
        let deps = s
            .deps
            .iter()
            .map(|d| d.and_then(|b| sm.get(&b).cloned()))
            .collect();
        (
            ty,
            Callee {
                name: s.name.clone(),
                deps,
                consumes: s.consumes.clone(),
                operator: false,
            },
        )
    }

    /// The type of a value entry at a use, its resolution and callee facts.
    pub(super) fn use_entry(
        &mut self,
        v: &ValEntry,
        name: &str,
        node: NodeId,
        span: Span,
    ) -> R<(Ty, Resolved, Callee)> {
        Ok(match v {
            ValEntry::Local { id, ty } => {
                let hit = std::iter::once(id)
                    .chain(self.aliases.get(id).into_iter().flatten())
                    .find_map(|b| self.consumed.get(b));
                if let Some(at) = hit {
                    return Err(Box::new(
                        Diagnostic::error(span, format!("`{name}` is used after being consumed"))
                            .with_label("used here")
                            .with_secondary(*at, "consumed here"),
                    ));
                }
                self.local_uses.push(*id);
                (
                    ty.clone(),
                    Resolved::Local(*id),
                    Callee {
                        name: name.to_string(),
                        ..Default::default()
                    },
                )
            }
            ValEntry::LocalFun { id, scheme } => {
                let (t, c) = self.instantiate(scheme, node, span);
                (t, Resolved::Local(*id), c)
            }
            ValEntry::Decl { dref, scheme, .. } => {
                let (t, c) = self.instantiate(scheme, node, span);
                (t, Resolved::Decl(dref.clone()), c)
            }
            ValEntry::RecDecl { dref, ty } => (
                ty.clone(),
                Resolved::Decl(dref.clone()),
                Callee {
                    name: name.to_string(),
                    ..Default::default()
                },
            ),
        })
    }

    fn unknown_name(span: Span, name: &QualName) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::error(span, format!("unknown name `{name}`"))
                .with_label("not found in this scope"),
        )
    }

    /// Looks up a possibly qualified value name: the entry, the fields projected after it.
    pub(super) fn lookup_qual(
        &self,
        q: &QualName,
        span: Span,
    ) -> R<(ValEntry, String, Vec<String>)> {
        if q.is_unqualified() {
            return match self.lookup_val(&q.name) {
                Some((_, v)) => Ok((v, q.name.clone(), vec![])),
                None => Err(Self::unknown_name(span, q)),
            };
        }
        let root = &q.qualifiers[0];
        let val = self.lookup_val(root);
        let module = self.lookup_mod(root);
        let use_module = match (&val, &module) {
            (Some((vi, v)), Some((mi, _))) => match v {
                ValEntry::Local { .. } | ValEntry::LocalFun { .. } => mi > vi,
                _ => true,
            },
            (None, Some(_)) => true,
            _ => false,
        };
        if use_module {
            let Some((_, mut m)) = module else {
                return Err(Self::unknown_name(span, q));
            };
            let mut comps: Vec<&String> = q.qualifiers[1..].iter().collect();
            comps.push(&q.name);
            let mut i = 0;
            let mut path = vec![root.clone()];
            while i + 1 < comps.len() {
                match m.mods.get(comps[i]) {
                    Some(s) => {
                        path.push(comps[i].clone());
                        m = s.clone();
                        i += 1;
                    }
                    None => break,
                }
            }
            let name = comps[i];
            let v = m.vals.get(name).cloned().ok_or_else(|| {
                Box::new(
                    Diagnostic::error(
                        span,
                        format!("module `{}` has no member `{name}`", path.join(".")),
                    )
                    .with_label("not found in this module"),
                )
            })?;
            let fields = comps[i + 1..].iter().map(|s| (*s).clone()).collect();
            return Ok((v, format!("{}.{name}", path.join(".")), fields));
        }
        match val {
            Some((_, v)) => {
                let mut fields: Vec<String> = q.qualifiers[1..].to_vec();
                fields.push(q.name.clone());
                Ok((v, root.clone(), fields))
            }
            None => Err(Self::unknown_name(span, q)),
        }
    }

    pub(super) fn check_var(&mut self, e: &Exp, q: &QualName) -> R<(Ty, Callee)> {
        let (entry, name, fields) = self.lookup_qual(q, e.span)?;
        let (mut t, res, mut callee) = self.use_entry(&entry, &name, e.id, e.span)?;
        callee.name = name;
        if fields.is_empty() {
            self.out.resolved.insert(e.id, res);
            return Ok((t, callee));
        }
        let base_ty = t.clone();
        for f in &fields {
            t = self.project(&t, f, e.span)?;
        }
        self.out.resolved.insert(
            e.id,
            Resolved::Project {
                base: Box::new(res),
                base_ty,
                fields,
            },
        );
        Ok((
            t,
            Callee {
                name: q.to_string(),
                ..Default::default()
            },
        ))
    }

    pub(super) fn project(&mut self, t: &Ty, field: &str, span: Span) -> R<Ty> {
        match self.u.shallow(t) {
            Ty::Record(fs) => fs.get(field).cloned().ok_or_else(|| {
                Box::new(
                    Diagnostic::error(
                        span,
                        format!("type {} has no field `{field}`", self.show(t)),
                    )
                    .with_label(format!("unknown field `{field}`")),
                )
            }),
            Ty::Var(v) => Ok(self.u.require_field(v, field, Some(span))),
            other => Err(Box::new(
                Diagnostic::error(
                    span,
                    format!("type `{}` has no field `{field}`", self.u.resolve(&other)),
                )
                .with_label(format!("unknown field `{field}`")),
            )),
        }
    }

    /// The function type of an operator (builtin or declared) at one use.
    pub(super) fn check_op(
        &mut self,
        node: NodeId,
        op: &QualName,
        span: Span,
        backtick: bool,
    ) -> R<(Ty, Callee)> {
        if !backtick && op.is_unqualified() && self.lookup_val(&op.name).is_none() {
            if let Some((kind, is_bool)) = builtin_binop(&op.name) {
                let a = match kind {
                    PrimSetKind::Numeric => self.fresh_constrained(PrimSet::numeric()),
                    PrimSetKind::Integral => self.fresh_constrained(PrimSet::integral()),
                    PrimSetKind::Ordered => self.fresh_constrained(PrimSet::ordered()),
                    PrimSetKind::Bool => Ty::Prim(PrimType::Bool),
                    // The "no functions" check comes after the operands; see `BinOp`.
                    PrimSetKind::Equality => self.u.fresh(self.level, None, false),
                };
                let r = if is_bool {
                    Ty::Prim(PrimType::Bool)
                } else {
                    a.clone()
                };
                self.out.resolved.insert(
                    node,
                    Resolved::Builtin {
                        op: op.name.clone(),
                        operand: a.clone(),
                    },
                );
                let t = arrows(vec![a.clone(), a], r);
                return Ok((
                    t,
                    Callee {
                        name: op.name.clone(),
                        operator: true,
                        ..Default::default()
                    },
                ));
            }
            return Err(Box::new(
                Diagnostic::error(span, format!("unknown operator `{op}`"))
                    .with_label("not found in this scope"),
            ));
        }
        let (entry, name, fields) = self.lookup_qual(op, span)?;
        if !fields.is_empty() {
            return Err(Self::unknown_name(span, op));
        }
        let (t, res, mut callee) = self.use_entry(&entry, &name, node, span)?;
        self.out.resolved.insert(node, res);
        self.out.op_types.insert(node, t.clone());
        callee.operator = !backtick;
        callee.name = op.to_string();
        Ok((t, callee))
    }
}

fn builtin_binop(op: &str) -> Option<(PrimSetKind, bool)> {
    // (operand constraint, result is bool)
    Some(match op {
        "+" | "-" | "*" | "/" | "%" | "**" => (PrimSetKind::Numeric, false),
        "//" | "%%" | "&" | "|" | "^" | "<<" | ">>" => (PrimSetKind::Integral, false),
        "==" | "!=" => (PrimSetKind::Equality, true),
        "<" | "<=" | ">" | ">=" => (PrimSetKind::Ordered, true),
        "&&" | "||" => (PrimSetKind::Bool, true),
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum PrimSetKind {
    Numeric,
    Integral,
    Ordered,
    Equality,
    Bool,
}
