//! Functions and entry points: `fun` and `entry` definitions with their size parameters,
//! parameters, result types and body, and the `external` signature of an entry point (or the
//! default one, each parameter and result a value of its core type).

use super::{Parser, R};
use crate::core::external::ExternalType;
use crate::core::ir::{EntryInfo, FunDef, Type, Var};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};

impl Parser {
    // Functions ---------------------------------------------------------------------------

    pub(super) fn fun(&mut self) -> R<FunDef> {
        let is_entry = if self.is_word("entry") {
            true
        } else if self.is_word("fun") {
            false
        } else {
            return self.unexpected("`fun` or `entry`");
        };
        self.pos += 1;
        let name = self.name()?;
        let mut size_params = Vec::new();
        if self.eat_punct("[") {
            size_params = self.comma_list("]", |p| {
                let v = p.var()?;
                p.set_type(v, Type::Prim(PrimType::I64));
                Ok(v)
            })?;
        }
        self.punct("(")?;
        let params = self.comma_list(")", |p| p.typed_var())?;
        self.punct(":")?;
        let ret = self.ret()?;
        let mut entry = None;
        if self.is_word("external") {
            self.pos += 1;
            entry = Some(self.external()?);
        } else if is_entry {
            entry = Some(self.default_entry(&name, &params, &ret));
        }
        if entry.is_some() && !is_entry {
            return self.error("a function with `external` must be declared with `entry`");
        }
        let body = self.body()?;
        Ok(FunDef {
            name,
            size_params,
            params,
            body,
            ret,
            entry,
            span: Span::default(),
        })
    }

    /// Entry information for `entry` without `external`: each parameter and result is a value
    /// of its core type.
    pub(super) fn default_entry(&self, name: &str, params: &[Var], ret: &[Type]) -> EntryInfo {
        let names = self.name_table();
        let ext = |t: &Type| ExternalType::Value {
            elem: t.elem(),
            rank: t.rank(),
            text: crate::core::print::print_type(&names, t),
        };
        EntryInfo {
            name: name.to_string(),
            params: params
                .iter()
                .map(|v| (ext(names.ty(*v)), vec![*v]))
                .collect(),
            results: ret.iter().map(|t| (ext(t), 1)).collect(),
        }
    }

    pub(super) fn ext_type(&mut self) -> R<ExternalType> {
        if self.is_word("opaque") {
            self.pos += 1;
            return Ok(ExternalType::Opaque(self.string()?));
        }
        if self.is_word("value") {
            self.pos += 1;
            let elem = self.prim_type()?;
            let rank = self.usize_lit()?;
            let text = self.string()?;
            return Ok(ExternalType::Value { elem, rank, text });
        }
        let span = self.span();
        let text = self.string()?;
        match crate::core::print::value_text_shape(&text) {
            Some((elem, rank)) => Ok(ExternalType::Value { elem, rank, text }),
            None => Err(Diagnostic::error(
                span,
                format!("cannot read element type and rank from {text:?}"),
            )
            .with_note("write `value ELEM RANK \"text\"` or `opaque \"text\"`")),
        }
    }

    pub(super) fn external(&mut self) -> R<EntryInfo> {
        let name = self.name()?;
        self.punct("(")?;
        let params = self.comma_list(")", |p| {
            let t = p.ext_type()?;
            let vs = if p.is_punct("(") {
                p.paren_vars()?
            } else {
                vec![p.var()?]
            };
            Ok((t, vs))
        })?;
        self.punct("->")?;
        self.punct("(")?;
        let results = self.comma_list(")", |p| {
            let t = p.ext_type()?;
            let n = p.usize_lit()?;
            Ok((t, n))
        })?;
        Ok(EntryInfo {
            name,
            params,
            results,
        })
    }
}
