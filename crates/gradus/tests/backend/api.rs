//! End-to-end tests of the Rust API: compile, list entry points, call, errors.

use gradus::program::{CallError, ExternalType, Program};
use gradus::value::{Array, Buffer, PrimType, Scalar, Value};

fn f64s(v: &[f64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::F64(v.to_vec())))
}

fn compile(src: &str) -> Program {
    match Program::from_source("test.fut", src) {
        Ok(p) => p,
        Err(d) => panic!("compile error:\n{}", d.render()),
    }
}

#[test]
fn dot_product_through_the_api() {
    let p = compile("entry dot [n] (xs: [n]f64) (ys: [n]f64) : f64 = f64.sum (map2 (*) xs ys)");
    let eps = p.entry_points();
    assert_eq!(eps.len(), 1);
    assert_eq!(eps[0].name, "dot");
    assert!(matches!(
        &eps[0].params[0],
        ExternalType::Value {
            elem: PrimType::F64,
            rank: 1,
            ..
        }
    ));
    let out = p
        .call("dot", vec![f64s(&[1.0, 2.0, 3.0]), f64s(&[4.0, 5.0, 6.0])])
        .unwrap();
    assert_eq!(out, vec![Value::Scalar(Scalar::F64(32.0))]);
}

#[test]
fn ndarray_arguments_and_results() {
    let p = compile("entry t [n] [m] (a: [n][m]f32) : [m][n]f32 = transpose a");
    let a = ndarray::arr2(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let out = p.call("t", vec![Value::from_ndarray(a.clone())]).unwrap();
    let back = out[0].to_ndarray::<f32>().unwrap();
    assert_eq!(back, a.t().to_owned().into_dyn());
}

#[test]
fn size_mismatch_between_arguments_is_a_runtime_error() {
    let p = compile("entry add [n] (xs: [n]f64) (ys: [n]f64) = map2 (+) xs ys");
    match p.call("add", vec![f64s(&[1.0, 2.0]), f64s(&[1.0])]) {
        Err(CallError::Runtime(e)) => {
            assert!(e.message.contains("cannot match shape"), "{}", e.message)
        }
        other => panic!("expected a size error, got {other:?}"),
    }
}

#[test]
fn wrong_argument_type_is_bad_input() {
    let p = compile("entry f (x: i64) = x + 1");
    match p.call("f", vec![Value::Scalar(Scalar::I32(1))]) {
        Err(CallError::BadInput(m)) => assert!(m.contains("i64"), "{m}"),
        other => panic!("expected bad input, got {other:?}"),
    }
    assert!(matches!(
        p.call("g", vec![]),
        Err(CallError::UnknownEntry(_))
    ));
}

#[test]
fn index_out_of_bounds_reports_the_source_location() {
    let p = compile("entry get (xs: []i64) (i: i64) : i64 =\n  xs[i]\n");
    let err = p
        .call(
            "get",
            vec![
                Value::Array(Array::from_buffer(Buffer::I64(vec![1, 2, 3, 4]))),
                Value::Scalar(Scalar::I64(5)),
            ],
        )
        .unwrap_err();
    let CallError::Runtime(e) = err else {
        panic!("expected a runtime error")
    };
    assert_eq!(e.message, "Index [5] out of bounds for array of shape [4].");
    assert!(
        e.locations
            .first()
            .is_some_and(|l| l.starts_with("test.fut:2:")),
        "{:?}",
        e.locations
    );
}

#[test]
fn type_errors_are_diagnostics_with_a_location() {
    let err = Program::from_source("bad.fut", "entry f (x: f32) = x + 1f64\n")
        .err()
        .expect("a type error");
    let line = err.one_line();
    assert!(line.starts_with("bad.fut:1:"), "{line}");
    let rendered = err.render();
    assert!(rendered.contains("bad.fut"), "{rendered}");
    assert!(rendered.contains('^'), "{rendered}");
}

#[test]
fn an_entry_size_no_argument_tells_is_an_error_not_an_internal_one() {
    let err = Program::from_source(
        "kk.fut",
        "entry bratu [k] (u: [k*k]f64) : [k*k]f64 = map (\\v -> v + f64.i64 k) u\n",
    )
    .err()
    .expect("an error");
    assert_eq!(
        err.one_line(),
        "kk.fut:1:13: entry point `bratu` cannot be called: its size `k` is not a whole \
         dimension of any parameter"
    );
}

#[test]
fn syntax_errors_are_diagnostics_with_a_location() {
    let err = Program::from_source("bad.fut", "entry f (x: f32) = (x + \n")
        .err()
        .expect("a syntax error");
    assert!(err.one_line().starts_with("bad.fut:"), "{}", err.one_line());
}

#[test]
fn polymorphic_and_higher_order_functions_specialise() {
    let p = compile(
        "def twice 'a (f: a -> a) (x: a) : a = f (f x)\n\
         entry g (x: f64) (n: i32) = (twice (\\y -> y * 2) x, twice (+ 1) n)",
    );
    let out = p
        .call(
            "g",
            vec![
                Value::Scalar(Scalar::F64(1.5)),
                Value::Scalar(Scalar::I32(4)),
            ],
        )
        .unwrap();
    assert_eq!(
        out,
        vec![
            Value::Scalar(Scalar::F64(6.0)),
            Value::Scalar(Scalar::I32(6))
        ]
    );
}

#[test]
fn arrays_of_tuples_become_tuples_of_arrays() {
    let p = compile(
        "entry f [n] (xs: [n]f64) (ys: [n]i32) =\n\
           let ps = zip xs ys\n\
           let (a, b) = unzip (map (\\(x, y) -> (x * 2, y + 1)) ps)\n\
           in (reduce (+) 0 a, b)",
    );
    let out = p
        .call(
            "f",
            vec![
                f64s(&[1.0, 2.0]),
                Value::Array(Array::from_buffer(Buffer::I32(vec![5, 6]))),
            ],
        )
        .unwrap();
    assert_eq!(out[0], Value::Scalar(Scalar::F64(6.0)));
    assert_eq!(
        out[1],
        Value::Array(Array::from_buffer(Buffer::I32(vec![6, 7])))
    );
}

#[test]
fn recursive_functions_are_a_limitation_not_a_crash() {
    let err = Program::from_source(
        "rec.fut",
        "def fact (n: i64) : i64 = if n <= 1 then 1 else n * fact (n - 1)\n\
         entry main (n: i64) = fact n\n",
    )
    .err()
    .expect("recursion is not supported yet");
    assert!(
        err.one_line().contains("not supported yet"),
        "{}",
        err.one_line()
    );
}

/// A lambda whose result size it computes itself (`flatten` of an `[n][3]` array inside a
/// `map`): internalisation computes the size before the map, so the IR it produces verifies
/// (the result type names only variables in scope), and the program runs.
#[test]
fn sizes_computed_in_a_lambda_are_in_scope_of_its_result_type() {
    let src = "entry f [n] (xs: [n][3]f64) = \
               map (\\k -> flatten (map (\\r -> map (\\x -> x * f64.i64 k) r) xs)) (iota 2)";
    let p = Program::from_source_with("test.fut", src, &gradus::opt::OptOptions::off())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    gradus::core::verify::verify(p.core()).unwrap_or_else(|e| panic!("{e}"));
    let xs = Value::Array(Array::new(vec![1, 3], Buffer::F64(vec![1.0, 2.0, 3.0])).unwrap());
    let out = p.call("f", vec![xs]).unwrap();
    let Value::Array(a) = &out[0] else {
        panic!("not an array")
    };
    assert_eq!(a.shape(), &[2, 3]);
    assert_eq!(a.buffer(), &Buffer::F64(vec![0.0, 0.0, 0.0, 1.0, 2.0, 3.0]));
}

#[test]
fn the_default_float_policy_is_strict_unless_fast_math_is_asked_for() {
    // The pass file test `tests/ir/fold/fold_is_exact_under_strict_floats.ir` shows what the
    // strict policy keeps; this is where the default comes from.
    let opts = gradus::opt::OptOptions::default();
    assert_eq!(opts.strict_float, !gradus::opt::fast_math_from_env());
}
