//! Forward-mode drivers.

use crate::{Dual, DualN};

/// Jacobian–vector product: `(f(x), Df(x) · xdot)` in one forward pass.
///
/// # Panics
/// If `x` and `xdot` differ in length.
///
/// ```
/// use gradus_num::{Real, jvp};
/// let (y, ydot) = jvp(&[1.0, 2.0], &[0.5, 1.0], |x| vec![x[0] * x[1], x[1].exp()]);
/// assert_eq!(y, vec![2.0, 2f64.exp()]);
/// assert_eq!(ydot, vec![0.5 * 2.0 + 1.0 * 1.0, 2f64.exp()]);
/// ```
pub fn jvp<F>(x: &[f64], xdot: &[f64], f: F) -> (Vec<f64>, Vec<f64>)
where
    F: FnOnce(&[Dual<f64>]) -> Vec<Dual<f64>>,
{
    assert_eq!(
        x.len(),
        xdot.len(),
        "jvp: x has length {} but xdot has length {}",
        x.len(),
        xdot.len()
    );
    let xs: Vec<Dual<f64>> = x.iter().zip(xdot).map(|(&v, &d)| Dual::new(v, d)).collect();
    let ys = f(&xs);
    (
        ys.iter().map(|y| y.v).collect(),
        ys.iter().map(|y| y.d).collect(),
    )
}

/// The derivative of a scalar function of one variable: `(f(x), f′(x))`.
///
/// ```
/// use gradus_num::{Real, derivative};
/// let (y, dy) = derivative(0.5, |x| x.sin() * x);
/// assert_eq!(dy, 0.5f64.cos() * 0.5 + 0.5f64.sin());
/// # let _ = y;
/// ```
pub fn derivative<F>(x: f64, f: F) -> (f64, f64)
where
    F: FnOnce(Dual<f64>) -> Dual<f64>,
{
    let y = f(Dual::variable(x));
    (y.v, y.d)
}

/// The gradient of a scalar function by forward mode: `(f(x), ∇f(x))`, one pass per input
/// (`O(n)` passes; use reverse mode for many inputs).
///
/// ```
/// use gradus_num::{Real, grad_fwd};
/// let (y, g) = grad_fwd(&[3.0, 4.0], |x| x[0] * x[1]);
/// assert_eq!((y, g), (12.0, vec![4.0, 3.0]));
/// ```
pub fn grad_fwd<F>(x: &[f64], f: F) -> (f64, Vec<f64>)
where
    F: Fn(&[Dual<f64>]) -> Dual<f64>,
{
    let mut xs: Vec<Dual<f64>> = x.iter().map(|&v| Dual::constant(v)).collect();
    let mut value = f(&xs).v;
    let mut g = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        xs[i].d = 1.0;
        let y = f(&xs);
        value = y.v;
        g.push(y.d);
        xs[i].d = 0.0;
    }
    (value, g)
}

/// Value, gradient and Hessian-vector product `H(x) xdot` of a scalar function by forward
/// over forward mode: `f` runs on nested duals `Dual<Dual<f64>>`, one pass per input. Pass
/// `i` perturbs input `i` on the inner level and every input along `xdot` on the outer level,
/// so the output's mixed part is `eᵢᵀ H xdot` and its inner tangent is `∂f/∂xᵢ`.
///
/// `O(n)` passes; for many inputs reverse over forward (`gradus_tape::hvp`) costs one.
///
/// # Panics
/// If `x` and `xdot` differ in length.
///
/// ```
/// use gradus_num::{Real, hvp_fwd};
/// fn f<S: Real>(x: &[S]) -> S {
///     x[0] * x[0] * x[1] + x[1].sin()
/// }
/// let (y, g, hv) = hvp_fwd(&[1.0, 2.0], &[1.0, 0.0], |x| f(x));
/// assert_eq!(y, 2.0 + 2f64.sin());
/// assert_eq!(g, vec![4.0, 1.0 + 2f64.cos()]);
/// // H = [[2 x1, 2 x0], [2 x0, -sin x1]]; H (1, 0) = (4, 2).
/// assert_eq!(hv, vec![4.0, 2.0]);
/// ```
pub fn hvp_fwd<F>(x: &[f64], xdot: &[f64], f: F) -> (f64, Vec<f64>, Vec<f64>)
where
    F: Fn(&[Dual<Dual<f64>>]) -> Dual<Dual<f64>>,
{
    assert_eq!(
        x.len(),
        xdot.len(),
        "hvp_fwd: x has length {} but xdot has length {}",
        x.len(),
        xdot.len()
    );
    let mut xs: Vec<Dual<Dual<f64>>> = x
        .iter()
        .zip(xdot)
        .map(|(&v, &d)| Dual::new(Dual::constant(v), Dual::constant(d)))
        .collect();
    let mut value = f(&xs).v.v;
    let mut g = Vec::with_capacity(x.len());
    let mut hv = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        xs[i].v.d = 1.0;
        let y = f(&xs);
        value = y.v.v;
        g.push(y.v.d);
        hv.push(y.d.d);
        xs[i].v.d = 0.0;
    }
    (value, g, hv)
}

