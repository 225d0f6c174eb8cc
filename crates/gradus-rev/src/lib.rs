//! The reversible embedded language of gradus (docs/reversible.md).
//!
//! A Rust function written in the reversible statement language and marked
//! [`#[reversible]`](reversible) becomes three functions: itself (`f`), its exact inverse
//! (`f_inv`) and, with `loss = …`, its gradient (`f_grad`), obtained by running `f_inv` on
//! gradient-carrying numbers ([`GVar`]) — no tape, no stored intermediates.
//!
//! ```
//! use gradus_rev::prelude::*;
//!
//! /// y ← y + a·b
//! #[reversible(loss = y)]
//! fn mul_acc<T: RevReal>(y: &mut T, a: &mut T, b: &mut T) {
//!     y += a * b;
//! }
//!
//! let (mut y, mut a, mut b) = (1.0, 4.0, 6.0);
//! mul_acc(&mut y, &mut a, &mut b).unwrap();
//! assert_eq!(y, 25.0);
//! mul_acc_inv(&mut y, &mut a, &mut b).unwrap();
//! assert_eq!(y, 1.0);
//! let (dy, da, db) = mul_acc_grad(&mut y, &mut a, &mut b).unwrap();
//! assert_eq!((y, dy, da, db), (25.0, 1.0, 6.0, 4.0));
//! ```
//!
//! The runtime is organised by concern: [`scalar`] (the scalar trait [`RevReal`] and argument
//! wrappers), [`instr`] (the instruction set), [`gvar`], [`complex`], [`ulog`], [`fixed`],
//! [`mat`], [`error`], [`grad`] (gradient wrapping, and the drivers [`jacobian`], [`hvp`]
//! and [`hessian`]) and [`stdlib`]. Forward mode is the generated function run on [`Dual`]s;
//! [`jvp`] and [`jacobian_fwd`] (from `gradus-num`) drive it.
//!
//! A call of a function that is not `#[reversible]` shows up as rustc's "cannot find
//! function `g_inv`": that message means "`g` is not `#[reversible]`".

#![deny(missing_docs)]

extern crate self as gradus_rev;

pub mod complex;
pub mod error;
pub mod fixed;
pub mod grad;
pub mod gvar;
pub mod instr;
pub mod mat;
pub mod scalar;
pub mod stdlib;
pub mod ulog;

pub use complex::Complex;
pub use error::{Direction, InvertibilityError, InvertibilityErrorKind};
pub use fixed::I21F43;
pub use grad::deprecated::*;
pub use grad::{GradParam, hessian, hvp, jacobian, seed_loss};
pub use gradus_num::{Dual, DualN, Real, jacobian_fwd, jvp};
pub use gradus_rev_macros::{GradParam, reversible};
pub use gvar::{GVar, GradField};
pub use instr::prim::{Primitive1, Primitive2};
pub use mat::Mat;
pub use scalar::{Const, GradScalar, Lit, Release, RevReal};
pub use ulog::ULog;

/// Whether run-time invertibility checks are compiled in: `false` with the `unchecked`
/// feature (docs/reversible.md §Turning checks off).
pub const CHECKS: bool = !cfg!(feature = "unchecked");

/// Everything a reversible program needs in scope.
pub mod prelude {
    pub use crate::{
        Complex, Direction, Dual, GVar, GradParam, I21F43, InvertibilityError,
        InvertibilityErrorKind, Mat, Primitive1, Primitive2, RevReal, ULog, reversible,
    };
}

/// Support for the code the macro generates; not part of the public API.
#[doc(hidden)]
pub mod __rt {
    pub use crate::CHECKS;
    pub use crate::complex::conj;
    pub use crate::error::{Direction, InvertibilityError, InvertibilityErrorKind};
    pub use crate::grad::{GradParam, seed_loss};
    pub use crate::gvar::GVar;
    pub use crate::instr::acc::{Acc1, Acc2, MulAcc1, MulAcc2, Xor1, Xor2};
    pub use crate::instr::prim::*;
    pub use crate::instr::unary::{dec, flip, inc, irot, neg, rot, swap};
    pub use crate::scalar::{Const, GradScalar, Lit, LoopIndex, Release, lit};

