//! The one traversal of every variable position in core IR.
//!
//! [`Visitor`] tells positions apart by what may stand there: a **binder** (a pattern, a
//! parameter, a loop counter), a **variable** (an array, an accumulator, a `while`
//! condition: only a variable may stand there), and an **operand** (a scalar argument or a
//! dimension of a type: a variable or a constant). Renaming ([`crate::core::renumber`]),
//! substitution ([`crate::core::subst`]), free and used variables ([`crate::core::visit`]) are
//! visitors, so a new kind of expression is taught to all of them here, once.
//!
//! Positions are visited in printed order (a statement's pattern before the bindings nested in
//! its expression; loop parameters before the counter; lambda parameters before their bodies).

use crate::core::ir::{
    BasicOp, Body, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, Prog, ScremaForm, Soac, Stm,
    SubExp, Type, Var,
};

/// What to do at each kind of variable position.
pub trait Visitor {
    /// A variable bound here.
    fn binder(&mut self, v: &mut Var);
    /// A use where only a variable may stand.
    fn var(&mut self, v: &mut Var);
    /// A use where a variable or a constant may stand (dimensions of types included).
    fn operand(&mut self, se: &mut SubExp);
}

/// The visitor that applies one renaming to every position.
pub struct Rename<F>(pub F);

impl<F: FnMut(Var) -> Var> Visitor for Rename<F> {
    fn binder(&mut self, v: &mut Var) {
        *v = (self.0)(*v);
    }
    fn var(&mut self, v: &mut Var) {
        *v = (self.0)(*v);
    }
    fn operand(&mut self, se: &mut SubExp) {
        if let SubExp::Var(v) = se {
            *v = (self.0)(*v);
        }
    }
}

/// Visits every variable of a function (bindings, uses, dimensions in types, entry
/// information), in printed order.
pub fn walk_fun(fun: &mut FunDef, f: &mut impl Visitor) {
    for v in fun.size_params.iter_mut().chain(fun.params.iter_mut()) {
        f.binder(v);
    }
    for t in &mut fun.ret {
        walk_type(t, f);
    }
    if let Some(EntryInfo { params, .. }) = &mut fun.entry {
        for (_, vs) in params {
            for v in vs {
                f.var(v);
            }
        }
    }
    walk_body(&mut fun.body, f);
}

/// Visits every variable of a program's functions (not to the name table).
pub fn walk_prog(prog: &mut Prog, f: &mut impl Visitor) {
    for fun in &mut prog.funs {
        walk_fun(fun, f);
    }
}

/// Visits every variable of a body.
pub fn walk_body(body: &mut Body, f: &mut impl Visitor) {
    for stm in &mut body.stms {
        walk_stm(stm, f);
    }
    for r in &mut body.result {
        f.operand(r);
    }
}

/// Visits every variable of a statement.
pub fn walk_stm(stm: &mut Stm, f: &mut impl Visitor) {
    for v in &mut stm.pat {
        f.binder(v);
    }
    walk_exp(&mut stm.exp, f);
}

fn operands(ses: &mut [SubExp], f: &mut impl Visitor) {
    for se in ses {
        f.operand(se);
    }
}

fn vars(vs: &mut [Var], f: &mut impl Visitor) {
    for v in vs {
        f.var(v);
    }
}

/// Visits the dimensions of a type's dimensions.
pub fn walk_type(t: &mut Type, f: &mut impl Visitor) {
    match t {
        Type::Prim(_) => {}
        Type::Array { dims, .. } => operands(dims, f),
        Type::Acc { shape, .. } => operands(shape, f),
    }
}

/// Visits every variable of a lambda.
pub fn walk_lambda(lam: &mut Lambda, f: &mut impl Visitor) {
    for p in &mut lam.params {
        f.binder(p);
    }
    for t in &mut lam.ret {
        walk_type(t, f);
    }
    walk_body(&mut lam.body, f);
}

fn walk_slice(slice: &mut [DimIndex], f: &mut impl Visitor) {
    for d in slice {
        match d {
            DimIndex::Fix(i) => f.operand(i),
            DimIndex::Slice {
                start,
                count,
                stride,
            } => {
                f.operand(start);
                f.operand(count);
                f.operand(stride);
            }
        }
    }
}

