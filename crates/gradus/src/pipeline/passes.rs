//! The registry of the compiler's passes: every pass over core IR has one entry here, with
//! its name, what it does, the phase it belongs to and how it runs. The list feeds the
//! optimiser's schedule ([`super::schedule`]), the `--disable-pass` option of the command
//! line and its help, and `gradus dev --list-passes`; [`after_pass`] is the one place that
//! verifies and traces the IR after any pass.

use crate::core::ir::Prog;
use crate::diag::Diagnostic;
use crate::opt::{Ctx, OptOptions};

/// Where a pass runs in the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Typed AST to core IR.
    Internalise,
    /// Expansion of the AD operators.
    Ad,
    /// The optimiser: core IR to faster core IR; every pass can be disabled.
    Optimiser,
    /// Core-to-core rewrites the native backend needs before lowering.
    PreLowering,
}

impl Phase {
    /// The phase's name in listings.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Internalise => "internalise",
            Phase::Ad => "ad",
            Phase::Optimiser => "opt",
            Phase::PreLowering => "pre-lowering",
        }
    }
}

/// How a pass runs.
#[derive(Clone, Copy)]
pub enum Run {
    /// Internalisation: it makes core IR from the typed AST rather than rewriting core IR
    /// (called by [`super::compile`]).
    Internalise,
    /// A rewrite of the whole program that may fail with a diagnostic.
    Core(fn(&mut Prog) -> Result<(), Diagnostic>),
    /// An optimiser pass.
    Opt(fn(&mut Prog, &mut Ctx)),
    /// A rewrite of the whole program that cannot fail.
    Rewrite(fn(&mut Prog)),
    /// A group of rewrite rules that run inside the named optimiser pass; disabling it
    /// disables those rules.
    RulesIn(&'static str),
}

/// One pass of the compiler.
#[derive(Clone, Copy)]
pub struct Pass {
    /// The name in `--disable-pass`, traces and verifier errors.
    pub name: &'static str,
    /// What it does, in one line.
    pub description: &'static str,
    /// Where it runs.
    pub phase: Phase,
    /// How it runs.
    pub run: Run,
}

macro_rules! passes {
    ($($id:ident: $name:literal, $phase:ident, $run:expr, $desc:literal;)*) => {
        $(
            #[doc = concat!("`", $name, "`: ", $desc)]
            pub const $id: Pass = Pass { name: $name, description: $desc, phase: Phase::$phase, run: $run };
        )*
        /// Every pass, in pipeline order.
        pub const PASSES: &[Pass] = &[$($id),*];
    };
}

fn fusion_vertical(prog: &mut Prog, ctx: &mut Ctx) {
    crate::opt::fusion::run(prog, ctx, false)
}

passes! {
    INTERNALISE: "internalise", Internalise, Run::Internalise,
        "typed AST to core IR: inlining, monomorphisation, defunctionalisation, tuples of arrays";
    AD: "ad", Ad, Run::Core(crate::ad::run),
        "jvp and vjp statements expanded into derivative code, innermost first";
    INLINE: "inline", Optimiser, Run::Opt(crate::opt::inline::run),
        "inlining of function calls";
    ACC_REDUCE: "acc-reduce", Optimiser, Run::Opt(crate::opt::acc_reduce::run),
        "accumulator updates of whole arrays in maps become reductions";
    ACC_SINK: "acc-sink", Optimiser, Run::Opt(crate::opt::accsink::run),
        "rows a map returns only to add them into an accumulator are added inside the map, and arrays accumulated from zeros only to be added into another accumulator are accumulated there";
    REDUCE_LOOP: "reduce-loop", Optimiser, Run::Opt(crate::opt::reduceloop::run),
        "inside a lambda, reductions of the array rows a map makes become one loop adding each row as it is made";
    SIMPLIFY: "simplify", Optimiser, Run::Opt(crate::opt::simplify::run),
        "the local rewrite rules below, to a fixed point per body";
    COPY_PROP: "copy-prop", Optimiser, Run::RulesIn("simplify"),
        "copy propagation";
    FOLD: "fold", Optimiser, Run::RulesIn("simplify"),
        "constant folding and ring-law simplification";
    IF_SIMP: "if-simp", Optimiser, Run::RulesIn("simplify"),
        "if simplification";
    SINGLE_POINT: "single-point", Optimiser, Run::RulesIn("simplify"),
        "sums that are zero but at one index become that term";
    FISSION: "fission", Optimiser, Run::RulesIn("simplify"),
        "reduction fission";
    LOOP_NORM: "loop-norm", Optimiser, Run::RulesIn("simplify"),
        "loop normalisation and unrolling";
    SCALARISE: "scalarise", Optimiser, Run::RulesIn("simplify"),
        "small arrays of known size become scalars: maps unrolled, literals read directly";
    CSE: "cse", Optimiser, Run::RulesIn("simplify"),
        "common-subexpression elimination";
    DCE: "dce", Optimiser, Run::Opt(crate::opt::dce::run),
        "dead-code elimination";
    TUPLE_ELIM: "tuple-elim", Optimiser, Run::RulesIn("dce"),
        "removal of unused results of SOACs, ifs and loops";
    HOIST: "hoist", Optimiser, Run::Opt(crate::opt::hoist::run),
        "loop- and lambda-invariant code motion";
    MAP_FISSION: "map-fission", Optimiser, Run::RulesIn("hoist"),
        "maps, redomaps, loops and ifs split so that their invariant part can be hoisted";
    IF_SHARE: "if-share", Optimiser, Run::Opt(crate::opt::ifshare::run),
        "an if hands operations to a later if on the same condition that recomputes them";
    MAP_SHARE: "map-share", Optimiser, Run::Opt(crate::opt::mapshare::run),
        "a map hands loops and reductions per row to a later map over the same rows that recomputes them";
    FUSION: "fusion", Optimiser, Run::Opt(fusion_vertical),
        "SOAC fusion (vertical in the fixed point, horizontal once after it)";
    CONSUMER_FUSION: "consumer-fusion", Optimiser, Run::Opt(crate::opt::consumer_fusion::run),
        "maps fused into the reduce, scan, hist or scatter consuming them; reductions of one array fused";
    ROW_SUMS: "row-sums", PreLowering, Run::Rewrite(crate::backend::lower::row_sums::run),
        "sums of the rows a map computes become an accumulator the map adds each row into";
    UNFUSE: "unfuse", PreLowering, Run::Rewrite(crate::backend::lower::unfuse::run),
        "fused SOACs whose map returns arrays split into the map and its consumer";
}

/// The passes of a phase, in order.
pub fn phase(phase: Phase) -> impl Iterator<Item = &'static Pass> {
    PASSES.iter().filter(move |p| p.phase == phase)
}

