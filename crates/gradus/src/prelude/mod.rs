//! The prelude (docs/language.md §The prelude), as source text.
//!
//! [`source`] returns the whole prelude: `base.fut` (combinators, array functions, AD
//! operators), then one module per primitive type generated from the templates below, then
//! `tail.fut` (functions that use those modules), then `sparse.fut` (sparse Jacobians and
//! Hessians, docs/sparse.md). A declaration whose body is `???` is an
//! intrinsic that the internaliser implements directly; [`intrinsic_name`] gives its name.

use crate::core::scalar::PrimType;
use std::fmt::Write;

/// The file name under which the prelude appears in diagnostics.
pub const PRELUDE_PATH: &str = "<prelude>";

const BASE: &str = include_str!("base.fut");
const TAIL: &str = include_str!("tail.fut");
const SPARSE: &str = include_str!("sparse.fut");

const FLOAT_UNARY: &[&str] = &[
    "sqrt", "rsqrt", "cbrt", "exp", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinpi", "cospi", "tanpi", "asinpi", "acospi", "atanpi", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "gamma", "lgamma", "erf", "erfc", "ceil", "floor", "trunc",
    "round", "recip",
];
const FLOAT_BINARY: &[&str] = &["atan2", "atan2pi", "hypot", "copysign", "nextafter"];
const FLOAT_TERNARY: &[&str] = &["fma", "mad", "lerp"];

/// The whole prelude source.
pub fn source() -> String {
    let mut s = String::from(BASE);
    for t in PrimType::ALL {
        module_for(&mut s, t);
    }
    s.push_str(TAIL);
    s.push_str(SPARSE);
    s
}

fn bounds(t: PrimType) -> (String, String) {
    let n = t.name();
    match t {
        PrimType::Bool => ("false".into(), "true".into()),
        PrimType::I8 => (format!("-128{n}"), format!("127{n}")),
        PrimType::I16 => (format!("-32768{n}"), format!("32767{n}")),
        PrimType::I32 => (format!("-2147483648{n}"), format!("2147483647{n}")),
        PrimType::I64 => (
            format!("-9223372036854775808{n}"),
            format!("9223372036854775807{n}"),
        ),
        PrimType::U8 => (format!("0{n}"), format!("255{n}")),
        PrimType::U16 => (format!("0{n}"), format!("65535{n}")),
        PrimType::U32 => (format!("0{n}"), format!("4294967295{n}")),
        PrimType::U64 => (format!("0{n}"), format!("18446744073709551615{n}")),
        PrimType::F32 | PrimType::F64 => ("???".into(), "???".into()),
    }
}

/// Appends `module t = { ... }` for one primitive type.
fn module_for(s: &mut String, t: PrimType) {
    let n = t.name();
    let _ = writeln!(s, "\nmodule {n} = {{");
    let _ = writeln!(s, "  type t = {n}");
    // Conversions into t from every type.
    for from in PrimType::ALL {
        let _ = writeln!(s, "  def {} (x: {}) : {n} = ???", from.name(), from.name());
    }
    if t == PrimType::Bool {
        let _ = writeln!(s, "}}");
        return;
    }
    for op in ["+", "-", "*", "/", "%", "**"] {
        let _ = writeln!(s, "  def ({op}) (x: {n}) (y: {n}) : {n} = ???");
    }
    for op in ["==", "!=", "<", "<=", ">", ">="] {
        let _ = writeln!(s, "  def ({op}) (x: {n}) (y: {n}) : bool = ???");
    }
    for f in ["neg", "abs", "sgn"] {
        let _ = writeln!(s, "  def {f} (x: {n}) : {n} = ???");
    }
    for f in ["max", "min"] {
        let _ = writeln!(s, "  def {f} (x: {n}) (y: {n}) : {n} = ???");
    }
    let (lo, hi) = bounds(t);
    let _ = writeln!(s, "  def highest : {n} = {hi}");
    let _ = writeln!(s, "  def lowest : {n} = {lo}");
    let _ = writeln!(s, "  def to_i64 (x: {n}) : i64 = ???");
    let _ = writeln!(
        s,
        "  def sum [k] (xs: [k]{n}) : {n} = reduce (+) (0: {n}) xs"
    );
    let _ = writeln!(
        s,
        "  def product [k] (xs: [k]{n}) : {n} = reduce (*) (1: {n}) xs"
    );
    let _ = writeln!(
        s,
        "  def maximum [k] (xs: [k]{n}) : {n} = reduce max lowest xs"
    );
    let _ = writeln!(
        s,
        "  def minimum [k] (xs: [k]{n}) : {n} = reduce min highest xs"
    );
    let bits = t.bits();
    let _ = writeln!(s, "  def num_bits : i32 = {bits}i32");
    let _ = writeln!(s, "  def get_bit (i: i32) (x: {n}) : i32 = ???");
    let _ = writeln!(s, "  def set_bit (i: i32) (x: {n}) (b: i32) : {n} = ???");
    if t.is_int() {
        for op in ["//", "%%", "&", "|", "^", "<<", ">>", ">>>"] {
            let _ = writeln!(s, "  def ({op}) (x: {n}) (y: {n}) : {n} = ???");
        }
        let _ = writeln!(s, "  def not (x: {n}) : {n} = ???");
        for f in ["popc", "clz", "ctz"] {
            let _ = writeln!(s, "  def {f} (x: {n}) : i32 = ???");
        }
        let _ = writeln!(s, "  def mul_hi (x: {n}) (y: {n}) : {n} = ???");
        let _ = writeln!(s, "  def mad_hi (x: {n}) (y: {n}) (z: {n}) : {n} = ???");
    } else {
        let bits_ty = if t == PrimType::F32 { "u32" } else { "u64" };
        for f in FLOAT_UNARY {
            let _ = writeln!(s, "  def {f} (x: {n}) : {n} = ???");
        }
        for f in FLOAT_BINARY {
            let _ = writeln!(s, "  def {f} (x: {n}) (y: {n}) : {n} = ???");
        }
        for f in FLOAT_TERNARY {
            let _ = writeln!(s, "  def {f} (x: {n}) (y: {n}) (z: {n}) : {n} = ???");
        }
        let _ = writeln!(s, "  def isinf (x: {n}) : bool = ???");
        let _ = writeln!(s, "  def isnan (x: {n}) : bool = ???");
        let _ = writeln!(s, "  def to_bits (x: {n}) : {bits_ty} = ???");
        let _ = writeln!(s, "  def from_bits (x: {bits_ty}) : {n} = ???");
        let _ = writeln!(s, "  def ldexp (x: {n}) (k: i32) : {n} = ???");
        let _ = writeln!(
            s,
            "  def from_fraction (a: i64) (b: i64) : {n} = i64 a / i64 b"
        );
        let _ = writeln!(s, "  def to_f64 (x: {n}) : f64 = ???");
        let _ = writeln!(s, "  def inf : {n} = ???");
        let _ = writeln!(s, "  def nan : {n} = ???");
        let _ = writeln!(s, "  def pi : {n} = ???");
        let _ = writeln!(s, "  def e : {n} = ???");
        let _ = writeln!(s, "  def epsilon : {n} = ???");
    }
    let _ = writeln!(s, "}}");
}

/// The intrinsic name of a prelude declaration with a `???` body: the module path and the
/// name joined by dots (`map`, `f64.sqrt`, `i32.+`).
pub fn intrinsic_name(module_path: &[String], name: &str) -> String {
    let mut s = module_path.join(".");
    if !s.is_empty() {
        s.push('.');
    }
    s.push_str(name);
    s
}
