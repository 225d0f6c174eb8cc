//! Expressions from the loosest level down to prefix operators: ascription and coercion,
//! ranges, backticked functions, `with` updates, binary operators by precedence climbing
//! (docs/language.md §Precedence) and prefix `-`/`!`, with the operator lookahead they share with
//! sections.
//!
//! Left-nested chains are built in loops and counted with [`Parser::chain`], so their length,
//! not the stack, limits them.

use super::{OpAhead, PResult, Parser, op_level, right_assoc, split_qual};
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    /// A full expression.
    pub(super) fn exp(&mut self) -> PResult<Exp> {
        self.guarded(|p| {
            let start = p.span();
            let mut e = p.exp_range()?;
            let mut n = 0;
            loop {
                p.chain(&mut n)?;
                let coerce = match p.peek() {
                    Tok::Colon if !p.in_index => false,
                    Tok::ColonGt => true,
                    _ => return Ok(e),
                };
                p.bump();
                let ty = p.ty()?;
                let kind = if coerce {
                    ExpKind::Coerce {
                        exp: Box::new(e),
                        ty,
                    }
                } else {
                    ExpKind::Ascribe {
                        exp: Box::new(e),
                        ty,
                    }
                };
                e = p.mk(kind, p.from(start));
            }
        })
    }

    /// An expression without ascription (inside index brackets).
    pub(super) fn exp_no_ascribe(&mut self) -> PResult<Exp> {
        self.guarded(|p| p.exp_range())
    }

    fn exp_range(&mut self) -> PResult<Exp> {
        let start = self.span();
        let first = self.exp_backtick()?;
        let second = match self.peek() {
            Tok::DotDot => {
                self.bump();
                Some(Box::new(self.exp_backtick()?))
            }
            Tok::DotDotLt | Tok::DotDotDot | Tok::DotDotGt => None,
            _ => return Ok(first),
        };
        let kind = match self.peek() {
            Tok::DotDotLt => RangeKind::UpToExclusive,
            Tok::DotDotDot => RangeKind::Inclusive,
            Tok::DotDotGt => RangeKind::DownToExclusive,
            _ => return Err(self.expected("`..<`, `...` or `..>`")),
        };
        self.bump();
        let end = self.exp_backtick()?;
        Ok(self.mk(
            ExpKind::Range {
                start: Box::new(first),
                second,
                end: Box::new(end),
                kind,
            },
            self.from(start),
        ))
    }

    fn exp_backtick(&mut self) -> PResult<Exp> {
        let start = self.span();
        let mut lhs = self.exp_with()?;
        let mut n = 0;
        while let Some(op) = self.peek_backtick(0) {
            if *self.peek_at(op.len) == Tok::RParen {
                break;
            }
            self.chain(&mut n)?;
            self.advance(op.len);
            let rhs = self.exp_with()?;
            lhs = self.binop(op, lhs, rhs, start);
        }
        Ok(lhs)
    }

    /// `lhs op rhs`, which started at `start`.
    fn binop(&mut self, op: OpAhead, lhs: Exp, rhs: Exp, start: Span) -> Exp {
        self.mk(
            ExpKind::BinOp {
                op: op.name,
                op_span: op.span,
                backtick: op.backtick,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            self.from(start),
        )
    }

    fn exp_with(&mut self) -> PResult<Exp> {
        let start = self.span();
        let mut e = self.exp_binop(7)?;
        let mut n = 0;
        while self.eat_kw(Kw::With) {
            self.chain(&mut n)?;
            let target = Box::new(e);
            e = if *self.peek() == Tok::LBracket {
                let open = self.span();
                self.bump();
                let indices = self.indices(open)?;
                let value = self.with_value()?;
                let kind = ExpKind::Update {
                    target,
                    indices,
                    value,
                };
                self.mk(kind, self.from(start))
            } else {
                let fields = self.field_path()?;
                let value = self.with_value()?;
                let kind = ExpKind::RecordUpdate {
                    target,
                    fields,
                    value,
                };
                self.mk(kind, self.from(start))
            };
        }
        Ok(e)
    }

    /// `= v` at the end of `e with [i] = v` or `e with f = v`.
    fn with_value(&mut self) -> PResult<Box<Exp>> {
        self.expect(&Tok::Equals)?;
        Ok(Box::new(self.exp_binop(7)?))
    }

    /// `f.g.h` in `r with f.g.h = v`.
    pub(super) fn field_path(&mut self) -> PResult<Vec<(String, Span)>> {
        let mut fields = vec![self.field_name()?];
        while *self.peek() == Tok::Dot {
            self.bump();
            fields.push(self.field_name()?);
        }
        Ok(fields)
    }

    /// A backticked name at `n` tokens ahead: `` `f` ``, `` `M.f` ``.
    pub(super) fn peek_backtick(&self, n: usize) -> Option<OpAhead> {
        if *self.peek_at(n) != Tok::Backtick {
            return None;
        }
        let mut names = Vec::new();
        let mut i = n + 1;
        let span_start = self.token_at(i)?.span;
        loop {
            match self.peek_at(i) {
                Tok::Ident(s) => names.push(s.clone()),
                _ => return None,
            }
            i += 1;
            if *self.peek_at(i) == Tok::Dot {
                i += 1;
            } else {
                break;
            }
        }
        let span_end = self.token_at(i - 1)?.span;
        if *self.peek_at(i) != Tok::Backtick {
            return None;
        }
        Some(OpAhead {
            name: split_qual(names),
            span: span_start.to(span_end),
            backtick: true,
            len: i + 1 - n,
        })
    }

    /// A (possibly qualified) operator symbol at `n` tokens ahead: `+`, `f64.+`, `M.N.<*>`.
    pub(super) fn peek_symbol_op(&self, n: usize) -> Option<OpAhead> {
        match self.peek_at(n) {
            Tok::Op(o) => Some(OpAhead {
                name: QualName::unqualified(o.clone()),
                span: self.token_at(n)?.span,
                backtick: false,
                len: 1,
            }),
            Tok::Ident(_) => {
                let mut names = Vec::new();
                let mut i = n;
                while let Tok::Ident(s) = self.peek_at(i) {
                    names.push(s.clone());
                    if *self.peek_at(i + 1) != Tok::Dot
                        || !self.adjacent_at(i + 1)
                        || !self.adjacent_at(i + 2)
                    {
                        return None;
                    }
                    i += 2;
                }
                match self.peek_at(i) {
                    Tok::Op(o) => {
                        let mut q = split_qual(names);
                        q.qualifiers.push(std::mem::take(&mut q.name));
                        q.name = o.clone();
                        Some(OpAhead {
                            name: q,
                            span: self.token_at(n)?.span.to(self.token_at(i)?.span),
                            backtick: false,
                            len: i + 1 - n,
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn exp_binop(&mut self, min: u8) -> PResult<Exp> {
        let start = self.span();
        let mut lhs = self.exp_unary()?;
        let mut n = 0;
        while let Some(op) = self.peek_symbol_op(0) {
            let level = op_level(&op.name.name);
            if level < min || *self.peek_at(op.len) == Tok::RParen {
                break;
            }
            self.chain(&mut n)?;
            self.advance(op.len);
            let next = if right_assoc(level) { level } else { level + 1 };
            let rhs = self.guarded(|p| p.exp_binop(next))?;
            lhs = self.binop(op, lhs, rhs, start);
        }
        Ok(lhs)
    }

    fn exp_unary(&mut self) -> PResult<Exp> {
        let start = self.span();
        match self.peek() {
            Tok::Op(o) if o == "-" || o == "!" => {
                let neg = o == "-";
                self.bump();
                let e = self.guarded(|p| p.exp_unary())?;
                let kind = if neg {
                    ExpKind::Neg(Box::new(e))
                } else {
                    ExpKind::Not(Box::new(e))
                };
                Ok(self.mk(kind, self.from(start)))
            }
            _ => self.exp_app(),
        }
    }
}
