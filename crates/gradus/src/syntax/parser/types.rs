//! Type expressions: functions (possibly with a named parameter), uniqueness, existential
//! sizes, sum types, arrays, type applications, tuples and records.
//!
//! In a type application `[d]` is always a size argument; an array's element type may itself
//! be an application (see the module doc of [`super`]).

use super::{PResult, Paren, Parser};
use crate::core::scalar::PrimType;
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::Tok;

/// Builds a function type (or functor type) from the parameter's name, the parameter and
/// result types, and the span.
type MkArrow<T> = fn(Option<(String, Span)>, T, T, Span) -> T;

impl Parser<'_> {
    pub(super) fn ty(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            p.arrow(Self::ty, Self::ty_term, |param_name, param, ret, span| {
                TypeExp {
                    span,
                    kind: TypeExpKind::Function {
                        param_name,
                        param: Box::new(param),
                        ret: Box::new(ret),
                    },
                }
            })
        })
    }

    /// A function type or functor type: `(x: a) -> b`, `a -> b` or just `a`. `whole` parses
    /// the parameter and result types, `term` a type without a top-level arrow, and `arrow`
    /// builds the function type from the parameter's name, parameter, result and span.
    pub(super) fn arrow<T>(
        &mut self,
        whole: fn(&mut Self) -> PResult<T>,
        term: fn(&mut Self) -> PResult<T>,
        arrow: MkArrow<T>,
    ) -> PResult<T> {
        let start = self.span();
        if *self.peek() == Tok::LParen
            && matches!(self.peek_at(1), Tok::Ident(_))
            && *self.peek_at(2) == Tok::Colon
        {
            self.bump();
            let (name, name_span) = self.ident("a name")?;
            self.bump();
            let param = whole(self)?;
            self.expect_close(&Tok::RParen, start, "(")?;
            self.expect(&Tok::Arrow)?;
            let result = whole(self)?;
            return Ok(arrow(
                Some((name, name_span)),
                param,
                result,
                self.from(start),
            ));
        }
        let t = term(self)?;
        if self.eat(&Tok::Arrow) {
            let result = whole(self)?;
            return Ok(arrow(None, t, result, self.from(start)));
        }
        Ok(t)
    }

    /// A type without a top-level arrow.
    pub(super) fn ty_term(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            match p.peek() {
                Tok::Op(o) if o == "*" => {
                    p.bump();
                    let t = p.ty_term()?;
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Unique(Box::new(t)),
                    })
                }
                Tok::Question => {
                    p.bump();
                    let sizes = p.size_binders()?;
                    if sizes.is_empty() {
                        return Err(p.expected("`[`"));
                    }
                    p.expect(&Tok::Dot)?;
                    let ty = p.ty()?;
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Existential {
                            sizes,
                            ty: Box::new(ty),
                        },
                    })
                }
                Tok::Constructor(_) => {
                    let mut cs = Vec::new();
                    loop {
                        let cstart = p.span();
                        let name = match p.peek().clone() {
                            Tok::Constructor(n) => {
                                p.bump();
                                n
                            }
                            _ => return Err(p.expected("a constructor")),
                        };
                        let mut args = Vec::new();
                        while matches!(
                            p.peek(),
                            Tok::Ident(_) | Tok::LParen | Tok::LBrace | Tok::LBracket
                        ) {
                            if *p.peek() == Tok::LBracket {
                                args.push(p.ty_app()?);
                            } else {
                                args.push(p.ty_atom()?);
                            }
                        }
                        cs.push(ConstrType {
                            name,
                            span: p.from(cstart),
                            args,
                        });
                        match p.peek() {
                            Tok::Op(o) if o == "|" => {
                                p.bump();
                            }
                            _ => break,
                        }
                    }
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Sum(cs),
                    })
                }
                _ => p.ty_app(),
            }
        })
    }

    /// An array type, a named type with arguments, or an atom.
    fn ty_app(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            match p.peek() {
                Tok::LBracket => {
                    let (size, size_span) = p.size_brackets()?;
                    let elem = p.ty_app()?;
                    Ok(TypeExp {
                        span: p.from(start),
                        kind: TypeExpKind::Array {
                            size,
                            size_span,
                            elem: Box::new(elem),
                        },
                    })
                }
                Tok::Ident(_) => {
                    let name = p.qual_name_any("a type")?;
                    let mut args = Vec::new();
                    loop {
                        match p.peek() {
                            Tok::LBracket => {
                                let (s, sp) = p.size_brackets()?;
                                args.push(TypeArg::Size(s, sp));
                            }
                            Tok::Ident(_) | Tok::LParen | Tok::LBrace => {
                                args.push(TypeArg::Type(p.ty_atom()?));
                            }
                            _ => break,
                        }
                    }
                    let kind = match PrimType::from_name(&name.name) {
                        Some(t) if args.is_empty() && name.is_unqualified() => TypeExpKind::Prim(t),
                        _ => TypeExpKind::Named { name, args },
                    };
                    Ok(TypeExp {
                        span: p.from(start),
                        kind,
                    })
                }
                _ => p.ty_atom(),
            }
        })
    }

    /// `[d]` or `[]`.
    fn size_brackets(&mut self) -> PResult<(SizeExp, Span)> {
        self.index_context(false, |p| p.size_brackets_inner())
    }

    fn size_brackets_inner(&mut self) -> PResult<(SizeExp, Span)> {
        let start = self.expect(&Tok::LBracket)?;
        if self.eat(&Tok::RBracket) {
            return Ok((SizeExp::Any, self.from(start)));
        }
        let e = self.exp()?;
        self.expect_close(&Tok::RBracket, start, "[")?;
        Ok((SizeExp::Exp(Box::new(e)), self.from(start)))
    }

    fn ty_atom(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            let kind = match p.peek() {
                Tok::Ident(_) => {
                    let name = p.qual_name_any("a type")?;
                    match PrimType::from_name(&name.name) {
                        Some(t) if name.is_unqualified() => TypeExpKind::Prim(t),
                        _ => TypeExpKind::Named {
                            name,
                            args: Vec::new(),
                        },
                    }
                }
                Tok::LParen => {
                    p.bump();
                    if p.eat(&Tok::RParen) {
                        TypeExpKind::Tuple(Vec::new())
                    } else {
                        let t = p.ty()?;
                        match p.tuple_or_group(t, start, Self::ty)? {
                            Paren::Tuple(ts) => TypeExpKind::Tuple(ts),
                            Paren::Group(t) => {
                                return Ok(TypeExp {
                                    span: p.from(start),
                                    kind: t.kind,
                                });
                            }
                        }
                    }
                }
                Tok::LBrace => TypeExpKind::Record(p.delimited(&Tok::RBrace, "{", |p| {
                    let (name, name_span) = p.field_name()?;
                    p.expect(&Tok::Colon)?;
                    let ty = p.ty()?;
                    Ok(FieldType {
                        name,
                        name_span,
                        ty,
                    })
                })?),
                _ => return Err(p.expected("a type")),
            };
            Ok(TypeExp {
                span: p.from(start),
                kind,
            })
        })
    }

    /// A record field name: an identifier or a decimal number.
    pub(super) fn field_name(&mut self) -> PResult<(String, Span)> {
        if let Tok::Int(IntLit {
            value,
            suffix: None,
        }) = self.peek()
        {
            let name = value.to_string();
            self.bump();
            return Ok((name, self.prev));
        }
        self.ident("a field name")
    }

    /// `[n][m]...`: the size names bound by an existential type or a `let`, as many as there
    /// are.
    pub(super) fn size_binders(&mut self) -> PResult<Vec<SizeBinder>> {
        let mut sizes = Vec::new();
        while *self.peek() == Tok::LBracket {
            let s = self.span();
            self.bump();
            let (name, _) = self.ident("a size name")?;
            self.expect_close(&Tok::RBracket, s, "[")?;
            sizes.push(SizeBinder {
                name,
                span: self.from(s),
            });
        }
        Ok(sizes)
    }
}
