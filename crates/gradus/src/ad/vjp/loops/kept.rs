//! Kept values: expensive results that a loop's forward sweep stores instead of letting the
//! return sweep compute them again.
//!
//! **Takes** the statements of a loop body that are worth it ([`Vjp::keepable`]): `exp`,
//! `tanh` and `cbrt` at the top level of the body, or at the top level of the lambda of a
//! `map` there (a recurrent cell's gates). They cost tens of cycles each, and their
//! derivatives are expressed through their results.
//!
//! **Does**: the forward sweep keeps them, one stack `[n]` per value (`[n][w]` for a map's
//! rows, [`Vjp::keep_values`]), and the return sweep's re-execution reads them
//! (`Preset::Value`, `Preset::Map`, [`Vjp::reading_kept`]).
//!
//! **Guarantees**: the statements stay on the tape, so their adjoints are as before, and
//! their derivatives take the kept values.
//!
//! **Cost**: one value per such call, at most what the loop computes; a `#[stripmine]` loop,
//! which asks for less memory, computes them again.

use super::super::Vjp;
use super::LoopParam;
use super::checkpoint::SaveParams;
use crate::core::ir::{BasicOp, Body, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{PrimOp, UnOp};
use std::collections::{HashMap, HashSet};

/// A statement of the body whose expensive values the forward sweep keeps, one stack `[n]`
/// per value, so that the return sweep reads them instead of computing them again: a
/// primitive operation worth it ([`keeps_result`]) at the top level of the body, or such
/// operations at the top level of a `map`'s lambda there (one row `[w]` per iteration each).
pub(super) struct Kept {
    /// The statement's position in the body.
    pub(super) pos: usize,
    /// For a `map`: the positions of the kept statements in its lambda's body; empty for a
    /// primitive operation, whose result is kept.
    pub(super) in_lambda: Vec<usize>,
    /// The stacks, one per position of `in_lambda` (one for a primitive operation).
    pub(super) stacks: Vec<Var>,
}

/// Whether the result of a primitive operation is worth keeping for the return sweep
/// instead of computing it again: an expensive function (tens of cycles, against a store and
/// a load) whose derivative is expressed through its result, so that the return sweep needs
/// the value and not the operation (`exp`: itself; `tanh`: `1 - tanh²`; `cbrt`).
fn keeps_result(op: PrimOp) -> bool {
    matches!(op, PrimOp::Un(UnOp::Exp | UnOp::Tanh | UnOp::Cbrt, t) if t.is_float())
}

impl Vjp<'_> {
    /// The statements of the body whose values the forward sweep keeps ([`Kept`]), with the
    /// positions of the kept statements in their lambdas (empty for a primitive operation):
    /// active primitive operations worth keeping ([`keeps_result`]) at the top level, and
    /// active `map`s with such operations at the top level of their lambdas, over a width
    /// bound outside the loop (so that every iteration's rows have one shape) and without
    /// accumulators. `inside`: what the loop binds (its parameters, counter and the body's
    /// variables).
    fn keepable(
        &self,
        params: &[LoopParam],
        body: &Body,
        inside: &HashSet<Var>,
    ) -> Vec<(usize, Vec<usize>)> {
        let active = self.active_stms(params, body);
        let mut out = Vec::new();
        for (k, st) in body.stms.iter().enumerate() {
            if !active[k] {
                continue;
            }
            if self.touches_virtual(st) {
                continue;
            }
            match &st.exp {
                Exp::BasicOp(BasicOp::Prim(op, _)) if keeps_result(*op) && st.pat.len() == 1 => {
                    out.push((k, Vec::new()));
                }
                Exp::Soac(Soac::Map { w, lam, arrays }) => {
                    let invariant = match w {
                        SubExp::Var(v) => !inside.contains(v),
                        SubExp::Const(_) => true,
                    };
                    let accs = arrays.iter().chain(&lam.params).any(|a| {
                        self.is_acc_var(*a) || matches!(self.e.names.ty(*a), Type::Acc { .. })
                    });
                    if !invariant || accs {
                        continue;
                    }
                    let at: Vec<usize> = lam
                        .body
                        .stms
                        .iter()
                        .enumerate()
                        .filter(|(_, ls)| {
                            matches!(&ls.exp, Exp::BasicOp(BasicOp::Prim(op, _)) if keeps_result(*op))
                                && ls.pat.len() == 1
                        })
                        .map(|(j, _)| j)
                        .collect();
                    if !at.is_empty() {
                        out.push((k, at));
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The stacks for the values of the body that the forward sweep keeps ([`Kept`]), one
    /// per kept statement (per kept statement of its lambda, for a `map`), by the
    /// statement's position, with the positions kept in its lambda. `inside`: what the loop
    /// binds.
    pub(super) fn plan_kept(
        &mut self,
        saves: &mut SaveParams,
        params: &[LoopParam],
        body: &Body,
        inside: &HashSet<Var>,
    ) -> HashMap<usize, (Vec<usize>, Vec<Var>)> {
        let mut kept_at = HashMap::new();
        for (k, in_lambda) in self.keepable(params, body, inside) {
            let st = &body.stms[k];
            let types: Vec<Type> = match &st.exp {
                Exp::Soac(Soac::Map { w, lam, .. }) => in_lambda
                    .iter()
                    .map(|j| {
                        let t = self.e.names.ty(lam.body.stms[*j].pat[0]).elem();
                        Type::array(t, vec![*w])
                    })
                    .collect(),
                _ => vec![self.e.names.ty(st.pat[0]).clone()],
            };
            let stacks = types
                .iter()
                .map(|t| saves.fresh(self, t, "kept", None))
                .collect();
            kept_at.insert(k, (in_lambda, stacks));
        }
        kept_at
    }

    /// `lam` with one more parameter per kept row, which the statements at the rows'
    /// positions read instead of computing their values.
    pub(super) fn reading_kept(&mut self, lam: &Lambda, rows: &[(usize, Var)]) -> Lambda {
        let mut lam = lam.clone();
        for (j, _) in rows {
            let x = lam.body.stms[*j].pat[0];
            let t = self.e.names.ty(x).clone();
            let h = format!("{}_kept", self.e.names.hint(x));
            let p = self.e.fresh(&h, t);
            lam.params.push(p);
            lam.body.stms[*j].exp = Exp::BasicOp(BasicOp::SubExp(SubExp::Var(p)));
        }
        lam
    }

    /// Emits statement `st` of a loop body in the forward sweep and returns the values to
    /// keep ([`Kept`]): its result (a primitive operation), or for a `map` the rows of the
    /// lambda's statements at `in_lambda`, which the map returns as extra results.
    pub(super) fn keep_values(&mut self, st: &Stm, in_lambda: &[usize]) -> Vec<Var> {
        let Exp::Soac(Soac::Map { w, lam, arrays }) = &st.exp else {
            self.e.add_stm(st.clone());
            return st.pat.clone();
        };
        let mut lam = lam.clone();
        let mut pat = st.pat.clone();
        let mut extra = Vec::new();
        for j in in_lambda {
            let x = lam.body.stms[*j].pat[0];
            let t = self.e.names.ty(x).clone();
            lam.body.result.push(SubExp::Var(x));
            lam.ret.push(t.clone());
            let h = format!("{}_kept", self.e.names.hint(x));
            let rows = self.e.fresh(&h, Type::array(t.elem(), vec![*w]));
            pat.push(rows);
            extra.push(rows);
        }
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Soac(Soac::Map {
                w: *w,
                lam,
                arrays: arrays.clone(),
            }),
            aux: st.aux.clone(),
        });
        extra
    }
}

/// The [`Kept`] statements in body order, with the stacks' save parameters replaced by the
/// loop's results `outs`.
pub(super) fn kept_stacks(
    kept_at: HashMap<usize, (Vec<usize>, Vec<Var>)>,
    outs: &HashMap<Var, Var>,
) -> Vec<Kept> {
    let mut kept: Vec<Kept> = kept_at
        .into_iter()
        .map(|(pos, (in_lambda, stacks))| Kept {
            pos,
            in_lambda,
            stacks: stacks.iter().map(|x| outs[x]).collect(),
        })
        .collect();
    kept.sort_by_key(|k| k.pos);
    kept
}
