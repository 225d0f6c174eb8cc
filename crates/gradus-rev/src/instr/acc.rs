//! Accumulating instructions `y += f(…)`, `y -= f(…)`, `y ^= f(…)`, and `y *= f(…)`,
//! `y /= f(…)` (logarithmic targets), as traits implemented by the primitive marker types.
//!
//! On a [`RevReal`] target the `GVar` form of `y += f(a, b)` is (docs/reversible.md §Adjoint rules,
//! with the signs of the inverse direction): `y.x += f(a.x, b.x)`, `ā −= ȳ ∂f/∂a`, `b̄ −= ȳ ∂f/∂b`;
//! `y -= f(a, b)` is its exact inverse, `y.x −= f`, `ā += ȳ ∂f/∂a`. Running the inverse program
//! on `GVar`s therefore pushes gradients backwards; running the forward program on them
//! un-accumulates them again.

use super::prim::{Builtin1, Builtin2, Exact, Id, Powi, Primitive1, Primitive2, User};
use crate::scalar::{Arg, BArg, IArg, RevReal};

/// `y += f(a)` and `y -= f(a)`.
#[diagnostic::on_unimplemented(
    message = "no instruction `{Y} += {Self}({A})`",
    note = "GR011: check that the target and argument types match and that this primitive is defined for them"
)]
pub trait Acc1<Y, A> {
    /// `y += f(a)`.
    fn add(y: &mut Y, a: &mut A);
    /// `y -= f(a)`.
    fn sub(y: &mut Y, a: &mut A);
    /// `y += f(a)` on values only, for a target whose gradient is known to be zero (the
    /// macro uses it in routines that write only their own, fresh ancillas, where every
    /// gradient push would add zero).
    #[inline(always)]
    fn add_val(y: &mut Y, a: &mut A) {
        Self::add(y, a)
    }
    /// `y -= f(a)` on values only (see [`Acc1::add_val`]).
    #[inline(always)]
    fn sub_val(y: &mut Y, a: &mut A) {
        Self::sub(y, a)
    }
}

/// `y += f(a, b)` and `y -= f(a, b)`.
#[diagnostic::on_unimplemented(
    message = "no instruction `{Y} += {Self}({A}, {B})`",
    note = "GR011: check that the target and argument types match and that this primitive is defined for them"
)]
pub trait Acc2<Y, A, B> {
    /// `y += f(a, b)`.
    fn add(y: &mut Y, a: &mut A, b: &mut B);
    /// `y -= f(a, b)`.
    fn sub(y: &mut Y, a: &mut A, b: &mut B);
    /// `y += f(a, b)` on values only (see [`Acc1::add_val`]).
    #[inline(always)]
    fn add_val(y: &mut Y, a: &mut A, b: &mut B) {
        Self::add(y, a, b)
    }
    /// `y -= f(a, b)` on values only (see [`Acc1::add_val`]).
    #[inline(always)]
    fn sub_val(y: &mut Y, a: &mut A, b: &mut B) {
        Self::sub(y, a, b)
    }
}

/// `y ^= f(a)`.
#[diagnostic::on_unimplemented(
    message = "GR011: `^=` is reversible only on integers and `bool`; `{Y}` is not one",
    note = "exclusive-or accumulation needs exact bits; accumulate floats with `+=`"
)]
pub trait Xor1<Y, A> {
    /// `y ^= f(a)`.
    fn xor(y: &mut Y, a: &mut A);
}

/// `y ^= f(a, b)`.
#[diagnostic::on_unimplemented(
    message = "GR011: `^=` is reversible only on integers and `bool`; `{Y}` is not one"
)]
pub trait Xor2<Y, A, B> {
    /// `y ^= f(a, b)`.
    fn xor(y: &mut Y, a: &mut A, b: &mut B);
}

/// `y *= f(a)` and `y /= f(a)`: multiplication is a bijection only on logarithmic numbers.
#[diagnostic::on_unimplemented(
    message = "GR011: `*=` is reversible only on logarithmic numbers (`ULog<T>`); `{Y}` is not one",
    note = "accumulate into a zeroed variable with `+=` instead, or use `ULog`"
)]
pub trait MulAcc1<Y, A> {
    /// `y *= f(a)`; `Err` when not invertible (multiplying by zero).
    fn mul(y: &mut Y, a: &mut A) -> Result<(), &'static str>;
    /// `y /= f(a)`.
    fn div(y: &mut Y, a: &mut A) -> Result<(), &'static str>;
}

