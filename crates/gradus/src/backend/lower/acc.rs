//! Accumulators: `with_acc` and its privatisation in parallel loops.
//!
//! Takes a `with_acc` whose lambda takes one accumulator per input. Guarantees the arrays
//! behind the accumulators updated in place (copied first when shared) and moved into the
//! results; remembers the size of float accumulators so that a parallel `map` adding into
//! them can give each thread its own copy, unless no two of the map's iterations add at the
//! same position ([`Lw::exclusive_accs`]): then the additions are plain.

use super::imp::{self, Ex, Stm as I};
use super::{Lw, R};
use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, SubExp, Type, Var};
use crate::core::scalar::{PrimType, Scalar};
use std::collections::{HashMap, HashSet};

impl<'a> Lw<'a> {
    pub(super) fn with_acc(
        &mut self,
        pat: &[Var],
        inputs: &[(Vec<SubExp>, Vec<Var>)],
        lam: &Lambda,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        if lam.params.len() != inputs.len() {
            return Err("internal error: with_acc lambda does not fit its inputs".into());
        }
        let mut owned = Vec::new();
        for ((shape, arrays), p) in inputs.iter().zip(&lam.params) {
            self.declare(*p, out);
            let pn = self.name(*p);
            let sd = self.dims(shape);
            for (j, a) in arrays.iter().enumerate() {
                let dims = self.var_dims(*a);
                let elem = self.ty(*a).elem();
                if dims.len() >= sd.len() {
                    let mut want = sd.clone();
                    want.extend(dims[sd.len()..].iter().cloned());
                    self.size_check(out, &dims, &want, elem, String::new(), aux);
                }
                let n = self.consume_unique(*a, out);
                if elem.is_float() {
                    self.acc_sizes
                        .insert(format!("{pn}_{j}"), (elem, Ex::product(dims)));
                }
                out.push(I::Set {
                    name: format!("{pn}_{j}"),
                    val: Ex::var(&n),
                });
                owned.push(n);
            }
        }
        self.stms(&lam.body, out)?;
        let rest = &lam.body.result[inputs.len().min(lam.body.result.len())..];
        let extra = &pat[owned.len().min(pat.len())..];
        for (d, r) in extra.iter().zip(rest) {
            self.assign(*d, r, out);
        }
        self.end_scope(&lam.body, out);
        self.move_results(pat, &owned, out);
        Ok(())
    }

    /// Records that accumulator array `dst` is `src` under another name.
    pub(super) fn alias_acc(&mut self, dst: &str, src: &str) {
        if let Some(v) = self.acc_sizes.get(src).cloned() {
            self.acc_sizes.insert(dst.to_string(), v);
        }
    }

    /// The accumulators a parallel `map` adds into that no two of its iterations add into at
    /// the same position, with every variable of the lambda bound to them: in each of their
    /// updates, one index (the same dimension for all updates of the accumulator) is the
    /// iteration's position in an input `iota` plus one constant, the same for all its
    /// updates (a constant index counts where a condition `position == k` guards it). The
    /// reverse sweep of a stencil, `tabulate n (\i -> .. x[i] .. y[i - 1] ..)`, adds so into
    /// the adjoints of `x` and `y`. Their additions need neither atomics nor per-thread
    /// copies.
    pub(super) fn exclusive_accs(&self, lam: &Lambda, arrays: &[Var]) -> HashSet<Var> {
        let mut positions = Vec::new();
        let mut accs = Vec::new();
        for (p, a) in lam.params.iter().zip(arrays) {
            if self.injective_iotas.contains(a) {
                positions.push(*p);
            } else if matches!(self.ty(*p), Type::Acc { .. }) {
                accs.push(*p);
            }
        }
        exclusive_updates(&self.prog.names, &positions, &accs, &lam.body)
    }

