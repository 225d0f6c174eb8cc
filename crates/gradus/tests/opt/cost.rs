//! The optimiser makes forward-mode gradients (one `jvp` per one-hot seed, `n` of them) cost
//! linear work in `n` instead of quadratic, measured with the interpreter's operation
//! counter: the work at `10n` over the work at `n` is about 10 after optimisation and about
//! 100 before, for a dot product, a vector maximum and the rank-1 NNMF objective
//! (benchmarks/README.md §NNMF and §micro benchmarks). The gradients' values agree with and without
//! optimisation.

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

const MICRO: &str = r#"
def onehot (n: i64) (i: i64) : [n]f64 = tabulate n (\j -> if j == i then 1 else 0)
def dot [n] (xs: [n]f64) (ys: [n]f64) = f64.sum (map2 (*) xs ys)
def nnmf [m][n] (a: [m][n]f64) (u: [m]f64) (v: [n]f64) =
  f64.sum (map2 (\ai ui -> f64.sum (map2 (\aij vj -> let x = ui * vj in f64.log x + aij / x) ai v)) a u)
def data [n] (y: [n]f64) = [map (\t -> t + 0.5) y, map (\t -> t + 1.0) y, map (\t -> 2.0 - t) y]

entry dot_fwd [n] (x: [n]f64) (y: [n]f64) = tabulate n (\i -> jvp (\x -> dot x y) x (onehot n i))
entry dot_rev [n] (x: [n]f64) (y: [n]f64) = vjp (\x -> dot x y) x 1.0
entry max_fwd [n] (x: [n]f64) (_y: [n]f64) = tabulate n (\i -> jvp f64.maximum x (onehot n i))
entry max_rev [n] (x: [n]f64) (_y: [n]f64) = vjp f64.maximum x 1.0
entry add_fwd [n] (x: [n]f64) (y: [n]f64) = tabulate n (\i -> jvp (\x -> map2 (+) x y) x (onehot n i))
entry add_rev [n] (x: [n]f64) (y: [n]f64) = tabulate n (\i -> vjp (\x -> map2 (+) x y) x (onehot n i))
entry scale_fwd [n] (x: [n]f64) (y: [n]f64) = jvp (\s -> map (\t -> s * t) y) x[0] 1.0
entry scale_rev [n] (x: [n]f64) (y: [n]f64) = tabulate n (\i -> vjp (\s -> map (\t -> s * t) y) x[0] (onehot n i))
entry nnmf_fwd [n] (v: [n]f64) (y: [n]f64) =
  jmp (\v -> nnmf (data y) [0.7, 1.1, 1.3] v) v (tabulate n (\j -> onehot n j))
entry nnmf_rev [n] (v: [n]f64) (y: [n]f64) = vjp (\v -> nnmf (data y) [0.7, 1.1, 1.3] v) v 1.0
"#;

/// The dF~ micro benchmarks and rank-1 NNMF, forward (one `jvp` per input where the
/// derivative has one row) and reverse mode: the optimiser never makes them more expensive and
/// does not change their results, and after optimisation their work grows linearly in n
/// (except `add`, whose n × n Jacobian is dense). Prints the operation counts before and
/// after (the figures of benchmarks/README.md).
#[test]
fn micro_benchmarks_before_and_after_optimisation() {
    let opt = Program::from_source("micro.fut", MICRO).unwrap_or_else(|d| panic!("{}", d.render()));
    let plain = Program::from_source_with("micro.fut", MICRO, &OptOptions::off()).unwrap();
    let n = 100;
    for name in ["dot", "max", "add", "scale", "nnmf"] {
        for mode in ["fwd", "rev"] {
            let entry = format!("{name}_{mode}");
            let (o, r) = work(&opt, &entry, n);
            let (o10, _) = work(&opt, &entry, 10 * n);
            let (p, s) = work(&plain, &entry, n);
            assert_eq!(r, s, "{entry}: results differ");
            println!(
                "{entry:>10}: n = {n}: unoptimised {p:>9}, optimised {o:>9}; optimised at 10n: {o10}"
            );
            assert!(o <= p, "{entry}: optimisation costs more ({o} > {p})");
            // Every gradient but the dense Jacobians of `add` grows linearly in n.
            if name != "add" {
                assert!(
                    o10 <= 11 * o,
                    "{entry}: optimised work grows from {o} to {o10} from n to 10n"
                );
            }
        }
    }
}

