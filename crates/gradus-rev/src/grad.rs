//! Argument wrapping for `*_grad` (docs/reversible.md §Gradients) and the Jacobian and Hessian
//! drivers (docs/reversible.md §Jacobians and Hessians).
//!
//! The drivers follow the vocabulary shared by the gradus engines (`docs/vocabulary.md`): the
//! point `x` first, then the tangent `xdot`, the function last. Here the function is a closure
//! around a generated `f_inv::<GVar<_>>` or `f_grad`, which the drivers call with seeds.

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

/// Repeated reverse (docs/reversible.md §Jacobians and Hessians): the `m × n` Jacobian of a
/// function with `m` outputs, as rows. Row `i` is the input cotangent of `ybar = eᵢ`: `f(ybar)`
/// runs one backward sweep — typically `f_inv` on `GVar`s whose output gradients are `ybar` — and
/// returns the input gradients.
///
/// ```
/// use gradus_rev::prelude::*;
///
/// /// (y0, y1) += (a·b, a + b)
/// #[reversible]
/// fn pair<T: RevReal>(y: &mut [T; 2], a: &mut T, b: &mut T) {
///     y[0] += a * b;
///     y[1] += a + b;
/// }
///
/// let (mut y, mut a, mut b) = ([0.0; 2], 2.0, 3.0);
/// pair(&mut y, &mut a, &mut b).unwrap();
/// let j = gradus_rev::jacobian(2, |ybar| {
///     let mut wy = [GVar::with_grad(y[0], ybar[0]), GVar::with_grad(y[1], ybar[1])];
///     let (mut wa, mut wb) = (GVar::new(a), GVar::new(b));
///     pair_inv(&mut wy, &mut wa, &mut wb).unwrap();
///     vec![wa.grad(), wb.grad()]
/// });
/// assert_eq!(j, vec![vec![3.0, 2.0], vec![1.0, 1.0]]);
/// ```
pub fn jacobian<F>(m: usize, mut f: F) -> Vec<Vec<f64>>
where
    F: FnMut(&[f64]) -> Vec<f64>,
{
    let mut ybar = vec![0.0; m];
    (0..m)
        .map(|i| {
            ybar[i] = 1.0;
            let row = f(&ybar);
            ybar[i] = 0.0;
            row
        })
        .collect()
}

/// Forward over reverse (docs/reversible.md §Jacobians and Hessians): the gradient and the
/// Hessian-vector product `H(x) xdot` of a scalar function in one gradient evaluation on dual
/// numbers. `f` gets the inputs `x + xdot ε` as [`Dual`]s, runs the gradient on them (typically
/// `f_grad::<Dual<f64>>`) and returns it; its values are the gradient and its tangents `H xdot`.
///
/// # Panics
/// If `x` and `xdot` differ in length, or the returned gradient does not have `x`'s length.
///
/// ```
/// use gradus_rev::prelude::*;
///
/// #[reversible(loss = y)]
/// fn cube<T: RevReal>(y: &mut T, x: &mut T) {
///     y += powi(x, 3);
/// }
///
/// let (g, hv) = gradus_rev::hvp(&[2.0], &[0.5], |x| {
///     let (mut y, mut xd) = (Dual::constant(0.0), x[0]);
///     vec![cube_grad(&mut y, &mut xd).unwrap().1]
/// });
/// assert_eq!((g, hv), (vec![12.0], vec![6.0]));
/// ```
pub fn hvp<F>(x: &[f64], xdot: &[f64], f: F) -> (Vec<f64>, Vec<f64>)
where
    F: FnOnce(&[Dual<f64>]) -> Vec<Dual<f64>>,
{
    assert_eq!(
        x.len(),
        xdot.len(),
        "hvp: x has length {} but xdot has length {}",
        x.len(),
        xdot.len()
    );
    let xs: Vec<Dual<f64>> = x.iter().zip(xdot).map(|(&v, &d)| Dual::new(v, d)).collect();
    let g = f(&xs);
    assert_eq!(
        g.len(),
        x.len(),
        "hvp: gradient length differs from input length"
    );
    (
        g.iter().map(|d| d.v).collect(),
        g.iter().map(|d| d.d).collect(),
    )
}

/// Forward over reverse (docs/reversible.md §Jacobians and Hessians): the `n × n` Hessian of a
/// scalar function, column by column. `f` gets the inputs `x + eⱼ ε` as [`Dual`]s, runs the
/// gradient on them (typically `f_grad::<Dual<f64>>`) and returns it; its tangent parts are column
/// `j` (`H eⱼ`). Returns the matrix as rows.
///
/// # Panics
/// If a returned gradient does not have `x`'s length.
///
/// ```
/// use gradus_rev::prelude::*;
///
/// #[reversible(loss = y)]
/// fn cube<T: RevReal>(y: &mut T, x: &mut T) {
///     y += powi(x, 3);
/// }
///
/// let h = gradus_rev::hessian(&[2.0], |x| {
///     let (mut y, mut xd) = (Dual::constant(0.0), x[0]);
///     vec![cube_grad(&mut y, &mut xd).unwrap().1]
/// });
/// assert_eq!(h, vec![vec![12.0]]);
/// ```
pub fn hessian<F>(x: &[f64], mut f: F) -> Vec<Vec<f64>>
where
    F: FnMut(&[Dual<f64>]) -> Vec<Dual<f64>>,
{
    let mut xs: Vec<Dual<f64>> = x.iter().map(|&v| Dual::constant(v)).collect();
    hessian_by_columns(x.len(), |seed| {
        for (xi, &s) in xs.iter_mut().zip(seed) {
            xi.d = s;
        }
        f(&xs)
    })
}

/// The Hessian from `column(eⱼ)`, the gradient on duals with tangents `eⱼ`, for each `j`.
fn hessian_by_columns<F>(n: usize, mut column: F) -> Vec<Vec<f64>>
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
            "hessian: gradient length differs from input length"
        );
        for (i, gi) in g.iter().enumerate() {
            h[i][j] = gi.d;
        }
    }
    h
}

pub use self::deprecated::*;

/// The previous names of the drivers, kept for one release. (A glob re-exports them, here and
/// at the crate root, because naming a deprecated item in a `use` is itself a deprecation
/// warning.)
pub(crate) mod deprecated {
    use gradus_num::Dual;

    /// Repeated reverse with the output index instead of the cotangent: row `i` is `row(i)`.
    #[deprecated(note = "use jacobian(m, f), whose f gets the cotangent ybar = e_i")]
    pub fn jacobian_rows<F>(m: usize, row: F) -> Vec<Vec<f64>>
    where
        F: FnMut(usize) -> Vec<f64>,
    {
        (0..m).map(row).collect()
    }

    /// The Hessian from `column(seed)`, the gradient on duals whose tangents are the unit
    /// vector `seed`.
    #[deprecated(note = "use hessian(x, f), whose f gets the inputs x + e_j ε as duals")]
    pub fn hessian_columns<F>(n: usize, column: F) -> Vec<Vec<f64>>
    where
        F: FnMut(&[f64]) -> Vec<Dual<f64>>,
    {
        super::hessian_by_columns(n, column)
    }
}

/// Gradient read-back helper: the `f64` values of a slice of plain scalars.
pub fn to_f64_vec<S: Real>(v: &[S]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}