    /// The accumulator arrays a parallel `map` adds into, when they can all be privatised:
    /// every accumulator reaches the lambda as an input, and all accumulate floats of a known
    /// size. Accumulators created inside an iteration belong to it and need no atomics either.
    /// Accumulators in `exclusive` (see [`Lw::exclusive_accs`]) need no copy.
    pub(super) fn privatisable(
        &self,
        lam: &Lambda,
        arrays: &[Var],
        exclusive: &HashSet<Var>,
    ) -> Vec<imp::Private> {
        let free_acc = crate::core::visit::free_in_body(&self.prog.names, &lam.body)
            .iter()
            .any(|v| !lam.params.contains(v) && matches!(self.ty(*v), Type::Acc { .. }));
        if free_acc {
            return Vec::new();
        }
        let mut private = Vec::new();
        for (p, a) in lam.params.iter().zip(arrays) {
            let Type::Acc { elems, .. } = self.ty(*a) else {
                continue;
            };
            if exclusive.contains(p) {
                continue;
            }
            for j in 0..elems.len() {
                let arr = format!("{}_{j}", self.name(*a));
                match self.acc_sizes.get(&arr) {
                    Some((elem, count)) => private.push(imp::Private {
                        arr,
                        elem: *elem,
                        count: count.clone(),
                    }),
                    None => return Vec::new(),
                }
            }
        }
        private
    }
}

/// What [`Lw::exclusive_accs`] has learnt about one accumulator parameter: the dimensions
/// whose index, in every update so far, is the iteration's position plus one constant (the
/// same for all updates), with that constant; or that the updates cannot be shown to stay
/// apart.
#[derive(Clone, PartialEq)]
enum Offset {
    At(Vec<(usize, i64)>),
    Unknown,
}

/// The accumulators of `accs` that `body` adds into, in every update, at the position of
/// the iteration plus one constant in a dimension of their indices (see
/// [`Lw::exclusive_accs`]), with every variable of `body` bound to them. `positions` are
/// the variables equal to the iteration's position. No two iterations add into such an
/// accumulator at the same element.
pub(super) fn exclusive_updates(
    names: &crate::core::ir::NameTable,
    positions: &[Var],
    accs: &[Var],
    body: &Body,
) -> HashSet<Var> {
    if positions.is_empty() || accs.is_empty() {
        return HashSet::new();
    }
    let mut walk = Exclusive {
        names,
        affine: positions.iter().map(|p| (*p, 0)).collect(),
        equalities: HashMap::new(),
        root: accs.iter().map(|a| (*a, *a)).collect(),
        offset: HashMap::new(),
    };
    walk.body(body, None);
    let exclusive: HashSet<Var> = walk
        .offset
        .iter()
        .filter(|(_, o)| matches!(o, Offset::At(_)))
        .map(|(r, _)| *r)
        .collect();
    walk.root
        .iter()
        .filter(|(_, r)| exclusive.contains(r))
        .map(|(v, _)| *v)
        .collect()
}

/// The walk of [`exclusive_updates`] over a body.
struct Exclusive<'n> {
    names: &'n crate::core::ir::NameTable,
    /// Integer variables equal to the iteration's position plus a constant.
    affine: HashMap<Var, i64>,
    /// Conditions `position + o == k`, by variable: the position they imply (`k - o`).
    equalities: HashMap<Var, i64>,
    /// Accumulator variables and the parameter they were derived from.
    root: HashMap<Var, Var>,
    /// Per accumulator parameter: where its updates add.
    offset: HashMap<Var, Offset>,
}

