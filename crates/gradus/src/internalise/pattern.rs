//! Patterns: binding values to the names a pattern declares.
//!
//! Takes a source pattern and an internalised value of its type and extends the environment;
//! tuples and records are taken apart field by field, so no run-time code is emitted. Sizes that
//! a `let [n] (p: [n]t)` pattern names are bound from the value's dimensions, where the
//! pattern's type has them.

use super::value::{Env, IVal};
use super::{Internaliser, R, bug};
use crate::diag::Span;
use crate::syntax::ast::{Pat, PatKind};
use crate::types::ty::BindingId;
use std::collections::HashSet;
use std::rc::Rc;

impl<'a> Internaliser<'a> {
    /// Binds the sizes of `let [n] (p: [n]t) = e` from the dimensions of the value, at the
    /// positions where the pattern's type has them (the checker made sure each is a
    /// dimension of an array there).
    pub(super) fn bind_let_sizes(&mut self, p: &Pat, v: &IVal, env: &mut Env) {
        let pending: HashSet<BindingId> = self
            .typed
            .size_params
            .get(&p.id)
            .map(|v| v.iter().map(|(_, b)| *b).collect())
            .unwrap_or_default();
        if let Some(t) = self.typed.pat_types.get(&p.id) {
            self.bind_sizes(t, v, &pending, env);
        }
    }

    pub(super) fn bind_pat(&mut self, p: &Pat, v: IVal, env: &mut Env) -> R<()> {
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
            // The test that the value has this constructor (or literal) is made by `match`
            // (`sums.rs`); elsewhere the type has only this constructor.
            PatKind::Constructor { name, args } => {
                let payload = project(&v, &format!("#{name}"), p.span)?;
                for (i, sub) in args.iter().enumerate() {
                    let f = project(&payload, &i.to_string(), sub.span)?;
                    self.bind_pat(sub, f, env)?;
                }
                Ok(())
            }
            PatKind::Literal(_) => Ok(()),
        }
    }
}

pub(super) fn project(v: &IVal, field: &str, span: Span) -> R<IVal> {
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

pub(super) fn record_update(target: IVal, path: &[&str], value: IVal, span: Span) -> R<IVal> {
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

pub(super) fn pat_name(p: &Pat) -> Option<String> {
    match &p.kind {
        PatKind::Name(n) => Some(n.clone()),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => pat_name(pat),
        _ => None,
    }
}
