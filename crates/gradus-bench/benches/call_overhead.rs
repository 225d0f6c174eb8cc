//! The cost of one call of a compiled entry point from Rust, beyond the work it does
//! (benchmarks/README.md §Per call): entry points of a few operations on scalars and short
//! arrays, called through [`Program::call_with`] (results borrowed where the generated code
//! left them) and [`Program::call`] (results copied into owned values), on the `c` backend
//! and on `multicore`.
//!
//! Run: `cargo bench -p gradus-bench --bench call_overhead`.

use criterion::{Criterion, criterion_group, criterion_main};
use gradus::Program;
use gradus::backend::c::NativeOptions;
use gradus::program::Backend;
use gradus::value::{Array, Buffer, Scalar, Value, ValueRef};
use std::hint::black_box;

const SOURCE: &str = "
entry square (x: f64) : f64 = x * x
entry dot3 (a: [3]f64) (b: [3]f64) : f64 = f64.sum (map2 (*) a b)
entry axpy [n] (s: f64) (x: [n]f64) (y: [n]f64) : [n]f64 = map2 (\\xi yi -> s * xi + yi) x y
";

fn vector(v: Vec<f64>) -> Value {
    let n = v.len();
    Value::Array(Array::new(vec![n], Buffer::F64(v)).expect("shape"))
}

fn calls(c: &mut Criterion) {
    let scalar = vec![Value::Scalar(Scalar::F64(1.5))];
    let dot = vec![vector(vec![1.0, 2.0, 3.0]), vector(vec![0.5, -1.0, 2.0])];
    let axpy = vec![
        Value::Scalar(Scalar::F64(0.5)),
        vector((0..16).map(f64::from).collect()),
        vector((0..16).map(|i| f64::from(i) * 0.25).collect()),
    ];
    let cases = [("square", &scalar), ("dot3", &dot), ("axpy16", &axpy)];
    for (backend, opts) in [
        ("c", NativeOptions::sequential()),
        ("multicore", NativeOptions::default()),
    ] {
        let program = Program::from_source("calls.fut", SOURCE)
            .expect("the program compiles")
            .with_backend(Backend::Native(opts))
            .expect("the backend builds it");
        for (name, args) in cases {
            let entry = if name == "axpy16" { "axpy" } else { name };
            let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
            c.bench_function(&format!("call/{backend}/{name}/call_with"), |b| {
                b.iter(|| {
                    program
                        .call_with(entry, black_box(&refs), |r| r.len())
                        .expect("the call succeeds")
                })
            });
            c.bench_function(&format!("call/{backend}/{name}/call"), |b| {
                b.iter(|| {
                    program
                        .call(entry, black_box(args.clone()))
                        .expect("the call succeeds")
                })
            });
        }
    }
}

criterion_group!(benches, calls);
criterion_main!(benches);
