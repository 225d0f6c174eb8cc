//! `GVar`: a value with its gradient (adjoint) field (docs/reversible.md §GVar).

use crate::scalar::{Release, RevReal};
use gradus_num::Real;
use std::cmp::Ordering;
use std::fmt::Debug;

/// The gradient field of a [`GVar`]: a scalar `T`, or `[T; M]` for a batched gradient
/// (one Jacobian column per input in one backward sweep, docs/reversible.md §Jacobians and
/// Hessians).
pub trait GradField<T>: Copy + Debug {
    /// Zero.
    fn zero() -> Self;
    /// `self += k · src`.
    fn add_scaled(&mut self, src: &Self, k: T);
    /// `self ← −self`.
    fn negate(&mut self);
    /// `(a, b) ← (c·a − s·b, s·a + c·b)`.
    fn rotate(a: &mut Self, b: &mut Self, c: T, s: T);
}

impl<T: Real> GradField<T> for T {
    #[inline(always)]
    fn zero() -> Self {
        T::zero()
    }
    #[inline(always)]
    fn add_scaled(&mut self, src: &Self, k: T) {
        *self += k * *src;
    }
    #[inline(always)]
    fn negate(&mut self) {
        *self = -*self;
    }
    #[inline(always)]
    fn rotate(a: &mut Self, b: &mut Self, c: T, s: T) {
        let (x, y) = (*a, *b);
        *a = c * x - s * y;
        *b = s * x + c * y;
    }
}

impl<T: Real, const M: usize> GradField<T> for [T; M] {
    #[inline(always)]
    fn zero() -> Self {
        [T::zero(); M]
    }
    #[inline(always)]
    fn add_scaled(&mut self, src: &Self, k: T) {
        for (a, b) in self.iter_mut().zip(src) {
            *a += k * *b;
        }
    }
    #[inline(always)]
    fn negate(&mut self) {
        for a in self.iter_mut() {
            *a = -*a;
        }
    }
    #[inline(always)]
    fn rotate(a: &mut Self, b: &mut Self, c: T, s: T) {
        for (x, y) in a.iter_mut().zip(b.iter_mut()) {
            GradField::rotate(x, y, c, s);
        }
    }
}

/// A value `x` and its gradient `g`. Comparisons look at values only, so conditions behave
/// identically on `T` and `GVar<T>`.
#[derive(Clone, Copy, Debug)]
pub struct GVar<T, G = T> {
    /// The value.
    pub x: T,
    /// The gradient (adjoint).
    pub g: G,
}

impl<T: Real, G: GradField<T>> GVar<T, G> {
    /// Value `x`, zero gradient.
    #[inline]
    pub fn new(x: T) -> Self {
        GVar { x, g: G::zero() }
    }
    /// Value `x`, gradient `g`.
    #[inline]
    pub fn with_grad(x: T, g: G) -> Self {
        GVar { x, g }
    }
    /// The value.
    #[inline]
    pub fn value(&self) -> T {
        self.x
    }
    /// The gradient.
    #[inline]
    pub fn grad(&self) -> G {
        self.g
    }
}

impl<T: PartialEq, G> PartialEq for GVar<T, G> {
    fn eq(&self, o: &Self) -> bool {
        self.x == o.x
    }
}
impl<T: PartialOrd, G> PartialOrd for GVar<T, G> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        self.x.partial_cmp(&o.x)
    }
}

impl<T: Real, G: GradField<T>> RevReal for GVar<T, G> {
    type Val = T;
    const HAS_GRAD: bool = true;
    #[inline(always)]
    fn val(&self) -> T {
        self.x
    }
    #[inline(always)]
    fn val_mut(&mut self) -> &mut T {
        &mut self.x
    }
    #[inline(always)]
    fn from_val(v: T) -> Self {
        GVar::new(v)
    }
    #[inline(always)]
    fn pull(&mut self, src: &Self, k: T) {
        self.g.add_scaled(&src.g, k);
    }
    #[inline(always)]
    fn neg_grad(&mut self) {
        self.g.negate();
    }
    #[inline(always)]
    fn rot_grad(a: &mut Self, b: &mut Self, c: T, s: T) {
        G::rotate(&mut a.g, &mut b.g, c, s);
    }
}

impl<T: Real, G: GradField<T>> Release for GVar<T, G> {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        let (a, b) = (self.x.to_f64(), e.x.to_f64());
        a == b || (a - b).abs() <= atol
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        atol
    }
}
