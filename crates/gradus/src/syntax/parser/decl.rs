//! Declarations: attributes, `def`/`entry`/`let`, `type`, `module`, `open`, `local` and
//! `import`, with the type and size parameters of declarations.
//!
//! Takes the parser at the start of a declaration (or after `#[`) and consumes exactly one;
//! the module forms after `module` are in [`super::modules`].

use super::{PResult, Parser};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    /// After `#[`: the attribute and the closing `]`.
    pub(super) fn attr_body(&mut self) -> PResult<Attr> {
        let open = self.prev;
        let a = self.attr()?;
        self.expect_close(&Tok::RBracket, open, "#[")?;
        Ok(a)
    }

    fn attr(&mut self) -> PResult<Attr> {
        self.guarded(|p| {
            let start = p.span();
            match p.peek().clone() {
                Tok::Ident(name) => {
                    p.bump();
                    if *p.peek() == Tok::LParen {
                        let args = p.delimited(&Tok::RParen, "(", Self::attr)?;
                        Ok(Attr {
                            span: p.from(start),
                            kind: AttrKind::Call(name, args),
                        })
                    } else {
                        Ok(Attr {
                            span: start,
                            kind: AttrKind::Name(name),
                        })
                    }
                }
                Tok::Kw(k) => {
                    p.bump();
                    Ok(Attr {
                        span: start,
                        kind: AttrKind::Name(k.text().to_string()),
                    })
                }
                Tok::Int(lit) => {
                    p.bump();
                    Ok(Attr {
                        span: start,
                        kind: AttrKind::Int(i128::try_from(lit.value).unwrap_or(i128::MAX)),
                    })
                }
                Tok::Op(o) if o == "-" && matches!(p.peek_at(1), Tok::Int(_)) => {
                    p.bump();
                    let v = match p.bump() {
                        Tok::Int(lit) => i128::try_from(lit.value).unwrap_or(i128::MAX),
                        _ => 0,
                    };
                    Ok(Attr {
                        span: p.from(start),
                        kind: AttrKind::Int(-v),
                    })
                }
                _ => Err(p.expected("an attribute")),
            }
        })
    }

    // ----- declarations -----

    pub(super) fn dec(&mut self) -> PResult<Dec> {
        self.guarded(|p| p.dec_inner())
    }

    fn dec_inner(&mut self) -> PResult<Dec> {
        let start = self.span();
        let mut attrs = Vec::new();
        while self.eat(&Tok::HashBracket) {
            attrs.push(self.attr_body()?);
        }
        let kind = match self.peek() {
            Tok::Kw(Kw::Def | Kw::Entry | Kw::Let) => DecKind::Value(self.value_dec()?),
            Tok::Kw(Kw::Type) => {
                self.bump();
                let (lifted, name, name_span, params) = self.type_head()?;
                self.expect(&Tok::Equals)?;
                let ty = self.ty()?;
                DecKind::TypeAbbrev(TypeDec {
                    name,
                    name_span,
                    lifted,
                    params,
                    ty,
                })
            }
            Tok::Kw(Kw::Module) => {
                self.bump();
                if self.eat_kw(Kw::Type) {
                    let (name, name_span) = self.ident("a module type name")?;
                    self.expect(&Tok::Equals)?;
                    let body = self.mod_type()?;
                    DecKind::ModuleType(ModTypeDec {
                        name,
                        name_span,
                        body,
                    })
                } else {
                    let (name, name_span) = self.ident("a module name")?;
                    let mut params = Vec::new();
                    while *self.peek() == Tok::LParen {
                        params.push(self.mod_param()?);
                    }
                    let sig = self.optional(&Tok::Colon, Self::mod_type)?;
                    self.expect(&Tok::Equals)?;
                    let body = self.mod_exp()?;
                    DecKind::Module(ModuleDec {
                        name,
                        name_span,
                        params,
                        sig,
                        body,
                    })
                }
            }
            Tok::Kw(Kw::Open) => {
                self.bump();
                DecKind::Open(self.mod_exp()?)
            }
            Tok::Kw(Kw::Local) => {
                self.bump();
                DecKind::Local(Box::new(self.dec()?))
            }
            Tok::Kw(Kw::Import) => {
                self.bump();
                let (path, path_span) = self.string_lit()?;
                DecKind::Import { path, path_span }
            }
            _ => return Err(self.expected("a declaration")),
        };
        Ok(Dec {
            span: self.from(start),
            attrs,
            kind,
        })
    }

    pub(super) fn string_lit(&mut self) -> PResult<(String, Span)> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok((s, self.prev))
            }
            _ => Err(self.expected("a string literal")),
        }
    }

    /// After `type`: the liftedness, name and parameters of a type abbreviation or a type
    /// specification.
    pub(super) fn type_head(&mut self) -> PResult<(Lift, String, Span, Vec<TypeParam>)> {
        let lifted = self.liftedness();
        let (name, name_span) = self.ident("a type name")?;
        let params = self.type_params()?;
        Ok((lifted, name, name_span, params))
    }

    /// `^` or `~` right after `type`.
    fn liftedness(&mut self) -> Lift {
        match self.peek() {
            Tok::Op(o) if o == "^" && self.adjacent_at(0) => {
                self.bump();
                Lift::Caret
            }
            Tok::Tilde if self.adjacent_at(0) => {
                self.bump();
                Lift::Tilde
            }
            _ => Lift::None,
        }
    }

    fn value_dec(&mut self) -> PResult<ValueDec> {
        let entry = self.bump() == Tok::Kw(Kw::Entry);
        // `def (op) ...`
        if let Some((name, name_span)) = self.paren_op_name() {
            return self.value_dec_rest(entry, name, name_span, true, Vec::new());
        }
        // `def a op b` and `def (a: t) op (b: t)`
        let infix_name =
            matches!(self.peek(), Tok::Ident(_)) && matches!(self.peek_at(1), Tok::Op(_));
        if infix_name || *self.peek() == Tok::LParen {
            let lhs = self.pat_atom()?;
            let (name, name_span) = match self.peek().clone() {
                Tok::Op(o) => {
                    self.bump();
                    (o, self.prev)
                }
                _ => {
                    return Err(Diagnostic::error(
                        lhs.span,
                        "top-level patterns are not allowed: expected a name or an operator \
                         definition",
                    ));
                }
            };
            let rhs = self.pat_atom()?;
            let (ret, body) = self.ret_and_body()?;
            return Ok(ValueDec {
                entry,
                name,
                name_span,
                operator: true,
                type_params: Vec::new(),
                params: vec![lhs, rhs],
                ret,
                body,
            });
        }
        let (name, name_span) = self.ident("a name")?;
        let type_params = self.type_params()?;
        self.value_dec_rest(entry, name, name_span, false, type_params)
    }

    fn value_dec_rest(
        &mut self,
        entry: bool,
        name: String,
        name_span: Span,
        operator: bool,
        mut type_params: Vec<TypeParam>,
    ) -> PResult<ValueDec> {
        type_params.extend(self.type_params()?);
        let params = self.params()?;
        let (ret, body) = self.ret_and_body()?;
        Ok(ValueDec {
            entry,
            name,
            name_span,
            operator,
            type_params,
            params,
            ret,
            body,
        })
    }

    /// `(op)` naming an operator, as in `def (+) a b` and `let (+) a b`: the operator and its
    /// span, or `None`, consuming nothing, where the next tokens are not that.
    pub(super) fn paren_op_name(&mut self) -> Option<(String, Span)> {
        if *self.peek() != Tok::LParen || *self.peek_at(2) != Tok::RParen {
            return None;
        }
        let Tok::Op(name) = self.peek_at(1).clone() else {
            return None;
        };
        self.bump();
        let name_span = self.span();
        self.advance(2);
        Some((name, name_span))
    }

    /// The parameters of a function, as many as there are.
    pub(super) fn params(&mut self) -> PResult<Vec<Pat>> {
        let mut params = Vec::new();
        while self.can_start_param() {
            params.push(self.pat_atom()?);
        }
        Ok(params)
    }

    /// `: t = e` or `= e`, ending a function definition: the return type and the body.
    pub(super) fn ret_and_body(&mut self) -> PResult<(Option<TypeExp>, Exp)> {
        let ret = self.optional(&Tok::Colon, Self::ty)?;
        self.expect(&Tok::Equals)?;
        Ok((ret, self.exp()?))
    }

    pub(super) fn can_start_param(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Ident(_) | Tok::Underscore | Tok::LParen | Tok::LBrace | Tok::HashBracket
        )
    }

    /// `[n]`, `'t`, `'~t`, `'^t`, as many as there are.
    pub(super) fn type_params(&mut self) -> PResult<Vec<TypeParam>> {
        let mut out = Vec::new();
        loop {
            let start = self.span();
            match self.peek() {
                Tok::LBracket => {
                    self.bump();
                    let (name, _) = self.ident("a size parameter name")?;
                    self.expect_close(&Tok::RBracket, start, "[")?;
                    out.push(TypeParam::Size {
                        name,
                        span: self.from(start),
                    });
                }
                Tok::Quote | Tok::QuoteTilde | Tok::QuoteCaret => {
                    let lifted = match self.bump() {
                        Tok::QuoteTilde => Lift::Tilde,
                        Tok::QuoteCaret => Lift::Caret,
                        _ => Lift::None,
                    };
                    let (name, _) = self.ident("a type parameter name")?;
                    out.push(TypeParam::Type {
                        name,
                        span: self.from(start),
                        lifted,
                    });
                }
                _ => return Ok(out),
            }
        }
    }
}
