//! Block expressions: `let` (and its desugared forms `let a[i] = v`, `let r.f = v`), local
//! functions, `if`, `loop`, lambdas, `match`, `assert` and `#[attr] e`.
//!
//! Each extends as far right as possible. Chains of `let`s are collected in a loop and
//! assembled from the inside out, so they count against [`super::MAX_CHAIN`], not against the
//! nesting depth.

use super::{PResult, Parser};
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::lexer::{Kw, Tok};

impl Parser<'_> {
    /// `let`, `if`, `loop`, `\`, `match`, `assert`, `#[attr] e`.
    pub(super) fn block(&mut self) -> PResult<Exp> {
        self.guarded(|p| p.block_inner())
    }

    fn block_inner(&mut self) -> PResult<Exp> {
        let start = self.span();
        match self.peek() {
            Tok::Kw(Kw::Let) => self.let_exp(),
            Tok::Kw(Kw::If) => {
                self.bump();
                let cond = self.exp()?;
                self.expect_kw(Kw::Then)?;
                let then_branch = self.exp()?;
                self.expect_kw(Kw::Else)?;
                let else_branch = self.exp()?;
                Ok(self.mk(
                    ExpKind::If {
                        cond: Box::new(cond),
                        then_branch: Box::new(then_branch),
                        else_branch: Box::new(else_branch),
                    },
                    self.from(start),
                ))
            }
            Tok::Kw(Kw::Loop) => {
                self.bump();
                let pat = self.pat()?;
                let init = self.optional(&Tok::Equals, |p| p.exp().map(Box::new))?;
                let form = match self.peek() {
                    Tok::Kw(Kw::For) => {
                        self.bump();
                        let counter = matches!(self.peek(), Tok::Ident(_) | Tok::Underscore)
                            && matches!(self.peek_at(1), Tok::Op(o) if o == "<");
                        if counter {
                            let var = self.pat_atom()?;
                            self.bump();
                            let bound = self.exp()?;
                            LoopForm::For { var, bound }
                        } else {
                            let pat = self.pat()?;
                            self.expect_kw(Kw::In)?;
                            let array = self.exp()?;
                            LoopForm::ForIn { pat, array }
                        }
                    }
                    Tok::Kw(Kw::While) => {
                        self.bump();
                        LoopForm::While(self.exp()?)
                    }
                    _ => {
                        let what = if init.is_some() {
                            "`for` or `while`"
                        } else {
                            "`=`, `for` or `while`"
                        };
                        return Err(self.expected(what));
                    }
                };
                self.expect_kw(Kw::Do)?;
                let body = self.exp()?;
                Ok(self.mk(
                    ExpKind::Loop {
                        pat,
                        init,
                        form: Box::new(form),
                        body: Box::new(body),
                    },
                    self.from(start),
                ))
            }
            Tok::Backslash => {
                self.bump();
                let mut params = Vec::new();
                while !matches!(self.peek(), Tok::Colon | Tok::Arrow) {
                    if params.is_empty() && !self.can_start_param() {
                        return Err(self.expected("a parameter"));
                    }
                    if !self.can_start_param() {
                        return Err(self.expected("a parameter or `->`"));
                    }
                    params.push(self.pat_atom()?);
                }
                if params.is_empty() {
                    return Err(self.expected("a parameter"));
                }
                let ret = self.optional(&Tok::Colon, Self::ty_term)?;
                self.expect(&Tok::Arrow)?;
                let body = self.exp()?;
                Ok(self.mk(
                    ExpKind::Lambda {
                        params,
                        ret,
                        body: Box::new(body),
                    },
                    self.from(start),
                ))
            }
            Tok::Kw(Kw::Match) => {
                self.bump();
                let scrutinee = self.exp()?;
                let mut cases = Vec::new();
                while *self.peek() == Tok::Kw(Kw::Case) {
                    let cstart = self.span();
                    self.bump();
                    let pat = self.case_pat()?;
                    self.expect(&Tok::Arrow)?;
                    let body = self.exp()?;
                    cases.push(Case {
                        span: self.from(cstart),
                        pat,
                        body,
                    });
                }
                if cases.is_empty() {
                    return Err(self.expected("`case`"));
                }
                Ok(self.mk(
                    ExpKind::Match {
                        scrutinee: Box::new(scrutinee),
                        cases,
                    },
                    self.from(start),
                ))
            }
            Tok::Kw(Kw::Assert) => {
                self.bump();
                let cond = self.exp_postfix()?;
                let body = self.exp()?;
                Ok(self.mk(
                    ExpKind::Assert {
                        cond: Box::new(cond),
                        body: Box::new(body),
                    },
                    self.from(start),
                ))
            }
            Tok::HashBracket => {
                self.bump();
                let attr = self.attr_body()?;
                let e = self.exp()?;
                Ok(self.mk(
                    ExpKind::Attr {
                        attr,
                        exp: Box::new(e),
                    },
                    self.from(start),
                ))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    /// A chain of `let`s, the last followed by `in`; built iteratively so long chains do not
    /// count as nesting.
    fn let_exp(&mut self) -> PResult<Exp> {
        let mut items: Vec<(Span, LetBinding)> = Vec::new();
        let mut n = 0;
        let body = loop {
            self.chain(&mut n)?;
            let start = self.expect_kw(Kw::Let)?;
            let binding = self.let_binding()?;
            items.push((start, binding));
            match self.peek() {
                Tok::Kw(Kw::In) => {
                    self.bump();
                    break self.exp()?;
                }
                Tok::Kw(Kw::Let) => {}
                _ => {
                    return Err(self
                        .expected("`in`")
                        .with_secondary(start, "this `let` has no `in`"));
                }
            }
        };
        let mut body = body;
        while let Some((start, b)) = items.pop() {
            let span = start.to(body.span);
            let kind = match b {
                LetBinding::Plain(sizes, pat, value) => ExpKind::Let {
                    sizes,
                    pat,
                    value: Box::new(value),
                    body: Box::new(body),
                },
                LetBinding::Fun(name, name_span, type_params, params, ret, value) => {
                    ExpKind::LetFun {
                        name,
                        name_span,
                        type_params,
                        params,
                        ret,
                        value: Box::new(value),
                        body: Box::new(body),
                    }
                }
            };
            body = self.mk(kind, span);
        }
        Ok(body)
    }

    /// What follows `let`, up to and including the bound value.
    fn let_binding(&mut self) -> PResult<LetBinding> {
        let start = self.span();
        // `let [n] p = e`
        if *self.peek() == Tok::LBracket {
            let sizes = self.size_binders()?;
            return self.let_plain(sizes);
        }
        // `let (op) params = e`
        if let Some((name, name_span)) = self.paren_op_name() {
            return self.let_fun(name, name_span);
        }
        if let Tok::Ident(name) = self.peek().clone() {
            let name_span = self.span();
            match self.peek_at(1) {
                // `let a[i] = v`
                Tok::LBracket if self.adjacent_at(1) => {
                    self.bump();
                    let open = self.span();
                    self.bump();
                    let indices = self.indices(open)?;
                    return self.let_update(name, name_span, start, |target, value| {
                        ExpKind::Update {
                            target,
                            indices,
                            value,
                        }
                    });
                }
                // `let r.f.g = v`
                Tok::Dot if self.adjacent_at(1) => {
                    self.bump();
                    self.bump();
                    let fields = self.field_path()?;
                    return self.let_update(name, name_span, start, |target, value| {
                        ExpKind::RecordUpdate {
                            target,
                            fields,
                            value,
                        }
                    });
                }
                Tok::Equals | Tok::Colon => {}
                _ => {
                    self.bump();
                    return self.let_fun(name, name_span);
                }
            }
        }
        self.let_plain(Vec::new())
    }

    /// `p = e` after `let` and its size binders.
    fn let_plain(&mut self, sizes: Vec<SizeBinder>) -> PResult<LetBinding> {
        let pat = self.pat()?;
        self.expect(&Tok::Equals)?;
        let value = self.exp()?;
        Ok(LetBinding::Plain(sizes, pat, value))
    }

    /// `= v` ending `let a[i] = v` or `let r.f = v` (which started at `start`), and the
    /// binding `let a = a with [i] = v` or `let r = r with f = v` it stands for: `update`
    /// builds the `with` from the target `a` or `r` and the value.
    fn let_update(
        &mut self,
        name: String,
        name_span: Span,
        start: Span,
        update: impl FnOnce(Box<Exp>, Box<Exp>) -> ExpKind,
    ) -> PResult<LetBinding> {
        self.expect(&Tok::Equals)?;
        let value = self.exp()?;
        let target = self.mk(ExpKind::Var(QualName::unqualified(&name)), name_span);
        let upd = self.mk(update(Box::new(target), Box::new(value)), self.from(start));
        let pat = self.mk_pat(PatKind::Name(name), name_span);
        Ok(LetBinding::Plain(Vec::new(), pat, upd))
    }

    fn let_fun(&mut self, name: String, name_span: Span) -> PResult<LetBinding> {
        let type_params = self.type_params()?;
        let params = self.params()?;
        if params.is_empty() {
            return Err(self.expected("a parameter or `=`"));
        }
        let (ret, value) = self.ret_and_body()?;
        Ok(LetBinding::Fun(
            name,
            name_span,
            type_params,
            params,
            ret,
            value,
        ))
    }
}

enum LetBinding {
    Plain(Vec<SizeBinder>, Pat, Exp),
    Fun(String, Span, Vec<TypeParam>, Vec<Pat>, Option<TypeExp>, Exp),
}
