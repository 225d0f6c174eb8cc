//! Loops in reverse mode: the driver that picks a strategy per loop, and what the strategies
//! share.
//!
//! **Forward sweep** of `loop (p = init) for i < n do body`: the same loop, which also writes
//! the loop-carried values at the start of every iteration into checkpoint arrays `[n]`
//! (`ck_p with [i] = p`), so iteration `i` can be re-executed later.
//!
//! **Return sweep**: a loop over `i = n-1 .. 0` whose parameters are the adjoints of the loop
//! parameters (starting with the adjoints of the loop's results) and of the active free
//! variables of the body. Each iteration reads its checkpoint, re-executes the body (its own
//! forward sweep, so loops nested inside are checkpointed per outer iteration) and runs the
//! body's return sweep with the parameters' adjoints as the adjoints of the body's results.
//! Afterwards the adjoints of the loop parameters are those of the initial values.
//!
//! Work: the body runs twice per iteration (plus its own nested re-executions), memory is one
//! checkpoint per iteration.
//!
//! # Strategies
//!
//! * `checkpoint.rs`: the checkpointed forward and return sweeps above, which choose per
//!   loop parameter what to save ([`Save`]).
//! * `in_place.rs`: an array that the body only **updates in place** is not checkpointed
//!   whole: the forward sweep saves the positions written and the values overwritten, and the
//!   return sweep writes those back to recover the array at the start of each iteration
//!   (`Save::InPlace`). When every row is written at most once in the whole loop and the body
//!   reads the array only at the rows the same iteration writes (`xs with [i] = f xs[i]`, or
//!   rows `2i` and `2i + 1`), every value it reads is still the initial one: nothing is
//!   saved, and the return sweep reads the initial array (`Save::Initial`).
//! * `kept.rs`: **values kept instead of computed again**: `exp`, `tanh` and `cbrt` at the
//!   top level of the body, or at the top level of the lambda of a `map` there (a recurrent
//!   cell's gates), cost tens of cycles each, and their derivatives are expressed through
//!   their results. The forward sweep keeps them, one stack `[n]` per value (`[n][w]` for a
//!   map's rows), and the return sweep's re-execution reads them: the statements stay on the
//!   tape, so their adjoints are as before, and their derivatives take the kept values.
//!   Memory: one value per such call, at most what the loop computes; a `#[stripmine]` loop,
//!   which asks for less, computes them again.
//! * `nested.rs`: **loops in loops**: a `for` loop directly in the body, with an iteration
//!   count and checkpoint shapes that do not change from one outer iteration to the next,
//!   runs its own forward sweep inside the outer one, which keeps the inner loop's results
//!   and checkpoints per outer iteration. The return sweep's re-execution of an outer
//!   iteration takes them from there instead of running the inner loop forwards again, so the
//!   inner body runs twice in all instead of three times (a recurrent network's layers per
//!   time step: about a third of its gradient's work). The inner forward sweep writes what it
//!   saves straight into the outer loop's stacks, at the outer iteration's row. The memory is
//!   the inner checkpoints of every outer iteration, which is at most what the inner loops
//!   compute.
//! * `resize.rs`: a loop whose arrays **change size** (a loop parameter's type mentions
//!   another parameter: `loop xs = .. for i < n do xs ++ ..`, a `while` loop that halves an
//!   array, a loop that filters) cannot keep its checkpoints in `[n]` arrays of one shape: it
//!   saves each iteration's arrays flattened into one buffer per parameter (`Save::Flat`), at
//!   offsets a first, counting run of the loop records, and its return sweep carries the
//!   sizes.
//! * `revcomp/`: a loop whose carried values are all scalars and whose updates are (partly)
//!   invertible: the return sweep recovers those values with the inverse update (reverse
//!   computing) and checkpoints only the others; `#[checkpoint]` on the loop turns that off.
//!
//! Before that, [`Vjp::lower_loop`] rewrites two kinds of loops into `for` loops:
//!
//! * `while_loop.rs`: a `while` loop runs once first (a renamed copy, with an iteration
//!   counter) to count its iterations `c`, and is then differentiated as `for _ < c`;
//! * `stripmine.rs`: a loop marked `#[stripmine(k)]` (`k ≥ 2`) becomes `k` nested loops of
//!   about `n^(1/k)` iterations each (`i = o·s + j`), so that the checkpoints take about
//!   `k · n^(1/k)` memory at the price of `k + 1` executions of the body instead of two.

