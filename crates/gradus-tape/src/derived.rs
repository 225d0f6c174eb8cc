//! Drivers built on recordings: Jacobians by repeated pullbacks (docs/tape.md §Forward mode,
//! Jacobians and second order), and Hessian-vector products and Hessians by reverse mode over
//! forward mode.

use crate::record::record_raw;
use crate::reverse::{Adjoints, Buffers, ReverseOptions};
use crate::var::Var;
use gradus_num::Dual;
use rayon::prelude::*;

/// The Jacobian of `f` at `x`: records once and pulls back once per output (the pullbacks run
/// in parallel, each with its own adjoint buffer). Returns the outputs and the `m × n`
/// Jacobian as rows.
///
/// ```
/// use gradus_tape::jacobian;
/// let (y, j) = jacobian(&[2.0, 3.0], |x| vec![x[0] * x[1], x[0] - x[1]]);
/// assert_eq!(y, vec![6.0, -1.0]);
/// assert_eq!(j, vec![vec![3.0, 2.0], vec![1.0, -1.0]]);
/// ```
pub fn jacobian<F>(x: &[f64], f: F) -> (Vec<f64>, Vec<Vec<f64>>)
where
    F: for<'r> FnOnce(&[Var<'r>]) -> Vec<Var<'r>>,
{
    let rec = crate::record(x, f);
    let m = rec.outputs().len();
    let rows = (0..m)
        .into_par_iter()
        .map_init(Adjoints::new, |adj, i| {
            let mut seed = vec![0.0; m];
            seed[i] = 1.0;
            let mut row = vec![0.0; rec.num_inputs()];
            rec.pullback_into(&seed, &ReverseOptions::default(), adj, &mut row)
                .expect("seed and row have the recording's lengths");
            row
        })
        .collect();
    (rec.outputs().to_vec(), rows)
}

/// Value, gradient and Hessian-vector product `H(x) xdot` of a scalar function, exactly, in
/// one recording and two pullbacks.
///
/// `f` runs on dual numbers whose values and tangents are tape variables
/// (`Dual<Var>`): the inputs are `x + xdot ε`, so the output's tangent is the directional
/// derivative `∇f(x) · xdot` as a recorded expression, and pulling it back gives
/// `∇(∇f · xdot) = H xdot` (reverse mode over forward mode). Write `f` generically over
/// [`gradus_num::Real`] and pass the `Dual<Var>` instance. Costs a constant times the cost of
/// `f`.
///
/// # Panics
/// If `x` and `xdot` differ in length.
///
/// ```
/// use gradus_num::Real;
/// fn f<S: Real>(x: &[S]) -> S {
///     x[0] * x[0] * x[1] + x[1].sin()
/// }
/// let (y, g, hv) = gradus_tape::hvp(&[1.0, 2.0], &[1.0, 0.0], |x| f(x));
/// assert_eq!(y, 2.0 + 2f64.sin());
/// assert_eq!(g, vec![4.0, 1.0 + 2f64.cos()]);
/// // H = [[2 x1, 2 x0], [2 x0, -sin x1]]; H (1, 0) = (4, 2).
/// assert_eq!(hv, vec![4.0, 2.0]);
/// ```
pub fn hvp<F>(x: &[f64], xdot: &[f64], f: F) -> (f64, Vec<f64>, Vec<f64>)
where
    F: for<'r> FnOnce(&[Dual<Var<'r>>]) -> Dual<Var<'r>>,
{
    assert_eq!(
        x.len(),
        xdot.len(),
        "hvp: x has length {} but xdot has length {}",
        x.len(),
        xdot.len()
    );
    let rec = record_raw(x, Buffers::default(), |xs, values, ids| {
        let duals: Vec<Dual<Var<'_>>> = xs
            .iter()
            .zip(xdot)
            .map(|(&x, &d)| Dual::new(x, Var::constant(d)))
            .collect();
        let y = f(&duals);
        values.extend([y.v.value(), y.d.value()]);
        ids.extend([y.v.output_id(), y.d.output_id()]);
    });
    let (g, hv) = rayon::join(|| rec.pullback(&[1.0, 0.0]), || rec.pullback(&[0.0, 1.0]));
    (rec.outputs()[0], g, hv)
}

/// The Hessian of a scalar function, by `n` Hessian-vector products with the unit vectors
/// (run in parallel). `f` must be callable repeatedly.
///
/// ```
/// use gradus_num::Real;
/// let h = gradus_tape::hessian(&[1.0, 2.0], |x| x[0].powi(3) * x[1]);
/// assert_eq!(h, vec![vec![12.0, 3.0], vec![3.0, 0.0]]);
/// ```
pub fn hessian<F>(x: &[f64], f: F) -> Vec<Vec<f64>>
where
    F: for<'r> Fn(&[Dual<Var<'r>>]) -> Dual<Var<'r>> + Sync,
{
    let n = x.len();
    (0..n)
        .into_par_iter()
        .map(|i| {
            let mut e = vec![0.0; n];
            e[i] = 1.0;
            hvp(x, &e, &f).2
        })
        .collect()
}
