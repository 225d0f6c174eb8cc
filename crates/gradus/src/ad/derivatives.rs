//! Tangents of primitive operations (docs/language.md §Integer and boolean leaves and §Partial
//! derivatives).
//!
//! [`prim_tangent`] emits the tangent of `op(args)` given the tangents of the arguments
//! (`None` is an implicit zero) and returns `None` when the tangent is zero. The partial
//! derivatives are those of the table in docs/language.md §Partial derivatives; kinks take the
//! values it fixes. Integer operations use the same rules with integer arithmetic (exact, wrapping,
//! never a division where the table has none); booleans have boolean tangents: `!x` passes its
//! tangent through, every other operation producing a `bool` has tangent `false`, and
//! converting a `bool` to a number gives a zero tangent. Conversions and bit
//! reinterpretations apply themselves to the tangent.

use crate::core::builder::Builder;
use crate::core::ir::{Exp, LoopForm, Soac, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};

fn c(t: PrimType, x: f64) -> SubExp {
    SubExp::Const(Scalar::from_f64(t, x))
}

/// A partial derivative: structurally zero, one, minus one, or a value.
enum Partial {
    Zero,
    One,
    NegOne,
    Value(SubExp),
}

/// The tangent of `op(args)`, or `None` if it is zero.
pub fn prim_tangent(
    e: &mut Builder<'_>,
    op: PrimOp,
    args: &[SubExp],
    tans: &[Option<SubExp>],
) -> Option<SubExp> {
    let rule = tangent_rule(e, op, args, tans)?;
    Some(rule.apply(e, tans))
}

/// The tangents of `op(args)` in `lanes` directions at once (vector forward mode): each
/// tangent is an array of `lanes` values (`None` is a zero one). The partial derivatives are
/// computed once, here; only their combination with the tangents is mapped over the lanes.
/// `None` if the tangent is zero.
pub fn prim_tangent_lanes(
    e: &mut Builder<'_>,
    op: PrimOp,
    args: &[SubExp],
    tans: &[Option<Var>],
    lanes: SubExp,
) -> Option<SubExp> {
    let tans: Vec<Option<SubExp>> = tans.iter().map(|t| t.map(SubExp::Var)).collect();
    let rule = tangent_rule(e, op, args, &tans)?;
    if let TangentRule::Pass(i) = rule {
        return tans[i];
    }
    let used: Vec<usize> = (0..tans.len())
        .filter(|&i| tans[i].is_some() && rule.uses(i))
        .collect();
    let arrays: Vec<Var> = used.iter().filter_map(|&i| tans[i]?.as_var()).collect();
    let params: Vec<(&str, Type)> = arrays
        .iter()
        .map(|a| ("lane", e.ty(&SubExp::Var(*a)).row()))
        .collect();
    let lam = e.lambda(&params, |e, ps| {
        let mut lane_tans: Vec<Option<SubExp>> = vec![None; tans.len()];
        for (&i, p) in used.iter().zip(ps) {
            lane_tans[i] = Some(SubExp::Var(*p));
        }
        vec![rule.apply(e, &lane_tans)]
    });
    let ty = Type::array(op.result_type(), vec![lanes]);
    let exp = Exp::Soac(Soac::Map {
        w: lanes,
        lam,
        arrays,
    });
    Some(SubExp::Var(e.bind(exp, vec![ty], "tan")[0]))
}

/// How the tangent of a primitive operation is formed from its arguments' tangents, once
/// the partial derivatives (which need only the primal arguments) are computed.
enum TangentRule {
    /// The operation itself applied to the tangent of argument 0 (conversions).
    Same(PrimOp),
    /// The tangent of argument `i`, unchanged.
    Pass(usize),
    /// `select(cond, a_tan, b_tan)` of the given type, the tangents of arguments
    /// `first_arg` and `first_arg + 1`, with zeros for missing ones.
    Select {
        cond: SubExp,
        ty: PrimType,
        first_arg: usize,
    },
    /// `Σ partial_i · tangent_i` in the result type.
    Linear(PrimType, Vec<(usize, Partial)>),
}

