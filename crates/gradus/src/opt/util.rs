//! Helpers shared by the optimiser's passes: which variables an expression mentions, use
//! counts, substitution (in the IR and in the name table's types), copies of code with fresh
//! names, which expressions are free of effects, and range facts about integer variables.
//!
//! Nothing here rewrites on its own; every helper keeps the IR's invariants when its caller
//! does (fresh copies rename every binder, so the copy can sit next to the original).

use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, Exp, Lambda, LoopForm, NameTable, ScremaForm, Soac, Stm, SubExp,
    Type, Var,
};
use crate::core::prim::{BinOp, PrimOp, UnOp};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::value::Scalar;
use std::collections::{HashMap, HashSet};

/// Wraps an expression in a statement without pattern, to reuse body-level traversals.
fn as_body(exp: &Exp) -> Body {
    Body {
        stms: vec![Stm {
            pat: vec![],
            exp: exp.clone(),
            aux: Aux::default(),
        }],
        result: vec![],
    }
}

/// Calls `f` on every variable occurrence in `body` (binders included, types in the IR
/// included, name-table types not).
pub fn visit_body(body: &Body, f: &mut impl FnMut(Var)) {
    let mut b = body.clone();
    map_vars_body(&mut b, &mut |v| {
        f(v);
        v
    });
}

/// The variables bound anywhere inside `exp` (lambda and loop parameters, counters,
/// patterns of nested statements).
pub fn exp_binders(exp: &Exp) -> HashSet<Var> {
    let mut out = Vec::new();
    body_binders(&as_body(exp), &mut out);
    out.into_iter().collect()
}

/// The variables `exp` needs from its enclosing scope: every occurrence that is not bound
/// inside it, plus the variables in the types of its inner binders.
pub fn free_in_exp(names: &NameTable, exp: &Exp) -> HashSet<Var> {
    let body = as_body(exp);
    let mut inner = Vec::new();
    body_binders(&body, &mut inner);
    let inner_set: HashSet<Var> = inner.iter().copied().collect();
    let mut out = HashSet::new();
    visit_body(&body, &mut |v| {
        if !inner_set.contains(&v) {
            out.insert(v);
        }
    });
    for b in inner {
        for d in type_vars(names.ty(b)) {
            if !inner_set.contains(&d) {
                out.insert(d);
            }
        }
    }
    out
}

/// Free variables of a body (as [`free_in_exp`]).
pub fn free_in_body(names: &NameTable, body: &Body) -> HashSet<Var> {
    let mut inner = Vec::new();
    body_binders(body, &mut inner);
    let inner_set: HashSet<Var> = inner.iter().copied().collect();
    let mut out = HashSet::new();
    visit_body(body, &mut |v| {
        if !inner_set.contains(&v) {
            out.insert(v);
        }
    });
    for b in inner {
        for d in type_vars(names.ty(b)) {
            if !inner_set.contains(&d) {
                out.insert(d);
            }
        }
    }
    out
}

/// The variables a type mentions (in its dimensions).
pub fn type_vars(t: &Type) -> Vec<Var> {
    let mut out = Vec::new();
    let mut t = t.clone();
    map_vars_type(&mut t, &mut |v| {
        out.push(v);
        v
    });
    out
}

/// How often each variable occurs in `body` as an operand, a result or a dimension of a
/// type (binders are not counted, but the dimensions of their types are).
pub fn use_counts(names: &NameTable, body: &Body) -> HashMap<Var, usize> {
    let mut binders = Vec::new();
    body_binders(body, &mut binders);
    let mut counts: HashMap<Var, usize> = HashMap::new();
    visit_body(body, &mut |v| *counts.entry(v).or_default() += 1);
    for b in &binders {
        if let Some(c) = counts.get_mut(b) {
            *c -= 1;
        }
        for d in type_vars(names.ty(*b)) {
            *counts.entry(d).or_default() += 1;
        }
    }
    counts.retain(|_, c| *c > 0);
    counts
}