/// Every pass can be turned off on its own: the results stay those of the unoptimised
/// program, turning off `single-point` brings back the quadratic forward-mode dot gradient,
/// and an unknown pass name is an error that lists the known ones.
#[test]
fn every_pass_can_be_disabled() {
    let plain = Program::from_source_with("micro.fut", MICRO, &OptOptions::off()).unwrap();
    let n = 20;
    let entries = ["dot_fwd", "dot_rev", "max_fwd", "max_rev", "nnmf_rev"];
    let expected: Vec<_> = entries.iter().map(|e| work(&plain, e, n)).collect();
    let full = Program::from_source("micro.fut", MICRO).unwrap();
    let (dot_full, _) = work(&full, "dot_fwd", n);
    for pass in gradus::pipeline::passes::optimiser_passes().map(|p| p.name) {
        let mut o = OptOptions::default();
        o.disable(pass).unwrap();
        let p = Program::from_source_with("micro.fut", MICRO, &o)
            .unwrap_or_else(|d| panic!("without {pass}: {}", d.render()));
        for (e, (_, want)) in entries.iter().zip(&expected) {
            let (ops, got) = work(&p, e, n);
            assert_eq!(&got, want, "{e} without {pass}: results differ");
            if pass == "single-point" && *e == "dot_fwd" {
                assert!(
                    ops > dot_full + (n * n) as u64,
                    "single-point off: {ops} ops"
                );
            }
        }
    }
    let err = OptOptions::default().disable("no-such-pass").unwrap_err();
    assert!(err.contains("acc-reduce") && err.contains("fold"), "{err}");
}

fn matrix(rows: usize, cols: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let data = Buffer::F64(rng.vector(rows * cols, 0.5, 1.5));
    Value::Array(Array::new(vec![rows, cols], data).unwrap())
}

/// Work of one NNMF entry of benchmarks/nnmf.fut at `(m, n, r)`, and its result.
fn nnmf_work(p: &Program, entry: &str, m: usize, n: usize, r: usize) -> (u64, Vec<Value>) {
    p.counter().reset();
    let args = vec![matrix(m, n, 11), matrix(m, r, 12), matrix(r, n, 13)];
    let out = p.call(entry, args).unwrap();
    (p.counter().total(), out)
}

/// The full NNMF benchmark (rank r, `W·H` a matrix product): the forward-mode gradient with
/// respect to `H`, one `jvp` per entry of `H` with seeds `copy zero with [q, j] = 1`, costs
/// O(m·n·r) after optimisation, like the objective, the reverse-mode gradient and the closed
/// form: the primal product leaves the `r·n` jvps (map fission and hoisting) and each jvp's
/// sums over the one-hot seed become single terms. Without optimisation it is O(m·(n·r)²).
#[test]
fn nnmf_forward_gradient_is_linear_after_optimisation() {
    let src = include_str!("../../../../benchmarks/nnmf.fut");
    let opt = Program::from_source("nnmf.fut", src).unwrap_or_else(|d| panic!("{}", d.render()));
    let plain = Program::from_source_with("nnmf.fut", src, &OptOptions::off()).unwrap();
    let (m, n, r) = (6, 5, 2);
    let (fwd1, g1) = nnmf_work(&opt, "gradient_fwd", m, n, r);
    let (fwd10, g10) = nnmf_work(&opt, "gradient_fwd", m, 10 * n, r);
    let (obj10, _) = nnmf_work(&opt, "objective", m, 10 * n, r);
    let (rev10, _) = nnmf_work(&opt, "gradient", m, 10 * n, r);
    let (closed10, c10) = nnmf_work(&opt, "gradient_closed_form", m, 10 * n, r);
    let (plain1, p1) = nnmf_work(&plain, "gradient_fwd", m, n, r);
    let (plain10, p10) = nnmf_work(&plain, "gradient_fwd", m, 10 * n, r);
    println!(
        "nnmf gradient_fwd: optimised {fwd1} -> {fwd10} (x{:.1}), unoptimised {plain1} -> \
         {plain10} (x{:.1}); at 10n: objective {obj10}, reverse {rev10}, closed form {closed10}",
        fwd10 as f64 / fwd1 as f64,
        plain10 as f64 / plain1 as f64
    );
    assert_eq!(g1, p1, "optimised and unoptimised forward gradients differ");
    assert_eq!(
        g10, p10,
        "optimised and unoptimised forward gradients differ"
    );
    let (Value::Array(a), Value::Array(b)) = (&g10[0], &c10[0]) else {
        panic!("gradients are not arrays");
    };
    let (Buffer::F64(a), Buffer::F64(b)) = (a.buffer(), b.buffer()) else {
        panic!("gradients are not f64");
    };
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
            "{x} vs closed form {y}"
        );
    }
    let growth = fwd10 as f64 / fwd1 as f64;
    assert!(
        growth < 13.0,
        "optimised forward gradient grows by {growth:.1}"
    );
    assert!(
        plain10 as f64 / plain1 as f64 > 60.0,
        "unoptimised forward gradient grows only linearly"
    );
    assert!(
        fwd10 < 4 * closed10,
        "forward gradient costs {fwd10}, closed form {closed10}"
    );
}
