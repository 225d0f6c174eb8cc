//! Special functions written generically over [`Real`], so that every number type
//! (including nested duals) differentiates them by composition.

use crate::Real;
use std::f64::consts::PI;

/// The digamma function ψ(x) = Γ′(x)/Γ(x).
///
/// Reflection for negative arguments, the recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then
/// the asymptotic series; about 1e-15 relative accuracy in `f64`. NaN at the poles
/// (0, −1, −2, …).
///
/// ```
/// use gradus_num::digamma;
/// // ψ(1) = −γ (the Euler–Mascheroni constant).
/// assert!((digamma(1.0f64) + 0.5772156649015329).abs() < 1e-14);
/// ```
pub fn digamma<T: Real>(x: T) -> T {
    let xv = x.to_f64();
    if xv.is_nan() || (xv <= 0.0 && xv == xv.floor()) {
        return T::from_f64(f64::NAN);
    }
    if xv < 0.0 {
        // ψ(1 − x) − ψ(x) = π cot(πx).
        let pi = T::from_f64(PI);
        return digamma(T::one() - x) - pi / (pi * x).tan();
    }
    let mut acc = T::zero();
    let mut y = x;
    while y.to_f64() < 10.0 {
        acc -= y.recip();
        y += T::one();
    }
    let r = y.recip();
    let r2 = r * r;
    let c = T::from_f64;
    // ln y − 1/(2y) − Σ B₂ₖ/(2k y²ᵏ), k = 1…6.
    let series = r2
        * (c(1.0 / 12.0)
            - r2 * (c(1.0 / 120.0)
                - r2 * (c(1.0 / 252.0)
                    - r2 * (c(1.0 / 240.0) - r2 * (c(1.0 / 132.0) - r2 * c(691.0 / 32760.0))))));
    acc + y.ln() - c(0.5) * r - series
}

/// The trigamma function ψ′(x).
///
/// Reflection for negative arguments, the recurrence ψ′(x) = ψ′(x + 1) + 1/x² up to x ≥ 10,
/// then the asymptotic series.
///
/// ```
/// use gradus_num::trigamma;
/// // ψ′(1) = π²/6.
/// assert!((trigamma(1.0f64) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-14);
/// ```
pub fn trigamma<T: Real>(x: T) -> T {
    let xv = x.to_f64();
    if xv.is_nan() || (xv <= 0.0 && xv == xv.floor()) {
        return T::from_f64(f64::NAN);
    }
    if xv < 0.0 {
        // ψ′(1 − x) + ψ′(x) = π² / sin²(πx).
        let pi = T::from_f64(PI);
        let s = (pi * x).sin();
        return pi * pi / (s * s) - trigamma(T::one() - x);
    }
    let mut acc = T::zero();
    let mut y = x;
    while y.to_f64() < 10.0 {
        acc += (y * y).recip();
        y += T::one();
    }
    let r = y.recip();
    let r2 = r * r;
    let c = T::from_f64;
    // 1/y + 1/(2y²) + Σ B₂ₖ / y²ᵏ⁺¹, k = 1…6.
    let series = r
        * r2
        * (c(1.0 / 6.0)
            - r2 * (c(1.0 / 30.0)
                - r2 * (c(1.0 / 42.0)
                    - r2 * (c(1.0 / 30.0) - r2 * (c(5.0 / 66.0) - r2 * c(691.0 / 2730.0))))));
    acc + r + c(0.5) * r2 + series
}
