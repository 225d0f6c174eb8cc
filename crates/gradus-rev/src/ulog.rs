//! Logarithmic numbers (docs/reversible.md §Numeric types): `ULog<T> { log }` stands for `e^log ≥
//! 0`. Multiplication is `+=` on `log`, so it is a bijection (except by zero), which makes running
//! products (`xⁿ`, Taylor and Bessel series) reversible without stored partial products.

use crate::instr::acc::{Acc1, Acc2, MulAcc1, MulAcc2};
use crate::instr::prim::{
    Add, Div, Exp, Id, Ln, LogAddExp, LogSubExp, Mul, Powf, RealOf, Sub, ULogOf,
};
use crate::scalar::{Arg, Release, RevReal};
use gradus_num::Real;
use std::cmp::Ordering;

/// An unsigned logarithmic number: the value `e^log`. Zero is `log = −∞`.
#[derive(Clone, Copy, Debug)]
pub struct ULog<T> {
    /// The logarithm of the value.
    pub log: T,
}

impl<T: RevReal> ULog<T> {
    /// One (`log = 0`).
    #[inline]
    pub fn one() -> Self {
        ULog { log: T::zero() }
    }
    /// Zero (`log = −∞`).
    #[inline]
    pub fn zero() -> Self {
        ULog {
            log: T::from_f64(f64::NEG_INFINITY),
        }
    }
    /// The logarithmic number with this (positive) value.
    #[inline]
    pub fn from_f64(x: f64) -> Self {
        ULog {
            log: T::from_f64(x.ln()),
        }
    }
    /// The value `e^log` as `f64`.
    #[inline]
    pub fn to_f64(&self) -> f64 {
        self.log.to_f64().exp()
    }
}

impl<T: PartialEq> PartialEq for ULog<T> {
    fn eq(&self, o: &Self) -> bool {
        self.log == o.log
    }
}
impl<T: PartialOrd> PartialOrd for ULog<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        self.log.partial_cmp(&o.log)
    }
}

impl<T: Release> Release for ULog<T> {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        self.log.release_matches(&e.log, atol)
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        self.log.release_tolerance(atol)
    }
}

#[inline(always)]
fn is_zero<T: RevReal>(l: &T) -> bool {
    l.to_f64() == f64::NEG_INFINITY
}

const BY_ZERO: &str = "multiplying or dividing a ULog by zero";

impl<T: RevReal> MulAcc1<ULog<T>, ULog<T>> for Id {
    #[inline(always)]
    fn mul(y: &mut ULog<T>, x: &mut ULog<T>) -> Result<(), &'static str> {
        if is_zero(&x.log) {
            return Err(BY_ZERO);
        }
        <Id as Acc1<T, T>>::add(&mut y.log, &mut x.log);
        Ok(())
    }
    #[inline(always)]
    fn div(y: &mut ULog<T>, x: &mut ULog<T>) -> Result<(), &'static str> {
        if is_zero(&x.log) {
            return Err(BY_ZERO);
        }
        <Id as Acc1<T, T>>::sub(&mut y.log, &mut x.log);
        Ok(())
    }
}

macro_rules! ulog_binary {
    ($($p:ident => $q:ident, |$a:ident, $b:ident| $bad:expr;)*) => {$(
        impl<T: RevReal> MulAcc2<ULog<T>, ULog<T>, ULog<T>> for $p {
            #[inline(always)]
            fn mul(y: &mut ULog<T>, a: &mut ULog<T>, b: &mut ULog<T>) -> Result<(), &'static str> {
                {
                    let ($a, $b) = (&a.log, &b.log);
                    if let Some(e) = $bad { return Err(e); }
                }
                <$q as Acc2<T, T, T>>::add(&mut y.log, &mut a.log, &mut b.log);
                Ok(())
            }
            #[inline(always)]
            fn div(y: &mut ULog<T>, a: &mut ULog<T>, b: &mut ULog<T>) -> Result<(), &'static str> {
                {
                    let ($a, $b) = (&a.log, &b.log);
                    if let Some(e) = $bad { return Err(e); }
                }
                <$q as Acc2<T, T, T>>::sub(&mut y.log, &mut a.log, &mut b.log);
                Ok(())
            }
        }
    )*};
}
ulog_binary! {
    Mul => Add, |a, b| (is_zero(a) || is_zero(b)).then_some(BY_ZERO);
    Div => Sub, |a, b| (is_zero(a) || is_zero(b)).then_some(BY_ZERO);
    Add => LogAddExp, |a, b| (is_zero(a) && is_zero(b)).then_some(BY_ZERO);
    Sub => LogSubExp, |a, b| (a.val() <= b.val()).then_some("ULog difference a − b with a ≤ b");
}

impl<T: RevReal, B: Arg<Scalar = T>> MulAcc2<ULog<T>, ULog<T>, B> for Powf {
    #[inline(always)]
    fn mul(y: &mut ULog<T>, a: &mut ULog<T>, p: &mut B) -> Result<(), &'static str> {
        if is_zero(&a.log) {
            return Err(BY_ZERO);
        }
        <Mul as Acc2<T, T, B>>::add(&mut y.log, &mut a.log, p);
        Ok(())
    }
    #[inline(always)]
    fn div(y: &mut ULog<T>, a: &mut ULog<T>, p: &mut B) -> Result<(), &'static str> {
        if is_zero(&a.log) {
            return Err(BY_ZERO);
        }
        <Mul as Acc2<T, T, B>>::sub(&mut y.log, &mut a.log, p);
        Ok(())
    }
}

impl<T: RevReal, A: Arg<Scalar = T>> MulAcc1<ULog<T>, A> for ULogOf {
    #[inline(always)]
    fn mul(y: &mut ULog<T>, x: &mut A) -> Result<(), &'static str> {
        if x.get() <= T::Val::zero() {
            return Err("ulog of a non-positive number");
        }
        <Ln as Acc1<T, A>>::add(&mut y.log, x);
        Ok(())
    }
    #[inline(always)]
    fn div(y: &mut ULog<T>, x: &mut A) -> Result<(), &'static str> {
        if x.get() <= T::Val::zero() {
            return Err("ulog of a non-positive number");
        }
        <Ln as Acc1<T, A>>::sub(&mut y.log, x);
        Ok(())
    }
}

impl<T: RevReal> Acc1<T, ULog<T>> for RealOf {
    #[inline(always)]
    fn add(y: &mut T, l: &mut ULog<T>) {
        <Exp as Acc1<T, T>>::add(y, &mut l.log);
    }
    #[inline(always)]
    fn sub(y: &mut T, l: &mut ULog<T>) {
        <Exp as Acc1<T, T>>::sub(y, &mut l.log);
    }
}
