//! Fixed-point numbers (docs/reversible.md §Numeric types): `fixed::FixedI64<Frac>` and
//! `FixedI32<Frac>`; the reference type is [`I21F43`]. `+`, `−`, `·`, `/` are done in fixed point
//! (wrapping on the raw integer); other primitives are computed in `f64` and rounded to the fixed
//! type. Because `y += f(x)` and `y -= f(x)` add and subtract the very same rounded value, every
//! instruction is exactly invertible, bit for bit.
//!
//! Fixed-point programs get a forward and an inverse; `GVar` of a fixed type is not provided
//! (gradients of fixed-point programs are not implemented): `GVar<T>` needs `T:` [`RevReal`],
//! whose value type must implement `gradus_num::Real`, and that trait cannot be implemented
//! for the `fixed` crate's types outside `gradus-num` (orphan rule); it needs either a `Real`
//! impl in `gradus-num` or a newtype around the fixed types.
//!
//! [`RevReal`]: crate::RevReal

use crate::instr::acc::{Acc1, Acc2};
use crate::instr::prim::{Builtin1, Builtin2, Exact, Primitive1, Primitive2, User};
use crate::instr::unary::{IncDec, NegInstr};
use crate::scalar::{Const, Lit, Release};
use fixed::types::extra::{LeEqU32, LeEqU64};
use fixed::{FixedI32, FixedI64};

/// The fixed-point type with 21 integer and 43 fractional bits (NiLang's `Fixed43`).
pub type I21F43 = fixed::types::I21F43;

/// A read argument of a fixed-point instruction.
pub trait FArg<X> {
    /// The value.
    fn get(&self) -> X;
}

macro_rules! fixed_impls {
    ($fx:ident, $bound:ident) => {
        impl<F: $bound> FArg<$fx<F>> for $fx<F> {
            #[inline(always)]
            fn get(&self) -> $fx<F> {
                *self
            }
        }
        impl<F: $bound> FArg<$fx<F>> for Const<$fx<F>> {
            #[inline(always)]
            fn get(&self) -> $fx<F> {
                self.0
            }
        }
        impl<F: $bound> FArg<$fx<F>> for Lit<f64, $fx<F>> {
            #[inline(always)]
            fn get(&self) -> $fx<F> {
                $fx::<F>::wrapping_from_num(self.0)
            }
        }
        impl<F: $bound> FArg<$fx<F>> for Lit<i32, $fx<F>> {
            #[inline(always)]
            fn get(&self) -> $fx<F> {
                $fx::<F>::wrapping_from_num(self.0)
            }
        }

        impl<F: $bound, A: FArg<$fx<F>>, P: Builtin1> Acc1<$fx<F>, A> for P {
            #[inline(always)]
            fn add(y: &mut $fx<F>, a: &mut A) {
                *y = y.wrapping_add(unary::<$fx<F>, P>(a.get()));
            }
            #[inline(always)]
            fn sub(y: &mut $fx<F>, a: &mut A) {
                *y = y.wrapping_sub(unary::<$fx<F>, P>(a.get()));
            }
        }
        impl<F: $bound, A: FArg<$fx<F>>, P: Primitive1<f64>> Acc1<$fx<F>, A> for User<P> {
            #[inline(always)]
            fn add(y: &mut $fx<F>, a: &mut A) {
                *y = y.wrapping_add(<$fx<F> as FixedNum>::from_f64(P::eval(a.get().to_f64())));
            }
            #[inline(always)]
            fn sub(y: &mut $fx<F>, a: &mut A) {
                *y = y.wrapping_sub(<$fx<F> as FixedNum>::from_f64(P::eval(a.get().to_f64())));
            }
        }
        impl<F: $bound, A: FArg<$fx<F>>, B: FArg<$fx<F>>, P: Primitive2<f64>> Acc2<$fx<F>, A, B>
            for User<P>
        {
            #[inline(always)]
            fn add(y: &mut $fx<F>, a: &mut A, b: &mut B) {
                let v = P::eval(a.get().to_f64(), b.get().to_f64());
                *y = y.wrapping_add(<$fx<F> as FixedNum>::from_f64(v));
            }
            #[inline(always)]
            fn sub(y: &mut $fx<F>, a: &mut A, b: &mut B) {
                let v = P::eval(a.get().to_f64(), b.get().to_f64());
                *y = y.wrapping_sub(<$fx<F> as FixedNum>::from_f64(v));
            }
        }
        impl<F: $bound, A: FArg<$fx<F>>, B: FArg<$fx<F>>, P: Builtin2> Acc2<$fx<F>, A, B> for P {
            #[inline(always)]
            fn add(y: &mut $fx<F>, a: &mut A, b: &mut B) {
                let v = binary::<P, _>(a.get(), b.get(), |a, b| match P::EXACT {
                    Exact::Add => Some(a.wrapping_add(b)),
                    Exact::Sub => Some(a.wrapping_sub(b)),
                    Exact::Mul => Some(a.wrapping_mul(b)),
                    Exact::Div => Some(a.wrapping_div(b)),
                    Exact::None => None,
                });
                *y = y.wrapping_add(v);
            }
            #[inline(always)]
            fn sub(y: &mut $fx<F>, a: &mut A, b: &mut B) {
                let v = binary::<P, _>(a.get(), b.get(), |a, b| match P::EXACT {
                    Exact::Add => Some(a.wrapping_add(b)),
                    Exact::Sub => Some(a.wrapping_sub(b)),
                    Exact::Mul => Some(a.wrapping_mul(b)),
                    Exact::Div => Some(a.wrapping_div(b)),
                    Exact::None => None,
                });
                *y = y.wrapping_sub(v);
            }
        }
        impl<F: $bound> NegInstr for $fx<F> {
            #[inline(always)]
            fn neg_instr(&mut self) {
                *self = self.wrapping_neg();
            }
        }
        impl<F: $bound> IncDec for $fx<F> {
            #[inline(always)]
            fn inc(&mut self) {
                *self = self.wrapping_add($fx::<F>::wrapping_from_num(1));
            }
            #[inline(always)]
            fn dec(&mut self) {
                *self = self.wrapping_sub($fx::<F>::wrapping_from_num(1));
            }
        }
        impl<F: $bound> Release for $fx<F> {
            fn release_matches(&self, e: &Self, _atol: f64) -> bool {
                self == e
            }
        }
        impl<F: $bound> FixedNum for $fx<F> {
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self.to_num::<f64>()
            }
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                $fx::<F>::wrapping_from_num(x)
            }
        }
    };
}

/// Conversion between a fixed type and `f64` (round to nearest, ties to even).
pub trait FixedNum: Copy {
    /// To `f64`.
    fn to_f64(self) -> f64;
    /// From `f64`, rounded.
    fn from_f64(x: f64) -> Self;
}

#[inline(always)]
fn unary<X: FixedNum, P: Builtin1>(a: X) -> X {
    if P::IDENTITY {
        a
    } else {
        X::from_f64(P::eval(a.to_f64()))
    }
}

#[inline(always)]
fn binary<P: Builtin2, X: FixedNum>(a: X, b: X, exact: impl Fn(X, X) -> Option<X>) -> X {
    match exact(a, b) {
        Some(v) => v,
        None => X::from_f64(P::eval(a.to_f64(), b.to_f64())),
    }
}

fixed_impls!(FixedI64, LeEqU64);
fixed_impls!(FixedI32, LeEqU32);