/// The variables consumed anywhere in `body` (updated arrays, destinations of `hist` and
/// `scatter`, accumulators, `with_acc` inputs, loop initial values its body consumes).
pub fn consumed_in_body(body: &Body, out: &mut HashSet<Var>) {
    for stm in &body.stms {
        consumed_in_exp(&stm.exp, out);
    }
}

fn consumed_in_exp(exp: &Exp, out: &mut HashSet<Var>) {
    match exp {
        Exp::BasicOp(BasicOp::Update { array, .. }) => {
            out.insert(*array);
        }
        Exp::BasicOp(BasicOp::UpdateAcc { acc, .. }) => {
            out.insert(*acc);
        }
        Exp::BasicOp(_) | Exp::Apply { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            consumed_in_body(then_body, out);
            consumed_in_body(else_body, out);
        }
        Exp::Loop { params, body, .. } => {
            let mut inner = HashSet::new();
            consumed_in_body(body, &mut inner);
            for (p, init) in params {
                if inner.contains(p)
                    && let SubExp::Var(v) = init
                {
                    out.insert(*v);
                }
            }
            out.extend(inner);
        }
        Exp::Soac(soac) => {
            match soac {
                Soac::Hist { dests, .. } | Soac::Scatter { dests, .. } => {
                    out.extend(dests.iter().copied())
                }
                Soac::Screma { form, .. } => out.extend(form.dests().iter().copied()),
                _ => {}
            }
            for lam in soac.lambdas() {
                consumed_in_body(&lam.body, out);
            }
        }
        Exp::WithAcc { inputs, lam } => {
            for (_, arrays) in inputs {
                out.extend(arrays.iter().copied());
            }
            consumed_in_body(&lam.body, out);
        }
    }
}

/// A substitution of variables by sub-expressions, applied to a body. Variables mapped to
/// constants may only occur as operands (not as arrays or binders); callers ensure that.
pub fn subst_body(body: &mut Body, map: &HashMap<Var, SubExp>) {
    if map.is_empty() {
        return;
    }
    // First replace operands that become constants, then rename variables.
    subst_consts_body(body, map);
    map_vars_body(body, &mut |v| match map.get(&v) {
        Some(SubExp::Var(w)) => *w,
        _ => v,
    });
}

/// Applies a renaming to the types in the name table (dimensions that are renamed variables
/// or become constants).
pub fn subst_names(names: &mut NameTable, map: &HashMap<Var, SubExp>) {
    if map.is_empty() {
        return;
    }
    for k in 0..names.len() {
        let v = Var(k as u32);
        let t = names.ty(v);
        if !type_vars(t).iter().any(|d| map.contains_key(d)) {
            continue;
        }
        let t = subst_type(t, map);
        names.set_ty(v, t);
    }
}

/// A type with its dimensions substituted.
pub fn subst_type(t: &Type, map: &HashMap<Var, SubExp>) -> Type {
    let sub = |d: &SubExp| match d {
        SubExp::Var(v) => map.get(v).copied().unwrap_or(*d),
        c => *c,
    };
    match t {
        Type::Prim(_) => t.clone(),
        Type::Array { elem, dims } => Type::Array {
            elem: *elem,
            dims: dims.iter().map(sub).collect(),
        },
        Type::Acc { shape, elems } => Type::Acc {
            shape: shape.iter().map(sub).collect(),
            elems: elems.clone(),
        },
    }
}

fn se_sub(se: &mut SubExp, map: &HashMap<Var, SubExp>) {
    if let SubExp::Var(v) = se
        && let Some(c @ SubExp::Const(_)) = map.get(v)
    {
        *se = *c;
    }
}

fn ses_sub(ses: &mut [SubExp], map: &HashMap<Var, SubExp>) {
    for s in ses {
        se_sub(s, map);
    }
}

fn type_sub(t: &mut Type, map: &HashMap<Var, SubExp>) {
    *t = subst_type(t, map);
}

fn slice_sub(slice: &mut [DimIndex], map: &HashMap<Var, SubExp>) {
    for d in slice {
        match d {
            DimIndex::Fix(i) => se_sub(i, map),
            DimIndex::Slice {
                start,
                count,
                stride,
            } => {
                se_sub(start, map);
                se_sub(count, map);
                se_sub(stride, map);
            }
        }
    }
}

