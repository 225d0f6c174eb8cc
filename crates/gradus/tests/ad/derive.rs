//! Derivatives on demand (`Program::derive`): each kind against the hand-written derived
//! entry point and against central finite differences, at random points, on the interpreter
//! and (where a C compiler is installed) natively; the errors; the cache.

use gradus::value::{Scalar, Value};
use gradus::{Backend, Derivative, NativeOptions, Program};
use std::sync::Arc;

const SOURCE: &str = r#"
entry objective [n] (w: [n]f64) (x: [n]f64) (s: f64) (k: i64) : f64 =
  f64.sum (map2 (\a b -> f64.sin (a * b) * s + a * a * b) w x) + s * s * f64.i64 k

entry objective_grad [n] (w: [n]f64) (x: [n]f64) (s: f64) (k: i64) : ([n]f64, [n]f64, f64) =
  vjp (\(w, x, s) -> objective w x s k) (w, x, s) 1

entry objective_grad_s [n] (w: [n]f64) (x: [n]f64) (s: f64) (k: i64) : f64 =
  vjp (\s -> objective w x s k) s 1

entry pair [n] (w: [n]f64) (s: f64) : ([n]f64, f64) =
  (map (\a -> a * a * s) w, f64.sum (map f64.cos w) * s)

entry pair_vjp [n] (w: [n]f64) (s: f64) (yb0: [n]f64) (yb1: f64) : ([n]f64, f64) =
  vjp (\(w, s) -> pair w s) (w, s) (yb0, yb1)

entry expv (w: []f64) (c: f64) : []f64 = map (\a -> f64.exp (a * c)) w
"#;

/// A small deterministic generator of numbers in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
    fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }
}

fn f64s(v: &[f64]) -> Value {
    Value::from_ndarray(gradus::ndarray::Array1::from(v.to_vec()))
}

fn scalar(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

/// The leaves of a float value, flattened.
fn leaves(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(s) => vec![s.to_f64()],
        _ => v
            .to_ndarray::<f64>()
            .expect("a float array")
            .iter()
            .copied()
            .collect(),
    }
}

fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

/// Central finite differences of `f` (flattened results) in the direction `dir` of the
/// arguments' float leaves; `dir` is given per argument (None: not perturbed).
fn fd(f: impl Fn(&[Value]) -> Vec<f64>, args: &[Value], dir: &[Option<Vec<f64>>]) -> Vec<f64> {
    let h = 1e-6;
    let shifted = |sign: f64| -> Vec<Value> {
        args.iter()
            .zip(dir)
            .map(|(a, d)| match (a, d) {
                (Value::Scalar(Scalar::F64(x)), Some(d)) => scalar(x + sign * h * d[0]),
                (_, Some(d)) => {
                    let x: Vec<f64> = leaves(a)
                        .iter()
                        .zip(d)
                        .map(|(x, d)| x + sign * h * d)
                        .collect();
                    f64s(&x)
                }
                (_, None) => a.clone(),
            })
            .collect()
    };
    let (p, m) = (f(&shifted(1.0)), f(&shifted(-1.0)));
    p.iter().zip(&m).map(|(p, m)| (p - m) / (2.0 * h)).collect()
}

fn programs() -> Vec<Program> {
    let mut out = vec![Program::from_source("derive.fut", SOURCE).expect("compiles")];
    if gradus::backend::c::build::find_compiler().is_some() {
        let native = Program::from_source("derive.fut", SOURCE)
            .expect("compiles")
            .with_backend(Backend::Native(NativeOptions::default()))
            .expect("native");
        out.push(native);
    }
    out
}

fn point(rng: &mut Rng, n: usize) -> Vec<Value> {
    vec![
        f64s(&rng.vec(n)),
        f64s(&rng.vec(n)),
        scalar(rng.next()),
        Value::Scalar(Scalar::I64(3)),
    ]
}

fn flat(vs: &[Value]) -> Vec<f64> {
    vs.iter().flat_map(leaves).collect()
}

#[test]
fn grad_matches_the_hand_written_gradient_and_finite_differences() {
    let mut rng = Rng(7);
    for prog in programs() {
        let grad = prog.derive(Derivative::Grad, "objective", None).unwrap();
        assert_eq!(grad.wrt(), &[0, 1, 2]);
        let one = prog.grad("objective", Some(&[2])).unwrap();
        for n in [1, 4, 9] {
            let args = point(&mut rng, n);
            let got = grad.call(args.clone()).unwrap();
            let hand = prog.call("objective_grad", args.clone()).unwrap();
            close(&flat(&got), &flat(&hand), 1e-12);
            let got_s = one.call(args.clone()).unwrap();
            let hand_s = prog.call("objective_grad_s", args.clone()).unwrap();
            close(&flat(&got_s), &flat(&hand_s), 1e-12);
            // Finite differences along a random direction: <grad, dir>.
            let dir = vec![
                Some(rng.vec(n)),
                Some(rng.vec(n)),
                Some(vec![rng.next()]),
                None,
            ];
            let f = |a: &[Value]| flat(&prog.call("objective", a.to_vec()).unwrap());
            let slope = fd(f, &args, &dir);
            let d: Vec<f64> = dir.iter().flatten().flatten().copied().collect();
            let dot: f64 = flat(&got).iter().zip(&d).map(|(g, d)| g * d).sum();
            close(&[dot], &slope, 1e-6);
        }
    }
}

