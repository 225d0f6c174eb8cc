//! Forward-mode dual numbers: [`Dual`] (one tangent) and [`DualN`] (`N` tangents).

use crate::{Real, rules};
use std::cmp::Ordering;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, Sub, SubAssign};

/// A dual number `v + d ε` with `ε² = 0`: a value and one tangent (directional derivative).
///
/// Arithmetic and every [`Real`] function propagate the tangent by the chain rule, using the
/// partials of [`rules`]. Comparisons look at the value only.
///
/// ```
/// use gradus_num::{Dual, Real};
/// let x = Dual::variable(2.0);          // tangent 1: differentiate with respect to x
/// let y = x * x * x + x.sin();
/// assert_eq!(y.v, 8.0 + 2f64.sin());
/// assert_eq!(y.d, 12.0 + 2f64.cos());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub v: T,
    /// The tangent.
    pub d: T,
}

impl<T: Real> Dual<T> {
    /// A dual with value `v` and tangent `d`.
    #[inline]
    pub fn new(v: T, d: T) -> Self {
        Dual { v, d }
    }
    /// A constant: tangent 0.
    #[inline]
    pub fn constant(v: T) -> Self {
        Dual { v, d: T::zero() }
    }
    /// The variable of differentiation: tangent 1.
    #[inline]
    pub fn variable(v: T) -> Self {
        Dual { v, d: T::one() }
    }
    /// The value.
    #[inline]
    pub fn value(self) -> T {
        self.v
    }
    /// The tangent.
    #[inline]
    pub fn tangent(self) -> T {
        self.d
    }
    #[inline]
    fn unary(self, (v, p): (T, T)) -> Self {
        Dual { v, d: self.d * p }
    }
    #[inline]
    fn binary(self, o: Self, (v, pa, pb): (T, T, T)) -> Self {
        Dual {
            v,
            d: self.d * pa + o.d * pb,
        }
    }
    /// A value with zero derivative (rounding functions).
    #[inline]
    fn flat(v: T) -> Self {
        Dual::constant(v)
    }
}

/// A dual number with `N` tangents: `v + Σ dᵢ εᵢ` with `εᵢ εⱼ = 0`. Propagates `N` directional
/// derivatives at once (a forward Jacobian `N` columns at a time).
///
/// ```
/// use gradus_num::{DualN, Real};
/// let x = DualN::<f64, 2>::variable(3.0, 0);
/// let y = DualN::<f64, 2>::variable(4.0, 1);
/// let f = x * y + y.sqrt();
/// assert_eq!(f.d, [4.0, 3.0 + 0.25]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DualN<T, const N: usize> {
    /// The value.
    pub v: T,
    /// The tangents.
    pub d: [T; N],
}

impl<T: Real, const N: usize> Default for DualN<T, N> {
    fn default() -> Self {
        Self::constant(T::zero())
    }
}

impl<T: Real, const N: usize> DualN<T, N> {
    /// A dual with value `v` and tangents `d`.
    #[inline]
    pub fn new(v: T, d: [T; N]) -> Self {
        DualN { v, d }
    }
    /// A constant: all tangents 0.
    #[inline]
    pub fn constant(v: T) -> Self {
        DualN {
            v,
            d: [T::zero(); N],
        }
    }
    /// Variable number `i`: tangent `i` is 1, the others 0.
    ///
    /// # Panics
    /// If `i >= N`.
    #[inline]
    pub fn variable(v: T, i: usize) -> Self {
        let mut d = [T::zero(); N];
        d[i] = T::one();
        DualN { v, d }
    }
    /// The value.
    #[inline]
    pub fn value(self) -> T {
        self.v
    }
    #[inline]
    fn unary(self, (v, p): (T, T)) -> Self {
        DualN {
            v,
            d: self.d.map(|d| d * p),
        }
    }
    #[inline]
    fn binary(self, o: Self, (v, pa, pb): (T, T, T)) -> Self {
        let mut d = self.d;
        for (d, od) in d.iter_mut().zip(o.d) {
            *d = *d * pa + od * pb;
        }
        DualN { v, d }
    }
    #[inline]
    fn flat(v: T) -> Self {
        DualN::constant(v)
    }
}

