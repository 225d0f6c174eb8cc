//! The optimiser: rewrites of core IR that are not specific to AD but make AD's output fast
//! (docs/design.md §Optimiser; the dF~ paper's fusion, code motion and loop normalisation).
//!
//! Takes a program that passes the core IR verifier and returns one that passes it too and
//! computes the same results, under the float policy below. Every pass is a module with named
//! rewrite rules. The passes, their names and what each does are listed once, in the registry
//! [`crate::pipeline::passes`] (`gradus dev --list-passes` prints it); the schedule that runs
//! them to a bounded fixed point is [`crate::pipeline::schedule`].
//!
//! Modules: [`inline`], [`acc_reduce`], [`accsink`] (`acc-sink`), [`reduceloop`] (`reduce-loop`), [`simplify`] (the driver of the local rules
//! of [`copyprop`], [`fold`], [`ifsimp`], [`singlepoint`], [`fission`], [`loop_norm`],
//! [`scalarise`] and [`cse`], and fusion's index-of-map rules), [`dce`] with [`tuple_elim`], [`hoist`] with
//! [`mapfission`], [`fusion`], [`consumer_fusion`].
//!
//! # Float policy
//!
//! The program's own statements keep their IEEE 754 results bit for bit, for every input:
//! NaN, ±∞, ±0 and subnormals included. Rules exact under IEEE (`x * 1.0`, `x - 0.0`,
//! `-0.0 + x`, `x / 1.0`, folding of constants with the interpreter's own arithmetic) always
//! run; the rules exact only for finite values or only up to the sign of a zero — `x * 0.0`
//! to `0.0`, `x - x` to `0.0`, `0.0 + x` to `x`, `0.0 / x` to `0.0`, `x * select(c, 1.0,
//! 0.0)` to `select(c, x, 0.0)`, `fma(a, 0.0, c)` to `c`, sums of terms that are zero but at
//! one index to that term — do not.
//!
//! Derivative code, the statements the AD pass adds ([`crate::core::ir::Aux::derivative`]),
//! treats a zero tangent or adjoint as a *strong zero*: multiplied by anything, an infinite
//! or NaN partial derivative included, it gives zero, as Enzyme's strong-zero mode and
//! ForwardDiff's NaN-safe mode define it. The directional derivative along a direction
//! whose component `i` is zero does not depend on the partial derivative in `i`, however
//! large. There the inexact rules run ([`OptOptions::strong_zero_derivatives`]): they are
//! what turns a forward-mode gradient (one `jvp` per one-hot seed) into the cost of the
//! function itself. Results differ from the unoptimised interpreter's only where a partial
//! derivative is infinite or NaN in a direction the seed does not take.
//!
//! Two options change this: `--exact-floats` (`GRADUS_EXACT_FLOATS`) keeps derivative code
//! IEEE-exact too, so that every result is the unoptimised interpreter's bit for bit;
//! `--fast-math` (`GRADUS_FAST_MATH`, [`OptOptions::strict_float`] `false`) lets the
//! inexact rules rewrite the program's own statements as well, assuming finite values and
//! ignoring the sign of zero (as C's `-ffinite-math-only -fno-signed-zeros`).
//! `docs/float-rules.md` lists every rule and its status.

//! # Errors
//! Statements that may fail at run time (bounds-checked indexing that is not known to be in
//! bounds, integer division, assertions, size coercions) are never moved to where they would
//! run more often than before, nor before another statement that may fail (they leave a
//! map or loop known to run at least once only when nothing before them in its body may fail,
//! so the first error reported is the same); an unused statement that can only fail is removed except for
//! `assert`, so a program that fails only in dead code may succeed after optimisation.

