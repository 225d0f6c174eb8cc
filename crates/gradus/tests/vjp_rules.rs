//! Reverse-mode rules, one small program each: every entry's `vjp` is checked against its
//! `jvp` (transposition identity) and against finite differences at random points, and a few
//! values are compared with LANGUAGE.md 10's examples.

use gradus::check::check_entry_vjp;
use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};
use gradus_check::SplitMix64;

fn f64s(v: &[f64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::F64(v.to_vec())))
}

fn f64v(n: usize, seed: u64) -> Value {
    let mut rng = SplitMix64::new(seed);
    f64s(&rng.vector(n, 0.5, 1.5))
}

fn s(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

fn i64s(v: &[i64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::I64(v.to_vec())))
}

fn mat(n: usize, m: usize, seed: u64) -> Value {
    let mut rng = SplitMix64::new(seed);
    Value::Array(Array::new(vec![n, m], Buffer::F64(rng.vector(n * m, 0.5, 1.5))).unwrap())
}

/// Checks `entry` of `src` at `args` with three random directions.
fn check(src: &str, entry: &str, args: &[Value]) {
    for seed in 1..=3 {
        let r = check_entry_vjp("t.fut", src, entry, args, seed)
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert!(r.passes(1e-6, 1e-2), "{r}");
    }
}

fn run(src: &str, entry: &str, args: Vec<Value>) -> Vec<Value> {
    let p = Program::from_source("t.fut", src).unwrap_or_else(|d| panic!("{}", d.render()));
    p.call(entry, args).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn scalar_operations() {
    let src = r#"
entry arith (x: f64) (y: f64) = x * y + x / y - y * y * 3 + f64.sqrt (x * y)
entry trans (x: f64) (y: f64) = f64.sin x * f64.exp y + f64.log (x + y) + f64.tanh (x - y) + f64.atan2 x y
entry minmax (x: f64) (y: f64) = f64.max x y * f64.min (x * 2) y + f64.abs (x - y)
entry pow (x: f64) (y: f64) = x ** y + x ** 3 + f64.hypot x y
entry several (x: f64) (y: f64) = (x * y, x + y, f64.cos y)
entry sel (x: f64) (y: f64) = if x < y then x * x else y * 3
"#;
    for e in ["arith", "trans", "minmax", "pow", "several", "sel"] {
        check(src, e, &[s(0.7), s(1.3)]);
    }
}

#[test]
fn language_examples() {
    let src = r#"
entry grad_dot [n] (w: [n]f64) (x: [n]f64) = vjp (\v -> f64.sum (map2 (*) w v)) x 1
def sq [n] (v: [n]f64) = map (\t -> t * t) v
entry jac_rev [n] (x: [n]f64) = mjp sq x (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j))))
entry pair (x: f64) (y: f64) = vjp (\(a, _) -> a + 2) (x, y) 1
entry ints (x: i32) (y: i32) = vjp (\x -> x * y) x 2
entry iota_count (n: i64) = vjp (\n -> i64.sum (iota n)) n 1
entry repl (x: f64) = vjp (\x -> replicate 3 x) x [1, 2, 4]
entry conv (x: f64) = vjp i32.f64 x 2
entry prod1 = vjp f64.product [0, 2, 0, 4] 1
entry prod2 = vjp f64.product [1, 0, 3] 1
entry minimum = vjp f64.minimum [1, 1] 1
entry both (x: f64) = vjp2 (\x -> x * x) x 1
"#;
    let w = f64s(&[1.0, 2.0, 3.0]);
    let out = run(src, "grad_dot", vec![w.clone(), f64s(&[4.0, 5.0, 6.0])]);
    assert_eq!(out[0], w);
    let out = run(src, "jac_rev", vec![f64s(&[1.0, 3.0])]);
    assert_eq!(
        out[0],
        Value::Array(Array::new(vec![2, 2], Buffer::F64(vec![2.0, 0.0, 0.0, 6.0])).unwrap())
    );
    let out = run(src, "pair", vec![s(3.0), s(4.0)]);
    assert_eq!(out, vec![s(1.0), s(0.0)]);
    let out = run(
        src,
        "ints",
        vec![Value::Scalar(Scalar::I32(5)), Value::Scalar(Scalar::I32(7))],
    );
    assert_eq!(out, vec![Value::Scalar(Scalar::I32(14))]);
    let out = run(src, "iota_count", vec![Value::Scalar(Scalar::I64(5))]);
    assert_eq!(out, vec![Value::Scalar(Scalar::I64(5))]);
    assert_eq!(run(src, "repl", vec![s(1.0)]), vec![s(7.0)]);
    assert_eq!(run(src, "conv", vec![s(1.5)]), vec![s(2.0)]);
    assert_eq!(run(src, "prod1", vec![]), vec![f64s(&[0.0, 0.0, 0.0, 0.0])]);
    assert_eq!(run(src, "prod2", vec![]), vec![f64s(&[0.0, 3.0, 0.0])]);
    assert_eq!(run(src, "minimum", vec![]), vec![f64s(&[1.0, 0.0])]);
    assert_eq!(run(src, "both", vec![s(3.0)]), vec![s(9.0), s(6.0)]);
}

#[test]
fn array_operations() {
    let src = r#"
entry index [n] (xs: [n]f64) = xs[1] * xs[2] + xs[1]
entry update [n] (xs: [n]f64) (y: f64) = let zs = copy xs with [1] = y * y in f64.sum (map (\z -> z * z) zs)
entry slices [n] (xs: [n]f64) = f64.sum (map2 (*) xs[0:2] xs[2:4]) + f64.sum (reverse xs)
entry structure [n] (xs: [n]f64) = concat (rotate 1 xs) (map (* 2) xs)
entry tr [n][m] (a: [n][m]f64) = transpose a
entry flat [n][m] (a: [n][m]f64) = map (\x -> x * x) (flatten a)
entry rep (x: f64) = replicate 4 (x * x)
entry lit (x: f64) (y: f64) = [x, y * x, 3]
entry ifs [n] (xs: [n]f64) (y: f64) = if y > 0 then map (* y) xs else xs
entry tuple (x: f64) (y: f64) = let (a, b) = (x * y, x - y) in (b, a)
"#;
    let xs = f64v(5, 1);
    check(src, "index", std::slice::from_ref(&xs));
    check(src, "update", &[xs.clone(), s(0.4)]);
    check(src, "slices", std::slice::from_ref(&xs));
    check(src, "structure", std::slice::from_ref(&xs));
    check(src, "tr", &[mat(3, 2, 3)]);
    check(src, "flat", &[mat(3, 2, 4)]);
    check(src, "rep", &[s(0.3)]);
    check(src, "lit", &[s(0.3), s(2.0)]);
    check(src, "ifs", &[xs.clone(), s(0.5)]);
    check(src, "ifs", &[xs.clone(), s(-0.5)]);
    check(src, "tuple", &[s(0.3), s(2.0)]);
}
