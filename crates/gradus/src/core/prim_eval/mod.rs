//! The semantics of primitive operations: [`PrimOp::eval`].
//!
//! This is the one definition of what each entry of the table in [`crate::core::prim`]
//! computes, used by the interpreter and by constant folding. It follows docs/language.md §Integer
//! arithmetic and §Floating-point arithmetic exactly:
//!
//! * integer arithmetic wraps around in two's complement; `div` rounds towards −∞, `mod` has the
//!   sign of the divisor, `quot` (`//`) rounds towards zero, `rem` (`%%`) has the sign of the
//!   dividend; division or remainder by zero is [`PrimError::DivisionByZero`]
//!   (`division by zero`); `lowest / -1` wraps to `lowest`;
//! * integer `pow` is repeated squaring with wrap-around, the bits of a negative exponent read
//!   as an unsigned number;
//! * shifts: an amount `>= bits`, or a negative amount of a signed type, shifts everything out
//!   (0, or all copies of the top bit for an arithmetic shift); `shr` is arithmetic on signed
//!   and logical on unsigned types, `ashr` is arithmetic on the bit pattern for every type,
//!   `lshr` is logical;
//! * comparisons of unsigned types are unsigned; `false < true`;
//! * float `min`/`max` return the other operand when one is NaN and the first operand on ties;
//!   `round` rounds half to even; `sgn` is -1, 0 or 1 (and keeps NaN and signed zeros);
//! * conversions: floats to integers truncate towards zero and saturate, NaN and ±∞ give 0;
//!   numbers to `bool` test `!= 0`; `bool` to numbers gives 0 or 1; integers to integers
//!   truncate or extend; integers to floats round to nearest;
//! * `popc`, `clz`, `ctz` count on the bit pattern (`clz 0` and `ctz 0` are the bit width);
//!   `get_bit i x` is 0 for `i` outside `0 .. bits`, and `set_bit i x b` leaves `x` alone there
//!   (it writes the lowest bit of `b`); on floats both work on the bit pattern;
//! * `gamma`, `lgamma`, `erf`, `erfc`, `nextafter`, `ldexp` come from the `libm` crate; `sinpi`,
//!   `cospi` are exact at integers and half-integers.
//!
//! [`PrimOp::has_semantics`] says at which types each operation is defined; `eval` of an
//! operation outside that set, or with operands of the wrong types or number, returns
//! [`PrimError::Malformed`] (the verifier should have rejected such IR). `eval` never panics.

use crate::core::prim::{BinOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
use conv::{convert, eval_cmp, from_bits};
use float::{f32_ops, f64_ops};
use int::{int_bin, int_tern, int_un};
use std::fmt;

mod conv;
mod float;
mod int;
#[cfg(test)]
mod tests;

/// Why a primitive operation failed.
#[derive(Clone, Debug, PartialEq)]
pub enum PrimError {
    /// Integer division or remainder by zero (a run-time error of the program).
    DivisionByZero,
    /// The operation is not defined at its type, or the operands do not fit it (a compiler
    /// bug: the verifier should have caught it). Holds a description.
    Malformed(String),
}

impl fmt::Display for PrimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrimError::DivisionByZero => f.write_str("division by zero"),
            PrimError::Malformed(m) => write!(f, "internal error: {m}"),
        }
    }
}

impl std::error::Error for PrimError {}

impl PrimOp {
    /// Whether the operation is defined at its type(s), i.e. whether [`PrimOp::eval`] can
    /// succeed for operands of [`PrimOp::operand_types`].
    pub fn has_semantics(self) -> bool {
        use PrimType as P;
        match self {
            PrimOp::Un(op, t) => match op {
                UnOp::Neg | UnOp::Abs | UnOp::Sgn => t.is_numeric(),
                UnOp::Not => t == P::Bool || t.is_int(),
                UnOp::Popc | UnOp::Clz | UnOp::Ctz => t.is_int(),
                _ => t.is_float(),
            },
            PrimOp::Bin(op, t) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod | BinOp::Pow => {
                    t.is_numeric()
                }
                BinOp::Quot
                | BinOp::Rem
                | BinOp::Shl
                | BinOp::Shr
                | BinOp::AShr
                | BinOp::LShr
                | BinOp::MulHi => t.is_int(),
                BinOp::Min | BinOp::Max => true,
                BinOp::And | BinOp::Or | BinOp::Xor => t == P::Bool || t.is_int(),
                BinOp::Atan2
                | BinOp::Atan2pi
                | BinOp::Hypot
                | BinOp::Copysign
                | BinOp::Nextafter
                | BinOp::Ldexp => t.is_float(),
                BinOp::GetBit => t.is_numeric(),
            },
            PrimOp::Cmp(..) => true,
            PrimOp::Tern(op, t) => match op {
                TernOp::Fma | TernOp::Mad => t.is_numeric(),
                TernOp::Lerp => t.is_float(),
                TernOp::MadHi => t.is_int(),
                TernOp::SetBit => t.is_numeric(),
                TernOp::Select => true,
            },
            PrimOp::Conv(..) => true,
            PrimOp::FromBits(from, to) => {
                from.is_int() && to.is_float() && from.bits() == to.bits()
            }
        }
    }

    /// Applies the operation to operands of [`PrimOp::operand_types`] (see the module doc for
    /// the exact semantics).
    pub fn eval(self, args: &[Scalar]) -> Result<Scalar, PrimError> {
        let (tys, arity) = operand_types(self);
        let tys = &tys[..arity];
        if args.len() != arity {
            return Err(PrimError::Malformed(format!(
                "{self} takes {arity} operands, got {}",
                args.len()
            )));
        }
        for (i, (a, t)) in args.iter().zip(tys).enumerate() {
            if a.prim_type() != *t {
                return Err(PrimError::Malformed(format!(
                    "operand {} of {self} has type {} instead of {t}",
                    i + 1,
                    a.prim_type()
                )));
            }
        }
        let r = match self {
            PrimOp::Un(op, t) => eval_un(op, t, args[0]),
            PrimOp::Bin(op, t) => eval_bin(op, t, args[0], args[1]),
            PrimOp::Cmp(op, _) => eval_cmp(op, args[0], args[1]),
            PrimOp::Tern(TernOp::Select, _) => match args[0] {
                Scalar::Bool(c) => Ok(if c { args[1] } else { args[2] }),
                _ => Err(None),
            },
            PrimOp::Tern(op, t) => eval_tern(op, t, args[0], args[1], args[2]),
            PrimOp::Conv(_, to) => Ok(convert(args[0], to)),
            PrimOp::FromBits(_, to) => from_bits(args[0], to).ok_or(None),
        };
        r.map_err(|e| match e {
            Some(e) => e,
            None => PrimError::Malformed(format!("{self} is not defined")),
        })
    }
}