impl TangentRule {
    /// Whether the rule reads the tangent of argument `i`.
    fn uses(&self, i: usize) -> bool {
        match self {
            TangentRule::Same(_) => i == 0,
            TangentRule::Pass(j) => i == *j,
            TangentRule::Select { first_arg, .. } => i == *first_arg || i == first_arg + 1,
            TangentRule::Linear(_, terms) => terms.iter().any(|(j, _)| *j == i),
        }
    }

    /// Emits the tangent for the given argument tangents (`None` is zero).
    fn apply(&self, e: &mut Builder<'_>, tans: &[Option<SubExp>]) -> SubExp {
        match self {
            TangentRule::Same(op) => {
                let t = tans[0].unwrap_or(c(op.result_type(), 0.0));
                e.prim(*op, vec![t])
            }
            TangentRule::Pass(i) => tans[*i].unwrap_or(c(PrimType::Bool, 0.0)),
            TangentRule::Select {
                cond,
                ty,
                first_arg,
            } => {
                let zero = c(*ty, 0.0);
                let a = tans[*first_arg].unwrap_or(zero);
                let b = tans[first_arg + 1].unwrap_or(zero);
                e.prim(PrimOp::Tern(TernOp::Select, *ty), vec![*cond, a, b])
            }
            TangentRule::Linear(rt, terms) => {
                let rt = *rt;
                let mut acc: Option<SubExp> = None;
                for (i, partial) in terms {
                    let Some(t) = tans[*i] else { continue };
                    acc = Some(match (acc, partial) {
                        (_, Partial::Zero) => continue,
                        (None, Partial::One) => t,
                        (None, Partial::NegOne) => e.prim(PrimOp::Un(UnOp::Neg, rt), vec![t]),
                        (None, Partial::Value(p)) => {
                            e.prim(PrimOp::Bin(BinOp::Mul, rt), vec![*p, t])
                        }
                        (Some(a), Partial::One) => e.prim(PrimOp::Bin(BinOp::Add, rt), vec![a, t]),
                        (Some(a), Partial::NegOne) => {
                            e.prim(PrimOp::Bin(BinOp::Sub, rt), vec![a, t])
                        }
                        // A sum of products: one fused multiply-add per further term for
                        // floats (also one rounding fewer), a multiplication and an addition
                        // for integers.
                        (Some(a), Partial::Value(p)) if rt.is_float() => {
                            e.prim(PrimOp::Tern(TernOp::Fma, rt), vec![*p, t, a])
                        }
                        (Some(a), Partial::Value(p)) => {
                            let m = e.prim(PrimOp::Bin(BinOp::Mul, rt), vec![*p, t]);
                            e.prim(PrimOp::Bin(BinOp::Add, rt), vec![a, m])
                        }
                    });
                }
                acc.unwrap_or(c(rt, 0.0))
            }
        }
    }
}

/// The rule for the tangent of `op(args)`, emitting the partial derivatives it needs, or
/// `None` if the tangent is zero.
fn tangent_rule(
    e: &mut Builder<'_>,
    op: PrimOp,
    args: &[SubExp],
    tans: &[Option<SubExp>],
) -> Option<TangentRule> {
    if tans.iter().all(Option::is_none) {
        return None;
    }
    let rt = op.result_type();
    // Structural rules first: operations that map tangents through themselves.
    match op {
        PrimOp::Conv(from, to) => {
            if from == PrimType::Bool || to == PrimType::Bool {
                return None;
            }
            tans[0]?;
            return Some(TangentRule::Same(op));
        }
        PrimOp::FromBits(..) | PrimOp::Un(UnOp::ToBits, _) => {
            tans[0]?;
            return Some(TangentRule::Same(op));
        }
        PrimOp::Un(UnOp::Not, PrimType::Bool) => {
            tans[0]?;
            return Some(TangentRule::Pass(0));
        }
        PrimOp::Tern(TernOp::Select, t) => {
            return Some(TangentRule::Select {
                cond: args[0],
                ty: t,
                first_arg: 1,
            });
        }
        PrimOp::Bin(BinOp::Min | BinOp::Max, t) => {
            let first = first_chosen(e, op, args[0], args[1]);
            return Some(TangentRule::Select {
                cond: first,
                ty: t,
                first_arg: 0,
            });
        }
        _ => {}
    }
    if rt == PrimType::Bool {
        return None;
    }
    let mut terms = Vec::new();
    for (i, t) in tans.iter().enumerate() {
        if t.is_none() {
            continue;
        }
        match partial(e, op, args, i) {
            Partial::Zero => {}
            p => terms.push((i, p)),
        }
    }
    if terms.is_empty() {
        return None;
    }
    if let [(i, Partial::One)] = terms.as_slice() {
        return Some(TangentRule::Pass(*i));
    }
    Some(TangentRule::Linear(rt, terms))
}

