//! Calls of named operations, `w(...)`: the SOACs and fused SOACs, `jvp`/`vjp`, `with_acc`,
//! and the basic operations written as calls (array construction, reshaping, copies,
//! assertions, `update_acc`, primitive operations by their printed names).

use super::{Parser, R};
use crate::core::ir::{AdMode, BasicOp, Exp, Lambda, ScremaForm, Soac, SubExp};

impl Parser {
    /// `w(` has been read: a SOAC, `jvp`, `vjp` or `with_acc` here, anything else is a basic
    /// operation.
    pub(super) fn call_like(&mut self, w: &str) -> R<Exp> {
        match w {
            "map" => {
                let w = self.subexp()?;
                self.punct(",")?;
                let lam = self.lambda()?;
                let arrays = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Map { w, lam, arrays }))
            }
            "reduce" | "reduce_comm" | "scan" => {
                let width = self.subexp()?;
                self.punct(",")?;
                let (lam, neutral) = self.operator()?;
                let arrays = self.trailing_vars()?;
                Ok(Exp::Soac(if w == "scan" {
                    Soac::Scan {
                        w: width,
                        lam,
                        neutral,
                        arrays,
                    }
                } else {
                    Soac::Reduce {
                        w: width,
                        lam,
                        neutral,
                        arrays,
                        commutative: w == "reduce_comm",
                    }
                }))
            }
            "hist" => {
                let w = self.subexp()?;
                self.punct(",")?;
                let dests = self.paren_vars()?;
                self.punct(",")?;
                let (lam, neutral) = self.operator()?;
                self.punct(",")?;
                let indices = self.var()?;
                let values = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Hist {
                    w,
                    dests,
                    lam,
                    neutral,
                    indices,
                    values,
                }))
            }
            "scatter" => {
                let w = self.subexp()?;
                self.punct(",")?;
                let dests = self.paren_vars()?;
                self.punct(",")?;
                let indices = self.var()?;
                let values = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Scatter {
                    w,
                    dests,
                    indices,
                    values,
                }))
            }
            "redomap" | "redomap_comm" | "scanomap" => {
                let width = self.subexp()?;
                self.punct(",")?;
                let map = self.lambda()?;
                self.punct(",")?;
                let (lam, neutral) = self.operator()?;
                let arrays = self.trailing_vars()?;
                let form = if w == "scanomap" {
                    ScremaForm::Scan { lam, neutral }
                } else {
                    ScremaForm::Reduce {
                        lam,
                        neutral,
                        commutative: w == "redomap_comm",
                    }
                };
                Ok(Exp::Soac(Soac::Screma {
                    w: width,
                    map,
                    arrays,
                    form: Box::new(form),
                }))
            }
            "histomap" | "scattermap" => {
                let width = self.subexp()?;
                self.punct(",")?;
                let dests = self.paren_vars()?;
                self.punct(",")?;
                let map = self.lambda()?;
                let form = if w == "histomap" {
                    self.punct(",")?;
                    let (lam, neutral) = self.operator()?;
                    ScremaForm::Hist {
                        dests,
                        lam,
                        neutral,
                    }
                } else {
                    ScremaForm::Scatter { dests }
                };
                let arrays = self.trailing_vars()?;
                Ok(Exp::Soac(Soac::Screma {
                    w: width,
                    map,
                    arrays,
                    form: Box::new(form),
                }))
            }
            "jvp" | "vjp" | "with_vjp" | "with_jvp" => {
                let lam = self.lambda()?;
                self.punct(",")?;
                let args = self.paren_subexps()?;
                self.punct(",")?;
                let seeds = self.paren_subexps()?;
                self.punct(")")?;
                let mode = match w {
                    "jvp" => AdMode::Jvp,
                    "vjp" => AdMode::Vjp,
                    "with_vjp" => AdMode::WithVjp,
                    _ => AdMode::WithJvp,
                };
                Ok(Exp::Ad {
                    mode,
                    lam,
                    args,
                    seeds,
                })
            }
            "with_acc" => {
                let mut inputs = Vec::new();
                while self.is_punct("[") {
                    let shape = self.dims()?;
                    let arrays = self.paren_vars()?;
                    self.punct(",")?;
                    inputs.push((shape, arrays));
                }
                let lam = self.lambda()?;
                self.punct(")")?;
                Ok(Exp::WithAcc { inputs, lam })
            }
            _ => self.basic_call(w),
        }
    }

    /// An operator and its neutral elements: a lambda, `,`, then the neutral elements.
    fn operator(&mut self) -> R<(Lambda, Vec<SubExp>)> {
        let lam = self.lambda()?;
        self.punct(",")?;
        Ok((lam, self.neutral()?))
    }

    /// Neutral elements: `(a, b)` or a single operand.
    fn neutral(&mut self) -> R<Vec<SubExp>> {
        if self.is_punct("(") {
            self.paren_subexps()
        } else {
            Ok(vec![self.subexp()?])
        }
    }
}

