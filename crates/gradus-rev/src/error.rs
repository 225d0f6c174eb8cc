//! Run-time invertibility errors (docs/reversible.md §At run time).
//!
//! A failed check never panics: every generated function returns
//! `Result<(), InvertibilityError>`. The error names the user's function, the direction that
//! was running, the source location of the statement and the values involved. Allocation
//! happens only on this error path (the `String`s of [`InvertibilityErrorKind::AncillaNotRestored`]).

use std::fmt;

/// Which of the two generated functions was running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The forward program `f`.
    Forward,
    /// The inverse program `f_inv`.
    Inverse,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum InvertibilityErrorKind {
    /// An ancilla did not hold its expected value when released.
    AncillaNotRestored {
        /// The ancilla's name.
        name: &'static str,
        /// Its value at the release (`Debug` form).
        found: String,
        /// The value it should have had (`Debug` form).
        expected: String,
        /// The absolute tolerance used (0 for exact comparisons).
        tolerance: f64,
    },
    /// An `if` post-condition differs from its pre-condition.
    BranchConditionChanged {
        /// The pre-condition's value.
        before: bool,
        /// The post-condition's value.
        after: bool,
    },
    /// A `while` post-condition was true before the first iteration.
    WhilePostconditionTrueOnEntry,
    /// A `while` post-condition was false after an iteration.
    WhilePostconditionFalseAfterIteration {
        /// The iteration (1-based) after which it was false.
        iteration: u64,
    },
    /// A `for` loop's bounds changed while it ran: (start, step, count) before and after.
    LoopRangeChanged {
        /// Start, step and count evaluated before the loop.
        before: (i128, i128, u64),
        /// The same, evaluated after the loop.
        after: (i128, i128, u64),
    },
    /// Two arguments of one instruction or call denote the same location.
    Aliasing {
        /// The container (root variable) both arguments index.
        container: &'static str,
    },
    /// An operation outside its invertible domain (a `ULog` multiplied by zero, `ulog(x)`
    /// with `x ≤ 0`, a `ULog` difference `a − b` with `a < b`).
    NotInvertibleValue {
        /// What was not invertible.
        what: &'static str,
    },
}

/// A run-time invertibility error: what happened, where, and in which direction.
#[derive(Clone, Debug, PartialEq)]
pub struct InvertibilityError {
    /// What went wrong.
    pub kind: InvertibilityErrorKind,
    /// The user's function name (without the `_inv` suffix).
    pub function: &'static str,
    /// Forward (`f`) or inverse (`f_inv`).
    pub direction: Direction,
    /// Source file of the statement.
    pub file: &'static str,
    /// Line of the statement (1-based).
    pub line: u32,
    /// Column of the statement (1-based).
    pub column: u32,
}

impl InvertibilityError {
    /// Builds an error; used by the generated code, kept out of line.
    #[cold]
    #[inline(never)]
    pub fn new(
        kind: InvertibilityErrorKind,
        function: &'static str,
        direction: Direction,
        file: &'static str,
        line: u32,
        column: u32,
    ) -> Self {
        InvertibilityError {
            kind,
            function,
            direction,
            file,
            line,
            column,
        }
    }
}

impl fmt::Display for InvertibilityErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvertibilityErrorKind::AncillaNotRestored {
                name,
                found,
                expected,
                tolerance,
            } => {
                if *tolerance > 0.0 {
                    write!(
                        f,
                        "ancilla `{name}` released with {found}, expected {expected} within {tolerance:e}"
                    )
                } else {
                    write!(
                        f,
                        "ancilla `{name}` released with {found}, expected exactly {expected}"
                    )
                }
            }
            InvertibilityErrorKind::BranchConditionChanged { before, after } => write!(
                f,
                "branch condition changed: pre-condition was {before}, post-condition is {after}"
            ),
            InvertibilityErrorKind::WhilePostconditionTrueOnEntry => {
                write!(f, "while post-condition is true before the first iteration")
            }
            InvertibilityErrorKind::WhilePostconditionFalseAfterIteration { iteration } => write!(
                f,
                "while post-condition is false after iteration {iteration}"
            ),
            InvertibilityErrorKind::LoopRangeChanged { before, after } => write!(
                f,
                "loop range changed while the loop ran: (start, step, count) was {before:?}, is {after:?}"
            ),
            InvertibilityErrorKind::Aliasing { container } => write!(
                f,
                "two arguments of one statement denote the same element of `{container}`"
            ),
            InvertibilityErrorKind::NotInvertibleValue { what } => {
                write!(f, "not invertible: {what}")
            }
        }
    }
}

impl fmt::Display for InvertibilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.direction {
            Direction::Forward => write!(f, "in `{}`", self.function)?,
            Direction::Inverse => write!(
                f,
                "in `{}_inv` (inverse of `{}`)",
                self.function, self.function
            )?,
        }
        write!(
            f,
            " at {}:{}:{}: {}",
            self.file, self.line, self.column, self.kind
        )
    }
}

impl std::error::Error for InvertibilityError {}
