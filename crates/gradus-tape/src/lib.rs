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
//! An operation is one 24-byte record (two operand slots numbered within its job, two
//! partials); a unary operation names its own slot with partial 0 in the second, so the reverse
//! sweep does two multiply-adds per record without branching on the arity. [`dot`], [`sum`] and
//! `mul_add` are one record with 12 bytes per operand. Operations on constants only record
//! nothing. A value captured from another job gets one proxy per job, whose adjoint is added
//! to that job once. [`grad`], [`vjp`] and a reused [`Tape`] record into buffers kept from the
//! previous call, and a pullback leaves its adjoint buffer zeroed for the next.
//!
//! `cargo bench -p gradus-bench --bench tape_compare` (minimum over rounds; primal in `f64`;
//! "+dot" rows use [`dot`] for the dot products, the peers their scalar loop), with the
//! previous layout (compressed rows: 16 bytes per operand and 4 per node, an atomic addition
//! per cross-job operand) and with this one, interleaved in one run on a 2-vCPU machine under
//! load:
//!
//! | program | primal | gradient before | after | gradient / primal | vs `reverse` | vs `ad_trait` |
//! | --- | --- | --- | --- | --- | --- | --- |
//! | fmult | 2.0 ns | 76.2 ns | 29.2 ns | 38× → 15× | 1.69× | 1.78× |
//! | fdotprod/100 | 28.2 ns | 1.25 µs | 0.87 µs | 44× → 31× | 2.35× | 4.14× |
//! | fdotprod/10⁵ | 48.2 µs | 1.31 ms | 0.90 ms | 27× → 19× | 7.7× | 9.4× |
//! | fdotprod/10⁵ +dot | 49.5 µs | — | 0.49 ms | 9.8× | 4.7× | 8.0× |
//! | fsummatvec/316 | 39.4 µs | 1.13 ms | 0.82 ms | 29× → 21× | 2.1× | 3.4× |
//! | fsummatvec/316 +dot | 38.6 µs | — | 0.42 ms | 11× | 4.0× | 6.7× |
//! | fneural | 2.88 µs | 105 µs | 72 µs | 36× → 25× | 2.4× | 3.9× |
//! | fneural +dot | 2.87 µs | — | 41 µs | 14× | 4.1× | 7.0× |
//! | fparticles (2 threads) | 11.7 µs | 232 µs | 153 µs | 20× → 13× | 2.1× | 3.6× |
//!
//! On the ADBench GMM objective (`rev_programs`, `rev_gmm/tape_grad`, a fresh [`grad`] per
//! call; medians of four runs each, interleaved): `1k/gmm_d10_K5` 21.7 → 4.2 ms against a
//! native objective of about 0.57 ms (38× → 7.4×), `10k/gmm_d2_K5` 29.0 → 6.2 ms against
//! 1.5 ms (19× → 4.0×).
//!
//! Per-operation taping keeps scalar programs well above the ~3–5× of C++ tapes whose primal
//! does real work per operation: the primals above are one or two floating-point operations
//! per tape record, and recording plus sweeping costs about 2 ns per record each.
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
pub use var::{Var, dot, matvec, sum};
