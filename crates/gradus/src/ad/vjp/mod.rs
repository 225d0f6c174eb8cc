//! Reverse-mode AD (vjp) on core IR, by redundant execution instead of a tape (Schenck,
//! Rønning, Henriksen and Oancea, SC'22; docs/design.md §Automatic differentiation).
//!
//! [`differentiate`] takes statements in which AD operators are already expanded (the body of
//! the differentiated function, built on fresh parameters), the parameters, the body's
//! results and one adjoint seed per result. It returns the statements followed by the return
//! sweep, and the adjoint of every parameter (`∂⟨seeds, results⟩/∂param`).
//!
//! # Structure
//!
//! A scope (a body) is differentiated in two sweeps:
//!
//! * the **forward sweep** emits the scope's statements. Most are emitted as they are; a
//!   `for` loop also stores its loop-carried values once per iteration (checkpoints, see
//!   `loops/`), and a `hist` whose adjoint needs the original bins keeps a copy of them. A
//!   statement that consumes an array which another statement of the scope will need in the
//!   return sweep consumes a copy instead. Each emitted statement is recorded on a list
//!   (the "tape" of the scope: statements and the names of what they saved, never values).
//! * the **return sweep** walks that list backwards and, for each statement, adds the
//!   adjoints of its operands from the adjoints of its results (`basic.rs`, `loops/`,
//!   `soac.rs`). Adjoints of variables used several times are summed.
//!
//! A nested scope (an `if` branch, a loop iteration, a `map` lambda) is differentiated when the
//! return sweep reaches its statement: its forward sweep is **re-executed** (on a copy of its
//! statements with fresh names, since every variable is bound once) right before its return
//! sweep, so every value the adjoint code needs is in scope without storing it. Perfectly
//! nested scopes therefore cost no extra re-execution; a statement at loop depth `d` runs at
//! most `d + 1` extra times, a constant for a given program, and only sequential loops store
//! anything. A `for` loop directly inside another is the exception that saves one of those
//! runs: the outer loop's forward sweep runs the inner loop's forward sweep and keeps its
//! checkpoints per outer iteration (`loops/nested.rs`), so the inner body runs twice in
//! all.
//!
//! # Adjoints
//!
//! Only *active* variables (those that depend on a parameter, found while sweeping forward)
//! get adjoints; an absent adjoint is zero. An adjoint is a value of the variable's type, or,
//! inside a `map` lambda for an array bound outside the lambda, an accumulator (`with_acc`,
//! `update_acc`) that the lambda adds into (so `map (\i -> xs[i] * 2) is` costs `O(w)` for its
//! adjoint, not `O(w · n)`). Array adjoints are updated in place (`xs_adj with [i] = ..`) when
//! the adjoint is owned, i.e. no other adjoint or primal value shares it. Integer leaves get
//! integer adjoints and booleans boolean ones (docs/language.md §Integer and boolean leaves);
//! `iota n` gives `n` the sum of the result's adjoint.
//!
//! Code that itself uses accumulators (the output of an inner `vjp`, differentiated again)
//! is handled in `accs.rs`: accumulators get no adjoints of their own; each reads the adjoint
//! of the arrays its `with_acc` returns.
//!
//! Naming scheme (STYLE.md item 10): the adjoint of `x` is named `x_adj`; Rust code says
//! `adjoint_of`/`add_adj`.
//!
//! # Files
//!
//! This file holds the differentiator's state (`Vjp` and what it records per statement);
//! `sweep.rs` the driver (the two sweeps of a scope, re-execution, branches); `adjoints.rs`
//! the arithmetic of adjoints (adding, owning, accumulating). The rules per statement kind
//! are in `basic.rs`, `loops/`, `soac.rs` (with `map.rs`, `reduce.rs`, `scan.rs`,
//! `hist.rs`, `hist_general.rs`, `scatter.rs`), `accs.rs` and `custom.rs`.

mod accs;
mod adjoints;
mod basic;
mod custom;
mod hist;
mod hist_general;
mod loops;
mod map;
mod reduce;
mod scan;
mod scatter;
mod soac;
mod sweep;

use crate::core::builder::{Builder, CseScope, HasBuilder};
use crate::core::ir::{Aux, NameTable, Stm, SubExp, Var};
use crate::core::screma::{is_fused, unfuse_stms};
use crate::diag::{Diagnostic, Span};
use std::collections::{HashMap, HashSet};

type R<T> = Result<T, Diagnostic>;

/// The result of [`differentiate`].
pub struct Differentiated {
    /// The primal statements (forward sweep) followed by the return sweep.
    pub stms: Vec<Stm>,
    /// The adjoint of each parameter, in order.
    pub adjoints: Vec<SubExp>,
}

