//! Dense renumbering of variables, so that printed snapshots do not churn.
//!
//! [`renumber`] returns a copy of a program whose variables are numbered `0, 1, 2, ..` in the
//! order in which their bindings appear in the printed text (size parameters, parameters,
//! then each statement's pattern before the bindings nested in its expression; loop parameters
//! before the counter; lambda parameters before their bodies). Variables that are used but
//! never bound (invalid IR) are numbered after all bound ones, in order of first use. Entries
//! of the name table that the program never mentions are dropped. Hints and types are kept.
//!
//! [`map_vars_prog`] and friends, which apply a renaming to every occurrence of a variable
//! (bindings, uses, and dimensions inside types), are public for passes that need them.

use crate::core::ir::{
    BasicOp, Body, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, NameTable, Prog, ScremaForm,
    Soac, Stm, SubExp, Type, Var,
};
use std::collections::HashMap;

/// A copy of `prog` with variables numbered densely in order of first binding.
pub fn renumber(prog: &Prog) -> Prog {
    let mut order: Vec<Var> = Vec::new();
    let mut seen: HashMap<Var, u32> = HashMap::new();
    let mut bind = |v: Var, order: &mut Vec<Var>| {
        seen.entry(v).or_insert_with(|| {
            order.push(v);
            order.len() as u32 - 1
        });
    };
    for f in &prog.funs {
        let mut bs = Vec::new();
        fun_binders(f, &mut bs);
        for v in bs {
            bind(v, &mut order);
        }
    }
    // Uses of unbound variables, in order of first use.
    let mut extra = Vec::new();
    let mut probe = prog.funs.clone();
    for f in &mut probe {
        map_vars_fun(f, &mut |v| {
            extra.push(v);
            v
        });
    }
    for v in extra {
        bind(v, &mut order);
    }
    // Variables only mentioned in the types of others.
    let mut k = 0;
    while k < order.len() {
        let v = order[k];
        if (v.0 as usize) < prog.names.len() {
            let mut t = prog.names.ty(v).clone();
            let mut dims = Vec::new();
            map_vars_type(&mut t, &mut |d| {
                dims.push(d);
                d
            });
            for d in dims {
                bind(d, &mut order);
            }
        }
        k += 1;
    }
    let new_of: HashMap<Var, Var> = order
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, Var(i as u32)))
        .collect();
    let mut rename = |v: Var| new_of.get(&v).copied().unwrap_or(v);
    let mut names = NameTable::new();
    for v in &order {
        let hint = prog.names.hint(*v).to_string();
        let mut ty = if (v.0 as usize) < prog.names.len() {
            prog.names.ty(*v).clone()
        } else {
            Type::Prim(crate::value::PrimType::Bool)
        };
        map_vars_type(&mut ty, &mut rename);
        names.fresh(&hint, ty);
    }
    let mut funs = prog.funs.clone();
    for f in &mut funs {
        map_vars_fun(f, &mut rename);
    }
    Prog { names, funs }
}

/// The variables a function binds, in printed order.
pub fn fun_binders(f: &FunDef, out: &mut Vec<Var>) {
    out.extend(&f.size_params);
    out.extend(&f.params);
    body_binders(&f.body, out);
}

/// The variables a body binds (at any depth), in printed order.
pub fn body_binders(body: &Body, out: &mut Vec<Var>) {
    for stm in &body.stms {
        out.extend(&stm.pat);
        exp_binders(&stm.exp, out);
    }
}

fn lambda_binders(lam: &Lambda, out: &mut Vec<Var>) {
    out.extend(&lam.params);
    body_binders(&lam.body, out);
}

fn exp_binders(exp: &Exp, out: &mut Vec<Var>) {
    match exp {
        Exp::BasicOp(_) | Exp::Apply { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            body_binders(then_body, out);
            body_binders(else_body, out);
        }
        Exp::Loop { params, form, body } => {
            out.extend(params.iter().map(|(p, _)| *p));
            if let LoopForm::For { i, .. } = form {
                out.push(*i);
            }
            body_binders(body, out);
        }
        Exp::Soac(soac) => {
            for lam in soac.lambdas() {
                lambda_binders(lam, out);
            }
        }
        Exp::WithAcc { lam, .. } => lambda_binders(lam, out),
    }
}