/// Whether `min`/`max` returns its first operand: on ties the first, and the other operand
/// when one is NaN.
fn first_chosen(e: &mut Builder<'_>, op: PrimOp, x: SubExp, y: SubExp) -> SubExp {
    let PrimOp::Bin(b, t) = op else {
        return SubExp::Const(Scalar::Bool(true));
    };
    let cmp = if b == BinOp::Max {
        CmpOp::Ge
    } else {
        CmpOp::Le
    };
    let ordered = e.prim(PrimOp::Cmp(cmp, t), vec![x, y]);
    if !t.is_float() {
        return ordered;
    }
    let x_nan = e.prim(PrimOp::Un(UnOp::IsNan, t), vec![x]);
    let y_nan = e.prim(PrimOp::Un(UnOp::IsNan, t), vec![y]);
    // y NaN: x is returned; x NaN (and y not): y is returned; else compare.
    let a = e.prim(
        PrimOp::Tern(TernOp::Select, PrimType::Bool),
        vec![x_nan, SubExp::Const(Scalar::Bool(false)), ordered],
    );
    e.prim(
        PrimOp::Tern(TernOp::Select, PrimType::Bool),
        vec![y_nan, SubExp::Const(Scalar::Bool(true)), a],
    )
}

/// The partial derivative of `op(args)` with respect to argument `i`.
fn partial(e: &mut Builder<'_>, op: PrimOp, args: &[SubExp], i: usize) -> Partial {
    use Partial::*;
    let x = args[0];
    let y = args.get(1).copied().unwrap_or(x);
    let f =
        |e: &mut Builder<'_>, u: UnOp, t: PrimType, a: SubExp| e.prim(PrimOp::Un(u, t), vec![a]);
    let b = |e: &mut Builder<'_>, o: BinOp, t: PrimType, a: SubExp, bb: SubExp| {
        e.prim(PrimOp::Bin(o, t), vec![a, bb])
    };
    match op {
        PrimOp::Bin(op, t) => match (op, i) {
            (BinOp::Add, _) => One,
            (BinOp::Sub, 0) => One,
            (BinOp::Sub, _) => NegOne,
            (BinOp::Mul, 0) => Value(y),
            (BinOp::Mul, _) => Value(x),
            (BinOp::Div, 0) if t.is_float() => Value(b(e, BinOp::Div, t, c(t, 1.0), y)),
            (BinOp::Div, _) if t.is_float() => {
                let yy = b(e, BinOp::Mul, t, y, y);
                let q = b(e, BinOp::Div, t, x, yy);
                Value(f(e, UnOp::Neg, t, q))
            }
            // Integer `/` and `//`: `1 // y` and `-(x // (y*y))`, computed as
            // `-((x // y) // y)`, which is the same number but cannot fail when `y*y` wraps
            // to zero.
            (BinOp::Div | BinOp::Quot, 0) => Value(b(e, BinOp::Quot, t, c(t, 1.0), y)),
            (BinOp::Div | BinOp::Quot, _) => {
                let q1 = b(e, BinOp::Quot, t, x, y);
                let q = b(e, BinOp::Quot, t, q1, y);
                Value(f(e, UnOp::Neg, t, q))
            }
            (BinOp::Mod, 0) if t.is_float() => One,
            (BinOp::Mod, _) if t.is_float() => {
                let q = b(e, BinOp::Div, t, x, y);
                let tr = f(e, UnOp::Trunc, t, q);
                Value(f(e, UnOp::Neg, t, tr))
            }
            (BinOp::Mod | BinOp::Rem, 0) => One,
            (BinOp::Mod | BinOp::Rem, _) => Zero,
            (BinOp::Pow, 0) => {
                // y * x^(y-1), and 0 where the table says so.
                let ym1 = b(e, BinOp::Sub, t, y, c(t, 1.0));
                let p = b(e, BinOp::Pow, t, x, ym1);
                let d = b(e, BinOp::Mul, t, y, p);
                let cond = if t.is_float() {
                    let x0 = e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, c(t, 0.0)]);
                    let y1 = e.prim(PrimOp::Cmp(CmpOp::Lt, t), vec![y, c(t, 1.0)]);
                    e.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![x0, y1])
                } else {
                    e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![y, c(t, 0.0)])
                };
                Value(e.prim(PrimOp::Tern(TernOp::Select, t), vec![cond, c(t, 0.0), d]))
            }
            (BinOp::Pow, _) if t.is_float() => {
                let p = b(e, BinOp::Pow, t, x, y);
                let l = f(e, UnOp::Log, t, x);
                let d = b(e, BinOp::Mul, t, p, l);
                let cond = e.prim(PrimOp::Cmp(CmpOp::Le, t), vec![x, c(t, 0.0)]);
                Value(e.prim(PrimOp::Tern(TernOp::Select, t), vec![cond, c(t, 0.0), d]))
            }
            (BinOp::Atan2 | BinOp::Atan2pi, _) => {
                // atan2 y x: d/dy = x/(x²+y²), d/dx = -y/(x²+y²).
                let (yy, xx) = (x, y);
                let s1 = b(e, BinOp::Mul, t, xx, xx);
                let s2 = b(e, BinOp::Mul, t, yy, yy);
                let den = b(e, BinOp::Add, t, s1, s2);
                let num = if i == 0 { xx } else { f(e, UnOp::Neg, t, yy) };
                let mut d = b(e, BinOp::Div, t, num, den);
                if op == BinOp::Atan2pi {
                    d = b(e, BinOp::Div, t, d, c(t, std::f64::consts::PI));
                }
                Value(d)
            }
            (BinOp::Hypot, _) => Value(hypot_partial(e, t, if i == 0 { x } else { y }, x, y)),
            (BinOp::Ldexp, 0) => Value(b(e, BinOp::Ldexp, t, c(t, 1.0), y)),
            (BinOp::Copysign, 0) => {
                // The sign of `y` is its sign bit: ±1 at ±0 too, where `sgn` would be 0.
                let sx = f(e, UnOp::Sgn, t, x);
                let sy = b(e, BinOp::Copysign, t, c(t, 1.0), y);
                Value(b(e, BinOp::Mul, t, sx, sy))
            }
            (BinOp::Nextafter, 0) => One,
            _ => Zero,
        },
        PrimOp::Un(u, t) => unary_partial(e, u, t, x),
        PrimOp::Tern(TernOp::Fma | TernOp::Mad, _) => match i {
            0 => Value(args[1]),
            1 => Value(args[0]),
            _ => One,
        },
        PrimOp::Tern(TernOp::Lerp, t) => match i {
            0 => Value(b(e, BinOp::Sub, t, c(t, 1.0), args[2])),
            1 => Value(args[2]),
            _ => Value(b(e, BinOp::Sub, t, args[1], args[0])),
        },
        _ => Zero,
    }
}

