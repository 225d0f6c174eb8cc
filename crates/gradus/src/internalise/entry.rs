//! Entry points: one core function per `entry` declaration.
//!
//! Takes an entry point's signature and gives it fresh parameters (array sizes become size
//! parameters, one per named size), applies the declaration to them and records the external
//! types of the parameters and results. Guarantees the function returns no function values.

use super::pattern::pat_name;
use super::value::{self, IVal};
use super::{Internaliser, R, external_type, i64c, limitation};
use crate::core::ir::{Aux, EntryInfo, FunDef, SubExp, Type, Var};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::types::EntrySig;
use crate::types::ty::{BindingId, Size, Ty};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

impl<'a> Internaliser<'a> {
    pub(super) fn entry(&mut self, sig: &'a EntrySig) -> R<FunDef> {
        self.constants.clear();
        self.em.open_body();
        let decl_index = self.decl_index_of(sig)?;
        let dec = self.decls[decl_index].dec;
        let span = dec.name_span;
        self.em.set_aux(Aux {
            span,
            ..Aux::default()
        });
        unknowable_size(dec, sig)?;
        let mut size_params = Vec::new();
        let mut size_env: HashMap<BindingId, SubExp> = HashMap::new();
        let mut params = Vec::new();
        let mut ext_params = Vec::new();
        let mut args = Vec::new();
        for (k, pty) in sig.params.iter().enumerate() {
            let hint = dec
                .params
                .get(k)
                .and_then(pat_name)
                .unwrap_or_else(|| format!("arg{k}"));
            let mut vars = Vec::new();
            let val =
                self.fresh_value_of_type(pty, &hint, &mut size_params, &mut size_env, &mut vars)?;
            ext_params.push((external_type(pty), vars.clone()));
            params.extend(vars);
            args.push(val);
        }
        let f = self.decl_value(decl_index, None, &Rc::new(HashMap::new()), span)?;
        let result = if args.is_empty() {
            f
        } else {
            self.apply(f, args, span)?
        };
        if result.has_function() {
            return Err(limitation(
                span,
                format!("entry point `{}` returns a function", sig.name),
            ));
        }
        let leaves = result.leaves();
        let ret: Vec<Type> = leaves.iter().map(|l| self.em.ty(l)).collect();
        let mut ext_results = Vec::new();
        let comps = match &sig.ret {
            t if t.tuple_components().is_some() => t
                .tuple_components()
                .unwrap_or_default()
                .into_iter()
                .cloned()
                .collect(),
            Ty::Record(f) if f.is_empty() => Vec::new(),
            t => vec![t.clone()],
        };
        match &result {
            IVal::Record(fields) if comps.len() > 1 || (comps.is_empty() && fields.is_empty()) => {
                for (c, key) in comps.iter().zip(value::ordered_keys(fields)) {
                    ext_results.push((external_type(c), fields[key].leaves().len()));
                }
            }
            _ => {
                if let Some(c) = comps.first() {
                    ext_results.push((external_type(c), leaves.len()));
                }
            }
        }
        let body = self.em.close_body(leaves);
        Ok(FunDef {
            name: format!("entry_{}", sig.name),
            size_params,
            params,
            body,
            ret,
            entry: Some(EntryInfo {
                name: sig.name.clone(),
                params: ext_params,
                results: ext_results,
            }),
            span,
        })
    }

    /// Fresh parameters for a value of type `ty`: arrays get their sizes from size
    /// parameters (one per named size, bound once) or constants.
    fn fresh_value_of_type(
        &mut self,
        ty: &Ty,
        hint: &str,
        size_params: &mut Vec<Var>,
        size_env: &mut HashMap<BindingId, SubExp>,
        vars: &mut Vec<Var>,
    ) -> R<IVal> {
        match ty {
            Ty::Prim(t) => {
                let v = self.em.fresh(hint, Type::Prim(*t));
                vars.push(v);
                Ok(IVal::Leaf(SubExp::Var(v)))
            }
            Ty::Array(dims, elem) => {
                let mut core_dims = Vec::new();
                for d in dims {
                    let se = match d {
                        Size::Const(c) => i64c(*c),
                        Size::Named(b, name) => match size_env.get(b) {
                            Some(se) => *se,
                            None => {
                                let v = self.em.fresh(name, Type::Prim(PrimType::I64));
                                size_params.push(v);
                                size_env.insert(*b, SubExp::Var(v));
                                SubExp::Var(v)
                            }
                        },
                        _ => {
                            let v = self.em.fresh("d", Type::Prim(PrimType::I64));
                            size_params.push(v);
                            SubExp::Var(v)
                        }
                    };
                    core_dims.push(se);
                }
                self.fresh_array_leaves(elem, &core_dims, hint, vars)
            }
            Ty::Record(fields) => {
                let mut out = BTreeMap::new();
                for k in value::ordered_keys(fields) {
                    let v = self.fresh_value_of_type(
                        &fields[k],
                        &format!("{hint}_{k}"),
                        size_params,
                        size_env,
                        vars,
                    )?;
                    out.insert(k.clone(), v);
                }
                Ok(IVal::Record(out))
            }
            Ty::Sum(_) => {
                let rec = sum_record_type(ty);
                self.fresh_value_of_type(&rec, hint, size_params, size_env, vars)
            }
            _ => Err(limitation(
                Span::default(),
                format!("entry-point parameter of type {ty}"),
            )),
        }
    }

