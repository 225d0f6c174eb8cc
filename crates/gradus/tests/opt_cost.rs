//! The optimiser makes forward-mode gradients (one `jvp` per one-hot seed, `n` of them) cost
//! linear work in `n` instead of quadratic, measured with the interpreter's operation
//! counter: the work at `10n` over the work at `n` is about 10 after optimisation and about
//! 100 before, for a dot product, a vector maximum and the rank-1 NNMF objective
//! (BENCHMARKS.md 6 and 7). The gradients' values agree with and without optimisation.

use gradus::opt::OptOptions;
use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

const PROGRAMS: &str = r#"
def onehot (n: i64) (i: i64) : [n]f64 = tabulate n (\j -> if j == i then 1 else 0)
def dot [n] (xs: [n]f64) (ys: [n]f64) = f64.sum (map2 (*) xs ys)

entry dot_grad [n] (x: [n]f64) (y: [n]f64) =
  tabulate n (\i -> jvp (\x -> dot x y) x (onehot n i))

entry max_grad [n] (x: [n]f64) (_y: [n]f64) =
  tabulate n (\i -> jvp (\x -> f64.maximum x) x (onehot n i))

-- Rank-1 NNMF: A = u vᵀ approximately; the gradient with respect to v, by jmp of one-hot
-- seeds. `m` rows of data stay fixed while `n` grows.
def nnmf [m][n] (a: [m][n]f64) (u: [m]f64) (v: [n]f64) =
  f64.sum (map2 (\ai ui -> f64.sum (map2 (\aij vj -> let x = ui * vj in f64.log x + aij / x) ai v)) a u)

entry nnmf_grad [n] (v: [n]f64) (y: [n]f64) =
  let a = [map (\t -> t + 0.5) y, map (\t -> t + 1.0) y, map (\t -> 2.0 - t) y]
  let u = [0.7, 1.1, 1.3]
  in jmp (\v -> nnmf a u v) v (tabulate n (\j -> onehot n j))
"#;

fn f64s(n: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::from_buffer(Buffer::F64(rng.vector(n, 0.5, 1.5))))
}

/// Work of `entry` at size `n`, and its result.
fn work(p: &Program, entry: &str, n: usize) -> (u64, Vec<Value>) {
    p.counter().reset();
    let out = p.call(entry, vec![f64s(n, 1), f64s(n, 2)]).unwrap();
    (p.counter().total(), out)
}

#[test]
fn forward_mode_gradients_grow_linearly_after_optimisation() {
    let opt =
        Program::from_source("cost.fut", PROGRAMS).unwrap_or_else(|d| panic!("{}", d.render()));
    let plain = Program::from_source_with("cost.fut", PROGRAMS, &OptOptions::off()).unwrap();
    let n = 12;
    for entry in ["dot_grad", "max_grad", "nnmf_grad"] {
        let (o1, r1) = work(&opt, entry, n);
        let (o10, r10) = work(&opt, entry, 10 * n);
        let (p1, s1) = work(&plain, entry, n);
        let (p10, s10) = work(&plain, entry, 10 * n);
        assert_eq!(r1, s1, "{entry}: results differ at n = {n}");
        assert_eq!(r10, s10, "{entry}: results differ at n = {}", 10 * n);
        // The optimised dot gradient is the input itself and costs nothing: compare the
        // growth of work plus the size of the result.
        let m = n as u64;
        let ro = (o10 + 10 * m) as f64 / (o1 + m) as f64;
        let rp = p10 as f64 / p1 as f64;
        println!(
            "{entry}: optimised {o1} -> {o10} (x{ro:.1}), unoptimised {p1} -> {p10} (x{rp:.1})"
        );
        assert!(
            ro < 13.0,
            "{entry}: optimised work grows by {ro:.1} from n to 10n"
        );
        assert!(rp > 60.0, "{entry}: unoptimised work grows only by {rp:.1}");
        assert!(
            o10 * 10 < p10,
            "{entry}: optimisation saves less than 10x at 10n"
        );
    }
}
