//! The table of primitive scalar operations.
//!
//! Each operation is described once (STYLE.md item 5): its printed name, its type rule
//! ([`PrimOp::result_type`], [`PrimOp::arity`]), its semantics (`eval`, used by the
//! interpreter and by constant folding). Later stages add the C spelling and the partial
//! derivatives next to these, keyed by the same enum.
//!
//! Operations are monomorphic: the operand type is part of the operation (`Bin(Add, F64)`).
//! Integer arithmetic wraps; division rounds as docs/language.md §Integer arithmetic says; floats
//! follow §Floating-point arithmetic.

use crate::core::scalar::PrimType;
use std::fmt;

/// Unary operations. The operand has the operation's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum UnOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Logical not on `bool`, bitwise complement on integers.
    Not,
    Abs,
    /// -1, 0 or 1 (NaN for NaN).
    Sgn,
    // Float functions (operand and result of the float type).
    Sqrt,
    Rsqrt,
    Cbrt,
    Exp,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinpi,
    Cospi,
    Tanpi,
    Asinpi,
    Acospi,
    Atanpi,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Gamma,
    Lgamma,
    Erf,
    Erfc,
    Ceil,
    Floor,
    Trunc,
    /// Rounds half to even.
    Round,
    Recip,
    /// Result `bool`.
    IsNan,
    /// Result `bool`.
    IsInf,
    /// Float to the unsigned integer of the same width (bit reinterpretation).
    ToBits,
    /// Integer operations with an `i32` result.
    Popc,
    Clz,
    Ctz,
}

/// Binary operations. Both operands have the operation's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Integers: rounds towards −∞; floats: IEEE division.
    Div,
    /// Integers: sign of the divisor; floats: C `fmod`.
    Mod,
    /// `//`: integer division towards zero.
    Quot,
    /// `%%`: integer remainder with the sign of the dividend.
    Rem,
    /// `**`: integers by repeated multiplication, floats by `powf`.
    Pow,
    /// Returns the first operand on ties; the other one if one operand is NaN.
    Min,
    Max,
    /// Bitwise (integers) or logical, non-short-circuit (`bool`).
    And,
    Or,
    Xor,
    Shl,
    /// `>>` of the language: arithmetic on signed types, logical on unsigned.
    Shr,
    /// `t.>>`: arithmetic on the bit pattern, even for unsigned types.
    AShr,
    /// `>>>`: logical.
    LShr,
    /// `atan2 y x`.
    Atan2,
    Atan2pi,
    Hypot,
    Copysign,
    Nextafter,
    /// High half of the double-width product.
    MulHi,
    /// `ldexp x k`: the second operand is an `i32` (the only binary operation with mixed types).
    Ldexp,
    /// `get_bit i x`: the first operand is an `i32`, result `i32`.
    GetBit,
}

/// Comparisons: operands of the operation's type, result `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpOp {
    Eq,
    Ne,
    /// Unsigned types compare unsigned; `false < true`.
    Lt,
    Le,
    Gt,
    Ge,
}

/// Ternary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TernOp {
    /// `fma a b c = a * b + c` with one rounding.
    Fma,
    /// `mad a b c = a * b + c`.
    Mad,
    /// `lerp v0 v1 t = v0 + (v1 - v0) * t`.
    Lerp,
    /// `mad_hi a b c = mul_hi a b + c`.
    MadHi,
    /// `set_bit i x b`: operands `i32`, `t`, `i32`.
    SetBit,
    /// `if c then a else b` on scalars, evaluating both (`select`); the first operand is a
    /// `bool`.
    Select,
}

/// A primitive operation at a specific type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimOp {
    /// A unary operation.
    Un(UnOp, PrimType),
    /// A binary operation.
    Bin(BinOp, PrimType),
    /// A comparison.
    Cmp(CmpOp, PrimType),
    /// A ternary operation.
    Tern(TernOp, PrimType),
    /// Conversion from the first type to the second (docs/language.md §Floating-point arithmetic;
    /// the numeric modules' conversion functions).
    Conv(PrimType, PrimType),
    /// Bit reinterpretation of an unsigned integer as the float of the same width
    /// (`f64.from_bits`): from the integer type to the float type.
    FromBits(PrimType, PrimType),
}

impl PrimOp {
    /// Number of operands.
    pub fn arity(self) -> usize {
        match self {
            PrimOp::Un(..) | PrimOp::Conv(..) | PrimOp::FromBits(..) => 1,
            PrimOp::Bin(..) | PrimOp::Cmp(..) => 2,
            PrimOp::Tern(..) => 3,
        }
    }