/// [`PrimOp::operand_types`] without allocating: the types and their number.
fn operand_types(op: PrimOp) -> ([PrimType; 3], usize) {
    use PrimType::{Bool, I32};
    match op {
        PrimOp::Un(_, t) | PrimOp::Conv(t, _) | PrimOp::FromBits(t, _) => ([t, t, t], 1),
        PrimOp::Bin(BinOp::Ldexp, t) => ([t, I32, t], 2),
        PrimOp::Bin(BinOp::GetBit, t) => ([I32, t, t], 2),
        PrimOp::Bin(_, t) | PrimOp::Cmp(_, t) => ([t, t, t], 2),
        PrimOp::Tern(TernOp::SetBit, t) => ([I32, t, I32], 3),
        PrimOp::Tern(TernOp::Select, t) => ([Bool, t, t], 3),
        PrimOp::Tern(_, t) => ([t, t, t], 3),
    }
}

/// Internal result: `Err(None)` means "not defined at this type".
type R = Result<Scalar, Option<PrimError>>;

/// An `i32` operand (bit indices, `ldexp` exponents), shared by integers and floats.
fn i32_arg(s: Scalar) -> Result<i32, Option<PrimError>> {
    match s {
        Scalar::I32(x) => Ok(x),
        _ => Err(None),
    }
}

/// Calls `$f::<T>(args)` for the integer type `$t`, or `Err(None)` for other types.
macro_rules! on_int {
    ($t:expr, $f:ident ( $($a:expr),* )) => {
        match $t {
            PrimType::I8 => $f::<i8>($($a),*),
            PrimType::I16 => $f::<i16>($($a),*),
            PrimType::I32 => $f::<i32>($($a),*),
            PrimType::I64 => $f::<i64>($($a),*),
            PrimType::U8 => $f::<u8>($($a),*),
            PrimType::U16 => $f::<u16>($($a),*),
            PrimType::U32 => $f::<u32>($($a),*),
            PrimType::U64 => $f::<u64>($($a),*),
            _ => Err(None),
        }
    };
}

// Dispatch by type: `bool` here, floats and integers in their modules.

fn eval_un(op: UnOp, t: PrimType, x: Scalar) -> R {
    match t {
        PrimType::Bool => match (op, x) {
            (UnOp::Not, Scalar::Bool(b)) => Ok(Scalar::Bool(!b)),
            _ => Err(None),
        },
        PrimType::F32 => f32_ops::un(op, x),
        PrimType::F64 => f64_ops::un(op, x),
        _ => on_int!(t, int_un(op, x)),
    }
}

fn eval_bin(op: BinOp, t: PrimType, a: Scalar, b: Scalar) -> R {
    match t {
        PrimType::Bool => match (a, b) {
            (Scalar::Bool(x), Scalar::Bool(y)) => Ok(Scalar::Bool(match op {
                BinOp::And | BinOp::Min => x && y,
                BinOp::Or | BinOp::Max => x || y,
                BinOp::Xor => x != y,
                _ => return Err(None),
            })),
            _ => Err(None),
        },
        PrimType::F32 => f32_ops::bin(op, a, b),
        PrimType::F64 => f64_ops::bin(op, a, b),
        _ => on_int!(t, int_bin(op, a, b)),
    }
}

fn eval_tern(op: TernOp, t: PrimType, a: Scalar, b: Scalar, c: Scalar) -> R {
    match t {
        PrimType::Bool => Err(None),
        PrimType::F32 => f32_ops::tern(op, a, b, c),
        PrimType::F64 => f64_ops::tern(op, a, b, c),
        _ => on_int!(t, int_tern(op, a, b, c)),
    }
}
