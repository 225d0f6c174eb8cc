//! The C spelling of every primitive operation of [`crate::core::prim`], with the semantics of
//! [`PrimOp::eval`](crate::core::prim::PrimOp::eval): wrapping integer arithmetic done in
//! unsigned types (no undefined behaviour), division rounding as docs/language.md §Integer
//! arithmetic says (a zero
//! divisor gives 0 here; the check that reports it is separate), shifts by any amount, float
//! `min`/`max` that skip NaN, saturating float-to-integer conversions, `sinpi`/`cospi` exact at
//! integers and half-integers.
//!
//! Simple operations are printed inline ([`inline`]); the others are `static inline`
//! functions named `gr_<op>` ([`definition`]), emitted only for the operations a program uses.

use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp, UnOp};
use crate::core::scalar::PrimType;

/// The C type of a primitive type.
pub fn c_type(t: PrimType) -> &'static str {
    match t {
        PrimType::Bool => "bool",
        PrimType::I8 => "int8_t",
        PrimType::I16 => "int16_t",
        PrimType::I32 => "int32_t",
        PrimType::I64 => "int64_t",
        PrimType::U8 => "uint8_t",
        PrimType::U16 => "uint16_t",
        PrimType::U32 => "uint32_t",
        PrimType::U64 => "uint64_t",
        PrimType::F32 => "float",
        PrimType::F64 => "double",
    }
}

/// The unsigned integer type of the same width (the bit pattern of floats).
fn u_type(t: PrimType) -> &'static str {
    match t.bits() {
        8 => "uint8_t",
        16 => "uint16_t",
        32 => "uint32_t",
        _ => "uint64_t",
    }
}

/// The signed integer type of the same width.
fn s_type(t: PrimType) -> &'static str {
    match t.bits() {
        8 => "int8_t",
        16 => "int16_t",
        32 => "int32_t",
        _ => "int64_t",
    }
}

/// The unsigned type integer arithmetic is done in (wide enough that no promotion to `int`
/// happens).
fn a_type(t: PrimType) -> &'static str {
    if t.bits() == 64 {
        "uint64_t"
    } else {
        "uint32_t"
    }
}

/// The C function name of an operation.
pub fn fn_name(op: PrimOp) -> String {
    format!("gr_{op}")
}

/// The operation printed inline on already printed operands, if it is simple enough.
pub fn inline(op: PrimOp, a: &[String]) -> Option<String> {
    let bin = |o: &str| Some(format!("({} {o} {})", a[0], a[1]));
    match op {
        PrimOp::Bin(b, t) if t.is_float() => match b {
            BinOp::Add => bin("+"),
            BinOp::Sub => bin("-"),
            BinOp::Mul => bin("*"),
            BinOp::Div => bin("/"),
            _ => None,
        },
        PrimOp::Bin(b, PrimType::Bool) => match b {
            BinOp::And | BinOp::Min => bin("&"),
            BinOp::Or | BinOp::Max => bin("|"),
            BinOp::Xor => bin("!="),
            _ => None,
        },
        PrimOp::Un(UnOp::Neg, t) if t.is_float() => Some(format!("(-{})", a[0])),
        PrimOp::Un(UnOp::Not, PrimType::Bool) => Some(format!("(!{})", a[0])),
        // Comparing an operand with itself (the front end's size checks do) is folded, as
        // compilers warn about the tautology.
        PrimOp::Cmp(c, t) if a[0] == a[1] => Some(match (c, t.is_float()) {
            (CmpOp::Eq | CmpOp::Le | CmpOp::Ge, false) => "true".to_string(),
            (CmpOp::Ne | CmpOp::Lt | CmpOp::Gt, false) => "false".to_string(),
            (CmpOp::Eq | CmpOp::Le | CmpOp::Ge, true) => format!("(!isnan({}))", a[0]),
            (CmpOp::Ne, true) => format!("(isnan({}) != 0)", a[0]),
            (CmpOp::Lt | CmpOp::Gt, true) => "false".to_string(),
        }),
        // An unsigned operand against zero: compilers warn that `x >= 0` is always true.
        PrimOp::Cmp(c, t) if t.is_unsigned_int() && (is_zero(&a[0]) || is_zero(&a[1])) => {
            match (c, is_zero(&a[0]), is_zero(&a[1])) {
                (CmpOp::Ge, _, true) | (CmpOp::Le, true, _) => Some("true".to_string()),
                (CmpOp::Lt, _, true) | (CmpOp::Gt, true, _) => Some("false".to_string()),
                _ => bin(match c {
                    CmpOp::Eq => "==",
                    CmpOp::Ne => "!=",
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                }),
            }
        }
        PrimOp::Cmp(c, _) => bin(match c {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }),
        PrimOp::Tern(TernOp::Select, _) => Some(format!("({} ? {} : {})", a[0], a[1], a[2])),
        PrimOp::Conv(from, to) if from == to => Some(a[0].clone()),
        // A signed integer widened to an unsigned type is zero-extended (docs/language.md §Numeric
        // modules):
        // its bits are first read as the unsigned type of its own width.
        PrimOp::Conv(from, to)
            if from.is_signed_int() && to.is_unsigned_int() && to.bits() > from.bits() =>
        {
            Some(format!("(({})({}){})", c_type(to), u_type(from), a[0]))
        }
        PrimOp::Conv(from, to)
            if (from.is_int() || from == PrimType::Bool) && (to.is_int() || to.is_float()) =>
        {
            Some(format!("(({}){})", c_type(to), a[0]))
        }
        PrimOp::Conv(PrimType::F32, PrimType::F64) | PrimOp::Conv(PrimType::F64, PrimType::F32) => {
            Some(format!("(({}){})", c_type(op.result_type()), a[0]))
        }
        PrimOp::Conv(_, PrimType::Bool) => Some(format!("({} != 0)", a[0])),
        _ => None,
    }
}

