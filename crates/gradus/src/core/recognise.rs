//! Recognisers of constants and operators in core IR: zeros and ones, integer constants,
//! negation, the counter `iota(w)`, and lambdas that are a single operator (`\a b -> a + b`). Passes use them to
//! find algebraic patterns; they look at the IR only, never rewrite it.

use crate::core::ir::{BasicOp, Exp, Lambda, SubExp};
use crate::core::prim::{BinOp, PrimOp, UnOp};
use crate::core::scalar::Scalar;

/// Whether `se` is the integer constant `k` (of any integer type).
pub fn is_int_const(se: &SubExp, k: i64) -> bool {
    match se {
        SubExp::Const(c) if c.prim_type().is_int() => c.to_f64() == k as f64,
        _ => false,
    }
}

/// Whether `se` is a numeric zero constant (`-0.0` included).
pub fn is_zero(se: &SubExp) -> bool {
    match se {
        SubExp::Const(c) if c.prim_type().is_numeric() => c.to_f64() == 0.0,
        _ => false,
    }
}

/// Whether `se` is the numeric constant one.
pub fn is_one(se: &SubExp) -> bool {
    match se {
        SubExp::Const(c) if c.prim_type().is_numeric() => c.to_f64() == 1.0,
        _ => false,
    }
}

/// Whether `def`, the definition of an array, is `iota(w)` counting from 0 by 1: the
/// positions of a map over `w` elements.
pub fn is_counter(def: Option<&Exp>, w: &SubExp) -> bool {
    matches!(def, Some(Exp::BasicOp(BasicOp::Iota {
        n, start, stride, ..
    })) if n == w && is_int_const(start, 0) && is_int_const(stride, 1))
}

/// The zero of a numeric type.
pub fn zero_of(t: crate::core::scalar::PrimType) -> SubExp {
    SubExp::Const(Scalar::from_f64(t, 0.0))
}

/// Whether the unary op is a negation.
pub fn is_neg(op: PrimOp) -> bool {
    matches!(op, PrimOp::Un(UnOp::Neg, _))
}

/// Whether `lam` is `\a b -> a + b` (or `b + a`) on one numeric scalar.
pub fn is_plus(lam: &Lambda) -> bool {
    let ([a, b], [res]) = (lam.params.as_slice(), lam.body.result.as_slice()) else {
        return false;
    };
    let ([stm], SubExp::Var(rv)) = (lam.body.stms.as_slice(), res) else {
        return false;
    };
    if stm.pat != [*rv] {
        return false;
    }
    match &stm.exp {
        Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Add, _), args)) => {
            args == &[(*a).into(), (*b).into()] || args == &[(*b).into(), (*a).into()]
        }
        _ => false,
    }
}
