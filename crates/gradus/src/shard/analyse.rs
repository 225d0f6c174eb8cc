//! The sharding analysis of one function body (docs/mpi.md §How the compiler shards an entry
//! point).
//!
//! Takes the body of an entry point whose sharded parameters hold only this process's rows,
//! and gives every variable a [`Kind`]: replicated, a partial sum, this process's rows, or
//! mixed (with the statement that made it so). Rewrites the body on the way so that each
//! partial sum is exact: a replicated value that enters a partial sum (an operand of `+`, the
//! initial value of an accumulator, a reduction's neutral element) is *masked*, kept on rank 0
//! and replaced by zeros elsewhere, so that it is counted once in the sum over processes.
//!
//! Guarantees: where a result is [`Kind::Part`], the sum over processes of the rewritten
//! body's result equals the unsharded result (up to float reassociation); [`Kind::Rows`], the
//! concatenation in rank order does; [`Kind::Rep`], every process's result does. The rules
//! admit only operations linear in their partial-sum operands (`+`, `-`, negation, products
//! and quotients by replicated values, selection under a replicated condition, indexing and
//! reshaping, `+`-reductions, accumulators) and per-row computations (a `map`, reduction or
//! histogram over the rows whose function reads no partial sum and no other row). Arrays with
//! the rows in an inner dimension (reverse mode's per-row checkpoints of a loop) are followed
//! through indexing and updates; an `if` marked [`ATTR_FALLBACK`] whose condition is not
//! replicated takes its else branch on every process.

use super::kind::Kind;
use crate::core::ir::*;
use crate::core::prim::{BinOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use std::collections::HashMap;

/// The state of the analysis of one entry point.
pub(crate) struct Analysis<'a> {
    pub(crate) names: &'a mut NameTable,
    pub(crate) kinds: HashMap<Var, Kind>,
    /// Reasons of [`Kind::Mixed`] values: the statement's location and a message.
    pub(crate) why: Vec<(Aux, String)>,
    /// Where the statement being analysed came from (span and call sites).
    pub(crate) here: Aux,
    /// Results of reductions over the rows by `max` or `min` ([`super::extrema`]), which
    /// combine across processes only as results of the entry point.
    pub(crate) extrema: HashMap<Var, super::Combine>,
    /// The first statement that cannot run sharded at all (an assertion on a partial sum).
    pub(crate) hard: Option<(Aux, String)>,
    /// The local number of rows (a partial sum of the global one).
    pub(crate) count: Var,
    /// `shard_rank == 0`.
    pub(crate) rank0: Var,
    /// The global index of this process's first row.
    pub(crate) offset: Var,
}

/// Statements inserted before the current one.
type Pre = Vec<Stm>;

const MAX_ROUNDS: usize = 4;

