//! The scalar trait [`RevReal`] and the argument wrappers the generated code passes to
//! instructions.
//!
//! Every differentiable number type of a reversible program (`f64`, `f32`, `Dual<f64>`,
//! `Dual<f32>`, `DualN<f64, N>`, and `GVar` of any of them) implements [`RevReal`]: a value of
//! the plain-math type [`RevReal::Val`] (which implements [`gradus_num::Real`]) and, for
//! `GVar`, a gradient field. Instructions are written once, generically, on `RevReal`: they
//! update the value, and (only when [`RevReal::HAS_GRAD`]) push gradients with
//! [`RevReal::pull`]. On plain numbers the gradient code is removed at compile time.
//!
//! Read arguments of an instruction reach it as `&mut A` with `A:` [`Arg<T>`]: a place of the
//! program (which receives gradients), a [`Const`] (a constant value: `&` parameters,
//! by-value parameters, loop variables, `constant!(…)`) or a [`Lit`] (a literal, converted to
//! the instruction's scalar type).

use gradus_num::{Dual, DualN, Real};
use std::fmt::Debug;
use std::marker::PhantomData;

/// Scalar numbers of reversible programs (docs/reversible.md §API).
pub trait RevReal: Copy + Debug + PartialEq + PartialOrd + Release {
    /// The plain-math type of the value.
    type Val: Real;
    /// Whether this type carries a gradient field (`GVar`); plain numbers do not.
    const HAS_GRAD: bool;
    /// The value.
    fn val(&self) -> Self::Val;
    /// The value, mutably.
    fn val_mut(&mut self) -> &mut Self::Val;
    /// A number with value `v` and zero gradient.
    fn from_val(v: Self::Val) -> Self;
    /// `self.grad += k · src.grad` (a no-op without gradient).
    fn pull(&mut self, src: &Self, k: Self::Val);
    /// `self.grad ← −self.grad`.
    fn neg_grad(&mut self);
    /// `(a.grad, b.grad) ← (c·a.grad − s·b.grad, s·a.grad + c·b.grad)`.
    fn rot_grad(a: &mut Self, b: &mut Self, c: Self::Val, s: Self::Val);
    /// Zero.
    #[inline]
    fn zero() -> Self {
        Self::from_val(Self::Val::zero())
    }
    /// One.
    #[inline]
    fn one() -> Self {
        Self::from_val(Self::Val::one())
    }
    /// The constant `x`.
    #[inline]
    fn from_f64(x: f64) -> Self {
        Self::from_val(Self::Val::from_f64(x))
    }
    /// The value as `f64`.
    #[inline]
    fn to_f64(&self) -> f64 {
        self.val().to_f64()
    }
}

macro_rules! plain_rev_real {
    ($($t:ty $(, const $n:ident)?);*) => {$(
        impl$(<const $n: usize>)? RevReal for $t {
            type Val = $t;
            const HAS_GRAD: bool = false;
            #[inline(always)]
            fn val(&self) -> $t { *self }
            #[inline(always)]
            fn val_mut(&mut self) -> &mut $t { self }
            #[inline(always)]
            fn from_val(v: $t) -> $t { v }
            #[inline(always)]
            fn pull(&mut self, _src: &Self, _k: $t) {}
            #[inline(always)]
            fn neg_grad(&mut self) {}
            #[inline(always)]
            fn rot_grad(_a: &mut Self, _b: &mut Self, _c: $t, _s: $t) {}
        }
    )*};
}
plain_rev_real!(f64; f32; Dual<f64>; Dual<f32>; DualN<f64, N>, const N);

/// The scalar types `*_grad` can be instantiated with: plain numbers whose value type is
/// themselves (`f64`, `f32`, `Dual<f64>`, …). The backward sweep runs on `GVar<S>`.
pub trait GradScalar: RevReal<Val = Self> + Real {}
impl<S: RevReal<Val = S> + Real> GradScalar for S {}

/// A constant read argument: no gradient is pushed to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Const<T>(pub T);

/// A literal read argument, converted to the scalar type `T` of its instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lit<L, T>(pub L, pub PhantomData<T>);

/// A literal for an instruction whose scalar type is inferred.
#[inline(always)]
pub fn lit<L, T>(l: L) -> Lit<L, T> {
    Lit(l, PhantomData)
}

/// A read argument of an instruction on a [`RevReal`] target.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read by an instruction on real numbers",
    note = "arguments of one instruction must have the target's scalar type; wrap other values in `constant!(…)` after converting them"
)]
pub trait Arg {
    /// The scalar type of the instruction.
    type Scalar: RevReal;
    /// The value.
    fn get(&self) -> <Self::Scalar as RevReal>::Val;
    /// `self.grad += k · target.grad` (no-op for constants).
    fn pull(&mut self, target: &Self::Scalar, k: <Self::Scalar as RevReal>::Val);
}