/// Applies `f` to every variable of a function (bindings, uses, dimensions in types, entry
/// information), in printed order.
pub fn map_vars_fun(fun: &mut FunDef, f: &mut impl FnMut(Var) -> Var) {
    for v in fun.size_params.iter_mut().chain(fun.params.iter_mut()) {
        *v = f(*v);
    }
    for t in &mut fun.ret {
        map_vars_type(t, f);
    }
    if let Some(EntryInfo { params, .. }) = &mut fun.entry {
        for (_, vs) in params {
            for v in vs {
                *v = f(*v);
            }
        }
    }
    map_vars_body(&mut fun.body, f);
}

/// Applies `f` to every variable of a program's functions (not to the name table).
pub fn map_vars_prog(prog: &mut Prog, f: &mut impl FnMut(Var) -> Var) {
    for fun in &mut prog.funs {
        map_vars_fun(fun, f);
    }
}

/// Applies `f` to every variable of a body.
pub fn map_vars_body(body: &mut Body, f: &mut impl FnMut(Var) -> Var) {
    for stm in &mut body.stms {
        map_vars_stm(stm, f);
    }
    for r in &mut body.result {
        map_se(r, f);
    }
}

fn map_vars_stm(stm: &mut Stm, f: &mut impl FnMut(Var) -> Var) {
    for v in &mut stm.pat {
        *v = f(*v);
    }
    map_vars_exp(&mut stm.exp, f);
}

fn map_se(se: &mut SubExp, f: &mut impl FnMut(Var) -> Var) {
    if let SubExp::Var(v) = se {
        *v = f(*v);
    }
}

fn map_ses(ses: &mut [SubExp], f: &mut impl FnMut(Var) -> Var) {
    for se in ses {
        map_se(se, f);
    }
}

fn map_vs(vs: &mut [Var], f: &mut impl FnMut(Var) -> Var) {
    for v in vs {
        *v = f(*v);
    }
}

/// Applies `f` to the variables in a type's dimensions.
pub fn map_vars_type(t: &mut Type, f: &mut impl FnMut(Var) -> Var) {
    match t {
        Type::Prim(_) => {}
        Type::Array { dims, .. } => map_ses(dims, f),
        Type::Acc { shape, .. } => map_ses(shape, f),
    }
}

fn map_vars_lambda(lam: &mut Lambda, f: &mut impl FnMut(Var) -> Var) {
    map_vs(&mut lam.params, f);
    for t in &mut lam.ret {
        map_vars_type(t, f);
    }
    map_vars_body(&mut lam.body, f);
}

fn map_slice(slice: &mut [DimIndex], f: &mut impl FnMut(Var) -> Var) {
    for d in slice {
        match d {
            DimIndex::Fix(i) => map_se(i, f),
            DimIndex::Slice {
                start,
                count,
                stride,
            } => {
                map_se(start, f);
                map_se(count, f);
                map_se(stride, f);
            }
        }
    }
}