/// `num / hypot(x, y)`, and 0 at the origin (where the quotient is 0/0).
fn hypot_partial(e: &mut Builder<'_>, t: PrimType, num: SubExp, x: SubExp, y: SubExp) -> SubExp {
    let h = bin(e, t, BinOp::Hypot, x, y);
    let q = bin(e, t, BinOp::Div, num, h);
    let origin = e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![h, c(t, 0.0)]);
    e.prim(PrimOp::Tern(TernOp::Select, t), vec![origin, c(t, 0.0), q])
}

fn unary_partial(e: &mut Builder<'_>, u: UnOp, t: PrimType, x: SubExp) -> Partial {
    use Partial::*;
    match u {
        UnOp::Neg => NegOne,
        UnOp::Abs
        | UnOp::Sqrt
        | UnOp::Rsqrt
        | UnOp::Cbrt
        | UnOp::Exp
        | UnOp::Log
        | UnOp::Log2
        | UnOp::Log10
        | UnOp::Log1p
        | UnOp::Recip => Value(power_log_partial(e, u, t, x)),
        UnOp::Sin
        | UnOp::Cos
        | UnOp::Tan
        | UnOp::Asin
        | UnOp::Acos
        | UnOp::Asinpi
        | UnOp::Acospi
        | UnOp::Atan
        | UnOp::Atanpi
        | UnOp::Sinpi
        | UnOp::Cospi
        | UnOp::Tanpi => Value(trig_partial(e, u, t, x)),
        UnOp::Sinh
        | UnOp::Cosh
        | UnOp::Tanh
        | UnOp::Asinh
        | UnOp::Acosh
        | UnOp::Atanh
        | UnOp::Erf
        | UnOp::Erfc
        | UnOp::Lgamma
        | UnOp::Gamma => Value(hyperbolic_special_partial(e, u, t, x)),
        UnOp::Not
        | UnOp::Sgn
        | UnOp::Ceil
        | UnOp::Floor
        | UnOp::Trunc
        | UnOp::Round
        | UnOp::IsNan
        | UnOp::IsInf
        | UnOp::ToBits
        | UnOp::Popc
        | UnOp::Clz
        | UnOp::Ctz => Zero,
    }
}