    /// Operand types, in order.
    pub fn operand_types(self) -> Vec<PrimType> {
        match self {
            PrimOp::Un(_, t) => vec![t],
            PrimOp::Bin(BinOp::Ldexp, t) => vec![t, PrimType::I32],
            PrimOp::Bin(BinOp::GetBit, t) => vec![PrimType::I32, t],
            PrimOp::Bin(_, t) | PrimOp::Cmp(_, t) => vec![t, t],
            PrimOp::Tern(TernOp::SetBit, t) => vec![PrimType::I32, t, PrimType::I32],
            PrimOp::Tern(TernOp::Select, t) => vec![PrimType::Bool, t, t],
            PrimOp::Tern(_, t) => vec![t, t, t],
            PrimOp::Conv(from, _) | PrimOp::FromBits(from, _) => vec![from],
        }
    }

    /// The result type.
    pub fn result_type(self) -> PrimType {
        match self {
            PrimOp::Un(UnOp::IsNan | UnOp::IsInf, _) => PrimType::Bool,
            PrimOp::Un(UnOp::Popc | UnOp::Clz | UnOp::Ctz, _) => PrimType::I32,
            PrimOp::Un(UnOp::ToBits, PrimType::F32) => PrimType::U32,
            PrimOp::Un(UnOp::ToBits, _) => PrimType::U64,
            PrimOp::Un(_, t) => t,
            PrimOp::Bin(BinOp::GetBit, _) => PrimType::I32,
            PrimOp::Bin(_, t) => t,
            PrimOp::Cmp(..) => PrimType::Bool,
            PrimOp::Tern(_, t) => t,
            PrimOp::Conv(_, to) | PrimOp::FromBits(_, to) => to,
        }
    }

    /// The printed name, e.g. `add_f64`, `lt_i32`, `sqrt_f64`, `conv_i32_f64`.
    pub fn name(self) -> String {
        format!("{self}")
    }
}

impl fmt::Display for PrimOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrimOp::Un(op, t) => write!(f, "{}_{}", format!("{op:?}").to_lowercase(), t),
            PrimOp::Bin(op, t) => write!(f, "{}_{}", format!("{op:?}").to_lowercase(), t),
            PrimOp::Cmp(op, t) => write!(f, "{}_{}", format!("{op:?}").to_lowercase(), t),
            PrimOp::Tern(op, t) => write!(f, "{}_{}", format!("{op:?}").to_lowercase(), t),
            PrimOp::Conv(a, b) => write!(f, "conv_{a}_{b}"),
            PrimOp::FromBits(a, b) => write!(f, "from_bits_{a}_{b}"),
        }
    }
}

/// Every primitive operation at every type (also at types where it has no meaning, so that
/// any printed operation reads back, and tests can walk the whole table).
pub fn all_prim_ops() -> Vec<PrimOp> {
    use BinOp as B;
    use UnOp as U;
    let un = [
        U::Neg,
        U::Not,
        U::Abs,
        U::Sgn,
        U::Sqrt,
        U::Rsqrt,
        U::Cbrt,
        U::Exp,
        U::Log,
        U::Log2,
        U::Log10,
        U::Log1p,
        U::Sin,
        U::Cos,
        U::Tan,
        U::Asin,
        U::Acos,
        U::Atan,
        U::Sinpi,
        U::Cospi,
        U::Tanpi,
        U::Asinpi,
        U::Acospi,
        U::Atanpi,
        U::Sinh,
        U::Cosh,
        U::Tanh,
        U::Asinh,
        U::Acosh,
        U::Atanh,
        U::Gamma,
        U::Lgamma,
        U::Erf,
        U::Erfc,
        U::Ceil,
        U::Floor,
        U::Trunc,
        U::Round,
        U::Recip,
        U::IsNan,
        U::IsInf,
        U::ToBits,
        U::Popc,
        U::Clz,
        U::Ctz,
    ];
    let bin = [
        B::Add,
        B::Sub,
        B::Mul,
        B::Div,
        B::Mod,
        B::Quot,
        B::Rem,
        B::Pow,
        B::Min,
        B::Max,
        B::And,
        B::Or,
        B::Xor,
        B::Shl,
        B::Shr,
        B::AShr,
        B::LShr,
        B::Atan2,
        B::Atan2pi,
        B::Hypot,
        B::Copysign,
        B::Nextafter,
        B::MulHi,
        B::Ldexp,
        B::GetBit,
    ];
    let cmp = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];
    let tern = [
        TernOp::Fma,
        TernOp::Mad,
        TernOp::Lerp,
        TernOp::MadHi,
        TernOp::SetBit,
        TernOp::Select,
    ];
    let mut out = Vec::new();
    for t in PrimType::ALL {
        out.extend(un.iter().map(|&o| PrimOp::Un(o, t)));
        out.extend(bin.iter().map(|&o| PrimOp::Bin(o, t)));
        out.extend(cmp.iter().map(|&o| PrimOp::Cmp(o, t)));
        out.extend(tern.iter().map(|&o| PrimOp::Tern(o, t)));
        for u in PrimType::ALL {
            out.push(PrimOp::Conv(t, u));
            out.push(PrimOp::FromBits(t, u));
        }
    }
    out
}
