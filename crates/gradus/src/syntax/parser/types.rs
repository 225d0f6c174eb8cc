//! Type expressions: functions (possibly with a named parameter), uniqueness, existential
//! sizes, sum types, arrays, type applications, tuples and records.
//!
//! In a type application `[d]` is always a size argument; an array's element type may itself
//! be an application (see the module doc of [`super`]).

use super::{PResult, Parser};
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::Tok;
use crate::value::PrimType;

impl Parser<'_> {
    pub(super) fn ty(&mut self) -> PResult<TypeExp> {
        self.guarded(|p| {
            let start = p.span();
            if *p.peek() == Tok::LParen
                && matches!(p.peek_at(1), Tok::Ident(_))
                && *p.peek_at(2) == Tok::Colon
            {
                p.bump();
                let (name, name_span) = p.ident("a name")?;
                p.bump();
                let param = p.ty()?;
                p.expect_close(&Tok::RParen, start, "(")?;
                p.expect(&Tok::Arrow)?;
                let ret = p.ty()?;
                return Ok(TypeExp {
                    span: p.from(start),
                    kind: TypeExpKind::Function {
                        param_name: Some((name, name_span)),
                        param: Box::new(param),
                        ret: Box::new(ret),
                    },
                });
            }
            let t = p.ty_term()?;
            if p.eat(&Tok::Arrow) {
                let ret = p.ty()?;
                return Ok(TypeExp {
                    span: p.from(start),
                    kind: TypeExpKind::Function {
                        param_name: None,
                        param: Box::new(t),
                        ret: Box::new(ret),
                    },
                });
            }
            Ok(t)
        })
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
                    let mut sizes = Vec::new();
                    while *p.peek() == Tok::LBracket {
                        let s = p.span();
                        p.bump();
                        let (name, _) = p.ident("a size name")?;
                        p.expect_close(&Tok::RBracket, s, "[")?;
                        sizes.push(SizeBinder {
                            name,
                            span: p.from(s),
                        });
                    }
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
                        if *p.peek() == Tok::Comma {
                            let mut ts = vec![t];
                            while p.eat(&Tok::Comma) {
                                if *p.peek() == Tok::RParen {
                                    break;
                                }
                                ts.push(p.ty()?);
                            }
                            p.expect_close(&Tok::RParen, start, "(")?;
                            TypeExpKind::Tuple(ts)
                        } else {
                            p.expect_close(&Tok::RParen, start, "(")?;
                            return Ok(TypeExp {
                                span: p.from(start),
                                kind: t.kind,
                            });
                        }
                    }
                }
                Tok::LBrace => {
                    p.bump();
                    let mut fields = Vec::new();
                    while *p.peek() != Tok::RBrace {
                        let (name, name_span) = p.field_name()?;
                        p.expect(&Tok::Colon)?;
                        let ty = p.ty()?;
                        fields.push(FieldType {
                            name,
                            name_span,
                            ty,
                        });
                        if !p.eat(&Tok::Comma) {
                            break;
                        }
                    }
                    p.expect_close(&Tok::RBrace, start, "{")?;
                    TypeExpKind::Record(fields)
                }
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
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, self.prev))
            }
            Tok::Int(IntLit {
                value,
                suffix: None,
            }) => {
                self.bump();
                Ok((value.to_string(), self.prev))
            }
            _ => Err(self.expected("a field name")),
        }
    }
}