impl Exclusive<'_> {
    /// The offset from the position of an index of an update, given the position a
    /// condition on the path implies (if any).
    fn index_offset(&self, index: &SubExp, position: Option<i64>) -> Option<i64> {
        match index {
            SubExp::Var(v) => self.affine.get(v).copied(),
            SubExp::Const(Scalar::I64(k)) => k.checked_sub(position?),
            SubExp::Const(_) => None,
        }
    }

    /// The dimensions of an update's indices that are the position plus a constant.
    fn index_offsets(&self, indices: &[SubExp], position: Option<i64>) -> Vec<(usize, i64)> {
        indices
            .iter()
            .enumerate()
            .filter_map(|(k, i)| self.index_offset(i, position).map(|o| (k, o)))
            .collect()
    }

    /// Records an update of the accumulator `root` at the dimensions and offsets `at`
    /// (empty: anywhere).
    fn record(&mut self, root: Var, at: Vec<(usize, i64)>) {
        let now = match self.offset.get(&root) {
            None => at,
            Some(Offset::At(before)) => before.iter().filter(|d| at.contains(d)).copied().collect(),
            Some(Offset::Unknown) => Vec::new(),
        };
        let now = if now.is_empty() {
            Offset::Unknown
        } else {
            Offset::At(now)
        };
        self.offset.insert(root, now);
    }

    fn body(&mut self, body: &Body, position: Option<i64>) {
        for stm in &body.stms {
            self.stm(stm, position);
        }
    }

    fn stm(&mut self, stm: &crate::core::ir::Stm, position: Option<i64>) {
        use crate::core::prim::{BinOp, CmpOp, PrimOp};
        let const_i64 = |s: &SubExp| match s {
            SubExp::Const(Scalar::I64(k)) => Some(*k),
            _ => None,
        };
        match (&stm.exp, stm.pat.as_slice()) {
            (Exp::BasicOp(BasicOp::Prim(op, args)), [d]) => {
                let (a, b) = match args.as_slice() {
                    [a, b] => (a, b),
                    _ => return,
                };
                let var_offset = |s: &SubExp| s.as_var().and_then(|v| self.affine.get(&v).copied());
                // `position + o` and a constant, in either order.
                let offset_and_const = || match (var_offset(a), const_i64(b)) {
                    (Some(o), Some(c)) => Some((o, c)),
                    _ => var_offset(b).zip(const_i64(a)),
                };
                match op {
                    PrimOp::Bin(BinOp::Add, PrimType::I64) => {
                        if let Some(o) = offset_and_const().and_then(|(o, c)| o.checked_add(c)) {
                            self.affine.insert(*d, o);
                        }
                    }
                    PrimOp::Bin(BinOp::Sub, PrimType::I64) => {
                        if let (Some(o), Some(c)) = (var_offset(a), const_i64(b))
                            && let Some(o) = o.checked_sub(c)
                        {
                            self.affine.insert(*d, o);
                        }
                    }
                    PrimOp::Cmp(CmpOp::Eq, PrimType::I64) => {
                        if let Some(at) = offset_and_const().and_then(|(o, k)| k.checked_sub(o)) {
                            self.equalities.insert(*d, at);
                        }
                    }
                    _ => {}
                }
            }
            (Exp::BasicOp(BasicOp::UpdateAcc { acc, indices, .. }), [d]) => {
                if let Some(&root) = self.root.get(acc) {
                    let at = self.index_offsets(indices, position);
                    self.record(root, at);
                    self.root.insert(*d, root);
                }
            }
            (
                Exp::If {
                    cond,
                    then_body,
                    else_body,
                    ..
                },
                pat,
            ) => {
                let implied = cond.as_var().and_then(|c| self.equalities.get(&c).copied());
                self.body(then_body, implied.or(position));
                self.body(else_body, position);
                for (k, d) in pat.iter().enumerate() {
                    let from = |b: &Body| {
                        b.result
                            .get(k)
                            .and_then(|r| r.as_var())
                            .and_then(|v| self.root.get(&v).copied())
                    };
                    match (from(then_body), from(else_body)) {
                        (None, None) => {}
                        (Some(a), Some(b)) if a == b => {
                            self.root.insert(*d, a);
                        }
                        (a, b) => {
                            // Branches returning different accumulators: give up on both.
                            for r in [a, b].into_iter().flatten() {
                                self.record(r, Vec::new());
                                self.root.insert(*d, r);
                            }
                        }
                    }
                }
            }
            (exp, _) => {
                // Any other use (a nested SOAC, loop or call taking the accumulator) may add
                // anywhere.
                let free = crate::core::visit::free_in_exp(self.names, exp);
                let roots: Vec<Var> = free
                    .iter()
                    .filter_map(|v| self.root.get(v).copied())
                    .collect();
                for r in roots {
                    self.record(r, Vec::new());
                }
            }
        }
    }
}