/// Visits every variable of an expression.
pub fn walk_exp(exp: &mut Exp, f: &mut impl Visitor) {
    match exp {
        Exp::BasicOp(op) => walk_basic_op(op, f),
        Exp::If {
            cond,
            then_body,
            else_body,
            ret,
        } => {
            f.operand(cond);
            walk_body(then_body, f);
            walk_body(else_body, f);
            for t in ret {
                walk_type(t, f);
            }
        }
        Exp::Loop { params, form, body } => {
            for (p, init) in params.iter_mut() {
                f.binder(p);
                f.operand(init);
            }
            match form {
                LoopForm::For { i, bound } => {
                    f.binder(i);
                    f.operand(bound);
                }
                LoopForm::While { cond } => f.var(cond),
            }
            walk_body(body, f);
        }
        Exp::Apply { args, ret, .. } => {
            operands(args, f);
            for t in ret {
                walk_type(t, f);
            }
        }
        Exp::Soac(soac) => match soac {
            Soac::Map { w, lam, arrays } => {
                f.operand(w);
                walk_lambda(lam, f);
                vars(arrays, f);
            }
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            }
            | Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => {
                f.operand(w);
                walk_lambda(lam, f);
                operands(neutral, f);
                vars(arrays, f);
            }
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                f.operand(w);
                vars(dests, f);
                walk_lambda(lam, f);
                operands(neutral, f);
                f.var(indices);
                vars(values, f);
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => {
                f.operand(w);
                vars(dests, f);
                f.var(indices);
                vars(values, f);
            }
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => {
                f.operand(w);
                match &mut **form {
                    ScremaForm::Reduce { lam, neutral, .. } | ScremaForm::Scan { lam, neutral } => {
                        walk_lambda(map, f);
                        walk_lambda(lam, f);
                        operands(neutral, f);
                    }
                    ScremaForm::Hist {
                        dests,
                        lam,
                        neutral,
                    } => {
                        vars(dests, f);
                        walk_lambda(map, f);
                        walk_lambda(lam, f);
                        operands(neutral, f);
                    }
                    ScremaForm::Scatter { dests } => {
                        vars(dests, f);
                        walk_lambda(map, f);
                    }
                }
                vars(arrays, f);
            }
        },
        Exp::WithAcc { inputs, lam } => {
            for (shape, arrays) in inputs.iter_mut() {
                operands(shape, f);
                vars(arrays, f);
            }
            walk_lambda(lam, f);
        }
        Exp::Ad {
            lam, args, seeds, ..
        } => {
            walk_lambda(lam, f);
            operands(args, f);
            operands(seeds, f);
        }
    }
}

fn walk_basic_op(op: &mut BasicOp, f: &mut impl Visitor) {
    match op {
        BasicOp::SubExp(se) => f.operand(se),
        BasicOp::Prim(_, args) => operands(args, f),
        BasicOp::Index { array, slice } => {
            f.var(array);
            walk_slice(slice, f);
        }
        BasicOp::Update {
            array,
            slice,
            value,
        } => {
            f.var(array);
            walk_slice(slice, f);
            f.operand(value);
        }
        BasicOp::Iota {
            n, start, stride, ..
        } => {
            f.operand(n);
            f.operand(start);
            f.operand(stride);
        }
        BasicOp::Replicate { shape, value } => {
            operands(shape, f);
            f.operand(value);
        }
        BasicOp::Scratch { shape, .. } => operands(shape, f),
        BasicOp::ArrayLit { elems, row } => {
            operands(elems, f);
            walk_type(row, f);
        }
        BasicOp::Concat { arrays, size } => {
            f.operand(size);
            vars(arrays, f);
        }
        BasicOp::Copy(v) => f.var(v),
        BasicOp::Reshape { array, shape } | BasicOp::Coerce { array, shape, .. } => {
            operands(shape, f);
            f.var(array);
        }
        BasicOp::Rearrange { array, .. } => f.var(array),
        BasicOp::Rotate { array, amount } => {
            f.operand(amount);
            f.var(array);
        }
        BasicOp::Assert { cond, args, .. } => {
            f.operand(cond);
            operands(args, f);
        }
        BasicOp::UpdateAcc {
            acc,
            indices,
            values,
        } => {
            f.var(acc);
            operands(indices, f);
            operands(values, f);
        }
    }
}
