//! Comparisons and conversions, the operations whose operands and results differ in type:
//! comparisons (unsigned for unsigned types, false for NaN except `ne`), numeric conversions
//! (truncating, saturating, `!= 0` for `bool`) and bit reinterpretation of integers as floats.

use super::R;
use crate::core::prim::CmpOp;
use crate::core::scalar::{PrimType, Scalar};

pub(super) fn eval_cmp(op: CmpOp, a: Scalar, b: Scalar) -> R {
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => x.partial_cmp(&y),
        (Scalar::F64(x), Scalar::F64(y)) => x.partial_cmp(&y),
        // `as_i64` would wrap large `u64` values.
        (Scalar::U64(x), Scalar::U64(y)) => Some(x.cmp(&y)),
        _ => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => return Err(None),
        },
    };
    let r = match (op, ord) {
        (CmpOp::Ne, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Ordering::Equal,
        (CmpOp::Ne, Some(o)) => o != Ordering::Equal,
        (CmpOp::Lt, Some(o)) => o == Ordering::Less,
        (CmpOp::Le, Some(o)) => o != Ordering::Greater,
        (CmpOp::Gt, Some(o)) => o == Ordering::Greater,
        (CmpOp::Ge, Some(o)) => o != Ordering::Less,
    };
    Ok(Scalar::Bool(r))
}

/// Converts `x` to type `to` (docs/language.md §Floating-point arithmetic and §Numeric modules).
/// Between integers the value is truncated or extended; it is sign-extended only when both types
/// are signed, so that a signed value converted to a wider unsigned type keeps its bits (`u16.i8
/// (-128i8)` is `128u16`, as in Futhark).
pub(super) fn convert(x: Scalar, to: PrimType) -> Scalar {
    let unsigned = to.is_unsigned_int();
    match x {
        Scalar::F32(f) => float_to(f as f64, to, Some(f)),
        Scalar::F64(f) => float_to(f, to, None),
        Scalar::Bool(b) => Scalar::from_i128(to, b as i128),
        Scalar::I8(v) if unsigned => Scalar::from_i128(to, v as u8 as i128),
        Scalar::I16(v) if unsigned => Scalar::from_i128(to, v as u16 as i128),
        Scalar::I32(v) if unsigned => Scalar::from_i128(to, v as u32 as i128),
        Scalar::I64(v) if unsigned => Scalar::from_i128(to, v as u64 as i128),
        Scalar::I8(v) => Scalar::from_i128(to, v as i128),
        Scalar::I16(v) => Scalar::from_i128(to, v as i128),
        Scalar::I32(v) => Scalar::from_i128(to, v as i128),
        Scalar::I64(v) => Scalar::from_i128(to, v as i128),
        Scalar::U8(v) => Scalar::from_i128(to, v as i128),
        Scalar::U16(v) => Scalar::from_i128(to, v as i128),
        Scalar::U32(v) => Scalar::from_i128(to, v as i128),
        Scalar::U64(v) => Scalar::from_i128(to, v as i128),
    }
}

/// A float converted to `to`: truncation with saturation for integers (NaN and ±∞ give 0),
/// `!= 0` for `bool`. `single` is the original value when it was an `f32`.
fn float_to(f: f64, to: PrimType, single: Option<f32>) -> Scalar {
    let g = if f.is_finite() { f } else { 0.0 };
    match to {
        PrimType::Bool => Scalar::Bool(f != 0.0),
        PrimType::I8 => Scalar::I8(g as i8),
        PrimType::I16 => Scalar::I16(g as i16),
        PrimType::I32 => Scalar::I32(g as i32),
        PrimType::I64 => Scalar::I64(g as i64),
        PrimType::U8 => Scalar::U8(g as u8),
        PrimType::U16 => Scalar::U16(g as u16),
        PrimType::U32 => Scalar::U32(g as u32),
        PrimType::U64 => Scalar::U64(g as u64),
        PrimType::F32 => Scalar::F32(single.unwrap_or(f as f32)),
        PrimType::F64 => Scalar::F64(f),
    }
}

/// Reinterprets the bits of an integer as the float of the same width.
pub(super) fn from_bits(x: Scalar, to: PrimType) -> Option<Scalar> {
    match (x, to) {
        (Scalar::U32(v), PrimType::F32) => Some(Scalar::F32(f32::from_bits(v))),
        (Scalar::I32(v), PrimType::F32) => Some(Scalar::F32(f32::from_bits(v as u32))),
        (Scalar::U64(v), PrimType::F64) => Some(Scalar::F64(f64::from_bits(v))),
        (Scalar::I64(v), PrimType::F64) => Some(Scalar::F64(f64::from_bits(v as u64))),
        _ => None,
    }
}