impl<T: RevReal> Arg for T {
    type Scalar = T;
    #[inline(always)]
    fn get(&self) -> T::Val {
        self.val()
    }
    #[inline(always)]
    fn pull(&mut self, target: &T, k: T::Val) {
        RevReal::pull(self, target, k)
    }
}
impl<T: RevReal> Arg for Const<T> {
    type Scalar = T;
    #[inline(always)]
    fn get(&self) -> T::Val {
        self.0.val()
    }
    #[inline(always)]
    fn pull(&mut self, _: &T, _: T::Val) {}
}
impl<T: RevReal> Arg for Lit<f64, T> {
    type Scalar = T;
    #[inline(always)]
    fn get(&self) -> T::Val {
        T::Val::from_f64(self.0)
    }
    #[inline(always)]
    fn pull(&mut self, _: &T, _: T::Val) {}
}
impl<T: RevReal> Arg for Lit<i32, T> {
    type Scalar = T;
    #[inline(always)]
    fn get(&self) -> T::Val {
        T::Val::from_f64(self.0 as f64)
    }
    #[inline(always)]
    fn pull(&mut self, _: &T, _: T::Val) {}
}

/// A read argument of an instruction on an integer target `I` (no gradients).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read by an integer instruction whose target is `{I}`"
)]
pub trait IArg<I> {
    /// The value.
    fn get(&self) -> I;
}

macro_rules! int_args {
    ($($i:ty),*) => {$(
        impl IArg<$i> for $i {
            #[inline(always)]
            fn get(&self) -> $i { *self }
        }
        impl IArg<$i> for Const<$i> {
            #[inline(always)]
            fn get(&self) -> $i { self.0 }
        }
        int_args!(@lit $i; i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    )*};
    (@lit $i:ty; $($l:ty),*) => {$(
        impl IArg<$i> for Lit<$l, $i> {
            #[inline(always)]
            fn get(&self) -> $i { self.0 as $i }
        }
    )*};
}
int_args!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

/// A read argument of a `bool` instruction.
pub trait BArg {
    /// The value.
    fn get(&self) -> bool;
}
impl BArg for bool {
    #[inline(always)]
    fn get(&self) -> bool {
        *self
    }
}
impl BArg for Const<bool> {
    #[inline(always)]
    fn get(&self) -> bool {
        self.0
    }
}
impl BArg for Lit<bool, bool> {
    #[inline(always)]
    fn get(&self) -> bool {
        self.0
    }
}

/// The comparison of `release!` (docs/reversible.md §At run time): exact for integers, `bool`,
/// fixed point; within an absolute tolerance for floating values; element by element for
/// containers; on values only for `GVar` (its gradient is dropped, docs/reversible.md §Ancillas).
pub trait Release: Debug {
    /// Whether `self` equals `expected` under the rule above.
    fn release_matches(&self, expected: &Self, atol: f64) -> bool;
    /// The tolerance the comparison used (0 when exact), for error messages.
    fn release_tolerance(&self, atol: f64) -> f64 {
        let _ = atol;
        0.0
    }
}

macro_rules! release_exact {
    ($($t:ty),*) => {$(
        impl Release for $t {
            #[inline]
            fn release_matches(&self, e: &Self, _atol: f64) -> bool { self == e }
        }
    )*};
}
release_exact!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

macro_rules! release_real {
    ($($t:ty $(, const $n:ident)?);*) => {$(
        impl$(<const $n: usize>)? Release for $t {
            #[inline]
            fn release_matches(&self, e: &Self, atol: f64) -> bool {
                let (a, b) = (self.to_f64(), e.to_f64());
                a == b || (a - b).abs() <= atol
            }
            fn release_tolerance(&self, atol: f64) -> f64 { atol }
        }
    )*};
}
release_real!(f64; f32; Dual<f64>; Dual<f32>; DualN<f64, N>, const N);

impl<T: Release> Release for [T] {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        self.len() == e.len() && self.iter().zip(e).all(|(a, b)| a.release_matches(b, atol))
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        self.first().map_or(0.0, |x| x.release_tolerance(atol))
    }
}
impl<T: Release> Release for Vec<T> {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        self.as_slice().release_matches(e.as_slice(), atol)
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        self.as_slice().release_tolerance(atol)
    }
}
impl<T: Release, const N: usize> Release for [T; N] {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        self.as_slice().release_matches(e.as_slice(), atol)
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        self.as_slice().release_tolerance(atol)
    }
}

/// Integer loop indices: the `for` lowering stores a start, a step and a count.
pub trait LoopIndex: Copy + PartialOrd {
    /// `self + k · step` (wrapping); `step` may be negative.
    fn offset(self, k: usize, step: i128) -> Self;
    /// The number of values `start, start + step, …` before `end` (exclusive), `step > 0`.
    fn span(start: Self, end: Self, step: usize) -> usize;
    /// As `i128`, for error messages.
    fn to_i128(self) -> i128;
}
macro_rules! loop_index {
    ($($t:ty),*) => {$(
        impl LoopIndex for $t {
            #[inline(always)]
            fn offset(self, k: usize, step: i128) -> Self {
                if step == 1 {
                    self.wrapping_add(k as $t)
                } else if step == -1 {
                    self.wrapping_sub(k as $t)
                } else {
                    (self as i128).wrapping_add((k as i128).wrapping_mul(step)) as $t
                }
            }
            #[inline(always)]
            fn span(start: Self, end: Self, step: usize) -> usize {
                if end > start {
                    let d = (end as i128 - start as i128) as usize;
                    d.div_ceil(step)
                } else {
                    0
                }
            }
            #[inline]
            fn to_i128(self) -> i128 { self as i128 }
        }
    )*};
}
loop_index!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
