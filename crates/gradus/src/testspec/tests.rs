use super::*;
use crate::value::{Array, Buffer, Scalar, Value};

const EXAMPLE: &str = r#"-- Squares and their derivatives.
-- ==
-- tags { autodiff no_native }
-- entry: square_jvp square_vjp
-- input { 3.0 } output { 6.0 }
-- input { -0.5 }
-- output { -1.0 }

entry square_jvp (x: f64) = jvp (\t -> t * t) x 1

-- ==
-- entry: cube
-- input { [1, 2, 3] } output { [1, 8, 27] }
-- compiled random input { [1000]i32 0.5f32 7i64 }
-- "named" no_interpreter input @ data/x.in.gz auto output
-- input { 0 } error: division
-- input {
--   [1.0,
--    2.0]
-- }
-- output @ out.bin
entry cube [n] (xs: [n]i32) = map (\x -> x * x * x) xs
"#;

#[test]
fn parses_the_example_of_the_spec() {
    let f = parse_test_file(EXAMPLE).unwrap();
    assert_eq!(f.tags, vec!["autodiff", "no_native"]);
    assert_eq!(f.blocks.len(), 2);
    let b0 = &f.blocks[0];
    assert_eq!(b0.entries, vec!["square_jvp", "square_vjp"]);
    assert_eq!(b0.cases.len(), 2);
    assert_eq!(
        b0.cases[1].expected,
        Expected::Values(vec![Value::Scalar(Scalar::F64(-1.0))])
    );
    assert_eq!(b0.cases[0].dataset_name(), "#0 (\"3.0\")");
    let b1 = &f.blocks[1];
    assert_eq!(b1.entries, vec!["cube"]);
    assert_eq!(b1.cases.len(), 5);
    assert_eq!(b1.cases[1].run_tags, vec!["compiled", "random"]);
    assert_eq!(b1.cases[1].dataset_name(), "[1000]i32 0.5f32 7i64");
    assert_eq!(b1.cases[1].expected, Expected::Success);
    assert_eq!(b1.cases[2].name.as_deref(), Some("named"));
    assert_eq!(b1.cases[2].input, Input::File("data/x.in.gz".into()));
    assert_eq!(b1.cases[2].expected, Expected::Auto);
    assert_eq!(b1.cases[3].expected, Expected::Error("division".into()));
    assert_eq!(b1.cases[4].expected, Expected::File("out.bin".into()));
    assert_eq!(b1.cases[4].dataset_name(), "#4 (\"[1.0, 2.0]\")");
    assert!(!f.is_compile_test());
}

#[test]
fn compile_tests_and_skipped_items() {
    assert!(parse_test_file("def main = 1\n").unwrap().is_compile_test());
    let f = parse_test_file("-- ==\n-- tags { a }\n").unwrap();
    assert!(f.is_compile_test());
    let f = parse_test_file(
        "-- ==\n-- input { 1 } output { 1 }\n-- structure { Map 1 Map/BinOp 0 }\n-- structure gpu { SegMap 1 }\n-- warning: unused\n",
    )
    .unwrap();
    assert_eq!(f.skipped_items.len(), 2);
    assert_eq!(f.structures.len(), 1);
    assert_eq!(f.structures[0].line, 3);
    assert_eq!(
        f.structures[0].counts,
        vec![("Map".to_string(), 1), ("Map/BinOp".to_string(), 0)]
    );
    let f = parse_test_file("-- ==\n-- error: type .* mismatch\n").unwrap();
    assert_eq!(f.compile_error.as_deref(), Some("type .* mismatch"));
    let f = parse_test_file("-- ==\n-- property: p1 p2\n").unwrap();
    assert_eq!(f.properties, vec!["p1", "p2"]);
}

#[test]
fn malformed_blocks_are_errors() {
    for bad in [
        "-- ==\n-- input { [] }\n",
        "-- ==\n-- input { 1 \n",
        "-- ==\n-- input 1\n",
        "-- ==\n-- foo { 1 }\n",
        "-- ==\n-- structure { Map }\n",
        "-- ==\n-- structure { Mop 1 }\n",
        "-- ==\n-- structure { Map/Mop 1 }\n",
        "-- ==\n-- structure { Map x }\n",
        "-- ==\n-- random input { [n]i32 }\n",
        "-- ==\n-- random input { 0.5 }\n",
        "-- ==\n-- input { 1 } output\n",
        "-- ==\n-- input { 1 }\n\n-- ==\n-- tags { x }\n",
    ] {
        let e = parse_test_file(bad);
        assert!(e.is_err(), "{bad}: {e:?}");
    }
    let e = parse_test_file("\n-- ==\n-- input { 1 }\n-- output { [] }\n").unwrap_err();
    assert_eq!(e.line, 4);
}