/// `u(a)` in type `t`.
fn un(e: &mut Builder<'_>, t: PrimType, u: UnOp, a: SubExp) -> SubExp {
    e.prim(PrimOp::Un(u, t), vec![a])
}

/// `a o b` in type `t`.
fn bin(e: &mut Builder<'_>, t: PrimType, o: BinOp, a: SubExp, b: SubExp) -> SubExp {
    e.prim(PrimOp::Bin(o, t), vec![a, b])
}

/// `1 / a` in type `t`.
fn recip(e: &mut Builder<'_>, t: PrimType, a: SubExp) -> SubExp {
    e.prim(PrimOp::Bin(BinOp::Div, t), vec![c(t, 1.0), a])
}

/// `∂u(x)/∂x` for the powers, roots, exponentials and logarithms ([`unary_partial`] routes only
/// those here).
fn power_log_partial(e: &mut Builder<'_>, u: UnOp, t: PrimType, x: SubExp) -> SubExp {
    let one = c(t, 1.0);
    match u {
        UnOp::Abs => un(e, t, UnOp::Sgn, x),
        UnOp::Sqrt => {
            let s = un(e, t, UnOp::Sqrt, x);
            let d = bin(e, t, BinOp::Mul, c(t, 2.0), s);
            recip(e, t, d)
        }
        UnOp::Rsqrt => {
            let r = un(e, t, UnOp::Rsqrt, x);
            let q = bin(e, t, BinOp::Div, r, x);
            bin(e, t, BinOp::Mul, c(t, -0.5), q)
        }
        UnOp::Cbrt => {
            let r = un(e, t, UnOp::Cbrt, x);
            let r2 = bin(e, t, BinOp::Mul, r, r);
            let d = bin(e, t, BinOp::Mul, c(t, 3.0), r2);
            recip(e, t, d)
        }
        UnOp::Exp => un(e, t, UnOp::Exp, x),
        UnOp::Log => recip(e, t, x),
        UnOp::Log2 => {
            let d = bin(e, t, BinOp::Mul, x, c(t, std::f64::consts::LN_2));
            recip(e, t, d)
        }
        UnOp::Log10 => {
            let d = bin(e, t, BinOp::Mul, x, c(t, std::f64::consts::LN_10));
            recip(e, t, d)
        }
        UnOp::Log1p => {
            let d = bin(e, t, BinOp::Add, one, x);
            recip(e, t, d)
        }
        UnOp::Recip => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let r = recip(e, t, x2);
            un(e, t, UnOp::Neg, r)
        }
        _ => unreachable!("not one of the powers"),
    }
}

