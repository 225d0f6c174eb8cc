//! Bodies, statements and the expressions that are not calls of a named operation: `if`,
//! loops, function calls, indexing and updates, and plain operands; lambdas and slices.

use super::tokens::Tok;
use super::{Parser, R};
use crate::core::ir::{Aux, BasicOp, Body, DimIndex, Exp, Lambda, LoopForm, Stm, SubExp};

impl Parser {
    // Bodies and statements ---------------------------------------------------------------

    pub(super) fn body(&mut self) -> R<Body> {
        self.enter()?;
        let b = self.body_inner();
        self.leave();
        b
    }

    pub(super) fn body_inner(&mut self) -> R<Body> {
        self.punct("{")?;
        let mut stms = Vec::new();
        while !self.is_word("in") {
            if self.at_end() || self.is_punct("}") {
                return self.unexpected("`let` or `in`");
            }
            stms.push(self.stm()?);
        }
        self.pos += 1;
        let result = if self.eat_punct("(") {
            self.comma_list(")", |p| p.subexp())?
        } else {
            let mut r = vec![self.subexp()?];
            while self.eat_punct(",") {
                r.push(self.subexp()?);
            }
            r
        };
        self.punct("}")?;
        Ok(Body { stms, result })
    }

    pub(super) fn stm(&mut self) -> R<Stm> {
        let mut attrs = Vec::new();
        while let Some(Tok::Attr(a)) = self.peek().cloned() {
            attrs.push(a);
            self.pos += 1;
        }
        self.word("let")?;
        let pat = if self.eat_punct("(") {
            self.comma_list(")", |p| p.typed_var())?
        } else {
            vec![self.typed_var()?]
        };
        self.punct("=")?;
        let exp = self.exp()?;
        Ok(Stm {
            pat,
            exp,
            aux: Aux {
                attrs,
                ..Aux::default()
            },
        })
    }

    pub(super) fn lambda(&mut self) -> R<Lambda> {
        self.punct("\\")?;
        self.punct("(")?;
        let params = self.comma_list(")", |p| p.typed_var())?;
        self.punct(":")?;
        let ret = self.ret()?;
        self.punct("->")?;
        let body = self.body()?;
        Ok(Lambda { params, body, ret })
    }

    pub(super) fn slice(&mut self) -> R<Vec<DimIndex>> {
        self.punct("[")?;
        self.comma_list("]", |p| {
            let start = p.subexp()?;
            if p.eat_punct(":+") {
                let count = p.subexp()?;
                p.punct("*")?;
                let stride = p.subexp()?;
                Ok(DimIndex::Slice {
                    start,
                    count,
                    stride,
                })
            } else {
                Ok(DimIndex::Fix(start))
            }
        })
    }

    pub(super) fn exp(&mut self) -> R<Exp> {
        let Some(Tok::Ident(w)) = self.peek().cloned() else {
            return Ok(Exp::BasicOp(BasicOp::SubExp(self.subexp()?)));
        };
        let call = matches!(self.peek_at(1), Some(Tok::Punct("(")));
        match w.as_str() {
            "true" | "false" => Ok(Exp::BasicOp(BasicOp::SubExp(self.subexp()?))),
            "if" => {
                self.pos += 1;
                let cond = self.subexp()?;
                self.word("then")?;
                let then_body = self.body()?;
                self.word("else")?;
                let else_body = self.body()?;
                self.punct(":")?;
                let ret = self.ret()?;
                Ok(Exp::If {
                    cond,
                    then_body,
                    else_body,
                    ret,
                })
            }
            "loop" => {
                self.pos += 1;
                self.punct("(")?;
                let params = self.comma_list(")", |p| {
                    let v = p.typed_var()?;
                    p.punct("=")?;
                    Ok((v, p.subexp()?))
                })?;
                let form = if self.is_word("for") {
                    self.pos += 1;
                    let i = self.typed_var()?;
                    self.punct("<")?;
                    LoopForm::For {
                        i,
                        bound: self.subexp()?,
                    }
                } else if self.is_word("while") {
                    self.pos += 1;
                    LoopForm::While { cond: self.var()? }
                } else {
                    return self.unexpected("`for` or `while`");
                };
                self.word("do")?;
                let body = self.body()?;
                Ok(Exp::Loop { params, form, body })
            }
            "call" => {
                self.pos += 1;
                let fun = self.name()?;
                let args = self.paren_subexps()?;
                self.punct(":")?;
                let ret = self.ret()?;
                Ok(Exp::Apply { fun, args, ret })
            }
            _ if call => {
                self.pos += 2;
                self.call_like(&w)
            }
            _ => {
                let array = self.var()?;
                if self.is_punct("[") {
                    let slice = self.slice()?;
                    Ok(Exp::BasicOp(BasicOp::Index { array, slice }))
                } else if self.is_word("with") {
                    self.pos += 1;
                    let slice = self.slice()?;
                    self.punct("=")?;
                    let value = self.subexp()?;
                    Ok(Exp::BasicOp(BasicOp::Update {
                        array,
                        slice,
                        value,
                    }))
                } else {
                    Ok(Exp::BasicOp(BasicOp::SubExp(SubExp::Var(array))))
                }
            }
        }
    }
}
