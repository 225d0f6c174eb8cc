//! Floating-point operations: one module per float type (`f32_ops`, `f64_ops`), generated
//! from the same text so that both types have exactly the same semantics (docs/language.md
//! §Floating-point arithmetic), with the special functions of the `libm` crate at each width.
//! Operands of another type give `Err(None)`.

use super::{PrimError, R, i32_arg};

macro_rules! float_ops {
    (
        $m:ident, $t:ident, $V:ident, $U:ident, $ut:ty,
        tgamma = $tgamma:path, lgamma = $lgamma:path, erf = $erf:path, erfc = $erfc:path,
        nextafter = $nextafter:path, ldexp = $ldexp:path
    ) => {
        pub(super) mod $m {
            use super::R;
            use crate::core::prim::{BinOp, TernOp, UnOp};
            use crate::core::scalar::Scalar;
            use std::$t::consts::PI;

            fn get(s: Scalar) -> Result<$t, Option<super::PrimError>> {
                match s {
                    Scalar::$V(x) => Ok(x),
                    _ => Err(None),
                }
            }

            fn bits(s: Scalar) -> Result<$ut, Option<super::PrimError>> {
                get(s).map(<$t>::to_bits)
            }

            /// `sin(πx)`, exact at integers and half-integers.
            pub(super) fn sinpi(x: $t) -> $t {
                if !x.is_finite() {
                    return <$t>::NAN;
                }
                // r = x mod 2 in [-1, 1], computed exactly.
                let r = x - 2.0 * (x * 0.5).round();
                let a = r.abs();
                let s = if a == 0.0 || a == 1.0 {
                    return (0.0 as $t).copysign(x);
                } else if a == 0.5 {
                    1.0
                } else if a > 0.5 {
                    (PI * (1.0 - a)).sin()
                } else {
                    (PI * a).sin()
                };
                s.copysign(r)
            }

            /// `cos(πx)`, exact at integers and half-integers.
            pub(super) fn cospi(x: $t) -> $t {
                if !x.is_finite() {
                    return <$t>::NAN;
                }
                let x = x.abs();
                let a = (x - 2.0 * (x * 0.5).round()).abs();
                if a == 0.0 {
                    1.0
                } else if a == 1.0 {
                    -1.0
                } else if a == 0.5 {
                    0.0
                } else if a > 0.5 {
                    -(PI * (1.0 - a)).cos()
                } else {
                    (PI * a).cos()
                }
            }

            pub(in crate::core::prim_eval) fn un(op: UnOp, x: Scalar) -> R {
                let x = get(x)?;
                let r: $t = match op {
                    UnOp::Neg => -x,
                    UnOp::Abs => x.abs(),
                    UnOp::Sgn => {
                        if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            x
                        }
                    }
                    UnOp::Sqrt => x.sqrt(),
                    UnOp::Rsqrt => 1.0 / x.sqrt(),
                    UnOp::Cbrt => x.cbrt(),
                    UnOp::Exp => x.exp(),
                    UnOp::Log => x.ln(),
                    UnOp::Log2 => x.log2(),
                    UnOp::Log10 => x.log10(),
                    UnOp::Log1p => x.ln_1p(),
                    UnOp::Sin => x.sin(),
                    UnOp::Cos => x.cos(),
                    UnOp::Tan => x.tan(),
                    UnOp::Asin => x.asin(),
                    UnOp::Acos => x.acos(),
                    UnOp::Atan => x.atan(),
                    UnOp::Sinpi => sinpi(x),
                    UnOp::Cospi => cospi(x),
                    UnOp::Tanpi => sinpi(x) / cospi(x),
                    UnOp::Asinpi => x.asin() / PI,
                    UnOp::Acospi => x.acos() / PI,
                    UnOp::Atanpi => x.atan() / PI,
                    UnOp::Sinh => x.sinh(),
                    UnOp::Cosh => x.cosh(),
                    UnOp::Tanh => x.tanh(),
                    UnOp::Asinh => x.asinh(),
                    UnOp::Acosh => x.acosh(),
                    UnOp::Atanh => x.atanh(),
                    UnOp::Gamma => $tgamma(x),
                    UnOp::Lgamma => $lgamma(x),
                    UnOp::Erf => $erf(x),
                    UnOp::Erfc => $erfc(x),
                    UnOp::Ceil => x.ceil(),
                    UnOp::Floor => x.floor(),
                    UnOp::Trunc => x.trunc(),
                    UnOp::Round => x.round_ties_even(),
                    UnOp::Recip => 1.0 / x,
                    UnOp::IsNan => return Ok(Scalar::Bool(x.is_nan())),
                    UnOp::IsInf => return Ok(Scalar::Bool(x.is_infinite())),
                    UnOp::ToBits => return Ok(Scalar::$U(x.to_bits())),
                    UnOp::Not | UnOp::Popc | UnOp::Clz | UnOp::Ctz => return Err(None),
                };
                Ok(Scalar::$V(r))
            }

            pub(in crate::core::prim_eval) fn bin(op: BinOp, a: Scalar, b: Scalar) -> R {
                if op == BinOp::GetBit {
                    let i = super::i32_arg(a)?;
                    let p = bits(b)?;
                    let bit = if i < 0 || i as u32 >= <$ut>::BITS {
                        0
                    } else {
                        ((p >> i) & 1) as i32
                    };
                    return Ok(Scalar::I32(bit));
                }
                if op == BinOp::Ldexp {
                    let x = get(a)?;
                    let k = super::i32_arg(b)?;
                    return Ok(Scalar::$V($ldexp(x, k)));
                }
                let (x, y) = (get(a)?, get(b)?);
                let r: $t = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    BinOp::Mod => x % y,
                    BinOp::Pow => x.powf(y),
                    BinOp::Min => {
                        if x.is_nan() || y < x {
                            y
                        } else {
                            x
                        }
                    }
                    BinOp::Max => {
                        if x.is_nan() || y > x {
                            y
                        } else {
                            x
                        }
                    }
                    BinOp::Atan2 => x.atan2(y),
                    BinOp::Atan2pi => x.atan2(y) / PI,
                    BinOp::Hypot => x.hypot(y),
                    BinOp::Copysign => x.copysign(y),
                    BinOp::Nextafter => $nextafter(x, y),
                    _ => return Err(None),
                };
                Ok(Scalar::$V(r))
            }

            pub(in crate::core::prim_eval) fn tern(
                op: TernOp,
                a: Scalar,
                b: Scalar,
                c: Scalar,
            ) -> R {
                if op == TernOp::SetBit {
                    let i = super::i32_arg(a)?;
                    let p = bits(b)?;
                    let v = super::i32_arg(c)?;
                    if i < 0 || i as u32 >= <$ut>::BITS {
                        return Ok(b);
                    }
                    let p = (p & !(1 << i)) | (((v & 1) as $ut) << i);
                    return Ok(Scalar::$V(<$t>::from_bits(p)));
                }
                let (x, y, z) = (get(a)?, get(b)?, get(c)?);
                let r: $t = match op {
                    TernOp::Fma => x.mul_add(y, z),
                    TernOp::Mad => x * y + z,
                    TernOp::Lerp => x + (y - x) * z,
                    _ => return Err(None),
                };
                Ok(Scalar::$V(r))
            }
        }
    };
}

float_ops!(
    f32_ops,
    f32,
    F32,
    U32,
    u32,
    tgamma = libm::tgammaf,
    lgamma = libm::lgammaf,
    erf = libm::erff,
    erfc = libm::erfcf,
    nextafter = libm::nextafterf,
    ldexp = libm::ldexpf
);
float_ops!(
    f64_ops,
    f64,
    F64,
    U64,
    u64,
    tgamma = libm::tgamma,
    lgamma = libm::lgamma,
    erf = libm::erf,
    erfc = libm::erfc,
    nextafter = libm::nextafter,
    ldexp = libm::ldexp
);
