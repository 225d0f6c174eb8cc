//! Type expressions to types: abbreviations with their arguments, arrays, tuples, records,
//! functions with named parameters and existential sizes; and size expressions to sizes.
//!
//! An anonymous size `[]` becomes a fresh size variable or an unknown size, as the caller
//! says ([`Anon`]).

use super::typeops::{forget, subst, unknown_ops};
use super::{AbbrParam, Anon, Checker, R, ValEntry, add_field, err, strip};
use crate::core::scalar::PrimType;
use crate::diag::Diagnostic;
use crate::syntax::ast::*;
use crate::types::Resolved;
use crate::types::ty::{Size, Ty};
use std::collections::{BTreeMap, HashMap, HashSet};

impl Checker {
    pub(super) fn resolve_type(&mut self, te: &TypeExp, anon: Anon) -> R<Ty> {
        match &te.kind {
            TypeExpKind::Prim(p) => Ok(Ty::Prim(*p)),
            TypeExpKind::Named { name, args } => {
                let abbr = if name.is_unqualified() {
                    self.lookup_type(&name.name)
                } else {
                    self.lookup_mod_path(&name.qualifiers, te.span)?
                        .types
                        .get(&name.name)
                        .cloned()
                };
                let abbr = match abbr {
                    Some(a) => a,
                    None => match PrimType::from_name(&name.name) {
                        Some(p) if name.is_unqualified() && args.is_empty() => {
                            return Ok(Ty::Prim(p));
                        }
                        _ => {
                            return Err(Box::new(
                                Diagnostic::error(te.span, format!("unknown type `{name}`"))
                                    .with_label("not found in this scope"),
                            ));
                        }
                    },
                };
                if args.len() != abbr.params.len() {
                    return Err(err(
                        te.span,
                        format!(
                            "type `{name}` takes {} argument(s) but {} were given",
                            abbr.params.len(),
                            args.len()
                        ),
                    ));
                }
                let mut tm = HashMap::new();
                let mut sm = HashMap::new();
                for (p, a) in abbr.params.iter().zip(args) {
                    match (p, a) {
                        (AbbrParam::Size(b), TypeArg::Size(se, _)) => {
                            let s = self.size_exp(se, anon)?;
                            sm.insert(*b, s);
                        }
                        (AbbrParam::Type(n), TypeArg::Type(t)) => {
                            let t = self.resolve_type(t, anon)?;
                            tm.insert(n.clone(), t);
                        }
                        (AbbrParam::Size(_), TypeArg::Type(t)) => {
                            return Err(err(
                                t.span,
                                format!("type `{name}` expects a size argument `[...]` here"),
                            ));
                        }
                        (AbbrParam::Type(_), TypeArg::Size(_, sp)) => {
                            return Err(err(
                                *sp,
                                format!("type `{name}` expects a type argument here"),
                            ));
                        }
                    }
                }
                Ok(unknown_ops(&subst(&abbr.ty, &tm, &sm)))
            }
            TypeExpKind::Array { size, elem, .. } => {
                let e = self.resolve_type(elem, anon)?;
                if self.u.resolve(&e).contains_function() {
                    return Err(err(te.span, "arrays of functions are not allowed"));
                }
                let d = self.size_exp(size, anon)?;
                Ok(self.u.resolve(&e).array_of(d))
            }
            TypeExpKind::Tuple(ts) => {
                let mut v = Vec::new();
                for t in ts {
                    v.push(self.resolve_type(t, anon)?);
                }
                Ok(Ty::tuple(v))
            }
            TypeExpKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let t = self.resolve_type(&f.ty, anon)?;
                    add_field(&mut m, &f.name, f.name_span, t)?;
                }
                Ok(Ty::Record(m))
            }
            TypeExpKind::Function {
                param_name,
                param,
                ret,
            } => {
                let p = self.resolve_type(param, anon)?;
                let mark = self.scope.len();
                let mut ids = HashSet::new();
                if let Some((n, _)) = param_name {
                    let b = self.new_binding();
                    ids.insert(b);
                    self.push_val(
                        n,
                        ValEntry::Local {
                            id: b,
                            ty: p.clone(),
                        },
                    );
                }
                let r = self.resolve_type(ret, Anon::Unknown);
                self.scope.truncate(mark);
                let r = r?;
                Ok(Ty::Arrow(
                    Box::new(p),
                    Box::new(forget(&self.u.resolve(&r), &ids)),
                ))
            }
            TypeExpKind::Unique(t) => self.resolve_type(t, anon),
            TypeExpKind::Sum(cs) => {
                let mut m = BTreeMap::new();
                for c in cs {
                    let mut payload = Vec::new();
                    for a in &c.args {
                        payload.push(self.resolve_type(a, anon)?);
                    }
                    if m.insert(c.name.clone(), payload).is_some() {
                        return Err(err(
                            c.span,
                            format!("constructor `#{}` appears twice in this sum type", c.name),
                        ));
                    }
                }
                Ok(Ty::Sum(m))
            }
            TypeExpKind::Existential { sizes, ty } => {
                let mark = self.scope.len();
                let mut ids = HashSet::new();
                for s in sizes {
                    ids.insert(self.bind_size(&s.name));
                }
                let r = self.resolve_type(ty, anon);
                self.scope.truncate(mark);
                Ok(forget(&self.u.resolve(&r?), &ids))
            }
        }
    }

    fn size_exp(&mut self, se: &SizeExp, anon: Anon) -> R<Size> {
        match se {
            SizeExp::Any => Ok(match anon {
                Anon::Fresh => self.fresh_size(),
                Anon::Unknown => Size::Unknown,
            }),
            SizeExp::Exp(e) => {
                self.check_exp_as(e, "a size must have type `i64`", &Ty::Prim(PrimType::I64))?;
                Ok(self.exp_to_size(e).unwrap_or(Size::Unknown))
            }
        }
    }

    /// The size an (already checked) `i64` expression denotes, if it can be written as one.
    pub(super) fn exp_to_size(&self, e: &Exp) -> Option<Size> {
        let e = strip(e);
        match &e.kind {
            ExpKind::Int(l) => i64::try_from(l.value).ok().map(Size::Const),
            ExpKind::Var(q) => {
                let t = self.out.exp_types.get(&e.id).map(|t| self.u.resolve(t));
                if t != Some(Ty::Prim(PrimType::I64)) {
                    return None;
                }
                match self.out.resolved.get(&e.id)? {
                    Resolved::Local(b) => Some(Size::Named(*b, q.to_string())),
                    Resolved::Decl(d) => {
                        let info = self.out.decls.get(d.index)?;
                        if matches!(info.ty, Ty::Arrow(..)) {
                            return None;
                        }
                        Some(Size::Named(info.binding, q.to_string()))
                    }
                    _ => None,
                }
            }
            ExpKind::BinOp { lhs, rhs, .. } => {
                let op = match self.out.resolved.get(&e.id)? {
                    Resolved::Builtin { op, .. } => op.as_str(),
                    _ => return None,
                };
                let c = match op {
                    "+" => '+',
                    "-" => '-',
                    "*" => '*',
                    // Division by a non-zero constant (`2 * (n / 2)`), which cannot fail.
                    "/" | "%" if matches!(&strip(rhs).kind, ExpKind::Int(l) if l.value != 0) => {
                        if op == "/" {
                            '/'
                        } else {
                            '%'
                        }
                    }
                    _ => return None,
                };
                Some(Size::Op(
                    c,
                    Box::new(self.exp_to_size(lhs)?),
                    Box::new(self.exp_to_size(rhs)?),
                ))
            }
            _ => None,
        }
    }
}
