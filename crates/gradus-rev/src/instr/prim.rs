//! Primitive functions (docs/reversible.md §Instructions, §Adjoint rules, §New instructions): one
//! marker type per built-in name, each implementing [`Builtin1`] or [`Builtin2`] with the partial
//! derivatives of `gradus_num::rules` (the one derivative table shared by the gradus engines).
//!
//! User primitives implement the documented extension traits [`Primitive1<T>`] or
//! [`Primitive2<T>`] for every `T: Real`; the macro passes a user callee `P` as the marker
//! [`User<P>`], which gets `+=`/`-=` instructions on every scalar type, `GVar` and fixed point
//! included. (The built-ins use their own traits so that `powi`, whose exponent is an integer,
//! can have an instruction of its own without overlapping the generic one.)

use gradus_num::{Real, rules};
use std::marker::PhantomData;

/// A one-argument built-in primitive `f`: `y += f(a)`.
pub trait Builtin1 {
    /// `f(a)`.
    fn eval<T: Real>(a: T) -> T;
    /// `f′(a)`.
    fn deriv<T: Real>(a: T) -> T;
    /// `(f(a), f′(a))`; override when the two share work.
    #[inline(always)]
    fn eval_deriv<T: Real>(a: T) -> (T, T) {
        (Self::eval(a), Self::deriv(a))
    }
    /// Whether `f` is the identity (exact on fixed point and integers).
    const IDENTITY: bool = false;
}

/// A two-argument built-in primitive `f`: `y += f(a, b)`.
pub trait Builtin2 {
    /// `f(a, b)`.
    fn eval<T: Real>(a: T, b: T) -> T;
    /// `(∂f/∂a, ∂f/∂b)`.
    fn grad<T: Real>(a: T, b: T) -> (T, T);
    /// `(f(a, b), ∂f/∂a, ∂f/∂b)`; override when they share work.
    #[inline(always)]
    fn eval_grad<T: Real>(a: T, b: T) -> (T, T, T) {
        let (da, db) = Self::grad(a, b);
        (Self::eval(a, b), da, db)
    }
    /// Which exact operation this is, if any (for fixed point and integers).
    const EXACT: Exact = Exact::None;
}

/// A user primitive of one argument (docs/reversible.md §New instructions): implement it for every
/// `T: Real`, and `y += MyFn(x)` works in reversible bodies on every scalar type, `GVar` included.
///
/// ```
/// use gradus_rev::Real;
/// use gradus_rev::prelude::*;
///
/// struct Softplus;
/// impl<T: Real> Primitive1<T> for Softplus {
///     fn eval(a: T) -> T { a.exp().log1p() }
///     fn deriv(a: T) -> T { T::one() / (T::one() + (-a).exp()) }
/// }
///
/// #[reversible(loss = y)]
/// fn soft<T: RevReal>(y: &mut T, x: &mut T) {
///     y += Softplus(x);
/// }
///
/// let (mut y, mut x) = (0.0, 0.0);
/// let (_, dx) = soft_grad(&mut y, &mut x).unwrap();
/// assert!((y - 2f64.ln()).abs() < 1e-15 && (dx - 0.5).abs() < 1e-15);
/// ```
pub trait Primitive1<T: Real> {
    /// `f(a)`.
    fn eval(a: T) -> T;
    /// `f′(a)`.
    fn deriv(a: T) -> T;
}

/// A user primitive of two arguments (docs/reversible.md §New instructions), implemented for every
/// `T: Real`.
pub trait Primitive2<T: Real> {
    /// `f(a, b)`.
    fn eval(a: T, b: T) -> T;
    /// `(∂f/∂a, ∂f/∂b)`.
    fn grad(a: T, b: T) -> (T, T);
}

/// The instruction marker of a user primitive `P` (what the macro passes for `y += P(…)`).
pub struct User<P>(PhantomData<P>);

/// The exactly representable two-argument operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// Not one of them.
    None,
    /// `a + b`.
    Add,
    /// `a − b`.
    Sub,
    /// `a · b`.
    Mul,
    /// `a / b`.
    Div,
}

/// `y += a` (the identity).
#[derive(Clone, Copy, Debug)]
pub struct Id;
impl Builtin1 for Id {
    #[inline(always)]
    fn eval<T: Real>(a: T) -> T {
        a
    }
    #[inline(always)]
    fn deriv<T: Real>(_: T) -> T {
        T::one()
    }
    const IDENTITY: bool = true;
}

