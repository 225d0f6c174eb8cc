//! Return-sweep rules of SOACs (with `ȳ` the adjoint of the result):
//!
//! * **map**: a `map` over the inputs and the rows of `ȳ` whose lambda re-executes the original
//!   lambda and runs its return sweep; it returns the adjoints of the row parameters (the
//!   inputs' adjoints, as arrays), the contributions to free scalars (summed afterwards with a
//!   `reduce`), and adds into free arrays through accumulators (`with_acc` around the map, or
//!   the enclosing lambda's accumulator), so indexing a free array costs `O(1)` per element.
//! * **reduce** `r = ne ⊕ x0 ⊕ .. ⊕ x(w-1)`: for `+`, `xs̄ = replicate w r̄`; for `min`/`max`,
//!   the whole adjoint goes to the first element equal to the result (the neutral element
//!   counting as first); for any other operator (`*`, tuples and arrays included), two
//!   exclusive scans give `lᵢ = ne ⊕ x0 ⊕ .. ⊕ x(i-1)` and `rᵢ = x(i+1) ⊕ .. ⊕ x(w-1)`, and
//!   `x̄ᵢ = vjp (\x -> lᵢ ⊕ x ⊕ rᵢ) xᵢ r̄` in a map. For `*` that is `r̄ · lᵢ · rᵢ`: exact with
//!   zeros and for integers (no division), and differentiable again (Hessians), which a
//!   zero-counting formula is not. The neutral element gets an adjoint for `+`, `min`, `max`.
//! * **scan** `yᵢ = y(i-1) ⊕ xᵢ`: for `+`, `x̄` is the reversed prefix sum of `ȳ`; for any other
//!   operator on `k` scalars the total adjoints `cᵢ = ȳᵢ + Mᵢ c(i+1)`, `Mᵢ = (∂⊕/∂a)ᵀ` at
//!   `(yᵢ, x(i+1))` (a `k×k` matrix), form a linear recurrence, solved by a scan over affine
//!   maps from the right; then `x̄ᵢ = (∂⊕/∂b)ᵀ cᵢ` at `(y(i-1), xᵢ)`. The Jacobians come from
//!   the forward-mode rules (`jvp.rs`), so integers stay exact. Work `O(w·k³)`.
//! * **hist** (scalar bins): `+` routes `ȳ[is[j]]` to `vs[j]` and `ȳ` to the destination;
//!   `*` (floats) uses per-bin non-zero products and zero counts; `min`/`max` give each bin's
//!   adjoint to its first contributor equal to the result, the destination counting as first.
//!   Out-of-range indices get zero.
//! * **scatter**: a sequential loop over the writes from last to first reads `ȳ[is[j]]` into
//!   `vs̄[j]` and zeroes it, so only the winning (last) write of a position gets the adjoint and
//!   the destination gets `ȳ` with every written position zeroed; `O(w)`.

use super::{Adj, Diagnostic, Extra, R, Vjp, limitation};
use crate::core::ir::{BasicOp, DimIndex, Exp, Lambda, LoopForm, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::type_of::{acc_type, map_param_type};
use crate::core::visit::lambda_free_vars;
use crate::value::{PrimType, Scalar};
use std::collections::{HashMap, HashSet};

/// The operator of a lambda `\a b -> op(a, b)` on scalars, if it is one.
pub(super) fn simple_op(lam: &Lambda) -> Option<(BinOp, PrimType)> {
    let [a, b] = lam.params.as_slice() else {
        return None;
    };
    let [stm] = lam.body.stms.as_slice() else {
        return None;
    };
    let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op, t), args)) = &stm.exp else {
        return None;
    };
    if lam.body.result != [SubExp::Var(stm.pat[0])] {
        return None;
    }
    let (x, y) = (SubExp::Var(*a), SubExp::Var(*b));
    let commutative = matches!(op, BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max);
    if args.as_slice() == [x, y]
        || (commutative && args.as_slice() == [y, x] && *op != BinOp::Min && *op != BinOp::Max)
    {
        Some((*op, *t))
    } else {
        None
    }
}

/// Whether a lambda on tuples of `m` values is `m` independent sums
/// `\(a1, .., am, b1, .., bm) -> (a1 + b1, .., am + bm)` (in either argument order), each
/// on scalars or element-wise on rows (`map2 (+)`, also several sums in one `map`, as `jvp`
/// makes them).
pub(super) fn additive_components(lam: &Lambda) -> bool {
    let m = lam.body.result.len();
    if m == 0 || lam.params.len() != 2 * m {
        return false;
    }
    lam.body.result.iter().enumerate().all(|(k, r)| {
        let SubExp::Var(r) = r else { return false };
        let (a, b) = (lam.params[k], lam.params[m + k]);
        matches!(elementwise_sum(&lam.body.stms, *r), Some(p) if p == (a, b) || p == (b, a))
    })
}

/// The two variables whose element-wise sum `v` is, if `stms` compute it as one (an addition,
/// or a `map` whose lambda adds two of its parameters for that result).
fn elementwise_sum(stms: &[Stm], v: Var) -> Option<(Var, Var)> {
    let st = stms.iter().find(|st| st.pat.contains(&v))?;
    match &st.exp {
        Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Add, _), args)) => match args.as_slice() {
            [SubExp::Var(a), SubExp::Var(b)] => Some((*a, *b)),
            _ => None,
        },
        Exp::Soac(Soac::Map { lam, arrays, .. }) => {
            let j = st.pat.iter().position(|p| *p == v)?;
            let SubExp::Var(r) = lam.body.result.get(j)? else {
                return None;
            };
            let (x, y) = elementwise_sum(&lam.body.stms, *r)?;
            let ix = lam.params.iter().position(|p| *p == x)?;
            let iy = lam.params.iter().position(|p| *p == y)?;
            Some((*arrays.get(ix)?, *arrays.get(iy)?))
        }
        _ => None,
    }
}

/// An operator that picks one side by a condition on the first components and carries the
/// other components of that side along: `\(a0, a1.., b0, b1..) -> (max a0 b0, if c then a1
/// else b1, ..)` (or `if c then a0 else b0` first), where `c` depends on `a0` and `b0` only
/// — what `jvp` makes of a max or min `hist`. Returns the statements computing `c` (in
/// order), `c`, and the max/min statement when the first result is one.
pub(super) fn select_payload(lam: &Lambda) -> Option<(Vec<Stm>, Var, Option<Stm>)> {
    let m = lam.body.result.len();
    if m < 2 || lam.params.len() != 2 * m {
        return None;
    }
    let (a0, b0) = (lam.params[0], lam.params[m]);
    // The condition that picks side a for result k, if it is picked by one.
    let picked_by = |k: usize| -> Option<Var> {
        let SubExp::Var(r) = lam.body.result[k] else {
            return None;
        };
        let st = lam.body.stms.iter().find(|st| st.pat.contains(&r))?;
        let (a, b) = (SubExp::Var(lam.params[k]), SubExp::Var(lam.params[m + k]));
        match &st.exp {
            Exp::BasicOp(BasicOp::Prim(PrimOp::Tern(TernOp::Select, _), args)) => {
                match args.as_slice() {
                    [SubExp::Var(c), x, y] if *x == a && *y == b => Some(*c),
                    _ => None,
                }
            }
            Exp::If {
                cond: SubExp::Var(c),
                then_body,
                else_body,
                ..
            } if then_body.stms.is_empty() && else_body.stms.is_empty() => {
                let j = st.pat.iter().position(|p| *p == r)?;
                (then_body.result.get(j) == Some(&a) && else_body.result.get(j) == Some(&b))
                    .then_some(*c)
            }
            _ => None,
        }
    };
    let mut cond = None;
    for k in 1..m {
        let c = picked_by(k)?;
        if cond.is_some_and(|c0| c0 != c) {
            return None;
        }
        cond = Some(c);
    }
    let cond = cond?;
    if lam.params.contains(&cond) {
        return None;
    }
    let SubExp::Var(r0) = lam.body.result[0] else {
        return None;
    };
    let top = match picked_by(0) {
        Some(c) if c == cond => None,
        Some(_) => return None,
        None => {
            let top = lam.body.stms.iter().find(|st| st.pat == [r0])?;
            match &top.exp {
                Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Max | BinOp::Min, _), args))
                    if args.as_slice() == [SubExp::Var(a0), SubExp::Var(b0)] => {}
                _ => return None,
            }
            Some(top.clone())
        }
    };
    // The statements `cond` needs, which may read only a0 and b0 of the parameters.
    let mut need: HashSet<Var> = [cond].into_iter().collect();
    let mut slice = Vec::new();
    for st in lam.body.stms.iter().rev() {
        if !st.pat.iter().any(|p| need.contains(p)) {
            continue;
        }
        let Exp::BasicOp(BasicOp::Prim(_, args)) = &st.exp else {
            return None;
        };
        for a in args {
            if let SubExp::Var(v) = a {
                if lam.params.contains(v) && *v != a0 && *v != b0 {
                    return None;
                }
                need.insert(*v);
            }
        }
        slice.push(st.clone());
    }
    slice.reverse();
    Some((slice, cond, top))
}

