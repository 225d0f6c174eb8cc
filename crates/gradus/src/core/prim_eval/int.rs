//! Integer operations: every integer type is computed in `i128`, which holds all their
//! values, and wrapped back with a truncating cast, so that one generic definition per
//! operation serves all eight types. Takes operands of the operation's type (else
//! `Err(None)`) and follows docs/language.md §Integer arithmetic: wrap-around, the division and
//! shift rules of the module documentation of [`super`].

use super::{PrimError, R, i32_arg};
use crate::core::prim::{BinOp, TernOp, UnOp};
use crate::core::scalar::Scalar;

pub(super) trait Int: Copy {
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

fn arg<T: Int>(s: Scalar) -> Result<T, Option<PrimError>> {
    T::get(s).ok_or(None)
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

pub(super) fn int_un<T: Int>(op: UnOp, x: Scalar) -> R {
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

pub(super) fn int_bin<T: Int>(op: BinOp, a: Scalar, b: Scalar) -> R {
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

pub(super) fn int_tern<T: Int>(op: TernOp, a: Scalar, b: Scalar, c: Scalar) -> R {
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