impl Analysis<'_> {
    pub(crate) fn kind_of(&self, v: Var) -> Kind {
        self.kind(&SubExp::Var(v))
    }

    pub(crate) fn kind_of_subexp(&self, se: &SubExp) -> Kind {
        self.kind(se)
    }

    fn kind(&self, se: &SubExp) -> Kind {
        match se {
            SubExp::Const(c) if is_zero(c) => Kind::Zero,
            SubExp::Const(_) => Kind::Rep,
            SubExp::Var(v) => self.kinds.get(v).copied().unwrap_or(Kind::Rep),
        }
    }

    pub(crate) fn mixed(&mut self, span: Span, msg: impl Into<String>) -> Kind {
        let mut aux = self.here.clone();
        aux.span = span;
        self.why.push((aux, msg.into()));
        Kind::Mixed(self.why.len() as u32 - 1)
    }

    /// The join of `ks`, or a mixed kind naming `span` when rows meet other values.
    fn join_all(&mut self, ks: &[Kind], span: Span) -> Kind {
        let Some((first, rest)) = ks.split_first() else {
            return Kind::Zero;
        };
        let mut acc = *first;
        for k in rest {
            match acc.join(*k) {
                Some(j) => acc = j,
                None => {
                    return self.mixed(
                        span,
                        "combines this process's rows with values that are not rows",
                    );
                }
            }
        }
        acc
    }

    /// `se` counted once: itself on rank 0, zeros elsewhere, when `target` is a partial sum
    /// and `se` is replicated (non-zero).
    fn masked(&mut self, se: SubExp, target: Kind, pre: &mut Pre) -> SubExp {
        if target != Kind::Part || self.kind(&se) != Kind::Rep {
            return se;
        }
        let ty = self.names.subexp_ty(&se);
        let aux = Aux::default();
        let exp = match &ty {
            Type::Prim(t) => Exp::BasicOp(BasicOp::Prim(
                PrimOp::Tern(TernOp::Select, *t),
                vec![self.rank0.into(), se, SubExp::Const(Scalar::zero(*t))],
            )),
            Type::Array { elem, dims } => {
                let Some(v) = se.as_var() else { return se };
                let copy = self.names.fresh("once", ty.clone());
                let zeros = self.names.fresh("zeros", ty.clone());
                Exp::If {
                    cond: self.rank0.into(),
                    then_body: Body {
                        stms: vec![Stm {
                            pat: vec![copy],
                            exp: Exp::BasicOp(BasicOp::Copy(v)),
                            aux: aux.clone(),
                        }],
                        result: vec![copy.into()],
                    },
                    else_body: Body {
                        stms: vec![Stm {
                            pat: vec![zeros],
                            exp: Exp::BasicOp(BasicOp::Replicate {
                                shape: dims.clone(),
                                value: SubExp::Const(Scalar::zero(*elem)),
                            }),
                            aux: aux.clone(),
                        }],
                        result: vec![zeros.into()],
                    },
                    ret: vec![ty.clone()],
                }
            }
            Type::Acc { .. } => return se,
        };
        let out = self.names.fresh("once", ty);
        self.kinds.insert(out, Kind::Part);
        pre.push(Stm {
            pat: vec![out],
            exp,
            aux,
        });
        out.into()
    }

    pub(crate) fn masked_var(&mut self, v: Var, target: Kind, pre: &mut Pre) -> Var {
        self.masked(v.into(), target, pre).as_var().unwrap_or(v)
    }

    /// Analyses and rewrites `body`; returns the kinds of its results.
    pub(crate) fn body(&mut self, body: &mut Body) -> Vec<Kind> {
        let old = std::mem::take(&mut body.stms);
        for mut stm in old {
            let mut pre = Vec::new();
            let ks = self.stm(&mut stm, &mut pre);
            for (v, k) in stm.pat.iter().zip(ks) {
                self.kinds.insert(*v, k);
            }
            body.stms.extend(pre);
            body.stms.push(stm);
        }
        body.result.iter().map(|r| self.kind(r)).collect()
    }

    /// Makes the results of `body` have the kinds `target` (masking replicated ones).
    fn mask_results(&mut self, body: &mut Body, target: &[Kind]) {
        let mut pre = Vec::new();
        for (r, t) in body.result.iter_mut().zip(target) {
            *r = self.masked(*r, *t, &mut pre);
        }
        body.stms.extend(pre);
    }

    fn stm(&mut self, stm: &mut Stm, pre: &mut Pre) -> Vec<Kind> {
        if let Some(ks) = self.fallback(stm) {
            return ks;
        }
        let n = stm.pat.len();
        let free = crate::core::visit::stm_free_vars(stm);
        if free.iter().all(|v| self.kind(&SubExp::Var(*v)).is_rep()) {
            let zero = matches!(&stm.exp, Exp::BasicOp(BasicOp::SubExp(s)) | Exp::BasicOp(BasicOp::Replicate { value: s, .. }) if self.kind(s) == Kind::Zero)
                || matches!(&stm.exp, Exp::BasicOp(BasicOp::Scratch { .. }));
            return vec![if zero { Kind::Zero } else { Kind::Rep }; n];
        }
        if let Some(m) = free
            .iter()
            .map(|v| self.kind(&SubExp::Var(*v)))
            .find(|k| matches!(k, Kind::Mixed(_)))
        {
            return vec![m; n];
        }
        let span = stm.aux.span;
        let outer = std::mem::replace(&mut self.here, stm.aux.clone());
        let ks = match &mut stm.exp {
            Exp::BasicOp(op) => vec![self.basic(op, span, pre)],
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => self.if_(*cond, then_body, else_body, span, n),
            Exp::Loop {
                params, form, body, ..
            } => self.loop_(params, form, body, span, pre),
            Exp::WithAcc { inputs, lam } => self.with_acc(inputs, lam, span, pre),
            Exp::Soac(soac) => self.soac(soac, span, pre, n),
            Exp::Apply { fun, .. } => {
                let m = self.mixed(span, format!("calls `{fun}` with sharded data"));
                vec![m; n]
            }
            Exp::Ad { .. } => {
                let m = self.mixed(span, "an AD operator that was not expanded");
                vec![m; n]
            }
        };
        self.here = outer;
        let mut ks = if ks.len() == n {
            ks
        } else {
            vec![ks.first().copied().unwrap_or(Kind::Rep); n]
        };
        super::extrema::refine(self, stm, &mut ks);
        ks
    }

    /// An [`ATTR_FALLBACK`] `if` whose condition is not replicated: the condition becomes
    /// `false`, so that every process takes the else branch, which is right whatever the
    /// condition; the then branch is left as it is, dead. `None` for any other statement.
    fn fallback(&mut self, stm: &mut Stm) -> Option<Vec<Kind>> {
        let Exp::If {
            cond, else_body, ..
        } = &mut stm.exp
        else {
            return None;
        };
        if self.kind(cond).is_rep() || !stm.aux.attrs.iter().any(|a| a == ATTR_FALLBACK) {
            return None;
        }
        *cond = SubExp::Const(Scalar::Bool(false));
        let outer = std::mem::replace(&mut self.here, stm.aux.clone());
        let ks = self.body(else_body);
        self.here = outer;
        Some(ks)
    }

    fn basic(&mut self, op: &mut BasicOp, span: Span, pre: &mut Pre) -> Kind {
        match op {
            BasicOp::SubExp(s) => self.kind(s),
            BasicOp::Prim(p, args) => self.prim(*p, args, span, pre),
            BasicOp::Index { array, slice } => {
                let k = self.kind(&(*array).into());
                if !slice_rep(self, slice) {
                    return self.mixed(span, "indexes with a position that depends on the rows");
                }
                match k {
                    Kind::Rows => self.mixed(span, "picks particular rows of the sharded data"),
                    Kind::InnerRows(d) => self.index_inner_rows(d.into(), slice, span),
                    k => k,
                }
            }
            BasicOp::Update {
                array,
                slice,
                value,
            } => {
                if !slice_rep(self, slice) {
                    return self.mixed(span, "updates a position that depends on the rows");
                }
                let ks = [self.kind(&(*array).into()), self.kind(value)];
                if let Kind::InnerRows(d) = ks[0] {
                    let want = self.index_inner_rows(d.into(), slice, span);
                    return if ks[1] == want {
                        ks[0]
                    } else {
                        self.mixed(span, "updates an array of rows with other values")
                    };
                }
                if ks.iter().any(|k| k.has_rows()) {
                    return self.mixed(span, "updates particular rows of the sharded data");
                }
                let t = self.join_all(&ks, span);
                *array = self.masked_var(*array, t, pre);
                *value = self.masked(*value, t, pre);
                t
            }
            BasicOp::Iota { .. } | BasicOp::Replicate { .. } | BasicOp::Scratch { .. } => {
                self.creation(op, span, pre)
            }
            BasicOp::ArrayLit { elems, .. } => {
                let ks: Vec<Kind> = elems.iter().map(|e| self.kind(e)).collect();
                if ks.iter().any(|k| k.has_rows()) {
                    return self.mixed(span, "an array literal of rows");
                }
                let t = self.join_all(&ks, span);
                for e in elems.iter_mut() {
                    *e = self.masked(*e, t, pre);
                }
                t
            }
            BasicOp::Concat { arrays, size } => {
                let ks: Vec<Kind> = arrays.iter().map(|a| self.kind(&(*a).into())).collect();
                if ks.iter().any(|k| k.has_rows()) || !self.kind(size).is_rep() {
                    return self.mixed(span, "concatenates rows of the sharded data");
                }
                let t = self.join_all(&ks, span);
                for a in arrays.iter_mut() {
                    *a = self.masked_var(*a, t, pre);
                }
                t
            }
            BasicOp::Copy(_)
            | BasicOp::Rearrange { .. }
            | BasicOp::Reshape { .. }
            | BasicOp::Coerce { .. }
            | BasicOp::Rotate { .. } => self.layout(op, span),
            BasicOp::Assert { cond, .. } => {
                let k = self.kind(cond);
                if !k.is_rep() && self.hard.is_none() {
                    let mut aux = self.here.clone();
                    aux.span = span;
                    self.hard = Some((
                        aux,
                        "an assertion on a value that depends on the rows of every process"
                            .to_string(),
                    ));
                }
                Kind::Rep
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => {
                if !indices.iter().all(|i| self.kind(i).is_rep()) {
                    return self.mixed(span, "accumulates at a position that depends on the rows");
                }
                let mut ks = vec![self.kind(&(*acc).into())];
                ks.extend(values.iter().map(|v| self.kind(v)));
                if ks.iter().any(|k| k.has_rows()) {
                    return self.mixed(span, "accumulates rows outside a map over the rows");
                }
                let t = self.join_all(&ks, span);
                for v in values.iter_mut() {
                    *v = self.masked(*v, t, pre);
                }
                t
            }
        }
    }

    /// `iota`, `replicate` and scratch arrays: rows when their length is the number of rows.
    fn creation(&mut self, op: &mut BasicOp, span: Span, pre: &mut Pre) -> Kind {
        match op {
            BasicOp::Iota {
                n, start, stride, ..
            } => {
                if *n == SubExp::Var(self.count)
                    && self.kind(start).is_rep()
                    && self.kind(stride).is_rep()
                {
                    // Global indices: start + offset * stride.
                    let t = self.names.subexp_ty(start).elem();
                    let step = self.names.fresh("shard_step", Type::Prim(t));
                    let first = self.names.fresh("shard_start", Type::Prim(t));
                    let off = if t == PrimType::I64 {
                        SubExp::Var(self.offset)
                    } else {
                        let c = self.names.fresh("shard_offset", Type::Prim(t));
                        pre.push(prim_stm(
                            c,
                            PrimOp::Conv(PrimType::I64, t),
                            vec![self.offset.into()],
                        ));
                        c.into()
                    };
                    pre.push(prim_stm(
                        step,
                        PrimOp::Bin(BinOp::Mul, t),
                        vec![off, *stride],
                    ));
                    pre.push(prim_stm(
                        first,
                        PrimOp::Bin(BinOp::Add, t),
                        vec![*start, step.into()],
                    ));
                    *start = first.into();
                    Kind::Rows
                } else {
                    self.mixed(span, "an `iota` whose length depends on the rows")
                }
            }
            BasicOp::Replicate { shape, value } => {
                let vk = self.kind(value);
                let shape_rep = shape.iter().all(|s| self.kind(s).is_rep());
                match (self.rows_dim(shape), vk) {
                    (Some(d), vk) if vk.is_rep() => Kind::rows_at(d),
                    (None, Kind::Rows) if shape_rep => Kind::rows_at(shape.len()),
                    (None, Kind::InnerRows(e)) if shape_rep => {
                        Kind::rows_at(shape.len() + usize::from(e))
                    }
                    (None, vk) if shape_rep && !vk.has_rows() => vk,
                    _ => self.mixed(span, "a `replicate` whose shape depends on the rows"),
                }
            }
            BasicOp::Scratch { shape, .. } => match self.rows_dim(shape) {
                Some(d) => Kind::rows_at(d),
                None => self.mixed(span, "a scratch array whose shape depends on the rows"),
            },
            _ => Kind::Rep,
        }
    }

    /// The dimension of `shape` that is the local number of rows, when exactly one is and
    /// the others are replicated.
    fn rows_dim(&self, shape: &[SubExp]) -> Option<usize> {
        let count = SubExp::Var(self.count);
        let d = shape.iter().position(|s| *s == count)?;
        let others_rep = shape
            .iter()
            .enumerate()
            .all(|(j, s)| j == d || (*s != count && self.kind(s).is_rep()));
        others_rep.then_some(d)
    }

    /// The kind of `slice` (replicated positions) of an array whose rows are dimension `d`:
    /// rows again where the slice leaves dimension `d` whole, mixed where it indexes into it.
    fn index_inner_rows(&mut self, d: usize, slice: &[DimIndex], span: Span) -> Kind {
        if slice.len() > d {
            return self.mixed(span, "picks particular rows of the sharded data");
        }
        let fixed = slice
            .iter()
            .filter(|i| matches!(i, DimIndex::Fix(_)))
            .count();
        Kind::rows_at(d - fixed)
    }

    /// Copies, transpositions, reshapes and rotations: the kind of their array, where rows
    /// stay rows.
    fn layout(&mut self, op: &BasicOp, span: Span) -> Kind {
        match op {
            BasicOp::Copy(a) => self.kind(&(*a).into()),
            BasicOp::Rearrange { array, perm } => {
                let k = self.kind(&(*array).into());
                if k.has_rows() && (perm.first() != Some(&0) || k != Kind::Rows) {
                    return self.mixed(span, "transposes the rows of the sharded data");
                }
                k
            }
            BasicOp::Reshape { array, shape } | BasicOp::Coerce { array, shape, .. } => {
                let k = self.kind(&(*array).into());
                let ok_shape = match k {
                    Kind::Rows => {
                        shape.first() == Some(&SubExp::Var(self.count))
                            && shape[1..].iter().all(|s| self.kind(s).is_rep())
                            && self.names.ty(*array).dims().first()
                                == Some(&SubExp::Var(self.count))
                    }
                    Kind::InnerRows(_) => false,
                    _ => shape.iter().all(|s| self.kind(s).is_rep()),
                };
                if ok_shape {
                    k
                } else {
                    self.mixed(span, "reshapes across the rows of the sharded data")
                }
            }
            BasicOp::Rotate { array, amount } => {
                let k = self.kind(&(*array).into());
                if k.has_rows() || !self.kind(amount).is_rep() {
                    return self.mixed(span, "rotates the rows of the sharded data");
                }
                k
            }
            _ => Kind::Rep,
        }
    }

    fn prim(&mut self, p: PrimOp, args: &mut [SubExp], span: Span, pre: &mut Pre) -> Kind {
        let ks: Vec<Kind> = args.iter().map(|a| self.kind(a)).collect();
        if ks.iter().any(|k| k.has_rows()) {
            return self.mixed(
                span,
                "uses rows of the sharded data outside a map over the rows",
            );
        }
        let part = |k: &Kind| *k == Kind::Part;
        let nonlinear = |this: &mut Self| {
            this.mixed(
                span,
                format!("`{}` of a sum over rows is not a sum over rows", p.name()),
            )
        };
        let linear_join = |this: &mut Self, args: &mut [SubExp], pre: &mut Pre| {
            for a in args.iter_mut() {
                *a = this.masked(*a, Kind::Part, pre);
            }
            Kind::Part
        };
        match p {
            PrimOp::Bin(BinOp::Add | BinOp::Sub, t) if t.is_numeric() => {
                linear_join(self, args, pre)
            }
            PrimOp::Un(UnOp::Neg, _) => Kind::Part,
            PrimOp::Bin(BinOp::Mul, _) if ks.iter().filter(|k| part(k)).count() == 1 => Kind::Part,
            PrimOp::Bin(BinOp::Div, t) if t.is_float() && part(&ks[0]) && ks[1].is_rep() => {
                Kind::Part
            }
            PrimOp::Conv(_, to) if to.is_float() => Kind::Part,
            PrimOp::Tern(TernOp::Select, _) if ks[0].is_rep() => {
                linear_join(self, &mut args[1..], pre)
            }
            PrimOp::Tern(TernOp::Fma | TernOp::Mad, _) => {
                let prod = ks[..2].iter().filter(|k| part(k)).count();
                if prod == 2 || (prod == 0 && !part(&ks[2])) {
                    return nonlinear(self);
                }
                if prod == 1 {
                    args[2] = self.masked(args[2], Kind::Part, pre);
                }
                Kind::Part
            }
            _ => nonlinear(self),
        }
    }

    fn if_(
        &mut self,
        cond: SubExp,
        then_body: &mut Body,
        else_body: &mut Body,
        span: Span,
        n: usize,
    ) -> Vec<Kind> {
        if !self.kind(&cond).is_rep() {
            let m = self.mixed(span, "branches on a value that depends on the rows");
            return vec![m; n];
        }
        let kt = self.body(then_body);
        let ke = self.body(else_body);
        let target: Vec<Kind> = kt
            .iter()
            .zip(&ke)
            .map(|(a, b)| self.join_all(&[*a, *b], span))
            .collect();
        self.mask_results(then_body, &target);
        self.mask_results(else_body, &target);
        target
    }

    fn loop_(
        &mut self,
        params: &mut [(Var, SubExp)],
        form: &LoopForm,
        body: &mut Body,
        span: Span,
        pre: &mut Pre,
    ) -> Vec<Kind> {
        let n = params.len();
        let bound_ok = match form {
            LoopForm::For { i, bound } => {
                self.kinds.insert(*i, Kind::Rep);
                self.kind(bound).is_rep()
            }
            LoopForm::While { .. } => true,
        };
        if !bound_ok {
            let m = self.mixed(
                span,
                "a loop whose number of iterations depends on the rows",
            );
            return vec![m; n];
        }
        let mut kinds: Vec<Kind> = params.iter().map(|(_, init)| self.kind(init)).collect();
        for round in 0..=MAX_ROUNDS {
            for ((p, _), k) in params.iter().zip(&kinds) {
                self.kinds.insert(*p, *k);
            }
            let mut trial = body.clone();
            let out = self.body(&mut trial);
            let next: Vec<Kind> = kinds
                .iter()
                .zip(&out)
                .map(|(a, b)| self.join_all(&[*a, *b], span))
                .collect();
            if next == kinds || round == MAX_ROUNDS {
                *body = trial;
                break;
            }
            kinds = next;
        }
        if let LoopForm::While { cond } = form
            && !self.kind(&(*cond).into()).is_rep()
        {
            let m = self.mixed(span, "a loop whose condition depends on the rows");
            return vec![m; n];
        }
        self.mask_results(body, &kinds);
        for ((_, init), k) in params.iter_mut().zip(&kinds) {
            *init = self.masked(*init, *k, pre);
        }
        kinds
    }

    fn with_acc(
        &mut self,
        inputs: &mut [(Vec<SubExp>, Vec<Var>)],
        lam: &mut Lambda,
        span: Span,
        pre: &mut Pre,
    ) -> Vec<Kind> {
        let mut groups = Vec::new();
        for (shape, arrays) in inputs.iter() {
            let mut ks: Vec<Kind> = arrays.iter().map(|a| self.kind(&(*a).into())).collect();
            if ks.iter().any(|k| k.has_rows()) || !shape.iter().all(|s| self.kind(s).is_rep()) {
                let m = self.mixed(span, "accumulates into rows of the sharded data");
                ks = vec![m];
            }
            groups.push(self.join_all(&ks, span));
        }
        let na = groups.len();
        let mut out = Vec::new();
        for round in 0..=MAX_ROUNDS {
            for (p, k) in lam.params.iter().zip(&groups) {
                self.kinds.insert(*p, *k);
            }
            let mut trial = lam.body.clone();
            out = self.body(&mut trial);
            let next: Vec<Kind> = groups
                .iter()
                .zip(&out)
                .map(|(a, b)| self.join_all(&[*a, *b], span))
                .collect();
            if next == groups || round == MAX_ROUNDS {
                lam.body = trial;
                break;
            }
            groups = next;
        }
        for ((_, arrays), k) in inputs.iter_mut().zip(&groups) {
            for a in arrays.iter_mut() {
                *a = self.masked_var(*a, *k, pre);
            }
        }
        let mut res = Vec::new();
        for ((_, arrays), k) in inputs.iter().zip(&groups) {
            res.extend(std::iter::repeat_n(*k, arrays.len()));
        }
        res.extend(out.into_iter().skip(na));
        res
    }

    /// Whether a lambda run per row reads nothing but replicated values from outside; the
    /// mixed kind naming the statement otherwise.
    pub(crate) fn row_lambda_ok(&mut self, lam: &Lambda, span: Span) -> Option<Kind> {
        for v in crate::core::visit::lambda_free_vars(lam) {
            let k = self.kind(&v.into());
            if let Kind::Mixed(_) = k {
                return Some(k);
            }
            if !k.is_rep() && !matches!(self.names.ty(v), Type::Acc { .. }) {
                let what = if k.has_rows() {
                    "reads other rows"
                } else {
                    "reads a value summed over the rows"
                };
                let msg = format!(
                    "the function applied to each row {what} (`{}`)",
                    self.names.hint(v)
                );
                return Some(self.mixed(span, msg));
            }
        }
        None
    }

    /// Kinds of the results of `lam` applied to values of kinds `params` (in the linear
    /// context); the lambda is rewritten.
    fn lambda(&mut self, lam: &mut Lambda, params: &[Kind]) -> Vec<Kind> {
        for (p, k) in lam.params.iter().zip(params) {
            self.kinds.insert(*p, *k);
        }
        self.body(&mut lam.body)
    }

    /// The kinds of the elements of `arrays` (for a SOAC that is not over the rows): an
    /// array whose rows are dimension `d` has elements whose rows are dimension `d - 1`.
    fn element_kinds(&self, arrays: &[Var]) -> Vec<Kind> {
        arrays
            .iter()
            .map(|a| match self.kind_of(*a) {
                Kind::InnerRows(d) => Kind::rows_at(usize::from(d) - 1),
                k => k,
            })
            .collect()
    }

    pub(crate) fn is_row_soac(&self, w: &SubExp, arrays: &[Var]) -> bool {
        *w == SubExp::Var(self.count)
            || arrays
                .iter()
                .any(|a| self.kinds.get(a) == Some(&Kind::Rows))
    }

    /// Analyses an associative operator over elements of kinds `elems` with neutral
    /// elements `neutral`: the kinds of its parameters (both halves alike), after masking.
    pub(crate) fn operator(
        &mut self,
        lam: &mut Lambda,
        neutral: &mut [SubExp],
        elems: &[Kind],
        span: Span,
        pre: &mut Pre,
    ) -> Vec<Kind> {
        let k = neutral.len();
        let mut kinds: Vec<Kind> = (0..k)
            .map(|i| {
                let ne = self.kind(&neutral[i]);
                self.join_all(&[ne, elems[i]], span)
            })
            .collect();
        for round in 0..=MAX_ROUNDS {
            let mut trial = lam.clone();
            let both: Vec<Kind> = kinds.iter().chain(&kinds).copied().collect();
            let out = self.lambda(&mut trial, &both);
            let next: Vec<Kind> = kinds
                .iter()
                .zip(&out)
                .map(|(a, b)| self.join_all(&[*a, *b], span))
                .collect();
            if next == kinds || round == MAX_ROUNDS {
                *lam = trial;
                break;
            }
            kinds = next;
        }
        for (ne, t) in neutral.iter_mut().zip(&kinds) {
            *ne = self.masked(*ne, *t, pre);
        }
        kinds
    }

    fn soac(&mut self, soac: &mut Soac, span: Span, pre: &mut Pre, n: usize) -> Vec<Kind> {
        let w = *soac.width();
        let row = match soac {
            Soac::Map { arrays, .. }
            | Soac::Reduce { arrays, .. }
            | Soac::Scan { arrays, .. }
            | Soac::Screma { arrays, .. } => self.is_row_soac(&w, arrays),
            Soac::Hist {
                indices, values, ..
            }
            | Soac::Scatter {
                indices, values, ..
            } => self.is_row_soac(&w, &[vec![*indices], values.clone()].concat()),
        };
        if row {
            return super::rows::soac(self, soac, span, pre, n);
        }
        if !self.kind(&w).is_rep() {
            let m = self.mixed(span, "a width that depends on the rows");
            return vec![m; n];
        }
        match soac {
            Soac::Map { lam, arrays, .. } => {
                let ks = self.element_kinds(arrays);
                let out = self.lambda(lam, &ks);
                self.no_inner_rows(out, span)
            }
            Soac::Reduce {
                lam,
                neutral,
                arrays,
                ..
            } => {
                let ks = self.element_kinds(arrays);
                let t = self.operator(lam, neutral, &ks, span, pre);
                for (a, k) in arrays.iter_mut().zip(&t) {
                    *a = self.masked_var(*a, *k, pre);
                }
                t
            }
            Soac::Screma {
                map, arrays, form, ..
            } => {
                let ks = self.element_kinds(arrays);
                let out = self.lambda(map, &ks);
                let mut out = self.no_inner_rows(out, span);
                match form.as_mut() {
                    ScremaForm::Reduce { lam, neutral, .. } => {
                        let k = neutral.len();
                        let t = self.operator(lam, neutral, &out[..k], span, pre);
                        self.mask_results(&mut map.body, &t);
                        out[..k].copy_from_slice(&t);
                        out
                    }
                    _ => {
                        let m = self.mixed(
                            span,
                            "a scan, histogram or scatter of values summed over the rows",
                        );
                        vec![m; n]
                    }
                }
            }
            _ => {
                let m = self.mixed(
                    span,
                    "a scan, histogram or scatter of values summed over the rows",
                );
                vec![m; n]
            }
        }
    }
}

