//! Independent loops: sequential loops none of whose iterations touches memory that another
//! iteration writes.
//!
//! Takes an innermost sequential loop (a `loop ... for i < n`, a `map` lowered on one
//! thread, the loop of a `reduce` or `scan` over rows or lanes) with its lowered body.
//! Guarantees that a loop is called independent only when the lowered body runs no loop of
//! its own, allocates and copies nothing, and writes memory only through
//!
//! * the rows of the map's outputs (row `i` in iteration `i`), and
//! * additions into accumulators that no two iterations add into at the same element: in
//!   each update, one index is the iteration's position plus a constant, the same for all
//!   updates of the accumulator ([`super::acc::exclusive_updates`]).
//!
//! Nothing an iteration reads is written by another: accumulators cannot be read, the
//! arrays behind them were made exclusively owned when they were created, and the loop
//! updates no array in place. The C printer marks such loops, and the C compiler then
//! vectorises them without first checking at run time whether their arrays overlap: on rows
//! of a few elements (the triangular loops of GMM's adjoint, rows of 1 to 10) those checks
//! cost more than the loop.

use super::Lw;
use super::acc::exclusive_updates;
use super::imp::{Share, Stm as I};
use crate::core::ir::{Body, Lambda, SubExp, Type, Var};
use crate::core::visit::free_in_body;
use std::collections::HashSet;

impl<'a> Lw<'a> {
    /// Whether the loop `for i < n` with parameters `params` and body `body`, lowered as
    /// `lowered`, is independent.
    pub(super) fn independent_loop(
        &self,
        i: Var,
        params: &[(Var, SubExp)],
        body: &Body,
        lowered: &[I],
    ) -> bool {
        if !straight(lowered, false) {
            return false;
        }
        let accs = self.accs_of(params.iter().map(|(p, _)| *p), body);
        let exclusive = exclusive_updates(&self.prog.names, &[i], &accs, body);
        self.adds_only_into(lowered, &exclusive)
    }

    /// Whether a `map` with lambda `lam` over `arrays`, lowered on one thread with body
    /// `lowered`, is independent.
    pub(super) fn independent_map(&self, lam: &Lambda, arrays: &[Var], lowered: &[I]) -> bool {
        if !straight(lowered, true) {
            return false;
        }
        let positions: Vec<Var> = lam
            .params
            .iter()
            .zip(arrays)
            .filter(|(_, a)| self.injective_iotas.contains(*a))
            .map(|(p, _)| *p)
            .collect();
        let accs = self.accs_of(lam.params.iter().copied(), &lam.body);
        let exclusive = exclusive_updates(&self.prog.names, &positions, &accs, &lam.body);
        self.adds_only_into(lowered, &exclusive)
    }

    /// The accumulators a body may add into: those of `params` and those free in it.
    fn accs_of(&self, params: impl Iterator<Item = Var>, body: &Body) -> Vec<Var> {
        let mut accs: Vec<Var> = params
            .filter(|p| matches!(self.ty(*p), Type::Acc { .. }))
            .collect();
        for v in free_in_body(&self.prog.names, body) {
            if matches!(self.ty(v), Type::Acc { .. }) && !accs.contains(&v) {
                accs.push(v);
            }
        }
        accs
    }

    /// Whether every addition of `lowered` goes into an accumulator of `exclusive`.
    fn adds_only_into(&self, lowered: &[I], exclusive: &HashSet<Var>) -> bool {
        // An accumulator `a` of `k` arrays adds into `a_0` .. `a_{k-1}`.
        let arrays: HashSet<String> = exclusive
            .iter()
            .flat_map(|v| {
                let k = match self.ty(*v) {
                    Type::Acc { elems, .. } => elems.len(),
                    _ => 0,
                };
                let name = self.name(*v);
                (0..k).map(move |j| format!("{name}_{j}"))
            })
            .collect();
        let mut ok = true;
        for_each_add(lowered, &mut |arr| ok &= arrays.contains(arr));
        ok
    }
}

/// Whether the body of a reduction's or scan's loop over rows, `lowered`, is independent: it
/// stores only into row `i` of its outputs in iteration `i` (a `redomap`'s map results, a
/// scan's results, lane `l` of a sum of rows), which its caller guarantees, and adds into no
/// accumulator. The values it carries from one iteration to the next are scalar variables,
/// not memory.
pub(super) fn writes_only_rows(lowered: &[I]) -> bool {
    let mut adds = false;
    for_each_add(lowered, &mut |_| adds = true);
    straight(lowered, true) && !adds
}

/// Whether `body` runs no loop, allocates and copies nothing, takes no reference on a block
/// and stores only where `stores` allows any store (a map's body writes the rows of its
/// outputs). A release may free a block: a call, which no C compiler vectorises.
fn straight(body: &[I], stores: bool) -> bool {
    body.iter().all(|s| match s {
        I::Decl { .. }
        | I::Set { .. }
        | I::AtomicAdd { .. }
        | I::Decref(_)
        | I::Check { .. }
        | I::Comment(_) => true,
        I::Store { .. } => stores,
        // Taking a reference writes the block's count, which every iteration would write.
        I::SetArr { share, .. } => *share != Share::Ref,
        I::If { then, els, .. } => straight(then, stores) && straight(els, stores),
        I::Alloc { .. }
        | I::AllocOrTake { .. }
        | I::MakeUnique { .. }
        | I::Copy { .. }
        | I::For { .. }
        | I::ParFor { .. }
        | I::GroupTree(_)
        | I::While { .. } => false,
    })
}

/// Calls `f` with the array of every addition in `body`.
fn for_each_add(body: &[I], f: &mut impl FnMut(&str)) {
    for s in body {
        match s {
            I::AtomicAdd { arr, .. } => f(arr),
            I::If { then, els, .. } => {
                for_each_add(then, f);
                for_each_add(els, f);
            }
            _ => {}
        }
    }
}