pub mod acc_reduce;
pub mod accsink;
pub mod consumer_fusion;
pub mod copyprop;
pub mod cse;
pub mod dce;
pub mod fission;
pub mod fold;
pub mod fusion;
pub mod hoist;
pub mod ifshare;
pub mod ifsimp;
pub mod inline;
pub mod loop_norm;
pub mod loopsplit;
pub mod mapfission;
pub mod mapshare;
pub mod own_copy;
pub mod reduceloop;
pub mod scalarise;
pub mod simplify;
pub mod singlepoint;
pub mod tuple_elim;

use std::collections::{BTreeMap, BTreeSet};

/// Options of the optimiser.
#[derive(Clone, Debug)]
pub struct OptOptions {
    /// Whether to optimise at all.
    pub enabled: bool,
    /// Passes not to run (names of [`crate::pipeline::passes::optimiser_passes`]).
    pub disabled: BTreeSet<String>,
    /// Keep the floating-point results of the program's own statements bit-exact under IEEE
    /// semantics (see the float policy); `true` unless `GRADUS_FAST_MATH` is set.
    pub strict_float: bool,
    /// Treat the zero tangents and adjoints of derivative code as strong zeros, letting the
    /// inexact float rules rewrite it (see the float policy); `true` unless
    /// `GRADUS_EXACT_FLOATS` is set.
    pub strong_zero_derivatives: bool,
    /// Upper bound on the rounds of the fixed-point iteration.
    pub max_rounds: usize,
}

/// Whether `$GRADUS_FAST_MATH` (`gradus --fast-math`) allows the float rules that are not
/// exact under IEEE 754 (see the float policy).
pub fn fast_math_from_env() -> bool {
    std::env::var_os("GRADUS_FAST_MATH").is_some_and(|v| !v.is_empty() && v != "0")
}

impl Default for OptOptions {
    fn default() -> Self {
        OptOptions {
            enabled: true,
            disabled: BTreeSet::new(),
            strict_float: !fast_math_from_env(),
            strong_zero_derivatives: !crate::backend::c::build::exact_floats_from_env(),
            max_rounds: 12,
        }
    }
}

impl OptOptions {
    /// No optimisation.
    pub fn off() -> Self {
        OptOptions {
            enabled: false,
            ..Default::default()
        }
    }
    /// Whether pass `name` runs.
    pub fn runs(&self, name: &str) -> bool {
        self.enabled && !self.disabled.contains(name)
    }
}

/// Whether the passes are traced (`GRADUS_TRACE_PASSES`, set by `gradus dev
/// --trace-passes`): the pipeline prints the IR after every pass, and [`Ctx::fire`] each rule
/// applied. The names of passes are checked by `OptOptions::disable`, defined beside the
/// registry of passes (`crate::pipeline::passes`), so that this module does not import the
/// pipeline.
pub fn tracing() -> bool {
    std::env::var_os("GRADUS_TRACE_PASSES").is_some()
}

/// How often each rewrite rule fired, and how many rounds the pipeline ran.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Rule name to number of applications.
    pub rules: BTreeMap<&'static str, usize>,
    /// Rounds of the fixed-point iteration.
    pub rounds: usize,
}

/// What a pass needs: the options, and where to count the rules it applies.
pub struct Ctx<'a> {
    /// The options.
    pub opts: &'a OptOptions,
    /// Counts of rule applications.
    pub stats: Stats,
    changes: usize,
}

impl<'a> Ctx<'a> {
    /// A context with no rule fired yet.
    pub fn new(opts: &'a OptOptions) -> Self {
        Ctx {
            opts,
            stats: Stats::default(),
            changes: 0,
        }
    }
    /// Whether pass `name` runs.
    pub fn on(&self, pass: &str) -> bool {
        self.opts.runs(pass)
    }
    /// Records that `rule` was applied once.
    pub fn fire(&mut self, rule: &'static str) {
        if tracing() {
            eprintln!("rule {rule}");
        }
        *self.stats.rules.entry(rule).or_default() += 1;
        self.changes += 1;
    }
    /// Rules applied so far.
    pub fn changes(&self) -> usize {
        self.changes
    }
}
