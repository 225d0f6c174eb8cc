//! Sharded entry points: run an entry point on several processes, each holding a block of the
//! rows of some parameters, and combine their results (docs/mpi.md).
//!
//! [`derive`] takes an optimised program, an entry point and the names of parameters split
//! along their outer dimension. It proves, from the core IR, how each result of the entry
//! point combines across processes — a sum, a maximum or minimum, a concatenation in rank
//! order, or the same value everywhere ([`Combine`]) — and gives the per-process entry point: the same function with
//! two more parameters, the process's rank and the global index of its first row, in which
//! every replicated term of a sum is counted on rank 0 only. It refuses, with the span of the
//! statement, an entry point with a result that is none of these. [`combine`] splits and
//! combines values, with no transport: the MPI runtime of `gradus run --shard` and the
//! in-process tests use it alike.

mod analyse;
pub mod combine;
mod extrema;
#[cfg(feature = "mpi")]
mod gather;
mod kind;
#[cfg(feature = "mpi")]
pub mod mpi;
mod rows;

use crate::core::external::ExternalType;
use crate::core::ir::*;
use crate::core::prim::{CmpOp, PrimOp};
use crate::core::scalar::PrimType;
use crate::diag::Diagnostic;
use kind::Kind;
use std::collections::HashMap;

/// How the processes' values of one result make the unsharded result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Their sum (elementwise for arrays).
    Sum,
    /// Their concatenation along the outer dimension, in rank order.
    Concat,
    /// Every process has the unsharded value.
    Replicated,
    /// Their maximum (a reduction over the rows by `max`).
    Max,
    /// Their minimum (a reduction over the rows by `min`).
    Min,
}

/// A sharded entry point.
#[derive(Clone, Debug)]
pub struct ShardPlan {
    /// The entry point's name.
    pub entry: String,
    /// Positions of the sharded parameters among the entry point's parameters.
    pub sharded: Vec<usize>,
    /// Per result of the entry point (as [`crate::program::Program::call`] returns them).
    pub combine: Vec<Combine>,
    /// The program, in which the entry point is the per-process one: it takes the original
    /// parameters (the sharded ones holding this process's rows), then the process's rank and
    /// the global index of its first row (both `i64`).
    pub prog: Prog,
}

/// Derives the per-process version of `entry` with parameters `shard` split by rows.
pub fn derive(prog: &Prog, entry: &str, shard: &[String]) -> Result<ShardPlan, Diagnostic> {
    let fun = prog.entry(entry).ok_or_else(|| {
        Diagnostic::bug(format!("the program has no entry point named \"{entry}\""))
    })?;
    let info = fun.entry.as_ref().expect("an entry point");
    let (sharded, vars, count) = sharded_params(prog, fun, info, shard)?;
    let mut names = prog.names.clone();
    let rank = names.fresh("shard_rank", Type::Prim(PrimType::I64));
    let offset = names.fresh("shard_offset", Type::Prim(PrimType::I64));
    let rank0 = names.fresh("shard_rank0", Type::Prim(PrimType::Bool));
    let mut kinds = HashMap::new();
    kinds.insert(count, Kind::Part);
    for v in &vars {
        kinds.insert(*v, Kind::Rows);
    }
    let mut new_fun = fun.clone();
    let mut a = analyse::Analysis {
        names: &mut names,
        kinds,
        why: Vec::new(),
        hard: None,
        extrema: HashMap::new(),
        here: Aux::default(),
        count,
        rank0,
        offset,
    };
    let result_kinds = a.body(&mut new_fun.body);
    if let Some((aux, msg)) = a.hard.take() {
        return Err(refusal(&aux, entry, &msg));
    }
    let combine = result_combines(&a, fun, &new_fun.body.result, &result_kinds, entry)?;
    let is0 = Stm {
        pat: vec![rank0],
        exp: Exp::BasicOp(BasicOp::Prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
            vec![rank.into(), SubExp::i64(0)],
        )),
        aux: Aux::default(),
    };
    new_fun.body.stms.insert(0, is0);
    new_fun.params.extend([rank, offset]);
    let i64_ty = ExternalType::Value {
        elem: PrimType::I64,
        rank: 0,
        text: "i64".into(),
    };
    let new_info = new_fun.entry.as_mut().expect("an entry point");
    new_info.params.push((i64_ty.clone(), vec![rank]));
    new_info.params.push((i64_ty, vec![offset]));
    let mut out = Prog {
        names,
        funs: prog.funs.clone(),
    };
    for f in out.funs.iter_mut() {
        if f.entry.as_ref().is_some_and(|e| e.name == entry) {
            *f = new_fun.clone();
        }
    }
    Ok(ShardPlan {
        entry: entry.to_string(),
        sharded,
        combine,
        prog: out,
    })
}

