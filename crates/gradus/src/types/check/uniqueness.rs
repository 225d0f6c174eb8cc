//! The partial uniqueness check (docs/language.md §Uniqueness): what consuming a variable means,
//! and which variables a `let`-bound name aliases.
//!
//! See the module doc of [`super`] for exactly what is and is not checked.

use super::{Checker, R, strip};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::types::Resolved;
use crate::types::ty::{BindingId, Ty};
use std::collections::HashMap;

impl Checker {
    pub(super) fn consume(&mut self, e: &Exp) -> R<()> {
        let e = strip(e);
        if let ExpKind::Var(q) = &e.kind
            && q.is_unqualified()
            && let Some(Resolved::Local(b)) = self.out.resolved.get(&e.id)
        {
            let b = *b;
            let mut all = vec![b];
            all.extend(self.aliases.get(&b).into_iter().flatten().copied());
            if all
                .iter()
                .any(|x| self.binding_depth.get(x).is_some_and(|d| *d < self.barrier))
            {
                return Err(Box::new(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "cannot consume `{}` here: it is bound outside this lambda, loop or local function",
                            q.name
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("consume a copy instead (`copy`), or pass it as a loop parameter"),
                ));
            }
            if all[1..].iter().any(|x| self.nonunique_params.contains(x)) {
                return Err(Box::new(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "cannot consume `{}`: it aliases a parameter that is not declared unique",
                            q.name
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("consume a copy instead (`copy`), or declare the parameter unique (`*`)"),
                ));
            }
            if self.nonunique_params.contains(&b) {
                return Err(Box::new(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "cannot consume `{}`: it is a parameter that is not declared unique",
                            q.name
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("declare the parameter's type with `*` to allow consuming it"),
                ));
            }
            for x in all {
                self.consumed.insert(x, e.span);
            }
        }
        Ok(())
    }

    /// The local bindings whose memory the value of `e` may share: `e` is a variable, or a
    /// row, slice or field of one that is itself an array or contains one.
    pub(super) fn alias_roots(&self, e: &Exp) -> Vec<BindingId> {
        let e = strip(e);
        let shares = |t: Option<&Ty>| {
            let t = t.map(|t| self.u.resolve(t));
            fn has_array(t: &Ty) -> bool {
                match t {
                    Ty::Array(..) => true,
                    Ty::Record(fs) => fs.values().any(has_array),
                    Ty::Sum(cs) => cs.values().flatten().any(has_array),
                    _ => false,
                }
            }
            t.as_ref().is_some_and(has_array)
        };
        match &e.kind {
            ExpKind::Var(_) => {
                let root = match self.out.resolved.get(&e.id) {
                    Some(Resolved::Local(b)) => Some(*b),
                    Some(Resolved::Project { base, .. }) => match **base {
                        Resolved::Local(b) if shares(self.out.exp_types.get(&e.id)) => Some(b),
                        _ => None,
                    },
                    _ => None,
                };
                let mut v: Vec<BindingId> = root.into_iter().collect();
                if let Some(b) = root {
                    v.extend(self.aliases.get(&b).into_iter().flatten().copied());
                }
                v
            }
            ExpKind::Index { target, .. } | ExpKind::Project { target, .. }
                if shares(self.out.exp_types.get(&e.id)) =>
            {
                self.alias_roots(target)
            }
            _ => Vec::new(),
        }
    }
}

/// The parts of a loop's initial value whose parameters the body consumed.
pub(super) fn consumed_init_parts<'a>(
    pat: &Pat,
    init: &'a Exp,
    consumed: &HashMap<BindingId, Span>,
    out: &mut Vec<&'a Exp>,
) {
    let init = strip(init);
    match (&pat.kind, &init.kind) {
        (PatKind::Tuple(ps), ExpKind::Tuple(es)) if ps.len() == es.len() => {
            for (p, e) in ps.iter().zip(es) {
                consumed_init_parts(p, e, consumed, out);
            }
        }
        (PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. }, _) => {
            consumed_init_parts(pat, init, consumed, out)
        }
        _ => {
            let mut ids = Vec::new();
            pat_binders(pat, &mut ids);
            if ids.iter().any(|b| consumed.contains_key(b)) {
                out.push(init);
            }
        }
    }
}

fn pat_binders(p: &Pat, out: &mut Vec<BindingId>) {
    match &p.kind {
        PatKind::Name(_) => out.push(BindingId(p.id.0)),
        PatKind::Tuple(ps) => ps.iter().for_each(|q| pat_binders(q, out)),
        PatKind::Record(fs) => fs.iter().for_each(|f| pat_binders(&f.pat, out)),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => pat_binders(pat, out),
        PatKind::Constructor { args, .. } => args.iter().for_each(|q| pat_binders(q, out)),
        PatKind::Wildcard | PatKind::Literal(_) => {}
    }
}