    fn fresh_array_leaves(
        &mut self,
        elem: &Ty,
        dims: &[SubExp],
        hint: &str,
        vars: &mut Vec<Var>,
    ) -> R<IVal> {
        match elem {
            Ty::Prim(t) => {
                let v = self.em.fresh(hint, Type::array(*t, dims.to_vec()));
                vars.push(v);
                Ok(IVal::Leaf(SubExp::Var(v)))
            }
            Ty::Array(inner, e) => {
                let mut all = dims.to_vec();
                for d in inner {
                    all.push(match d {
                        Size::Const(c) => i64c(*c),
                        _ => {
                            return Err(limitation(
                                Span::default(),
                                "entry-point arrays with unknown inner sizes",
                            ));
                        }
                    });
                }
                self.fresh_array_leaves(e, &all, hint, vars)
            }
            Ty::Record(fields) => {
                let mut out = BTreeMap::new();
                for k in value::ordered_keys(fields) {
                    let v =
                        self.fresh_array_leaves(&fields[k], dims, &format!("{hint}_{k}"), vars)?;
                    out.insert(k.clone(), v);
                }
                Ok(IVal::Record(out))
            }
            Ty::Sum(_) => self.fresh_array_leaves(&sum_record_type(elem), dims, hint, vars),
            other => Err(limitation(
                Span::default(),
                format!("entry-point parameter with elements of type {other}"),
            )),
        }
    }

    fn decl_index_of(&self, sig: &EntrySig) -> R<usize> {
        self.find_decl(&sig.decl, Span::default())
    }
}

/// The record type that a value of sum type `t` is internalised as (see `sums.rs`): the
/// parameters of an entry point that takes a sum (an opaque value) are its leaves.
/// The error for a size parameter of the entry point that is no whole dimension of any of its
/// parameters (`[k]` tells `k`, `[k * k]` does not), so no call could give it.
fn unknowable_size(dec: &crate::syntax::ast::ValueDec, sig: &EntrySig) -> R<()> {
    fn bare(t: &Ty, name: &str) -> bool {
        match t {
            Ty::Array(dims, e) => {
                dims.iter()
                    .any(|d| matches!(d, Size::Named(_, n) if n == name))
                    || bare(e, name)
            }
            Ty::Record(fs) => fs.values().any(|f| bare(f, name)),
            Ty::Sum(cs) => cs.values().flatten().any(|f| bare(f, name)),
            _ => false,
        }
    }
    for tp in &dec.type_params {
        if let crate::syntax::ast::TypeParam::Size { name, span } = tp
            && !sig.params.iter().any(|t| bare(t, name))
        {
            return Err(Diagnostic::error(
                *span,
                format!(
                    "entry point `{}` cannot be called: its size `{name}` is not a whole \
                     dimension of any parameter",
                    sig.name
                ),
            )
            .with_label(format!(
                "`{name}` cannot be read from the arguments' shapes"
            ))
            .with_note(format!(
                "a dimension such as `[{name} * {name}]` does not determine `{name}`: pass \
                 `{name}` as a parameter, or give the array an unknown size (`[]`)"
            )));
        }
    }
    Ok(())
}

fn sum_record_type(t: &Ty) -> Ty {
    match t {
        Ty::Sum(cs) => {
            let mut fields = BTreeMap::new();
            fields.insert(
                super::sums::TAG.to_string(),
                Ty::Prim(crate::core::scalar::PrimType::I8),
            );
            for (c, payload) in cs {
                let p = payload
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (i.to_string(), t.clone()))
                    .collect();
                fields.insert(format!("#{c}"), Ty::Record(p));
            }
            Ty::Record(fields)
        }
        other => other.clone(),
    }
}