macro_rules! impl_dual_common {
    ([$($gen:tt)*], $ty:ty) => {
        impl<$($gen)*> PartialEq for $ty {
            #[inline]
            fn eq(&self, other: &Self) -> bool {
                self.v == other.v
            }
        }
        impl<$($gen)*> PartialOrd for $ty {
            #[inline]
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.v.partial_cmp(&other.v)
            }
        }
        impl<$($gen)*> Add for $ty {
            type Output = Self;
            #[inline]
            fn add(self, o: Self) -> Self {
                self.binary(o, rules::add(self.v, o.v))
            }
        }
        impl<$($gen)*> Sub for $ty {
            type Output = Self;
            #[inline]
            fn sub(self, o: Self) -> Self {
                self.binary(o, rules::sub(self.v, o.v))
            }
        }
        impl<$($gen)*> Mul for $ty {
            type Output = Self;
            #[inline]
            fn mul(self, o: Self) -> Self {
                self.binary(o, rules::mul(self.v, o.v))
            }
        }
        impl<$($gen)*> Div for $ty {
            type Output = Self;
            #[inline]
            fn div(self, o: Self) -> Self {
                self.binary(o, rules::div(self.v, o.v))
            }
        }
        impl<$($gen)*> Rem for $ty {
            type Output = Self;
            #[inline]
            fn rem(self, o: Self) -> Self {
                self.binary(o, rules::rem(self.v, o.v))
            }
        }
        impl<$($gen)*> Neg for $ty {
            type Output = Self;
            #[inline]
            fn neg(self) -> Self {
                self.unary((-self.v, -T::one()))
            }
        }
        impl<$($gen)*> Add<T> for $ty {
            type Output = Self;
            #[inline]
            fn add(self, o: T) -> Self {
                self.unary((self.v + o, T::one()))
            }
        }
        impl<$($gen)*> Sub<T> for $ty {
            type Output = Self;
            #[inline]
            fn sub(self, o: T) -> Self {
                self.unary((self.v - o, T::one()))
            }
        }
        impl<$($gen)*> Mul<T> for $ty {
            type Output = Self;
            #[inline]
            fn mul(self, o: T) -> Self {
                self.unary((self.v * o, o))
            }
        }
        impl<$($gen)*> Div<T> for $ty {
            type Output = Self;
            #[inline]
            fn div(self, o: T) -> Self {
                let r = o.recip();
                self.unary((self.v / o, r))
            }
        }
        impl<$($gen)*> AddAssign for $ty {
            #[inline]
            fn add_assign(&mut self, o: Self) {
                *self = *self + o;
            }
        }
        impl<$($gen)*> SubAssign for $ty {
            #[inline]
            fn sub_assign(&mut self, o: Self) {
                *self = *self - o;
            }
        }
        impl<$($gen)*> MulAssign for $ty {
            #[inline]
            fn mul_assign(&mut self, o: Self) {
                *self = *self * o;
            }
        }
        impl<$($gen)*> DivAssign for $ty {
            #[inline]
            fn div_assign(&mut self, o: Self) {
                *self = *self / o;
            }
        }
        impl<$($gen)*> Sum for $ty {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::flat(T::zero()), |a, b| a + b)
            }
        }
        impl<$($gen)*> Real for $ty {
            #[inline]
            fn from_f64(x: f64) -> Self {
                Self::flat(T::from_f64(x))
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self.v.to_f64()
            }
            #[inline]
            fn sqrt(self) -> Self {
                self.unary(rules::sqrt(self.v))
            }
            #[inline]
            fn cbrt(self) -> Self {
                self.unary(rules::cbrt(self.v))
            }
            #[inline]
            fn rsqrt(self) -> Self {
                self.unary(rules::rsqrt(self.v))
            }
            #[inline]
            fn exp(self) -> Self {
                self.unary(rules::exp(self.v))
            }
            #[inline]
            fn exp2(self) -> Self {
                self.unary(rules::exp2(self.v))
            }
            #[inline]
            fn ln(self) -> Self {
                self.unary(rules::ln(self.v))
            }
            #[inline]
            fn log2(self) -> Self {
                self.unary(rules::log2(self.v))
            }
            #[inline]
            fn log10(self) -> Self {
                self.unary(rules::log10(self.v))
            }
            #[inline]
            fn log1p(self) -> Self {
                self.unary(rules::log1p(self.v))
            }
            #[inline]
            fn expm1(self) -> Self {
                self.unary(rules::expm1(self.v))
            }
            #[inline]
            fn sin(self) -> Self {
                self.unary(rules::sin(self.v))
            }
            #[inline]
            fn cos(self) -> Self {
                self.unary(rules::cos(self.v))
            }
            #[inline]
            fn tan(self) -> Self {
                self.unary(rules::tan(self.v))
            }
            #[inline]
            fn asin(self) -> Self {
                self.unary(rules::asin(self.v))
            }
            #[inline]
            fn acos(self) -> Self {
                self.unary(rules::acos(self.v))
            }
            #[inline]
            fn atan(self) -> Self {
                self.unary(rules::atan(self.v))
            }
            #[inline]
            fn atan2(self, x: Self) -> Self {
                self.binary(x, rules::atan2(self.v, x.v))
            }
            #[inline]
            fn sinh(self) -> Self {
                self.unary(rules::sinh(self.v))
            }
            #[inline]
            fn cosh(self) -> Self {
                self.unary(rules::cosh(self.v))
            }
            #[inline]
            fn tanh(self) -> Self {
                self.unary(rules::tanh(self.v))
            }
            #[inline]
            fn asinh(self) -> Self {
                self.unary(rules::asinh(self.v))
            }
            #[inline]
            fn acosh(self) -> Self {
                self.unary(rules::acosh(self.v))
            }
            #[inline]
            fn atanh(self) -> Self {
                self.unary(rules::atanh(self.v))
            }
            #[inline]
            fn powi(self, n: i32) -> Self {
                self.unary(rules::powi(self.v, n))
            }
            #[inline]
            fn powf(self, p: Self) -> Self {
                self.binary(p, rules::powf(self.v, p.v))
            }
            #[inline]
            fn abs(self) -> Self {
                self.unary(rules::abs(self.v))
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                if other.v < self.v || self.v.is_nan() { other } else { self }
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                if other.v > self.v || self.v.is_nan() { other } else { self }
            }
            #[inline]
            fn hypot(self, other: Self) -> Self {
                self.binary(other, rules::hypot(self.v, other.v))
            }
            #[inline]
            fn erf(self) -> Self {
                self.unary(rules::erf(self.v))
            }
            #[inline]
            fn erfc(self) -> Self {
                self.unary(rules::erfc(self.v))
            }
            #[inline]
            fn gamma(self) -> Self {
                self.unary(rules::gamma(self.v))
            }
            #[inline]
            fn lgamma(self) -> Self {
                self.unary(rules::lgamma(self.v))
            }
            #[inline]
            fn floor(self) -> Self {
                Self::flat(self.v.floor())
            }
            #[inline]
            fn ceil(self) -> Self {
                Self::flat(self.v.ceil())
            }
            #[inline]
            fn round(self) -> Self {
                Self::flat(self.v.round())
            }
            #[inline]
            fn trunc(self) -> Self {
                Self::flat(self.v.trunc())
            }
            #[inline]
            fn signum(self) -> Self {
                Self::flat(self.v.signum())
            }
            #[inline]
            fn copysign(self, sign: Self) -> Self {
                self.binary(sign, rules::copysign(self.v, sign.v))
            }
            #[inline]
            fn nextafter(self, towards: Self) -> Self {
                self.binary(towards, rules::nextafter(self.v, towards.v))
            }
            #[inline]
            fn recip(self) -> Self {
                self.unary(rules::recip(self.v))
            }
            #[inline]
            fn square(self) -> Self {
                self.unary(rules::square(self.v))
            }
        }
    };
}

impl_dual_common!([T: Real], Dual<T>);
impl_dual_common!([T: Real, const N: usize], DualN<T, N>);

macro_rules! impl_scalar_lhs {
    ($t:ty) => {
        impl Add<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline]
            fn add(self, o: Dual<$t>) -> Dual<$t> {
                o + self
            }
        }
        impl Sub<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline]
            fn sub(self, o: Dual<$t>) -> Dual<$t> {
                Dual::constant(self) - o
            }
        }
        impl Mul<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline]
            fn mul(self, o: Dual<$t>) -> Dual<$t> {
                o * self
            }
        }
        impl Div<Dual<$t>> for $t {
            type Output = Dual<$t>;
            #[inline]
            fn div(self, o: Dual<$t>) -> Dual<$t> {
                Dual::constant(self) / o
            }
        }
    };
}
impl_scalar_lhs!(f64);
impl_scalar_lhs!(f32);
