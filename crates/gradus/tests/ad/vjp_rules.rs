//! Reverse-mode rules, one small program each: every entry's `vjp` is checked against its
//! `jvp` (transposition identity) and against finite differences at random points, and a few
//! values are compared with docs/language.md §Differentiation's examples.

use gradus::derivative_check::check_vjp;
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
        let r =
            check_vjp("t.fut", src, entry, args, seed).unwrap_or_else(|e| panic!("{entry}: {e}"));
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

/// The `futhark` block of docs/language.md that contains `marker`.
fn reference_block(marker: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/language.md");
    let md = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    md.split("```futhark\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap_or_default())
        .find(|b| b.contains(marker))
        .unwrap_or_else(|| panic!("no block of {path} contains {marker:?}"))
        .to_string()
}

/// The values the examples of the language reference state.
#[test]
fn language_reference_values() {
    let grad = reference_block("entry grad (x: [3]f64)");
    assert_eq!(
        run(&grad, "grad", vec![f64s(&[1.0, 2.0, 0.0])]),
        vec![f64s(&[2.0, 1.0, 1.0])]
    );
    let sqrt = reference_block("entry d_sqrt");
    assert_eq!(run(&sqrt, "d_sqrt", vec![s(4.0)]), vec![s(0.25)]);
    let poly = reference_block("module poly64");
    assert_eq!(run(&poly, "p", vec![s(2.0)]), vec![s(17.0)]);
    let logreg = reference_block("entry hvp [m] [n]");
    let xss = Value::Array(Array::new(vec![2, 2], Buffer::F64(vec![1.0, 0.0, 0.0, 1.0])).unwrap());
    let args = vec![xss, f64s(&[1.0, 0.0]), f64s(&[0.0, 0.0])];
    let loss = run(&logreg, "loss_at", args.clone());
    assert_eq!(loss, vec![s(std::f64::consts::LN_2)]);
    for entry in ["grad_rev", "grad_fwd"] {
        assert_eq!(
            run(&logreg, entry, args.clone()),
            vec![f64s(&[-0.25, 0.25])],
            "{entry}"
        );
    }
    let mut hvp_args = args;
    hvp_args.push(f64s(&[1.0, 0.0]));
    assert_eq!(run(&logreg, "hvp", hvp_args), vec![f64s(&[0.125, 0.0])]);
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

#[test]
fn maps() {
    let src = r#"
entry sq [n] (xs: [n]f64) = map (\x -> x * x + f64.sin x) xs
entry free_scalar [n] (xs: [n]f64) (y: f64) = map (\x -> x * y + y * y) xs
entry free_array [n] (xs: [n]f64) (is: [n]i64) = map (\i -> xs[i] * xs[(i + 1) % n]) is
entry nested [n][m] (a: [n][m]f64) (v: [m]f64) = map (\row -> f64.sum (map2 (*) row v)) a
entry matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) = map (\row -> map (\col -> f64.sum (map2 (*) row col)) (transpose b)) a
entry gather [n] (xs: [n]f64) (is: [n]i64) = map (\i -> map (\j -> xs[(i + j) % n]) (iota 3)) is
entry twoout [n] (xs: [n]f64) (ys: [n]f64) = unzip (map2 (\x y -> (x * y, x - y)) xs ys)
"#;
    let xs = f64v(4, 1);
    let is = i64s(&[2, 0, 3, 2]);
    check(src, "sq", std::slice::from_ref(&xs));
    check(src, "free_scalar", &[xs.clone(), s(0.3)]);
    check(src, "free_array", &[xs.clone(), is.clone()]);
    check(src, "nested", &[mat(3, 4, 2), f64v(4, 3)]);
    check(src, "matmul", &[mat(3, 4, 2), mat(4, 2, 5)]);
    check(src, "gather", &[xs.clone(), is.clone()]);
    check(src, "twoout", &[xs.clone(), f64v(4, 9)]);
}

#[test]
fn reductions_and_scans() {
    let src = r#"
entry sum [n] (xs: [n]f64) = f64.sum (map (\x -> x * x) xs)
entry prod [n] (xs: [n]f64) = f64.product xs
entry mini [n] (xs: [n]f64) = f64.minimum xs + f64.maximum (map (* 2) xs)
entry general [n] (xs: [n]f64) = reduce (\a b -> a * b + a + b) 0 xs
entry pairs [n] (xs: [n]f64) (ys: [n]f64) = reduce (\(a, b) (c, d) -> (a * c - b * d, a * d + b * c)) (1, 0) (zip xs ys)
entry vectors [n][m] (a: [n][m]f64) = reduce (map2 (+)) (replicate m 0) (map (map (\x -> x * x)) a)
entry prefix [n] (xs: [n]f64) = scan (+) 0 (map (\x -> x * x) xs)
entry prefix_prod [n] (xs: [n]f64) = scan (*) 1 xs
entry prefix_max [n] (xs: [n]f64) = scan f64.max (-f64.inf) xs
"#;
    let xs = f64v(5, 1);
    for e in [
        "sum",
        "prod",
        "mini",
        "general",
        "prefix",
        "prefix_prod",
        "prefix_max",
    ] {
        check(src, e, std::slice::from_ref(&xs));
    }
    check(src, "pairs", &[xs.clone(), f64v(5, 2)]);
    check(src, "vectors", &[mat(4, 3, 7)]);
    let zs = f64s(&[0.5, 0.0, 2.0, 3.0]);
    check(src, "prod", std::slice::from_ref(&zs));
}

#[test]
fn histograms_and_scatter() {
    let src = r#"
entry hadd [n] (xs: [n]f64) (is: [n]i64) = hist (+) 0 3 is (map (\x -> x * x) xs)
entry rbi [n] (d: [3]f64) (xs: [n]f64) (is: [n]i64) = reduce_by_index (copy d) (+) 0 is xs
entry hmul [n] (d: [3]f64) (xs: [n]f64) (is: [n]i64) = reduce_by_index (copy d) (*) 1 is xs
entry hmin [n] (d: [3]f64) (xs: [n]f64) (is: [n]i64) = reduce_by_index (copy d) f64.min f64.inf is xs
entry hmax [n] (d: [3]f64) (xs: [n]f64) (is: [n]i64) = reduce_by_index (copy d) f64.max (-f64.inf) is xs
entry sc [n] (d: [3]f64) (xs: [n]f64) (is: [n]i64) = scatter (copy d) is (map (* 2) xs)
"#;
    let xs = f64v(6, 1);
    let is = i64s(&[0, 2, 5, 2, -1, 0]);
    check(src, "hadd", &[xs.clone(), is.clone()]);
    for e in ["rbi", "hmul", "hmin", "hmax", "sc"] {
        check(src, e, &[f64v(3, 4), xs.clone(), is.clone()]);
    }
}

#[test]
fn loops() {
    let src = r#"
entry power (x: f64) = loop y = 1 for i < 5 do y * x + f64.f64 (f64.i64 i)
entry pairloop (x: f64) (z: f64) = loop (a, b) = (x, z) for i < 4 do (a * b + 1, f64.sin a)
entry arrays [n] (xs: [n]f64) = loop ys = xs for i < 3 do map (\y -> y * y * 0.5 + xs[i % n]) ys
entry inplace [n] (xs: [n]f64) = loop ys = copy xs for i < n - 1 do ys with [i + 1] = ys[i] * ys[i + 1]
entry nested (x: f64) = loop y = x for i < 3 do (loop z = y for j < 2 do z * y + 0.1)
entry withif [n] (xs: [n]f64) = loop s = 0 for i < n do if xs[i] > 1 then s + xs[i] * xs[i] else s * 0.5 + xs[i]
"#;
    check(src, "power", &[s(0.7)]);
    check(src, "pairloop", &[s(0.7), s(0.2)]);
    check(src, "arrays", &[f64v(4, 1)]);
    check(src, "inplace", &[f64v(4, 2)]);
    check(src, "nested", &[s(0.6)]);
    check(src, "withif", &[f64v(6, 3)]);
}

/// Checks the forward derivative of `entry` (which may contain `vjp`) against finite
/// differences.
fn check_fwd(src: &str, entry: &str, args: &[Value]) {
    let r = gradus::derivative_check::check_jvp("t.fut", src, entry, args, 7)
        .unwrap_or_else(|e| panic!("{entry}: {e}"));
    assert!(r.passes(1e-5, 1e-2), "{r}");
}

#[test]
fn nesting_with_jvp() {
    let src = r#"
def f [n] (x: [n]f64) = f64.sum (map (\i -> x[i] * x[(i + 1) % n] * f64.sin x[i]) (iota n))
entry grad [n] (x: [n]f64) = vjp f x 1
entry hvp [n] (x: [n]f64) (v: [n]f64) = jvp (\x -> vjp f x 1) x v
entry rev_of_fwd [n] (x: [n]f64) (v: [n]f64) = vjp (\x -> jvp f x v) x 1
entry fwd [n] (x: [n]f64) (v: [n]f64) = jvp f x v
def g (x: f64) (y: f64) = x * x * y + f64.exp (x * y)
entry second (x: f64) (y: f64) = vjp (\(x, y) -> vjp (\(a, b) -> g a b) (x, y) 1) (x, y) (1, 0)
entry loopgrad (x: f64) = vjp (\x -> loop y = x for i < 4 do y * f64.sin y + x) x 1
entry hess [n] (x: [n]f64) = map (\e -> jvp (\x -> vjp f x 1) x e) (map (\i -> map (\j -> f64.bool (i == j)) (iota n)) (iota n))
"#;
    let x = f64v(4, 1);
    let v = f64v(4, 2);
    // The gradient's forward derivative is the Hessian-vector product.
    check_fwd(src, "grad", std::slice::from_ref(&x));
    check_fwd(src, "loopgrad", &[s(0.4)]);
    // vjp of (x -> jvp f x v) is H v as well (H symmetric).
    let a = run(src, "hvp", vec![x.clone(), v.clone()]);
    let b = run(src, "rev_of_fwd", vec![x.clone(), v.clone()]);
    let (Value::Array(a), Value::Array(b)) = (&a[0], &b[0]) else {
        panic!()
    };
    let (Buffer::F64(a), Buffer::F64(b)) = (a.buffer(), b.buffer()) else {
        panic!()
    };
    for (p, q) in a.iter().zip(b) {
        assert!((p - q).abs() < 1e-9 * p.abs().max(1.0), "{a:?} vs {b:?}");
    }
    check(src, "fwd", &[x.clone(), v.clone()]);
    // Full Hessian: symmetric, and its rows are Hessian-vector products.
    let h = run(src, "hess", vec![x.clone()]);
    let Value::Array(h) = &h[0] else { panic!() };
    let Buffer::F64(h) = h.buffer() else { panic!() };
    for i in 0..4 {
        for j in 0..4 {
            assert!((h[i * 4 + j] - h[j * 4 + i]).abs() < 1e-9);
        }
    }
    let out = run(src, "second", vec![s(0.5), s(0.3)]);
    // d²g/dx² = 2y + y² e^(xy); d²g/dydx = 2x + e^(xy) + xy e^(xy)
    let e = (0.15f64).exp();
    let want = [2.0 * 0.3 + 0.09 * e, 2.0 * 0.5 + e + 0.15 * e];
    for (o, w) in out.iter().zip(want) {
        let Value::Scalar(Scalar::F64(o)) = o else {
            panic!()
        };
        assert!((o - w).abs() < 1e-12, "{o} vs {w}");
    }
}

#[test]
fn while_and_stripmined_loops() {
    let src = r#"
entry wh (x: f64) = (loop (y, k) = (x, 0) while y < 10 do (y * 1.5 + f64.sin y, k + 1)).0
def step (y: f64) (c: f64) = y * c + f64.sin y
entry plain (x: f64) (c: f64) (n: i64) = loop y = x for _i < n do step y c
entry sm2 (x: f64) (c: f64) (n: i64) = #[stripmine(2)] loop y = x for _i < n do step y c
entry sm3 (x: f64) (c: f64) (n: i64) = #[stripmine(3)] loop y = x for i < n do step y (c + f64.i64 i * 0.01)
"#;
    check(src, "wh", &[s(0.7)]);
    for n in [0, 1, 7, 16, 30] {
        let args = [s(0.5), s(0.9), Value::Scalar(Scalar::I64(n))];
        check(src, "sm2", &args);
        check(src, "sm3", &args);
    }
}

#[test]
fn in_place_loops_do_not_copy_per_iteration() {
    let src = r#"
def recur [n] (xs: [n]f64) = loop ys = copy xs for i < n - 1 do ys with [i + 1] = ys[i] * 0.9 + ys[i + 1] * f64.sin ys[i]
entry primal [n] (xs: [n]f64) = recur xs
entry grad [n] (xs: [n]f64) = vjp (\xs -> f64.sum (recur xs)) xs 1
entry value [n] (xs: [n]f64) = f64.sum (recur xs)
def two [n] (xs: [n]f64) (c: f64) = loop (ys, s) = (copy xs, c) for i < n do let ys' = ys with [i] = ys[i] * s in let ys'' = ys' with [(i + 1) % n] = ys'[i] + 1 in (ys'', s + ys''[i])
entry twice [n] (xs: [n]f64) (c: f64) = two xs c
"#;
    check(src, "value", &[f64v(6, 1)]);
    check(src, "twice", &[f64v(5, 2), s(0.3)]);
    // The gradient's work is a constant times the primal's: the array is not copied (or
    // checkpointed whole) per iteration.
    let p = Program::from_source("t.fut", src).unwrap();
    for n in [100, 1000] {
        p.counter().reset();
        p.call("primal", vec![f64v(n, 3)]).unwrap();
        let primal = p.counter().total() as f64;
        p.counter().reset();
        p.call("grad", vec![f64v(n, 3)]).unwrap();
        let ratio = p.counter().total() as f64 / primal;
        println!("n = {n}: in-place loop gradient/primal work = {ratio:.2}");
        assert!(ratio < 8.0, "n = {n}: ratio {ratio}");
    }
}

#[test]
fn tuple_scans() {
    let src = r#"
def compose (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a2 * a1, a2 * b1 + b2)
entry affine [n] (a: [n]f64) (b: [n]f64) = unzip (scan compose (1, 0) (zip a b))
def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)
entry complex [n] (re: [n]f64) (im: [n]f64) = unzip (scan cmul (1, 0) (zip re im))
entry ints [n] (xs: [n]i64) = vjp (\xs -> i64.sum (scan (*) 1 xs)) xs 1
"#;
    check(src, "affine", &[f64v(5, 1), f64v(5, 2)]);
    check(src, "complex", &[f64v(4, 3), f64v(4, 4)]);
    // Integer scans are exact, also with zeros: d/dx_i Σ_j ∏_{k≤j} x_k.
    let out = run(src, "ints", vec![i64s(&[2, 0, 3, 5])]);
    assert_eq!(out, vec![i64s(&[1, 2 + 6 + 30, 0, 0])]);
}
