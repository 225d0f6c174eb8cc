//! Scalar intrinsics of the numeric modules: from a prelude name such as `f64.sqrt` or
//! `i32.+` to the primitive operation it denotes.

use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::PrimType;

/// The primitive operation of a scalar intrinsic `module.name` of the numeric modules, or of a
/// built-in overloaded operator at operand type `t` (`module` = `None`).
pub fn scalar_op(t: PrimType, name: &str) -> Option<PrimOp> {
    use PrimOp::*;
    if let Some(from) = PrimType::from_name(name) {
        return Some(Conv(from, t));
    }
    let float = t.is_float();
    Some(match name {
        "+" => Bin(BinOp::Add, t),
        "-" => Bin(BinOp::Sub, t),
        "*" => Bin(BinOp::Mul, t),
        "/" => Bin(BinOp::Div, t),
        "%" => Bin(BinOp::Mod, t),
        "**" => Bin(BinOp::Pow, t),
        "//" => Bin(BinOp::Quot, t),
        "%%" => Bin(BinOp::Rem, t),
        "&" | "&&" => Bin(BinOp::And, t),
        "|" | "||" => Bin(BinOp::Or, t),
        "^" => Bin(BinOp::Xor, t),
        "<<" => Bin(BinOp::Shl, t),
        // The module's own `>>` is arithmetic on the bit pattern even for unsigned types
        // (docs/language.md §Integer arithmetic); the overloaded operator is handled by
        // `builtin_op`.
        ">>" => Bin(BinOp::AShr, t),
        ">>>" => Bin(BinOp::LShr, t),
        "==" => Cmp(CmpOp::Eq, t),
        "!=" => Cmp(CmpOp::Ne, t),
        "<" => Cmp(CmpOp::Lt, t),
        "<=" => Cmp(CmpOp::Le, t),
        ">" => Cmp(CmpOp::Gt, t),
        ">=" => Cmp(CmpOp::Ge, t),
        "max" => Bin(BinOp::Max, t),
        "min" => Bin(BinOp::Min, t),
        "neg" => Un(UnOp::Neg, t),
        "abs" => Un(UnOp::Abs, t),
        "sgn" => Un(UnOp::Sgn, t),
        "not" => Un(UnOp::Not, t),
        "popc" => Un(UnOp::Popc, t),
        "clz" => Un(UnOp::Clz, t),
        "ctz" => Un(UnOp::Ctz, t),
        "mul_hi" => Bin(BinOp::MulHi, t),
        "mad_hi" => Tern(TernOp::MadHi, t),
        "get_bit" => Bin(BinOp::GetBit, t),
        "set_bit" => Tern(TernOp::SetBit, t),
        "to_i64" => Conv(t, PrimType::I64),
        "to_f64" => Conv(t, PrimType::F64),
        "isinf" if float => Un(UnOp::IsInf, t),
        "isnan" if float => Un(UnOp::IsNan, t),
        "to_bits" if float => Un(UnOp::ToBits, t),
        "from_bits" if float => FromBits(
            if t == PrimType::F32 {
                PrimType::U32
            } else {
                PrimType::U64
            },
            t,
        ),
        "ldexp" if float => Bin(BinOp::Ldexp, t),
        "atan2" if float => Bin(BinOp::Atan2, t),
        "atan2pi" if float => Bin(BinOp::Atan2pi, t),
        "hypot" if float => Bin(BinOp::Hypot, t),
        "copysign" if float => Bin(BinOp::Copysign, t),
        "nextafter" if float => Bin(BinOp::Nextafter, t),
        "fma" if float => Tern(TernOp::Fma, t),
        "mad" if float => Tern(TernOp::Mad, t),
        "lerp" if float => Tern(TernOp::Lerp, t),
        _ if float => Un(float_unop(name)?, t),
        _ => return None,
    })
}

/// The overloaded built-in operator `op` at operand type `t`: like [`scalar_op`] except that
/// `>>` is arithmetic on signed and logical on unsigned types, and `!` is `not`.
pub fn builtin_op(t: PrimType, op: &str) -> Option<PrimOp> {
    match op {
        ">>" => Some(PrimOp::Bin(BinOp::Shr, t)),
        "!" => Some(PrimOp::Un(UnOp::Not, t)),
        _ => scalar_op(t, op),
    }
}

fn float_unop(name: &str) -> Option<UnOp> {
    use UnOp::*;
    Some(match name {
        "sqrt" => Sqrt,
        "rsqrt" => Rsqrt,
        "cbrt" => Cbrt,
        "exp" => Exp,
        "log" => Log,
        "log2" => Log2,
        "log10" => Log10,
        "log1p" => Log1p,
        "sin" => Sin,
        "cos" => Cos,
        "tan" => Tan,
        "asin" => Asin,
        "acos" => Acos,
        "atan" => Atan,
        "sinpi" => Sinpi,
        "cospi" => Cospi,
        "tanpi" => Tanpi,
        "asinpi" => Asinpi,
        "acospi" => Acospi,
        "atanpi" => Atanpi,
        "sinh" => Sinh,
        "cosh" => Cosh,
        "tanh" => Tanh,
        "asinh" => Asinh,
        "acosh" => Acosh,
        "atanh" => Atanh,
        "gamma" => Gamma,
        "lgamma" => Lgamma,
        "erf" => Erf,
        "erfc" => Erfc,
        "ceil" => Ceil,
        "floor" => Floor,
        "trunc" => Trunc,
        "round" => Round,
        "recip" => Recip,
        _ => return None,
    })
}

/// The value of a constant intrinsic of a float module (`f64.pi`, `f32.inf`, `f64.highest`).
pub fn float_constant(t: PrimType, name: &str) -> Option<f64> {
    let eps = if t == PrimType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    Some(match name {
        "inf" | "highest" => f64::INFINITY,
        "lowest" => f64::NEG_INFINITY,
        "nan" => f64::NAN,
        "pi" => std::f64::consts::PI,
        "e" => std::f64::consts::E,
        "epsilon" => eps,
        _ => return None,
    })
}