fn subst_consts_body(body: &mut Body, map: &HashMap<Var, SubExp>) {
    for stm in &mut body.stms {
        subst_consts_exp(&mut stm.exp, map);
    }
    ses_sub(&mut body.result, map);
}

fn subst_consts_lambda(lam: &mut Lambda, map: &HashMap<Var, SubExp>) {
    subst_consts_body(&mut lam.body, map);
    for t in &mut lam.ret {
        type_sub(t, map);
    }
}

fn subst_consts_exp(exp: &mut Exp, map: &HashMap<Var, SubExp>) {
    match exp {
        Exp::BasicOp(op) => match op {
            BasicOp::SubExp(se) => se_sub(se, map),
            BasicOp::Prim(_, args) => ses_sub(args, map),
            BasicOp::Index { slice, .. } => slice_sub(slice, map),
            BasicOp::Update { slice, value, .. } => {
                slice_sub(slice, map);
                se_sub(value, map);
            }
            BasicOp::Iota {
                n, start, stride, ..
            } => {
                se_sub(n, map);
                se_sub(start, map);
                se_sub(stride, map);
            }
            BasicOp::Replicate { shape, value } => {
                ses_sub(shape, map);
                se_sub(value, map);
            }
            BasicOp::Scratch { shape, .. } => ses_sub(shape, map),
            BasicOp::ArrayLit { elems, row } => {
                ses_sub(elems, map);
                type_sub(row, map);
            }
            BasicOp::Concat { size, .. } => se_sub(size, map),
            BasicOp::Copy(_) | BasicOp::Rearrange { .. } => {}
            BasicOp::Reshape { shape, .. } => ses_sub(shape, map),
            BasicOp::Rotate { amount, .. } => se_sub(amount, map),
            BasicOp::Coerce { shape, .. } => ses_sub(shape, map),
            BasicOp::Assert { cond, args, .. } => {
                se_sub(cond, map);
                ses_sub(args, map);
            }
            BasicOp::UpdateAcc {
                indices, values, ..
            } => {
                ses_sub(indices, map);
                ses_sub(values, map);
            }
        },
        Exp::If {
            cond,
            then_body,
            else_body,
            ret,
        } => {
            se_sub(cond, map);
            subst_consts_body(then_body, map);
            subst_consts_body(else_body, map);
            for t in ret {
                type_sub(t, map);
            }
        }
        Exp::Loop { params, form, body } => {
            for (_, init) in params.iter_mut() {
                se_sub(init, map);
            }
            if let LoopForm::For { bound, .. } = form {
                se_sub(bound, map);
            }
            subst_consts_body(body, map);
        }
        Exp::Apply { args, ret, .. } => {
            ses_sub(args, map);
            for t in ret {
                type_sub(t, map);
            }
        }
        Exp::Soac(soac) => match soac {
            Soac::Map { w, lam, .. } => {
                se_sub(w, map);
                subst_consts_lambda(lam, map);
            }
            Soac::Reduce {
                w, lam, neutral, ..
            }
            | Soac::Scan {
                w, lam, neutral, ..
            }
            | Soac::Hist {
                w, lam, neutral, ..
            } => {
                se_sub(w, map);
                ses_sub(neutral, map);
                subst_consts_lambda(lam, map);
            }
            Soac::Scatter { w, .. } => se_sub(w, map),
            Soac::Screma {
                w, map: f, form, ..
            } => {
                se_sub(w, map);
                subst_consts_lambda(f, map);
                match &mut **form {
                    ScremaForm::Reduce { lam, neutral, .. }
                    | ScremaForm::Scan { lam, neutral }
                    | ScremaForm::Hist { lam, neutral, .. } => {
                        ses_sub(neutral, map);
                        subst_consts_lambda(lam, map);
                    }
                    ScremaForm::Scatter { .. } => {}
                }
            }
        },
        Exp::WithAcc { inputs, lam } => {
            for (shape, _) in inputs.iter_mut() {
                ses_sub(shape, map);
            }
            subst_consts_lambda(lam, map);
        }
    }
}

