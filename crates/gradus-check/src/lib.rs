//! Gradient-checking helpers shared by the three gradus engines.
//!
//! Every derivative gradus computes — by the compiler, the reversible eDSL or the tape — is
//! tested two independent ways on random inputs:
//!
//! * against **central finite differences** ([`fd::jvp`], [`fd::vjp`], [`fd::grad`],
//!   [`fd::jacobian`]), with a step scaled to the magnitude of each coordinate so that large and small inputs are
//!   perturbed by a comparable relative amount;
//! * by the **transposition identity** `<vjp f x ybar, xdot> = <ybar, jvp f x xdot>`
//!   ([`check_transposition`]), which catches errors finite differences miss (for example a
//!   forward and a reverse rule that are both wrong in the same way is impossible to hide here,
//!   because the two sides come from different code).
//!
//! Comparisons use a mixed tolerance ([`Tolerance`]): `|a - b| <= abs + rel * max(|a|, |b|)`.
//!
//! The functions work on flat `f64` vectors: an engine flattens its structured inputs and
//! outputs (arrays, tuples, records) into leaves first. They follow the vocabulary shared by
//! the engines (`docs/vocabulary.md`): the point `x` first, then the direction `xdot` or the
//! cotangent `ybar`, the function last — `fd::jvp(x, xdot, f)`, `fd::grad(x, f)`.

#![deny(missing_docs)]

use std::fmt;

/// A mixed absolute/relative tolerance: `a` and `b` agree when
/// `|a - b| <= abs + rel * max(|a|, |b|)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute part, dominant near zero.
    pub abs: f64,
    /// Relative part, dominant for large magnitudes.
    pub rel: f64,
}

impl Tolerance {
    /// The default for comparing a derivative with central finite differences in `f64`.
    pub const FINITE_DIFFERENCE: Tolerance = Tolerance {
        abs: 1e-6,
        rel: 1e-5,
    };
    /// The default for comparing two exact derivatives that differ only by rounding.
    pub const ROUNDING: Tolerance = Tolerance {
        abs: 1e-10,
        rel: 1e-9,
    };

    /// A tolerance with the given absolute and relative parts.
    pub fn new(abs: f64, rel: f64) -> Self {
        Tolerance { abs, rel }
    }

    /// Whether `a` and `b` agree. Two NaNs agree; infinities agree when equal.
    pub fn agrees(&self, a: f64, b: f64) -> bool {
        if a.is_nan() || b.is_nan() {
            return a.is_nan() && b.is_nan();
        }
        if a.is_infinite() || b.is_infinite() {
            return a == b;
        }
        (a - b).abs() <= self.abs + self.rel * a.abs().max(b.abs())
    }

    /// The error of `a` against `b` measured in units of this tolerance: at most 1 means the
    /// two agree. Useful for reporting the worst element of a comparison.
    pub fn error_ratio(&self, a: f64, b: f64) -> f64 {
        if a.is_nan() || b.is_nan() {
            return if a.is_nan() && b.is_nan() {
                0.0
            } else {
                f64::INFINITY
            };
        }
        if a == b {
            return 0.0;
        }
        (a - b).abs() / (self.abs + self.rel * a.abs().max(b.abs()))
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::FINITE_DIFFERENCE
    }
}

/// The relative step used for central differences: about the cube root of `f64::EPSILON`,
/// which balances truncation error (O(h²)) against rounding error (O(ε/h)).
pub const RELATIVE_STEP: f64 = 6.0554544523933395e-6;

/// The step for coordinate value `x`: `RELATIVE_STEP * max(1, |x|)`, rounded so that `x + h`
/// and `x - h` are exactly representable distances from `x`.
pub fn step_for(x: f64) -> f64 {
    let h = RELATIVE_STEP * x.abs().max(1.0);
    // Make (x + h) - x == h exactly, so the divisor is the step actually taken.
    let xp = x + h;
    xp - x
}

