//! Forward-mode automatic differentiation and the plain-math trait [`Real`], shared by the
//! gradus engines (the tape, `gradus-tape`, and the reversible eDSL, `gradus-rev`).
//!
//! * [`Real`] is the trait of scalar math that `f64`, `f32`, [`Dual`], [`DualN`] and the
//!   tape's `Var` implement, so a numerical function written once as
//!   `fn f<S: Real>(x: &[S]) -> S` runs as the primal (`f64`), in forward mode (`Dual`) and in
//!   reverse mode (`gradus_tape::Var`).
//! * [`Dual<T>`] carries one tangent, [`DualN<T, N>`] carries `N` tangents at once.
//! * [`rules`] is the one table of partial derivatives of the elementary functions
//!   (docs/language.md §Partial derivatives, docs/reversible.md §Adjoint rules), including the
//!   conventions at kinks; every engine that differentiates an elementary function takes its
//!   partials from there.
//! * [`jvp`], [`derivative`], [`grad_fwd`], [`jacobian_fwd`], [`hvp_fwd`] and
//!   [`hessian_fwd`] are the forward-mode drivers. They follow the vocabulary shared by the
//!   engines (`docs/vocabulary.md`): the point `x` first, then the tangent `xdot`, the function
//!   last. The `_fwd` suffix marks drivers whose cost grows with the number of inputs, where a
//!   reverse-mode engine offers the same name without it (`gradus_tape::grad`).
//!
//! ```
//! use gradus_num::{Dual, Real, jvp};
//!
//! fn f<S: Real>(x: &[S]) -> S {
//!     x[0] * x[1].sin() + x[0].exp()
//! }
//! // Primal.
//! let y = f(&[1.0, 2.0]);
//! // Directional derivative in direction (1, 0): d/dx0 = sin(x1) + exp(x0).
//! let (y2, ydot) = jvp(&[1.0, 2.0], &[1.0, 0.0], |x| vec![f(x)]);
//! assert_eq!(y, y2[0]);
//! assert!((ydot[0] - (2f64.sin() + 1f64.exp())).abs() < 1e-15);
//! // The same with an explicit dual number.
//! let d = f(&[Dual::variable(1.0), Dual::constant(2.0)]);
//! assert_eq!(d.d, ydot[0]);
//! ```

#![deny(missing_docs)]

mod dual;
mod forward;
mod real;
pub mod rules;
mod special;

pub use dual::{Dual, DualN};
pub use forward::{derivative, grad_fwd, hessian_fwd, hvp_fwd, jacobian_fwd, jvp};
pub use real::Real;
pub use special::{digamma, trigamma};

/// Deprecated name of [`grad_fwd`].
#[deprecated(note = "use grad_fwd")]
pub fn gradient_fwd<F>(x: &[f64], f: F) -> (f64, Vec<f64>)
where
    F: Fn(&[Dual<f64>]) -> Dual<f64>,
{
    grad_fwd(x, f)
}