/// The Hessian of a scalar function by forward over forward mode, as rows: `f` runs on nested
/// duals `Dual<Dual<f64>>` once per pair `i ≤ j` (`n(n + 1)/2` passes), perturbing input `i`
/// on the inner level and input `j` on the outer level; the mixed part of the output is
/// `∂²f/∂xᵢ∂xⱼ`, written to both `(i, j)` and `(j, i)`, so the result is exactly symmetric.
///
/// ```
/// use gradus_num::{Real, hessian_fwd};
/// let h = hessian_fwd(&[1.0, 2.0], |x| x[0].powi(3) * x[1]);
/// assert_eq!(h, vec![vec![12.0, 3.0], vec![3.0, 0.0]]);
/// ```
pub fn hessian_fwd<F>(x: &[f64], f: F) -> Vec<Vec<f64>>
where
    F: Fn(&[Dual<Dual<f64>>]) -> Dual<Dual<f64>>,
{
    let n = x.len();
    let mut xs: Vec<Dual<Dual<f64>>> = x
        .iter()
        .map(|&v| Dual::constant(Dual::constant(v)))
        .collect();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n {
        xs[i].v.d = 1.0;
        for j in i..n {
            xs[j].d.v = 1.0;
            let hij = f(&xs).d.d;
            h[i][j] = hij;
            h[j][i] = hij;
            xs[j].d.v = 0.0;
        }
        xs[i].v.d = 0.0;
    }
    h
}

/// The Jacobian by forward mode, `N` columns per pass with [`DualN`]. Returns the outputs and
/// the `m × n` Jacobian, row-major as a vector of rows.
///
/// ```
/// use gradus_num::{Real, jacobian_fwd};
/// let (y, j) = jacobian_fwd::<4, _>(&[1.0, 2.0, 3.0], |x| vec![x[0] * x[1], x[2].square()]);
/// assert_eq!(y, vec![2.0, 9.0]);
/// assert_eq!(j, vec![vec![2.0, 1.0, 0.0], vec![0.0, 0.0, 6.0]]);
/// ```
pub fn jacobian_fwd<const N: usize, F>(x: &[f64], f: F) -> (Vec<f64>, Vec<Vec<f64>>)
where
    F: Fn(&[DualN<f64, N>]) -> Vec<DualN<f64, N>>,
{
    assert!(N > 0, "jacobian_fwd: N must be at least 1");
    let n = x.len();
    let mut xs: Vec<DualN<f64, N>> = x.iter().map(|&v| DualN::constant(v)).collect();
    let mut values = Vec::new();
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut start = 0;
    loop {
        let end = (start + N).min(n);
        for (k, i) in (start..end).enumerate() {
            xs[i].d[k] = 1.0;
        }
        let ys = f(&xs);
        if rows.is_empty() {
            values = ys.iter().map(|y| y.v).collect();
            rows = vec![vec![0.0; n]; ys.len()];
        }
        for (row, y) in rows.iter_mut().zip(&ys) {
            for (k, i) in (start..end).enumerate() {
                row[i] = y.d[k];
            }
        }
        for (k, i) in (start..end).enumerate() {
            xs[i].d[k] = 0.0;
        }
        start = end;
        if start >= n {
            break;
        }
    }
    (values, rows)
}
