//! The semantics of primitive operations: [`PrimOp::eval`].
//!
//! This is the one definition of what each entry of the table in [`crate::core::prim`]
//! computes, used by the interpreter and by constant folding. It follows LANGUAGE.md 8.2
//! (integers) and 8.3 (floating point) exactly:
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

use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::value::{PrimType, Scalar};
use std::fmt;

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

// ---------------------------------------------------------------------------------------------
// Integers: every integer type is computed in i128, which holds all their values, and wrapped
// back with a truncating cast.

trait Int: Copy {
    const BITS: u32;
    const SIGNED: bool;
    fn get(s: Scalar) -> Option<Self>;
    fn put(self) -> Scalar;
    fn wide(self) -> i128;
    fn narrow(v: i128) -> Self;
}

macro_rules! int_impl {
    ($t:ty, $v:ident, $signed:expr) => {
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
            fn get(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$v(x) => Some(x),
                    _ => None,
                }
            }
            fn put(self) -> Scalar {
                Scalar::$v(self)
            }
            fn wide(self) -> i128 {
                self as i128
            }
            fn narrow(v: i128) -> Self {
                v as $t
            }
        }
    };
}

int_impl!(i8, I8, true);
int_impl!(i16, I16, true);
int_impl!(i32, I32, true);
int_impl!(i64, I64, true);
int_impl!(u8, U8, false);
int_impl!(u16, U16, false);
int_impl!(u32, U32, false);
int_impl!(u64, U64, false);

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

fn arg<T: Int>(s: Scalar) -> Result<T, Option<PrimError>> {
    T::get(s).ok_or(None)
}

fn i32_arg(s: Scalar) -> Result<i32, Option<PrimError>> {
    match s {
        Scalar::I32(x) => Ok(x),
        _ => Err(None),
    }
}

/// The bit pattern of `x`, zero-extended.
fn pattern<T: Int>(x: T) -> u128 {
    (x.wide() as u128) & ((1u128 << T::BITS) - 1)
}

/// A bit pattern of `T::BITS` bits read as a signed number.
fn sign_extend<T: Int>(p: u128) -> i128 {
    if (p >> (T::BITS - 1)) & 1 == 1 {
        p as i128 - (1i128 << T::BITS)
    } else {
        p as i128
    }
}

/// A shift amount: negative amounts (signed types) and amounts `>= bits` become `bits`.
fn shift_amount<T: Int>(b: T) -> u32 {
    let w = b.wide();
    if w < 0 || w >= T::BITS as i128 {
        T::BITS
    } else {
        w as u32
    }
}

fn logical_shr<T: Int>(a: T, amount: u32) -> T {
    if amount >= T::BITS {
        T::narrow(0)
    } else {
        T::narrow((pattern(a) >> amount) as i128)
    }
}

fn arith_shr<T: Int>(a: T, amount: u32) -> T {
    T::narrow(sign_extend::<T>(pattern(a)) >> amount.min(T::BITS - 1))
}

fn mul_hi<T: Int>(a: T, b: T) -> T {
    if T::SIGNED {
        T::narrow((a.wide() * b.wide()) >> T::BITS)
    } else {
        T::narrow(((pattern(a) * pattern(b)) >> T::BITS) as i128)
    }
}

fn int_un<T: Int>(op: UnOp, x: Scalar) -> R {
    let x: T = arg(x)?;
    let w = x.wide();
    let p = pattern(x);
    Ok(match op {
        UnOp::Neg => T::narrow(w.wrapping_neg()).put(),
        UnOp::Not => T::narrow(!w).put(),
        UnOp::Abs => T::narrow(w.abs()).put(),
        UnOp::Sgn => T::narrow(w.signum()).put(),
        UnOp::Popc => Scalar::I32(p.count_ones() as i32),
        UnOp::Clz => Scalar::I32((p.leading_zeros() - (128 - T::BITS)) as i32),
        UnOp::Ctz => Scalar::I32(if p == 0 {
            T::BITS as i32
        } else {
            p.trailing_zeros() as i32
        }),
        _ => return Err(None),
    })
}