mod checkpoint;
mod in_place;
mod kept;
mod nested;
mod resize;
pub(super) mod revcomp;
mod stripmine;
mod while_loop;

use super::{Adj, Diagnostic, Extra, R, Vjp, limitation};
use crate::core::ir::{
    BasicOp, Body, DimIndex, Exp, Lambda, LoopForm, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;
use crate::core::visit::{lambda_free_vars, stm_consumed_vars, stm_free_vars};
use in_place::Overwrite;
use kept::Kept;
use nested::Nested;
use resize::resizes;
use std::collections::HashSet;
use stripmine::stripmine_factor;

/// A loop parameter and its initial value.
type LoopParam = (Var, SubExp);

/// What the forward sweep of a `for` loop saved.
pub(super) struct Saved {
    /// The number of iterations, as a non-negative `i64`.
    n: SubExp,
    /// What was saved for each loop parameter.
    saves: Vec<Save>,
    /// Loops of the body whose forward sweeps ran inside this one's (see [`Nested`]).
    nested: Vec<Nested>,
    /// Values of the body kept per iteration (see [`Kept`]).
    kept: Vec<Kept>,
}

impl Saved {
    /// The variables holding what was saved, in a fixed order (see [`Saved::with_vars`]).
    fn vars(&self) -> Vec<Var> {
        let mut out = Vec::new();
        for save in &self.saves {
            match save {
                Save::Full(v) => out.push(*v),
                Save::Initial => {}
                Save::Flat { buf, offsets } => out.extend([*buf, *offsets]),
                Save::InPlace(writes) => {
                    for w in writes {
                        out.extend(&w.indices);
                        out.push(w.old);
                    }
                }
            }
        }
        for k in &self.kept {
            out.extend(&k.stacks);
        }
        out
    }

    /// The same layout with the variables replaced, in the order of [`Saved::vars`].
    /// Only for loops without nested saves.
    fn with_vars(&self, vars: &mut impl Iterator<Item = Var>) -> Saved {
        let mut next = || vars.next().expect("as many variables as Saved::vars");
        let saves = self
            .saves
            .iter()
            .map(|save| match save {
                Save::Full(_) => Save::Full(next()),
                Save::Initial => Save::Initial,
                Save::Flat { .. } => Save::Flat {
                    buf: next(),
                    offsets: next(),
                },
                Save::InPlace(writes) => Save::InPlace(
                    writes
                        .iter()
                        .map(|w| Overwrite {
                            indices: w.indices.iter().map(|_| next()).collect(),
                            old: next(),
                        })
                        .collect(),
                ),
            })
            .collect();
        let kept = self
            .kept
            .iter()
            .map(|k| Kept {
                pos: k.pos,
                in_lambda: k.in_lambda.clone(),
                stacks: k.stacks.iter().map(|_| next()).collect(),
            })
            .collect();
        Saved {
            n: self.n,
            saves,
            nested: Vec::new(),
            kept,
        }
    }
}

/// What the re-execution of one iteration takes from the forward sweep for a statement of
/// the body instead of computing it again.
pub(super) enum Preset {
    /// An inner loop ([`Nested`]): its results and its saved checkpoints at that iteration.
    Loop {
        /// The stacked results and the iteration to take.
        stacks: Vec<Var>,
        at: SubExp,
        /// What the inner loop's forward sweep saved in that iteration.
        extra: Extra,
    },
    /// A primitive operation whose result the forward sweep kept ([`Kept`]): the value.
    /// The statement stays on the tape, so its return sweep runs as before, and its
    /// derivative takes the kept value for the operation (`exp`'s is its result).
    Value(Var),
    /// A `map` some of whose lambda's statements the forward sweep kept per row ([`Kept`]):
    /// those positions in the lambda's body and the rows of their values. The map runs with
    /// them read instead of computed, and so does the lambda's re-execution in the map's
    /// return sweep.
    Map(Vec<(usize, Var)>),
}

/// How a loop parameter is recovered for re-executing iteration `i`.
enum Save {
    /// Its value at the start of every iteration (`[n]` checkpoints).
    Full(Var),
    /// An array the body only updates in place (`p with [idx] = v`, a chain of such updates
    /// ending in the body's result): the positions written and the values they overwrote, per
    /// iteration and update, so the return sweep recovers the array at the start of
    /// iteration `i` from the one after it by writing the old values back.
    InPlace(Vec<Overwrite>),
    /// An array the body only updates in place, each position at most once in the whole
    /// loop, and reads only at the positions the same iteration writes (see
    /// [`write_once`](in_place::write_once)):
    /// wherever iteration `i` reads it, it still holds the loop's initial value, so nothing is
    /// saved and the return sweep reads the initial array, which the forward sweep leaves
    /// intact. Building an array row by row, or a recurrent network's layers replacing their
    /// rows of the state, are such loops.
    Initial,
    /// An array whose size changes from iteration to iteration: its elements at the start of
    /// every iteration, flattened one after the other into one buffer, and where each
    /// iteration's start.
    Flat { buf: Var, offsets: Var },
}

impl Vjp<'_> {
    /// `params` (those of a copy of loop `s`) with a fresh copy of every initial value that
    /// `s` consumes, so that the copy, which runs first, leaves it to `s`.
    pub(super) fn copy_consumed_inits(
        &mut self,
        s: &Stm,
        params: Vec<LoopParam>,
    ) -> Vec<LoopParam> {
        let consumed: HashSet<Var> = stm_consumed_vars(s).into_iter().collect();
        params
            .into_iter()
            .map(|(p, init)| match init {
                SubExp::Var(x) if consumed.contains(&x) => {
                    let c = self.e.basic(BasicOp::Copy(x), "init");
                    (p, SubExp::Var(c))
                }
                other => (p, other),
            })
            .collect()
    }

    /// Rewrites a `while` loop or a `#[stripmine(k)]` loop into `for` loops (emitting what
    /// that needs: the counting loop, the strip sizes); other statements are returned as
    /// they are.
    pub(super) fn lower_loop(&mut self, s: Stm) -> R<Stm> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Ok(s);
        };
        match form {
            LoopForm::While { cond } => self.count_while(&s, params, *cond, body),
            LoopForm::For { i, bound } => {
                let k = stripmine_factor(&s.aux.attrs);
                // A loop whose arrays change size keeps its checkpoints in flat buffers of
                // exactly their elements (`resize.rs`) and is not stripmined.
                if k < 2
                    || self.e.ty(bound).elem() != PrimType::I64
                    || resizes(params, &self.e.names)
                {
                    return Ok(s);
                }
                Ok(self.stripmine(&s, params, *i, *bound, body, k))
            }
        }
    }

    /// The forward sweep of an active `for` loop: reverse computed if that applies
    /// (`revcomp/`), checkpointed otherwise (`checkpoint.rs`).
    pub(super) fn fwd_loop(&mut self, s: &Stm) -> R<Extra> {
        if let Some(extra) = self.rc_fwd_loop(s)? {
            return Ok(extra);
        }
        Ok(Extra::Loop(self.checkpoint_loop(s, None, None)?))
    }

    /// The iteration count of `for _ < bound`, as a non-negative `i64`.
    fn iteration_count(&mut self, bound: &SubExp) -> SubExp {
        let bt = self.e.ty(bound).elem();
        let n64 = if bt == PrimType::I64 {
            *bound
        } else {
            self.e.prim(PrimOp::Conv(bt, PrimType::I64), vec![*bound])
        };
        self.e.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![n64, SubExp::i64(0)],
        )
    }

    /// Whether a loop parameter is an accumulator (such loops are not differentiated).
    fn carries_acc(&self, params: &[LoopParam]) -> bool {
        params
            .iter()
            .any(|(p, _)| matches!(self.e.names.ty(*p), Type::Acc { .. }))
    }

    /// Per statement of a loop body, whether it is active: it depends on a loop parameter
    /// or on an active variable, directly or through the statements before it.
    fn active_stms(&self, params: &[LoopParam], body: &Body) -> Vec<bool> {
        let mut active: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
        body.stms
            .iter()
            .map(|st| {
                let is_active = stm_free_vars(st)
                    .iter()
                    .any(|v| active.contains(v) || self.active.contains(v));
                if is_active {
                    active.extend(st.pat.iter().copied());
                }
                is_active
            })
            .collect()
    }

    /// Emits a statement of a re-executed loop body from what the loop's forward sweep kept
    /// for it ([`Preset`]); returns what its return sweep needs. `consumed`: what the body
    /// consumes (a value read from a stack is copied first).
    pub(super) fn fwd_preset(&mut self, s0: &Stm, p: Preset, consumed: &HashSet<Var>) -> Extra {
        match p {
            Preset::Loop { stacks, at, extra } => {
                for (x, stack) in s0.pat.iter().zip(&stacks) {
                    let index = BasicOp::Index {
                        array: *stack,
                        slice: vec![DimIndex::Fix(at)],
                    };
                    let exp = if consumed.contains(x) {
                        let h = self.e.names.hint(*x).to_string();
                        Exp::BasicOp(BasicOp::Copy(self.e.basic(index, &h)))
                    } else {
                        Exp::BasicOp(index)
                    };
                    self.e.add_stm(Stm {
                        pat: vec![*x],
                        exp,
                        aux: s0.aux.clone(),
                    });
                }
                extra
            }
            Preset::Value(value) => {
                self.e.add_stm(Stm {
                    pat: s0.pat.clone(),
                    exp: Exp::BasicOp(BasicOp::SubExp(SubExp::Var(value))),
                    aux: s0.aux.clone(),
                });
                // The derivative asks for the operation again (`exp x` for `exp`): it gets
                // the kept value.
                self.e.record_prim(s0);
                Extra::None
            }
            Preset::Map(rows) => {
                let Exp::Soac(Soac::Map { w, lam, arrays }) = &s0.exp else {
                    return Extra::None;
                };
                let lam = self.reading_kept(lam, &rows);
                let mut arrays = arrays.clone();
                arrays.extend(rows.iter().map(|(_, r)| *r));
                self.e.add_stm(Stm {
                    pat: s0.pat.clone(),
                    exp: Exp::Soac(Soac::Map { w: *w, lam, arrays }),
                    aux: s0.aux.clone(),
                });
                Extra::Kept(rows)
            }
        }
    }

    /// The active free variables of a loop body besides its parameters and counter (not
    /// accumulators): their adjoints are carried through a return-sweep loop.
    pub(super) fn loop_threaded(&self, params: &[Var], i: Var, body: &Body) -> Vec<Var> {
        let mut binders = params.to_vec();
        binders.push(i);
        let as_lambda = Lambda {
            params: binders,
            body: body.clone(),
            ret: vec![],
        };
        lambda_free_vars(&as_lambda)
            .into_iter()
            .filter(|v| self.active.contains(v) && !matches!(self.e.names.ty(*v), Type::Acc { .. }))
            .collect()
    }

    /// Return-sweep loop parameters carrying the adjoints of `threaded`, initialised from
    /// their current adjoints (which are taken), and whether each is an accumulator.
    pub(super) fn threaded_loop_params(
        &mut self,
        threaded: &[Var],
    ) -> R<(Vec<LoopParam>, Vec<bool>)> {
        let mut rparams = Vec::new();
        let mut kinds = Vec::new();
        for x in threaded {
            let a = self.adjs.remove(x);
            let (t, init, is_acc) = match a {
                Some(Adj::Acc(acc)) => (self.e.names.ty(acc).clone(), SubExp::Var(acc), true),
                other => {
                    let t = self.e.names.ty(*x).clone();
                    let init = if t.rank() > 0 {
                        SubExp::Var(self.owned_adj(*x, other)?)
                    } else {
                        match other {
                            Some(Adj::Val(se, _)) => se,
                            _ => self.zero(&t),
                        }
                    };
                    (t, init, false)
                }
            };
            let h = format!("{}_adj", self.e.names.hint(*x));
            rparams.push((self.e.fresh(&h, t), init));
            kinds.push(is_acc);
        }
        Ok((rparams, kinds))
    }

    /// Makes `vars` the adjoints of `threaded` (accumulators where `kinds` says so).
    pub(super) fn set_threaded_adjs(&mut self, threaded: &[Var], kinds: &[bool], vars: &[Var]) {
        for ((x, is_acc), a) in threaded.iter().zip(kinds).zip(vars) {
            let adj = if *is_acc {
                Adj::Acc(*a)
            } else {
                Adj::Val(SubExp::Var(*a), true)
            };
            self.adjs.insert(*x, adj);
        }
    }

    /// The return sweep of a loop, by what its forward sweep saved.
    pub(super) fn rev_loop(
        &mut self,
        s: &Stm,
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        if !matches!(s.exp, Exp::Loop { .. }) {
            return Err(Diagnostic::bug("rev_loop of a non-loop"));
        }
        match extra {
            Extra::RevComp(saved) => self.rc_rev_loop(s, saved, ybars),
            Extra::Loop(saved) => self.rev_checkpointed(s, saved, ybars),
            _ => Err(limitation(s.aux.span, "reverse-mode AD of while loops")),
        }
    }
}
