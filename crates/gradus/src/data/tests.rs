use super::*;
use crate::value::{Array, Buffer, PrimType, Scalar, Value};
use proptest::prelude::*;

fn one(text: &str) -> Value {
    let vs = read_values(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(vs.len(), 1, "{text}");
    vs.into_iter().next().unwrap()
}

fn err(text: &str) -> DataError {
    match read_values(text.as_bytes()) {
        Ok(v) => panic!("{text}: expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn arr(shape: Vec<usize>, b: Buffer) -> Value {
    Value::Array(Array::new(shape, b).unwrap())
}

#[test]
fn defaults_and_suffixes() {
    assert_eq!(one("3"), Value::Scalar(Scalar::I32(3)));
    assert_eq!(one("-1"), Value::Scalar(Scalar::I32(-1)));
    assert_eq!(one("3.0"), Value::Scalar(Scalar::F64(3.0)));
    assert_eq!(one("2f32"), Value::Scalar(Scalar::F32(2.0)));
    assert_eq!(one("1_000i64"), Value::Scalar(Scalar::I64(1000)));
    assert_eq!(one("255u8"), Value::Scalar(Scalar::U8(255)));
    assert_eq!(one("0xffu8"), Value::Scalar(Scalar::U8(255)));
    // Negative literals of unsigned types wrap around, as in Futhark.
    assert_eq!(one("-1u8"), Value::Scalar(Scalar::U8(255)));
    assert_eq!(one("-128u8"), Value::Scalar(Scalar::U8(128)));
    assert_eq!(one("-2u32"), Value::Scalar(Scalar::U32(u32::MAX - 1)));
    assert_eq!(one("-1u64"), Value::Scalar(Scalar::U64(u64::MAX)));
    assert_eq!(one("0b101"), Value::Scalar(Scalar::I32(5)));
    assert_eq!(one("2.5e-3f64"), Value::Scalar(Scalar::F64(2.5e-3)));
    assert_eq!(one("1e5"), Value::Scalar(Scalar::F64(1e5)));
    assert_eq!(one("true"), Value::Scalar(Scalar::Bool(true)));
    assert_eq!(
        one("-f32.inf"),
        Value::Scalar(Scalar::F32(f32::NEG_INFINITY))
    );
    assert!(matches!(one("f64.nan"), Value::Scalar(Scalar::F64(x)) if x.is_nan()));
    assert_eq!(one("-0.0"), Value::Scalar(Scalar::F64(-0.0)));
    // Negative zero keeps its sign (scalars compare by their bits).
    assert_eq!(one("-0.0f32"), Value::Scalar(Scalar::F32(-0.0)));
    assert_ne!(one("-0.0f32"), Value::Scalar(Scalar::F32(0.0)));
    assert_eq!(one("+7i8"), Value::Scalar(Scalar::I8(7)));
    assert_eq!(one("-128i8"), Value::Scalar(Scalar::I8(-128)));
}

#[test]
fn arrays_take_the_first_scalars_type() {
    assert_eq!(
        one("[1.0f32, 2.0, 3]"),
        arr(vec![3], Buffer::F32(vec![1.0, 2.0, 3.0]))
    );
    assert_eq!(
        one("[1i64, 2, 3]"),
        arr(vec![3], Buffer::I64(vec![1, 2, 3]))
    );
    assert_eq!(
        one("[[1, 2], [3, 4],]"),
        arr(vec![2, 2], Buffer::I32(vec![1, 2, 3, 4]))
    );
    assert_eq!(
        one("[\n  [1.5, 2]\n, -- comment\n [3, 4e0]]"),
        arr(vec![2, 2], Buffer::F64(vec![1.5, 2.0, 3.0, 4.0]))
    );
    assert_eq!(one("empty([0]f64)"), arr(vec![0], Buffer::F64(vec![])));
    assert_eq!(
        one("empty([3][0]i32)"),
        arr(vec![3, 0], Buffer::I32(vec![]))
    );
    assert_eq!(
        one("[empty([0]bool), empty([0]bool)]"),
        arr(vec![2, 0], Buffer::Bool(vec![]))
    );
}

#[test]
fn rejects_malformed_text() {
    for bad in [
        "[1, 2.5]",
        "[1f32, 2f64]",
        "[1.5, 2i32]",
        "[true, 1]",
        "[]",
        "[1, [2]]",
        "[[1, 2], [3]]",
        ".5",
        "5.",
        "1e5i32",
        "1.5i32",
        "300u8",
        "-129u8",
        "128i8",
        "empty([2]f64)",
        "empty(f64)",
        "empty([0]x)",
        "[1, 2",
        "[1 2]",
        "1f16",
        "f16.nan",
        "empty([0]f16)",
        "1q32",
        "tru",
        "0x",
        "1e",
        "+f64.inf",
        "-f64.nan",
    ] {
        let e = err(bad);
        assert!(!e.message.is_empty(), "{bad}");
    }
    assert!(err("[]").message.contains("empty"));
    assert!(err("1f16").message.contains("f16"));
    let e = err("1\n  [1, 2.5]");
    assert_eq!((e.line, e.column), (2, 7));
}

#[test]
fn mixed_stream() {
    let mut bytes = b"1 -- one\n".to_vec();
    bytes.extend(write_binary(&Value::Scalar(Scalar::F64(2.0))));
    bytes.extend(b"\n[3i64]");
    let vs = read_values(&bytes).unwrap();
    assert_eq!(
        vs,
        vec![
            Value::Scalar(Scalar::I32(1)),
            Value::Scalar(Scalar::F64(2.0)),
            arr(vec![1], Buffer::I64(vec![3]))
        ]
    );
}

#[test]
fn binary_examples_of_the_spec() {
    assert_eq!(
        write_binary(&Value::Scalar(Scalar::I32(7))),
        [0x62, 2, 0, 0x20, 0x69, 0x33, 0x32, 7, 0, 0, 0]
    );
    let v = arr(vec![2], Buffer::F64(vec![1.0, 2.0]));
    let b = write_binary(&v);
    assert_eq!(&b[..7], &[0x62, 2, 1, 0x20, 0x66, 0x36, 0x34]);
    assert_eq!(&b[7..15], &[2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&b[15..23], &[0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
    assert_eq!(read_values(&b).unwrap(), vec![v]);
}

#[test]
fn rejects_malformed_binary() {
    let good = write_binary(&arr(vec![2], Buffer::I32(vec![1, 2])));
    let mut wrong_version = good.clone();
    wrong_version[1] = 1;
    assert!(err_bytes(&wrong_version).message.contains("version"));
    let mut wrong_tag = good.clone();
    wrong_tag[3..7].copy_from_slice(b" i33");
    assert!(err_bytes(&wrong_tag).message.contains("type tag"));
    let mut f16 = good.clone();
    f16[3..7].copy_from_slice(b" f16");
    assert!(err_bytes(&f16).message.contains("f16"));
    assert!(
        err_bytes(&good[..good.len() - 1])
            .message
            .contains("truncated")
    );
    assert!(err_bytes(&good[..5]).message.contains("truncated"));
    let mut huge = good.clone();
    huge[7..15].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(!err_bytes(&huge).message.is_empty());
    let mut overflow = vec![b'b', 2, 2];
    overflow.extend(b" i32");
    overflow.extend(&(1u64 << 40).to_le_bytes());
    overflow.extend(&(1u64 << 40).to_le_bytes());
    assert!(err_bytes(&overflow).message.contains("overflow"));
}

fn err_bytes(b: &[u8]) -> DataError {
    match read_values(b) {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    }
}

#[test]
fn writes_text_per_spec() {
    let w = |v: Value| write_text(&v);
    assert_eq!(w(Value::Scalar(Scalar::I32(42))), "42i32");
    assert_eq!(w(Value::Scalar(Scalar::I64(-7))), "-7i64");
    assert_eq!(w(Value::Scalar(Scalar::U8(255))), "255u8");
    assert_eq!(w(Value::Scalar(Scalar::F64(1.0))), "1.0f64");
    assert_eq!(w(Value::Scalar(Scalar::F32(0.1))), "0.1f32");
    assert_eq!(w(Value::Scalar(Scalar::F64(1.5e-7))), "1.5e-7f64");
    assert_eq!(w(Value::Scalar(Scalar::F64(-0.0))), "-0.0f64");
    assert_eq!(w(Value::Scalar(Scalar::F32(f32::NAN))), "f32.nan");
    assert_eq!(w(Value::Scalar(Scalar::F64(f64::NEG_INFINITY))), "-f64.inf");
    assert_eq!(w(Value::Scalar(Scalar::Bool(true))), "true");
    assert_eq!(
        w(arr(vec![2, 2], Buffer::F64(vec![1.0, 2.0, 3.0, 4.0]))),
        "[[1.0f64, 2.0f64], [3.0f64, 4.0f64]]"
    );
    assert_eq!(w(arr(vec![0, 3], Buffer::F32(vec![]))), "empty([0][3]f32)");
    let big = w(Value::Scalar(Scalar::F64(1e300)));
    assert!(big.contains('e') || big.contains('.'), "{big}");
}

#[test]
fn gzip_streams() {
    let v = arr(vec![3], Buffer::I64(vec![1, 2, 3]));
    let gz = compress(&write_binary(&v));
    assert!(is_gzip(&gz));
    assert_eq!(read_values(&gz).unwrap(), vec![v.clone()]);
    let gz = compress(write_text(&v).as_bytes());
    assert_eq!(read_values(&gz).unwrap(), vec![v]);
    assert!(read_values(&[0x1f, 0x8b, 1, 2, 3]).is_err());
}

// ------------------------------------------------------------------ properties

fn any_value() -> impl Strategy<Value = Value> {
    let t = proptest::sample::select(PrimType::ALL.to_vec());
    let shape = proptest::collection::vec(0usize..4, 0..4);
    (t, shape).prop_flat_map(|(t, shape)| {
        let n: usize = shape.iter().product();
        let w = t.byte_width();
        proptest::collection::vec(any::<u8>(), n * w).prop_map(move |bytes| {
            let mut raw = vec![b'b', 2, shape.len() as u8];
            raw.extend(super::write::binary_tag(t));
            for &d in &shape {
                raw.extend(&(d as u64).to_le_bytes());
            }
            let mut bytes = bytes.clone();
            if t == PrimType::Bool {
                for b in &mut bytes {
                    *b &= 1;
                }
            }
            raw.extend(bytes);
            Reader::new(&raw).next_value().unwrap().unwrap()
        })
    })
}

/// Bitwise equality, except that every NaN equals every NaN (text writes NaN without its
/// payload).
fn same(a: &Value, b: &Value, nan_payloads: bool) -> bool {
    if a.shape() != b.shape() || a.elem_type() != b.elem_type() {
        return false;
    }
    let flat = |v: &Value| match v {
        Value::Scalar(s) => Buffer::filled(*s, 1),
        Value::Array(a) => a.buffer().clone(),
    };
    let (x, y) = (flat(a), flat(b));
    (0..x.len()).all(|i| match (x.get(i), y.get(i)) {
        (Scalar::F32(p), Scalar::F32(q)) => {
            p.to_bits() == q.to_bits() || (!nan_payloads && p.is_nan() && q.is_nan())
        }
        (Scalar::F64(p), Scalar::F64(q)) => {
            p.to_bits() == q.to_bits() || (!nan_payloads && p.is_nan() && q.is_nan())
        }
        (p, q) => p == q,
    })
}

proptest! {
    #[test]
    fn text_round_trip(v in any_value()) {
        let text = write_text(&v);
        let back = read_values(text.as_bytes()).unwrap();
        prop_assert_eq!(back.len(), 1);
        prop_assert!(same(&v, &back[0], false), "{} read back as {:?}", text, back[0]);
    }

    #[test]
    fn binary_round_trip(v in any_value()) {
        let bytes = write_binary(&v);
        let back = read_values(&bytes).unwrap();
        prop_assert_eq!(back.len(), 1);
        prop_assert!(same(&v, &back[0], true));
    }

    #[test]
    fn stream_round_trip(vs in proptest::collection::vec(any_value(), 0..5), bin in any::<u8>()) {
        let mut bytes = Vec::new();
        for (i, v) in vs.iter().enumerate() {
            if (bin >> (i % 8)) & 1 == 1 {
                write_binary_into(v, &mut bytes);
            } else {
                bytes.extend(write_text(v).as_bytes());
            }
            bytes.extend(b" -- c\n");
        }
        let back = read_values(&bytes).unwrap();
        prop_assert_eq!(back.len(), vs.len());
        for (a, b) in vs.iter().zip(&back) {
            prop_assert!(same(a, b, false));
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_values(&bytes);
    }

    #[test]
    fn random_text_never_panics(s in "[-\\[\\]0-9a-z_., ()ebx+]{0,60}") {
        let _ = read_values(s.as_bytes());
    }

    #[test]
    fn binary_prefixed_garbage_never_panics(rest in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut bytes = vec![b'b', 2];
        bytes.extend(rest);
        let _ = read_values(&bytes);
    }
}