/// A copy of `body` in which every variable bound inside it gets a fresh name (same hint,
/// type renamed), so the copy can be placed anywhere the original's free variables are in
/// scope.
pub fn freshen_body(names: &mut NameTable, body: &Body) -> Body {
    let mut binders = Vec::new();
    body_binders(body, &mut binders);
    let mut ren: HashMap<Var, Var> = HashMap::new();
    for b in &binders {
        let hint = names.hint(*b).to_string();
        let t = names.ty(*b).clone();
        ren.insert(*b, names.fresh(&hint, t));
    }
    for b in &binders {
        let mut t = names.ty(ren[b]).clone();
        map_vars_type(&mut t, &mut |v| ren.get(&v).copied().unwrap_or(v));
        names.set_ty(ren[b], t);
    }
    let mut out = body.clone();
    map_vars_body(&mut out, &mut |v| ren.get(&v).copied().unwrap_or(v));
    out
}

/// A copy of `body` that can sit next to the original: `params` (the binders it takes from
/// outside, such as lambda or loop parameters) become fresh variables, returned in order,
/// and every variable bound inside gets a fresh name.
pub fn fresh_copy(names: &mut NameTable, params: &[Var], body: &Body) -> (Vec<Var>, Body) {
    let mut ren = HashMap::new();
    let mut fresh = Vec::with_capacity(params.len());
    for p in params {
        let (hint, t) = (names.hint(*p).to_string(), names.ty(*p).clone());
        let p2 = names.fresh(&hint, t);
        ren.insert(*p, SubExp::Var(p2));
        fresh.push(p2);
    }
    let mut copy = body.clone();
    subst_body(&mut copy, &ren);
    (fresh, freshen_body(names, &copy))
}

/// Statements computing `lam` applied to `args` (one sub-expression per parameter), with
/// fresh names, and its results.
pub fn instantiate_lambda(
    names: &mut NameTable,
    lam: &Lambda,
    args: &[SubExp],
    aux: &Aux,
) -> (Vec<Stm>, Vec<SubExp>) {
    let mut stms = Vec::new();
    let mut map = HashMap::new();
    for (p, a) in lam.params.iter().zip(args) {
        let t = names.ty(*p).clone();
        let hint = names.hint(*p).to_string();
        let p2 = names.fresh(&hint, t);
        stms.push(Stm {
            pat: vec![p2],
            exp: Exp::BasicOp(BasicOp::SubExp(*a)),
            aux: aux.clone(),
        });
        map.insert(*p, SubExp::Var(p2));
    }
    let mut body = lam.body.clone();
    subst_body(&mut body, &map);
    let body = freshen_body(names, &body);
    stms.extend(body.stms);
    (stms, body.result)
}

/// Whether a primitive operation can fail at run time (integer division by zero).
pub fn prim_can_fail(op: PrimOp) -> bool {
    match op {
        PrimOp::Bin(b, t) => {
            t.is_int()
                && matches!(
                    b,
                    BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem | BinOp::Pow
                )
        }
        _ => false,
    }
}

/// Facts `lo <= v < hi` about integer variables, from `iota` rows, loop counters and
/// branch conditions.
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    facts: HashMap<Var, (i64, SubExp)>,
    /// Variables bound to `iota(n, 0, 1)`, with their `n`.
    pub iotas: HashMap<Var, SubExp>,
}

