//! Application, postfix indexing and field access, and atoms: literals, names (with
//! `M.(e)`), arrays, records, and everything in parentheses (grouping, tuples, sections).
//!
//! `f[i]` (no space) indexes and `f [i]` applies; `(e op)`, `(op e)`, `(op)`, `(.f)` and
//! `(.[i])` are sections.

use super::{PResult, Paren, Parser, split_qual};
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    fn is_block_start(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Kw(Kw::Let | Kw::If | Kw::Loop | Kw::Match | Kw::Assert)
                | Tok::Backslash
                | Tok::HashBracket
        )
    }

    fn can_start_arg(&self) -> bool {
        match self.peek() {
            Tok::Ident(_) => self.peek_symbol_op(0).is_none(),
            Tok::Int(_)
            | Tok::Float(_)
            | Tok::Char(_)
            | Tok::Str(_)
            | Tok::Kw(Kw::True | Kw::False)
            | Tok::LParen
            | Tok::LBracket
            | Tok::LBrace
            | Tok::Hole
            | Tok::Constructor(_) => true,
            _ => false,
        }
    }

    pub(super) fn exp_app(&mut self) -> PResult<Exp> {
        let start = self.span();
        if self.is_block_start() {
            return self.block();
        }
        if let Tok::Constructor(name) = self.peek().clone() {
            self.bump();
            let mut args = Vec::new();
            while self.can_start_arg() {
                args.push(self.exp_postfix()?);
            }
            return Ok(self.mk(ExpKind::Constructor { name, args }, self.from(start)));
        }
        let f = self.exp_postfix()?;
        let mut args = Vec::new();
        loop {
            if *self.peek() == Tok::Backslash {
                args.push(self.block()?);
                break;
            }
            if !self.can_start_arg() {
                break;
            }
            args.push(self.exp_postfix()?);
        }
        if args.is_empty() {
            return Ok(f);
        }
        Ok(self.mk(
            ExpKind::Apply {
                func: Box::new(f),
                args,
            },
            self.from(start),
        ))
    }

    pub(super) fn exp_postfix(&mut self) -> PResult<Exp> {
        let start = self.span();
        let mut e = self.exp_atom()?;
        let mut n = 0;
        loop {
            self.chain(&mut n)?;
            match self.peek() {
                Tok::LBracket if self.adjacent_at(0) => {
                    let open = self.span();
                    self.bump();
                    let indices = self.indices(open)?;
                    e = self.mk(
                        ExpKind::Index {
                            target: Box::new(e),
                            indices,
                        },
                        self.from(start),
                    );
                }
                Tok::Dot if self.adjacent_at(0) && self.adjacent_at(1) => {
                    let field = match self.peek_at(1) {
                        Tok::Ident(s) => s.clone(),
                        Tok::Int(IntLit {
                            value,
                            suffix: None,
                        }) => value.to_string(),
                        _ => break,
                    };
                    self.advance(2);
                    e = self.mk(
                        ExpKind::Project {
                            target: Box::new(e),
                            field,
                            field_span: self.prev,
                        },
                        self.from(start),
                    );
                }
                _ => break,
            }
        }
        Ok(e)
    }

    /// After `[`: the indices and the closing `]`.
    pub(super) fn indices(&mut self, open: Span) -> PResult<Vec<DimIndex>> {
        self.index_context(true, |p| p.indices_inner(open))
    }

    fn indices_inner(&mut self, open: Span) -> PResult<Vec<DimIndex>> {
        let mut out = Vec::new();
        loop {
            let start = if *self.peek() == Tok::Colon {
                None
            } else {
                Some(self.exp_no_ascribe()?)
            };
            if self.eat(&Tok::Colon) {
                let ends = |t: &Tok| matches!(t, Tok::Colon | Tok::Comma | Tok::RBracket);
                let end = if ends(self.peek()) {
                    None
                } else {
                    Some(self.exp_no_ascribe()?)
                };
                let stride = if self.eat(&Tok::Colon) {
                    if ends(self.peek()) {
                        None
                    } else {
                        Some(self.exp_no_ascribe()?)
                    }
                } else {
                    None
                };
                out.push(DimIndex::Slice { start, end, stride });
            } else if let Some(e) = start {
                out.push(DimIndex::Fix(e));
            }
            if !self.eat(&Tok::Comma) || *self.peek() == Tok::RBracket {
                break;
            }
        }
        self.expect_close(&Tok::RBracket, open, "[")?;
        Ok(out)
    }

    fn exp_atom(&mut self) -> PResult<Exp> {
        self.index_context(false, |p| p.exp_atom_inner())
    }

    fn exp_atom_inner(&mut self) -> PResult<Exp> {
        let start = self.span();
        let kind = match self.peek().clone() {
            Tok::Int(lit) => self.bumped(ExpKind::Int(lit)),
            Tok::Float(lit) => self.bumped(ExpKind::Float(lit)),
            Tok::Char(c) => self.bumped(ExpKind::Char(c)),
            Tok::Str(s) => self.bumped(ExpKind::String(s)),
            Tok::Kw(Kw::True) => self.bumped(ExpKind::Bool(true)),
            Tok::Kw(Kw::False) => self.bumped(ExpKind::Bool(false)),
            Tok::Hole => self.bumped(ExpKind::Hole),
            Tok::Constructor(name) => self.bumped(ExpKind::Constructor {
                name,
                args: Vec::new(),
            }),
            Tok::Ident(first) => {
                self.bump();
                let mut names = vec![first];
                loop {
                    if *self.peek() != Tok::Dot || !self.adjacent_at(0) || !self.adjacent_at(1) {
                        break;
                    }
                    match self.peek_at(1).clone() {
                        Tok::Ident(s) => {
                            self.advance(2);
                            names.push(s);
                        }
                        Tok::LParen => {
                            let module_span = start.to(self.prev);
                            self.advance(2);
                            let open = self.prev;
                            let body = self.exp()?;
                            self.expect_close(&Tok::RParen, open, "(")?;
                            return Ok(self.mk(
                                ExpKind::LocalOpen {
                                    module: split_qual(names),
                                    module_span,
                                    body: Box::new(body),
                                },
                                self.from(start),
                            ));
                        }
                        _ => break,
                    }
                }
                ExpKind::Var(split_qual(names))
            }
            Tok::LParen => return self.paren(),
            Tok::LBracket => ExpKind::Array(self.delimited(&Tok::RBracket, "[", Self::exp)?),
            Tok::LBrace => ExpKind::Record(self.delimited(&Tok::RBrace, "{", Self::field_exp)?),
            _ => return Err(self.expected("an expression")),
        };
        Ok(self.mk(kind, self.from(start)))
    }

    /// After `(` (not yet consumed): grouping, tuples, unit and sections.
    fn paren(&mut self) -> PResult<Exp> {
        self.index_context(false, |p| p.paren_inner())
    }

    fn paren_inner(&mut self) -> PResult<Exp> {
        let start = self.span();
        self.bump();
        if self.eat(&Tok::RParen) {
            return Ok(self.mk(ExpKind::Tuple(Vec::new()), self.from(start)));
        }
        // `(op)`, `(op e)`; `(-e)` and `(!e)` are prefix operators, not sections.
        let op = self.peek_symbol_op(0).or_else(|| self.peek_backtick(0));
        if let Some(op) = op {
            let prefix = !op.backtick
                && op.name.is_unqualified()
                && (op.name.name == "-" || op.name.name == "!");
            let closes = *self.peek_at(op.len) == Tok::RParen;
            if closes || !prefix {
                self.advance(op.len);
                if self.eat(&Tok::RParen) {
                    return Ok(self.mk(
                        ExpKind::OpSection {
                            op: op.name,
                            op_span: op.span,
                            backtick: op.backtick,
                        },
                        self.from(start),
                    ));
                }
                let right = self.exp()?;
                self.expect_close(&Tok::RParen, start, "(")?;
                return Ok(self.mk(
                    ExpKind::RightSection {
                        op: op.name,
                        op_span: op.span,
                        backtick: op.backtick,
                        right: Box::new(right),
                    },
                    self.from(start),
                ));
            }
        }
        // `(.f.g)`, `(.0)`, `(.[i])`
        if *self.peek() == Tok::Dot {
            self.bump();
            if *self.peek() == Tok::LBracket {
                let open = self.span();
                self.bump();
                let indices = self.indices(open)?;
                self.expect_close(&Tok::RParen, start, "(")?;
                return Ok(self.mk(ExpKind::IndexSection { indices }, self.from(start)));
            }
            let fields = self.field_path()?;
            self.expect_close(&Tok::RParen, start, "(")?;
            return Ok(self.mk(ExpKind::ProjectSection { fields }, self.from(start)));
        }
        let e = self.exp()?;
        // `(e op)`
        if let Some(op) = self.peek_symbol_op(0).or_else(|| self.peek_backtick(0))
            && *self.peek_at(op.len) == Tok::RParen
        {
            self.advance(op.len + 1);
            return Ok(self.mk(
                ExpKind::LeftSection {
                    op: op.name,
                    op_span: op.span,
                    backtick: op.backtick,
                    left: Box::new(e),
                },
                self.from(start),
            ));
        }
        let kind = match self.tuple_or_group(e, start, Self::exp)? {
            Paren::Tuple(elems) => ExpKind::Tuple(elems),
            Paren::Group(e) => ExpKind::Parens(Box::new(e)),
        };
        Ok(self.mk(kind, self.from(start)))
    }

    /// A field of a record expression: `f = e`, or `f` for the variable `f`.
    fn field_exp(&mut self) -> PResult<FieldExp> {
        let (name, name_span) = self.field_name()?;
        let (value, punned) = if self.eat(&Tok::Equals) {
            (self.exp()?, false)
        } else {
            let v = self.mk(ExpKind::Var(QualName::unqualified(&name)), name_span);
            (v, true)
        };
        Ok(FieldExp {
            name,
            name_span,
            value,
            punned,
        })
    }
}