/// How each result of `fun` combines, from the kinds of its leaves (`results`, the rewritten
/// body's results, with kinds `kinds`); the refusal of the first that combines in no way.
fn result_combines(
    a: &analyse::Analysis,
    fun: &FunDef,
    results: &[SubExp],
    kinds: &[Kind],
    entry: &str,
) -> Result<Vec<Combine>, Diagnostic> {
    let info = fun.entry.as_ref().expect("an entry point");
    let mut combine = Vec::new();
    let mut next = 0;
    for (ext, leaves) in &info.results {
        let ks = &kinds[next..next + leaves];
        let leaf_vars = &results[next..next + leaves];
        next += leaves;
        let mut c = None;
        for (k, r) in ks.iter().zip(leaf_vars) {
            let extremum = r.as_var().and_then(|v| a.extrema.get(&v));
            let this = match k {
                Kind::Mixed(_) if extremum.is_some() => *extremum.expect("an extremum"),
                Kind::Zero | Kind::Rep => Combine::Replicated,
                Kind::Part => Combine::Sum,
                Kind::Rows => Combine::Concat,
                Kind::InnerRows(_) => {
                    return Err(Diagnostic::error(
                        fun.span,
                        format!(
                            "cannot shard `{entry}`: result {} (of type {ext}) holds rows of the sharded data in an inner dimension",
                            combine.len() + 1
                        ),
                    ));
                }
                Kind::Mixed(i) => {
                    let (aux, msg) = a.why[*i as usize].clone();
                    return Err(refusal(&aux, entry, &msg).with_note(format!(
                        "result {} (of type {ext}) is neither a sum, maximum or minimum over the rows, nor a map over them, nor independent of them",
                        combine.len() + 1
                    )));
                }
            };
            if c.is_some_and(|c| c != this) {
                return Err(Diagnostic::error(
                    fun.span,
                    format!(
                        "cannot shard `{entry}`: result {} (of type {ext}) combines its parts differently",
                        combine.len() + 1
                    ),
                ));
            }
            c = Some(this);
        }
        combine.push(c.unwrap_or(Combine::Replicated));
    }
    Ok(combine)
}

/// The refusal naming the statement at `aux` (and the calls it was inlined through).
fn refusal(aux: &Aux, entry: &str, msg: &str) -> Diagnostic {
    let mut d = Diagnostic::error(
        aux.span,
        format!("cannot shard `{entry}` by rows: this statement mixes rows: {msg}"),
    )
    .with_label("mixes rows");
    for caller in &aux.callers {
        d = d.with_secondary(*caller, "called here");
    }
    d
}

/// The positions and core variables of the sharded parameters, and the size variable of
/// their outer dimension (shared by all of them, and by no other parameter).
fn sharded_params(
    prog: &Prog,
    fun: &FunDef,
    info: &EntryInfo,
    shard: &[String],
) -> Result<(Vec<usize>, Vec<Var>, Var), Diagnostic> {
    let entry = &info.name;
    let err = |m: String| Diagnostic::error(fun.span, m);
    if shard.is_empty() {
        return Err(err(format!(
            "cannot shard `{entry}`: no parameter named to shard"
        )));
    }
    let param_name = |vars: &[Var]| -> Option<String> {
        match vars {
            [v] => Some(prog.names.hint(*v).to_string()),
            _ => None,
        }
    };
    let mut positions = Vec::new();
    let mut vars = Vec::new();
    let mut count = None;
    for name in shard {
        let Some(pos) = info
            .params
            .iter()
            .position(|(_, vs)| param_name(vs).as_deref() == Some(name.as_str()))
        else {
            let known: Vec<String> = info
                .params
                .iter()
                .filter_map(|(_, vs)| param_name(vs))
                .collect();
            return Err(err(format!(
                "cannot shard `{entry}`: it has no array parameter named `{name}` (parameters: {})",
                known.join(", ")
            )));
        };
        let v = info.params[pos].1[0];
        let Some(SubExp::Var(n)) = prog.names.ty(v).dims().first().copied() else {
            return Err(err(format!(
                "cannot shard `{entry}` by `{name}`: it is not an array of a variable length"
            )));
        };
        if count.is_some_and(|c| c != n) {
            return Err(err(format!(
                "cannot shard `{entry}` by `{name}`: its outer size is not that of the other sharded parameters"
            )));
        }
        count = Some(n);
        if !positions.contains(&pos) {
            positions.push(pos);
            vars.push(v);
        }
    }
    let n = count.expect("at least one sharded parameter");
    for (ext, vs) in &info.params {
        for v in vs {
            if !vars.contains(v) && crate::core::visit::type_vars(prog.names.ty(*v)).contains(&n) {
                return Err(err(format!(
                    "cannot shard `{entry}`: parameter `{}` (of type {ext}) has the sharded length `{}` but is not sharded",
                    prog.names.hint(*v),
                    prog.names.hint(n)
                )));
            }
        }
    }
    Ok((positions, vars, n))
}