/// Deprecated spelling of [`fd::jvp_extrapolated`], with the function first.
#[deprecated(note = "use fd::jvp_extrapolated(x, xdot, f): point first, function last")]
pub fn fd_jvp_extrapolated<F>(f: F, x: &[f64], dx: &[f64]) -> Vec<f64>
where
    F: Fn(&[f64]) -> Vec<f64>,
{
    fd::jvp_extrapolated(x, dx, f)
}

/// Deprecated spelling of [`fd::jvp`], with the function first.
#[deprecated(note = "use fd::jvp(x, xdot, f): point first, function last")]
pub fn fd_jvp<F>(f: F, x: &[f64], dx: &[f64]) -> Vec<f64>
where
    F: Fn(&[f64]) -> Vec<f64>,
{
    fd::jvp(x, dx, f)
}

/// Deprecated spelling of [`fd::grad`], with the function first.
#[deprecated(note = "use fd::grad(x, f): point first, function last")]
pub fn fd_gradient<F>(f: F, x: &[f64]) -> Vec<f64>
where
    F: Fn(&[f64]) -> f64,
{
    fd::grad(x, f)
}

/// Deprecated spelling of [`fd::jacobian`], with the function first.
#[deprecated(note = "use fd::jacobian(x, f): point first, function last")]
pub fn fd_jacobian<F>(f: F, x: &[f64]) -> Vec<Vec<f64>>
where
    F: Fn(&[f64]) -> Vec<f64>,
{
    fd::jacobian(x, f)
}

/// Central finite differences, in the vocabulary of the engines: the point `x` first, then
/// the direction (`xdot`) or the output cotangent (`ybar`), the function last.
pub mod fd {
    use crate::{RELATIVE_STEP, dot, step_for};

    /// Central finite-difference directional derivative of `f` at `x` in direction `xdot`:
    /// `(f(x + h xdot) - f(x - h xdot)) / 2h`, with `h` scaled to the largest `|x_i|` touched
    /// by `xdot`. The finite-difference counterpart of a `jvp`.
    ///
    /// ```
    /// let ydot = gradus_check::fd::jvp(&[1.0, 2.0], &[1.0, 0.0], |x| vec![x[0] * x[1]]);
    /// assert!((ydot[0] - 2.0).abs() < 1e-9);
    /// ```
    pub fn jvp<F>(x: &[f64], xdot: &[f64], f: F) -> Vec<f64>
    where
        F: Fn(&[f64]) -> Vec<f64>,
    {
        central_difference(&f, x, xdot, jvp_step(x, xdot))
    }

    /// [`jvp`] with Richardson extrapolation: `(4 D(h/2) - D(h)) / 3` from central
    /// differences with steps `h` and `h/2`, which cancels the `h²` term of the truncation
    /// error. Four evaluations instead of two; for functions whose third derivative is large
    /// relative to the first (long integrations differentiated with respect to their step
    /// size), where the plain central difference is off in the third or fourth digit.
    pub fn jvp_extrapolated<F>(x: &[f64], xdot: &[f64], f: F) -> Vec<f64>
    where
        F: Fn(&[f64]) -> Vec<f64>,
    {
        let h = jvp_step(x, xdot);
        let coarse = central_difference(&f, x, xdot, h);
        let fine = central_difference(&f, x, xdot, h / 2.0);
        coarse
            .iter()
            .zip(&fine)
            .map(|(c, f)| (4.0 * f - c) / 3.0)
            .collect()
    }

    /// The finite-difference counterpart of a `vjp`: the input cotangent `ybarᵀ Df(x)`, as the
    /// central-difference gradient ([`grad`]) of `x ↦ ⟨ybar, f(x)⟩`, one coordinate at a time.
    ///
    /// # Panics
    /// If `f`'s output length differs from `ybar`'s.
    ///
    /// ```
    /// let xbar = gradus_check::fd::vjp(&[1.0, 2.0], &[1.0, 3.0], |x| vec![x[0] * x[1], x[1]]);
    /// assert!((xbar[0] - 2.0).abs() < 1e-9 && (xbar[1] - 4.0).abs() < 1e-9);
    /// ```
    pub fn vjp<F>(x: &[f64], ybar: &[f64], f: F) -> Vec<f64>
    where
        F: Fn(&[f64]) -> Vec<f64>,
    {
        grad(x, |x| dot(ybar, &f(x)))
    }