#[test]
fn vjp_and_jvp_match_the_hand_written_vjp_and_finite_differences() {
    let mut rng = Rng(11);
    for prog in programs() {
        let vjp = prog.derive(Derivative::Vjp, "pair", None).unwrap();
        let jvp = prog.derive(Derivative::Jvp, "pair", None).unwrap();
        assert_eq!((vjp.primal_results(), jvp.primal_results()), (2, 2));
        for n in [1, 5] {
            let args = vec![f64s(&rng.vec(n)), scalar(rng.next())];
            let seeds = vec![f64s(&rng.vec(n)), scalar(rng.next())];
            let all: Vec<Value> = args.iter().chain(&seeds).cloned().collect();
            let got = vjp.call(all.clone()).unwrap();
            let primal = prog.call("pair", args.clone()).unwrap();
            close(&flat(&got[..2]), &flat(&primal), 1e-14);
            let hand = prog.call("pair_vjp", all).unwrap();
            close(&flat(&got[2..]), &flat(&hand), 1e-12);
            let dir = vec![Some(rng.vec(n)), Some(vec![rng.next()])];
            let tangents = vec![
                f64s(dir[0].as_ref().unwrap()),
                scalar(dir[1].as_ref().unwrap()[0]),
            ];
            let all: Vec<Value> = args.iter().chain(&tangents).cloned().collect();
            let got = jvp.call(all).unwrap();
            close(&flat(&got[..2]), &flat(&primal), 1e-14);
            let f = |a: &[Value]| flat(&prog.call("pair", a.to_vec()).unwrap());
            close(&flat(&got[2..]), &fd(f, &args, &dir), 1e-6);
        }
    }
}

#[test]
fn jacobian_and_hessian_match_finite_differences() {
    let mut rng = Rng(13);
    for prog in programs() {
        let jac = prog.derive(Derivative::Jacobian, "expv", None).unwrap();
        let n = 4;
        let args = vec![f64s(&rng.vec(n)), scalar(rng.next())];
        let got = jac.call(args.clone()).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].shape(), &[n, n]);
        assert_eq!(got[1].shape(), &[n] as &[usize]);
        let f = |a: &[Value]| flat(&prog.call("expv", a.to_vec()).unwrap());
        let rows = leaves(&got[0]);
        for j in 0..n {
            let mut d = vec![0.0; n];
            d[j] = 1.0;
            let column = fd(f, &args, &[Some(d), None]);
            let want: Vec<f64> = (0..n).map(|i| rows[i * n + j]).collect();
            close(&want, &column, 1e-6);
        }
        close(
            &leaves(&got[1]),
            &fd(f, &args, &[None, Some(vec![1.0])]),
            1e-6,
        );

        let hess = prog
            .derive(Derivative::Hessian, "objective", Some(&[0]))
            .unwrap();
        let grad = prog.grad("objective", Some(&[0])).unwrap();
        let args = point(&mut rng, n);
        let h = leaves(&hess.call(args.clone()).unwrap()[0]);
        let g = |a: &[Value]| flat(&grad.call(a.to_vec()).unwrap());
        for j in 0..n {
            let mut d = vec![0.0; n];
            d[j] = 1.0;
            let column = fd(g, &args, &[Some(d), None, None, None]);
            let want: Vec<f64> = (0..n).map(|i| h[i * n + j]).collect();
            close(&want, &column, 1e-6);
        }
        let hs = prog
            .derive(Derivative::Hessian, "objective", Some(&[2]))
            .unwrap();
        let gs = prog.grad("objective", Some(&[2])).unwrap();
        let gs = |a: &[Value]| flat(&gs.call(a.to_vec()).unwrap());
        let want = fd(gs, &args, &[None, None, Some(vec![1.0]), None]);
        close(&flat(&hs.call(args).unwrap()), &want, 1e-6);
    }
}

#[test]
fn derived_programs_are_cached() {
    let prog = Program::from_source("derive.fut", SOURCE).unwrap();
    let a = prog.grad("objective", None).unwrap();
    let b = prog.grad("objective", Some(&[2, 0, 1, 0])).unwrap();
    assert!(Arc::ptr_eq(a.program(), b.program()));
    let c = prog.grad("objective", Some(&[0])).unwrap();
    assert!(!Arc::ptr_eq(a.program(), c.program()));
    // Only the derived entry point is in the derived program.
    let names: Vec<String> = a
        .program()
        .entry_points()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, vec![a.entry().to_string()]);
}

#[test]
fn bad_requests_are_clear_errors() {
    let prog = Program::from_source("derive.fut", SOURCE).unwrap();
    let err = |kind, entry: &str, wrt: Option<&[usize]>| {
        prog.derive(kind, entry, wrt)
            .err()
            .expect("an error")
            .to_string()
    };
    assert!(err(Derivative::Grad, "nope", None).contains("no entry point named `nope`"));
    assert!(err(Derivative::Grad, "objective", Some(&[7])).contains("no position 7"));
    assert!(
        err(Derivative::Grad, "objective", Some(&[3]))
            .contains("parameter 3 of `objective` has type i64")
    );
    assert!(err(Derivative::Grad, "pair", None).contains("needs one f32 or f64 scalar result"));
    assert!(
        err(Derivative::Hessian, "objective", None).contains("takes one parameter position, not 3")
    );
    assert!(err(Derivative::Jacobian, "pair", None).contains("needs one f32 or f64 result"));
    assert!(
        err(Derivative::Grad, "objective", Some(&[])).contains("no parameter to differentiate")
    );
}
