//! The table of partial derivatives of the elementary functions — the one place where gradus
//! writes them down (docs/language.md §Partial derivatives, docs/reversible.md §Adjoint rules;
//! STYLE.md item 5).
//!
//! Each rule takes the operands, computes the primal value and the partial derivatives in the
//! same scalar type `T`, and returns them as a tuple `(value, ∂₁, ∂₂, …)`. Forward mode
//! ([`Dual`](crate::Dual)) multiplies tangents by the partials; the tape records the partials as
//! edge weights. Because the rules are generic over [`Real`], nesting (`Dual<Dual<f64>>`, a tape
//! over duals) differentiates the partials themselves.
//!
//! Conventions at kinks: `abs′(0) = 0`; `sqrt′(0)` contributes 0 (as does `hypot` at the
//! origin); `min`/`max` give 1 to the selected operand and 0 to the other, ties select the first
//! operand and a NaN operand loses; `powf` follows docs/language.md §Partial derivatives; rounding
//! functions have derivative 0 (and produce constants).
//!
//! [`UNARY`] and [`BINARY`] list the rules with test domains, so that each engine's tests can
//! walk the whole table against finite differences.

use crate::Real;

#[inline]
fn c<T: Real>(x: f64) -> T {
    T::from_f64(x)
}

/// `√x` and `1/(2√x)`, with the partial 0 at `x = 0`.
#[inline]
pub fn sqrt<T: Real>(x: T) -> (T, T) {
    let y = x.sqrt();
    let p = if x == T::zero() {
        T::zero()
    } else {
        (y + y).recip()
    };
    (y, p)
}
/// `∛x` and `1/(3 ∛x²)`.
#[inline]
pub fn cbrt<T: Real>(x: T) -> (T, T) {
    let y = x.cbrt();
    (y, (c::<T>(3.0) * y * y).recip())
}
/// `1/√x` and `−1/(2 x^{3/2})`.
#[inline]
pub fn rsqrt<T: Real>(x: T) -> (T, T) {
    let y = x.sqrt().recip();
    (y, c::<T>(-0.5) * y / x)
}
/// `eˣ` and `eˣ`.
#[inline]
pub fn exp<T: Real>(x: T) -> (T, T) {
    let y = x.exp();
    (y, y)
}
/// `2ˣ` and `ln 2 · 2ˣ`.
#[inline]
pub fn exp2<T: Real>(x: T) -> (T, T) {
    let y = x.exp2();
    (y, y * c(std::f64::consts::LN_2))
}
/// `eˣ − 1` and `eˣ`.
#[inline]
pub fn expm1<T: Real>(x: T) -> (T, T) {
    let y = x.expm1();
    (y, y + T::one())
}
/// `ln x` and `1/x`.
#[inline]
pub fn ln<T: Real>(x: T) -> (T, T) {
    (x.ln(), x.recip())
}
/// `log₂ x` and `1/(x ln 2)`.
#[inline]
pub fn log2<T: Real>(x: T) -> (T, T) {
    (x.log2(), (x * c(std::f64::consts::LN_2)).recip())
}
/// `log₁₀ x` and `1/(x ln 10)`.
#[inline]
pub fn log10<T: Real>(x: T) -> (T, T) {
    (x.log10(), (x * c(std::f64::consts::LN_10)).recip())
}
/// `ln(1 + x)` and `1/(1 + x)`.
#[inline]
pub fn log1p<T: Real>(x: T) -> (T, T) {
    (x.log1p(), (T::one() + x).recip())
}
/// `sin x` and `cos x`.
#[inline]
pub fn sin<T: Real>(x: T) -> (T, T) {
    (x.sin(), x.cos())
}
/// `cos x` and `−sin x`.
#[inline]
pub fn cos<T: Real>(x: T) -> (T, T) {
    (x.cos(), -x.sin())
}
/// `tan x` and `1 + tan² x`.
#[inline]
pub fn tan<T: Real>(x: T) -> (T, T) {
    let y = x.tan();
    (y, T::one() + y * y)
}
/// `asin x` and `1/√(1 − x²)`.
#[inline]
pub fn asin<T: Real>(x: T) -> (T, T) {
    (x.asin(), (T::one() - x * x).sqrt().recip())
}
/// `acos x` and `−1/√(1 − x²)`.
#[inline]
pub fn acos<T: Real>(x: T) -> (T, T) {
    (x.acos(), -(T::one() - x * x).sqrt().recip())
}
/// `atan x` and `1/(1 + x²)`.
#[inline]
pub fn atan<T: Real>(x: T) -> (T, T) {
    (x.atan(), (T::one() + x * x).recip())
}
/// `sinh x` and `cosh x`.
#[inline]
pub fn sinh<T: Real>(x: T) -> (T, T) {
    (x.sinh(), x.cosh())
}
/// `cosh x` and `sinh x`.
#[inline]
pub fn cosh<T: Real>(x: T) -> (T, T) {
    (x.cosh(), x.sinh())
}
/// `tanh x` and `1 − tanh² x`.
#[inline]
pub fn tanh<T: Real>(x: T) -> (T, T) {
    let y = x.tanh();
    (y, T::one() - y * y)
}
/// `asinh x` and `1/√(x² + 1)`.
#[inline]
pub fn asinh<T: Real>(x: T) -> (T, T) {
    (x.asinh(), (x * x + T::one()).sqrt().recip())
}
/// `acosh x` and `1/√(x² − 1)`.
#[inline]
pub fn acosh<T: Real>(x: T) -> (T, T) {
    (x.acosh(), (x * x - T::one()).sqrt().recip())
}
/// `atanh x` and `1/(1 − x²)`.
#[inline]
pub fn atanh<T: Real>(x: T) -> (T, T) {
    (x.atanh(), (T::one() - x * x).recip())
}
/// `|x|` and `sgn x` (0 at 0).
#[inline]
pub fn abs<T: Real>(x: T) -> (T, T) {
    let p = if x > T::zero() {
        T::one()
    } else if x < T::zero() {
        -T::one()
    } else {
        T::zero()
    };
    (x.abs(), p)
}
/// `1/x` and `−1/x²`.
#[inline]
pub fn recip<T: Real>(x: T) -> (T, T) {
    let y = x.recip();
    (y, -(y * y))
}
/// `x²` and `2x`.
#[inline]
pub fn square<T: Real>(x: T) -> (T, T) {
    (x * x, x + x)
}
/// `xⁿ` and `n xⁿ⁻¹` (0 for `n = 0`).
#[inline]
pub fn powi<T: Real>(x: T, n: i32) -> (T, T) {
    let p = if n == 0 {
        T::zero()
    } else {
        c::<T>(n as f64) * x.powi(n - 1)
    };
    (x.powi(n), p)
}
/// `erf x` and `(2/√π) e^{−x²}`.
#[inline]
pub fn erf<T: Real>(x: T) -> (T, T) {
    (
        x.erf(),
        c::<T>(std::f64::consts::FRAC_2_SQRT_PI) * (-(x * x)).exp(),
    )
}
/// `erfc x` and `−(2/√π) e^{−x²}`.
#[inline]
pub fn erfc<T: Real>(x: T) -> (T, T) {
    (
        x.erfc(),
        c::<T>(-std::f64::consts::FRAC_2_SQRT_PI) * (-(x * x)).exp(),
    )
}
/// `Γ(x)` and `Γ(x) ψ(x)`.
#[inline]
pub fn gamma<T: Real>(x: T) -> (T, T) {
    let y = x.gamma();
    (y, y * x.digamma())
}
/// `ln |Γ(x)|` and `ψ(x)`.
#[inline]
pub fn lgamma<T: Real>(x: T) -> (T, T) {
    (x.lgamma(), x.digamma())
}
/// `ψ(x)` and `ψ′(x)`.
#[inline]
pub fn digamma<T: Real>(x: T) -> (T, T) {
    (x.digamma(), x.trigamma())
}

