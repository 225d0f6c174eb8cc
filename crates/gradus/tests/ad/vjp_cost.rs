//! The cost of reverse-mode derivatives, measured with the interpreter's operation counter:
//! the gradient (value and adjoint together) must cost a small constant times the function
//! itself, at size `n` and `10n` alike (so the constant does not grow with the size).

use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

fn f64s(n: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::from_buffer(Buffer::F64(rng.vector(n, 0.5, 1.5))))
}

fn mat(n: usize, m: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::new(vec![n, m], Buffer::F64(rng.vector(n * m, 0.5, 1.5))).unwrap())
}

fn indices(n: usize, bins: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let is = (0..n)
        .map(|_| (rng.next_u64() % (bins as u64 + 2)) as i64 - 1)
        .collect();
    Value::Array(Array::from_buffer(Buffer::I64(is)))
}

/// Work of `{name}_primal` and of `{name}_grad` on the same arguments.
fn ratio(p: &Program, name: &str, args: Vec<Value>) -> f64 {
    p.counter().reset();
    p.call(&format!("{name}_primal"), args.clone()).unwrap();
    let base = p.counter().total() as f64;
    p.counter().reset();
    p.call(&format!("{name}_grad"), args)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    p.counter().total() as f64 / base
}

const PROGRAMS: &str = r#"
def dot [n] (xs: [n]f64) (ys: [n]f64) = f64.sum (map2 (*) xs ys)
entry dot_primal [n] (xs: [n]f64) (ys: [n]f64) = dot xs ys
entry dot_grad [n] (xs: [n]f64) (ys: [n]f64) = vjp2 (\(a, b) -> dot a b) (xs, ys) 1

def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) =
  map (\row -> map (\col -> f64.sum (map2 (*) row col)) (transpose b)) a
entry matmul_primal [n][m][p] (a: [n][m]f64) (b: [m][p]f64) = matmul a b
entry matmul_grad [n][m][p] (a: [n][m]f64) (b: [m][p]f64) =
  vjp2 (\(a, b) -> matmul a b) (a, b) (replicate n (replicate p 1))

def steps (x: f64) (c: f64) = loop y = x for i < 1000 do y * c + f64.sin (y + f64.i64 i) * 0.001
entry loop_primal [n] (xs: [n]f64) = steps xs[0] xs[1]
entry loop_grad [n] (xs: [n]f64) = vjp2 (\xs -> steps xs[0] xs[1]) xs 1

entry scan_primal [n] (xs: [n]f64) = scan (*) 1 xs
entry scan_grad [n] (xs: [n]f64) = vjp2 (scan (*) 1) xs (replicate n 1)

entry min_primal [n] (xs: [n]f64) = f64.minimum xs
entry min_grad [n] (xs: [n]f64) = vjp2 f64.minimum xs 1

def histo [n] (xs: [n]f64) (is: [n]i64) = hist (+) 0 10 is (map (\x -> x * x) xs)
entry hist_primal [n] (xs: [n]f64) (is: [n]i64) = histo xs is
entry hist_grad [n] (xs: [n]f64) (is: [n]i64) = vjp2 (\xs -> histo xs is) xs (replicate 10 1)

def scat [n] (xs: [n]f64) (is: [n]i64) = scatter (map (* 2) xs) is (map f64.sin xs)
entry scatter_primal [n] (xs: [n]f64) (is: [n]i64) = scat xs is
entry scatter_grad [n] (xs: [n]f64) (is: [n]i64) = vjp2 (\xs -> scat xs is) xs (replicate n 1)

-- A custom reverse derivative: the adjoint code is the user's, once per element.
def my_sqrt (x: f64) = with_vjp f64.sqrt (\r ybar -> ybar / (2 * r)) x
entry custom_primal [n] (xs: [n]f64) = f64.sum (map my_sqrt xs)
entry custom_grad [n] (xs: [n]f64) = vjp2 (\xs -> f64.sum (map my_sqrt xs)) xs 1

-- hist with an operator without a dedicated rule (complex products): the general rule.
def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)
def histc [n] (xs: [n]f64) (is: [n]i64) = unzip (hist cmul (1, 0) 10 is (zip xs (map (* 0.5) xs)))
entry histc_primal [n] (xs: [n]f64) (is: [n]i64) = histc xs is
entry histc_grad [n] (xs: [n]f64) (is: [n]i64) =
  vjp2 (\xs -> histc xs is) xs (replicate 10 1, replicate 10 1)

-- scan of running 2x2 matrix products (an operator on arrays): the general rule.
def mm (a: [4]f64) (b: [4]f64) : [4]f64 =
  [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]]
def scanm [n] (xs: [n]f64) = scan mm [1, 0, 0, 1] (map (\x -> [x, 0.5, -0.5, x]) xs)
entry scanm_primal [n] (xs: [n]f64) = scanm xs
entry scanm_grad [n] (xs: [n]f64) = vjp2 scanm xs (replicate n [1, 1, 1, 1])

-- A loop whose array grows by one element per iteration (quadratic work: each concat
-- copies): checkpointed in one flat buffer, after a first run that records the sizes.
def growing [n] (xs: [n]f64) =
  f64.sum (loop acc = [xs[0]] for i < n - 1 do acc ++ [f64.sin (last acc) + xs[i + 1]])