/// `∂u(x)/∂x` for the trigonometric functions and their inverses ([`unary_partial`] routes only
/// those here).
fn trig_partial(e: &mut Builder<'_>, u: UnOp, t: PrimType, x: SubExp) -> SubExp {
    let pi = std::f64::consts::PI;
    let one = c(t, 1.0);
    match u {
        UnOp::Sin => un(e, t, UnOp::Cos, x),
        UnOp::Cos => {
            let s = un(e, t, UnOp::Sin, x);
            un(e, t, UnOp::Neg, s)
        }
        UnOp::Tan => {
            let co = un(e, t, UnOp::Cos, x);
            let c2 = bin(e, t, BinOp::Mul, co, co);
            recip(e, t, c2)
        }
        UnOp::Asin | UnOp::Acos | UnOp::Asinpi | UnOp::Acospi => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let d = bin(e, t, BinOp::Sub, one, x2);
            let s = un(e, t, UnOp::Sqrt, d);
            let mut r = recip(e, t, s);
            if matches!(u, UnOp::Acos | UnOp::Acospi) {
                r = un(e, t, UnOp::Neg, r);
            }
            if matches!(u, UnOp::Asinpi | UnOp::Acospi) {
                r = bin(e, t, BinOp::Div, r, c(t, pi));
            }
            r
        }
        UnOp::Atan | UnOp::Atanpi => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let d = bin(e, t, BinOp::Add, one, x2);
            let mut r = recip(e, t, d);
            if u == UnOp::Atanpi {
                r = bin(e, t, BinOp::Div, r, c(t, pi));
            }
            r
        }
        UnOp::Sinpi => {
            let co = un(e, t, UnOp::Cospi, x);
            bin(e, t, BinOp::Mul, c(t, pi), co)
        }
        UnOp::Cospi => {
            let s = un(e, t, UnOp::Sinpi, x);
            bin(e, t, BinOp::Mul, c(t, -pi), s)
        }
        UnOp::Tanpi => {
            let co = un(e, t, UnOp::Cospi, x);
            let c2 = bin(e, t, BinOp::Mul, co, co);
            bin(e, t, BinOp::Div, c(t, pi), c2)
        }
        _ => unreachable!("not one of the trigonometric functions and their inverses"),
    }
}

/// `∂u(x)/∂x` for the hyperbolic functions, their inverses, the error functions and the gamma
/// functions ([`unary_partial`] routes only those here).
fn hyperbolic_special_partial(e: &mut Builder<'_>, u: UnOp, t: PrimType, x: SubExp) -> SubExp {
    let pi = std::f64::consts::PI;
    let one = c(t, 1.0);
    match u {
        UnOp::Sinh => un(e, t, UnOp::Cosh, x),
        UnOp::Cosh => un(e, t, UnOp::Sinh, x),
        UnOp::Tanh => {
            let th = un(e, t, UnOp::Tanh, x);
            let t2 = bin(e, t, BinOp::Mul, th, th);
            bin(e, t, BinOp::Sub, one, t2)
        }
        UnOp::Asinh => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let d = bin(e, t, BinOp::Add, x2, one);
            let s = un(e, t, UnOp::Sqrt, d);
            recip(e, t, s)
        }
        UnOp::Acosh => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let d = bin(e, t, BinOp::Sub, x2, one);
            let s = un(e, t, UnOp::Sqrt, d);
            recip(e, t, s)
        }
        UnOp::Atanh => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let d = bin(e, t, BinOp::Sub, one, x2);
            recip(e, t, d)
        }
        UnOp::Erf | UnOp::Erfc => {
            let x2 = bin(e, t, BinOp::Mul, x, x);
            let nx2 = un(e, t, UnOp::Neg, x2);
            let ex = un(e, t, UnOp::Exp, nx2);
            let k = 2.0 / pi.sqrt();
            bin(
                e,
                t,
                BinOp::Mul,
                c(t, if u == UnOp::Erf { k } else { -k }),
                ex,
            )
        }
        UnOp::Lgamma => digamma(e, t, x),
        UnOp::Gamma => {
            let g = un(e, t, UnOp::Gamma, x);
            let d = digamma(e, t, x);
            bin(e, t, BinOp::Mul, g, d)
        }
        _ => unreachable!("not one of the hyperbolic functions"),
    }
}

