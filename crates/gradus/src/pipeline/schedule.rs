//! The optimiser's schedule, in terms of the passes of the registry ([`super::passes`]).
//!
//! ```text
//! repeat (at most max_rounds times, until a round changes nothing):
//!     inline; acc-reduce; acc-sink; simplify (copy-prop, fold, if-simp, fusion's index-of-map,
//!     single-point, fission, loop-norm, cse); dce + tuple-elim; hoist (with map-fission);
//!     simplify; if-share; map-share;
//!     vertical fusion (map-of-replicate, map-map, map-sink); dce
//! then once: reduce-loop (and if it fired: vertical fusion; simplify; dce)
//! then once: horizontal fusion; simplify; dce
//! then once: consumer-fusion
//! ```
//!
//! Simplification runs twice per round because hoisting exposes common subexpressions
//! (the same invariant statement hoisted out of two lambdas) and fusion exposes sums over a
//! single point. Horizontal fusion runs late because a map merged with a variant one can no
//! longer be hoisted. Consumer fusion runs last: the other passes' rules look for `reduce`
//! and `scan` of a `map`, which it turns into fused SOACs. Every pass's output goes through
//! [`after_pass`] (verified when [`super::passes::verifying`]; a failure names the
//! pass).
//!
//! Takes a verified program; gives a verified program and the statistics of the rules that
//! fired. Compile time is bounded by `max_rounds` and, within the engine, by a budget of
//! rewrites per body.

use super::passes::{
    ACC_REDUCE, ACC_SINK, CONSUMER_FUSION, DCE, FUSION, HOIST, IF_SHARE, INLINE, MAP_SHARE, Pass,
    REDUCE_LOOP, Run, after_pass,
};
use crate::core::ir::Prog;
use crate::opt::{Ctx, OptOptions, Stats};

/// Runs one optimiser pass of the registry, then [`after_pass`].
fn step(prog: &mut Prog, ctx: &mut Ctx, pass: &Pass) -> Result<(), String> {
    if let Run::Opt(run) = pass.run {
        run(prog, ctx);
    }
    after_pass(prog, pass.name)
}

/// Optimises `prog` under `opts`; returns it with the statistics of the rules that fired.
pub fn optimise(mut prog: Prog, opts: &OptOptions) -> Result<(Prog, Stats), String> {
    let mut ctx = Ctx::new(opts);
    if !opts.enabled {
        return Ok((prog, ctx.stats));
    }
    // Simplification runs when the pass or any group of its rules is enabled.
    let simplify = super::passes::PASSES
        .iter()
        .filter(|p| matches!(p.run, Run::RulesIn("simplify")) || p.name == "fusion")
        .any(|p| ctx.on(p.name))
        && ctx.on(super::passes::SIMPLIFY.name);
    let simplify = |prog: &mut Prog, ctx: &mut Ctx| -> Result<(), String> {
        if simplify {
            step(prog, ctx, &super::passes::SIMPLIFY)?;
        }
        Ok(())
    };
    let mut rounds = 0;
    while rounds < opts.max_rounds {
        rounds += 1;
        let before = ctx.changes();
        step(&mut prog, &mut ctx, &INLINE)?;
        step(&mut prog, &mut ctx, &ACC_REDUCE)?;
        step(&mut prog, &mut ctx, &ACC_SINK)?;
        simplify(&mut prog, &mut ctx)?;
        step(&mut prog, &mut ctx, &DCE)?;
        step(&mut prog, &mut ctx, &HOIST)?;
        simplify(&mut prog, &mut ctx)?;
        step(&mut prog, &mut ctx, &IF_SHARE)?;
        step(&mut prog, &mut ctx, &MAP_SHARE)?;
        step(&mut prog, &mut ctx, &FUSION)?;
        step(&mut prog, &mut ctx, &DCE)?;
        if ctx.changes() == before {
            break;
        }
    }
    // Sums of rows inside lambdas become loops, and the maps making the rows fuse into the
    // loops' additions.
    let before = ctx.changes();
    step(&mut prog, &mut ctx, &REDUCE_LOOP)?;
    if ctx.changes() != before {
        step(&mut prog, &mut ctx, &FUSION)?;
        simplify(&mut prog, &mut ctx)?;
        step(&mut prog, &mut ctx, &DCE)?;
    }
    let before = ctx.changes();
    // Horizontal fusion: the same pass, once, after the fixed point.
    crate::opt::fusion::run(&mut prog, &mut ctx, true);
    after_pass(&prog, FUSION.name)?;
    if ctx.changes() != before {
        simplify(&mut prog, &mut ctx)?;
        step(&mut prog, &mut ctx, &DCE)?;
    }
    step(&mut prog, &mut ctx, &CONSUMER_FUSION)?;
    ctx.stats.rounds = rounds;
    Ok((prog, ctx.stats))
}
