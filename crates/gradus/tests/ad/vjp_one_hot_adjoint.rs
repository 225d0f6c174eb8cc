//! The cost of the adjoint of `minimum` over a map, with the interpreter's operation counter.
//! The adjoint is one-hot (non-zero where the minimum was found), so adding it into the
//! adjoint of the mapped array touches one row: the k-means Newton direction (gradient and
//! Hessian diagonal, forward over reverse) must cost a small multiple of the cost function,
//! not one reverse sweep over every centroid for every point.

use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

const PROGRAM: &str = r#"
def cost [n][k][d] (points: [n][d]f64) (centroids: [k][d]f64) : f64 =
  let dist p c = f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)
  in f64.sum (map (\p -> f64.minimum (map (dist p) centroids)) points)

entry primal [n][k][d] (points: [n][d]f64) (centroids: [k][d]f64) = cost points centroids

entry grad [n][k][d] (points: [n][d]f64) (centroids: [k][d]f64) = vjp (cost points) centroids 1

entry dir [n][k][d] (points: [n][d]f64) (centroids: [k][d]f64) : [k][d]f64 =
  let (j, h) = jvp2 (\c -> vjp (cost points) c 1) centroids (replicate k (replicate d 1))
  in map2 (map2 (/)) j h
"#;

fn matrix(rows: usize, cols: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let data = rng.vector(rows * cols, -1.0, 1.0);
    Value::Array(Array::new(vec![rows, cols], Buffer::F64(data)).unwrap())
}

#[test]
fn the_adjoint_of_a_minimum_adds_one_row() {
    let p =
        Program::from_source("kmeans.fut", PROGRAM).unwrap_or_else(|d| panic!("{}", d.render()));
    let args = vec![matrix(200, 4, 1), matrix(30, 4, 2)];
    p.counter().reset();
    p.call("primal", args.clone()).unwrap();
    let primal = p.counter().total() as f64;
    for (entry, bound) in [("grad", 3.2), ("dir", 2.5)] {
        p.counter().reset();
        p.call(entry, args.clone()).unwrap();
        let ratio = p.counter().total() as f64 / primal;
        println!("{entry}/primal work = {ratio:.2}");
        // About 2.8 and 1.5; adding the whole one-hot adjoint made `dir` 4.9.
        assert!(ratio < bound, "{entry} costs {ratio:.2}× the primal");
    }
}

#[test]
fn the_one_row_adjoint_is_the_interpreters() {
    // Against the unoptimised program on the interpreter.
    let opt = Program::from_source("kmeans.fut", PROGRAM).unwrap();
    let plain =
        Program::from_source_with("kmeans.fut", PROGRAM, &gradus::opt::OptOptions::off()).unwrap();
    let args = vec![matrix(50, 3, 3), matrix(7, 3, 4)];
    for entry in ["grad", "dir"] {
        let a = opt.call(entry, args.clone()).unwrap();
        let b = plain.call(entry, args.clone()).unwrap();
        let (Value::Array(a), Value::Array(b)) = (&a[0], &b[0]) else {
            panic!("{entry}: not arrays");
        };
        for i in 0..b.len() {
            let (x, y) = (a.buffer().get(i).to_f64(), b.buffer().get(i).to_f64());
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                "{entry} [{i}]: {x} vs {y}"
            );
        }
    }
}