/// `x + y`: partials `1, 1`.
#[inline]
pub fn add<T: Real>(x: T, y: T) -> (T, T, T) {
    (x + y, T::one(), T::one())
}
/// `x − y`: partials `1, −1`.
#[inline]
pub fn sub<T: Real>(x: T, y: T) -> (T, T, T) {
    (x - y, T::one(), -T::one())
}
/// `x · y`: partials `y, x`.
#[inline]
pub fn mul<T: Real>(x: T, y: T) -> (T, T, T) {
    (x * y, y, x)
}
/// `x / y`: partials `1/y, −x/y²`.
#[inline]
pub fn div<T: Real>(x: T, y: T) -> (T, T, T) {
    // The value is x / y itself (not x · (1/y), which can differ in the last bit from the
    // primal program's division).
    let r = y.recip();
    let q = x / y;
    (q, r, -q * r)
}
/// `x % y` (float remainder, sign of `x`): partials `1, −trunc(x/y)`.
#[inline]
pub fn rem<T: Real>(x: T, y: T) -> (T, T, T) {
    (x % y, T::one(), -(x / y).trunc())
}
/// `xʸ`: `∂x = 0` if `x == 0 && y < 1`, else `y xʸ⁻¹`; `∂y = 0` if `x <= 0`, else `xʸ ln x`.
#[inline]
pub fn powf<T: Real>(x: T, y: T) -> (T, T, T) {
    let v = x.powf(y);
    let px = if x == T::zero() && y < T::one() {
        T::zero()
    } else {
        y * x.powf(y - T::one())
    };
    let py = if x <= T::zero() {
        T::zero()
    } else {
        v * x.ln()
    };
    (v, px, py)
}
/// `atan2(y, x)`, the angle of the point `(x, y)`: partials `x/(x² + y²)`, `−y/(x² + y²)`.
#[inline]
pub fn atan2<T: Real>(y: T, x: T) -> (T, T, T) {
    let r = (x * x + y * y).recip();
    (y.atan2(x), x * r, -y * r)
}
/// `hypot(x, y)`: partials `x/h, y/h`, both 0 at the origin.
#[inline]
pub fn hypot<T: Real>(x: T, y: T) -> (T, T, T) {
    let h = x.hypot(y);
    if h == T::zero() {
        (h, T::zero(), T::zero())
    } else {
        let r = h.recip();
        (h, x * r, y * r)
    }
}
/// `min(x, y)`: 1 for the selected operand; ties and a NaN `y` select `x`.
#[inline]
pub fn min<T: Real>(x: T, y: T) -> (T, T, T) {
    if y < x || x.is_nan() {
        (y, T::zero(), T::one())
    } else {
        (x, T::one(), T::zero())
    }
}
/// `max(x, y)`: 1 for the selected operand; ties and a NaN `y` select `x`.
#[inline]
pub fn max<T: Real>(x: T, y: T) -> (T, T, T) {
    if y > x || x.is_nan() {
        (y, T::zero(), T::one())
    } else {
        (x, T::one(), T::zero())
    }
}
/// `copysign(x, s)`: partials `sgn x · sgn s`, 0.
#[inline]
pub fn copysign<T: Real>(x: T, s: T) -> (T, T, T) {
    let v = x.copysign(s);
    let sx = x.signum();
    let ss = if s.to_f64().is_sign_negative() {
        -T::one()
    } else {
        T::one()
    };
    (v, sx * ss, T::zero())
}
/// `nextafter(x, y)`: partials `1, 0`.
#[inline]
pub fn nextafter<T: Real>(x: T, y: T) -> (T, T, T) {
    (x.nextafter(y), T::one(), T::zero())
}