impl Ranges {
    /// Records `lo <= v < hi`.
    pub fn insert(&mut self, v: Var, lo: i64, hi: SubExp) {
        self.facts.insert(v, (lo, hi));
    }
    /// The fact about `v`.
    pub fn get(&self, v: Var) -> Option<(i64, SubExp)> {
        self.facts.get(&v).copied()
    }
    /// Whether `0 <= i < n` is known.
    pub fn in_bounds(&self, i: &SubExp, n: &SubExp) -> bool {
        match i {
            SubExp::Const(Scalar::I64(c)) => match n {
                SubExp::Const(Scalar::I64(m)) => *c >= 0 && c < m,
                _ => false,
            },
            SubExp::Var(v) => match self.facts.get(v) {
                Some((lo, hi)) => *lo >= 0 && hi == n,
                None => false,
            },
            _ => false,
        }
    }
    /// Records the facts a lambda's parameters get from the SOAC's inputs: a parameter bound
    /// to the rows of `iota(w, 0, 1)` lies in `[0, w)`.
    pub fn from_inputs(&mut self, params: &[Var], arrays: &[Var]) {
        for (p, a) in params.iter().zip(arrays) {
            if let Some(n) = self.iotas.get(a).copied() {
                self.insert(*p, 0, n);
            }
        }
    }
}

/// Whether evaluating `exp` can neither fail nor have an effect, given the range facts: such
/// a statement may be removed when unused, and moved where it runs more often.
pub fn is_safe(exp: &Exp, ranges: &Ranges, names: &NameTable) -> bool {
    match exp {
        Exp::BasicOp(op) => match op {
            BasicOp::SubExp(_)
            | BasicOp::Rearrange { .. }
            | BasicOp::Copy(_)
            | BasicOp::Rotate { .. } => true,
            BasicOp::Prim(p, _) => !prim_can_fail(*p),
            BasicOp::Iota { n, .. } => nonneg(n),
            // Rows whose types are the row type have its sizes (a mismatch is the only
            // failure).
            BasicOp::ArrayLit { elems, row } => elems.iter().all(|e| match e {
                SubExp::Var(v) => names.ty(*v) == row,
                SubExp::Const(c) => *row == Type::Prim(c.prim_type()),
            }),
            BasicOp::Replicate { shape, .. } | BasicOp::Scratch { shape, .. } => {
                shape.iter().all(nonneg)
            }
            BasicOp::Index { array, slice } => {
                let dims = names.ty(*array).dims().to_vec();
                slice.iter().zip(&dims).all(|(d, n)| match d {
                    DimIndex::Fix(i) => ranges.in_bounds(i, n),
                    DimIndex::Slice { .. } => false,
                })
            }
            _ => false,
        },
        Exp::Soac(Soac::Map { lam, arrays, .. }) => {
            let mut r = ranges.clone();
            r.from_inputs(&lam.params, arrays);
            body_is_safe(&lam.body, &r, names)
        }
        Exp::Soac(Soac::Reduce { lam, .. }) | Exp::Soac(Soac::Scan { lam, .. }) => {
            body_is_safe(&lam.body, ranges, names)
        }
        Exp::Soac(Soac::Screma {
            map, arrays, form, ..
        }) if matches!(**form, ScremaForm::Reduce { .. } | ScremaForm::Scan { .. }) => {
            let mut r = ranges.clone();
            r.from_inputs(&map.params, arrays);
            body_is_safe(&map.body, &r, names)
                && form
                    .op()
                    .is_some_and(|op| body_is_safe(&op.body, ranges, names))
        }
        Exp::If {
            then_body,
            else_body,
            ..
        } => body_is_safe(then_body, ranges, names) && body_is_safe(else_body, ranges, names),
        Exp::Loop {
            form: LoopForm::For { i, bound },
            body,
            ..
        } => {
            let mut r = ranges.clone();
            if names.ty(*i) == &Type::Prim(crate::value::PrimType::I64) {
                r.insert(*i, 0, *bound);
            }
            body_is_safe(body, &r, names)
        }
        _ => false,
    }
}

/// Whether every statement of `body` is [`is_safe`]; lambda parameters of nested maps over
/// `iota` rows count as in range.
pub fn body_is_safe(body: &Body, ranges: &Ranges, names: &NameTable) -> bool {
    let mut ranges = ranges.clone();
    for stm in &body.stms {
        if let Exp::Soac(Soac::Map { lam, arrays, .. }) = &stm.exp {
            ranges.from_inputs(&lam.params, arrays);
        }
        if !is_safe(&stm.exp, &ranges, names) {
            return false;
        }
        if let (
            Exp::BasicOp(BasicOp::Iota {
                n, start, stride, ..
            }),
            [v],
        ) = (&stm.exp, stm.pat.as_slice())
            && is_int_const(start, 0)
            && is_int_const(stride, 1)
        {
            ranges.iotas.insert(*v, *n);
        }
    }
    true
}

