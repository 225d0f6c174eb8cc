//! Variables, types and operands: `name_id` variables (one hint per number, the type from the
//! first binding site), the name table built from them, types and dimensions, constants and
//! the lists of operands and variables the grammar uses.

use super::tokens::{Tok, parse_number};
use super::{MAX_VAR, Parser, R, VarInfo};
use crate::core::ir::{NameTable, SubExp, Type, Var};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Diagnostic;

impl Parser {
    // Variables ---------------------------------------------------------------------------

    /// The variable named by the current token (a use or a binding without type).
    pub(super) fn var(&mut self) -> R<Var> {
        let span = self.span();
        let Some(Tok::Ident(s)) = self.peek().cloned() else {
            return self.unexpected("a variable `name_id`");
        };
        let Some((hint, id)) = s.rsplit_once('_').and_then(|(h, n)| {
            let ok = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            ok.then(|| n.parse::<u32>().ok().map(|n| (h.to_string(), n)))
                .flatten()
        }) else {
            return self.error(format!(
                "expected a variable `name_id`, found `{s}` (variables end in `_` and a number)"
            ));
        };
        if id >= MAX_VAR {
            return self.error(format!(
                "variable number {id} too large (at most {MAX_VAR})"
            ));
        }
        match self.vars.get(&id) {
            Some(info) if info.hint != hint => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "variable number {id} is called `{}_{id}` elsewhere, not `{s}`",
                        info.hint
                    ),
                ));
            }
            Some(_) => {}
            None => {
                self.vars.insert(id, VarInfo { hint, ty: None });
            }
        }
        self.pos += 1;
        Ok(Var(id))
    }

    pub(super) fn set_type(&mut self, v: Var, ty: Type) {
        if let Some(info) = self.vars.get_mut(&v.0)
            && info.ty.is_none()
        {
            info.ty = Some(ty);
        }
    }

    /// `x_1: t`, binding `x_1` with type `t`.
    pub(super) fn typed_var(&mut self) -> R<Var> {
        let v = self.var()?;
        self.punct(":")?;
        let t = self.ty()?;
        self.set_type(v, t);
        Ok(v)
    }

    pub(super) fn name_table(&self) -> NameTable {
        let mut names = NameTable::new();
        let n = self.vars.keys().next_back().map_or(0, |k| k + 1);
        for id in 0..n {
            match self.vars.get(&id) {
                Some(info) => {
                    let t = info.ty.clone().unwrap_or(Type::Prim(PrimType::Bool));
                    names.fresh(&info.hint, t)
                }
                None => names.fresh("?", Type::Prim(PrimType::Bool)),
            };
        }
        names
    }

    // Types and operands ------------------------------------------------------------------

    pub(super) fn prim_type(&mut self) -> R<PrimType> {
        if let Some(Tok::Ident(s)) = self.peek()
            && let Some(t) = PrimType::from_name(s)
        {
            self.pos += 1;
            return Ok(t);
        }
        self.unexpected("a primitive type")
    }

    pub(super) fn dim(&mut self) -> R<SubExp> {
        match self.peek() {
            Some(Tok::Num(_)) => self.constant(Some(PrimType::I64)),
            _ => self.subexp(),
        }
    }

    pub(super) fn ty(&mut self) -> R<Type> {
        self.enter()?;
        let t = self.ty_inner();
        self.leave();
        t
    }

    pub(super) fn ty_inner(&mut self) -> R<Type> {
        if self.is_word("acc") {
            self.pos += 1;
            self.punct("(")?;
            let shape = self.dims()?;
            let mut elems = Vec::new();
            while self.eat_punct(",") {
                elems.push(self.prim_type()?);
            }
            self.punct(")")?;
            return Ok(Type::Acc { shape, elems });
        }
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            dims.push(self.dim()?);
            self.punct("]")?;
        }
        let elem = self.prim_type()?;
        Ok(Type::array(elem, dims))
    }

    /// `[d, ..]`.
    pub(super) fn dims(&mut self) -> R<Vec<SubExp>> {
        self.punct("[")?;
        self.comma_list("]", |p| p.dim())
    }

    /// Return types: one type, or a parenthesised list.
    pub(super) fn ret(&mut self) -> R<Vec<Type>> {
        if self.eat_punct("(") {
            self.comma_list(")", |p| p.ty())
        } else {
            Ok(vec![self.ty()?])
        }
    }

    pub(super) fn constant(&mut self, default: Option<PrimType>) -> R<SubExp> {
        match self.peek().cloned() {
            Some(Tok::Num(s)) => match parse_number(&s, default) {
                Ok(c) => {
                    self.pos += 1;
                    Ok(SubExp::Const(c))
                }
                Err(m) => self.error(m),
            },
            _ => self.unexpected("a constant"),
        }
    }

    pub(super) fn subexp(&mut self) -> R<SubExp> {
        match self.peek() {
            Some(Tok::Num(_)) => self.constant(None),
            Some(Tok::Ident(s)) if s == "true" || s == "false" => {
                let b = s == "true";
                self.pos += 1;
                Ok(SubExp::Const(Scalar::Bool(b)))
            }
            Some(Tok::Ident(_)) => Ok(SubExp::Var(self.var()?)),
            _ => self.unexpected("a variable or a constant"),
        }
    }

    pub(super) fn paren_subexps(&mut self) -> R<Vec<SubExp>> {
        self.punct("(")?;
        self.comma_list(")", |p| p.subexp())
    }

    /// `[a, b]`.
    pub(super) fn bracket_subexps(&mut self) -> R<Vec<SubExp>> {
        self.punct("[")?;
        self.comma_list("]", |p| p.subexp())
    }

    pub(super) fn paren_vars(&mut self) -> R<Vec<Var>> {
        self.punct("(")?;
        self.comma_list(")", |p| p.var())
    }

    /// `, x, y` up to `)`.
    pub(super) fn trailing_vars(&mut self) -> R<Vec<Var>> {
        let mut out = Vec::new();
        while self.eat_punct(",") {
            out.push(self.var()?);
        }
        self.punct(")")?;
        Ok(out)
    }
}