/// The `static inline` definition of an operation that is not printed inline; `None` for an
/// operation without semantics at its type.
pub fn definition(op: PrimOp) -> Option<String> {
    if !op.has_semantics() {
        return None;
    }
    let name = fn_name(op);
    let rt = c_type(op.result_type());
    let tys = op.operand_types();
    let params: Vec<String> = tys
        .iter()
        .zip(["x", "y", "z"])
        .map(|(t, n)| format!("{} {n}", c_type(*t)))
        .collect();
    let body = match op {
        PrimOp::Un(u, t) if t.is_int() => int_un(u, t)?,
        PrimOp::Un(u, t) if t.is_float() => float_un(u, t)?,
        PrimOp::Un(..) => return None,
        PrimOp::Bin(b, t) if t.is_int() => int_bin(b, t)?,
        PrimOp::Bin(b, t) if t.is_float() => float_bin(b, t)?,
        PrimOp::Bin(..) => return None,
        PrimOp::Tern(o, t) if t.is_int() => int_tern(o, t)?,
        PrimOp::Tern(o, t) if t.is_float() => float_tern(o, t)?,
        PrimOp::Tern(..) => return None,
        PrimOp::Cmp(..) => return None,
        PrimOp::Conv(from, to) if from.is_float() && to.is_int() => {
            let (lo, hi) = int_limits(to);
            format!(
                "double d = (double)x; if (!isfinite(d)) return 0; if (d <= (double){lo}) return {lo}; if (d >= (double){hi}) return {hi}; return ({rt})d;"
            )
        }
        PrimOp::Conv(..) => return None,
        PrimOp::FromBits(from, _) => {
            format!(
                "{rt} r; {} b = ({})x; memcpy(&r, &b, sizeof r); return r;",
                u_type(from),
                u_type(from)
            )
        }
    };
    let mut deps = String::new();
    if let PrimOp::Un(UnOp::Tanpi, t) = op {
        for o in [UnOp::Sinpi, UnOp::Cospi] {
            deps.push_str(&definition(PrimOp::Un(o, t))?);
        }
    }
    Some(format!(
        "{deps}#ifndef GR_DEF_{name}\n#define GR_DEF_{name}\nstatic inline {rt} {name}({}) {{ {body} }}\n#endif\n",
        params.join(", ")
    ))
}

fn int_limits(t: PrimType) -> (&'static str, &'static str) {
    match t {
        PrimType::I8 => ("INT8_MIN", "INT8_MAX"),
        PrimType::I16 => ("INT16_MIN", "INT16_MAX"),
        PrimType::I32 => ("INT32_MIN", "INT32_MAX"),
        PrimType::I64 => ("INT64_MIN", "INT64_MAX"),
        PrimType::U8 => ("0", "UINT8_MAX"),
        PrimType::U16 => ("0", "UINT16_MAX"),
        PrimType::U32 => ("0", "UINT32_MAX"),
        _ => ("0", "UINT64_MAX"),
    }
}

