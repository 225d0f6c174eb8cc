//! What `saddle` and `particle` share: a gradient-descent optimiser written over
//! [`gradus_num::Real`] (so that an outer derivative can be taken through it), and the two ways
//! of taking an inner gradient whose result must itself carry an outer derivative.
//!
//! An inner gradient by forward mode runs on `Dual<S>` for the outer scalar `S` (`Dual<f64>`
//! under an outer forward mode, `Var` under an outer reverse mode), so the nesting is done by
//! the types. An inner gradient by reverse mode is a recording of its own on the tape, which
//! records `f64` only; its derivative is supplied by a rule ([`TapeGrad`]): the tangent of
//! `∇f(x)` along `ẋ` is the Hessian-vector product `H ẋ` (from [`gradus_tape::hvp`]) under an
//! outer forward mode, and under an outer reverse mode the gradient enters the outer recording
//! as nodes whose partials are the rows of the Hessian.

use gradus_num::{Dual, Real};
use gradus_tape::Var;

/// A scalar function of a fixed problem, callable on any [`Real`].
pub trait Objective {
    /// The function's value at `x`.
    fn eval<S: Real>(x: &[S]) -> S;
}

/// A scalar whose gradient of an [`Objective`] the tape can take, carrying this scalar's own
/// derivative along.
pub trait TapeGrad: Real {
    /// `∇O(x)`, by the tape, as scalars of this type.
    fn tape_grad<O: Objective>(x: &[Self]) -> Vec<Self>;
}

fn values<S: Real>(x: &[S]) -> Vec<f64> {
    x.iter().map(|v| v.to_f64()).collect()
}

impl TapeGrad for f64 {
    fn tape_grad<O: Objective>(x: &[f64]) -> Vec<f64> {
        gradus_tape::grad(x, |v| O::eval(v)).1
    }
}

impl TapeGrad for Dual<f64> {
    fn tape_grad<O: Objective>(x: &[Self]) -> Vec<Self> {
        let tangents: Vec<f64> = x.iter().map(|v| v.d).collect();
        let (_, g, hv) = gradus_tape::hvp(&values(x), &tangents, |v| O::eval(v));
        g.into_iter()
            .zip(hv)
            .map(|(g, h)| Dual::new(g, h))
            .collect()
    }
}

impl<'r> TapeGrad for Var<'r> {
    fn tape_grad<O: Objective>(x: &[Self]) -> Vec<Self> {
        let n = x.len();
        let at = values(x);
        let mut unit = vec![0.0; n];
        let mut rows = Vec::with_capacity(n);
        let mut g = Vec::new();
        for j in 0..n {
            unit[j] = 1.0;
            let (_, grad, column) = gradus_tape::hvp(&at, &unit, |v| O::eval(v));
            unit[j] = 0.0;
            rows.push(column);
            g = grad;
        }
        // The Hessian is symmetric: column j is row j. Each component is its value plus
        // Σⱼ Hᵢⱼ (xⱼ − value(xⱼ)), which is exactly that value with partials Hᵢⱼ.
        let offsets: Vec<Var<'r>> = x.iter().map(|&v| v - Var::constant(v.value())).collect();
        (0..n)
            .map(|i| {
                let terms: Vec<Var<'r>> = (0..n)
                    .map(|j| Var::constant(rows[j][i]) * offsets[j])
                    .collect();
                Var::constant(g[i]) + gradus_tape::sum(&terms)
            })
            .collect()
    }
}

/// How an inner gradient is taken.
pub trait InnerMode {
    /// `∇O(x)`.
    fn grad<S: TapeGrad, O: Objective>(x: &[S]) -> Vec<S>;
}

/// Inner gradients by forward mode (`Dual<S>`, one pass per input).
pub struct Forward;

/// Inner gradients by reverse mode (a recording on the tape).
pub struct Reverse;

impl InnerMode for Forward {
    fn grad<S: TapeGrad, O: Objective>(x: &[S]) -> Vec<S> {
        let mut xs: Vec<Dual<S>> = x.iter().map(|&v| Dual::constant(v)).collect();
        (0..x.len())
            .map(|i| {
                xs[i].d = S::one();
                let d = O::eval(&xs).d;
                xs[i].d = S::zero();
                d
            })
            .collect()
    }
}

impl InnerMode for Reverse {
    fn grad<S: TapeGrad, O: Objective>(x: &[S]) -> Vec<S> {
        S::tape_grad::<O>(x)
    }
}

fn norm<S: Real>(v: impl Iterator<Item = S>) -> f64 {
    v.map(|x| x * x).sum::<S>().sqrt().to_f64()
}

/// The argmin of `f` from `x0` by gradient descent with an adaptive step: start with step
/// 10⁻⁵, double it after 10 accepted steps in a row, halve it on a step that does not decrease
/// `f`; stop when the gradient or the step is at most 10⁻⁵ in norm. Decisions look at values
/// only, so derivatives flow through the accepted iterates.
pub fn argmin<S: Real>(f: impl Fn(&[S]) -> S, grad: impl Fn(&[S]) -> Vec<S>, x0: &[S]) -> Vec<S> {
    let mut x = x0.to_vec();
    let mut fx = f(&x);
    let mut gx = grad(&x);
    let mut eta = 1e-5;
    let mut accepted = 0;
    loop {
        if norm(gx.iter().copied()) <= 1e-5 {
            return x;
        }
        if accepted == 10 {
            eta *= 2.0;
            accepted = 0;
            continue;
        }
        let step = S::from_f64(eta);
        let next: Vec<S> = x.iter().zip(&gx).map(|(&xi, &gi)| xi - step * gi).collect();
        if norm(x.iter().zip(&next).map(|(&a, &b)| a - b)) <= 1e-5 {
            return x;
        }
        let fnext = f(&next);
        if fnext.to_f64() < fx.to_f64() {
            x = next;
            fx = fnext;
            gx = grad(&x);
            accepted += 1;
        } else {
            eta /= 2.0;
            accepted = 0;
        }
    }
}

/// The argmax of `f` from `x0`: the argmin of `−f`.
pub fn argmax<S: Real>(f: impl Fn(&[S]) -> S, grad: impl Fn(&[S]) -> Vec<S>, x0: &[S]) -> Vec<S> {
    argmin(|x| -f(x), |x| grad(x).into_iter().map(|g| -g).collect(), x0)
}