    /// The step of a directional difference: [`RELATIVE_STEP`] scaled to the largest `|x_i|`
    /// touched by `xdot`, over the largest `|xdot_i|`.
    fn jvp_step(x: &[f64], xdot: &[f64]) -> f64 {
        assert_eq!(x.len(), xdot.len(), "fd::jvp: x and xdot differ in length");
        let scale = x
            .iter()
            .zip(xdot)
            .filter(|(_, d)| **d != 0.0)
            .map(|(x, _)| x.abs())
            .fold(1.0f64, f64::max);
        let xdot_norm = xdot
            .iter()
            .fold(0.0f64, |m, d| m.max(d.abs()))
            .max(f64::MIN_POSITIVE);
        RELATIVE_STEP * scale / xdot_norm
    }

    /// `(f(x + h xdot) - f(x - h xdot)) / 2h`.
    fn central_difference<F>(f: &F, x: &[f64], xdot: &[f64], h: f64) -> Vec<f64>
    where
        F: Fn(&[f64]) -> Vec<f64>,
    {
        let plus: Vec<f64> = x.iter().zip(xdot).map(|(x, d)| x + h * d).collect();
        let minus: Vec<f64> = x.iter().zip(xdot).map(|(x, d)| x - h * d).collect();
        let fp = f(&plus);
        let fm = f(&minus);
        assert_eq!(
            fp.len(),
            fm.len(),
            "fd::jvp: output length changed between evaluations"
        );
        fp.iter()
            .zip(&fm)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect()
    }

    /// Central finite-difference gradient of a scalar function, one coordinate at a time.
    ///
    /// ```
    /// let g = gradus_check::fd::grad(&[3.0, 4.0], |x| x[0] * x[1]);
    /// assert!((g[0] - 4.0).abs() < 1e-9 && (g[1] - 3.0).abs() < 1e-9);
    /// ```
    pub fn grad<F>(x: &[f64], f: F) -> Vec<f64>
    where
        F: Fn(&[f64]) -> f64,
    {
        let mut probe = x.to_vec();
        (0..x.len())
            .map(|i| {
                let h = step_for(x[i]);
                probe[i] = x[i] + h;
                let fp = f(&probe);
                probe[i] = x[i] - h;
                let fm = f(&probe);
                probe[i] = x[i];
                (fp - fm) / (2.0 * h)
            })
            .collect()
    }

    /// Central finite-difference Jacobian, row-major `m × n` where `m` is the output length.
    pub fn jacobian<F>(x: &[f64], f: F) -> Vec<Vec<f64>>
    where
        F: Fn(&[f64]) -> Vec<f64>,
    {
        let n = x.len();
        let mut columns = Vec::with_capacity(n);
        let mut probe = x.to_vec();
        for i in 0..n {
            let h = step_for(x[i]);
            probe[i] = x[i] + h;
            let fp = f(&probe);
            probe[i] = x[i] - h;
            let fm = f(&probe);
            probe[i] = x[i];
            columns.push(
                fp.iter()
                    .zip(&fm)
                    .map(|(a, b)| (a - b) / (2.0 * h))
                    .collect::<Vec<_>>(),
            );
        }
        let m = columns.first().map_or(0, Vec::len);
        (0..m)
            .map(|r| columns.iter().map(|c| c[r]).collect())
            .collect()
    }
}

/// The inner product `<u, v>` of two flat vectors, summed in order.
pub fn dot(u: &[f64], v: &[f64]) -> f64 {
    assert_eq!(u.len(), v.len(), "dot: vectors differ in length");
    u.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// Where two vectors disagree most.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Index of the worst element.
    pub index: usize,
    /// The value under test.
    pub actual: f64,
    /// The reference value.
    pub expected: f64,
    /// The error in units of the tolerance (above 1 is a failure).
    pub ratio: f64,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "element {}: got {:e}, expected {:e} ({:.3}× the tolerance)",
            self.index, self.actual, self.expected, self.ratio
        )
    }
}