/// `(AT)(U)v`: an operand widened to the arithmetic type.
fn wide(t: PrimType, v: &str) -> String {
    format!("({})({}){v}", a_type(t), u_type(t))
}

fn int_un(u: UnOp, t: PrimType) -> Option<String> {
    let ct = c_type(t);
    let w = t.bits();
    let signed = t.is_signed_int();
    Some(match u {
        UnOp::Neg => format!("return ({ct})(({})0 - {});", a_type(t), wide(t, "x")),
        UnOp::Not => format!("return ({ct})(~{});", wide(t, "x")),
        UnOp::Abs if signed => format!(
            "return x < 0 ? ({ct})(({})0 - {}) : x;",
            a_type(t),
            wide(t, "x")
        ),
        UnOp::Abs => "return x;".to_string(),
        UnOp::Sgn if signed => format!("return ({ct})((x > 0) - (x < 0));"),
        UnOp::Sgn => format!("return ({ct})(x != 0);"),
        UnOp::Popc => format!(
            "return (int32_t)__builtin_popcountll((uint64_t)({})x);",
            u_type(t)
        ),
        UnOp::Clz => format!(
            "return x == 0 ? {w} : (int32_t)(__builtin_clzll((uint64_t)({})x) - {});",
            u_type(t),
            64 - w
        ),
        UnOp::Ctz => format!(
            "return x == 0 ? {w} : (int32_t)__builtin_ctzll((uint64_t)({})x);",
            u_type(t)
        ),
        _ => return None,
    })
}

fn int_bin(b: BinOp, t: PrimType) -> Option<String> {
    let ct = c_type(t);
    let at = a_type(t);
    let ut = u_type(t);
    let st = s_type(t);
    let w = t.bits();
    let signed = t.is_signed_int();
    let (x, y) = (wide(t, "x"), wide(t, "y"));
    // The shift amount, `w` for amounts outside 0 .. w.
    let amount = if signed {
        format!("int64_t a = (y < 0 || (int64_t)y >= {w}) ? {w} : (int64_t)y;")
    } else {
        format!("int64_t a = ((uint64_t)y >= {w}) ? {w} : (int64_t)y;")
    };
    Some(match b {
        BinOp::Add => format!("return ({ct})({x} + {y});"),
        BinOp::Sub => format!("return ({ct})({x} - {y});"),
        BinOp::Mul => format!("return ({ct})({x} * {y});"),
        BinOp::Div if signed => format!(
            "if (y == 0) return 0; if (y == -1) return ({ct})(({at})0 - {x}); {ct} q = ({ct})(x / y); if (x % y != 0 && ((x < 0) != (y < 0))) q = ({ct})(q - 1); return q;"
        ),
        BinOp::Mod if signed => format!(
            "if (y == 0 || y == -1) return 0; {ct} r = ({ct})(x % y); if (r != 0 && ((r < 0) != (y < 0))) r = ({ct})(r + y); return r;"
        ),
        BinOp::Quot if signed => {
            format!(
                "if (y == 0) return 0; if (y == -1) return ({ct})(({at})0 - {x}); return ({ct})(x / y);"
            )
        }
        BinOp::Rem if signed => format!("if (y == 0 || y == -1) return 0; return ({ct})(x % y);"),
        BinOp::Div | BinOp::Quot => format!("return y == 0 ? 0 : ({ct})(x / y);"),
        BinOp::Mod | BinOp::Rem => format!("return y == 0 ? 0 : ({ct})(x % y);"),
        BinOp::Pow => format!(
            "{at} e = {y}, b = {x}, acc = 1; while (e != 0) {{ if (e & 1) acc = acc * b; b = b * b; e >>= 1; }} return ({ct})acc;"
        ),
        BinOp::Min => "return y < x ? y : x;".to_string(),
        BinOp::Max => "return y > x ? y : x;".to_string(),
        BinOp::And => format!("return ({ct})({x} & {y});"),
        BinOp::Or => format!("return ({ct})({x} | {y});"),
        BinOp::Xor => format!("return ({ct})({x} ^ {y});"),
        BinOp::Shl => format!("{amount} return a >= {w} ? 0 : ({ct})({x} << a);"),
        BinOp::Shr if signed => {
            format!("{amount} return a >= {w} ? (x < 0 ? -1 : 0) : ({ct})(x >> a);")
        }
        BinOp::Shr | BinOp::LShr => {
            format!("{amount} return a >= {w} ? 0 : ({ct})(({ut})x >> a);")
        }
        BinOp::AShr => format!(
            "{amount} {st} s = ({st})x; return ({ct})(a >= {w} ? (s < 0 ? -1 : 0) : (s >> a));"
        ),
        BinOp::MulHi => return Some(format!("return {};", mul_hi(t, "x", "y"))),
        BinOp::GetBit => format!("return (x < 0 || x >= {w}) ? 0 : (int32_t)((({ut})y >> x) & 1);"),
        _ => return None,
    })
}