/// One row of the unary table, instantiated at `f64`, for tests.
#[derive(Clone, Copy, Debug)]
pub struct UnaryRule {
    /// The method name on [`Real`].
    pub name: &'static str,
    /// Value and derivative.
    pub rule: fn(f64) -> (f64, f64),
    /// An interval inside the function's domain, away from singularities, for random tests.
    pub domain: (f64, f64),
    /// Points inside `domain` where the function has a kink (finite differences are wrong
    /// there).
    pub kinks: &'static [f64],
}

/// One row of the binary table, instantiated at `f64`, for tests.
#[derive(Clone, Copy, Debug)]
pub struct BinaryRule {
    /// The method or operator name.
    pub name: &'static str,
    /// Value and the two partials.
    pub rule: fn(f64, f64) -> (f64, f64, f64),
    /// Test interval of the first operand.
    pub domain_x: (f64, f64),
    /// Test interval of the second operand.
    pub domain_y: (f64, f64),
}

/// Every unary rule with a test domain. `powi` appears as `powi3` (`n = 3`).
pub const UNARY: &[UnaryRule] = &[
    UnaryRule {
        name: "sqrt",
        rule: sqrt::<f64>,
        domain: (0.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "cbrt",
        rule: cbrt::<f64>,
        domain: (0.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "rsqrt",
        rule: rsqrt::<f64>,
        domain: (0.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "exp",
        rule: exp::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "exp2",
        rule: exp2::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "expm1",
        rule: expm1::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "ln",
        rule: ln::<f64>,
        domain: (0.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "log2",
        rule: log2::<f64>,
        domain: (0.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "log10",
        rule: log10::<f64>,
        domain: (0.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "log1p",
        rule: log1p::<f64>,
        domain: (-0.9, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "sin",
        rule: sin::<f64>,
        domain: (-4.0, 4.0),
        kinks: &[],
    },
    UnaryRule {
        name: "cos",
        rule: cos::<f64>,
        domain: (-4.0, 4.0),
        kinks: &[],
    },
    UnaryRule {
        name: "tan",
        rule: tan::<f64>,
        domain: (-1.4, 1.4),
        kinks: &[],
    },
    UnaryRule {
        name: "asin",
        rule: asin::<f64>,
        domain: (-0.9, 0.9),
        kinks: &[],
    },
    UnaryRule {
        name: "acos",
        rule: acos::<f64>,
        domain: (-0.9, 0.9),
        kinks: &[],
    },
    UnaryRule {
        name: "atan",
        rule: atan::<f64>,
        domain: (-4.0, 4.0),
        kinks: &[],
    },
    UnaryRule {
        name: "sinh",
        rule: sinh::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "cosh",
        rule: cosh::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "tanh",
        rule: tanh::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "asinh",
        rule: asinh::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "acosh",
        rule: acosh::<f64>,
        domain: (1.1, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "atanh",
        rule: atanh::<f64>,
        domain: (-0.9, 0.9),
        kinks: &[],
    },
    UnaryRule {
        name: "abs",
        rule: abs::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[0.0],
    },
    UnaryRule {
        name: "recip",
        rule: recip::<f64>,
        domain: (0.2, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "square",
        rule: square::<f64>,
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "powi3",
        rule: |x| powi(x, 3),
        domain: (-3.0, 3.0),
        kinks: &[],
    },
    UnaryRule {
        name: "erf",
        rule: erf::<f64>,
        domain: (-2.5, 2.5),
        kinks: &[],
    },
    UnaryRule {
        name: "erfc",
        rule: erfc::<f64>,
        domain: (-2.5, 2.5),
        kinks: &[],
    },
    UnaryRule {
        name: "gamma",
        rule: gamma::<f64>,
        domain: (0.3, 5.0),
        kinks: &[],
    },
    UnaryRule {
        name: "lgamma",
        rule: lgamma::<f64>,
        domain: (0.3, 8.0),
        kinks: &[],
    },
    UnaryRule {
        name: "digamma",
        rule: digamma::<f64>,
        domain: (0.3, 8.0),
        kinks: &[],
    },
];

/// Every binary rule with test domains.
pub const BINARY: &[BinaryRule] = &[
    BinaryRule {
        name: "add",
        rule: add::<f64>,
        domain_x: (-3.0, 3.0),
        domain_y: (-3.0, 3.0),
    },
    BinaryRule {
        name: "sub",
        rule: sub::<f64>,
        domain_x: (-3.0, 3.0),
        domain_y: (-3.0, 3.0),
    },
    BinaryRule {
        name: "mul",
        rule: mul::<f64>,
        domain_x: (-3.0, 3.0),
        domain_y: (-3.0, 3.0),
    },
    BinaryRule {
        name: "div",
        rule: div::<f64>,
        domain_x: (-3.0, 3.0),
        domain_y: (0.5, 3.0),
    },
    BinaryRule {
        name: "rem",
        rule: rem::<f64>,
        domain_x: (0.1, 0.9),
        domain_y: (1.1, 2.0),
    },
    BinaryRule {
        name: "powf",
        rule: powf::<f64>,
        domain_x: (0.2, 3.0),
        domain_y: (-2.0, 2.0),
    },
    BinaryRule {
        name: "atan2",
        rule: atan2::<f64>,
        domain_x: (0.2, 3.0),
        domain_y: (-3.0, 3.0),
    },
    BinaryRule {
        name: "hypot",
        rule: hypot::<f64>,
        domain_x: (-3.0, 3.0),
        domain_y: (0.2, 3.0),
    },
    BinaryRule {
        name: "min",
        rule: min::<f64>,
        domain_x: (-3.0, -0.1),
        domain_y: (0.1, 3.0),
    },
    BinaryRule {
        name: "max",
        rule: max::<f64>,
        domain_x: (-3.0, -0.1),
        domain_y: (0.1, 3.0),
    },
    BinaryRule {
        name: "copysign",
        rule: copysign::<f64>,
        domain_x: (0.1, 3.0),
        domain_y: (-3.0, -0.1),
    },
];

/// Applies the [`Real`] method that the [`UNARY`] row called `name` differentiates, so that
/// engines can walk the table with their own scalar type; `None` for a name not in the table.
pub fn apply_unary<S: Real>(name: &str, x: S) -> Option<S> {
    Some(match name {
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        "rsqrt" => x.rsqrt(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "expm1" => x.expm1(),
        "ln" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "log1p" => x.log1p(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "asinh" => x.asinh(),
        "acosh" => x.acosh(),
        "atanh" => x.atanh(),
        "abs" => x.abs(),
        "recip" => x.recip(),
        "square" => x.square(),
        "powi3" => x.powi(3),
        "erf" => x.erf(),
        "erfc" => x.erfc(),
        "gamma" => x.gamma(),
        "lgamma" => x.lgamma(),
        "digamma" => x.digamma(),
        _ => return None,
    })
}

/// The binary counterpart of [`apply_unary`], for the rows of [`BINARY`].
pub fn apply_binary<S: Real>(name: &str, x: S, y: S) -> Option<S> {
    Some(match name {
        "add" => x + y,
        "sub" => x - y,
        "mul" => x * y,
        "div" => x / y,
        "rem" => x % y,
        "powf" => x.powf(y),
        "atan2" => x.atan2(y),
        "hypot" => x.hypot(y),
        "min" => x.min(y),
        "max" => x.max(y),
        "copysign" => x.copysign(y),
        _ => return None,
    })
}
