//! Writing values in the textual and the binary format.

use crate::value::{Buffer, PrimType, Scalar, Value};

/// A scalar in the textual format, with its suffix: `42i32`, `1.0f64`, `1.5e-7f32`,
/// `-0.0f64`, `f32.nan`, `-f64.inf`, `true`.
pub fn format_scalar(x: Scalar) -> String {
    match x {
        Scalar::Bool(b) => b.to_string(),
        Scalar::I8(v) => format!("{v}i8"),
        Scalar::I16(v) => format!("{v}i16"),
        Scalar::I32(v) => format!("{v}i32"),
        Scalar::I64(v) => format!("{v}i64"),
        Scalar::U8(v) => format!("{v}u8"),
        Scalar::U16(v) => format!("{v}u16"),
        Scalar::U32(v) => format!("{v}u32"),
        Scalar::U64(v) => format!("{v}u64"),
        Scalar::F32(v) => format_float(
            v.is_nan(),
            v.is_infinite(),
            v < 0.0,
            &format!("{v:?}"),
            "f32",
        ),
        Scalar::F64(v) => format_float(
            v.is_nan(),
            v.is_infinite(),
            v < 0.0,
            &format!("{v:?}"),
            "f64",
        ),
    }
}

/// Rust's `Debug` form of a float is the shortest decimal that reads back to the same number,
/// with a `.0` or an exponent (`1e16`, `1.5e-7`), which is what 14.1 asks for.
fn format_float(nan: bool, inf: bool, neg: bool, debug: &str, suffix: &str) -> String {
    if nan {
        format!("{suffix}.nan")
    } else if inf {
        format!("{}{suffix}.inf", if neg { "-" } else { "" })
    } else {
        format!("{debug}{suffix}")
    }
}

/// A value in the textual format, on one line (no trailing newline): arrays with every
/// element suffixed, `empty([0][3]f32)` for arrays with a zero dimension.
pub fn write_text(v: &Value) -> String {
    match v {
        Value::Scalar(s) => format_scalar(*s),
        Value::Array(a) => {
            let shape = a.shape();
            if shape.contains(&0) {
                let dims: String = shape.iter().map(|d| format!("[{d}]")).collect();
                return format!("empty({dims}{})", a.elem_type());
            }
            let mut out = String::with_capacity(a.len() * 8);
            let mut i = 0;
            write_dims(&mut out, shape, a.buffer(), &mut i);
            out
        }
    }
}

fn write_dims(out: &mut String, shape: &[usize], buf: &Buffer, i: &mut usize) {
    out.push('[');
    for k in 0..shape[0] {
        if k > 0 {
            out.push_str(", ");
        }
        if shape.len() == 1 {
            out.push_str(&format_scalar(buf.get(*i)));
            *i += 1;
        } else {
            write_dims(out, &shape[1..], buf, i);
        }
    }
    out.push(']');
}

/// The binary type tag of docs/language.md §Binary format (`" f64"`, `"bool"`).
pub(crate) fn binary_tag(t: PrimType) -> &'static [u8; 4] {
    match t {
        PrimType::Bool => b"bool",
        PrimType::I8 => b"  i8",
        PrimType::I16 => b" i16",
        PrimType::I32 => b" i32",
        PrimType::I64 => b" i64",
        PrimType::U8 => b"  u8",
        PrimType::U16 => b" u16",
        PrimType::U32 => b" u32",
        PrimType::U64 => b" u64",
        PrimType::F32 => b" f32",
        PrimType::F64 => b" f64",
    }
}

/// Appends a value in the binary format to `out`.
pub fn write_binary_into(v: &Value, out: &mut Vec<u8>) {
    out.push(b'b');
    out.push(2);
    out.push(v.rank() as u8);
    out.extend_from_slice(binary_tag(v.elem_type()));
    for &d in v.shape() {
        out.extend_from_slice(&(d as u64).to_le_bytes());
    }
    match v {
        Value::Scalar(s) => encode_le(&Buffer::filled(*s, 1), out),
        Value::Array(a) => encode_le(a.buffer(), out),
    }
}

/// A value in the binary format.
pub fn write_binary(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_binary_into(v, &mut out);
    out
}

fn encode_le(buf: &Buffer, out: &mut Vec<u8>) {
    macro_rules! enc {
        ($v:expr) => {
            for x in $v {
                out.extend_from_slice(&x.to_le_bytes());
            }
        };
    }
    match buf {
        Buffer::Bool(v) => out.extend(v.iter().map(|&b| b as u8)),
        Buffer::U8(v) => out.extend_from_slice(v),
        Buffer::I8(v) => enc!(v),
        Buffer::I16(v) => enc!(v),
        Buffer::I32(v) => enc!(v),
        Buffer::I64(v) => enc!(v),
        Buffer::U16(v) => enc!(v),
        Buffer::U32(v) => enc!(v),
        Buffer::U64(v) => enc!(v),
        Buffer::F32(v) => enc!(v),
        Buffer::F64(v) => enc!(v),
    }
}
