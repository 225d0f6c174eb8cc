//! Loops in reverse mode.
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
//! An array that the body only **updates in place** is not checkpointed whole: the forward
//! sweep saves the positions written and the values overwritten, and the return sweep writes
//! those back to recover the array at the start of each iteration (`Save::InPlace`). When
//! every row is written at most once in the whole loop and the body reads the array only at
//! the rows the same iteration writes (`xs with [i] = f xs[i]`, or rows `2i` and `2i + 1`),
//! every value it reads is still the initial one: nothing is saved, and the return sweep
//! reads the initial array (`Save::Initial`).
//!
//! **Values kept instead of computed again**: `exp`, `tanh` and `cbrt` at the top level of
//! the body, or at the top level of the lambda of a `map` there (a recurrent cell's gates),
//! cost tens of cycles each, and their derivatives are expressed through their results. The
//! forward sweep keeps them, one stack `[n]` per value (`[n][w]` for a map's rows), and the
//! return sweep's re-execution reads them: the statements stay on the tape, so their
//! adjoints are as before, and their derivatives take the kept values ([`Kept`]). Memory:
//! one value per such call, at most what the loop computes; a `#[stripmine]` loop, which asks
//! for less, computes them again.
//!
//! **Loops in loops**: a `for` loop directly in the body, with an iteration count and
//! checkpoint shapes that do not change from one outer iteration to the next, runs its own
//! forward sweep inside the outer one, which keeps the inner loop's results and checkpoints
//! per outer iteration ([`Nested`]). The return sweep's re-execution of an outer iteration
//! takes them from there instead of running the inner loop forwards again, so the inner body
//! runs twice in all instead of three times (a recurrent network's layers per time step:
//! about a third of its gradient's work). The inner forward sweep writes what it saves
//! straight into the outer loop's stacks, at the outer iteration's row ([`Slot`]). The memory is the inner checkpoints of every outer
//! iteration, which is at most what the inner loops compute.
//!
//! A loop whose arrays **change size** (a loop parameter's type mentions another parameter:
//! `loop xs = .. for i < n do xs ++ ..`, a `while` loop that halves an array, a loop that
//! filters) cannot keep its checkpoints in `[n]` arrays of one shape: it saves each
//! iteration's arrays flattened into one buffer per parameter (`Save::Flat`), at offsets a
//! first, counting run of the loop records, and its return sweep carries the sizes; see
//! `resize.rs` for what that takes, guarantees and costs.
//!
//! A loop whose carried values are all scalars and whose updates are (partly) invertible is
//! handled by `revcomp.rs` instead: the return sweep recovers those values with the inverse
//! update (reverse computing) and checkpoints only the others; `#[checkpoint]` on the loop
//! turns that off.
//!
//! Before that, [`Vjp::lower_loop`] rewrites two kinds of loops into `for` loops:
//!
//! * a `while` loop runs once first (a renamed copy, with an iteration counter) to count its
//!   iterations `c`, and is then differentiated as `for _ < c`;
//! * a loop marked `#[stripmine(k)]` (`k ≥ 2`) becomes `k` nested loops of about `n^(1/k)`
//!   iterations each (`i = o·s + j`), so that the checkpoints take about `k · n^(1/k)`
//!   memory at the price of `k + 1` executions of the body instead of two.

