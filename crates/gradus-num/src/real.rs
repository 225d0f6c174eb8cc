//! The plain-math trait and its implementations for `f64` and `f32`.

use std::fmt::Debug;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, Sub, SubAssign};

/// Scalar math shared by every gradus number type: `f64`, `f32`, [`Dual`](crate::Dual),
/// [`DualN`](crate::DualN) and the tape's `Var`.
///
/// Write a numerical function once as `fn f<S: Real>(x: &[S]) -> S` and run it as the primal,
/// in forward mode and in reverse mode. The elementary functions follow the derivative table of
/// [`rules`](crate::rules) (docs/language.md §Partial derivatives), including its conventions at
/// kinks: `abs′(0) = 0`, `sqrt′(0)` contributes 0, `min`/`max` send the derivative to the selected
/// operand and ties select the first (`self`).
///
/// Comparisons (`PartialEq`, `PartialOrd`) compare primal values only, so control flow written
/// with them follows the primal program. [`Real::to_f64`] reads the primal value.
///
/// The provided methods are defined by composition of the required ones (so they are
/// differentiated correctly by every implementation); implementations may override them for
/// speed or accuracy.
pub trait Real:
    Copy
    + Debug
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Sum
{
    /// A constant with value `x` (no derivative).
    fn from_f64(x: f64) -> Self;
    /// The primal value, as `f64`.
    fn to_f64(self) -> f64;

    /// The constant 0.
    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    /// The constant 1.
    fn one() -> Self {
        Self::from_f64(1.0)
    }
    /// Whether the primal value is NaN.
    fn is_nan(self) -> bool {
        self.to_f64().is_nan()
    }
    /// Whether the primal value is finite.
    fn is_finite(self) -> bool {
        self.to_f64().is_finite()
    }

    /// Square root; its derivative at 0 is taken as 0.
    fn sqrt(self) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// `e^x`.
    fn exp(self) -> Self;
    /// `2^x`.
    fn exp2(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// `ln(1 + x)`, accurate near 0.
    fn log1p(self) -> Self;
    /// `e^x − 1`, accurate near 0.
    fn expm1(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Arcsine.
    fn asin(self) -> Self;
    /// Arccosine.
    fn acos(self) -> Self;
    /// Arctangent.
    fn atan(self) -> Self;
    /// Four-quadrant arctangent of `self / x` (the angle of the point `(x, self)`).
    fn atan2(self, x: Self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Inverse hyperbolic sine.
    fn asinh(self) -> Self;
    /// Inverse hyperbolic cosine.
    fn acosh(self) -> Self;
    /// Inverse hyperbolic tangent.
    fn atanh(self) -> Self;
    /// Integer power.
    fn powi(self, n: i32) -> Self;
    /// Real power; `∂x = 0` where `x == 0 && p < 1`, `∂p = 0` where `x <= 0`.
    fn powf(self, p: Self) -> Self;
    /// Absolute value; derivative `sgn x`, 0 at 0.
    fn abs(self) -> Self;
    /// The smaller operand; a tie or a NaN `other` returns `self`, a NaN `self` returns `other`.
    fn min(self, other: Self) -> Self;
    /// The larger operand; a tie or a NaN `other` returns `self`, a NaN `self` returns `other`.
    fn max(self, other: Self) -> Self;
    /// `sqrt(x² + y²)` without overflow; derivative taken as 0 at the origin.
    fn hypot(self, other: Self) -> Self;
    /// Error function.
    fn erf(self) -> Self;
    /// Complementary error function.
    fn erfc(self) -> Self;
    /// The gamma function Γ.
    fn gamma(self) -> Self;
    /// `ln |Γ(x)|`.
    fn lgamma(self) -> Self;
    /// Largest integer not above `x` (derivative 0).
    fn floor(self) -> Self;
    /// Smallest integer not below `x` (derivative 0).
    fn ceil(self) -> Self;
    /// Nearest integer, ties away from zero (derivative 0).
    fn round(self) -> Self;
    /// Integer part (derivative 0).
    fn trunc(self) -> Self;
    /// Sign: 1, −1, or 0 for ±0 (derivative 0). Note: unlike `f64::signum`, 0 maps to 0.
    fn signum(self) -> Self;
    /// `|self|` with the sign of `sign`; derivatives `sgn self · sgn sign` and 0.
    fn copysign(self, sign: Self) -> Self;
    /// The next representable value after `self` towards `towards`; derivatives 1 and 0.
    fn nextafter(self, towards: Self) -> Self;

    /// `1/x`.
    fn recip(self) -> Self {
        Self::one() / self
    }
    /// `x²`.
    fn square(self) -> Self {
        self * self
    }
    /// `1/√x`.
    fn rsqrt(self) -> Self {
        self.sqrt().recip()
    }
    /// `self · a + b` (partials `a, self, 1`).
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
    /// Linear interpolation `self + (v1 − self) · t` (partials `1 − t, t, v1 − self`).
    fn lerp(self, v1: Self, t: Self) -> Self {
        self + (v1 - self) * t
    }
    /// `x · 2^k`.
    fn ldexp(self, k: i32) -> Self {
        self * Self::from_f64(2f64.powi(k))
    }
    /// `sin(πx)`.
    fn sinpi(self) -> Self {
        (self * Self::from_f64(std::f64::consts::PI)).sin()
    }
    /// `cos(πx)`.
    fn cospi(self) -> Self {
        (self * Self::from_f64(std::f64::consts::PI)).cos()
    }
    /// `tan(πx)`.
    fn tanpi(self) -> Self {
        (self * Self::from_f64(std::f64::consts::PI)).tan()
    }
    /// `asin(x)/π`.
    fn asinpi(self) -> Self {
        self.asin() / Self::from_f64(std::f64::consts::PI)
    }
    /// `acos(x)/π`.
    fn acospi(self) -> Self {
        self.acos() / Self::from_f64(std::f64::consts::PI)
    }
    /// `atan(x)/π`.
    fn atanpi(self) -> Self {
        self.atan() / Self::from_f64(std::f64::consts::PI)
    }
    /// `atan2(self, x)/π`.
    fn atan2pi(self, x: Self) -> Self {
        self.atan2(x) / Self::from_f64(std::f64::consts::PI)
    }
    /// The digamma function ψ = Γ′/Γ (see [`digamma`](crate::digamma)).
    fn digamma(self) -> Self {
        crate::special::digamma(self)
    }
    /// The trigamma function ψ′ (see [`trigamma`](crate::trigamma)).
    fn trigamma(self) -> Self {
        crate::special::trigamma(self)
    }

    /// The dot product `Σ uᵢ vᵢ`, summed in index order from 0 (the loop
    /// `acc = acc + u[i] * v[i]` from `acc = 0`). The tape's `Var` records it as one node.
    ///
    /// # Panics
    /// If `u` and `v` differ in length.
    fn dot(u: &[Self], v: &[Self]) -> Self {
        assert_eq!(
            u.len(),
            v.len(),
            "dot of slices of lengths {} and {}",
            u.len(),
            v.len()
        );
        u.iter()
            .zip(v)
            .fold(Self::zero(), |acc, (&a, &b)| acc + a * b)
    }
    /// The dot product `Σ uᵢ cᵢ` with constant weights `c`, summed in index order from 0. The
    /// tape's `Var` records it as one node.
    ///
    /// # Panics
    /// If `u` and `c` differ in length.
    fn dot_const(u: &[Self], c: &[f64]) -> Self {
        assert_eq!(
            u.len(),
            c.len(),
            "dot_const of slices of lengths {} and {}",
            u.len(),
            c.len()
        );
        u.iter()
            .zip(c)
            .fold(Self::zero(), |acc, (&a, &w)| acc + a * Self::from_f64(w))
    }
    /// The product `m v` of the row-major matrix `m`, of `v.len()` columns, and `v`: one
    /// [`dot`](Real::dot) per row.
    ///
    /// # Panics
    /// If `m.len()` is not a multiple of `v.len()` (or `v` is empty and `m` is not).
    fn matvec(m: &[Self], v: &[Self]) -> Vec<Self> {
        if v.is_empty() {
            assert!(
                m.is_empty(),
                "matvec of a matrix of {} entries and an empty vector",
                m.len()
            );
            return Vec::new();
        }
        assert!(
            m.len().is_multiple_of(v.len()),
            "matvec of a matrix of {} entries and a vector of length {} (not a multiple)",
            m.len(),
            v.len()
        );
        m.chunks_exact(v.len())
            .map(|row| Self::dot(row, v))
            .collect()
    }
}

macro_rules! impl_real_for_float {
    ($t:ident, $erf:path, $erfc:path, $tgamma:path, $lgamma:path, $nextafter:path) => {
        impl Real for $t {
            #[inline]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            #[inline]
            fn cbrt(self) -> Self {
                $t::cbrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                $t::exp(self)
            }
            #[inline]
            fn exp2(self) -> Self {
                $t::exp2(self)
            }
            #[inline]
            fn ln(self) -> Self {
                $t::ln(self)
            }
            #[inline]
            fn log2(self) -> Self {
                $t::log2(self)
            }
            #[inline]
            fn log10(self) -> Self {
                $t::log10(self)
            }
            #[inline]
            fn log1p(self) -> Self {
                $t::ln_1p(self)
            }
            #[inline]
            fn expm1(self) -> Self {
                $t::exp_m1(self)
            }
            #[inline]
            fn sin(self) -> Self {
                $t::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                $t::cos(self)
            }
            #[inline]
            fn tan(self) -> Self {
                $t::tan(self)
            }
            #[inline]
            fn asin(self) -> Self {
                $t::asin(self)
            }
            #[inline]
            fn acos(self) -> Self {
                $t::acos(self)
            }
            #[inline]
            fn atan(self) -> Self {
                $t::atan(self)
            }
            #[inline]
            fn atan2(self, x: Self) -> Self {
                $t::atan2(self, x)
            }
            #[inline]
            fn sinh(self) -> Self {
                $t::sinh(self)
            }
            #[inline]
            fn cosh(self) -> Self {
                $t::cosh(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                $t::tanh(self)
            }
            #[inline]
            fn asinh(self) -> Self {
                $t::asinh(self)
            }
            #[inline]
            fn acosh(self) -> Self {
                $t::acosh(self)
            }
            #[inline]
            fn atanh(self) -> Self {
                $t::atanh(self)
            }
            #[inline]
            fn powi(self, n: i32) -> Self {
                $t::powi(self, n)
            }
            #[inline]
            fn powf(self, p: Self) -> Self {
                $t::powf(self, p)
            }
            #[inline]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                // Ties and a NaN `other` select `self`, as the derivative table says.
                if other < self || self.is_nan() {
                    other
                } else {
                    self
                }
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                if other > self || self.is_nan() {
                    other
                } else {
                    self
                }
            }
            #[inline]
            fn hypot(self, other: Self) -> Self {
                $t::hypot(self, other)
            }
            #[inline]
            fn erf(self) -> Self {
                $erf(self)
            }
            #[inline]
            fn erfc(self) -> Self {
                $erfc(self)
            }
            #[inline]
            fn gamma(self) -> Self {
                $tgamma(self)
            }
            #[inline]
            fn lgamma(self) -> Self {
                $lgamma(self)
            }
            #[inline]
            fn floor(self) -> Self {
                $t::floor(self)
            }
            #[inline]
            fn ceil(self) -> Self {
                $t::ceil(self)
            }
            #[inline]
            fn round(self) -> Self {
                $t::round(self)
            }
            #[inline]
            fn trunc(self) -> Self {
                $t::trunc(self)
            }
            #[inline]
            fn signum(self) -> Self {
                if self == 0.0 { 0.0 } else { $t::signum(self) }
            }
            #[inline]
            fn copysign(self, sign: Self) -> Self {
                $t::copysign(self, sign)
            }
            #[inline]
            fn nextafter(self, towards: Self) -> Self {
                $nextafter(self, towards)
            }
            #[inline]
            fn recip(self) -> Self {
                $t::recip(self)
            }
            #[inline]
            fn square(self) -> Self {
                self * self
            }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self {
                $t::mul_add(self, a, b)
            }
            #[inline]
            fn ldexp(self, k: i32) -> Self {
                self * (2.0 as $t).powi(k)
            }
        }
    };
}

impl_real_for_float!(
    f64,
    libm::erf,
    libm::erfc,
    libm::tgamma,
    libm::lgamma,
    libm::nextafter
);
impl_real_for_float!(
    f32,
    libm::erff,
    libm::erfcf,
    libm::tgammaf,
    libm::lgammaf,
    libm::nextafterf
);