/// Whether the adjoint of a `hist` with this operator needs the original bins.
pub(super) fn hist_needs_bins(lam: &Lambda) -> bool {
    matches!(
        simple_op(lam),
        Some((BinOp::Mul | BinOp::Min | BinOp::Max, _))
    ) || select_payload(lam).is_some()
}

fn c(t: PrimType, x: f64) -> SubExp {
    SubExp::Const(Scalar::from_f64(t, x))
}

impl Vjp<'_> {
    pub(super) fn iota(&mut self, n: SubExp) -> Var {
        self.basic(
            "iota",
            BasicOp::Iota {
                n,
                start: SubExp::i64(0),
                stride: SubExp::i64(1),
                elem: PrimType::I64,
            },
        )
    }

    /// `map(w, \rows -> f rows, arrays)`.
    pub(super) fn map_soac(
        &mut self,
        w: SubExp,
        arrays: Vec<Var>,
        f: impl FnOnce(&mut Self, &[Var]) -> R<Vec<SubExp>>,
    ) -> R<Vec<Var>> {
        let tys: Vec<(&str, Type)> = arrays
            .iter()
            .map(|a| ("row", map_param_type(self.e.names.ty(*a))))
            .collect();
        let lam = self.lambda(&tys, f)?;
        Ok(self
            .e
            .bind("map_adj", Exp::Soac(Soac::Map { w, lam, arrays })))
    }

    pub(super) fn select(&mut self, cond: SubExp, a: SubExp, b: SubExp) -> SubExp {
        let t = self.ty(&a).elem();
        self.prim(PrimOp::Tern(TernOp::Select, t), vec![cond, a, b])
    }

    /// `if cond then {then_f} else {else_f}`; the result types are the then-branch's.
    pub(super) fn if_then(
        &mut self,
        cond: SubExp,
        then_f: impl FnOnce(&mut Self) -> R<Vec<SubExp>>,
        else_f: impl FnOnce(&mut Self) -> R<Vec<SubExp>>,
    ) -> R<Vec<Var>> {
        let (ts, tr) = self.nested(then_f)?;
        let (es, er) = self.nested(else_f)?;
        let ret: Vec<Type> = tr.iter().map(|r| self.ty(r)).collect();
        Ok(self.e.bind(
            "adj",
            Exp::If {
                cond,
                then_body: crate::core::ir::Body {
                    stms: ts,
                    result: tr,
                },
                else_body: crate::core::ir::Body {
                    stms: es,
                    result: er,
                },
                ret,
            },
        ))
    }

    /// `0 <= i < n`, as one unsigned comparison (`n` is never negative).
    pub(super) fn in_range(&mut self, i: SubExp, n: SubExp) -> SubExp {
        let iu = self.prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![i]);
        let nu = self.prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![n]);
        self.prim(PrimOp::Cmp(CmpOp::Lt, PrimType::U64), vec![iu, nu])
    }

    /// `arr[i]` if `0 <= i < len arr`, else zero.
    pub(super) fn guarded_read(&mut self, arr: Var, i: SubExp) -> R<SubExp> {
        let t = self.e.names.ty(arr).clone();
        let n = t.dims()[0];
        let ok = self.in_range(i, n);
        let r = self.if_then(
            ok,
            |v| {
                Ok(vec![SubExp::Var(v.basic(
                    "read",
                    BasicOp::Index {
                        array: arr,
                        slice: vec![DimIndex::Fix(i)],
                    },
                ))])
            },
            |v| Ok(vec![v.zero(&t.row())]),
        )?;
        Ok(SubExp::Var(r[0]))
    }

    pub(super) fn rev_soac(
        &mut self,
        s: &Stm,
        soac: &Soac,
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        match soac {
            Soac::Map { w, lam, arrays } => self.rev_map(*w, lam, arrays, ybars),
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            } => self.rev_reduce(s, *w, lam, neutral, arrays, ybars),
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => self.rev_scan(s, *w, lam, neutral, arrays, ybars),
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => self.rev_hist(s, *w, dests, lam, neutral, *indices, values, extra, ybars),
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => self.rev_scatter(*w, dests, *indices, values, ybars),
            Soac::Screma { .. } => {
                Err(Diagnostic::bug("a fused SOAC reached reverse mode unsplit"))
            }
        }
    }

    fn rev_map(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let free: Vec<Var> = lambda_free_vars(lam)
            .into_iter()
            .filter(|v| self.active.contains(v) && !matches!(self.e.names.ty(*v), Type::Acc { .. }))
            .collect();
        let (free_arrays, free_scalars): (Vec<Var>, Vec<Var>) = free
            .into_iter()
            .partition(|v| self.e.names.ty(*v).rank() > 0);
        // Free arrays add into accumulators: the enclosing lambda's, or new ones.
        let mut outer = Vec::new();
        let mut groups = Vec::new();
        for x in free_arrays {
            match self.adjs.remove(&x) {
                Some(Adj::Acc(a)) => outer.push((x, a)),
                other => {
                    let a = self.owned_adj(x, other)?;
                    groups.push((x, a));
                }
            }
        }
        let ybar_arrays: Vec<(usize, Var)> = ybars
            .iter()
            .enumerate()
            .filter_map(|(k, y)| match y {
                Some((SubExp::Var(v), _)) => Some((k, *v)),
                _ => None,
            })
            .collect();
        // Accumulator inputs (in a `vjp` of a `vjp`) are virtual: the adjoint map does not
        // take them, and their parameters stand for them (see `accs.rs`).
        let real_params: Vec<usize> = (0..lam.params.len())
            .filter(|k| !self.is_acc_var(arrays[*k]))
            .collect();
        let active_params: Vec<usize> = real_params
            .iter()
            .copied()
            .filter(|k| self.active.contains(&arrays[*k]))
            .collect();
        let build = |v: &mut Self, accs: Vec<(Var, Var)>| -> R<Vec<Var>> {
            let mut ptys: Vec<(&str, Type)> = real_params
                .iter()
                .map(|k| ("x", v.e.names.ty(lam.params[*k]).clone()))
                .collect();
            for (_, y) in &ybar_arrays {
                ptys.push(("ybar", v.e.names.ty(*y).row()));
            }
            for (_, a) in &accs {
                ptys.push(("acc", v.e.names.ty(*a).clone()));
            }
            let rev_lam = v.lambda(&ptys, |v, ps| {
                let k = real_params.len();
                let mut subst: HashMap<Var, Var> = HashMap::new();
                let mut new_param = HashMap::new();
                for (j, p) in real_params.iter().zip(ps) {
                    subst.insert(lam.params[*j], *p);
                    new_param.insert(*j, *p);
                }
                for (j, p) in lam.params.iter().enumerate() {
                    if !new_param.contains_key(&j) {
                        let d = v.virtual_param(*p, arrays[j]);
                        subst.insert(*p, d);
                    }
                }
                for j in &active_params {
                    v.active.insert(new_param[j]);
                }
                let saved = std::mem::take(&mut v.adjs);
                for ((x, _), p) in accs.iter().zip(&ps[k + ybar_arrays.len()..]) {
                    v.adjs.insert(*x, Adj::Acc(*p));
                }
                let mut res_adjs = vec![None; lam.body.result.len()];
                for ((r, _), p) in ybar_arrays.iter().zip(&ps[k..]) {
                    res_adjs[*r] = Some((SubExp::Var(*p), false));
                }
                v.rev_reexec(&lam.body.stms, &lam.body.result, &res_adjs, subst)?;
                let mut out = Vec::new();
                for (x, _) in &accs {
                    out.push(v.adj_out(*x)?);
                }
                for j in &active_params {
                    out.push(v.adj_out(new_param[j])?);
                }
                for x in &free_scalars {
                    out.push(v.adj_out(*x)?);
                }
                v.adjs = saved;
                Ok(out)
            })?;
            let mut inputs: Vec<Var> = real_params.iter().map(|k| arrays[*k]).collect();
            inputs.extend(ybar_arrays.iter().map(|(_, y)| *y));
            inputs.extend(accs.iter().map(|(_, a)| *a));
            Ok(v.e.bind(
                "map_adj",
                Exp::Soac(Soac::Map {
                    w,
                    lam: rev_lam,
                    arrays: inputs,
                }),
            ))
        };
        let out: Vec<Var> = if groups.is_empty() {
            build(self, outer.clone())?
        } else {
            let acc_tys: Vec<(&str, Type)> = groups
                .iter()
                .map(|(_, a)| {
                    let shape = self.e.names.ty(*a).dims().to_vec();
                    ("acc", acc_type(self.e.names, &shape, &[*a]))
                })
                .collect();
            let no = outer.len();
            let outer2 = outer.clone();
            let groups_x: Vec<Var> = groups.iter().map(|(x, _)| *x).collect();
            let wlam = self.lambda(&acc_tys, |v, ps| {
                let mut accs = outer2.clone();
                accs.extend(groups_x.iter().copied().zip(ps.iter().copied()));
                let pat = build(v, accs)?;
                // The new accumulators first, then the enclosing ones and the rest.
                let mut res: Vec<SubExp> = pat[no..no + ps.len()]
                    .iter()
                    .map(|x| SubExp::Var(*x))
                    .collect();
                res.extend(pat[..no].iter().map(|x| SubExp::Var(*x)));
                res.extend(pat[no + ps.len()..].iter().map(|x| SubExp::Var(*x)));
                Ok(res)
            })?;
            let inputs = groups
                .iter()
                .map(|(_, a)| (self.e.names.ty(*a).dims().to_vec(), vec![*a]))
                .collect();
            let r = self.e.bind("adj", Exp::WithAcc { inputs, lam: wlam });
            // Reorder to the map's order: enclosing accumulators, new ones, rest.
            let ng = groups.len();
            let mut out = r[ng..ng + no].to_vec();
            out.extend_from_slice(&r[..ng]);
            out.extend_from_slice(&r[ng + no..]);
            out
        };
        let mut it = out.into_iter();
        for (x, _) in &outer {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            self.adjs.insert(*x, Adj::Acc(a));
        }
        for (x, _) in &groups {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            self.adjs.insert(*x, Adj::Val(SubExp::Var(a), true));
        }
        for j in &active_params {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            self.add_adj(arrays[*j], SubExp::Var(a), true)?;
        }
        for x in &free_scalars {
            let a = it
                .next()
                .ok_or_else(|| Diagnostic::bug("map adjoint arity"))?;
            let sum = self.sum_outer(a)?;
            self.add_adj(*x, sum, false)?;
        }
        Ok(())
    }

    fn rev_reduce(
        &mut self,
        s: &Stm,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        // Independent sums on tuples or rows: each operand gets its result's adjoint.
        if simple_op(lam).is_none() && additive_components(lam) {
            for ((x, ne), ybar) in arrays.iter().zip(neutral).zip(ybars) {
                if let Some((ybar, _)) = ybar {
                    if self.active.contains(x) {
                        let r = self.basic(
                            "red_adj",
                            BasicOp::Replicate {
                                shape: vec![w],
                                value: *ybar,
                            },
                        );
                        self.add_adj(*x, SubExp::Var(r), true)?;
                    }
                    self.add_adj_se(ne, *ybar, false)?;
                }
            }
            return Ok(());
        }
        if let (Some((op, t)), [x], [ne], [Some((ybar, _))]) =
            (simple_op(lam), arrays, neutral, ybars)
        {
            let (x, ne, ybar) = (*x, *ne, *ybar);
            match op {
                BinOp::Add => {
                    if self.active.contains(&x) {
                        let r = self.basic(
                            "red_adj",
                            BasicOp::Replicate {
                                shape: vec![w],
                                value: ybar,
                            },
                        );
                        self.add_adj(x, SubExp::Var(r), true)?;
                    }
                    return self.add_adj_se(&ne, ybar, false);
                }
                BinOp::Min | BinOp::Max => {
                    let r = SubExp::Var(s.pat[0]);
                    let ne_wins = self.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ne, r]);
                    let i = self.iota(w);
                    // The candidates' indices, and (in the same pass) the zeros of the
                    // adjoint array.
                    let cand = self.map_soac(w, vec![i, x], |v, ps| {
                        let hit = v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[1].into(), r]);
                        Ok(vec![v.select(hit, ps[0].into(), w), c(t, 0.0)])
                    })?;
                    let zeros = cand[1];
                    let cand = vec![cand[0]];
                    let lam_min = self.lambda(
                        &[
                            ("a", Type::Prim(PrimType::I64)),
                            ("b", Type::Prim(PrimType::I64)),
                        ],
                        |v, ps| {
                            Ok(vec![v.prim(
                                PrimOp::Bin(BinOp::Min, PrimType::I64),
                                vec![ps[0].into(), ps[1].into()],
                            )])
                        },
                    )?;
                    let first = self.bind1(
                        "first",
                        Exp::Soac(Soac::Reduce {
                            w,
                            lam: lam_min,
                            neutral: vec![w],
                            arrays: cand,
                            commutative: true,
                        }),
                    );
                    if self.active.contains(&x) {
                        // One non-zero element: zeros with [first] = ȳ (unless the neutral
                        // element or nothing won).
                        let val = self.select(ne_wins, c(t, 0.0), ybar);
                        let found =
                            self.prim(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), vec![first.into(), w]);
                        let xb = self.if_then(
                            found,
                            |v| {
                                Ok(vec![SubExp::Var(v.basic(
                                    "red_adj",
                                    BasicOp::Update {
                                        array: zeros,
                                        slice: vec![DimIndex::Fix(first.into())],
                                        value: val,
                                    },
                                ))])
                            },
                            |_| Ok(vec![SubExp::Var(zeros)]),
                        )?;
                        self.add_adj(x, SubExp::Var(xb[0]), true)?;
                    }
                    if self.is_active(&ne) {
                        let nb = self.select(ne_wins, ybar, c(t, 0.0));
                        self.add_adj_se(&ne, nb, false)?;
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        self.rev_reduce_general(w, lam, neutral, arrays, ybars)
    }

    /// `ȳ · ∂(∏)/∂x` given the product `p` of the non-zero factors and the zero count `z`.
    fn product_partial(
        &mut self,
        p: SubExp,
        z: SubExp,
        x: SubExp,
        ybar: SubExp,
        t: PrimType,
    ) -> SubExp {
        let x0 = self.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, c(t, 0.0)]);
        let z0 = self.prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
            vec![z, SubExp::i64(0)],
        );
        let z1 = self.prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
            vec![z, SubExp::i64(1)],
        );
        let safe_x = self.select(x0, c(t, 1.0), x);
        let q = self.prim(PrimOp::Bin(BinOp::Div, t), vec![p, safe_x]);
        let only = self.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![z1, x0]);
        let other = self.select(only, p, c(t, 0.0));
        let d = self.select(z0, q, other);
        self.prim(PrimOp::Bin(BinOp::Mul, t), vec![d, ybar])
    }

    /// `lam` applied to `(a.., b..)`, its statements renamed; returns the statements (emitted)
    /// and results.
    fn inline_op(&mut self, lam: &Lambda, args: &[Var]) -> Vec<SubExp> {
        let subst: HashMap<Var, Var> = lam
            .params
            .iter()
            .copied()
            .zip(args.iter().copied())
            .collect();
        let (stms, result) = self.rename(&lam.body.stms, &lam.body.result, subst);
        self.e.stms.extend(stms);
        result
    }

    /// A copy of `lam` with fresh names.
    pub(super) fn renamed_lambda(&mut self, lam: &Lambda) -> Lambda {
        let tys: Vec<Type> = lam
            .params
            .iter()
            .map(|p| self.e.names.ty(*p).clone())
            .collect();
        let params: Vec<Var> = lam
            .params
            .iter()
            .zip(tys)
            .map(|(p, t)| {
                let h = self.e.names.hint(*p).to_string();
                self.e.names.fresh(&h, t)
            })
            .collect();
        let subst: HashMap<Var, Var> = lam
            .params
            .iter()
            .copied()
            .zip(params.iter().copied())
            .collect();
        let (stms, result) = self.rename(&lam.body.stms, &lam.body.result, subst);
        Lambda {
            params,
            body: crate::core::ir::Body { stms, result },
            ret: lam.ret.clone(),
        }
    }

    /// A lambda with the operands swapped: `\a b -> op b a`.
    fn flipped(&mut self, lam: &Lambda) -> R<Lambda> {
        let k = lam.params.len() / 2;
        let tys: Vec<(&str, Type)> = lam
            .params
            .iter()
            .map(|p| ("x", self.e.names.ty(*p).clone()))
            .collect();
        self.lambda(&tys, |v, ps| {
            let mut args = ps[k..].to_vec();
            args.extend_from_slice(&ps[..k]);
            Ok(v.inline_op(lam, &args))
        })
    }

    /// Exclusive scan: `[ne, x0, x0 ⊕ x1, ..]` (`k` arrays).
    fn exclusive_scan(
        &mut self,
        w: SubExp,
        lam: Lambda,
        neutral: &[SubExp],
        arrays: Vec<Var>,
    ) -> R<Vec<Var>> {
        let incl = self.e.bind(
            "scan",
            Exp::Soac(Soac::Scan {
                w,
                lam,
                neutral: neutral.to_vec(),
                arrays,
            }),
        );
        let i = self.iota(w);
        self.map_soac(w, vec![i], |v, ps| {
            let first = v.prim(
                PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                vec![ps[0].into(), SubExp::i64(0)],
            );
            let r = v.if_then(
                first,
                |_| Ok(neutral.to_vec()),
                |v| {
                    let prev = v.i64_bin(BinOp::Sub, ps[0].into(), SubExp::i64(1));
                    Ok(incl
                        .iter()
                        .map(|a| {
                            SubExp::Var(v.basic(
                                "prev",
                                BasicOp::Index {
                                    array: *a,
                                    slice: vec![DimIndex::Fix(prev)],
                                },
                            ))
                        })
                        .collect())
                },
            )?;
            Ok(r.into_iter().map(SubExp::Var).collect())
        })
    }

    /// `xs` in reverse order.
    pub(super) fn reversed(&mut self, w: SubExp, x: Var) -> Var {
        let last = self.i64_bin(BinOp::Sub, w, SubExp::i64(1));
        let start = self.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![last, SubExp::i64(0)],
        );
        self.basic(
            "rev",
            BasicOp::Index {
                array: x,
                slice: vec![DimIndex::Slice {
                    start,
                    count: w,
                    stride: SubExp::i64(-1),
                }],
            },
        )
    }

    fn rev_reduce_general(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let k = arrays.len();
        let copy = self.renamed_lambda(lam);
        let left = self.exclusive_scan(w, copy, neutral, arrays.to_vec())?;
        let revs: Vec<Var> = arrays.iter().map(|a| self.reversed(w, *a)).collect();
        let flip = self.flipped(lam)?;
        let rscan = self.exclusive_scan(w, flip, neutral, revs)?;
        let right: Vec<Var> = rscan.iter().map(|a| self.reversed(w, *a)).collect();
        let ybar_vals: Vec<Option<(SubExp, bool)>> =
            ybars.iter().map(|y| y.map(|(se, _)| (se, false))).collect();
        let mut inputs = left;
        inputs.extend_from_slice(arrays);
        inputs.extend(right);
        let active: Vec<usize> = (0..k)
            .filter(|j| self.active.contains(&arrays[*j]))
            .collect();
        let xb = self.map_soac(w, inputs, |v, ps| {
            let (l, x, r) = (&ps[..k], &ps[k..2 * k], &ps[2 * k..]);
            // The body `(l ⊕ x) ⊕ r`, differentiated with respect to x.
            let (stms, res) = v.nested(|v| {
                let mut args = l.to_vec();
                args.extend_from_slice(x);
                let t = v.inline_op(lam, &args);
                let mut args2: Vec<Var> = Vec::new();
                for se in t {
                    args2.push(match se {
                        SubExp::Var(v) => v,
                        c => v.basic("t", BasicOp::SubExp(c)),
                    });
                }
                args2.extend_from_slice(r);
                Ok(v.inline_op(lam, &args2))
            })?;
            let saved = std::mem::take(&mut v.adjs);
            for j in &active {
                v.active.insert(x[*j]);
            }
            v.rev_reexec(&stms, &res, &ybar_vals, HashMap::new())?;
            let mut out = Vec::new();
            for j in &active {
                out.push(v.adj_out(x[*j])?);
            }
            v.adjs = saved;
            Ok(out)
        })?;
        for (j, a) in active.iter().zip(xb) {
            self.add_adj(arrays[*j], SubExp::Var(a), true)?;
        }
        Ok(())
    }

    fn rev_scan(
        &mut self,
        s: &Stm,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        if let (Some((BinOp::Add, t)), [x], [ne], [Some((SubExp::Var(ybar), _))]) =
            (simple_op(lam), arrays, neutral, ybars)
        {
            let (x, ne, ybar) = (*x, *ne, *ybar);
            let rv = self.reversed(w, ybar);
            let l = self.lambda(&[("a", Type::Prim(t)), ("b", Type::Prim(t))], |v, ps| {
                Ok(vec![v.prim(
                    PrimOp::Bin(BinOp::Add, t),
                    vec![ps[0].into(), ps[1].into()],
                )])
            })?;
            let sc = self.bind1(
                "scan_adj",
                Exp::Soac(Soac::Scan {
                    w,
                    lam: l,
                    neutral: vec![c(t, 0.0)],
                    arrays: vec![rv],
                }),
            );
            let xb = self.reversed(w, sc);
            if self.is_active(&ne) {
                let sum = self.sum_outer(ybar)?;
                self.add_adj_se(&ne, sum, false)?;
            }
            return self.add_adj(x, SubExp::Var(xb), true);
        }
        // Independent sums on tuples or rows: a reversed `+` scan of each result's adjoint.
        if additive_components(lam) {
            for ((x, ne), ybar) in arrays.iter().zip(neutral).zip(ybars) {
                let Some((SubExp::Var(ybar), _)) = ybar else {
                    continue;
                };
                let row = self.e.names.ty(*ybar).row();
                let rv = self.reversed(w, *ybar);
                let l = self.lambda(&[("a", row.clone()), ("b", row.clone())], |v, ps| {
                    Ok(vec![v.add_values(ps[0].into(), ps[1].into())?])
                })?;
                let zero = self.zero(&row);
                let sc = self.bind1(
                    "scan_adj",
                    Exp::Soac(Soac::Scan {
                        w,
                        lam: l,
                        neutral: vec![zero],
                        arrays: vec![rv],
                    }),
                );
                let xb = self.reversed(w, sc);
                if self.is_active(ne) {
                    let sum = self.sum_outer(*ybar)?;
                    self.add_adj_se(ne, sum, false)?;
                }
                self.add_adj(*x, SubExp::Var(xb), true)?;
            }
            return Ok(());
        }
        let k = arrays.len();
        let ts: Vec<PrimType> = arrays.iter().map(|a| self.e.names.ty(*a).elem()).collect();
        if arrays.iter().any(|a| self.e.names.ty(*a).rank() != 1)
            || ts.iter().any(|t| *t != ts[0] || *t == PrimType::Bool)
        {
            return Err(limitation(
                s.aux.span,
                "reverse-mode AD of a scan whose operator combines arrays or mixed types",
            ));
        }
        let t = ts[0];
        // Total adjoints: c(i) = ȳ(i) + M(i) c(i+1) with M(i)[r][q] = ∂⊕_q/∂a_r at
        // (y(i), x(i+1)); then x̄(i)[r] = Σ_q ∂⊕_q/∂b_r at (y(i-1), x(i)) · c(i)[q].
        let ys: Vec<Var> = s.pat[..k].to_vec();
        let i = self.iota(w);
        let last = self.i64_bin(BinOp::Sub, w, SubExp::i64(1));
        let mut inputs = vec![i];
        inputs.extend_from_slice(arrays);
        let parts = self.map_soac(w, inputs, |v, ps| {
            let i = SubExp::Var(ps[0]);
            let xi: Vec<SubExp> = ps[1..].iter().map(|x| SubExp::Var(*x)).collect();
            let is_last = v.prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![i, last]);
            let m = v.if_then(
                is_last,
                |_| Ok(vec![c(t, 0.0); k * k]),
                |v| {
                    let next = v.i64_bin(BinOp::Add, i, SubExp::i64(1));
                    let at = |v: &mut Self, arr: &[Var], j: SubExp| -> Vec<SubExp> {
                        arr.iter()
                            .map(|a| {
                                SubExp::Var(v.basic(
                                    "at",
                                    BasicOp::Index {
                                        array: *a,
                                        slice: vec![DimIndex::Fix(j)],
                                    },
                                ))
                            })
                            .collect()
                    };
                    let yi = at(v, &ys, i);
                    let xn = at(v, arrays, next);
                    Ok(v.op_jacobian(lam, &yi, &xn, 0)?.concat())
                },
            )?;
            let is_first = v.prim(
                PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                vec![i, SubExp::i64(0)],
            );
            let prev = v.if_then(
                is_first,
                |_| Ok(neutral.to_vec()),
                |v| {
                    let p = v.i64_bin(BinOp::Sub, i, SubExp::i64(1));
                    Ok(ys
                        .iter()
                        .map(|a| {
                            SubExp::Var(v.basic(
                                "y",
                                BasicOp::Index {
                                    array: *a,
                                    slice: vec![DimIndex::Fix(p)],
                                },
                            ))
                        })
                        .collect())
                },
            )?;
            let prev: Vec<SubExp> = prev.into_iter().map(SubExp::Var).collect();
            let d = v.op_jacobian(lam, &prev, &xi, 1)?.concat();
            let mut out: Vec<SubExp> = m.into_iter().map(SubExp::Var).collect();
            out.extend(d);
            Ok(out)
        })?;
        let (ms, ds) = parts.split_at(k * k);
        let mut scan_in: Vec<Var> = ms.iter().map(|m| self.reversed(w, *m)).collect();
        for yb in ybars.iter().take(k) {
            let y = match yb {
                Some((SubExp::Var(y), _)) => *y,
                _ => {
                    let z = self.zero(&Type::array(t, vec![w]));
                    match z {
                        SubExp::Var(z) => z,
                        _ => return Err(Diagnostic::bug("zero array that is a constant")),
                    }
                }
            };
            scan_in.push(self.reversed(w, y));
        }
        let n = k * k + k;
        let ptys: Vec<(&str, Type)> = (0..2 * n).map(|_| ("m", Type::Prim(t))).collect();
        // (M_g, b_g) then (M_f, b_f): c ↦ M_f (M_g c + b_g) + b_f.
        let comp = self.lambda(&ptys, |v, ps| {
            let (g, f) = ps.split_at(n);
            let mul = |v: &mut Self, a: Var, b: Var| -> SubExp {
                v.prim(PrimOp::Bin(BinOp::Mul, t), vec![a.into(), b.into()])
            };
            let mut out = Vec::new();
            for r in 0..k {
                for q in 0..k {
                    let mut acc = mul(v, f[r * k], g[q]);
                    for l in 1..k {
                        let m = mul(v, f[r * k + l], g[l * k + q]);
                        acc = v.prim(PrimOp::Bin(BinOp::Add, t), vec![acc, m]);
                    }
                    out.push(acc);
                }
            }
            for r in 0..k {
                let mut acc = SubExp::Var(f[k * k + r]);
                for l in 0..k {
                    let m = mul(v, f[r * k + l], g[k * k + l]);
                    acc = v.prim(PrimOp::Bin(BinOp::Add, t), vec![acc, m]);
                }
                out.push(acc);
            }
            Ok(out)
        })?;
        let mut ne = Vec::new();
        for r in 0..k {
            for q in 0..k {
                ne.push(c(t, if r == q { 1.0 } else { 0.0 }));
            }
        }
        ne.extend(std::iter::repeat_n(c(t, 0.0), k));
        let sc = self.e.bind(
            "lin_scan",
            Exp::Soac(Soac::Scan {
                w,
                lam: comp,
                neutral: ne,
                arrays: scan_in,
            }),
        );
        let cs: Vec<Var> = sc[k * k..].iter().map(|a| self.reversed(w, *a)).collect();
        let mut inputs = ds.to_vec();
        inputs.extend(cs);
        let xb = self.map_soac(w, inputs, |v, ps| {
            let (d, cc) = ps.split_at(k * k);
            let mut out = Vec::new();
            for r in 0..k {
                let mut acc = c(t, 0.0);
                for q in 0..k {
                    let m = v.prim(
                        PrimOp::Bin(BinOp::Mul, t),
                        vec![d[r * k + q].into(), cc[q].into()],
                    );
                    acc = v.prim(PrimOp::Bin(BinOp::Add, t), vec![acc, m]);
                }
                out.push(acc);
            }
            Ok(out)
        })?;
        for (x, b) in arrays.iter().zip(xb) {
            self.add_adj(*x, SubExp::Var(b), true)?;
        }
        Ok(())
    }

    /// The Jacobian of the operator `lam` at `(a, b)` with respect to `a` (`which = 0`) or
    /// `b`: `jac[r][q] = ∂⊕_q/∂(operand)_r`, by forward mode (one tangent per `r`).
    fn op_jacobian(
        &mut self,
        lam: &Lambda,
        a: &[SubExp],
        b: &[SubExp],
        which: usize,
    ) -> R<Vec<Vec<SubExp>>> {
        let mut args = Vec::new();
        for se in a.iter().chain(b) {
            args.push(match se {
                SubExp::Var(v) => *v,
                c => self.basic("arg", BasicOp::SubExp(*c)),
            });
        }
        let k = a.len();
        let mut jac = Vec::new();
        for r in 0..k {
            let subst: HashMap<Var, Var> = lam
                .params
                .iter()
                .copied()
                .zip(args.iter().copied())
                .collect();
            let (stms, res) = self.rename(&lam.body.stms, &lam.body.result, subst);
            let input = args[which * k + r];
            let t = self.e.names.ty(input).elem();
            let seeds: HashMap<Var, SubExp> = [(input, c(t, 1.0))].into_iter().collect();
            let d = crate::ad::jvp::differentiate(self.e.names, &stms, seeds)?;
            self.e.stms.extend(d.stms);
            jac.push(
                res.iter()
                    .map(|r| match r {
                        SubExp::Var(r) => d.tangents.get(r).copied().unwrap_or(c(t, 0.0)),
                        SubExp::Const(_) => c(t, 0.0),
                    })
                    .collect(),
            );
        }
        Ok(jac)
    }

    /// The adjoint of a hist whose operator is a max or min carrying payloads along
    /// ([`select_payload`]): the same operator run on the element indices instead of the
    /// payloads finds, per bin, the contribution that won (or the destination, -1); every
    /// component's adjoint goes to that winner.
    #[allow(clippy::too_many_arguments)]
    fn rev_hist_select(
        &mut self,
        w: SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: SubExp,
        indices: Var,
        values: &[Var],
        bins: &[Var],
        slice: &[Stm],
        cond: Var,
        top: &Option<Stm>,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let m = lam.body.result.len();
        let nb = self.e.names.ty(dests[0]).dims()[0];
        let t0 = self.e.names.ty(values[0]).elem();
        let i64t = Type::Prim(PrimType::I64);
        // The operator on (value, index) pairs.
        let (a0, b0) = (lam.params[0], lam.params[m]);
        let ilam = self.lambda(
            &[
                ("a", Type::Prim(t0)),
                ("ai", i64t.clone()),
                ("b", Type::Prim(t0)),
                ("bi", i64t.clone()),
            ],
            |v, ps| {
                let mut subst = HashMap::new();
                subst.insert(a0, ps[0]);
                subst.insert(b0, ps[2]);
                let mut stms = slice.to_vec();
                let mut out = vec![cond.into()];
                if let Some(top) = top {
                    stms.push(top.clone());
                    out.push(top.pat[0].into());
                }
                let (stms, res) = v.rename(&stms, &out, subst);
                v.e.stms.extend(stms);
                let value = match res.get(1) {
                    Some(r) => *r,
                    None => v.prim(
                        PrimOp::Tern(TernOp::Select, t0),
                        vec![res[0], ps[0].into(), ps[2].into()],
                    ),
                };
                let pick = v.prim(
                    PrimOp::Tern(TernOp::Select, PrimType::I64),
                    vec![res[0], ps[1].into(), ps[3].into()],
                );
                Ok(vec![value, pick])
            },
        )?;
        let start = self.basic("bins", BasicOp::Copy(bins[0]));
        let none = self.basic(
            "winner",
            BasicOp::Replicate {
                shape: vec![nb],
                value: SubExp::i64(-1),
            },
        );
        let ids = self.iota(w);
        let won = self.e.bind(
            "winner",
            Exp::Soac(Soac::Hist {
                w,
                dests: vec![start, none],
                lam: ilam,
                neutral: vec![neutral, SubExp::i64(-1)],
                indices,
                values: vec![values[0], ids],
            }),
        );
        let winner = won[1];
        for k in 0..m {
            let Some((SubExp::Var(ybar), _)) = ybars[k] else {
                continue;
            };
            let t = self.e.names.ty(ybar).elem();
            if self.active.contains(&values[k]) {
                let i = self.iota(w);
                let vb = self.map_soac(w, vec![i, indices], |v, ps| {
                    let ok = v.in_range(ps[1].into(), nb);
                    let r = v.if_then(
                        ok,
                        |v| {
                            let at = vec![DimIndex::Fix(ps[1].into())];
                            let who = v.basic(
                                "who",
                                BasicOp::Index {
                                    array: winner,
                                    slice: at.clone(),
                                },
                            );
                            let yb = v.basic(
                                "yb",
                                BasicOp::Index {
                                    array: ybar,
                                    slice: at,
                                },
                            );
                            let mine = v.prim(
                                PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                                vec![who.into(), ps[0].into()],
                            );
                            Ok(vec![v.select(mine, yb.into(), c(t, 0.0))])
                        },
                        |_| Ok(vec![c(t, 0.0)]),
                    )?;
                    Ok(vec![SubExp::Var(r[0])])
                })?;
                self.add_adj(values[k], SubExp::Var(vb[0]), true)?;
            }
            if self.active.contains(&dests[k]) {
                let db = self.map_soac(nb, vec![winner, ybar], |v, ps| {
                    let kept = v.prim(
                        PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                        vec![ps[0].into(), SubExp::i64(-1)],
                    );
                    Ok(vec![v.select(kept, ps[1].into(), c(t, 0.0))])
                })?;
                self.add_adj(dests[k], SubExp::Var(db[0]), true)?;
            }
        }
        Ok(())
    }

    /// The adjoint of a `+` hist: each value gets its bin's adjoint (zero out of range), the
    /// destination the result's.
    fn rev_hist_add(
        &mut self,
        w: SubExp,
        indices: Var,
        dest: Var,
        vs: Var,
        ybar: Var,
        owned: bool,
    ) -> R<()> {
        if self.active.contains(&vs) {
            let vb = self.map_soac(w, vec![indices], |v, ps| {
                Ok(vec![v.guarded_read(ybar, ps[0].into())?])
            })?;
            self.add_adj(vs, SubExp::Var(vb[0]), true)?;
        }
        self.add_adj(dest, SubExp::Var(ybar), owned)
    }

    #[allow(clippy::too_many_arguments)]
    fn rev_hist(
        &mut self,
        s: &Stm,
        w: SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: &[SubExp],
        indices: Var,
        values: &[Var],
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let _ = neutral;
        // A tuple of independent sums (what `jvp` makes of a `+` hist), or element-wise sums
        // of rows: one `+` adjoint each (a row of the bins' adjoint per value).
        if (dests.len() > 1 || dests.iter().any(|d| self.e.names.ty(*d).rank() > 1))
            && additive_components(lam)
        {
            for ((dest, vs), ybar) in dests.iter().zip(values).zip(ybars) {
                if let Some((SubExp::Var(ybar), owned)) = ybar {
                    self.rev_hist_add(w, indices, *dest, *vs, *ybar, *owned)?;
                }
            }
            return Ok(());
        }
        if let Some((slice, cond, top)) = select_payload(lam)
            && dests.iter().all(|d| self.e.names.ty(*d).rank() == 1)
        {
            let Extra::Copies(bins) = extra else {
                return Err(Diagnostic::bug("hist without saved bins"));
            };
            return self.rev_hist_select(
                w, dests, lam, neutral[0], indices, values, &bins, &slice, cond, &top, ybars,
            );
        }
        let (Some((op, t)), [dest], [vs], [Some((SubExp::Var(ybar), owned))]) =
            (simple_op(lam), dests, values, ybars)
        else {
            return Err(limitation(
                s.aux.span,
                "reverse-mode AD of a hist other than +, *, min or max on scalars",
            ));
        };
        if self.e.names.ty(*dest).rank() != 1 {
            return Err(limitation(
                s.aux.span,
                "reverse-mode AD of a multi-dimensional hist",
            ));
        }
        let (dest, vs, ybar, owned) = (*dest, *vs, *ybar, *owned);
        let m = self.e.names.ty(dest).dims()[0];
        match op {
            BinOp::Add => self.rev_hist_add(w, indices, dest, vs, ybar, owned),
            BinOp::Mul | BinOp::Min | BinOp::Max => {
                let Extra::Copies(bins) = extra else {
                    return Err(Diagnostic::bug("hist without saved bins"));
                };
                let bins = bins[0];
                if op == BinOp::Mul && !t.is_float() {
                    return self.rev_hist_int_product(w, m, dest, vs, indices, bins, ybar, t);
                }
                if op == BinOp::Mul {
                    return self.rev_hist_product(w, m, dest, vs, indices, bins, ybar, t);
                }
                let r = s.pat[0];
                // The first contributor equal to the result, per bin.
                let i = self.iota(w);
                let cand = self.map_soac(w, vec![i, indices, vs], |v, ps| {
                    let rb = v.guarded_read(r, ps[1].into())?;
                    let ok = v.in_range(ps[1].into(), m);
                    let eq = v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[2].into(), rb]);
                    let hit = v.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![ok, eq]);
                    Ok(vec![v.select(hit, ps[0].into(), w)])
                })?;
                let init = self.basic(
                    "first",
                    BasicOp::Replicate {
                        shape: vec![m],
                        value: w,
                    },
                );
                let lam_min = self.lambda(
                    &[
                        ("a", Type::Prim(PrimType::I64)),
                        ("b", Type::Prim(PrimType::I64)),
                    ],
                    |v, ps| {
                        Ok(vec![v.prim(
                            PrimOp::Bin(BinOp::Min, PrimType::I64),
                            vec![ps[0].into(), ps[1].into()],
                        )])
                    },
                )?;
                let first = self.bind1(
                    "first",
                    Exp::Soac(Soac::Hist {
                        w,
                        dests: vec![init],
                        lam: lam_min,
                        neutral: vec![w],
                        indices,
                        values: cand,
                    }),
                );
                if self.active.contains(&vs) {
                    let i = self.iota(w);
                    let vb = self.map_soac(w, vec![i, indices], |v, ps| {
                        let ok = v.in_range(ps[1].into(), m);
                        let res = v.if_then(
                            ok,
                            |v| {
                                let at = DimIndex::Fix(ps[1].into());
                                let f = v.basic(
                                    "f",
                                    BasicOp::Index {
                                        array: first,
                                        slice: vec![at],
                                    },
                                );
                                let b0 = v.basic(
                                    "b",
                                    BasicOp::Index {
                                        array: bins,
                                        slice: vec![at],
                                    },
                                );
                                let rb = v.basic(
                                    "r",
                                    BasicOp::Index {
                                        array: r,
                                        slice: vec![at],
                                    },
                                );
                                let yb = v.basic(
                                    "yb",
                                    BasicOp::Index {
                                        array: ybar,
                                        slice: vec![at],
                                    },
                                );
                                let dest_wins =
                                    v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![b0.into(), rb.into()]);
                                let mine = v.prim(
                                    PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
                                    vec![f.into(), ps[0].into()],
                                );
                                let nd =
                                    v.prim(PrimOp::Un(UnOp::Not, PrimType::Bool), vec![dest_wins]);
                                let hit =
                                    v.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![mine, nd]);
                                Ok(vec![v.select(hit, yb.into(), c(t, 0.0))])
                            },
                            |_| Ok(vec![c(t, 0.0)]),
                        )?;
                        Ok(vec![SubExp::Var(res[0])])
                    })?;
                    self.add_adj(vs, SubExp::Var(vb[0]), true)?;
                }
                if self.active.contains(&dest) {
                    let db = self.map_soac(m, vec![bins, r, ybar], |v, ps| {
                        let wins =
                            v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[0].into(), ps[1].into()]);
                        Ok(vec![v.select(wins, ps[2].into(), c(t, 0.0))])
                    })?;
                    self.add_adj(dest, SubExp::Var(db[0]), true)?;
                }
                Ok(())
            }
            _ => Err(limitation(
                s.aux.span,
                "reverse-mode AD of a hist other than +, *, min or max on scalars",
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rev_hist_product(
        &mut self,
        w: SubExp,
        m: SubExp,
        dest: Var,
        vs: Var,
        indices: Var,
        bins: Var,
        ybar: Var,
        t: PrimType,
    ) -> R<()> {
        let split = |v: &mut Self, n: SubExp, a: Var| -> R<Vec<Var>> {
            v.map_soac(n, vec![a], |v, ps| {
                let z = v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![ps[0].into(), c(t, 0.0)]);
                let f = v.select(z, c(t, 1.0), ps[0].into());
                let n = v.select(z, SubExp::i64(1), SubExp::i64(0));
                Ok(vec![f, n])
            })
        };
        let b = split(self, m, bins)?;
        let x = split(self, w, vs)?;
        let mk = |v: &mut Self, op: BinOp, pt: PrimType| -> R<Lambda> {
            v.lambda(&[("a", Type::Prim(pt)), ("b", Type::Prim(pt))], |v, ps| {
                Ok(vec![v.prim(
                    PrimOp::Bin(op, pt),
                    vec![ps[0].into(), ps[1].into()],
                )])
            })
        };
        let lm = mk(self, BinOp::Mul, t)?;
        let la = mk(self, BinOp::Add, PrimType::I64)?;
        let p = self.bind1(
            "prod",
            Exp::Soac(Soac::Hist {
                w,
                dests: vec![b[0]],
                lam: lm,
                neutral: vec![c(t, 1.0)],
                indices,
                values: vec![x[0]],
            }),
        );
        let z = self.bind1(
            "zeros",
            Exp::Soac(Soac::Hist {
                w,
                dests: vec![b[1]],
                lam: la,
                neutral: vec![SubExp::i64(0)],
                indices,
                values: vec![x[1]],
            }),
        );
        if self.active.contains(&vs) {
            let vb = self.map_soac(w, vec![indices, vs], |v, ps| {
                let ok = v.in_range(ps[0].into(), m);
                let r = v.if_then(
                    ok,
                    |v| {
                        let at = DimIndex::Fix(ps[0].into());
                        let pb = v.basic(
                            "p",
                            BasicOp::Index {
                                array: p,
                                slice: vec![at],
                            },
                        );
                        let zb = v.basic(
                            "z",
                            BasicOp::Index {
                                array: z,
                                slice: vec![at],
                            },
                        );
                        let yb = v.basic(
                            "yb",
                            BasicOp::Index {
                                array: ybar,
                                slice: vec![at],
                            },
                        );
                        Ok(vec![v.product_partial(
                            pb.into(),
                            zb.into(),
                            ps[1].into(),
                            yb.into(),
                            t,
                        )])
                    },
                    |_| Ok(vec![c(t, 0.0)]),
                )?;
                Ok(vec![SubExp::Var(r[0])])
            })?;
            self.add_adj(vs, SubExp::Var(vb[0]), true)?;
        }
        if self.active.contains(&dest) {
            let db = self.map_soac(m, vec![p, z, bins, ybar], |v, ps| {
                Ok(vec![v.product_partial(
                    ps[0].into(),
                    ps[1].into(),
                    ps[2].into(),
                    ps[3].into(),
                    t,
                )])
            })?;
            self.add_adj(dest, SubExp::Var(db[0]), true)?;
        }
        Ok(())
    }

    /// The adjoint of an integer product `hist`, exact under wrap-around. Division by an
    /// element is not (a product modulo 2^k forgets factors of two), so every non-zero element
    /// is split into `2^e · o` with `o` odd: per bin, the odd parts are multiplied (`O`), the
    /// exponents and the zeros counted (`E`, `Z`); the product of the other elements of `x`'s
    /// bin is then `(O · o⁻¹) << (E - e)`, where `o⁻¹` is the inverse of `o` modulo 2^k
    /// (Newton's iteration `y ← y (2 - o y)`, which doubles the correct low bits from the 3
    /// of `y = o`), `0` when `E - e` reaches the width, and the zero rule of the float case.
    #[allow(clippy::too_many_arguments)]
    fn rev_hist_int_product(
        &mut self,
        w: SubExp,
        m: SubExp,
        dest: Var,
        vs: Var,
        indices: Var,
        bins: Var,
        ybar: Var,
        t: PrimType,
    ) -> R<()> {
        let i64t = PrimType::I64;
        // (odd part, exponent of two, is zero) of an element; zero counts as 1 = 2^0 · 1.
        let split = |v: &mut Self, x: SubExp| -> [SubExp; 3] {
            let z = v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, c(t, 0.0)]);
            let safe = v.select(z, c(t, 1.0), x);
            let tz = v.prim(PrimOp::Un(UnOp::Ctz, t), vec![safe]);
            let tz_t = v.prim(PrimOp::Conv(PrimType::I32, t), vec![tz]);
            let odd = v.prim(PrimOp::Bin(BinOp::LShr, t), vec![safe, tz_t]);
            let e = v.prim(PrimOp::Conv(PrimType::I32, i64t), vec![tz]);
            let n = v.select(z, SubExp::i64(1), SubExp::i64(0));
            [odd, e, n]
        };
        let parts = |v: &mut Self, n: SubExp, a: Var| -> R<Vec<Var>> {
            v.map_soac(n, vec![a], |v, ps| Ok(split(v, ps[0].into()).to_vec()))
        };
        let b = parts(self, m, bins)?;
        let x = parts(self, w, vs)?;
        let op_lambda = |v: &mut Self, op: BinOp, pt: PrimType| -> R<Lambda> {
            v.lambda(&[("a", Type::Prim(pt)), ("b", Type::Prim(pt))], |v, ps| {
                Ok(vec![v.prim(
                    PrimOp::Bin(op, pt),
                    vec![ps[0].into(), ps[1].into()],
                )])
            })
        };
        let mut per_bin = Vec::new();
        for (k, (op, pt, neutral)) in [
            (BinOp::Mul, t, c(t, 1.0)),
            (BinOp::Add, i64t, SubExp::i64(0)),
            (BinOp::Add, i64t, SubExp::i64(0)),
        ]
        .into_iter()
        .enumerate()
        {
            let lam = op_lambda(self, op, pt)?;
            per_bin.push(self.bind1(
                ["odd", "twos", "zeros"][k],
                Exp::Soac(Soac::Hist {
                    w,
                    dests: vec![b[k]],
                    lam,
                    neutral: vec![neutral],
                    indices,
                    values: vec![x[k]],
                }),
            ));
        }
        let (odd, twos, zeros) = (per_bin[0], per_bin[1], per_bin[2]);
        let bits = SubExp::i64(t.bits() as i64);
        // d(product of x's bin)/dx times ybar, from the bin's (O, E, Z) and x.
        let partial = |v: &mut Self, o: SubExp, e: SubExp, z: SubExp, xv: SubExp, yb: SubExp| {
            let [ox, ex, _] = split(v, xv);
            let mut inv = ox;
            for _ in 0..6 {
                let oy = v.prim(PrimOp::Bin(BinOp::Mul, t), vec![ox, inv]);
                let two = v.prim(PrimOp::Bin(BinOp::Sub, t), vec![c(t, 2.0), oy]);
                inv = v.prim(PrimOp::Bin(BinOp::Mul, t), vec![inv, two]);
            }
            let others_odd = v.prim(PrimOp::Bin(BinOp::Mul, t), vec![o, inv]);
            let shift = v.prim(PrimOp::Bin(BinOp::Sub, i64t), vec![e, ex]);
            let wide = v.prim(PrimOp::Cmp(CmpOp::Ge, i64t), vec![shift, bits]);
            let safe_shift = v.select(wide, SubExp::i64(0), shift);
            let shift_t = v.prim(PrimOp::Conv(i64t, t), vec![safe_shift]);
            let shifted = v.prim(PrimOp::Bin(BinOp::Shl, t), vec![others_odd, shift_t]);
            let val = v.select(wide, c(t, 0.0), shifted);
            let x0 = v.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![xv, c(t, 0.0)]);
            let z0 = v.prim(PrimOp::Cmp(CmpOp::Eq, i64t), vec![z, SubExp::i64(0)]);
            let z1 = v.prim(PrimOp::Cmp(CmpOp::Eq, i64t), vec![z, SubExp::i64(1)]);
            let only = v.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![z1, x0]);
            let nonzero = v.prim(PrimOp::Bin(BinOp::Or, PrimType::Bool), vec![z0, only]);
            let d = v.select(nonzero, val, c(t, 0.0));
            v.prim(PrimOp::Bin(BinOp::Mul, t), vec![d, yb])
        };
        if self.active.contains(&vs) {
            let vb = self.map_soac(w, vec![indices, vs], |v, ps| {
                let ok = v.in_range(ps[0].into(), m);
                let r = v.if_then(
                    ok,
                    |v| {
                        let at = DimIndex::Fix(ps[0].into());
                        let [o, e, z, yb] = [odd, twos, zeros, ybar].map(|a| {
                            SubExp::Var(v.basic(
                                "at",
                                BasicOp::Index {
                                    array: a,
                                    slice: vec![at],
                                },
                            ))
                        });
                        Ok(vec![partial(v, o, e, z, ps[1].into(), yb)])
                    },
                    |_| Ok(vec![c(t, 0.0)]),
                )?;
                Ok(vec![SubExp::Var(r[0])])
            })?;
            self.add_adj(vs, SubExp::Var(vb[0]), true)?;
        }
        if self.active.contains(&dest) {
            let db = self.map_soac(m, vec![odd, twos, zeros, bins, ybar], |v, ps| {
                Ok(vec![partial(
                    v,
                    ps[0].into(),
                    ps[1].into(),
                    ps[2].into(),
                    ps[3].into(),
                    ps[4].into(),
                )])
            })?;
            self.add_adj(dest, SubExp::Var(db[0]), true)?;
        }
        Ok(())
    }

    fn rev_scatter(
        &mut self,
        w: SubExp,
        dests: &[Var],
        indices: Var,
        values: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        for ((dest, vals), yb) in dests.iter().zip(values).zip(ybars) {
            let Some((SubExp::Var(yb), owned)) = *yb else {
                continue;
            };
            if !self.active.contains(dest) && !self.active.contains(vals) {
                continue;
            }
            let yb = if owned {
                yb
            } else {
                self.basic("adj", BasicOp::Copy(yb))
            };
            let vt = self.e.names.ty(*vals).clone();
            let vb0 = match self.zero(&vt) {
                SubExp::Var(v) => v,
                _ => return Err(Diagnostic::bug("scatter values that are not an array")),
            };
            let m = self.e.names.ty(*dest).dims()[0];
            let mu = self.prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![m]);
            // From the last write to the first: the first one seen wins.
            let p_yb = self
                .e
                .names
                .fresh("scatter_adj", self.e.names.ty(yb).clone());
            let p_vb = self.e.names.fresh("vals_adj", vt.clone());
            let jj = self.e.names.fresh("j", Type::Prim(PrimType::I64));
            let (stms, res) = self.nested(|v| {
                let last = v.i64_bin(BinOp::Sub, w, SubExp::i64(1));
                let j = v.i64_bin(BinOp::Sub, last, jj.into());
                let b = v.basic(
                    "b",
                    BasicOp::Index {
                        array: indices,
                        slice: vec![DimIndex::Fix(j)],
                    },
                );
                let bu = v.prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![b.into()]);
                let ok = v.prim(PrimOp::Cmp(CmpOp::Lt, PrimType::U64), vec![bu, mu]);
                let r = v.if_then(
                    ok,
                    |v| {
                        let at = vec![DimIndex::Fix(b.into())];
                        let got = v.basic(
                            "got",
                            BasicOp::Index {
                                array: p_yb,
                                slice: at.clone(),
                            },
                        );
                        let vb = v.basic(
                            "vals_adj",
                            BasicOp::Update {
                                array: p_vb,
                                slice: vec![DimIndex::Fix(j)],
                                value: got.into(),
                            },
                        );
                        let rt = vt.row();
                        let z = v.zero(&rt);
                        let yb2 = v.basic(
                            "scatter_adj",
                            BasicOp::Update {
                                array: p_yb,
                                slice: at,
                                value: z,
                            },
                        );
                        Ok(vec![SubExp::Var(yb2), SubExp::Var(vb)])
                    },
                    |_| Ok(vec![SubExp::Var(p_yb), SubExp::Var(p_vb)]),
                )?;
                Ok(r.into_iter().map(SubExp::Var).collect::<Vec<_>>())
            })?;
            let out = self.e.bind(
                "scatter_adj",
                Exp::Loop {
                    params: vec![(p_yb, SubExp::Var(yb)), (p_vb, SubExp::Var(vb0))],
                    form: LoopForm::For { i: jj, bound: w },
                    body: crate::core::ir::Body { stms, result: res },
                },
            );
            self.add_adj(*vals, SubExp::Var(out[1]), true)?;
            self.add_adj(*dest, SubExp::Var(out[0]), true)?;
        }
        Ok(())
    }
}
