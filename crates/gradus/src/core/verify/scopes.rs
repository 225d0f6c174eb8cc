//! Scopes and types for the verifier: frames of bound and consumed variables, binding
//! (unique in the program, dimensions in scope, accumulators only inside `with_acc`), uses
//! (in scope, not consumed) and the type comparisons every construct's check relies on.

use super::{Frame, R, Subst, Verifier, is_i64, type_matches};
use crate::core::ir::{SubExp, Type, Var};
use crate::core::scalar::PrimType;
use std::collections::HashSet;

impl<'a> Verifier<'a> {
    pub(super) fn push_frame(&mut self) {
        self.frames.push(Frame {
            bound: HashSet::new(),
            consumed: HashSet::new(),
        });
    }

    /// Leaves a frame; returns what it consumed of enclosing scopes and of its own bindings.
    pub(super) fn pop_frame(&mut self) -> (HashSet<Var>, HashSet<Var>) {
        let Some(f) = self.frames.pop() else {
            return Default::default();
        };
        for v in &f.bound {
            self.scope.remove(v);
        }
        let (own, free): (HashSet<Var>, HashSet<Var>) =
            f.consumed.into_iter().partition(|v| f.bound.contains(v));
        (free, own)
    }

    /// Binds `v` in the current frame: unique in the program, in the table, its type's
    /// dimensions in scope, accumulators only inside `with_acc`.
    pub(super) fn bind(&mut self, v: Var) -> R {
        let t = self.ty(v)?;
        if !self.bound.insert(v) {
            return self.fail(format!("{} is bound more than once", self.show(v)));
        }
        if matches!(t, Type::Acc { .. }) && self.acc_depth == 0 {
            return self.fail(format!(
                "{} has accumulator type {} outside a with_acc lambda",
                self.show(v),
                self.show_ty(&t)
            ));
        }
        self.check_type_dims(&t, &format!("the type of {}", self.show(v)))?;
        self.scope.insert(v);
        if let Some(f) = self.frames.last_mut() {
            f.bound.insert(v);
        }
        Ok(())
    }

    pub(super) fn use_var(&self, v: Var) -> R<Type> {
        let t = self.ty(v)?;
        if !self.scope.contains(&v) {
            return self.fail(format!("{} is used out of scope", self.show(v)));
        }
        if self.frames.iter().any(|f| f.consumed.contains(&v)) {
            return self.fail(format!("{} is used after it was consumed", self.show(v)));
        }
        Ok(t)
    }

    pub(super) fn use_se(&self, se: &SubExp) -> R<Type> {
        match se {
            SubExp::Const(c) => Ok(Type::Prim(c.prim_type())),
            SubExp::Var(v) => self.use_var(*v),
        }
    }

    pub(super) fn use_ses(&self, ses: &[SubExp]) -> R<Vec<Type>> {
        ses.iter().map(|s| self.use_se(s)).collect()
    }

    pub(super) fn expect_se(&self, se: &SubExp, t: PrimType, what: &str) -> R {
        let st = self.use_se(se)?;
        if st != Type::Prim(t) {
            return self.fail(format!(
                "{what} {} has type {}, expected {t}",
                self.show_se(se),
                self.show_ty(&st)
            ));
        }
        Ok(())
    }

    pub(super) fn consume(&mut self, v: Var) {
        if let Some(f) = self.frames.last_mut() {
            f.consumed.insert(v);
        }
    }

    pub(super) fn check_dim(&self, d: &SubExp, what: &str) -> R {
        let t = match d {
            SubExp::Const(c) => Type::Prim(c.prim_type()),
            SubExp::Var(v) => {
                let t = self.ty(*v)?;
                if !self.scope.contains(v) {
                    return self.fail(format!("size {} in {what} is not in scope", self.show(*v)));
                }
                t
            }
        };
        if !is_i64(&t) {
            return self.fail(format!(
                "size {} in {what} has type {}, expected i64",
                self.show_se(d),
                self.show_ty(&t)
            ));
        }
        Ok(())
    }

    pub(super) fn check_type_dims(&self, t: &Type, what: &str) -> R {
        let dims = match t {
            Type::Prim(_) => return Ok(()),
            Type::Array { dims, .. } => dims,
            Type::Acc { shape, .. } => shape,
        };
        dims.iter().try_for_each(|d| self.check_dim(d, what))
    }

    /// `i64` dimensions that are constants or variables of the table (no scope check).
    pub(super) fn check_type_dims_loose(&self, t: &Type, what: &str) -> R {
        for d in t.dims().iter().chain(match t {
            Type::Acc { shape, .. } => shape.iter(),
            _ => [].iter(),
        }) {
            let dt = self.se_ty(d)?;
            if !is_i64(&dt) {
                return self.fail(format!(
                    "size {} in {what} has type {}, expected i64",
                    self.show_se(d),
                    self.show_ty(&dt)
                ));
            }
        }
        Ok(())
    }

    pub(super) fn expect_type(
        &self,
        expected: &Type,
        actual: &Type,
        subst: &Subst,
        what: &str,
    ) -> R {
        if type_matches(expected, actual, subst) {
            Ok(())
        } else {
            self.fail(format!(
                "{what} has type {}, expected {}",
                self.show_ty(actual),
                self.show_ty(expected)
            ))
        }
    }
}
