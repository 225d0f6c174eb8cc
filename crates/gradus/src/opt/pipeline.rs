//! The optimiser's schedule.
//!
//! ```text
//! repeat (at most max_rounds times, until a round changes nothing):
//!     inline; acc-reduce; simplify (copy-prop, fold, if-simp, fusion's index-of-map,
//!     single-point, fission, loop-norm, cse); dce + tuple-elim; hoist (with map-fission);
//!     simplify;
//!     vertical fusion (map-of-replicate, map-map, map-sink); dce
//! then once: horizontal fusion; simplify; dce
//! then once: consumer-fusion
//! ```
//!
//! Simplification runs twice per round because hoisting exposes common subexpressions
//! (the same invariant statement hoisted out of two lambdas) and fusion exposes sums over a
//! single point. Horizontal fusion runs late because a map merged with a variant one can no
//! longer be hoisted. Consumer fusion runs last: the other passes' rules look for `reduce`
//! and `scan` of a `map`, which it turns into fused SOACs. Every pass's output is checked by the core IR verifier in debug builds
//! (or with `GRADUS_VERIFY` set); a failure names the pass.
//!
//! Takes a verified program; gives a verified program and the statistics of the rules that
//! fired. Compile time is bounded by `max_rounds` and, within the engine, by a budget of
//! rewrites per body.

use super::{Ctx, OptOptions, Stats};
use crate::core::ir::Prog;

fn check(prog: &Prog, pass: &str) -> Result<(), String> {
    if std::env::var_os("GRADUS_OPT_TRACE").is_some() {
        eprintln!("-- after {pass}:\n{}", crate::core::print::print_prog(prog));
    }
    if cfg!(debug_assertions) || std::env::var_os("GRADUS_VERIFY").is_some() {
        crate::core::verify::verify(prog).map_err(|e| {
            format!(
                "core IR verification failed after optimiser pass `{pass}`: {e}\n{}",
                crate::core::print::print_prog(prog)
            )
        })?;
    }
    Ok(())
}

/// Optimises `prog` under `opts`.
pub fn optimise(mut prog: Prog, opts: &OptOptions) -> Result<(Prog, Stats), String> {
    let mut ctx = Ctx::new(opts);
    if !opts.enabled {
        return Ok((prog, ctx.stats));
    }
    let simplify_on = [
        "copy-prop",
        "fold",
        "if-simp",
        "fusion",
        "single-point",
        "fission",
        "loop-norm",
        "cse",
    ]
    .iter()
    .any(|p| ctx.on(p));
    let mut rounds = 0;
    while rounds < opts.max_rounds {
        rounds += 1;
        let before = ctx.changes();
        super::inline::run(&mut prog, &mut ctx);
        check(&prog, "inline")?;
        super::accred::run(&mut prog, &mut ctx);
        check(&prog, "acc-reduce")?;
        if simplify_on {
            super::simplify::run(&mut prog, &mut ctx);
            check(&prog, "simplify")?;
        }
        super::dce::run(&mut prog, &mut ctx);
        check(&prog, "dce")?;
        super::hoist::run(&mut prog, &mut ctx);
        check(&prog, "hoist")?;
        if simplify_on {
            super::simplify::run(&mut prog, &mut ctx);
            check(&prog, "simplify")?;
        }
        super::fusion::run(&mut prog, &mut ctx, false);
        check(&prog, "fusion")?;
        super::dce::run(&mut prog, &mut ctx);
        check(&prog, "dce")?;
        if ctx.changes() == before {
            break;
        }
    }
    let before = ctx.changes();
    super::fusion::run(&mut prog, &mut ctx, true);
    check(&prog, "fusion")?;
    if ctx.changes() != before {
        if simplify_on {
            super::simplify::run(&mut prog, &mut ctx);
            check(&prog, "simplify")?;
        }
        super::dce::run(&mut prog, &mut ctx);
        check(&prog, "dce")?;
    }
    super::consumer::run(&mut prog, &mut ctx);
    check(&prog, "consumer-fusion")?;
    ctx.stats.rounds = rounds;
    Ok((prog, ctx.stats))
}