fn mul_hi(t: PrimType, x: &str, y: &str) -> String {
    let ct = c_type(t);
    let w = t.bits();
    match (w, t.is_signed_int()) {
        (64, true) => format!("({ct})(((__int128){x} * (__int128){y}) >> 64)"),
        (64, false) => {
            format!("({ct})(((unsigned __int128){x} * (unsigned __int128){y}) >> 64)")
        }
        (_, true) => format!("({ct})(((int64_t){x} * (int64_t){y}) >> {w})"),
        (_, false) => format!("({ct})(((uint64_t){x} * (uint64_t){y}) >> {w})"),
    }
}

fn int_tern(o: TernOp, t: PrimType) -> Option<String> {
    let ct = c_type(t);
    let ut = u_type(t);
    let w = t.bits();
    let (x, y, z) = (wide(t, "x"), wide(t, "y"), wide(t, "z"));
    Some(match o {
        TernOp::Fma | TernOp::Mad => format!("return ({ct})({x} * {y} + {z});"),
        TernOp::MadHi => format!(
            "return ({ct})(({})({ut}){} + {z});",
            a_type(t),
            mul_hi(t, "x", "y")
        ),
        TernOp::SetBit => format!(
            "if (x < 0 || x >= {w}) return y; uint64_t p = (uint64_t)({ut})y; p = (p & ~((uint64_t)1 << x)) | ((uint64_t)(z & 1) << x); return ({ct})({ut})p;"
        ),
        _ => return None,
    })
}

fn float_un(u: UnOp, t: PrimType) -> Option<String> {
    let ct = c_type(t);
    let f = if t == PrimType::F32 { "f" } else { "" };
    let pi = if t == PrimType::F32 {
        "3.14159265358979323846f"
    } else {
        "3.14159265358979323846"
    };
    let call = |name: &str| format!("return {name}{f}(x);");
    Some(match u {
        UnOp::Abs => call("fabs"),
        UnOp::Sgn => format!("return x > 0 ? ({ct})1 : x < 0 ? ({ct})-1 : x;"),
        UnOp::Sqrt => call("sqrt"),
        UnOp::Rsqrt => format!("return ({ct})1 / sqrt{f}(x);"),
        UnOp::Cbrt => call("cbrt"),
        UnOp::Exp => call("exp"),
        UnOp::Log => call("log"),
        UnOp::Log2 => call("log2"),
        UnOp::Log10 => call("log10"),
        UnOp::Log1p => call("log1p"),
        UnOp::Sin => call("sin"),
        UnOp::Cos => call("cos"),
        UnOp::Tan => call("tan"),
        UnOp::Asin => call("asin"),
        UnOp::Acos => call("acos"),
        UnOp::Atan => call("atan"),
        UnOp::Sinh => call("sinh"),
        UnOp::Cosh => call("cosh"),
        UnOp::Tanh => call("tanh"),
        UnOp::Asinh => call("asinh"),
        UnOp::Acosh => call("acosh"),
        UnOp::Atanh => call("atanh"),
        UnOp::Gamma => call("tgamma"),
        UnOp::Lgamma => call("lgamma"),
        UnOp::Erf => call("erf"),
        UnOp::Erfc => call("erfc"),
        UnOp::Ceil => call("ceil"),
        UnOp::Floor => call("floor"),
        UnOp::Trunc => call("trunc"),
        UnOp::Round => call("rint"),
        UnOp::Recip => format!("return ({ct})1 / x;"),
        UnOp::Asinpi => format!("return asin{f}(x) / {pi};"),
        UnOp::Acospi => format!("return acos{f}(x) / {pi};"),
        UnOp::Atanpi => format!("return atan{f}(x) / {pi};"),
        UnOp::Sinpi => format!(
            "if (!isfinite(x)) return NAN; {ct} r = x - ({ct})2 * round{f}(x * ({ct})0.5); {ct} a = fabs{f}(r); {ct} s; if (a == 0 || a == 1) return copysign{f}(({ct})0, x); else if (a == ({ct})0.5) s = 1; else if (a > ({ct})0.5) s = sin{f}({pi} * (({ct})1 - a)); else s = sin{f}({pi} * a); return copysign{f}(s, r);"
        ),
        UnOp::Cospi => format!(
            "if (!isfinite(x)) return NAN; x = fabs{f}(x); {ct} a = fabs{f}(x - ({ct})2 * round{f}(x * ({ct})0.5)); if (a == 0) return 1; if (a == 1) return -1; if (a == ({ct})0.5) return 0; if (a > ({ct})0.5) return -cos{f}({pi} * (({ct})1 - a)); return cos{f}({pi} * a);"
        ),
        UnOp::Tanpi => {
            let n = |o| fn_name(PrimOp::Un(o, t));
            format!("return {}(x) / {}(x);", n(UnOp::Sinpi), n(UnOp::Cospi))
        }
        UnOp::IsNan => "return isnan(x) != 0;".to_string(),
        UnOp::IsInf => "return isinf(x) != 0;".to_string(),
        UnOp::ToBits => format!("{} r; memcpy(&r, &x, sizeof r); return r;", u_type(t)),
        _ => return None,
    })
}