/// Differentiates `stms` in reverse mode: `params` are the variables to differentiate with
/// respect to, `results` the values whose adjoints are `seeds` (one per result; a seed whose
/// shape differs from its result's is checked at run time).
pub fn differentiate(
    names: &mut NameTable,
    stms: &[Stm],
    params: &[Var],
    results: &[SubExp],
    seeds: &[SubExp],
) -> R<Differentiated> {
    let stms = &unfuse_stms(names, stms, &is_fused);
    let mut v = Vjp::new(names);
    v.active.extend(params.iter().copied());
    let tape = v.fwd_scope(stms, false)?;
    v.e.set_aux(Aux::default());
    for (r, s) in results.iter().zip(seeds) {
        if let SubExp::Var(r) = r {
            let s = v.coerce_to(*s, *r);
            v.add_adj(*r, s, false)?;
        }
    }
    v.rev_scope(tape)?;
    v.e.set_aux(Aux::default());
    let adjoints = params.iter().map(|p| v.adj_out(*p)).collect::<R<_>>()?;
    Ok(Differentiated {
        stms: v.e.take_stms(),
        adjoints,
    })
}

/// The adjoint of a variable.
#[derive(Clone, Copy, Debug)]
enum Adj {
    /// A value of the variable's type; `owned` when nothing else refers to it, so it may be
    /// updated in place.
    Val(SubExp, bool),
    /// An accumulator into the adjoint array (inside a `map` lambda, for arrays bound outside
    /// it).
    Acc(Var),
}

/// What the forward sweep saved for a statement's return sweep.
enum Extra {
    None,
    /// A `for` loop's checkpoints (see `loops/checkpoint.rs`).
    Loop(loops::Saved),
    /// A reverse-computed `for` loop's flag and remaining checkpoints (see `loops/revcomp/`).
    RevComp(loops::revcomp::Saved),
    /// Copies of arrays the statement consumed (the bins of a `hist`).
    Copies(Vec<Var>),
    /// For a `map`, the rows of values of its lambda that an enclosing loop's forward sweep
    /// kept: positions in the lambda's body, and the rows (see `loops/kept.rs`).
    Kept(Vec<(usize, Var)>),
}

/// A statement of the forward sweep and what it saved.
struct Entry {
    stm: Stm,
    extra: Extra,
}

/// The state of reverse-mode differentiation of one body: where code goes, the adjoints so
/// far, and what the sweeps of an enclosing statement hand to the scopes they re-execute.
struct Vjp<'a> {
    /// Where the forward and return sweeps emit their statements: fresh names, primitive
    /// operations shared within a scope (never with the scopes around it, whose values a
    /// re-executed scope must not read), every statement marked as derivative code.
    e: Builder<'a>,
    /// The current adjoint of each active variable that has one (an absent adjoint is
    /// zero). The return sweep takes a variable's adjoint when it reaches the statement that
    /// binds it; scopes save and restore the map around their own sweeps.
    adjs: HashMap<Var, Adj>,
    /// The active variables: those that depend on a parameter being differentiated, found
    /// by the forward sweep (and by each re-execution, for its renamed copies).
    active: HashSet<Var>,
    /// Variables bound outside a re-executed scope that it may consume nevertheless (the
    /// restored in-place arrays of a loop iteration, which belong to that iteration).
    consumable: HashSet<Var>,
    /// For the next re-executed scope: the statements (by position) whose values the
    /// enclosing loop's forward sweep kept, to be read instead of computed (`loops/`: the
    /// results and checkpoints of nested loops, kept values, kept rows of a map's lambda).
    preset: HashMap<usize, loops::Preset>,
    /// Accumulators that exist only in the primal code being differentiated (see `accs.rs`).
    virt: HashSet<Var>,
    /// For a virtual accumulator, the one it derives from.
    acc_link: HashMap<Var, Var>,
    /// For a virtual `with_acc` parameter, the adjoints of the arrays it accumulates into.
    acc_bars: HashMap<Var, Vec<Var>>,
}

impl<'a> HasBuilder<'a> for Vjp<'a> {
    fn builder(&mut self) -> &mut Builder<'a> {
        &mut self.e
    }
}

fn limitation(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::limitation(span, msg.into())
}

impl<'a> Vjp<'a> {
    fn new(names: &'a mut NameTable) -> Self {
        Vjp {
            e: Builder::new(names)
                .with_cse(CseScope::Fresh)
                .marking_derivatives(),
            adjs: HashMap::new(),
            active: HashSet::new(),
            consumable: HashSet::new(),
            preset: HashMap::new(),
            virt: HashSet::new(),
            acc_link: HashMap::new(),
            acc_bars: HashMap::new(),
        }
    }

    fn is_active(&self, se: &SubExp) -> bool {
        matches!(se, SubExp::Var(v) if self.active.contains(v))
    }
}
