//! Tape-based reverse-mode automatic differentiation by operator overloading, for arbitrary Rust
//! code — recursion, data-dependent control flow, user data types — whose reverse pass runs the
//! independent tasks of a fork-join program in parallel (docs/tape.md; after Smeding and Vákár,
//! *Parallel dual-numbers reverse AD*, JFP 2025).
//!
//! # Overview
//!
//! * [`grad`], [`vjp`] and [`record`] run a closure on [`Var`]s; each operation appends a node — the
//!   operand IDs and partial derivatives — to the *job* running on the current thread. Nodes are
//!   stored in arrays (one segment per job), never one heap object per operation.
//! * [`join`] and [`par_map`] fork the program into parallel tasks. Each fork ends the running
//!   job; the tasks run in fresh jobs; the program continues in a new job that records which
//!   jobs joined into it. Outside a recording they are plain `rayon` calls.
//! * [`Recording::pullback`] seeds the outputs and resolves every node once, walking the job
//!   graph backwards: where the program joined, the reverse pass forks, and tasks that were
//!   independent are resolved in parallel on the current rayon pool
//!   ([`ReverseMode::Parallel`]), or one after another in a fixed order
//!   ([`ReverseMode::Sequential`], bit-for-bit reproducible).
//! * [`jacobian`] pulls one recording back once per output; [`hvp`] and [`hessian`] give exact
//!   second derivatives by running the program on `Dual<Var>` (reverse mode over forward mode);
//!   [`jvp`] and [`jacobian_fwd`] are forward mode (from `gradus-num`).
//! * Every driver follows the vocabulary shared by the gradus engines (`docs/vocabulary.md`):
//!   the point `x` first, then the tangent `xdot` or the cotangent `ybar`, the function last;
//!   `_into` variants take their output buffer after the function.
//! * [`dot`], [`dot_const`], [`matvec`], [`sum`] and [`sum_iter`] record a vector operation as one node
//!   (`Real::dot`, `Real::dot_const` and `Real::matvec` reach them from generic code, and are
//!   the plain loops on `f64` and duals); [`statement`]
//!   records a whole expression over a few inputs as one node, its partials computed in
//!   forward mode (one record per assignment rather than per operation).
//! * [`grad_of`] takes structured parameters ([`Scalars`]: `f64`, arrays, `Vec`s, tuples) and
//!   returns the gradient in the same shape.
//! * [`Tape`] keeps every buffer between recordings: with a reused tape, a program without
//!   forks and with at most 16 inputs is differentiated without any heap allocation after the
//!   first call.
//! * [`programs`] holds the six benchmark programs of docs/tape.md §Tests and benchmarks, written
//!   over [`Real`].
//!
//! The cost of a gradient is O(T + I) for a primal of cost T with I inputs: every edge is
//! visited at most once, however often a value is shared.
//!
//! # Cost
//!
//! An operation with two non-constant operands is one 24-byte record (two operand slots
//! numbered within its job, two partials), resolved by two multiply-adds (fused on CPUs with
//! FMA), the adjoints of the two slots below the record carried in registers. An operation with
//! one non-constant operand (`x.sin()`, `x * c`, `c - x`, …) records nothing: a [`Var`] carries
//! a coefficient, the derivative of its value with respect to its node, which the operation
//! multiplies by its partial and the next recorded operation folds into its own partials.
//! An addition `acc + p` whose operands are the last two nodes, `p` an operation's, records
//! nothing either: `p`'s record is flagged to stand for the sum too (a running `acc + u·v` is
//! one record per pair; docs/tape.md §Fused sums). `mul_add` is one record with 12 bytes per operand; [`dot`] (and
//! [`matvec`], one `dot` per row; [`dot_const`] and `dot(u, u)`, one side; [`sum`] and [`sum_iter`], one side whose
//! partials are the terms' coefficients) is one record with 8 bytes per operand on a side of
//! consecutive nodes, resolved by a vectorised `axpy`, and 12 elsewhere. Operations on
//! constants only record nothing. A value captured from another job gets one proxy per
//! job, whose adjoint is added to that job once. [`grad`], [`vjp`] and a reused [`Tape`]
//! record into buffers kept from the previous call, and a pullback leaves its adjoint buffer
//! zeroed for the next. docs/tape.md §What a node costs has the table.
//!
//! `cargo bench -p gradus-bench --bench tape_compare` (15 rounds; the minimum over six runs
//! of each build, the builds alternated, on a 2-vCPU machine under load, so single figures
//! move by 10–20 %; primal in `f64`, the fastest of the rows running the same `f64` program;
//! "+dot" rows use [`dot`] for the dot products and "+stmt" [`statement`] for the Euler step,
//! the peers their scalar code), gradient time, before and after fused sums
//! (benchmarks/README.md has the peers' times and GMM):
//!
//! | program | primal | before | after | gradient / primal | vs `reverse` | vs `ad_trait` |
//! | --- | --- | --- | --- | --- | --- | --- |
//! | fmult | 2.2 ns | 35.3 ns | 34.1 ns | 16× → 15.5× | 1.5× | 1.6× |
//! | fdotprod/10⁵ | 51.8 µs | 811 µs | 636 µs | 15.7× → 12.3× | 11× | 14× |
//! | fdotprod/10⁵ +dot | 51.4 µs | 207 µs | 246 µs | 4.0× → 4.8× | 9.7× | 16× |
//! | fsummatvec/316 | 41.7 µs | 781 µs | 576 µs | 18.7× → 13.8× | 3.1× | 5.3× |
//! | fsummatvec/316 +dot | 41.0 µs | 166 µs | 191 µs | 4.1× → 4.7× | 9.4× | 16× |
//! | fneural | 2.97 µs | 66.3 µs | 54.8 µs | 22.3× → 18.4× | 3.2× | 5.4× |
//! | fneural +dot | 2.94 µs | 22.6 µs | 23.8 µs | 7.7× → 8.1× | 7.4× | 13× |
//! | fparticles (no fork) | 12.1 µs | 87.9 µs | 86.2 µs | 7.3× → 7.1× | 3.5× | 7.1× |
//! | fparticles +stmt | 12.2 µs | 99.7 µs | 104 µs | 8.2× → 8.6× | 2.9× | 6.0× |
//!
//! Fused sums take a fifth to a quarter off the chains of `acc + u·v` written with scalar
//! operations (the dot products, matrix-vector products and dense layers), which remain
//! 12–18× their primal: each pair still records and sweeps the product. There, the vector
//! operations ([`dot`], [`matvec`], or `Real::dot` and `Real::matvec` in generic code) are
//! the way under 8×.
//!
//! # Example
//!
//! With `gradus-tape` as the only dependency (the scalar trait [`Real`] and the forward-mode
//! types of `gradus-num` are re-exported here, and the whole crate as [`num`]):
//!
//! ```
//! use gradus_tape::{Real, grad, join};
//!
//! // Written once over `Real`: runs on f64, on forward-mode duals, and on the tape.
//! fn energy<S: Real>(p: &[S]) -> S {
//!     let (a, b) = join(|| p[0] * p[1].exp(), || (p[0] - p[1]).square());
//!     a + b
//! }
//! let x = [0.5, -1.0];
//! let (y, g) = grad(&x, |p| energy(p));
//! assert_eq!(y, energy(&x));
//! let expected = [(-1f64).exp() + 2.0 * 1.5, 0.5 * (-1f64).exp() - 2.0 * 1.5];
//! assert!((g[0] - expected[0]).abs() < 1e-15 && (g[1] - expected[1]).abs() < 1e-15);
//! ```
//!
//! # Errors and misuse
//!
//! * The lifetime brand of [`Var`] stops a `Var` from leaving its recording, at compile time:
//!
//! ```compile_fail
//! let mut escaped = None;
//! gradus_tape::grad(&[1.0], |x| { escaped = Some(x[0]); x[0] });
//! ```
//!
//! * An operation on a `Var` on a thread that runs no job of its recording panics (see
//!   [`Var`]); a panic inside the closure unwinds through the recording, which is discarded.
//! * [`Recording::pullback`] panics on a seed of the wrong length;
//!   [`Recording::pullback_into`] returns [`LengthMismatch`] instead.
//! * More than 2³² − 1 jobs, or 2³² nodes or edges in one job, panics naming the limit.

#![deny(missing_docs)]

mod derived;
mod fork;
mod id;
pub mod programs;
mod record;
mod reverse;
mod scalars;
mod segment;
mod statement;
mod var;

pub use derived::{hessian, hvp, jacobian};
pub use fork::{default_chunks, join, par_map, par_map_chunks};
/// The `gradus-num` crate (forward mode, the [`Real`] trait and the table of partial
/// derivatives), in the version this crate uses, for what the re-exports above leave out.
pub use gradus_num as num;
pub use gradus_num::{Dual, DualN, Real, jacobian_fwd, jvp};
pub use id::{JobId, NodeId};
pub use record::{Tape, grad, record, vjp};
pub use reverse::{
    Adjoints, JobGraphView, LengthMismatch, PullbackCounts, Recording, ReverseMode, ReverseOptions,
    TapeStats,
};
pub use scalars::{Scalars, grad_of};
pub use statement::statement;
pub use var::{Var, dot, dot_const, matvec, sum, sum_iter};