fn float_bin(b: BinOp, t: PrimType) -> Option<String> {
    let f = if t == PrimType::F32 { "f" } else { "" };
    let pi = if t == PrimType::F32 {
        "3.14159265358979323846f"
    } else {
        "3.14159265358979323846"
    };
    let ut = u_type(t);
    let w = t.bits();
    Some(match b {
        BinOp::Mod => format!("return fmod{f}(x, y);"),
        BinOp::Pow => format!("return pow{f}(x, y);"),
        BinOp::Min => "return (isnan(x) || y < x) ? y : x;".to_string(),
        BinOp::Max => "return (isnan(x) || y > x) ? y : x;".to_string(),
        BinOp::Atan2 => format!("return atan2{f}(x, y);"),
        BinOp::Atan2pi => format!("return atan2{f}(x, y) / {pi};"),
        BinOp::Hypot => format!("return hypot{f}(x, y);"),
        BinOp::Copysign => format!("return copysign{f}(x, y);"),
        BinOp::Nextafter => format!("return nextafter{f}(x, y);"),
        BinOp::Ldexp => format!("return ldexp{f}(x, y);"),
        BinOp::GetBit => format!(
            "if (x < 0 || x >= {w}) return 0; {ut} p; memcpy(&p, &y, sizeof p); return (int32_t)((p >> x) & 1);"
        ),
        _ => return None,
    })
}

fn float_tern(o: TernOp, t: PrimType) -> Option<String> {
    let ct = c_type(t);
    let f = if t == PrimType::F32 { "f" } else { "" };
    let ut = u_type(t);
    let w = t.bits();
    Some(match o {
        TernOp::Fma => format!("return fma{f}(x, y, z);"),
        TernOp::Mad => "return x * y + z;".to_string(),
        TernOp::Lerp => "return x + (y - x) * z;".to_string(),
        TernOp::SetBit => format!(
            "if (x < 0 || x >= {w}) return y; {ut} p; memcpy(&p, &y, sizeof p); p = ({ut})((p & ~(({ut})1 << x)) | (({ut})(z & 1) << x)); {ct} r; memcpy(&r, &p, sizeof r); return r;"
        ),
        _ => return None,
    })
}

/// Whether a printed operand is an unsigned zero constant (as `print` writes them).
fn is_zero(operand: &str) -> bool {
    matches!(
        operand,
        "UINT64_C(0)" | "((uint8_t)0)" | "((uint16_t)0)" | "((uint32_t)0)"
    )
}