fn map_vars_exp(exp: &mut Exp, f: &mut impl FnMut(Var) -> Var) {
    match exp {
        Exp::BasicOp(op) => map_vars_basic_op(op, f),
        Exp::If {
            cond,
            then_body,
            else_body,
            ret,
        } => {
            map_se(cond, f);
            map_vars_body(then_body, f);
            map_vars_body(else_body, f);
            for t in ret {
                map_vars_type(t, f);
            }
        }
        Exp::Loop { params, form, body } => {
            for (p, init) in params.iter_mut() {
                *p = f(*p);
                map_se(init, f);
            }
            match form {
                LoopForm::For { i, bound } => {
                    *i = f(*i);
                    map_se(bound, f);
                }
                LoopForm::While { cond } => *cond = f(*cond),
            }
            map_vars_body(body, f);
        }
        Exp::Apply { args, ret, .. } => {
            map_ses(args, f);
            for t in ret {
                map_vars_type(t, f);
            }
        }
        Exp::Soac(soac) => match soac {
            Soac::Map { w, lam, arrays } => {
                map_se(w, f);
                map_vars_lambda(lam, f);
                map_vs(arrays, f);
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
                map_se(w, f);
                map_vars_lambda(lam, f);
                map_ses(neutral, f);
                map_vs(arrays, f);
            }
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                map_se(w, f);
                map_vs(dests, f);
                map_vars_lambda(lam, f);
                map_ses(neutral, f);
                *indices = f(*indices);
                map_vs(values, f);
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => {
                map_se(w, f);
                map_vs(dests, f);
                *indices = f(*indices);
                map_vs(values, f);
            }
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => {
                map_se(w, f);
                match &mut **form {
                    ScremaForm::Reduce { lam, neutral, .. } | ScremaForm::Scan { lam, neutral } => {
                        map_vars_lambda(map, f);
                        map_vars_lambda(lam, f);
                        map_ses(neutral, f);
                    }
                    ScremaForm::Hist {
                        dests,
                        lam,
                        neutral,
                    } => {
                        map_vs(dests, f);
                        map_vars_lambda(map, f);
                        map_vars_lambda(lam, f);
                        map_ses(neutral, f);
                    }
                    ScremaForm::Scatter { dests } => {
                        map_vs(dests, f);
                        map_vars_lambda(map, f);
                    }
                }
                map_vs(arrays, f);
            }
        },
        Exp::WithAcc { inputs, lam } => {
            for (shape, arrays) in inputs.iter_mut() {
                map_ses(shape, f);
                map_vs(arrays, f);
            }
            map_vars_lambda(lam, f);
        }
    }
}

fn map_vars_basic_op(op: &mut BasicOp, f: &mut impl FnMut(Var) -> Var) {
    match op {
        BasicOp::SubExp(se) => map_se(se, f),
        BasicOp::Prim(_, args) => map_ses(args, f),
        BasicOp::Index { array, slice } => {
            *array = f(*array);
            map_slice(slice, f);
        }
        BasicOp::Update {
            array,
            slice,
            value,
        } => {
            *array = f(*array);
            map_slice(slice, f);
            map_se(value, f);
        }
        BasicOp::Iota {
            n, start, stride, ..
        } => {
            map_se(n, f);
            map_se(start, f);
            map_se(stride, f);
        }
        BasicOp::Replicate { shape, value } => {
            map_ses(shape, f);
            map_se(value, f);
        }
        BasicOp::Scratch { shape, .. } => map_ses(shape, f),
        BasicOp::ArrayLit { elems, row } => {
            map_ses(elems, f);
            map_vars_type(row, f);
        }
        BasicOp::Concat { arrays, size } => {
            map_se(size, f);
            map_vs(arrays, f);
        }
        BasicOp::Copy(v) => *v = f(*v),
        BasicOp::Reshape { array, shape } | BasicOp::Coerce { array, shape, .. } => {
            map_ses(shape, f);
            *array = f(*array);
        }
        BasicOp::Rearrange { array, .. } => *array = f(*array),
        BasicOp::Rotate { array, amount } => {
            map_se(amount, f);
            *array = f(*array);
        }
        BasicOp::Assert { cond, args, .. } => {
            map_se(cond, f);
            map_ses(args, f);
        }
        BasicOp::UpdateAcc {
            acc,
            indices,
            values,
        } => {
            *acc = f(*acc);
            map_ses(indices, f);
            map_ses(values, f);
        }
    }
}

/// Applies `f` to the [`crate::core::ir::Aux`] of every statement of a body, at any depth.
pub fn map_aux_body(body: &mut Body, f: &mut impl FnMut(&mut crate::core::ir::Aux)) {
    for stm in &mut body.stms {
        f(&mut stm.aux);
        match &mut stm.exp {
            Exp::BasicOp(_) | Exp::Apply { .. } => {}
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                map_aux_body(then_body, f);
                map_aux_body(else_body, f);
            }
            Exp::Loop { body, .. } => map_aux_body(body, f),
            Exp::Soac(soac) => {
                for lam in soac.lambdas_mut() {
                    map_aux_body(&mut lam.body, f);
                }
            }
            Exp::WithAcc { lam, .. } => map_aux_body(&mut lam.body, f),
        }
    }
}
