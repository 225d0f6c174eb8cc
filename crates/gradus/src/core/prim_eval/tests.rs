//! Unit tests of the primitive operations: the rules of the module documentation of
//! [`super`] at the edges (wrap-around, rounding, division by zero, shifts, NaN, conversions,
//! bit operations), malformed operands, and every operation at every type it is defined at.

use super::*;
use crate::core::prim::CmpOp;
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
