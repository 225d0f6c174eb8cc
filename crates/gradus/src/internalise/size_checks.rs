//! Run-time size checks and assertions.
//!
//! Takes a value and the sizes it must have (a type ascription, a size coercion, `zip`) and
//! emits, only where the sizes are not already known to be equal, the check of docs/language.md
//! §Run-time errors and the coercion to the new shape.

use super::value::{Env, IVal};
use super::{Internaliser, R};
use crate::core::builder::Builder;
use crate::core::ir::{BasicOp, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::types::ty::Ty;
use std::collections::BTreeMap;

impl<'a> Internaliser<'a> {
    /// Checks array leaves of `v` against the sizes of `ty` (an ascription or coercion).
    pub(super) fn coerce(&mut self, v: IVal, ty: &Ty, env: &Env) -> R<IVal> {
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
                    let arr = self.em.as_var(l, "const");
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

    /// Emits the run-time size check of a coercion of `array` to `shape` (docs/language.md
    /// §Run-time errors: `value of shape [3] cannot match shape of type "[2]f64".`, with the values
    /// of the sizes) and the coercion itself.
    pub(super) fn checked_coerce(&mut self, array: Var, shape: Vec<SubExp>) -> SubExp {
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
        SubExp::Var(self.em.basic(
            BasicOp::Coerce {
                array,
                shape,
                type_text,
            },
            self.em.names.hint(array).to_string().as_str(),
        ))
    }

    pub(super) fn assert(&mut self, cond: SubExp, message: String, args: Vec<SubExp>) {
        if cond == SubExp::Const(Scalar::Bool(true)) {
            return;
        }
        self.em.assert(cond, &message, args);
    }

    /// Checks that every array leaf of `v` has outer size `n` (`zip`, `map2`).
    pub(super) fn coerce_outer(&mut self, v: IVal, n: SubExp) -> R<IVal> {
        let mut out = Vec::new();
        for l in v.leaves() {
            let arr = self.em.as_var(l, "const");
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
}

fn type_text(t: &Type, em: &Builder<'_>) -> String {
    let mut s = String::new();
    for d in t.dims() {
        s.push_str(&format!("[{}]", show_dim(em, d)));
    }
    s.push_str(t.elem().name());
    s
}

fn show_dim(em: &Builder<'_>, d: &SubExp) -> String {
    match d {
        SubExp::Const(c) => c.as_i64().map_or("?".into(), |v| v.to_string()),
        SubExp::Var(v) => em.names.hint(*v).to_string(),
    }
}
