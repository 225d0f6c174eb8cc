//! Patterns: names, wildcards, literals (for `case`), constructors, tuples, records with
//! punning, attributes and type annotations.
//!
//! Every pattern node gets a fresh node id, in the order the nodes are finished.

use super::{PResult, Paren, Parser};
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    pub(super) fn pat(&mut self) -> PResult<Pat> {
        self.ascribed_pat(Self::ty)
    }

    /// A `case` pattern: its type annotation has no top-level arrow.
    pub(super) fn case_pat(&mut self) -> PResult<Pat> {
        self.ascribed_pat(Self::ty_term)
    }

    /// A pattern with an optional type annotation, which `ty` parses.
    fn ascribed_pat(&mut self, ty: fn(&mut Self) -> PResult<TypeExp>) -> PResult<Pat> {
        self.guarded(|p| {
            let start = p.span();
            let pat = p.pat_app()?;
            if p.eat(&Tok::Colon) {
                let ty = ty(p)?;
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
            Tok::Ident(s) => self.bumped(PatKind::Name(s)),
            Tok::Underscore => self.bumped(PatKind::Wildcard),
            Tok::Kw(Kw::True) => self.bumped(PatKind::Literal(PatLit::Bool(true))),
            Tok::Kw(Kw::False) => self.bumped(PatKind::Literal(PatLit::Bool(false))),
            Tok::Int(_) | Tok::Float(_) => self.number_pat(false)?,
            Tok::Char(c) => self.bumped(PatKind::Literal(PatLit::Char(c))),
            Tok::Op(o) if o == "-" && matches!(self.peek_at(1), Tok::Int(_) | Tok::Float(_)) => {
                self.bump();
                self.number_pat(true)?
            }
            Tok::Constructor(name) => self.bumped(PatKind::Constructor {
                name,
                args: Vec::new(),
            }),
            Tok::HashBracket => {
                self.bump();
                let attr = self.attr_body()?;
                let pat = self.pat_atom()?;
                PatKind::Attr {
                    attr,
                    pat: Box::new(pat),
                }
            }
            // An operator bound as a name: `def sort ((<=): a -> a -> bool) ...`.
            Tok::LParen
                if matches!(self.peek_at(1), Tok::Op(_))
                    && matches!(self.peek_at(2), Tok::RParen) =>
            {
                self.bump();
                let name = match self.bump() {
                    Tok::Op(o) => o,
                    _ => String::new(),
                };
                self.bump();
                PatKind::Name(name)
            }
            Tok::LParen => {
                self.bump();
                if self.eat(&Tok::RParen) {
                    PatKind::Tuple(Vec::new())
                } else {
                    let first = self.pat()?;
                    match self.tuple_or_group(first, start, Self::pat)? {
                        Paren::Tuple(ps) => PatKind::Tuple(ps),
                        Paren::Group(mut first) => {
                            first.span = self.from(start);
                            return Ok(first);
                        }
                    }
                }
            }
            Tok::LBrace => PatKind::Record(self.delimited(&Tok::RBrace, "{", Self::field_pat)?),
            _ => return Err(self.expected("a pattern")),
        };
        Ok(self.mk_pat(kind, self.from(start)))
    }

    /// A number literal in a pattern, after its `-` if `negative`.
    fn number_pat(&mut self, negative: bool) -> PResult<PatKind> {
        match self.bump() {
            Tok::Int(lit) => Ok(PatKind::Literal(PatLit::Int { negative, lit })),
            Tok::Float(lit) => Ok(PatKind::Literal(PatLit::Float { negative, lit })),
            _ => Err(self.expected("a literal")),
        }
    }

    /// A field of a record pattern: `f = p`, or `f` and `f: t` binding a variable `f`.
    fn field_pat(&mut self) -> PResult<FieldPat> {
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
        Ok(FieldPat {
            name,
            name_span,
            pat,
            punned,
        })
    }
}