impl Parser {
    /// `w(` has been read and `w` names no SOAC: a basic operation by keyword, or a primitive
    /// operation by its printed name.
    pub(super) fn basic_call(&mut self, w: &str) -> R<Exp> {
        let b = |op| Ok(Exp::BasicOp(op));
        match w {
            "iota" => {
                let elem = self.prim_type()?;
                self.punct(",")?;
                let n = self.subexp()?;
                self.punct(",")?;
                let start = self.subexp()?;
                self.punct(",")?;
                let stride = self.subexp()?;
                self.punct(")")?;
                b(BasicOp::Iota {
                    n,
                    start,
                    stride,
                    elem,
                })
            }
            "replicate" => {
                let shape = self.dims()?;
                self.punct(",")?;
                let value = self.subexp()?;
                self.punct(")")?;
                b(BasicOp::Replicate { shape, value })
            }
            "scratch" => {
                let elem = self.prim_type()?;
                self.punct(",")?;
                let shape = self.dims()?;
                self.punct(")")?;
                b(BasicOp::Scratch { elem, shape })
            }
            "array" => {
                let row = self.ty()?;
                self.punct(",")?;
                let elems = self.bracket_subexps()?;
                self.punct(")")?;
                b(BasicOp::ArrayLit { elems, row })
            }
            "concat" => {
                let size = self.subexp()?;
                let arrays = self.trailing_vars()?;
                b(BasicOp::Concat { arrays, size })
            }
            "copy" => {
                let v = self.var()?;
                self.punct(")")?;
                b(BasicOp::Copy(v))
            }
            "reshape" | "coerce" => {
                let shape = self.dims()?;
                self.punct(",")?;
                let array = self.var()?;
                if w == "reshape" {
                    self.punct(")")?;
                    return b(BasicOp::Reshape { array, shape });
                }
                self.punct(",")?;
                let type_text = self.string()?;
                self.punct(")")?;
                b(BasicOp::Coerce {
                    array,
                    shape,
                    type_text,
                })
            }
            "rearrange" => {
                self.punct("[")?;
                let perm = self.comma_list("]", |p| p.usize_lit())?;
                self.punct(",")?;
                let array = self.var()?;
                self.punct(")")?;
                b(BasicOp::Rearrange { array, perm })
            }
            "rotate" => {
                let amount = self.subexp()?;
                self.punct(",")?;
                let array = self.var()?;
                self.punct(")")?;
                b(BasicOp::Rotate { array, amount })
            }
            "assert" => {
                let cond = self.subexp()?;
                self.punct(",")?;
                let message = self.string()?;
                let mut args = Vec::new();
                while self.eat_punct(",") {
                    args.push(self.subexp()?);
                }
                self.punct(")")?;
                b(BasicOp::Assert {
                    cond,
                    message,
                    args,
                })
            }
            "update_acc" => {
                let acc = self.var()?;
                self.punct(",")?;
                let indices = self.bracket_subexps()?;
                self.punct(",")?;
                let values = self.bracket_subexps()?;
                self.punct(")")?;
                b(BasicOp::UpdateAcc {
                    acc,
                    indices,
                    values,
                })
            }
            _ => match self.prims.get(w).copied() {
                Some(op) => {
                    let args = self.comma_list(")", |p| p.subexp())?;
                    b(BasicOp::Prim(op, args))
                }
                None => {
                    self.pos -= 2;
                    self.error(format!("unknown operation `{w}`"))
                }
            },
        }
    }
}