    /// `y += P(a)`.
    #[inline(always)]
    pub fn add1<P: Acc1<Y, A>, Y, A>(y: &mut Y, a: &mut A) {
        P::add(y, a)
    }
    /// `y -= P(a)`.
    #[inline(always)]
    pub fn sub1<P: Acc1<Y, A>, Y, A>(y: &mut Y, a: &mut A) {
        P::sub(y, a)
    }
    /// `y += P(a, b)`.
    #[inline(always)]
    pub fn add2<P: Acc2<Y, A, B>, Y, A, B>(y: &mut Y, a: &mut A, b: &mut B) {
        P::add(y, a, b)
    }
    /// `y -= P(a, b)`.
    #[inline(always)]
    pub fn sub2<P: Acc2<Y, A, B>, Y, A, B>(y: &mut Y, a: &mut A, b: &mut B) {
        P::sub(y, a, b)
    }
    /// `y += P(a)`, values only.
    #[inline(always)]
    pub fn add1v<P: Acc1<Y, A>, Y, A>(y: &mut Y, a: &mut A) {
        P::add_val(y, a)
    }
    /// `y -= P(a)`, values only.
    #[inline(always)]
    pub fn sub1v<P: Acc1<Y, A>, Y, A>(y: &mut Y, a: &mut A) {
        P::sub_val(y, a)
    }
    /// `y += P(a, b)`, values only.
    #[inline(always)]
    pub fn add2v<P: Acc2<Y, A, B>, Y, A, B>(y: &mut Y, a: &mut A, b: &mut B) {
        P::add_val(y, a, b)
    }
    /// `y -= P(a, b)`, values only.
    #[inline(always)]
    pub fn sub2v<P: Acc2<Y, A, B>, Y, A, B>(y: &mut Y, a: &mut A, b: &mut B) {
        P::sub_val(y, a, b)
    }
    /// `y ^= P(a)`.
    #[inline(always)]
    pub fn xor1<P: Xor1<Y, A>, Y, A>(y: &mut Y, a: &mut A) {
        P::xor(y, a)
    }
    /// `y ^= P(a, b)`.
    #[inline(always)]
    pub fn xor2<P: Xor2<Y, A, B>, Y, A, B>(y: &mut Y, a: &mut A, b: &mut B) {
        P::xor(y, a, b)
    }
    /// `y *= P(a)`.
    #[inline(always)]
    pub fn mul1<P: MulAcc1<Y, A>, Y, A>(y: &mut Y, a: &mut A) -> Result<(), &'static str> {
        P::mul(y, a)
    }
    /// `y /= P(a)`.
    #[inline(always)]
    pub fn div1<P: MulAcc1<Y, A>, Y, A>(y: &mut Y, a: &mut A) -> Result<(), &'static str> {
        P::div(y, a)
    }
    /// `y *= P(a, b)`.
    #[inline(always)]
    pub fn mul2<P: MulAcc2<Y, A, B>, Y, A, B>(
        y: &mut Y,
        a: &mut A,
        b: &mut B,
    ) -> Result<(), &'static str> {
        P::mul(y, a, b)
    }
    /// `y /= P(a, b)`.
    #[inline(always)]
    pub fn div2<P: MulAcc2<Y, A, B>, Y, A, B>(
        y: &mut Y,
        a: &mut A,
        b: &mut B,
    ) -> Result<(), &'static str> {
        P::div(y, a, b)
    }

    /// Whether two places are the same location.
    #[inline(always)]
    pub fn same<T>(a: *const T, b: *const T) -> bool {
        core::ptr::eq(a, b)
    }

    /// `(start, step, count)` of a loop range, for `LoopRangeChanged`.
    #[cold]
    pub fn range_facts<I: LoopIndex>(
        lo: I,
        hi: I,
        step: usize,
        inclusive: bool,
    ) -> (i128, i128, u64) {
        let (l, h) = (lo.to_i128(), hi.to_i128());
        let s = step.max(1) as i128;
        let n = if inclusive {
            if h >= l { (h - l) / s + 1 } else { 0 }
        } else if h > l {
            (h - l + s - 1) / s
        } else {
            0
        };
        (l, s, n as u64)
    }

    /// The release comparison.
    #[inline(always)]
    pub fn release_ok<T: Release + ?Sized>(found: &T, expected: &T, atol: f64) -> bool {
        found.release_matches(expected, atol)
    }

    /// The error of a failed release.
    #[cold]
    #[inline(never)]
    pub fn release_error<T: Release + ?Sized>(
        name: &'static str,
        found: &T,
        expected: &T,
        atol: f64,
    ) -> InvertibilityErrorKind {
        InvertibilityErrorKind::AncillaNotRestored {
            name,
            found: format!("{found:?}"),
            expected: format!("{expected:?}"),
            tolerance: found.release_tolerance(atol),
        }
    }
}