macro_rules! prim1 {
    ($($(#[$m:meta])* $name:ident => $rule:path;)*) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl Builtin1 for $name {
            #[inline(always)]
            fn eval<T: Real>(a: T) -> T { $rule(a).0 }
            #[inline(always)]
            fn deriv<T: Real>(a: T) -> T { $rule(a).1 }
            #[inline(always)]
            fn eval_deriv<T: Real>(a: T) -> (T, T) { $rule(a) }
        }
    )*};
}
prim1! {
    /// `sqrt(a)`; derivative 0 at 0.
    Sqrt => rules::sqrt;
    /// `cbrt(a)`.
    Cbrt => rules::cbrt;
    /// `exp(a)`.
    Exp => rules::exp;
    /// `exp2(a)`.
    Exp2 => rules::exp2;
    /// `ln(a)`.
    Ln => rules::ln;
    /// `log1p(a)`.
    Log1p => rules::log1p;
    /// `expm1(a)`.
    Expm1 => rules::expm1;
    /// `sin(a)`.
    Sin => rules::sin;
    /// `cos(a)`.
    Cos => rules::cos;
    /// `tan(a)`.
    Tan => rules::tan;
    /// `asin(a)`.
    Asin => rules::asin;
    /// `acos(a)`.
    Acos => rules::acos;
    /// `atan(a)`.
    Atan => rules::atan;
    /// `sinh(a)`.
    Sinh => rules::sinh;
    /// `cosh(a)`.
    Cosh => rules::cosh;
    /// `tanh(a)`.
    Tanh => rules::tanh;
    /// `abs(a)`; derivative `sign(a)`, 0 at 0.
    Abs => rules::abs;
    /// `a²`.
    Square => rules::square;
    /// `1/a`.
    Recip => rules::recip;
}

macro_rules! prim2 {
    ($($(#[$m:meta])* $name:ident => $rule:path $(, $exact:ident)?;)*) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl Builtin2 for $name {
            #[inline(always)]
            fn eval<T: Real>(a: T, b: T) -> T { $rule(a, b).0 }
            #[inline(always)]
            fn grad<T: Real>(a: T, b: T) -> (T, T) { let r = $rule(a, b); (r.1, r.2) }
            #[inline(always)]
            fn eval_grad<T: Real>(a: T, b: T) -> (T, T, T) { $rule(a, b) }
            $(const EXACT: Exact = Exact::$exact;)?
        }
    )*};
}
prim2! {
    /// `a + b`.
    Add => rules::add, Add;
    /// `a − b`.
    Sub => rules::sub, Sub;
    /// `a · b`.
    Mul => rules::mul, Mul;
    /// `a / b`.
    Div => rules::div, Div;
    /// `atan2(a, b)`, the angle of the point `(b, a)`.
    Atan2 => rules::atan2;
    /// `powf(a, p)`.
    Powf => rules::powf;
    /// `hypot(a, b)`.
    Hypot => rules::hypot;
    /// `min(a, b)`; ties select `a`.
    Min => rules::min;
    /// `max(a, b)`; ties select `a`.
    Max => rules::max;
}

/// `powi(a, n)` with a constant integer exponent.
#[derive(Clone, Copy, Debug)]
pub struct Powi;

/// `ln(e^a + e^b)`, the logarithmic sum behind `ULog` addition.
#[derive(Clone, Copy, Debug)]
pub struct LogAddExp;
impl Builtin2 for LogAddExp {
    #[inline]
    fn eval<T: Real>(a: T, b: T) -> T {
        Self::eval_grad(a, b).0
    }
    #[inline]
    fn grad<T: Real>(a: T, b: T) -> (T, T) {
        let r = Self::eval_grad(a, b);
        (r.1, r.2)
    }
    #[inline]
    fn eval_grad<T: Real>(a: T, b: T) -> (T, T, T) {
        let (hi, lo, a_hi) = if a >= b { (a, b, true) } else { (b, a, false) };
        if lo.to_f64() == f64::NEG_INFINITY {
            return if a_hi {
                (a, T::one(), T::zero())
            } else {
                (b, T::zero(), T::one())
            };
        }
        let e = (lo - hi).exp();
        let v = hi + e.log1p();
        let w_lo = e / (T::one() + e);
        let w_hi = T::one() - w_lo;
        if a_hi {
            (v, w_hi, w_lo)
        } else {
            (v, w_lo, w_hi)
        }
    }
}

/// `ln(e^a − e^b)` for `a > b`, the logarithmic difference behind `ULog` subtraction.
#[derive(Clone, Copy, Debug)]
pub struct LogSubExp;
impl Builtin2 for LogSubExp {
    #[inline]
    fn eval<T: Real>(a: T, b: T) -> T {
        Self::eval_grad(a, b).0
    }
    #[inline]
    fn grad<T: Real>(a: T, b: T) -> (T, T) {
        let r = Self::eval_grad(a, b);
        (r.1, r.2)
    }
    #[inline]
    fn eval_grad<T: Real>(a: T, b: T) -> (T, T, T) {
        if b.to_f64() == f64::NEG_INFINITY {
            return (a, T::one(), T::zero());
        }
        let e = (b - a).exp(); // < 1
        let v = a + (-e).log1p();
        let d = T::one() - e;
        (v, T::one() / d, -e / d)
    }
}

/// Complex phase `arg z` into a real target.
#[derive(Clone, Copy, Debug)]
pub struct Phase;
/// `|z|²` into a real target.
#[derive(Clone, Copy, Debug)]
pub struct NormSqr;
/// `x += real(l)`: the value `e^log` of a logarithmic number.
#[derive(Clone, Copy, Debug)]
pub struct RealOf;
/// `l *= ulog(x)`: a positive real as a logarithmic number.
#[derive(Clone, Copy, Debug)]
pub struct ULogOf;
