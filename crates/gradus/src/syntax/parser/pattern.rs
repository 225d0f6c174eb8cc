//! Patterns: names, wildcards, literals (for `case`), constructors, tuples, records with
//! punning, attributes and type annotations.
//!
//! Every pattern node gets a fresh node id, in the order the nodes are finished.

use super::{PResult, Parser};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    pub(super) fn pat(&mut self) -> PResult<Pat> {
        self.guarded(|p| {
            let start = p.span();
            let pat = p.pat_app()?;
            if p.eat(&Tok::Colon) {
                let ty = p.ty()?;
                return Ok(p.mk_pat(
                    PatKind::Ascribe {
                        pat: Box::new(pat),
                        ty,
                    },
                    p.from(start),
                ));
            }
            Ok(pat)
        })
    }

    /// A `case` pattern: its type annotation has no top-level arrow.
    pub(super) fn case_pat(&mut self) -> PResult<Pat> {
        self.guarded(|p| {
            let start = p.span();
            let pat = p.pat_app()?;
            if p.eat(&Tok::Colon) {
                let ty = p.ty_term()?;
                return Ok(p.mk_pat(
                    PatKind::Ascribe {
                        pat: Box::new(pat),
                        ty,
                    },
                    p.from(start),
                ));
            }
            Ok(pat)
        })
    }

    fn pat_app(&mut self) -> PResult<Pat> {
        if let Tok::Constructor(name) = self.peek().clone() {
            let start = self.span();
            self.bump();
            let mut args = Vec::new();
            while self.can_start_pat_atom() {
                args.push(self.pat_atom()?);
            }
            return Ok(self.mk_pat(PatKind::Constructor { name, args }, self.from(start)));
        }
        self.pat_atom()
    }

    fn can_start_pat_atom(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Ident(_)
                | Tok::Underscore
                | Tok::LParen
                | Tok::LBrace
                | Tok::HashBracket
                | Tok::Int(_)
                | Tok::Float(_)
                | Tok::Char(_)
                | Tok::Kw(Kw::True | Kw::False)
                | Tok::Constructor(_)
        )
    }

    pub(super) fn pat_atom(&mut self) -> PResult<Pat> {
        self.guarded(|p| p.pat_atom_inner())
    }

    fn pat_atom_inner(&mut self) -> PResult<Pat> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                PatKind::Name(s)
            }
            Tok::Underscore => {
                self.bump();
                PatKind::Wildcard
            }
            Tok::Kw(Kw::True) => {
                self.bump();
                PatKind::Literal(PatLit::Bool(true))
            }
            Tok::Kw(Kw::False) => {
                self.bump();
                PatKind::Literal(PatLit::Bool(false))
            }
            Tok::Int(lit) => {
                self.bump();
                PatKind::Literal(PatLit::Int {
                    negative: false,
                    lit,
                })
            }
            Tok::Float(lit) => {
                self.bump();
                PatKind::Literal(PatLit::Float {
                    negative: false,
                    lit,
                })
            }
            Tok::Char(c) => {
                self.bump();
                PatKind::Literal(PatLit::Char(c))
            }
            Tok::Op(o) if o == "-" && matches!(self.peek_at(1), Tok::Int(_) | Tok::Float(_)) => {
                self.bump();
                match self.bump() {
                    Tok::Int(lit) => PatKind::Literal(PatLit::Int {
                        negative: true,
                        lit,
                    }),
                    Tok::Float(lit) => PatKind::Literal(PatLit::Float {
                        negative: true,
                        lit,
                    }),
                    _ => return Err(self.expected("a literal")),
                }
            }
            Tok::Constructor(name) => {
                self.bump();
                PatKind::Constructor {
                    name,
                    args: Vec::new(),
                }
            }
            Tok::HashBracket => {
                self.bump();
                let attr = self.attr_body()?;
                let pat = self.pat_atom()?;
                PatKind::Attr {
                    attr,
                    pat: Box::new(pat),
                }
            }
            Tok::LParen => {
                self.bump();
                if self.eat(&Tok::RParen) {
                    PatKind::Tuple(Vec::new())
                } else {
                    let first = self.pat()?;
                    if *self.peek() == Tok::Comma {
                        let mut ps = vec![first];
                        while self.eat(&Tok::Comma) {
                            if *self.peek() == Tok::RParen {
                                break;
                            }
                            ps.push(self.pat()?);
                        }
                        self.expect_close(&Tok::RParen, start, "(")?;
                        PatKind::Tuple(ps)
                    } else {
                        self.expect_close(&Tok::RParen, start, "(")?;
                        let mut first = first;
                        first.span = self.from(start);
                        return Ok(first);
                    }
                }
            }
            Tok::LBrace => {
                self.bump();
                let mut fields = Vec::new();
                while *self.peek() != Tok::RBrace {
                    let (name, name_span) = self.field_name()?;
                    let (pat, punned) = if self.eat(&Tok::Equals) {
                        (self.pat()?, false)
                    } else {
                        let pk = PatKind::Name(name.clone());
                        let p = self.mk_pat(pk, name_span);
                        if self.eat(&Tok::Colon) {
                            let ty = self.ty()?;
                            let sp = self.from(name_span);
                            (
                                self.mk_pat(
                                    PatKind::Ascribe {
                                        pat: Box::new(p),
                                        ty,
                                    },
                                    sp,
                                ),
                                true,
                            )
                        } else {
                            (p, true)
                        }
                    };
                    fields.push(FieldPat {
                        name,
                        name_span,
                        pat,
                        punned,
                    });
                    if !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                self.expect_close(&Tok::RBrace, start, "{")?;
                PatKind::Record(fields)
            }
            _ => return Err(self.expected("a pattern")),
        };
        Ok(self.mk_pat(kind, self.from(start)))
    }
}
