//! Argument wrapping for `*_grad` (REVERSIBLE.md §7.2) and the Jacobian and Hessian drivers
//! (§7.5, §7.6).

use crate::complex::Complex;
use crate::gvar::GVar;
use crate::scalar::{GradScalar, RevReal};
use crate::ulog::ULog;
use gradus_num::{Dual, Real};

/// How a state parameter is wrapped into `GVar`s for the backward sweep and how its gradient
/// is read back: `S → GVar<S>`, `[X]`/`Vec<X> → Vec<…>`, `[X; N] → [… ; N]`,
/// `Complex<X> → Complex<…>`, `ULog<X> → ULog<…>` (gradient with respect to `log`).
pub trait GradParam<S: GradScalar> {
    /// The `GVar` form the inverse runs on.
    type Wrapped;
    /// The gradient returned to the caller.
    type Grad;
    /// Copies the value, wrapping every scalar into a `GVar` with zero gradient.
    fn wrap(&self) -> Self::Wrapped;
    /// Reads the gradient fields.
    fn grad(w: &Self::Wrapped) -> Self::Grad;
}

impl<S: GradScalar> GradParam<S> for S {
    type Wrapped = GVar<S>;
    type Grad = S;
    #[inline]
    fn wrap(&self) -> GVar<S> {
        GVar::new(*self)
    }
    #[inline]
    fn grad(w: &GVar<S>) -> S {
        w.g
    }
}

impl<S: GradScalar, X: GradParam<S>> GradParam<S> for [X] {
    type Wrapped = Vec<X::Wrapped>;
    type Grad = Vec<X::Grad>;
    fn wrap(&self) -> Self::Wrapped {
        self.iter().map(X::wrap).collect()
    }
    fn grad(w: &Self::Wrapped) -> Self::Grad {
        w.iter().map(X::grad).collect()
    }
}

impl<S: GradScalar, X: GradParam<S>> GradParam<S> for Vec<X> {
    type Wrapped = Vec<X::Wrapped>;
    type Grad = Vec<X::Grad>;
    fn wrap(&self) -> Self::Wrapped {
        self.iter().map(X::wrap).collect()
    }
    fn grad(w: &Self::Wrapped) -> Self::Grad {
        w.iter().map(X::grad).collect()
    }
}

impl<S: GradScalar, X: GradParam<S>, const N: usize> GradParam<S> for [X; N] {
    type Wrapped = [X::Wrapped; N];
    type Grad = [X::Grad; N];
    fn wrap(&self) -> Self::Wrapped {
        std::array::from_fn(|i| self[i].wrap())
    }
    fn grad(w: &Self::Wrapped) -> Self::Grad {
        std::array::from_fn(|i| X::grad(&w[i]))
    }
}

impl<S: GradScalar, X: GradParam<S>> GradParam<S> for Complex<X> {
    type Wrapped = Complex<X::Wrapped>;
    type Grad = Complex<X::Grad>;
    fn wrap(&self) -> Self::Wrapped {
        Complex::new(self.re.wrap(), self.im.wrap())
    }
    fn grad(w: &Self::Wrapped) -> Self::Grad {
        Complex::new(X::grad(&w.re), X::grad(&w.im))
    }
}

impl<S: GradScalar, X: GradParam<S>> GradParam<S> for ULog<X> {
    type Wrapped = ULog<X::Wrapped>;
    type Grad = ULog<X::Grad>;
    fn wrap(&self) -> Self::Wrapped {
        ULog {
            log: self.log.wrap(),
        }
    }
    fn grad(w: &Self::Wrapped) -> Self::Grad {
        ULog {
            log: X::grad(&w.log),
        }
    }
}

/// Seeds the loss: gradient one.
#[inline]
pub fn seed_loss<S: GradScalar>(w: &mut GVar<S>) {
    w.g = <S as RevReal>::one();
}

/// Repeated reverse (§7.5): row `i` of an `m`-output Jacobian is the gradient obtained by
/// seeding output `i`; `row(i)` runs one backward sweep and returns it.
pub fn jacobian_rows<F>(m: usize, mut row: F) -> Vec<Vec<f64>>
where
    F: FnMut(usize) -> Vec<f64>,
{
    (0..m).map(&mut row).collect()
}

/// Forward over reverse (§7.6): the `n × n` Hessian, column by column. `column(seed)` gets
/// the unit tangent `seed = e_j` (length `n`), runs the gradient on dual numbers whose
/// tangents are `seed` (typically `f_grad::<Dual<f64>>` on `Dual::new(x[i], seed[i])`) and
/// returns that gradient; its tangent parts are column `j` (`H e_j`). Returns the matrix as
/// rows. Panics if a returned gradient does not have length `n`.
///
/// ```
/// use gradus_rev::prelude::*;
///
/// #[reversible(loss = y)]
/// fn cube<T: RevReal>(y: &mut T, x: &mut T) {
///     y += powi(x, 3);
/// }
///
/// let x = 2.0;
/// let h = gradus_rev::hessian_columns(1, |seed| {
///     let (mut y, mut xd) = (Dual::constant(0.0), Dual::new(x, seed[0]));
///     vec![cube_grad(&mut y, &mut xd).unwrap().1]
/// });
/// assert_eq!(h, vec![vec![12.0]]);
/// ```
pub fn hessian_columns<F>(n: usize, mut column: F) -> Vec<Vec<f64>>
where
    F: FnMut(&[f64]) -> Vec<Dual<f64>>,
{
    let mut h = vec![vec![0.0; n]; n];
    let mut seed = vec![0.0; n];
    for j in 0..n {
        seed[j] = 1.0;
        let g = column(&seed);
        seed[j] = 0.0;
        assert_eq!(
            g.len(),
            n,
            "hessian_columns: gradient length differs from input length"
        );
        for (i, gi) in g.iter().enumerate() {
            h[i][j] = gi.d;
        }
    }
    h
}

/// Gradient read-back helper: the `f64` values of a slice of plain scalars.
pub fn to_f64_vec<S: Real>(v: &[S]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}