/// The digamma function ψ(x) as core code: the recurrence ψ(x) = ψ(x+1) − 1/x until
/// x ≥ 10, then the asymptotic series ln x − 1/(2x) − Σ B₂ₖ/(2k x²ᵏ), accurate to about
/// 1e-14 relative for positive arguments.
fn digamma(e: &mut Builder<'_>, t: PrimType, x: SubExp) -> SubExp {
    let bool_t = Type::Prim(PrimType::Bool);
    let ty = Type::Prim(t);
    // loop (z, acc) = (x, 0) while z < 6 do (z + 1, acc - 1/z)
    let cond0 = e.prim(PrimOp::Cmp(CmpOp::Lt, t), vec![x, c(t, 10.0)]);
    let p_cond = e.fresh("digamma_cond", bool_t);
    let p_z = e.fresh("digamma_z", ty.clone());
    let p_acc = e.fresh("digamma_acc", ty);
    e.open_body();
    let z1 = e.prim(
        PrimOp::Bin(BinOp::Add, t),
        vec![SubExp::Var(p_z), c(t, 1.0)],
    );
    let inv = e.prim(
        PrimOp::Bin(BinOp::Div, t),
        vec![c(t, 1.0), SubExp::Var(p_z)],
    );
    let acc1 = e.prim(PrimOp::Bin(BinOp::Sub, t), vec![SubExp::Var(p_acc), inv]);
    let cond1 = e.prim(PrimOp::Cmp(CmpOp::Lt, t), vec![z1, c(t, 10.0)]);
    let body = e.close_body(vec![cond1, z1, acc1]);
    let out = e.bind_exp(
        Exp::Loop {
            params: vec![(p_cond, cond0), (p_z, x), (p_acc, c(t, 0.0))],
            form: LoopForm::While { cond: p_cond },
            body,
        },
        "digamma",
    );
    let z = SubExp::Var(out[1]);
    let acc = SubExp::Var(out[2]);
    let bin =
        |e: &mut Builder<'_>, o: BinOp, a: SubExp, b: SubExp| e.prim(PrimOp::Bin(o, t), vec![a, b]);
    let lnz = e.prim(PrimOp::Un(UnOp::Log, t), vec![z]);
    let inv = bin(e, BinOp::Div, c(t, 1.0), z);
    let inv2 = bin(e, BinOp::Mul, inv, inv);
    // Horner in 1/z²: 1/12 − 1/(120 z²) + 1/(252 z⁴) − 1/(240 z⁶) + 1/(132 z⁸)
    let coeffs = [
        1.0 / 132.0,
        -1.0 / 240.0,
        1.0 / 252.0,
        -1.0 / 120.0,
        1.0 / 12.0,
    ];
    let mut poly = c(t, coeffs[0]);
    for k in &coeffs[1..] {
        let m = bin(e, BinOp::Mul, poly, inv2);
        poly = bin(e, BinOp::Add, m, c(t, *k));
    }
    let series = bin(e, BinOp::Mul, poly, inv2);
    let half = bin(e, BinOp::Mul, c(t, 0.5), inv);
    let r = bin(e, BinOp::Sub, lnz, half);
    let r = bin(e, BinOp::Sub, r, series);
    bin(e, BinOp::Add, r, acc)
}