use super::resize::{FlatSlot, resizes, size_params};
use super::{Adj, Diagnostic, Extra, R, Vjp, limitation};
use crate::core::builder::HasBuilder;
use crate::core::ir::{
    BasicOp, Body, DimIndex, Exp, Lambda, LoopForm, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::{BinOp, PrimOp, UnOp};
use crate::core::renumber::{body_binders, map_vars_type};
use crate::core::visit::{lambda_free_vars, stm_consumed_vars, stm_free_vars};
use crate::value::{PrimType, Scalar};
use std::collections::{HashMap, HashSet};

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

/// A `for` loop directly in the body whose forward sweep (with its own checkpoints) ran in
/// every iteration of this loop's forward sweep. Its results and what it saved are kept per
/// iteration, stacked in arrays `[n]`, so the return sweep's re-execution of iteration `i`
/// takes them from there instead of running the inner loop forwards again: a statement in
/// the inner body runs twice in all instead of three times.
///
/// Memory: the inner loop's checkpoints for every outer iteration, at most what the inner
/// loops compute (each checkpoint is a value an iteration produced), the bound of a tape.
/// Only loops whose iteration count and checkpoint shapes do not change with the outer
/// iteration qualify; a `#[stripmine]` outer loop, which asks for less memory, keeps
/// re-executing.
struct Nested {
    /// The inner loop's position in the body.
    pos: usize,
    /// Its results, stacked.
    results: Vec<Var>,
    /// What its forward sweep saved, every variable stacked (`n` is invariant).
    saved: Saved,
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

/// A [`Nested`] loop's iteration count, and the (value, stack) pairs of its results, then
/// the enclosing loop's stacks for what it saves.
type InnerSweep = (SubExp, Vec<(Var, Var)>, Vec<Var>);

/// Where the forward sweep of a [`Nested`] loop writes what it saves: straight into the
/// enclosing loop's stacks (their current values, in the order the inner loop creates its
/// saves, the order of [`Saved::vars`]), at the enclosing iteration `at`. Building its own
/// arrays and copying them into the stacks cost a copy per save and iteration (a recurrent
/// network's gradient: seven per character).
struct Slot {
    at: SubExp,
    stacks: std::collections::VecDeque<Var>,
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

/// A statement of the body whose expensive values the forward sweep keeps, one stack `[n]`
/// per value, so that the return sweep reads them instead of computing them again: a
/// primitive operation worth it ([`keeps_result`]) at the top level of the body, or such
/// operations at the top level of a `map`'s lambda there (one row `[w]` per iteration each).
struct Kept {
    /// The statement's position in the body.
    pos: usize,
    /// For a `map`: the positions of the kept statements in its lambda's body; empty for a
    /// primitive operation, whose result is kept.
    in_lambda: Vec<usize>,
    /// The stacks, one per position of `in_lambda` (one for a primitive operation).
    stacks: Vec<Var>,
}

/// Whether the result of a primitive operation is worth keeping for the return sweep
/// instead of computing it again: an expensive function (tens of cycles, against a store and
/// a load) whose derivative is expressed through its result, so that the return sweep needs
/// the value and not the operation (`exp`: itself; `tanh`: `1 - tanh²`; `cbrt`).
fn keeps_result(op: PrimOp) -> bool {
    matches!(op, PrimOp::Un(UnOp::Exp | UnOp::Tanh | UnOp::Cbrt, t) if t.is_float())
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
    /// loop, and reads only at the positions the same iteration writes (see [`write_once`]):
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

/// One in-place update of a chain: per iteration, its indices and the overwritten value.
struct Overwrite {
    indices: Vec<Var>,
    old: Var,
}

/// For each loop parameter, the positions in `body.stms` of the in-place updates that carry
/// it to its result, if it is an array that only such updates change.
fn update_chains(
    params: &[(Var, SubExp)],
    body: &Body,
    names: &crate::core::ir::NameTable,
) -> Vec<Option<Vec<usize>>> {
    params
        .iter()
        .zip(&body.result)
        .map(|((p, _), r)| {
            if names.ty(*p).rank() == 0 {
                return None;
            }
            let mut cur = *p;
            let mut chain = Vec::new();
            for (k, st) in body.stms.iter().enumerate() {
                if let Exp::BasicOp(BasicOp::Update { array, slice, .. }) = &st.exp
                    && *array == cur
                    && slice.iter().all(|d| matches!(d, DimIndex::Fix(_)))
                {
                    chain.push(k);
                    cur = st.pat[0];
                }
            }
            (*r == SubExp::Var(cur)).then_some(chain)
        })
        .collect()
}

/// The loop counter's affine functions among a body's `i64` scalars: `v ↦ (a, b)` for
/// `v = a·i + b`, through additions, subtractions and multiplications by constants.
fn counter_affine(i: Var, stms: &[Stm]) -> HashMap<Var, (i64, i64)> {
    let mut aff = HashMap::from([(i, (1, 0))]);
    for st in stms {
        let [x] = st.pat[..] else {
            continue;
        };
        let val = |se: &SubExp| affine_value(&aff, se);
        let r = match &st.exp {
            Exp::BasicOp(BasicOp::SubExp(se)) => val(se),
            Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op, PrimType::I64), args))
                if args.len() == 2 =>
            {
                match (val(&args[0]), val(&args[1])) {
                    (Some((a1, b1)), Some((a2, b2))) => match op {
                        BinOp::Add => a1.checked_add(a2).zip(b1.checked_add(b2)),
                        BinOp::Sub => a1.checked_sub(a2).zip(b1.checked_sub(b2)),
                        BinOp::Mul if a1 == 0 => a2.checked_mul(b1).zip(b2.checked_mul(b1)),
                        BinOp::Mul if a2 == 0 => a1.checked_mul(b2).zip(b1.checked_mul(b2)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(r) = r {
            aff.insert(x, r);
        }
    }
    aff
}

/// `se` as an affine function of the loop counter, if [`counter_affine`] found one.
fn affine_value(aff: &HashMap<Var, (i64, i64)>, se: &SubExp) -> Option<(i64, i64)> {
    match se {
        SubExp::Const(Scalar::I64(c)) => Some((0, *c)),
        SubExp::Var(v) => aff.get(v).copied(),
        SubExp::Const(_) => None,
    }
}

/// Whether loop parameter `p`, which the in-place updates at positions `chain` of the body
/// carry to the body's result `j`, can be saved as [`Save::Initial`]: every row is written at
/// most once in the whole loop, and the body reads `p` only at rows the same iteration
/// writes, so every value the body reads from `p` is still the loop's initial one.
///
/// The updates' first indices must be `a·i + b_k` in the loop counter `i`, with one `a ≠ 0`
/// for all of them and offsets `b_k` that differ pairwise by less than `|a|` (then no two
/// pairs of iteration and update write the same row); the reads must be `p[a·i + b_k, ..]`;
/// nothing else may use `p` or the chain's intermediate arrays.
fn write_once(i: Var, p: Var, j: usize, chain: &[usize], body: &Body) -> bool {
    if chain.is_empty() {
        return false;
    }
    let aff = counter_affine(i, &body.stms);
    let row = |slice: &[DimIndex]| match slice.first() {
        Some(DimIndex::Fix(se)) => affine_value(&aff, se),
        _ => None,
    };
    let mut rows = Vec::new();
    let mut chain_vars = vec![p];
    for k in chain {
        let Exp::BasicOp(BasicOp::Update { slice, .. }) = &body.stms[*k].exp else {
            return false;
        };
        let Some(r) = row(slice) else {
            return false;
        };
        rows.push(r);
        chain_vars.push(body.stms[*k].pat[0]);
    }
    let a = rows[0].0;
    if a == 0 || rows.iter().any(|(a2, _)| *a2 != a) {
        return false;
    }
    for (x, (_, b1)) in rows.iter().enumerate() {
        for (_, b2) in &rows[x + 1..] {
            let d = (i128::from(*b1) - i128::from(*b2)).unsigned_abs();
            if d == 0 || d >= u128::from(a.unsigned_abs()) {
                return false;
            }
        }
    }
    let in_chain = |v: &Var| chain_vars.contains(v);
    for (k, st) in body.stms.iter().enumerate() {
        if let Some(pos) = chain.iter().position(|c| *c == k) {
            let Exp::BasicOp(BasicOp::Update { array, value, .. }) = &st.exp else {
                return false;
            };
            if *array != chain_vars[pos] || matches!(value, SubExp::Var(v) if in_chain(v)) {
                return false;
            }
            continue;
        }
        if let Exp::BasicOp(BasicOp::Index { array, slice }) = &st.exp
            && *array == p
        {
            if !row(slice).is_some_and(|r| rows.contains(&r)) {
                return false;
            }
            continue;
        }
        if stm_free_vars(st).iter().any(in_chain) {
            return false;
        }
    }
    body.result
        .iter()
        .enumerate()
        .all(|(r, se)| r == j || !matches!(se, SubExp::Var(v) if in_chain(v)))
}

/// The statements among `stms` that compute the scalar `v` from values bound outside them
/// (`inside` holds what the enclosing body binds), in order, if they are all basic
/// operations on scalars.
fn invariant_definition(stms: &[Stm], v: Var, inside: &HashSet<Var>) -> Option<Vec<Stm>> {
    let mut wanted = HashSet::from([v]);
    let mut defs = Vec::new();
    for st in stms.iter().rev() {
        if !st.pat.iter().any(|p| wanted.contains(p)) {
            continue;
        }
        let Exp::BasicOp(op) = &st.exp else {
            return None;
        };
        if matches!(
            op,
            BasicOp::Index { .. } | BasicOp::Update { .. } | BasicOp::Copy(_)
        ) {
            return None;
        }
        for x in stm_free_vars(st) {
            if inside.contains(&x) {
                wanted.insert(x);
            }
        }
        defs.push(st.clone());
    }
    // Everything wanted must have been found among the statements.
    let bound: HashSet<Var> = defs.iter().flat_map(|st| st.pat.iter().copied()).collect();
    if wanted.iter().any(|x| !bound.contains(x)) {
        return None;
    }
    defs.reverse();
    Some(defs)
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
            LoopForm::While { cond } => {
                let mut subst = HashMap::new();
                let mut fresh_params = Vec::new();
                for (p, init) in params {
                    let t = self.e.names.ty(*p).clone();
                    let h = self.e.names.hint(*p).to_string();
                    let np = self.e.fresh(&h, t);
                    subst.insert(*p, np);
                    fresh_params.push((np, *init));
                }
                let mut new_params = self.copy_consumed_inits(&s, fresh_params);
                // Parameter types may mention other parameters (sizes).
                for (np, _) in &new_params {
                    let mut t = self.e.names.ty(*np).clone();
                    crate::core::renumber::map_vars_type(&mut t, &mut |v| {
                        subst.get(&v).copied().unwrap_or(v)
                    });
                    self.e.names.set_ty(*np, t);
                }
                let count = self.e.fresh("count", Type::Prim(PrimType::I64));
                new_params.push((count, SubExp::i64(0)));
                let (mut stms, mut result) = self.rename(&body.stms, &body.result, subst.clone());
                let (inc_stms, inc) = self
                    .nested(|v| Ok(v.e.i64_bin(BinOp::Add, SubExp::Var(count), SubExp::i64(1))))?;
                stms.extend(inc_stms);
                result.push(inc);
                // The results' types refer to the results (sizes), not to the parameters.
                let mut to_pat: HashMap<Var, Var> = HashMap::new();
                let mut pat = Vec::with_capacity(new_params.len());
                for (p, _) in &new_params {
                    let mut t = self.e.names.ty(*p).clone();
                    crate::core::renumber::map_vars_type(&mut t, &mut |v| {
                        to_pat.get(&v).copied().unwrap_or(v)
                    });
                    let r = self.e.fresh("counted", t);
                    to_pat.insert(*p, r);
                    pat.push(r);
                }
                let c = pat[pat.len() - 1];
                self.e.add_stm(Stm {
                    pat,
                    exp: Exp::Loop {
                        params: new_params,
                        form: LoopForm::While { cond: subst[cond] },
                        body: Body { stms, result },
                    },
                    aux: s.aux.clone(),
                });
                let i = self.e.fresh("i", Type::Prim(PrimType::I64));
                Ok(Stm {
                    pat: s.pat.clone(),
                    exp: Exp::Loop {
                        params: params.clone(),
                        form: LoopForm::For {
                            i,
                            bound: SubExp::Var(c),
                        },
                        body: body.clone(),
                    },
                    aux: s.aux.clone(),
                })
            }
            LoopForm::For { i, bound } => {
                let k = s
                    .aux
                    .attrs
                    .iter()
                    .find_map(|a| {
                        a.strip_prefix("stripmine(")
                            .and_then(|r| r.strip_suffix(')'))
                            .and_then(|r| r.trim().parse::<u32>().ok())
                    })
                    .unwrap_or(1);
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

    /// `loop p for i < n do body` as `loop q for o < ⌈n/s⌉ do (loop p = q for j <
    /// min(s, n - o·s) do body[i = o·s + j])` with `s = ⌈n^(1/k)⌉`, the outer loop stripmined
    /// again with `k - 1`.
    fn stripmine(
        &mut self,
        s: &Stm,
        params: &[(Var, SubExp)],
        i: Var,
        n: SubExp,
        body: &Body,
        k: u32,
    ) -> Stm {
        let f64t = PrimType::F64;
        let nf = self.e.prim(PrimOp::Conv(PrimType::I64, f64t), vec![n]);
        let root = self.e.prim(
            PrimOp::Bin(BinOp::Pow, f64t),
            vec![nf, SubExp::Const(crate::value::Scalar::F64(1.0 / k as f64))],
        );
        let up = self
            .e
            .prim(PrimOp::Un(crate::core::prim::UnOp::Ceil, f64t), vec![root]);
        let si = self.e.prim(PrimOp::Conv(f64t, PrimType::I64), vec![up]);
        let strip = self.e.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![si, SubExp::i64(1)],
        );
        let sm1 = self.e.i64_bin(BinOp::Sub, strip, SubExp::i64(1));
        let num = self.e.i64_bin(BinOp::Add, n, sm1);
        let nb = self
            .e
            .prim(PrimOp::Bin(BinOp::Quot, PrimType::I64), vec![num, strip]);
        let o = self.e.fresh("strip", Type::Prim(PrimType::I64));
        let j = self.e.fresh("j", Type::Prim(PrimType::I64));
        let outer_params: Vec<(Var, SubExp)> = params
            .iter()
            .map(|(p, init)| {
                let t = self.e.names.ty(*p).clone();
                (self.e.fresh("strip_state", t), *init)
            })
            .collect();
        let aux = s.aux.clone();
        let mut inner_aux = aux.clone();
        inner_aux.attrs.retain(|a| !a.starts_with("stripmine"));
        let (outer_stms, outer_res) = self
            .nested(|v| -> R<_> {
                let base = v.e.i64_bin(BinOp::Mul, SubExp::Var(o), strip);
                let left = v.e.i64_bin(BinOp::Sub, n, base);
                let cnt =
                    v.e.prim(PrimOp::Bin(BinOp::Min, PrimType::I64), vec![strip, left]);
                let (mut stms, ()) = v.nested(|v| {
                    let idx = v.e.i64_bin(BinOp::Add, base, SubExp::Var(j));
                    v.e.add_stm(Stm {
                        pat: vec![i],
                        exp: Exp::BasicOp(BasicOp::SubExp(idx)),
                        aux: aux.clone(),
                    });
                    Ok(())
                })?;
                stms.extend(body.stms.iter().cloned());
                let pat: Vec<Var> = params
                    .iter()
                    .map(|(p, _)| {
                        let t = v.e.names.ty(*p).clone();
                        v.e.fresh("strip_out", t)
                    })
                    .collect();
                v.e.add_stm(Stm {
                    pat: pat.clone(),
                    exp: Exp::Loop {
                        params: params
                            .iter()
                            .zip(&outer_params)
                            .map(|((p, _), (q, _))| (*p, SubExp::Var(*q)))
                            .collect(),
                        form: LoopForm::For { i: j, bound: cnt },
                        body: Body {
                            stms,
                            result: body.result.clone(),
                        },
                    },
                    aux: inner_aux.clone(),
                });
                Ok(pat.into_iter().map(SubExp::Var).collect::<Vec<_>>())
            })
            .unwrap_or_default();
        let outer_body = Body {
            stms: outer_stms,
            result: outer_res,
        };
        if k > 2 {
            return self.stripmine(s, &outer_params, o, nb, &outer_body, k - 1);
        }
        Stm {
            pat: s.pat.clone(),
            exp: Exp::Loop {
                params: outer_params,
                form: LoopForm::For { i: o, bound: nb },
                body: outer_body,
            },
            aux: inner_aux,
        }
    }

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

    /// The positions of the body's `for` loops that can be [`Nested`]: active (they depend
    /// on a loop parameter or an active variable), of fixed shapes, not stripmined, without
    /// accumulators, with an iteration count that does not change between iterations of the
    /// enclosing loop; with that count, computed here (outside the enclosing loop). `inside`:
    /// what the enclosing loop binds (its parameters, counter and the body's variables).
    fn nestable_loops(
        &mut self,
        params: &[LoopParam],
        body: &Body,
        inside: &HashSet<Var>,
    ) -> Vec<(usize, SubExp)> {
        let active = self.active_stms(params, body);
        let mut out = Vec::new();
        for (k, st) in body.stms.iter().enumerate() {
            let is_active = active[k];
            let Exp::Loop {
                params: inner,
                form: LoopForm::For { bound, .. },
                ..
            } = &st.exp
            else {
                continue;
            };
            if !is_active
                || st.aux.attrs.iter().any(|a| a.starts_with("stripmine"))
                || self.touches_virtual(st)
                || self.carries_acc(inner)
                || resizes(inner, &self.e.names)
            {
                continue;
            }
            let bound = match bound {
                SubExp::Var(b) if inside.contains(b) => {
                    // Computed in the body from values bound outside it: computed again
                    // here.
                    let Some(defs) = invariant_definition(&body.stms[..k], *b, inside) else {
                        continue;
                    };
                    let (stms, res) = self.rename(&defs, &[*bound], HashMap::new());
                    for st in stms {
                        self.e.add_stm(st);
                    }
                    res[0]
                }
                b => *b,
            };
            out.push((k, self.iteration_count(&bound)));
        }
        out
    }

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

    /// The forward sweep of a `for` loop with checkpoints. `given_n`: its iteration count,
    /// already computed by an enclosing loop's forward sweep that keeps this loop's
    /// checkpoints ([`Nested`]); such a loop nests no further. `slot`: the enclosing loop's
    /// stacks, where the saves go instead of into arrays of this loop's own.
    fn checkpoint_loop(
        &mut self,
        s: &Stm,
        given_n: Option<SubExp>,
        mut slot: Option<Slot>,
    ) -> R<Saved> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("fwd_loop of a non-loop"));
        };
        let LoopForm::For { i, bound } = form else {
            return Err(limitation(s.aux.span, "reverse-mode AD of while loops"));
        };
        if self.carries_acc(params) {
            return Err(limitation(
                s.aux.span,
                "reverse-mode AD of a loop that carries accumulators",
            ));
        }
        let resizing = resizes(params, &self.e.names);
        let bt = self.e.ty(bound).elem();
        let n = match given_n {
            Some(n) => n,
            None => self.iteration_count(bound),
        };
        let chains = if resizing {
            vec![None; params.len()]
        } else {
            update_chains(params, body, &self.e.names)
        };
        // Where each iteration's arrays go in the flat checkpoint buffers, for a loop whose
        // arrays change size.
        let flat_layout = if resizing {
            Some(self.flat_layout(s, n)?)
        } else {
            None
        };
        // Arrays whose initial values the return sweep reads (see `Save::Initial`). Unless an
        // enclosing loop's return sweep computes the initial value again before this loop's
        // (a `Nested` loop, `given_n`), the forward sweep updates a copy of it.
        let initial: Vec<bool> = params
            .iter()
            .zip(&chains)
            .enumerate()
            .map(|(j, ((p, init), chain))| {
                bt == PrimType::I64
                    && matches!(init, SubExp::Var(_))
                    && chain
                        .as_ref()
                        .is_some_and(|chain| write_once(*i, *p, j, chain, body))
            })
            .collect();
        // Loop parameters holding the saved values: a scratch array `[n]t` each.
        let mut new_params = params.clone();
        if given_n.is_none() {
            for ((_, init), keep) in new_params.iter_mut().zip(&initial) {
                if let (true, SubExp::Var(x)) = (keep, *init) {
                    *init = SubExp::Var(self.e.basic(BasicOp::Copy(x), "init"));
                }
            }
        }
        let mut save_params: Vec<Var> = Vec::new();
        // A buffer of `shape` (`[n]` and then `t`'s dimensions where `shape` is `None`).
        let slot_at = slot.as_ref().map(|sl| sl.at);
        let mut fresh_save = |v: &mut Self, t: &Type, hint: &str, shape: Option<SubExp>| -> Var {
            if let Some(outer) = slot.as_mut().and_then(|sl| sl.stacks.pop_front()) {
                let st = v.e.names.ty(outer).clone();
                let cp = v.e.fresh(hint, st);
                new_params.push((cp, SubExp::Var(outer)));
                save_params.push(cp);
                return cp;
            }
            let shape = match shape {
                Some(total) => vec![total],
                None => {
                    let mut shape = vec![n];
                    shape.extend_from_slice(t.dims());
                    shape
                }
            };
            let scratch = v.e.basic(
                BasicOp::Scratch {
                    elem: t.elem(),
                    shape,
                },
                hint,
            );
            let st = v.e.names.ty(scratch).clone();
            let cp = v.e.fresh(hint, st);
            new_params.push((cp, SubExp::Var(scratch)));
            save_params.push(cp);
            cp
        };
        // Per parameter: Full(save param) or the per-update (index saves, old-value save).
        let mut full: Vec<Option<Var>> = Vec::new();
        // Update statement position -> (index save params, old-value save param).
        let mut at_update: HashMap<usize, (Vec<Var>, Var)> = HashMap::new();
        let mut layout: Vec<Option<Vec<usize>>> = Vec::new();
        // Per parameter saved flat: its buffer loop parameter and where it goes there.
        let mut flat: Vec<Option<(Var, FlatSlot)>> = vec![None; params.len()];
        for (j, ((p, _), chain)) in params.iter().zip(&chains).enumerate() {
            if let Some(fl) = &flat_layout
                && let Some(slot) = fl[j]
            {
                let t = self.e.names.ty(*p).clone();
                let bp = fresh_save(self, &t, "checkpoints", Some(slot.total));
                flat[j] = Some((bp, slot));
                full.push(None);
                layout.push(None);
                continue;
            }
            if initial[j] {
                full.push(None);
                layout.push(None);
                continue;
            }
            match chain {
                None => {
                    let t = self.e.names.ty(*p).clone();
                    full.push(Some(fresh_save(self, &t, "checkpoints", None)));
                    layout.push(None);
                }
                Some(chain) => {
                    full.push(None);
                    for k in chain {
                        let Exp::BasicOp(BasicOp::Update { array, slice, .. }) = &body.stms[*k].exp
                        else {
                            continue;
                        };
                        let idx: Vec<Var> = slice
                            .iter()
                            .map(|_| {
                                fresh_save(self, &Type::Prim(PrimType::I64), "written_at", None)
                            })
                            .collect();
                        let at = self.e.names.ty(*array).clone();
                        let old_t = Type::array(at.elem(), at.dims()[slice.len()..].to_vec());
                        let old = fresh_save(self, &old_t, "overwritten", None);
                        at_update.insert(*k, (idx, old));
                    }
                    layout.push(Some(chain.clone()));
                }
            }
        }
        // What the loop binds: its parameters, its counter and the body's variables.
        let mut inside: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
        inside.insert(*i);
        let mut binders = Vec::new();
        body_binders(body, &mut binders);
        inside.extend(binders);
        // Inner loops whose checkpoints are kept per iteration (see `Nested`): per inner loop,
        // its iteration count, the (value, stack) pairs of its results and the stacks for what
        // it saves; its forward sweep is emitted at its place in the body and writes into
        // those stacks.
        let mut inner_sweeps: HashMap<usize, InnerSweep> = HashMap::new();
        let mut inner_saved: Vec<(usize, usize, Saved, Vec<Var>)> = Vec::new();
        if given_n.is_none() && !resizing && !s.aux.attrs.iter().any(|a| a.starts_with("stripmine"))
        {
            for (k, n_inner) in self.nestable_loops(params, body, &inside) {
                let st = &body.stms[k];
                // A first sweep for the layout of what it saves; the one emitted writes into
                // the stacks made for that layout (`Slot`).
                let (_, saved) = self.nested(|v| v.checkpoint_loop(st, Some(n_inner), None))?;
                let stacked: Vec<Var> = st.pat.iter().copied().chain(saved.vars()).collect();
                let invariant = stacked.iter().all(|x| {
                    self.e.names.ty(*x).dims().iter().all(|d| match d {
                        SubExp::Var(v) => !inside.contains(v),
                        SubExp::Const(_) => true,
                    })
                });
                if !invariant {
                    continue;
                }
                let mut pairs = Vec::new();
                for x in &stacked {
                    let t = self.e.names.ty(*x).clone();
                    let h = format!("{}_stack", self.e.names.hint(*x));
                    pairs.push((*x, fresh_save(self, &t, &h, None)));
                }
                let stacks = pairs.iter().map(|(_, stack)| *stack).collect();
                let saves = pairs.split_off(st.pat.len());
                let saves = saves.into_iter().map(|(_, stack)| stack).collect();
                inner_sweeps.insert(k, (n_inner, pairs, saves));
                inner_saved.push((k, st.pat.len(), saved, stacks));
            }
        }
        // Values kept per iteration (see `Kept`): a stack per kept statement (per kept
        // statement of its lambda, for a `map`). A `#[stripmine]` loop asks for less memory
        // and keeps computing them again.
        let mut kept_at: HashMap<usize, (Vec<usize>, Vec<Var>)> = HashMap::new();
        if !resizing && !s.aux.attrs.iter().any(|a| a.starts_with("stripmine")) {
            for (k, in_lambda) in self.keepable(params, body, &inside) {
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
                    .map(|t| fresh_save(self, t, "kept", None))
                    .collect();
                kept_at.insert(k, (in_lambda, stacks));
            }
        }
        let (stms, result) = self.nested(|v| {
            let i64i = if bt == PrimType::I64 {
                SubExp::Var(*i)
            } else {
                v.e.prim(PrimOp::Conv(bt, PrimType::I64), vec![SubExp::Var(*i)])
            };
            let mut cur: HashMap<Var, Var> = HashMap::new();
            let mut at: Vec<DimIndex> = slot_at.into_iter().map(DimIndex::Fix).collect();
            at.push(DimIndex::Fix(i64i));
            let save = |v: &mut Self, cur: &mut HashMap<Var, Var>, sp: Var, value: SubExp| {
                let a = cur.get(&sp).copied().unwrap_or(sp);
                let u = v.e.basic(
                    BasicOp::Update {
                        array: a,
                        slice: at.clone(),
                        value,
                    },
                    v.e.names.hint(sp).to_string().as_str(),
                );
                cur.insert(sp, u);
            };
            for ((p, _), f) in params.iter().zip(&full) {
                if let Some(cp) = f {
                    save(v, &mut cur, *cp, SubExp::Var(*p));
                }
            }
            for ((p, _), fl) in params.iter().zip(&flat) {
                if let Some((bp, slot)) = fl {
                    let buf = cur.get(bp).copied().unwrap_or(*bp);
                    let u = v.save_flat(buf, *p, slot, i64i);
                    cur.insert(*bp, u);
                }
            }
            for (k, st) in body.stms.iter().enumerate() {
                if let Some((n_inner, pairs, saves)) = inner_sweeps.remove(&k) {
                    let slot = Slot {
                        at: i64i,
                        stacks: saves
                            .iter()
                            .map(|x| cur.get(x).copied().unwrap_or(*x))
                            .collect(),
                    };
                    let saved = v.checkpoint_loop(st, Some(n_inner), Some(slot))?;
                    let written = saved.vars();
                    if written.len() != saves.len() {
                        return Err(Diagnostic::bug("a nested loop saved another layout"));
                    }
                    for (stack, x) in saves.iter().zip(written) {
                        cur.insert(*stack, x);
                    }
                    for (x, stack) in pairs {
                        save(v, &mut cur, stack, SubExp::Var(x));
                    }
                    continue;
                }
                if let (Some((idx, old)), Exp::BasicOp(BasicOp::Update { array, slice, .. })) =
                    (at_update.get(&k), &st.exp)
                {
                    v.e.set_aux(st.aux.clone());
                    let o = v.e.index(*array, slice.clone(), "overwritten");
                    save(v, &mut cur, *old, SubExp::Var(o));
                    for (d, sp) in slice.iter().zip(idx) {
                        if let DimIndex::Fix(ix) = d {
                            save(v, &mut cur, *sp, *ix);
                        }
                    }
                }
                if let Some((in_lambda, stacks)) = kept_at.get(&k) {
                    v.e.set_aux(st.aux.clone());
                    let values = v.keep_values(st, in_lambda);
                    for (stack, x) in stacks.iter().zip(values) {
                        save(v, &mut cur, *stack, SubExp::Var(x));
                    }
                    continue;
                }
                v.push_primal(st)?;
            }
            let mut result = body.result.clone();
            for sp in &save_params {
                result.push(SubExp::Var(cur.get(sp).copied().unwrap_or(*sp)));
            }
            Ok(result)
        })?;
        let mut pat = s.pat.clone();
        let mut outs: HashMap<Var, Var> = HashMap::new();
        for sp in &save_params {
            let t = self.e.names.ty(*sp).clone();
            let h = self.e.names.hint(*sp).to_string();
            let v = self.e.fresh(&h, t);
            pat.push(v);
            outs.insert(*sp, v);
        }
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Loop {
                params: new_params,
                form: form.clone(),
                body: Body { stms, result },
            },
            aux: s.aux.clone(),
        });
        let saves = full
            .iter()
            .zip(&layout)
            .zip(&flat)
            .zip(&initial)
            .map(|(((f, chain), fl), keep)| match (f, chain, fl) {
                _ if *keep => Save::Initial,
                (_, _, Some((bp, slot))) => Save::Flat {
                    buf: outs[bp],
                    offsets: slot.offsets,
                },
                (Some(cp), _, _) => Save::Full(outs[cp]),
                (None, Some(chain), _) => Save::InPlace(
                    chain
                        .iter()
                        .filter_map(|k| at_update.get(k))
                        .map(|(idx, old)| Overwrite {
                            indices: idx.iter().map(|x| outs[x]).collect(),
                            old: outs[old],
                        })
                        .collect(),
                ),
                (None, None, _) => Save::InPlace(Vec::new()),
            })
            .collect();
        let nested = inner_saved
            .into_iter()
            .map(|(pos, nres, saved, stacks)| {
                let mut stacked = stacks.iter().map(|x| outs[x]);
                let results = stacked.by_ref().take(nres).collect();
                Nested {
                    pos,
                    results,
                    saved: saved.with_vars(&mut stacked),
                }
            })
            .collect();
        let mut kept: Vec<Kept> = kept_at
            .into_iter()
            .map(|(pos, (in_lambda, stacks))| Kept {
                pos,
                in_lambda,
                stacks: stacks.iter().map(|x| outs[x]).collect(),
            })
            .collect();
        kept.sort_by_key(|k| k.pos);
        Ok(Saved {
            n,
            saves,
            nested,
            kept,
        })
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
    fn keep_values(&mut self, st: &Stm, in_lambda: &[usize]) -> Vec<Var> {
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

    /// Writes back the values that iteration `i`'s in-place updates overwrote, last update
    /// first: turns the array after iteration `i` into the array before it.
    fn restore(&mut self, arr: Var, writes: &[Overwrite], i: SubExp) -> Var {
        let mut cur = arr;
        for w in writes.iter().rev() {
            let at = vec![DimIndex::Fix(i)];
            let slice = w
                .indices
                .iter()
                .map(|x| DimIndex::Fix(SubExp::Var(self.e.index(*x, at.clone(), "written_at"))))
                .collect();
            let old = self.e.index(w.old, at.clone(), "overwritten");
            cur = self.e.basic(
                BasicOp::Update {
                    array: cur,
                    slice,
                    value: SubExp::Var(old),
                },
                "restored",
            );
        }
        cur
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

    pub(super) fn rev_loop(
        &mut self,
        s: &Stm,
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("rev_loop of a non-loop"));
        };
        let extra = match extra {
            Extra::RevComp(saved) => return self.rc_rev_loop(s, saved, ybars),
            other => other,
        };
        let (LoopForm::For { i, bound }, Extra::Loop(saved)) = (form, extra) else {
            return Err(limitation(s.aux.span, "reverse-mode AD of while loops"));
        };
        let bt = self.e.ty(bound).elem();
        let pvars: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        let threaded = self.loop_threaded(&pvars, *i, body);
        // Loop parameters of the return sweep: the sizes of arrays that change size (their
        // adjoints change size with them), adjoints of the loop parameters, of the free
        // variables, then the in-place arrays being restored (starting from a copy of the
        // loop's result).
        let sizes: Vec<usize> = size_params(params, &self.e.names);
        let mut rparams = Vec::new();
        let mut size_subst: HashMap<Var, Var> = HashMap::new();
        for j in &sizes {
            let p = params[*j].0;
            let h = self.e.names.hint(p).to_string();
            let sp = self.e.fresh(&h, Type::Prim(PrimType::I64));
            size_subst.insert(p, sp);
            rparams.push((sp, SubExp::Var(s.pat[*j])));
        }
        let z = sizes.len();
        for (((p, _), yb), result) in params.iter().zip(ybars).zip(&s.pat) {
            let mut t = self.e.names.ty(*p).clone();
            map_vars_type(&mut t, &mut |v| size_subst.get(&v).copied().unwrap_or(v));
            let init = match yb {
                Some((se, owned)) if t.rank() > 0 => {
                    let a = self.owned_adj(*result, Some(Adj::Val(*se, *owned)))?;
                    SubExp::Var(a)
                }
                Some((se, _)) => *se,
                // The adjoint of the loop's result, whose sizes are the final ones.
                None => {
                    let rt = self.e.names.ty(*result).clone();
                    self.zero(&rt)
                }
            };
            let h = format!("{}_adj", self.e.names.hint(*p));
            rparams.push((self.e.fresh(&h, t), init));
        }
        let (tparams, thread_kinds) = self.threaded_loop_params(&threaded)?;
        rparams.extend(tparams);
        let k = params.len();
        let nt = threaded.len();
        let mut inplace = Vec::new();
        for (j, ((p, _), save)) in params.iter().zip(&saved.saves).enumerate() {
            if let Save::InPlace(_) = save {
                let fin = self.e.basic(BasicOp::Copy(s.pat[j]), "final");
                let t = self.e.names.ty(*p).clone();
                let h = self.e.names.hint(*p).to_string();
                rparams.push((self.e.fresh(&h, t), SubExp::Var(fin)));
                inplace.push(j);
            }
        }
        let ii = self.e.fresh("i_rev", Type::Prim(PrimType::I64));
        let (stms, result) = self.nested(|v| {
            let last = v.e.i64_bin(BinOp::Sub, saved.n, SubExp::i64(1));
            let i64i = v.e.i64_bin(BinOp::Sub, last, SubExp::Var(ii));
            let iv = if bt == PrimType::I64 {
                match i64i {
                    SubExp::Var(x) => x,
                    c => v.e.basic(BasicOp::SubExp(c), "i"),
                }
            } else {
                let c = v.e.prim(PrimOp::Conv(PrimType::I64, bt), vec![i64i]);
                v.e.basic(BasicOp::SubExp(c), "i")
            };
            let mut subst = HashMap::new();
            subst.insert(*i, iv);
            let mut pvars = vec![*i; k];
            let mut consumable = Vec::new();
            // The scalars (among them the sizes of iteration i) first, then the arrays saved
            // flat, whose types name those sizes.
            let is_flat = |j: &usize| matches!(saved.saves[*j], Save::Flat { .. });
            let order: Vec<usize> = (0..k)
                .filter(|j| !is_flat(j))
                .chain((0..k).filter(is_flat))
                .collect();
            for j in order {
                let p = &params[j].0;
                let pv = match &saved.saves[j] {
                    Save::Full(ck) => v.e.index(
                        *ck,
                        vec![DimIndex::Fix(i64i)],
                        v.e.names.hint(*p).to_string().as_str(),
                    ),
                    Save::Initial => {
                        let SubExp::Var(init) = params[j].1 else {
                            return Err(Diagnostic::bug("initial array that is a constant"));
                        };
                        let h = v.e.names.hint(*p).to_string();
                        v.e.basic(BasicOp::SubExp(SubExp::Var(init)), &h)
                    }
                    Save::InPlace(writes) => {
                        let slot = inplace.iter().position(|x| *x == j).unwrap_or(0);
                        let cur = rparams[z + k + nt + slot].0;
                        let r = v.restore(cur, writes, i64i);
                        consumable.push(r);
                        r
                    }
                    Save::Flat { buf, offsets } => {
                        // Iteration i's sizes were restored before (see `order`).
                        let mut t = v.e.names.ty(*p).clone();
                        map_vars_type(&mut t, &mut |x| subst.get(&x).copied().unwrap_or(x));
                        v.read_flat(*buf, *offsets, &t, i64i)
                    }
                };
                v.active.insert(pv);
                subst.insert(*p, pv);
                pvars[j] = pv;
            }
            let saved_adjs = std::mem::take(&mut v.adjs);
            let tvars: Vec<Var> = rparams[z + k..z + k + nt]
                .iter()
                .map(|(rp, _)| *rp)
                .collect();
            v.set_threaded_adjs(&threaded, &thread_kinds, &tvars);
            let res_adjs: Vec<Option<(SubExp, bool)>> = rparams[z..z + k]
                .iter()
                .map(|(rp, _)| Some((SubExp::Var(*rp), true)))
                .collect();
            for nest in &saved.nested {
                let at = vec![DimIndex::Fix(i64i)];
                let vars: Vec<Var> = nest
                    .saved
                    .vars()
                    .iter()
                    .map(|x| {
                        let h = v.e.names.hint(*x).to_string();
                        v.e.index(*x, at.clone(), &h)
                    })
                    .collect();
                let preset = Preset::Loop {
                    stacks: nest.results.clone(),
                    at: i64i,
                    extra: Extra::Loop(nest.saved.with_vars(&mut vars.into_iter())),
                };
                v.preset.insert(nest.pos, preset);
            }
            for kept in &saved.kept {
                let at = vec![DimIndex::Fix(i64i)];
                let rows: Vec<Var> = kept
                    .stacks
                    .iter()
                    .map(|x| v.e.index(*x, at.clone(), "kept"))
                    .collect();
                let preset = if kept.in_lambda.is_empty() {
                    Preset::Value(rows[0])
                } else {
                    Preset::Map(kept.in_lambda.iter().copied().zip(rows).collect())
                };
                v.preset.insert(kept.pos, preset);
            }
            let saved_consumable =
                std::mem::replace(&mut v.consumable, consumable.iter().copied().collect());
            let res = v.rev_reexec_with(
                &body.stms,
                &body.result,
                &res_adjs,
                subst,
                !sizes.is_empty(),
            );
            v.consumable = saved_consumable;
            let res = res?;
            // The sizes at the start of iteration i, which the adjoints now have.
            let mut out: Vec<SubExp> = sizes.iter().map(|j| SubExp::Var(pvars[*j])).collect();
            for pv in &pvars {
                out.push(v.adj_out(*pv)?);
            }
            for x in &threaded {
                out.push(v.adj_out(*x)?);
            }
            v.adjs = saved_adjs;
            // The re-executed iteration rebuilt the array after iteration i: restore it again.
            for j in &inplace {
                let Save::InPlace(writes) = &saved.saves[*j] else {
                    continue;
                };
                let SubExp::Var(end) = res[*j] else {
                    return Err(Diagnostic::bug("in-place loop result that is a constant"));
                };
                out.push(SubExp::Var(v.restore(end, writes, i64i)));
            }
            Ok(out)
        })?;
        // The result's types refer to its own sizes, not to the loop's parameters.
        let mut pat_subst: HashMap<Var, Var> = HashMap::new();
        let mut pat = Vec::with_capacity(rparams.len());
        for (rp, _) in &rparams {
            let mut t = self.e.names.ty(*rp).clone();
            map_vars_type(&mut t, &mut |v| pat_subst.get(&v).copied().unwrap_or(v));
            let h = self.e.names.hint(*rp).to_string();
            let o = self.e.fresh(&h, t);
            if pat.len() < z {
                pat_subst.insert(*rp, o);
            }
            pat.push(o);
        }
        self.e.push(
            pat.clone(),
            Exp::Loop {
                params: rparams,
                form: LoopForm::For {
                    i: ii,
                    bound: saved.n,
                },
                body: Body { stms, result },
            },
        );
        let out = &pat[z..];
        self.set_threaded_adjs(&threaded, &thread_kinds, &out[k..k + nt]);
        for ((_, init), a) in params.iter().zip(&out[..k]) {
            // The adjoints have the sizes the return sweep restored, the initial ones.
            let a = match init {
                SubExp::Var(x) if z > 0 => self.coerce_to(SubExp::Var(*a), *x),
                _ => SubExp::Var(*a),
            };
            self.add_adj_se(init, a, true)?;
        }
        Ok(())
    }
}