/// The worst element of `actual` against `expected` under `tol`; `None` for empty vectors.
///
/// # Panics
/// If the lengths differ: that is a bug in the caller's test, not a numerical mismatch.
pub fn worst(actual: &[f64], expected: &[f64], tol: Tolerance) -> Option<Mismatch> {
    assert_eq!(
        actual.len(),
        expected.len(),
        "worst: vectors differ in length"
    );
    actual
        .iter()
        .zip(expected)
        .enumerate()
        .map(|(index, (&a, &e))| Mismatch {
            index,
            actual: a,
            expected: e,
            ratio: tol.error_ratio(a, e),
        })
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio))
}

/// `Ok(())` when every element of `actual` agrees with `expected`, otherwise the worst
/// mismatch.
pub fn compare(actual: &[f64], expected: &[f64], tol: Tolerance) -> Result<(), Mismatch> {
    match worst(actual, expected, tol) {
        Some(m) if m.ratio > 1.0 => Err(m),
        _ => Ok(()),
    }
}

/// Checks `<xbar, xdot> == <ybar, ydot>` for one pair of directions, where `xbar` is the
/// `vjp` of `ybar` and `ydot` the `jvp` of `xdot`, and returns the two sides. The comparison
/// tolerance is relative to the sum of the absolute products, so that cancellation inside the
/// inner product does not make the check fail spuriously.
pub fn check_transposition(
    xbar: &[f64],
    xdot: &[f64],
    ybar: &[f64],
    ydot: &[f64],
    tol: Tolerance,
) -> Result<(f64, f64), String> {
    let lhs = dot(xbar, xdot);
    let rhs = dot(ybar, ydot);
    let magnitude: f64 = xbar
        .iter()
        .zip(xdot)
        .map(|(a, b)| (a * b).abs())
        .sum::<f64>()
        .max(ybar.iter().zip(ydot).map(|(a, b)| (a * b).abs()).sum());
    if (lhs - rhs).abs() <= tol.abs + tol.rel * magnitude {
        Ok((lhs, rhs))
    } else {
        Err(format!(
            "transposition identity fails: <vjp ybar, xdot> = {lhs:e} but <ybar, jvp xdot> = {rhs:e}"
        ))
    }
}