entry growing_primal [n] (xs: [n]f64) = growing xs
entry growing_grad [n] (xs: [n]f64) = vjp2 growing xs 1

-- A while loop that halves its array until one element is left, and a loop that filters its
-- array: checkpointed the same way (linear work in all).
def halving [n] (xs: [n]f64) =
  let v = loop v = xs while length v > 1 do
            let h = length v / 2 in map2 (\a b -> a * b + 0.5) (take h v) (take h (drop h v))
  in v[0]
entry halving_primal [n] (xs: [n]f64) = halving xs
entry halving_grad [n] (xs: [n]f64) = vjp2 halving xs 1
def filtering [n] (xs: [n]f64) =
  f64.sum (loop v = xs for _i < 4 do filter (> 0.6) (map (\x -> x * 0.95 + 0.01) v))
entry filtering_primal [n] (xs: [n]f64) = filtering xs
entry filtering_grad [n] (xs: [n]f64) = vjp2 filtering xs 1

-- A small Gaussian mixture objective (benchmarks/README.md, ADBench GMM without the Wishart prior):
-- k components in d dimensions with diagonal covariances, n points.
def logsumexp [k] (xs: [k]f64) = let m = f64.maximum xs in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))
def gmm [n][k][d] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (logs: [k][d]f64) =
  let per_point (p: [d]f64) =
    logsumexp (map3 (\a mu ls ->
                 let q = f64.sum (map3 (\xi m l -> let z = (xi - m) * f64.exp l in z * z) p mu ls)
                 in a + f64.sum ls - 0.5 * q) alphas means logs)
  in f64.sum (map per_point x) - f64.i64 n * logsumexp alphas
entry gmm_primal [n][k][d] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (logs: [k][d]f64) =
  gmm x alphas means logs
entry gmm_grad [n][k][d] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (logs: [k][d]f64) =
  vjp2 (\(a, m, l) -> gmm x a m l) (alphas, means, logs) 1
"#;

/// The bound the cost of a gradient (value and adjoint) must stay under, as a multiple of the
/// primal's work.
const BOUND: f64 = 6.0;

/// The bound for `scan (*)`, whose primal is one multiplication per element. Its dedicated
/// rule is a reversed `+` scan of `ȳ · y` divided by `x`: the scan, the division and the two
/// reversals (each charged per element by the counter) come to 4 operations per element; with
/// the primal and the seed (`replicate n 1`, charged to the gradient) that is 6, where the
/// general rule for scalar operators took 16.
const SCAN_MUL_BOUND: f64 = 6.5;

/// The bound for the general rules, for operators without a cheaper one: `hist` (a radix
/// sort of the bins, two segmented scans and one `vjp` of the operator per element) and
/// `scan` on arrays (one `vjp` of the operator per element, in a loop). The factor is a
/// constant for a given operator and number of bins.
const GENERAL_BOUND: f64 = 25.0;

fn bound(name: &str) -> f64 {
    match name {
        "scan" => SCAN_MUL_BOUND,
        "histc" | "scanm" => GENERAL_BOUND,
        _ => BOUND,
    }
}

#[test]
fn gradients_cost_a_constant_factor_of_the_primal() {
    let p = Program::from_source("cost.fut", PROGRAMS).unwrap_or_else(|d| panic!("{}", d.render()));
    let mut ratios: Vec<Vec<f64>> = Vec::new();
    for n in [50usize, 500] {
        ratios.push(Vec::new());
        let m = (n as f64).sqrt() as usize;
        let cases = [
            ("dot", vec![f64s(n, 1), f64s(n, 2)]),
            ("matmul", vec![mat(m, m, 3), mat(m, m, 4)]),
            ("loop", vec![f64s(n, 5)]),
            ("scan", vec![f64s(n, 6)]),
            ("min", vec![f64s(n, 7)]),
            ("hist", vec![f64s(n, 8), indices(n, 10, 9)]),
            ("scatter", vec![f64s(n, 10), indices(n, n, 11)]),
            ("custom", vec![f64s(n, 16)]),
            ("histc", vec![f64s(n, 17), indices(n, 10, 18)]),
            ("scanm", vec![f64s(n, 19)]),
            ("growing", vec![f64s(n, 20)]),
            ("halving", vec![f64s(n, 21)]),
            ("filtering", vec![f64s(n, 22)]),
            (
                "gmm",
                vec![mat(n / 5, 3, 12), f64s(4, 13), mat(4, 3, 14), mat(4, 3, 15)],
            ),
        ];
        for (name, args) in cases {
            let r = ratio(&p, name, args);
            println!("n = {n}: gradient/primal work for {name} = {r:.2}");
            let bound = bound(name);
            assert!(
                r < bound,
                "{name} at n = {n}: the gradient costs {r:.2}× the primal"
            );
            if let Some(rs) = ratios.last_mut() {
                rs.push(r);
            }
        }
    }
    // The factor does not grow with the size.
    for (small, large) in ratios[0].iter().zip(&ratios[1]) {
        assert!(
            large < &(small * 1.1),
            "ratio grew from {small:.2} to {large:.2}"
        );
    }
}
