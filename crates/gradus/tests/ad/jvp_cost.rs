//! The cost of forward-mode derivatives, measured with the interpreter's operation counter:
//! `jvp` of a function must cost a small constant times the function itself.

use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};

fn f64s(n: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::from_buffer(Buffer::F64(rng.vector(n, 0.5, 1.5))))
}

/// Work of `primal` and of `deriv` on the same arguments.
fn ratio(src: &str, primal: &str, deriv: &str, args: Vec<Value>, seeds: Vec<Value>) -> f64 {
    let p = Program::from_source("cost.fut", src).unwrap_or_else(|d| panic!("{}", d.render()));
    p.counter().reset();
    p.call(primal, args.clone()).unwrap();
    let args = args.into_iter().chain(seeds).collect();
    let base = p.counter().total() as f64;
    p.counter().reset();
    p.call(deriv, args).unwrap();
    let d = p.counter().total() as f64;
    d / base
}

const PROGRAMS: &str = r#"
def sincos [n] (xs: [n]f64) = map (\x -> f64.sin x * f64.cos x) xs
entry sincos_primal [n] (xs: [n]f64) = sincos xs
entry sincos_jvp [n] (xs: [n]f64) (dxs: [n]f64) = jvp sincos xs dxs

def dot [n] (xs: [n]f64) (ys: [n]f64) = f64.sum (map2 (*) xs ys)
entry dot_primal [n] (xs: [n]f64) (ys: [n]f64) = dot xs ys
entry dot_jvp [n] (xs: [n]f64) (ys: [n]f64) (dxs: [n]f64) = jvp (\v -> dot v ys) xs dxs

def steps (x: f64) = loop y = x for i < 1000 do y * 0.999 + f64.sin (f64.i64 i) * 0.001
entry loop_primal [n] (xs: [n]f64) = steps xs[0]
entry loop_jvp [n] (xs: [n]f64) (dx: f64) = jvp steps xs[0] dx

def prefix_products [n] (xs: [n]f64) = scan (*) 1 xs
entry scan_primal [n] (xs: [n]f64) = prefix_products xs
entry scan_jvp [n] (xs: [n]f64) (dxs: [n]f64) = jvp prefix_products xs dxs
"#;

/// The bound the cost of a jvp (value and tangent together) must stay under, as a multiple
/// of the primal's work.
const BOUND: f64 = 3.0;

#[test]
fn jvp_costs_a_constant_factor_of_the_primal() {
    for n in [100usize, 1000] {
        let one = Value::Scalar(Scalar::F64(1.0));
        let cases = [
            ("sincos", vec![f64s(n, 1)], vec![f64s(n, 6)]),
            ("dot", vec![f64s(n, 2), f64s(n, 3)], vec![f64s(n, 7)]),
            ("loop", vec![f64s(n, 4)], vec![one.clone()]),
            ("scan", vec![f64s(n, 5)], vec![f64s(n, 8)]),
        ];
        for (name, args, seeds) in cases {
            let r = ratio(
                PROGRAMS,
                &format!("{name}_primal"),
                &format!("{name}_jvp"),
                args,
                seeds,
            );
            println!("n = {n}: jvp/primal work for {name} = {r:.2}");
            assert!(
                r <= BOUND,
                "{name} at n = {n}: jvp costs {r:.2}× the primal"
            );
        }
    }
}

#[test]
fn counter_sees_every_call() {
    let p = Program::from_source("c.fut", "entry f (x: f64) = x * x + 1").unwrap();
    p.call("f", vec![Value::Scalar(Scalar::F64(2.0))]).unwrap();
    assert!(p.counter().prim_ops() >= 2);
}