/// `y *= f(a, b)` and `y /= f(a, b)`.
#[diagnostic::on_unimplemented(
    message = "GR011: `*=` is reversible only on logarithmic numbers (`ULog<T>`); `{Y}` is not one",
    note = "accumulate into a zeroed variable with `+=` instead, or use `ULog`"
)]
pub trait MulAcc2<Y, A, B> {
    /// `y *= f(a, b)`.
    fn mul(y: &mut Y, a: &mut A, b: &mut B) -> Result<(), &'static str>;
    /// `y /= f(a, b)`.
    fn div(y: &mut Y, a: &mut A, b: &mut B) -> Result<(), &'static str>;
}

impl<T: RevReal, A: Arg<Scalar = T>, P: Builtin1> Acc1<T, A> for P {
    #[inline(always)]
    fn add(y: &mut T, a: &mut A) {
        let av = a.get();
        if T::HAS_GRAD {
            let (v, d) = P::eval_deriv(av);
            *y.val_mut() += v;
            a.pull(y, -d);
        } else {
            *y.val_mut() += P::eval(av);
        }
    }
    #[inline(always)]
    fn sub(y: &mut T, a: &mut A) {
        let av = a.get();
        if T::HAS_GRAD {
            let (v, d) = P::eval_deriv(av);
            *y.val_mut() -= v;
            a.pull(y, d);
        } else {
            *y.val_mut() -= P::eval(av);
        }
    }
    #[inline(always)]
    fn add_val(y: &mut T, a: &mut A) {
        *y.val_mut() += P::eval(a.get());
    }
    #[inline(always)]
    fn sub_val(y: &mut T, a: &mut A) {
        *y.val_mut() -= P::eval(a.get());
    }
}

impl<T: RevReal, A: Arg<Scalar = T>, B: Arg<Scalar = T>, P: Builtin2> Acc2<T, A, B> for P {
    #[inline(always)]
    fn add(y: &mut T, a: &mut A, b: &mut B) {
        let (av, bv) = (a.get(), b.get());
        if T::HAS_GRAD {
            let (v, da, db) = P::eval_grad(av, bv);
            *y.val_mut() += v;
            a.pull(y, -da);
            b.pull(y, -db);
        } else {
            *y.val_mut() += P::eval(av, bv);
        }
    }
    #[inline(always)]
    fn sub(y: &mut T, a: &mut A, b: &mut B) {
        let (av, bv) = (a.get(), b.get());
        if T::HAS_GRAD {
            let (v, da, db) = P::eval_grad(av, bv);
            *y.val_mut() -= v;
            a.pull(y, da);
            b.pull(y, db);
        } else {
            *y.val_mut() -= P::eval(av, bv);
        }
    }
    #[inline(always)]
    fn add_val(y: &mut T, a: &mut A, b: &mut B) {
        *y.val_mut() += P::eval(a.get(), b.get());
    }
    #[inline(always)]
    fn sub_val(y: &mut T, a: &mut A, b: &mut B) {
        *y.val_mut() -= P::eval(a.get(), b.get());
    }
}

impl<T: RevReal, A: Arg<Scalar = T>, P: Primitive1<T::Val>> Acc1<T, A> for User<P> {
    #[inline(always)]
    fn add(y: &mut T, a: &mut A) {
        let av = a.get();
        *y.val_mut() += P::eval(av);
        if T::HAS_GRAD {
            a.pull(y, -P::deriv(av));
        }
    }
    #[inline(always)]
    fn sub(y: &mut T, a: &mut A) {
        let av = a.get();
        *y.val_mut() -= P::eval(av);
        if T::HAS_GRAD {
            a.pull(y, P::deriv(av));
        }
    }
}

impl<T: RevReal, A: Arg<Scalar = T>, B: Arg<Scalar = T>, P: Primitive2<T::Val>> Acc2<T, A, B>
    for User<P>
{
    #[inline(always)]
    fn add(y: &mut T, a: &mut A, b: &mut B) {
        let (av, bv) = (a.get(), b.get());
        *y.val_mut() += P::eval(av, bv);
        if T::HAS_GRAD {
            let (da, db) = P::grad(av, bv);
            a.pull(y, -da);
            b.pull(y, -db);
        }
    }
    #[inline(always)]
    fn sub(y: &mut T, a: &mut A, b: &mut B) {
        let (av, bv) = (a.get(), b.get());
        *y.val_mut() -= P::eval(av, bv);
        if T::HAS_GRAD {
            let (da, db) = P::grad(av, bv);
            a.pull(y, da);
            b.pull(y, db);
        }
    }
}

