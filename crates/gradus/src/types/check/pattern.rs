//! Patterns: their types and the names they bind, and the initial value of the shorthand
//! `loop p for ...`.
//!
//! Binders are returned, not pushed, so the caller decides when the names come into scope.
//! Literal patterns are accepted only in `case` (`Checker::in_case`); a constructor pattern
//! elsewhere is recorded, to be checked for being the only constructor of its type once the
//! type is known (`exhaustive.rs`).

use super::{Anon, Binder, Checker, R, add_field, err};
use crate::core::scalar::PrimType;
use crate::diag::Diagnostic;
use crate::syntax::ast::*;
use crate::types::infer::PrimSet;
use crate::types::ty::{BindingId, Ty};
use std::collections::BTreeMap;

impl Checker {
    pub(super) fn check_pat(&mut self, p: &Pat, anon: Anon, out: &mut Vec<Binder>) -> R<Ty> {
        let t = match &p.kind {
            PatKind::Name(n) => {
                if out.iter().any(|b| b.name == *n) {
                    return Err(Box::new(
                        Diagnostic::error(
                            p.span,
                            format!("`{n}` is bound twice in the same pattern"),
                        )
                        .with_label("bound again here"),
                    ));
                }
                let t = self.fresh();
                out.push(Binder {
                    name: n.clone(),
                    id: BindingId(p.id.0),
                    ty: t.clone(),
                });
                t
            }
            PatKind::Wildcard => self.fresh(),
            PatKind::Tuple(ps) => {
                let mut v = Vec::new();
                for q in ps {
                    v.push(self.check_pat(q, anon, out)?);
                }
                Ty::tuple(v)
            }
            PatKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let t = self.check_pat(&f.pat, anon, out)?;
                    add_field(&mut m, &f.name, f.name_span, t)?;
                }
                Ty::Record(m)
            }
            PatKind::Ascribe { pat, ty } => {
                let at = self.resolve_type(ty, anon)?;
                let it = self.check_pat(pat, anon, out)?;
                self.expect(
                    p.span,
                    "the pattern does not match its type annotation",
                    &at,
                    &it,
                )?;
                at
            }
            PatKind::Constructor { name, args } => {
                let mut payload = Vec::new();
                for a in args {
                    payload.push(self.check_pat(a, anon, out)?);
                }
                if !self.in_case {
                    self.pending_constr_pats.push((p.id, p.span, name.clone()));
                }
                let t = self.fresh();
                if let Err(e) = self.u.require_constr(t.clone(), name, &payload) {
                    return Err(self.mismatch(
                        p.span,
                        "the payload of this constructor pattern has the wrong type",
                        &t,
                        &t,
                        e,
                    ));
                }
                t
            }
            PatKind::Literal(lit) if self.in_case => match lit {
                PatLit::Int { negative, lit } => {
                    // Range-checked with the expression literals, at the declaration's end.
                    self.pending_lits.push((p.span, p.id, lit.value));
                    if *negative {
                        self.negated_lits.insert(p.id);
                    }
                    match lit.suffix {
                        Some(p) => Ty::Prim(p),
                        None => self.fresh_constrained(PrimSet::numeric()),
                    }
                }
                PatLit::Float { lit, .. } => match lit.suffix {
                    Some(p) => Ty::Prim(p),
                    None => self.fresh_constrained(PrimSet::float()),
                },
                PatLit::Bool(_) => Ty::Prim(PrimType::Bool),
                PatLit::Char(_) => self.fresh_constrained(PrimSet::integral()),
            },
            PatKind::Literal(_) => {
                return Err(Box::new(
                    Diagnostic::error(
                        p.span,
                        "refutable pattern: literals may appear only in `case`",
                    )
                    .with_label("this pattern may fail to match"),
                ));
            }
            PatKind::Attr { pat, .. } => self.check_pat(pat, anon, out)?,
        };
        self.out.pat_types.insert(p.id, t.clone());
        Ok(t)
    }

    /// The initial value of `loop p for ...`: the variables named like the parameters.
    pub(super) fn shorthand_init(&mut self, p: &Pat) -> R<Ty> {
        match &p.kind {
            PatKind::Name(n) => {
                let q = QualName::unqualified(n.clone());
                let (entry, name, _) = self.lookup_qual(&q, p.span)?;
                let (t, res, _) = self.use_entry(&entry, &name, p.id, p.span)?;
                self.out.resolved.insert(p.id, res);
                Ok(t)
            }
            PatKind::Tuple(ps) => {
                let mut v = Vec::new();
                for q in ps {
                    v.push(self.shorthand_init(q)?);
                }
                Ok(Ty::tuple(v))
            }
            PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => self.shorthand_init(pat),
            _ => Err(err(
                p.span,
                "the shorthand `loop p for ...` needs parameters that are names",
            )),
        }
    }
}