/// A small deterministic generator (SplitMix64) for test inputs, so the helpers need no
/// dependency and every engine draws the same numbers from the same seed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A uniform float in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        lo + (hi - lo) * unit
    }
    /// `n` uniform floats in `[lo, hi)`.
    pub fn vector(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
    /// `n` uniform floats in `[lo, hi)` kept at least `margin` away from every point in
    /// `kinks` — for functions such as `abs`, `max` and `min` whose finite differences are
    /// wrong at a kink.
    pub fn vector_avoiding(
        &mut self,
        n: usize,
        lo: f64,
        hi: f64,
        kinks: &[f64],
        margin: f64,
    ) -> Vec<f64> {
        (0..n)
            .map(|_| {
                loop {
                    let v = self.uniform(lo, hi);
                    if kinks.iter().all(|k| (v - k).abs() >= margin) {
                        break v;
                    }
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: &[f64]) -> Vec<f64> {
        vec![x[0] * x[1].sin(), x[0].exp() + x[1] * x[1]]
    }
    fn jac(x: &[f64]) -> Vec<Vec<f64>> {
        vec![
            vec![x[1].sin(), x[0] * x[1].cos()],
            vec![x[0].exp(), 2.0 * x[1]],
        ]
    }

    #[test]
    fn finite_differences_match_analytic_jacobian() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..20 {
            let x = rng.vector(2, -3.0, 3.0);
            let fd = fd::jacobian(&x, f);
            for (row, exact) in fd.iter().zip(jac(&x)) {
                compare(row, &exact, Tolerance::FINITE_DIFFERENCE).unwrap();
            }
            let xdot = rng.vector(2, -1.0, 1.0);
            let jv = fd::jvp(&x, &xdot, f);
            let exact: Vec<f64> = jac(&x).iter().map(|r| dot(r, &xdot)).collect();
            compare(&jv, &exact, Tolerance::FINITE_DIFFERENCE).unwrap();
            let ybar = rng.vector(2, -1.0, 1.0);
            let vj = fd::vjp(&x, &ybar, f);
            let exact: Vec<f64> = (0..2)
                .map(|c| jac(&x).iter().zip(&ybar).map(|(r, yb)| r[c] * yb).sum())
                .collect();
            compare(&vj, &exact, Tolerance::FINITE_DIFFERENCE).unwrap();
        }
    }

    #[test]
    fn gradient_of_large_inputs_uses_scaled_steps() {
        // Each coordinate's step follows its own magnitude: a large one and a small one.
        let x = [1.0e6, -2.0e-3];
        let g = fd::grad(&x, |x| x[0] * x[0] * 1e-6 + x[1].cos());
        compare(&g, &[2.0, (2.0e-3f64).sin()], Tolerance::FINITE_DIFFERENCE).unwrap();
    }

    #[test]
    fn transposition_detects_a_wrong_adjoint() {
        let x = [0.3, -1.2];
        let j = jac(&x);
        let xdot = [0.5, 0.25];
        let ybar = [1.0, -2.0];
        let jv: Vec<f64> = j.iter().map(|r| dot(r, &xdot)).collect();
        let vj: Vec<f64> = (0..2)
            .map(|c| j[0][c] * ybar[0] + j[1][c] * ybar[1])
            .collect();
        assert!(check_transposition(&vj, &xdot, &ybar, &jv, Tolerance::ROUNDING).is_ok());
        let wrong = [vj[0] + 1e-3, vj[1]];
        assert!(check_transposition(&wrong, &xdot, &ybar, &jv, Tolerance::ROUNDING).is_err());
    }

    #[test]
    #[allow(deprecated)]
    fn deprecated_spellings_agree_with_fd() {
        let mut rng = SplitMix64::new(3);
        let g = |x: &[f64]| x[0].exp() * x[1] + x[1].sin();
        for _ in 0..10 {
            let x = rng.vector(2, -3.0, 3.0);
            let xdot = rng.vector(2, -1.0, 1.0);
            assert_eq!(fd_jvp(f, &x, &xdot), fd::jvp(&x, &xdot, f));
            assert_eq!(
                fd_jvp_extrapolated(f, &x, &xdot),
                fd::jvp_extrapolated(&x, &xdot, f)
            );
            assert_eq!(fd_gradient(g, &x), fd::grad(&x, g));
            assert_eq!(fd_jacobian(f, &x), fd::jacobian(&x, f));
        }
    }

    #[test]
    fn extrapolated_jvp_matches_the_analytic_derivative() {
        let x = [0.7, -0.4];
        let xdot = [0.3, 0.9];
        let exact: Vec<f64> = jac(&x).iter().map(|r| dot(r, &xdot)).collect();
        let tight = Tolerance::new(1e-9, 1e-9);
        compare(&fd::jvp_extrapolated(&x, &xdot, f), &exact, tight).unwrap();
        compare(&fd::jvp(&x, &xdot, f), &exact, Tolerance::FINITE_DIFFERENCE).unwrap();
    }

    #[test]
    fn tolerance_is_mixed() {
        let t = Tolerance::new(1e-6, 1e-3);
        assert!(t.agrees(1000.0, 1000.5));
        assert!(!t.agrees(1000.0, 1002.0));
        assert!(t.agrees(0.0, 5e-7));
        assert!(!t.agrees(0.0, 5e-6));
        assert!(t.agrees(f64::NAN, f64::NAN));
        assert!(!t.agrees(f64::NAN, 0.0));
    }

    #[test]
    fn avoiding_kinks() {
        let mut rng = SplitMix64::new(1);
        let v = rng.vector_avoiding(1000, -1.0, 1.0, &[0.0], 0.1);
        assert!(v.iter().all(|x| x.abs() >= 0.1));
    }
}