impl<T: RevReal, A: Arg<Scalar = T>, B: IArg<i32>> Acc2<T, A, B> for Powi {
    #[inline(always)]
    fn add(y: &mut T, a: &mut A, n: &mut B) {
        let (v, d) = gradus_num::rules::powi(a.get(), n.get());
        *y.val_mut() += v;
        if T::HAS_GRAD {
            a.pull(y, -d);
        }
    }
    #[inline(always)]
    fn sub(y: &mut T, a: &mut A, n: &mut B) {
        let (v, d) = gradus_num::rules::powi(a.get(), n.get());
        *y.val_mut() -= v;
        if T::HAS_GRAD {
            a.pull(y, d);
        }
    }
}

// Integers: wrapping arithmetic, a bijection modulo 2ⁿ whatever the right-hand side.
macro_rules! int_instr {
    (@bin $i:ty; $($p:ident),*) => {$(
        impl<A: IArg<$i>, B: IArg<$i>> Acc2<$i, A, B> for super::prim::$p {
            #[inline(always)]
            fn add(y: &mut $i, a: &mut A, b: &mut B) {
                *y = y.wrapping_add(int_op::<$i, super::prim::$p>(a.get(), b.get()));
            }
            #[inline(always)]
            fn sub(y: &mut $i, a: &mut A, b: &mut B) {
                *y = y.wrapping_sub(int_op::<$i, super::prim::$p>(a.get(), b.get()));
            }
        }
        impl<A: IArg<$i>, B: IArg<$i>> Xor2<$i, A, B> for super::prim::$p {
            #[inline(always)]
            fn xor(y: &mut $i, a: &mut A, b: &mut B) {
                *y ^= int_op::<$i, super::prim::$p>(a.get(), b.get());
            }
        }
    )*};
    ($($i:ty),*) => {$(
        impl<A: IArg<$i>> Acc1<$i, A> for Id {
            #[inline(always)]
            fn add(y: &mut $i, a: &mut A) { *y = y.wrapping_add(a.get()); }
            #[inline(always)]
            fn sub(y: &mut $i, a: &mut A) { *y = y.wrapping_sub(a.get()); }
        }
        impl<A: IArg<$i>> Xor1<$i, A> for Id {
            #[inline(always)]
            fn xor(y: &mut $i, a: &mut A) { *y ^= a.get(); }
        }
        int_instr!(@bin $i; Add, Sub, Mul, Div);
        impl IntOps for $i {
            #[inline(always)]
            fn w_add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)]
            fn w_sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)]
            fn w_mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)]
            fn w_div(self, o: Self) -> Self { self.wrapping_div(o) }
        }
    )*};
}

/// Wrapping integer arithmetic used by the integer instructions.
pub trait IntOps: Copy {
    /// Wrapping `+`.
    fn w_add(self, o: Self) -> Self;
    /// Wrapping `−`.
    fn w_sub(self, o: Self) -> Self;
    /// Wrapping `·`.
    fn w_mul(self, o: Self) -> Self;
    /// Wrapping `/` (panics on division by zero, as Rust does).
    fn w_div(self, o: Self) -> Self;
}

#[inline(always)]
fn int_op<I: IntOps, P: Builtin2>(a: I, b: I) -> I {
    match P::EXACT {
        Exact::Add => a.w_add(b),
        Exact::Sub => a.w_sub(b),
        Exact::Mul => a.w_mul(b),
        Exact::Div => a.w_div(b),
        Exact::None => panic!("only + - * / are integer instructions"),
    }
}

int_instr!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl<A: BArg> Xor1<bool, A> for Id {
    #[inline(always)]
    fn xor(y: &mut bool, a: &mut A) {
        *y ^= a.get();
    }
}

/// An uninhabited type with placeholder `*=` instructions, so that rustc cannot infer the
/// target of `*=` from a single implementation and reports GR011 instead of a type mismatch.
#[doc(hidden)]
#[derive(Debug)]
pub enum NoTarget {}

macro_rules! no_target {
    ($($p:ident),*) => {$(
        impl MulAcc1<NoTarget, NoTarget> for super::prim::$p {
            fn mul(y: &mut NoTarget, _: &mut NoTarget) -> Result<(), &'static str> { match *y {} }
            fn div(y: &mut NoTarget, _: &mut NoTarget) -> Result<(), &'static str> { match *y {} }
        }
        impl MulAcc2<NoTarget, NoTarget, NoTarget> for super::prim::$p {
            fn mul(y: &mut NoTarget, _: &mut NoTarget, _: &mut NoTarget) -> Result<(), &'static str> { match *y {} }
            fn div(y: &mut NoTarget, _: &mut NoTarget, _: &mut NoTarget) -> Result<(), &'static str> { match *y {} }
        }
    )*};
}
no_target!(Id, Add, Sub, Mul, Div, Powf, ULogOf);
