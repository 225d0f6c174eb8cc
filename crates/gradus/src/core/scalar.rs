//! The language's primitive types and values: [`PrimType`] and [`Scalar`], shared by the
//! front end (lexer, AST, type checker), the core IR and its passes, and the run time
//! ([`crate::value`] re-exports them). Nothing here depends on the run time.

use std::fmt;

/// A primitive type of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrimType {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl PrimType {
    /// Every primitive type, in a fixed order.
    pub const ALL: [PrimType; 11] = [
        PrimType::Bool,
        PrimType::I8,
        PrimType::I16,
        PrimType::I32,
        PrimType::I64,
        PrimType::U8,
        PrimType::U16,
        PrimType::U32,
        PrimType::U64,
        PrimType::F32,
        PrimType::F64,
    ];

    /// The name used in source code and in the textual value format (`f64`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            PrimType::Bool => "bool",
            PrimType::I8 => "i8",
            PrimType::I16 => "i16",
            PrimType::I32 => "i32",
            PrimType::I64 => "i64",
            PrimType::U8 => "u8",
            PrimType::U16 => "u16",
            PrimType::U32 => "u32",
            PrimType::U64 => "u64",
            PrimType::F32 => "f32",
            PrimType::F64 => "f64",
        }
    }

    /// The type with the given source name.
    pub fn from_name(name: &str) -> Option<PrimType> {
        PrimType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether this is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            PrimType::I8 | PrimType::I16 | PrimType::I32 | PrimType::I64
        )
    }
    /// Whether this is an unsigned integer type.
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            PrimType::U8 | PrimType::U16 | PrimType::U32 | PrimType::U64
        )
    }
    /// Whether this is an integer type.
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    /// Whether this is a float type.
    pub fn is_float(self) -> bool {
        matches!(self, PrimType::F32 | PrimType::F64)
    }
    /// Whether this is a numeric (integer or float) type.
    pub fn is_numeric(self) -> bool {
        self != PrimType::Bool
    }
    /// Size of one element in bytes (the binary value format's width).
    pub fn byte_width(self) -> usize {
        match self {
            PrimType::Bool | PrimType::I8 | PrimType::U8 => 1,
            PrimType::I16 | PrimType::U16 => 2,
            PrimType::I32 | PrimType::U32 | PrimType::F32 => 4,
            PrimType::I64 | PrimType::U64 | PrimType::F64 => 8,
        }
    }
    /// Number of bits of the type (`bool` counts as 8, as stored).
    pub fn bits(self) -> u32 {
        self.byte_width() as u32 * 8
    }
}

impl fmt::Display for PrimType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A primitive value. Equality is identity: floats are equal when their bits are, so `0.0`
/// and `-0.0` differ and a NaN equals the same NaN (the optimiser merges and compares
/// constants with it; numeric comparison is [`crate::core::prim::CmpOp`]'s).
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum Scalar {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Scalar) -> bool {
        use Scalar::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a == b,
            (I8(a), I8(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (U8(a), U8(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (U32(a), U32(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Scalar {
    /// The type of this value.
    pub fn prim_type(&self) -> PrimType {
        match self {
            Scalar::Bool(_) => PrimType::Bool,
            Scalar::I8(_) => PrimType::I8,
            Scalar::I16(_) => PrimType::I16,
            Scalar::I32(_) => PrimType::I32,
            Scalar::I64(_) => PrimType::I64,
            Scalar::U8(_) => PrimType::U8,
            Scalar::U16(_) => PrimType::U16,
            Scalar::U32(_) => PrimType::U32,
            Scalar::U64(_) => PrimType::U64,
            Scalar::F32(_) => PrimType::F32,
            Scalar::F64(_) => PrimType::F64,
        }
    }

    /// The zero of a type (`false` for `bool`).
    pub fn zero(t: PrimType) -> Scalar {
        Scalar::from_f64(t, 0.0)
    }

    /// The one of a type (`true` for `bool`).
    pub fn one(t: PrimType) -> Scalar {
        Scalar::from_f64(t, 1.0)
    }

    /// Converts `x` to type `t` as the language's conversion functions do (docs/language.md
    /// §Floating-point arithmetic): floats to integers truncate towards zero and saturate, NaN
    /// becomes 0; numbers to `bool` test for non-zero.
    pub fn from_f64(t: PrimType, x: f64) -> Scalar {
        let int = |x: f64| if x.is_nan() { 0.0 } else { x.trunc() };
        match t {
            PrimType::Bool => Scalar::Bool(x != 0.0),
            PrimType::I8 => Scalar::I8(int(x) as i8),
            PrimType::I16 => Scalar::I16(int(x) as i16),
            PrimType::I32 => Scalar::I32(int(x) as i32),
            PrimType::I64 => Scalar::I64(int(x) as i64),
            PrimType::U8 => Scalar::U8(int(x) as u8),
            PrimType::U16 => Scalar::U16(int(x) as u16),
            PrimType::U32 => Scalar::U32(int(x) as u32),
            PrimType::U64 => Scalar::U64(int(x) as u64),
            PrimType::F32 => Scalar::F32(x as f32),
            PrimType::F64 => Scalar::F64(x),
        }
    }

    /// The integer `v` at type `t`: wrapped (truncated to the type's width) for integers,
    /// `v != 0` for `bool`, rounded to nearest for floats.
    pub fn from_i128(t: PrimType, v: i128) -> Scalar {
        match t {
            PrimType::Bool => Scalar::Bool(v != 0),
            PrimType::I8 => Scalar::I8(v as i8),
            PrimType::I16 => Scalar::I16(v as i16),
            PrimType::I32 => Scalar::I32(v as i32),
            PrimType::I64 => Scalar::I64(v as i64),
            PrimType::U8 => Scalar::U8(v as u8),
            PrimType::U16 => Scalar::U16(v as u16),
            PrimType::U32 => Scalar::U32(v as u32),
            PrimType::U64 => Scalar::U64(v as u64),
            PrimType::F32 => Scalar::F32(v as f32),
            PrimType::F64 => Scalar::F64(v as f64),
        }
    }

    /// The value as an `f64` (exact for every type except 64-bit integers of large magnitude).
    pub fn to_f64(&self) -> f64 {
        match *self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::I8(v) => v as f64,
            Scalar::I16(v) => v as f64,
            Scalar::I32(v) => v as f64,
            Scalar::I64(v) => v as f64,
            Scalar::U8(v) => v as f64,
            Scalar::U16(v) => v as f64,
            Scalar::U32(v) => v as f64,
            Scalar::U64(v) => v as f64,
            Scalar::F32(v) => v as f64,
            Scalar::F64(v) => v,
        }
    }

    /// The value as an `i64` for integer and boolean values (wrapping for `u64`); `None` for
    /// floats.
    pub fn as_i64(&self) -> Option<i64> {
        Some(match *self {
            Scalar::Bool(b) => b as i64,
            Scalar::I8(v) => v as i64,
            Scalar::I16(v) => v as i64,
            Scalar::I32(v) => v as i64,
            Scalar::I64(v) => v,
            Scalar::U8(v) => v as i64,
            Scalar::U16(v) => v as i64,
            Scalar::U32(v) => v as i64,
            Scalar::U64(v) => v as i64,
            Scalar::F32(_) | Scalar::F64(_) => return None,
        })
    }
}
