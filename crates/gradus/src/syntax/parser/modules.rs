//! Module expressions, module types and specifications (docs/language.md §Attributes).
//!
//! Parsed fully; [`crate::modules`] rewrites parametric modules, module types, ascription and
//! imports into the plain modules the checker supports.

use super::{PResult, Parser, split_qual};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    pub(super) fn mod_param(&mut self) -> PResult<ModParam> {
        let start = self.expect(&Tok::LParen)?;
        let (name, _) = self.ident("a module parameter name")?;
        self.expect(&Tok::Colon)?;
        let sig = self.mod_type()?;
        self.expect_close(&Tok::RParen, start, "(")?;
        Ok(ModParam {
            name,
            span: self.from(start),
            sig,
        })
    }

    pub(super) fn qual_name_any(&mut self, what: &str) -> PResult<QualName> {
        let (first, _) = self.ident(what)?;
        let mut names = vec![first];
        while *self.peek() == Tok::Dot
            && let Tok::Ident(s) = self.peek_at(1).clone()
        {
            self.advance(2);
            names.push(s);
        }
        Ok(split_qual(names))
    }

    pub(super) fn mod_exp(&mut self) -> PResult<ModExp> {
        self.guarded(|p| {
            let start = p.span();
            if p.eat(&Tok::Backslash) {
                let param = p.mod_param()?;
                let sig = p.optional(&Tok::Colon, |p| p.mod_type_with().map(Box::new))?;
                p.expect(&Tok::Arrow)?;
                let body = p.mod_exp()?;
                return Ok(ModExp {
                    span: p.from(start),
                    kind: ModExpKind::Lambda {
                        param,
                        sig,
                        body: Box::new(body),
                    },
                });
            }
            let mut m = p.mod_exp_atom()?;
            // `import` is not an argument: `open M` followed by `import "x"` is two
            // declarations (write `F (import "x")` to apply).
            while matches!(p.peek(), Tok::Ident(_) | Tok::LBrace | Tok::LParen) {
                let arg = p.mod_exp_atom()?;
                m = ModExp {
                    span: p.from(start),
                    kind: ModExpKind::Apply(Box::new(m), Box::new(arg)),
                };
            }
            while p.eat(&Tok::Colon) {
                let sig = p.mod_type()?;
                m = ModExp {
                    span: p.from(start),
                    kind: ModExpKind::Ascribe(Box::new(m), Box::new(sig)),
                };
            }
            Ok(m)
        })
    }

    fn mod_exp_atom(&mut self) -> PResult<ModExp> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Ident(_) => ModExpKind::Var(self.qual_name_any("a module")?),
            Tok::LBrace => ModExpKind::Decs(self.braced(Self::dec)?),
            Tok::LParen => self.parenthesised(Self::mod_exp)?.kind,
            Tok::Kw(Kw::Import) => {
                self.bump();
                ModExpKind::Import(self.string_lit()?.0)
            }
            _ => return Err(self.expected("a module expression")),
        };
        Ok(ModExp {
            span: self.from(start),
            kind,
        })
    }

    pub(super) fn mod_type(&mut self) -> PResult<ModTypeExp> {
        self.guarded(|p| {
            p.arrow(
                Self::mod_type,
                Self::mod_type_with,
                |param_name, param, result, span| ModTypeExp {
                    span,
                    kind: ModTypeExpKind::Arrow {
                        param_name,
                        param: Box::new(param),
                        result: Box::new(result),
                    },
                },
            )
        })
    }

    fn mod_type_with(&mut self) -> PResult<ModTypeExp> {
        let start = self.span();
        let mut t = self.mod_type_atom()?;
        while self.eat_kw(Kw::With) {
            let name = self.qual_name_any("a type name")?;
            let params = self.type_params()?;
            self.expect(&Tok::Equals)?;
            let ty = self.ty()?;
            t = ModTypeExp {
                span: self.from(start),
                kind: ModTypeExpKind::With {
                    base: Box::new(t),
                    name,
                    params,
                    ty,
                },
            };
        }
        Ok(t)
    }

    fn mod_type_atom(&mut self) -> PResult<ModTypeExp> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Ident(_) => ModTypeExpKind::Var(self.qual_name_any("a module type")?),
            Tok::LBrace => ModTypeExpKind::Specs(self.braced(Self::spec)?),
            Tok::LParen => self.parenthesised(Self::mod_type)?.kind,
            _ => return Err(self.expected("a module type")),
        };
        Ok(ModTypeExp {
            span: self.from(start),
            kind,
        })
    }

    /// `{`, then declarations or specifications (which `item` parses) up to the closing `}`.
    fn braced<T>(&mut self, item: fn(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let open = self.expect(&Tok::LBrace)?;
        let mut items = Vec::new();
        while !matches!(self.peek(), Tok::RBrace | Tok::Eof) {
            items.push(item(self)?);
        }
        self.expect_close(&Tok::RBrace, open, "{")?;
        Ok(items)
    }

    /// `(`, what `inner` parses, and the closing `)`.
    fn parenthesised<T>(&mut self, inner: fn(&mut Self) -> PResult<T>) -> PResult<T> {
        let open = self.expect(&Tok::LParen)?;
        let x = inner(self)?;
        self.expect_close(&Tok::RParen, open, "(")?;
        Ok(x)
    }

    fn spec(&mut self) -> PResult<Spec> {
        let start = self.span();
        let kind = match self.peek() {
            Tok::Kw(Kw::Val) => {
                self.bump();
                let (name, name_span) = match self.peek().clone() {
                    Tok::Ident(s) | Tok::Op(s) => {
                        self.bump();
                        (s, self.prev)
                    }
                    Tok::LParen if matches!(self.peek_at(1), Tok::Op(_)) => {
                        self.bump();
                        let s = match self.bump() {
                            Tok::Op(s) => s,
                            _ => String::new(),
                        };
                        let sp = self.prev;
                        self.expect(&Tok::RParen)?;
                        (s, sp)
                    }
                    _ => return Err(self.expected("a name or an operator")),
                };
                let type_params = self.type_params()?;
                self.expect(&Tok::Colon)?;
                let ty = self.ty()?;
                SpecKind::Val {
                    name,
                    name_span,
                    type_params,
                    ty,
                }
            }
            Tok::Kw(Kw::Type) => {
                self.bump();
                let (lifted, name, name_span, params) = self.type_head()?;
                let ty = self.optional(&Tok::Equals, Self::ty)?;
                SpecKind::Type {
                    name,
                    name_span,
                    lifted,
                    params,
                    ty,
                }
            }
            Tok::Kw(Kw::Module) => {
                self.bump();
                let (name, name_span) = self.ident("a module name")?;
                self.expect(&Tok::Colon)?;
                let sig = self.mod_type()?;
                SpecKind::Module {
                    name,
                    name_span,
                    sig,
                }
            }
            Tok::Kw(Kw::Include) => {
                self.bump();
                SpecKind::Include(self.mod_type()?)
            }
            _ => {
                return Err(self.expected("a specification (`val`, `type`, `module` or `include`)"));
            }
        };
        Ok(Spec {
            span: self.from(start),
            kind,
        })
    }
}