/// The passes of the optimiser, each of which `--disable-pass` can turn off.
pub fn optimiser_passes() -> impl Iterator<Item = &'static Pass> {
    phase(Phase::Optimiser)
}

/// The registry as a Markdown table (`gradus dev --list-passes`).
pub fn pass_table() -> String {
    let mut out = String::from("| pass | phase | what it does |\n| --- | --- | --- |\n");
    for p in PASSES {
        let how = match p.run {
            Run::RulesIn(driver) => format!(" (rules run by `{driver}`)"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {}{how} |\n",
            p.name,
            p.phase.name(),
            p.description
        ));
    }
    out
}

/// Whether the IR is printed after every pass (`GRADUS_TRACE_PASSES`, set by
/// `gradus dev --trace-passes`).
pub fn tracing() -> bool {
    crate::opt::tracing()
}

/// Set by [`verify_every_pass`].
static VERIFY_EVERY_PASS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns on the core IR verifier after every pass for the rest of the process, whatever the
/// build profile: what the test suites, `gradus-fuzz` and `gradus --verify` do.
pub fn verify_every_pass() {
    VERIFY_EVERY_PASS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the IR is verified after every pass: after [`verify_every_pass`], with
/// `GRADUS_VERIFY` set (to anything but `0`), and always in debug builds.
pub fn verifying() -> bool {
    cfg!(debug_assertions)
        || VERIFY_EVERY_PASS.load(std::sync::atomic::Ordering::Relaxed)
        || std::env::var_os("GRADUS_VERIFY").is_some_and(|v| !v.is_empty() && v != "0")
}

/// What runs after every pass: prints the IR when tracing, and runs the core IR verifier when
/// [`verifying`]. A verifier failure names the pass and carries the printed IR: it is a
/// compiler bug.
pub fn after_pass(prog: &Prog, pass: &str) -> Result<(), String> {
    if tracing() {
        eprintln!("-- after {pass}:\n{}", crate::core::print::print_prog(prog));
    }
    if verifying() {
        crate::core::verify::verify(prog).map_err(|e| {
            format!(
                "core IR verification failed after pass `{pass}`: {e}\n{}",
                crate::core::print::print_prog(prog)
            )
        })?;
    }
    Ok(())
}

/// The registry checks the names of the passes that optimiser options disable (here rather
/// than in `crate::opt`, which does not depend on the pipeline).
impl OptOptions {
    /// Disables a pass; an error names the known passes if `name` is not one.
    pub fn disable(&mut self, name: &str) -> Result<(), String> {
        let mut passes = optimiser_passes();
        if passes.any(|p| p.name == name) {
            self.disabled.insert(name.to_string());
            Ok(())
        } else {
            let names: Vec<_> = optimiser_passes().map(|p| p.name).collect();
            Err(format!(
                "unknown optimiser pass `{name}` (expected one of: {})",
                names.join(", ")
            ))
        }
    }
}

/// Optimiser options that run only the named passes of the registry, with `dce` and
/// `simplify` (which clean up and drive the local rules) and the float policy given; `["all"]`
/// runs every pass. What pass file tests and `gradus dev --pass` run. An unknown name is an
/// error that lists the known ones.
pub fn options_running_only(names: &[&str], strict_float: bool) -> Result<OptOptions, String> {
    let mut opts = OptOptions {
        strict_float,
        ..Default::default()
    };
    if names == ["all"] {
        return Ok(opts);
    }
    for name in names {
        if !optimiser_passes().any(|p| p.name == *name) {
            opts.disable(name)?;
        }
    }
    for p in optimiser_passes() {
        if !names.contains(&p.name) && p.name != DCE.name && p.name != SIMPLIFY.name {
            opts.disable(p.name)?;
        }
    }
    Ok(opts)
}