#[test]
fn random_generation_is_deterministic() {
    let items = vec![
        RandomItem::Generate {
            elem: crate::core::scalar::PrimType::F32,
            shape: vec![100, 3],
        },
        RandomItem::Generate {
            elem: crate::core::scalar::PrimType::I64,
            shape: vec![],
        },
        RandomItem::Literal(Value::Scalar(Scalar::F32(0.5))),
    ];
    let s = random_seed(0, "a.fut", "main", 0, 0);
    let a = generate_random(&items, s, 1 << 20).unwrap();
    let b = generate_random(&items, s, 1 << 20).unwrap();
    assert_eq!(a, b);
    assert_eq!(a[0].shape(), &[100, 3]);
    assert_eq!(a[2], Value::Scalar(Scalar::F32(0.5)));
    if let Value::Array(arr) = &a[0]
        && let Buffer::F32(v) = arr.buffer()
    {
        assert!(v.iter().all(|x| (0.0..=1.0).contains(x)));
    }
    let other = generate_random(&items, random_seed(1, "a.fut", "main", 0, 0), 1 << 20).unwrap();
    assert_ne!(a, other);
    assert!(generate_random(&items, s, 10).is_err());
}

fn f32s(shape: Vec<usize>, v: Vec<f32>) -> Value {
    Value::Array(Array::new(shape, Buffer::F32(v)).unwrap())
}

#[test]
fn comparison_with_tolerance() {
    let e = f32s(vec![3, 2], vec![1.0, 2.0, 3.0, 4.0, 3.5, 6.0]);
    let a = f32s(vec![3, 2], vec![1.0, 2.0, 3.0, 4.0, 3.25, 6.0]);
    assert_eq!(
        compare_values(
            &[Value::Scalar(Scalar::I32(0)), e.clone()],
            &[Value::Scalar(Scalar::I32(0)), a],
            0.002
        ),
        Err("value #1 at index [2, 0]: expected 3.5f32, got 3.25f32".to_string())
    );
    let a = f32s(vec![3, 2], vec![1.0, 2.0, 3.0, 4.0, 3.5, 6.01]);
    assert!(compare_values(std::slice::from_ref(&e), &[a], 0.002).is_ok());
    let a = f32s(vec![3, 2], vec![0.0, 0.0, 3.0, 4.0, 3.5, 6.0]);
    assert_eq!(
        compare_values(std::slice::from_ref(&e), &[a], 0.002),
        Err(
            "value #0 at index [0, 0]: expected 1.0f32, got 0.0f32 (and 1 more element differs)"
                .to_string()
        )
    );
    // Large negative elements do not widen the tolerance.
    let e = Value::Array(Array::new(vec![2], Buffer::F64(vec![-1000.0, 0.5])).unwrap());
    let a = Value::Array(Array::new(vec![2], Buffer::F64(vec![-1000.0, 0.51])).unwrap());
    assert!(compare_values(std::slice::from_ref(&e), &[a], 0.002).is_err());
    let nan = Value::Scalar(Scalar::F64(f64::NAN));
    assert!(
        compare_values(
            std::slice::from_ref(&nan),
            std::slice::from_ref(&nan),
            0.002
        )
        .is_ok()
    );
    let inf = Value::Scalar(Scalar::F64(f64::INFINITY));
    let ninf = Value::Scalar(Scalar::F64(f64::NEG_INFINITY));
    assert!(compare_values(std::slice::from_ref(&inf), &[ninf], 0.002).is_err());
    assert!(
        compare_values(
            &[Value::Scalar(Scalar::F64(1.0))],
            &[Value::Scalar(Scalar::F32(1.0))],
            0.002
        )
        .unwrap_err()
        .contains("type f64, got f32")
    );
    assert!(compare_values(&[], &[nan], 0.002).is_err());
}

#[test]
fn random_block_text_never_panics() {
    use proptest::prelude::*;
    proptest!(|(s in "(-- ==\n|-- |input |output |\\{|\\}|@ |entry: |error: |random |auto |\"x\" |\\[1\\]i32 |1 |\n){0,30}")| {
        let _ = parse_test_file(&s);
    });
}

#[test]
fn adjacent_blocks() {
    let f =
        parse_test_file("-- ==\n-- input { 1 } output { 1 }\n-- ==\n-- entry: f\n-- input { 2 }\n")
            .unwrap();
    assert_eq!(f.blocks.len(), 2);
    assert_eq!(f.blocks[1].entries, vec!["f"]);
    assert_eq!(f.blocks[1].cases[0].line, 5);
}