impl Analysis<'_> {
    /// The kinds of the results of a `map` over another dimension: rows of the sharded data
    /// inside each of its elements are not rows of the result.
    fn no_inner_rows(&mut self, kinds: Vec<Kind>, span: Span) -> Vec<Kind> {
        kinds
            .into_iter()
            .map(|k| {
                if k.has_rows() {
                    self.mixed(
                        span,
                        "puts the rows of the sharded data inside another array",
                    )
                } else {
                    k
                }
            })
            .collect()
    }
}

fn slice_rep(a: &Analysis, slice: &[DimIndex]) -> bool {
    slice.iter().all(|d| match d {
        DimIndex::Fix(i) => a.kind(i).is_rep(),
        DimIndex::Slice {
            start,
            count,
            stride,
        } => a.kind(start).is_rep() && a.kind(count).is_rep() && a.kind(stride).is_rep(),
    })
}

fn is_zero(c: &Scalar) -> bool {
    *c == Scalar::zero(c.prim_type()) && c.prim_type() != PrimType::Bool
}

pub(crate) fn prim_stm(out: Var, op: PrimOp, args: Vec<SubExp>) -> Stm {
    Stm {
        pat: vec![out],
        exp: Exp::BasicOp(BasicOp::Prim(op, args)),
        aux: Aux::default(),
    }
}