fn int_bin<T: Int>(op: BinOp, a: Scalar, b: Scalar) -> R {
    if op == BinOp::GetBit {
        let i = i32_arg(a)?;
        let x: T = arg(b)?;
        let bit = if i < 0 || i as u32 >= T::BITS {
            0
        } else {
            ((pattern(x) >> i) & 1) as i32
        };
        return Ok(Scalar::I32(bit));
    }
    let (a, b): (T, T) = (arg(a)?, arg(b)?);
    let (x, y) = (a.wide(), b.wide());
    let needs_divisor = matches!(op, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem);
    if needs_divisor && y == 0 {
        return Err(Some(PrimError::DivisionByZero));
    }
    let r = match op {
        BinOp::Add => T::narrow(x.wrapping_add(y)),
        BinOp::Sub => T::narrow(x.wrapping_sub(y)),
        BinOp::Mul => T::narrow(x.wrapping_mul(y)),
        BinOp::Div => {
            let q = x / y;
            T::narrow(if x % y != 0 && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        }
        BinOp::Mod => {
            let r = x % y;
            T::narrow(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }
        BinOp::Quot => T::narrow(x / y),
        BinOp::Rem => T::narrow(x % y),
        BinOp::Pow => {
            let mut e = pattern(b);
            let mut base = a;
            let mut acc = T::narrow(1);
            while e != 0 {
                if e & 1 == 1 {
                    acc = T::narrow(acc.wide().wrapping_mul(base.wide()));
                }
                base = T::narrow(base.wide().wrapping_mul(base.wide()));
                e >>= 1;
            }
            acc
        }
        BinOp::Min => {
            if y < x {
                b
            } else {
                a
            }
        }
        BinOp::Max => {
            if y > x {
                b
            } else {
                a
            }
        }
        BinOp::And => T::narrow(x & y),
        BinOp::Or => T::narrow(x | y),
        BinOp::Xor => T::narrow(x ^ y),
        BinOp::Shl => {
            let s = shift_amount(b);
            if s >= T::BITS {
                T::narrow(0)
            } else {
                T::narrow((pattern(a) << s) as i128)
            }
        }
        BinOp::Shr => {
            if T::SIGNED {
                arith_shr(a, shift_amount(b))
            } else {
                logical_shr(a, shift_amount(b))
            }
        }
        BinOp::AShr => arith_shr(a, shift_amount(b)),
        BinOp::LShr => logical_shr(a, shift_amount(b)),
        BinOp::MulHi => mul_hi(a, b),
        _ => return Err(None),
    };
    Ok(r.put())
}

fn int_tern<T: Int>(op: TernOp, a: Scalar, b: Scalar, c: Scalar) -> R {
    if op == TernOp::SetBit {
        let i = i32_arg(a)?;
        let x: T = arg(b)?;
        let v = i32_arg(c)?;
        if i < 0 || i as u32 >= T::BITS {
            return Ok(x.put());
        }
        let p = (pattern(x) & !(1u128 << i)) | (((v & 1) as u128) << i);
        return Ok(T::narrow(p as i128).put());
    }
    let (a, b, c): (T, T, T) = (arg(a)?, arg(b)?, arg(c)?);
    let r = match op {
        TernOp::Fma | TernOp::Mad => {
            T::narrow(a.wide().wrapping_mul(b.wide()).wrapping_add(c.wide()))
        }
        TernOp::MadHi => T::narrow(mul_hi(a, b).wide().wrapping_add(c.wide())),
        _ => return Err(None),
    };
    Ok(r.put())
}

// ---------------------------------------------------------------------------------------------
// Floats: one module per float type, generated from the same text.

macro_rules! float_ops {
    (
        $m:ident, $t:ident, $V:ident, $U:ident, $ut:ty,
        tgamma = $tgamma:path, lgamma = $lgamma:path, erf = $erf:path, erfc = $erfc:path,
        nextafter = $nextafter:path, ldexp = $ldexp:path
    ) => {
        mod $m {
            use super::R;
            use crate::core::prim::{BinOp, TernOp, UnOp};
            use crate::value::Scalar;
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

            pub(super) fn un(op: UnOp, x: Scalar) -> R {
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

            pub(super) fn bin(op: BinOp, a: Scalar, b: Scalar) -> R {
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

            pub(super) fn tern(op: TernOp, a: Scalar, b: Scalar, c: Scalar) -> R {
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

// ---------------------------------------------------------------------------------------------
// Dispatch.

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

fn eval_cmp(op: CmpOp, a: Scalar, b: Scalar) -> R {
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

/// Converts `x` to type `to` (LANGUAGE.md 8.3 and 9.7).
fn convert(x: Scalar, to: PrimType) -> Scalar {
    match x {
        Scalar::F32(f) => float_to(f as f64, to, Some(f)),
        Scalar::F64(f) => float_to(f, to, None),
        Scalar::Bool(b) => Scalar::from_i128(to, b as i128),
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
fn from_bits(x: Scalar, to: PrimType) -> Option<Scalar> {
    match (x, to) {
        (Scalar::U32(v), PrimType::F32) => Some(Scalar::F32(f32::from_bits(v))),
        (Scalar::I32(v), PrimType::F32) => Some(Scalar::F32(f32::from_bits(v as u32))),
        (Scalar::U64(v), PrimType::F64) => Some(Scalar::F64(f64::from_bits(v))),
        (Scalar::I64(v), PrimType::F64) => Some(Scalar::F64(f64::from_bits(v as u64))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimType as P;

    fn ev(op: PrimOp, args: &[Scalar]) -> Scalar {
        match op.eval(args) {
            Ok(s) => s,
            Err(e) => panic!("{op} {args:?}: {e}"),
        }
    }
    fn bin(op: BinOp, a: Scalar, b: Scalar) -> Scalar {
        ev(PrimOp::Bin(op, a.prim_type()), &[a, b])
    }
    fn un(op: UnOp, a: Scalar) -> Scalar {
        ev(PrimOp::Un(op, a.prim_type()), &[a])
    }
    fn i32s(x: i32) -> Scalar {
        Scalar::I32(x)
    }
    fn f64s(x: f64) -> Scalar {
        Scalar::F64(x)
    }

    #[test]
    fn wrap_around() {
        assert_eq!(bin(BinOp::Mul, i32s(2000000000), i32s(2)), i32s(-294967296));
        assert_eq!(
            bin(BinOp::Add, Scalar::I64(i64::MAX), Scalar::I64(1)),
            Scalar::I64(i64::MIN)
        );
        assert_eq!(
            bin(BinOp::Sub, Scalar::U8(0), Scalar::U8(1)),
            Scalar::U8(255)
        );
        assert_eq!(
            bin(BinOp::Mul, Scalar::U64(u64::MAX), Scalar::U64(u64::MAX)),
            Scalar::U64(1)
        );
        assert_eq!(un(UnOp::Neg, Scalar::I8(-128)), Scalar::I8(-128));
        assert_eq!(un(UnOp::Abs, Scalar::I8(-128)), Scalar::I8(-128));
        assert_eq!(un(UnOp::Neg, Scalar::U8(1)), Scalar::U8(255));
        assert_eq!(un(UnOp::Not, Scalar::U8(5)), Scalar::U8(250));
        assert_eq!(un(UnOp::Not, i32s(0)), i32s(-1));
    }

    #[test]
    fn division_rounding() {
        let cases = [
            (BinOp::Div, -7, 2, -4),
            (BinOp::Div, 7, -2, -4),
            (BinOp::Mod, -7, 2, 1),
            (BinOp::Mod, 7, -2, -1),
            (BinOp::Quot, -7, 2, -3),
            (BinOp::Quot, 7, -2, -3),
            (BinOp::Rem, -7, 2, -1),
            (BinOp::Rem, 7, -2, 1),
            (BinOp::Div, 6, 3, 2),
            (BinOp::Mod, -6, 3, 0),
            (BinOp::Div, -6, -4, 1),
            (BinOp::Mod, -6, -4, -2),
        ];
        for (op, x, y, r) in cases {
            assert_eq!(bin(op, i32s(x), i32s(y)), i32s(r), "{op:?} {x} {y}");
            assert_eq!(
                bin(op, Scalar::I64(x as i64), Scalar::I64(y as i64)),
                Scalar::I64(r as i64)
            );
            assert_eq!(
                bin(op, Scalar::I8(x as i8), Scalar::I8(y as i8)),
                Scalar::I8(r as i8)
            );
        }
        for op in [BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem] {
            assert_eq!(
                bin(op, Scalar::U32(u32::MAX), Scalar::U32(7)),
                Scalar::U32(if matches!(op, BinOp::Div | BinOp::Quot) {
                    u32::MAX / 7
                } else {
                    u32::MAX % 7
                })
            );
        }
    }

    #[test]
    fn division_by_zero() {
        for t in [P::I8, P::I32, P::I64, P::U8, P::U64] {
            for op in [BinOp::Div, BinOp::Mod, BinOp::Quot, BinOp::Rem] {
                let r = PrimOp::Bin(op, t).eval(&[Scalar::one(t), Scalar::zero(t)]);
                assert_eq!(r, Err(PrimError::DivisionByZero));
                assert_eq!(PrimError::DivisionByZero.to_string(), "division by zero");
            }
        }
        // Floats divide by zero as IEEE says.
        assert_eq!(bin(BinOp::Div, f64s(1.0), f64s(0.0)), f64s(f64::INFINITY));
    }

    #[test]
    fn lowest_div_minus_one_wraps() {
        assert_eq!(
            bin(BinOp::Div, Scalar::I64(i64::MIN), Scalar::I64(-1)),
            Scalar::I64(i64::MIN)
        );
        assert_eq!(bin(BinOp::Quot, i32s(i32::MIN), i32s(-1)), i32s(i32::MIN));
        assert_eq!(bin(BinOp::Mod, i32s(i32::MIN), i32s(-1)), i32s(0));
        assert_eq!(
            bin(BinOp::Rem, Scalar::I8(-128), Scalar::I8(-1)),
            Scalar::I8(0)
        );
    }

    #[test]
    fn integer_pow() {
        assert_eq!(bin(BinOp::Pow, i32s(3), i32s(4)), i32s(81));
        assert_eq!(bin(BinOp::Pow, i32s(2), i32s(31)), i32s(i32::MIN));
        assert_eq!(bin(BinOp::Pow, i32s(2), i32s(32)), i32s(0));
        assert_eq!(bin(BinOp::Pow, i32s(-1), i32s(3)), i32s(-1));
        assert_eq!(bin(BinOp::Pow, i32s(5), i32s(0)), i32s(1));
        assert_eq!(bin(BinOp::Pow, i32s(0), i32s(0)), i32s(1));
        // -1i32 as an exponent is 2^32 - 1: odd, so (-1) ** -1 == -1 and 2 ** -1 == 0.
        assert_eq!(bin(BinOp::Pow, i32s(-1), i32s(-1)), i32s(-1));
        assert_eq!(bin(BinOp::Pow, i32s(2), i32s(-1)), i32s(0));
        assert_eq!(
            bin(BinOp::Pow, i32s(3), i32s(-2)),
            i32s(3i32.wrapping_pow(u32::MAX - 1))
        );
        assert_eq!(
            bin(BinOp::Pow, Scalar::U8(3), Scalar::U8(5)),
            Scalar::U8(243)
        );
        assert_eq!(
            bin(BinOp::Pow, Scalar::I64(3), Scalar::I64(41)),
            Scalar::I64(3i64.wrapping_pow(41))
        );
    }

    #[test]
    fn shifts() {
        let s = |op, x: i32, k: i32| bin(op, i32s(x), i32s(k));
        assert_eq!(s(BinOp::Shl, 1, 4), i32s(16));
        assert_eq!(s(BinOp::Shl, 1, 31), i32s(i32::MIN));
        assert_eq!(s(BinOp::Shl, 1, 32), i32s(0));
        assert_eq!(s(BinOp::Shl, 1, 100), i32s(0));
        assert_eq!(s(BinOp::Shl, 1, -1), i32s(0));
        assert_eq!(s(BinOp::Shr, -16, 2), i32s(-4));
        assert_eq!(s(BinOp::Shr, -16, 32), i32s(-1));
        assert_eq!(s(BinOp::Shr, -16, -3), i32s(-1));
        assert_eq!(s(BinOp::Shr, 16, 40), i32s(0));
        assert_eq!(s(BinOp::LShr, -16, 28), i32s(15));
        assert_eq!(s(BinOp::LShr, -16, 32), i32s(0));
        assert_eq!(s(BinOp::LShr, -16, -1), i32s(0));
        assert_eq!(s(BinOp::AShr, -16, 2), i32s(-4));
        let u = |op, x: u32, k: u32| bin(op, Scalar::U32(x), Scalar::U32(k));
        // `>>` on unsigned types is logical; `u32.>>` (AShr) is arithmetic on the pattern.
        assert_eq!(u(BinOp::Shr, 0x8000_0000, 1), Scalar::U32(0x4000_0000));
        assert_eq!(u(BinOp::AShr, 0x8000_0000, 1), Scalar::U32(0xC000_0000));
        assert_eq!(u(BinOp::AShr, 0x8000_0000, 32), Scalar::U32(u32::MAX));
        assert_eq!(u(BinOp::AShr, 0x4000_0000, 99), Scalar::U32(0));
        assert_eq!(u(BinOp::LShr, 0x8000_0000, 31), Scalar::U32(1));
        assert_eq!(u(BinOp::Shl, 3, 32), Scalar::U32(0));
        assert_eq!(u(BinOp::Shl, 3, u32::MAX), Scalar::U32(0));
        assert_eq!(
            bin(BinOp::Shl, Scalar::U8(0xff), Scalar::U8(4)),
            Scalar::U8(0xf0)
        );
        assert_eq!(
            bin(BinOp::Shr, Scalar::I8(-128), Scalar::I8(7)),
            Scalar::I8(-1)
        );
    }

    #[test]
    fn unsigned_comparisons() {
        let c = |op, a: Scalar, b: Scalar| ev(PrimOp::Cmp(op, a.prim_type()), &[a, b]);
        assert_eq!(
            c(CmpOp::Lt, Scalar::U8(1), Scalar::U8(200)),
            Scalar::Bool(true)
        );
        assert_eq!(
            c(CmpOp::Lt, Scalar::I8(1), Scalar::I8(-56)),
            Scalar::Bool(false)
        );
        assert_eq!(
            c(CmpOp::Gt, Scalar::U64(u64::MAX), Scalar::U64(1)),
            Scalar::Bool(true)
        );
        assert_eq!(
            c(CmpOp::Gt, Scalar::U32(u32::MAX), Scalar::U32(1)),
            Scalar::Bool(true)
        );
        assert_eq!(
            c(CmpOp::Lt, Scalar::Bool(false), Scalar::Bool(true)),
            Scalar::Bool(true)
        );
        let nan = f64s(f64::NAN);
        for op in [CmpOp::Eq, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
            assert_eq!(c(op, nan, nan), Scalar::Bool(false));
            assert_eq!(c(op, nan, f64s(1.0)), Scalar::Bool(false));
        }
        assert_eq!(c(CmpOp::Ne, nan, nan), Scalar::Bool(true));
        assert_eq!(c(CmpOp::Eq, f64s(0.0), f64s(-0.0)), Scalar::Bool(true));
    }

    #[test]
    fn float_min_max() {
        let nan = f64s(f64::NAN);
        assert_eq!(bin(BinOp::Max, nan, f64s(1.0)), f64s(1.0));
        assert_eq!(bin(BinOp::Max, f64s(1.0), nan), f64s(1.0));
        assert_eq!(bin(BinOp::Min, nan, f64s(1.0)), f64s(1.0));
        assert_eq!(bin(BinOp::Min, f64s(1.0), nan), f64s(1.0));
        match bin(BinOp::Min, nan, nan) {
            Scalar::F64(x) => assert!(x.is_nan()),
            other => panic!("{other:?}"),
        }
        // Ties give the first operand.
        match bin(BinOp::Min, f64s(-0.0), f64s(0.0)) {
            Scalar::F64(x) => assert!(x == 0.0 && x.is_sign_negative()),
            other => panic!("{other:?}"),
        }
        match bin(BinOp::Max, f64s(0.0), f64s(-0.0)) {
            Scalar::F64(x) => assert!(x == 0.0 && x.is_sign_positive()),
            other => panic!("{other:?}"),
        }
        assert_eq!(bin(BinOp::Max, f64s(2.0), f64s(3.0)), f64s(3.0));
        assert_eq!(
            bin(BinOp::Min, Scalar::F32(f32::NAN), Scalar::F32(2.0)),
            Scalar::F32(2.0)
        );
        assert_eq!(bin(BinOp::Min, i32s(-3), i32s(2)), i32s(-3));
        assert_eq!(
            bin(BinOp::Max, Scalar::U8(200), Scalar::U8(2)),
            Scalar::U8(200)
        );
    }

    #[test]
    fn float_rounding_and_sign() {
        let r = |x: f64| un(UnOp::Round, f64s(x));
        assert_eq!(r(0.5), f64s(0.0));
        assert_eq!(r(1.5), f64s(2.0));
        assert_eq!(r(2.5), f64s(2.0));
        assert_eq!(r(-2.5), f64s(-2.0));
        assert_eq!(r(-0.4), f64s(-0.0));
        assert_eq!(un(UnOp::Round, Scalar::F32(3.5)), Scalar::F32(4.0));
        assert_eq!(un(UnOp::Trunc, f64s(-2.7)), f64s(-2.0));
        assert_eq!(un(UnOp::Floor, f64s(-2.2)), f64s(-3.0));
        assert_eq!(un(UnOp::Ceil, f64s(-2.2)), f64s(-2.0));
        assert_eq!(un(UnOp::Sgn, f64s(-3.0)), f64s(-1.0));
        assert_eq!(un(UnOp::Sgn, f64s(0.25)), f64s(1.0));
        assert_eq!(un(UnOp::Sgn, f64s(0.0)), f64s(0.0));
        match un(UnOp::Sgn, f64s(f64::NAN)) {
            Scalar::F64(x) => assert!(x.is_nan()),
            other => panic!("{other:?}"),
        }
        assert_eq!(un(UnOp::Sgn, i32s(-7)), i32s(-1));
        assert_eq!(un(UnOp::Sgn, i32s(0)), i32s(0));
        assert_eq!(un(UnOp::Sgn, Scalar::U16(9)), Scalar::U16(1));
        assert_eq!(bin(BinOp::Mod, f64s(-7.5), f64s(2.0)), f64s(-1.5));
        assert_eq!(bin(BinOp::Mod, f64s(7.5), f64s(-2.0)), f64s(1.5));
    }

    #[test]
    fn conversions() {
        let cv = |x: Scalar, to| ev(PrimOp::Conv(x.prim_type(), to), &[x]);
        assert_eq!(cv(f64s(-2.9), P::I32), i32s(-2));
        assert_eq!(cv(f64s(2.9), P::U8), Scalar::U8(2));
        assert_eq!(cv(f64s(1e10), P::I32), i32s(i32::MAX));
        assert_eq!(cv(f64s(-1e10), P::I32), i32s(i32::MIN));
        assert_eq!(cv(f64s(-5.0), P::U32), Scalar::U32(0));
        assert_eq!(cv(f64s(f64::NAN), P::I64), Scalar::I64(0));
        assert_eq!(cv(f64s(f64::INFINITY), P::I64), Scalar::I64(0));
        assert_eq!(cv(f64s(f64::NEG_INFINITY), P::U8), Scalar::U8(0));
        assert_eq!(cv(Scalar::F32(f32::INFINITY), P::I16), Scalar::I16(0));
        assert_eq!(cv(Scalar::F32(1e6), P::I16), Scalar::I16(i16::MAX));
        assert_eq!(cv(Scalar::Bool(true), P::F64), f64s(1.0));
        assert_eq!(cv(Scalar::Bool(true), P::I8), Scalar::I8(1));
        assert_eq!(cv(Scalar::Bool(false), P::U64), Scalar::U64(0));
        assert_eq!(cv(f64s(0.0), P::Bool), Scalar::Bool(false));
        assert_eq!(cv(f64s(-0.5), P::Bool), Scalar::Bool(true));
        assert_eq!(cv(i32s(0), P::Bool), Scalar::Bool(false));
        assert_eq!(cv(Scalar::U8(4), P::Bool), Scalar::Bool(true));
        assert_eq!(cv(i32s(-1), P::U8), Scalar::U8(255));
        assert_eq!(cv(i32s(-1), P::I64), Scalar::I64(-1));
        assert_eq!(
            cv(Scalar::U32(u32::MAX), P::I64),
            Scalar::I64(u32::MAX as i64)
        );
        assert_eq!(cv(Scalar::I64(300), P::I8), Scalar::I8(44));
        assert_eq!(cv(Scalar::U64(u64::MAX), P::F64), f64s(u64::MAX as f64));
        // Rounds to nearest directly to f32 (no double rounding through f64).
        let big = (1i64 << 40) + (1 << 16) + 1;
        assert_eq!(cv(Scalar::I64(big), P::F32), Scalar::F32(big as f32));
        assert_eq!(cv(f64s(0.1), P::F32), Scalar::F32(0.1));
        assert_eq!(cv(Scalar::F32(0.1), P::F64), f64s(0.1f32 as f64));
    }

    #[test]
    fn bits() {
        assert_eq!(
            un(UnOp::ToBits, f64s(1.0)),
            Scalar::U64(0x3ff0_0000_0000_0000)
        );
        assert_eq!(
            un(UnOp::ToBits, Scalar::F32(-0.0)),
            Scalar::U32(0x8000_0000)
        );
        assert_eq!(
            ev(
                PrimOp::FromBits(P::U64, P::F64),
                &[Scalar::U64(0x4000_0000_0000_0000)]
            ),
            f64s(2.0)
        );
        assert_eq!(
            ev(
                PrimOp::FromBits(P::U32, P::F32),
                &[Scalar::U32(0x3f80_0000)]
            ),
            Scalar::F32(1.0)
        );
        assert_eq!(un(UnOp::Popc, i32s(-1)), i32s(32));
        assert_eq!(un(UnOp::Popc, Scalar::I8(-1)), i32s(8));
        assert_eq!(un(UnOp::Popc, Scalar::U16(0b1011)), i32s(3));
        assert_eq!(un(UnOp::Clz, i32s(0)), i32s(32));
        assert_eq!(un(UnOp::Ctz, i32s(0)), i32s(32));
        assert_eq!(un(UnOp::Clz, Scalar::U8(0)), i32s(8));
        assert_eq!(un(UnOp::Ctz, Scalar::I64(0)), i32s(64));
        assert_eq!(un(UnOp::Clz, i32s(1)), i32s(31));
        assert_eq!(un(UnOp::Clz, i32s(-1)), i32s(0));
        assert_eq!(un(UnOp::Clz, Scalar::I8(1)), i32s(7));
        assert_eq!(un(UnOp::Ctz, Scalar::U8(8)), i32s(3));
        assert_eq!(un(UnOp::Ctz, Scalar::I16(i16::MIN)), i32s(15));
        let gb = |i, x: Scalar| ev(PrimOp::Bin(BinOp::GetBit, x.prim_type()), &[i32s(i), x]);
        assert_eq!(gb(0, i32s(5)), i32s(1));
        assert_eq!(gb(1, i32s(5)), i32s(0));
        assert_eq!(gb(31, i32s(-1)), i32s(1));
        assert_eq!(gb(32, i32s(-1)), i32s(0));
        assert_eq!(gb(-1, i32s(-1)), i32s(0));
        assert_eq!(gb(63, f64s(-1.0)), i32s(1));
        let sb = |i, x: Scalar, b| {
            ev(
                PrimOp::Tern(TernOp::SetBit, x.prim_type()),
                &[i32s(i), x, i32s(b)],
            )
        };
        assert_eq!(sb(1, i32s(5), 1), i32s(7));
        assert_eq!(sb(0, i32s(5), 0), i32s(4));
        assert_eq!(sb(7, Scalar::U8(0), 1), Scalar::U8(128));
        assert_eq!(sb(40, i32s(5), 1), i32s(5));
        assert_eq!(sb(63, f64s(1.0), 1), f64s(-1.0));
    }

    #[test]
    fn mul_hi_and_mad_hi() {
        assert_eq!(
            bin(BinOp::MulHi, Scalar::U64(u64::MAX), Scalar::U64(u64::MAX)),
            Scalar::U64(u64::MAX - 1)
        );
        assert_eq!(
            bin(BinOp::MulHi, Scalar::I64(-1), Scalar::I64(1)),
            Scalar::I64(-1)
        );
        assert_eq!(bin(BinOp::MulHi, i32s(1 << 30), i32s(8)), i32s(2));
        assert_eq!(
            bin(BinOp::MulHi, Scalar::U8(200), Scalar::U8(200)),
            Scalar::U8(156)
        );
        let mh = PrimOp::Tern(TernOp::MadHi, P::U32);
        assert_eq!(
            ev(
                mh,
                &[Scalar::U32(1 << 31), Scalar::U32(4), Scalar::U32(u32::MAX)]
            ),
            Scalar::U32(1)
        );
    }

    #[test]
    fn special_functions() {
        let close = |a: Scalar, b: f64| match a {
            Scalar::F64(a) => assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} {b}"),
            Scalar::F32(a) => assert!(((a as f64) - b).abs() <= 1e-5 * b.abs().max(1.0)),
            other => panic!("{other:?}"),
        };
        close(un(UnOp::Gamma, f64s(5.0)), 24.0);
        close(un(UnOp::Gamma, f64s(0.5)), std::f64::consts::PI.sqrt());
        close(un(UnOp::Lgamma, f64s(10.0)), 362880f64.ln());
        close(un(UnOp::Erf, f64s(0.0)), 0.0);
        close(un(UnOp::Erf, f64s(1.0)), 0.842_700_792_949_714_9);
        close(un(UnOp::Erfc, f64s(1.0)), 1.0 - 0.842_700_792_949_714_9);
        close(un(UnOp::Gamma, Scalar::F32(4.0)), 6.0);
        close(un(UnOp::Rsqrt, f64s(4.0)), 0.5);
        close(un(UnOp::Recip, f64s(4.0)), 0.25);
        close(un(UnOp::Cbrt, f64s(27.0)), 3.0);
        close(un(UnOp::Log1p, f64s(0.0)), 0.0);
        close(un(UnOp::Asinpi, f64s(1.0)), 0.5);
        close(un(UnOp::Acospi, f64s(-1.0)), 1.0);
        close(un(UnOp::Atanpi, f64s(1.0)), 0.25);
        close(bin(BinOp::Atan2pi, f64s(1.0), f64s(-1.0)), 0.75);
        close(
            bin(BinOp::Atan2, f64s(1.0), f64s(0.0)),
            std::f64::consts::FRAC_PI_2,
        );
        close(bin(BinOp::Hypot, f64s(3.0), f64s(4.0)), 5.0);
        close(
            bin(BinOp::Pow, f64s(2.0), f64s(0.5)),
            std::f64::consts::SQRT_2,
        );
        // sinpi and cospi are exact at integers and half-integers.
        assert_eq!(un(UnOp::Sinpi, f64s(1.0)), f64s(0.0));
        assert_eq!(un(UnOp::Sinpi, f64s(1e17)), f64s(0.0));
        assert_eq!(un(UnOp::Sinpi, f64s(0.5)), f64s(1.0));
        assert_eq!(un(UnOp::Sinpi, f64s(-0.5)), f64s(-1.0));
        assert_eq!(un(UnOp::Sinpi, f64s(1.5)), f64s(-1.0));
        assert_eq!(un(UnOp::Cospi, f64s(0.5)), f64s(0.0));
        assert_eq!(un(UnOp::Cospi, f64s(-3.0)), f64s(-1.0));
        assert_eq!(un(UnOp::Cospi, f64s(2.0)), f64s(1.0));
        close(un(UnOp::Sinpi, f64s(1.0 / 6.0)), 0.5);
        close(un(UnOp::Sinpi, f64s(5.0 / 6.0)), 0.5);
        close(un(UnOp::Sinpi, f64s(-7.0 / 6.0)), 0.5);
        close(un(UnOp::Cospi, f64s(1.0 / 3.0)), 0.5);
        close(un(UnOp::Cospi, f64s(2.0 / 3.0)), -0.5);
        close(un(UnOp::Tanpi, f64s(0.25)), 1.0);
        close(
            un(UnOp::Sinpi, Scalar::F32(0.25)),
            std::f64::consts::FRAC_1_SQRT_2,
        );
        match un(UnOp::Sinpi, f64s(f64::INFINITY)) {
            Scalar::F64(x) => assert!(x.is_nan()),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            bin(BinOp::Nextafter, f64s(1.0), f64s(2.0)),
            f64s(1.0 + f64::EPSILON)
        );
        assert_eq!(
            bin(BinOp::Nextafter, Scalar::F32(1.0), Scalar::F32(0.0)),
            Scalar::F32(1.0 - f32::EPSILON / 2.0)
        );
        assert_eq!(
            ev(PrimOp::Bin(BinOp::Ldexp, P::F64), &[f64s(3.0), i32s(4)]),
            f64s(48.0)
        );
        assert_eq!(
            ev(
                PrimOp::Bin(BinOp::Ldexp, P::F32),
                &[Scalar::F32(1.0), i32s(-2)]
            ),
            Scalar::F32(0.25)
        );
        assert_eq!(bin(BinOp::Copysign, f64s(3.0), f64s(-0.0)), f64s(-3.0));
        // fma rounds once: (1 + e)(1 - e) - 1 = -e^2 exactly.
        let e = f64::EPSILON;
        let fma = PrimOp::Tern(TernOp::Fma, P::F64);
        assert_eq!(
            ev(fma, &[f64s(1.0 + e), f64s(1.0 - e), f64s(-1.0)]),
            f64s(-e * e)
        );
        let mad = PrimOp::Tern(TernOp::Mad, P::F64);
        assert_eq!(
            ev(mad, &[f64s(1.0 + e), f64s(1.0 - e), f64s(-1.0)]),
            f64s(0.0)
        );
        let lerp = PrimOp::Tern(TernOp::Lerp, P::F64);
        assert_eq!(ev(lerp, &[f64s(1.0), f64s(3.0), f64s(0.25)]), f64s(1.5));
        assert_eq!(un(UnOp::IsNan, f64s(f64::NAN)), Scalar::Bool(true));
        assert_eq!(
            un(UnOp::IsInf, Scalar::F32(f32::NEG_INFINITY)),
            Scalar::Bool(true)
        );
        let sel = PrimOp::Tern(TernOp::Select, P::I32);
        assert_eq!(ev(sel, &[Scalar::Bool(false), i32s(1), i32s(2)]), i32s(2));
    }

    #[test]
    fn malformed_operands_are_errors() {
        let add = PrimOp::Bin(BinOp::Add, P::F64);
        assert!(matches!(
            add.eval(&[f64s(1.0)]),
            Err(PrimError::Malformed(_))
        ));
        assert!(matches!(
            add.eval(&[f64s(1.0), i32s(1)]),
            Err(PrimError::Malformed(_))
        ));
        let sqrt = PrimOp::Un(UnOp::Sqrt, P::I32);
        let e = sqrt.eval(&[i32s(4)]).unwrap_err();
        assert!(e.to_string().starts_with("internal error:"), "{e}");
    }

    /// A few operands of type `t`, including the awkward ones.
    fn samples(t: PrimType) -> Vec<Scalar> {
        let mut v: Vec<Scalar> = [0.0, 1.0, -1.0, 2.0, 7.0, -128.0, 1e300, 0.5]
            .into_iter()
            .map(|x| Scalar::from_f64(t, x))
            .collect();
        match t {
            P::F32 => v.extend([f32::NAN, f32::INFINITY, f32::MIN].map(Scalar::F32)),
            P::F64 => v.extend([f64::NAN, f64::NEG_INFINITY, f64::MIN_POSITIVE].map(Scalar::F64)),
            P::I8 => v.extend([i8::MIN, i8::MAX].map(Scalar::I8)),
            P::I16 => v.extend([i16::MIN, i16::MAX].map(Scalar::I16)),
            P::I32 => v.extend([i32::MIN, i32::MAX, 33].map(Scalar::I32)),
            P::I64 => v.extend([i64::MIN, i64::MAX, 65].map(Scalar::I64)),
            P::U8 => v.push(Scalar::U8(u8::MAX)),
            P::U16 => v.push(Scalar::U16(u16::MAX)),
            P::U32 => v.push(Scalar::U32(u32::MAX)),
            P::U64 => v.push(Scalar::U64(u64::MAX)),
            P::Bool => v.push(Scalar::Bool(true)),
        }
        v
    }

    #[test]
    fn operand_types_agree_with_the_table() {
        for op in crate::core::prim::all_prim_ops() {
            let (tys, n) = operand_types(op);
            assert_eq!(tys[..n].to_vec(), op.operand_types(), "{op}");
        }
    }

    #[test]
    fn every_operation_at_every_type() {
        let mut defined = 0;
        for op in crate::core::prim::all_prim_ops() {
            let tys = op.operand_types();
            let pools: Vec<Vec<Scalar>> = tys.iter().map(|&t| samples(t)).collect();
            // All combinations for unary and binary operations, a diagonal walk for ternary.
            let mut combos: Vec<Vec<Scalar>> = vec![vec![]];
            for pool in &pools {
                let limit = if pools.len() == 3 { 4 } else { pool.len() };
                combos = combos
                    .into_iter()
                    .flat_map(|c| {
                        pool.iter().take(limit).map(move |x| {
                            let mut c = c.clone();
                            c.push(*x);
                            c
                        })
                    })
                    .collect();
            }
            if op.has_semantics() {
                defined += 1;
            }
            for args in combos {
                match op.eval(&args) {
                    Ok(r) => {
                        assert!(op.has_semantics(), "{op} evaluated but has no semantics");
                        assert_eq!(r.prim_type(), op.result_type(), "{op} {args:?}");
                    }
                    Err(PrimError::DivisionByZero) => {
                        assert!(op.has_semantics() && tys[0].is_int(), "{op} {args:?}");
                    }
                    Err(PrimError::Malformed(m)) => {
                        assert!(!op.has_semantics(), "{op} {args:?}: {m}")
                    }
                }
            }
        }
        assert!(defined > 500, "{defined}");
    }
}