fn nonneg(se: &SubExp) -> bool {
    // Sizes in types are non-negative by construction; constants are checked.
    match se {
        SubExp::Const(c) => c.to_f64() >= 0.0,
        SubExp::Var(_) => true,
    }
}

/// Whether `se` is the integer constant `k` (of any integer type).
pub fn is_int_const(se: &SubExp, k: i64) -> bool {
    match se {
        SubExp::Const(c) if c.prim_type().is_int() => c.to_f64() == k as f64,
        _ => false,
    }
}

/// Whether `se` is a numeric zero constant (`-0.0` included).
pub fn is_zero(se: &SubExp) -> bool {
    match se {
        SubExp::Const(c) if c.prim_type().is_numeric() => c.to_f64() == 0.0,
        _ => false,
    }
}

/// Whether `se` is the numeric constant one.
pub fn is_one(se: &SubExp) -> bool {
    match se {
        SubExp::Const(c) if c.prim_type().is_numeric() => c.to_f64() == 1.0,
        _ => false,
    }
}

/// The zero of a numeric type.
pub fn zero_of(t: crate::value::PrimType) -> SubExp {
    SubExp::Const(Scalar::from_f64(t, 0.0))
}

/// Whether the unary op is a negation.
pub fn is_neg(op: PrimOp) -> bool {
    matches!(op, PrimOp::Un(UnOp::Neg, _))
}

/// Walks every body of `body` (itself and all nested ones), innermost first.
pub fn walk_bodies_mut(body: &mut Body, f: &mut impl FnMut(&mut Body)) {
    for stm in &mut body.stms {
        walk_exp_bodies_mut(&mut stm.exp, f);
    }
    f(body);
}

/// Walks the bodies nested in `exp`, innermost first.
pub fn walk_exp_bodies_mut(exp: &mut Exp, f: &mut impl FnMut(&mut Body)) {
    match exp {
        Exp::BasicOp(_) | Exp::Apply { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            walk_bodies_mut(then_body, f);
            walk_bodies_mut(else_body, f);
        }
        Exp::Loop { body, .. } => walk_bodies_mut(body, f),
        Exp::Soac(soac) => {
            for lam in soac.lambdas_mut() {
                walk_bodies_mut(&mut lam.body, f);
            }
        }
        Exp::WithAcc { lam, .. } => walk_bodies_mut(&mut lam.body, f),
    }
}

/// A copy of `body` keeping only the statements needed for `results` (a local dead-code
/// elimination for passes that take a body apart).
pub fn prune(names: &NameTable, body: &Body, results: Vec<SubExp>) -> Body {
    let mut live: HashSet<Var> = results.iter().filter_map(|r| r.as_var()).collect();
    let mut keep = vec![false; body.stms.len()];
    for (k, stm) in body.stms.iter().enumerate().rev() {
        if stm.pat.iter().any(|v| live.contains(v)) {
            keep[k] = true;
            live.extend(free_in_exp(names, &stm.exp));
            for v in &stm.pat {
                live.extend(type_vars(names.ty(*v)));
            }
        }
    }
    Body {
        stms: body
            .stms
            .iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(s, _)| s.clone())
            .collect(),
        result: results,
    }
}

/// The variables among `of` that `se` depends on through the statements of `body`.
pub fn deps_in(names: &NameTable, body: &Body, se: &SubExp, of: &HashSet<Var>) -> HashSet<Var> {
    let pruned = prune(names, body, vec![*se]);
    let mut out: HashSet<Var> = free_in_body(names, &pruned)
        .into_iter()
        .filter(|v| of.contains(v))
        .collect();
    if let SubExp::Var(v) = se
        && of.contains(v)
    {
        out.insert(*v);
    }
    out
}
