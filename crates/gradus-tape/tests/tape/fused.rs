//! Fused sums: an addition `acc + p` whose operands are the last two nodes, `p` an operation's
//! node, records nothing and is resolved with `p`'s record. Gradients of programs of that shape
//! — running sums of products, the product used again after the sum, before it through a
//! coefficient, sums whose accumulator is an input or a value of another job, outputs that are
//! fused sums — against forward mode and finite differences, with and without forks, in both
//! reverse modes; and the record counts that show the fusion happened.

use super::forward_gradient;
use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_tape::{Adjoints, Real, ReverseOptions, Var, grad, join, par_map, record};

const N: usize = 9;

/// Sums of products in every shape the fusion recognises, and some it must not.
fn program<S: Real>(x: &[S]) -> S {
    let (u, v) = x.split_at(N);
    // `acc + u·v`, the accumulator first.
    let a = u.iter().zip(v).fold(S::zero(), |acc, (&p, &q)| acc + p * q);
    // `u·v + acc`, the accumulator second, and a product divided (any operation fuses).
    let b = u
        .iter()
        .zip(v)
        .fold(S::one(), |acc, (&p, &q)| p / (S::one() + q * q) + acc);
    // The product used again after the sum, and before it through a coefficient.
    let mut c = u[0];
    let mut reuse = S::zero();
    for &w in &v[1..] {
        let p = c * w;
        let s = p.sin();
        c += p;
        reuse += s * p;
    }
    // An accumulator that is an input (the node just before the product), and a sum whose
    // operands have coefficients other than 1 (not fused).
    let d = v[N - 1] + u[N - 2] * v[N - 1];
    let e = (a * S::from_f64(0.5)) + (b * c) * S::from_f64(2.0);
    (a * b).tanh() + c * S::from_f64(0.1) + reuse + d * e
}

/// [`program`] with its parts as parallel tasks: products of values captured from the parent
/// job (proxies as accumulators), fused sums returned from tasks.
fn forked<'r>(x: &[Var<'r>]) -> Var<'r> {
    let (u, v) = x.split_at(N);
    let (left, right) = join(
        || program(x),
        || {
            // `v[i] + u[i] · v[i]`: the proxy of v[i] is the node before the product.
            let parts = par_map(&(0..N).collect::<Vec<_>>(), |&i| v[i] + u[i] * v[i]);
            parts.iter().fold(Var::constant(0.0), |acc, &p| acc + p * p)
        },
    );
    left * right
}

fn forked_f64(x: &[f64]) -> f64 {
    let (u, v) = x.split_at(N);
    let right = (0..N)
        .map(|i| v[i] + u[i] * v[i])
        .fold(0.0, |acc, p| acc + p * p);
    program(x) * right
}

fn inputs(seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..2 * N).map(|_| rng.uniform(-1.2, 1.2)).collect()
}

#[test]
fn fused_sums_match_forward_mode_and_finite_differences() {
    let tol = Tolerance::new(1e-12, 1e-12);
    for seed in 0..8 {
        let x = inputs(seed);
        let (y, g) = grad(&x, |v| program(v));
        assert_eq!(y, program(&x));
        compare(&g, &forward_gradient(&x, program), tol).unwrap();
        compare(&g, &fd::grad(&x, program), Tolerance::new(1e-6, 1e-6)).unwrap();
    }
}

#[test]
fn fused_sums_in_forked_tasks() {
    for seed in 0..4 {
        let x = inputs(100 + seed);
        let rec = record(&x, |v| vec![forked(v)]);
        assert_eq!(rec.outputs()[0], forked_f64(&x));
        let reference = fd::grad(&x, forked_f64);
        let mut adj = Adjoints::new();
        let mut seq = vec![0.0; x.len()];
        rec.pullback_into(&[1.0], &ReverseOptions::sequential(), &mut adj, &mut seq)
            .unwrap();
        let par = rec.pullback(&[1.0]);
        compare(&seq, &reference, Tolerance::new(1e-6, 1e-6)).unwrap();
        compare(&par, &seq, Tolerance::new(1e-12, 1e-12)).unwrap();
        // The same program without forks gives the same gradient.
        let (_, single) = grad(&x, |v| {
            let (u, w) = v.split_at(N);
            let right = (0..N)
                .map(|i| w[i] + u[i] * w[i])
                .fold(Var::constant(0.0), |acc, p| acc + p * p);
            program(v) * right
        });
        compare(&single, &seq, Tolerance::new(1e-12, 1e-12)).unwrap();
    }
}

#[test]
fn a_running_sum_of_products_records_one_record_per_pair() {
    let x = inputs(7);
    let rec = record(&x, |v| {
        let (u, w) = v.split_at(N);
        vec![
            u.iter()
                .zip(w)
                .fold(Var::constant(0.0), |acc, (&p, &q)| acc + p * q),
        ]
    });
    let s = rec.stats();
    // N products and N - 1 sums; each sum folded into its product's record.
    assert_eq!(s.nodes, 2 * N + 2 * N - 1);
    assert_eq!(s.edges, 4 * N - 2);
    assert_eq!(s.bytes, 24 * N);
    // The product first, then the accumulator: the same.
    let swapped = record(&x, |v| {
        let (u, w) = v.split_at(N);
        vec![
            u.iter()
                .zip(w)
                .fold(Var::constant(0.0), |acc, (&p, &q)| p * q + acc),
        ]
    });
    assert_eq!(swapped.stats(), s);
    assert_eq!(swapped.pullback(&[1.0]), rec.pullback(&[1.0]));
}

#[test]
fn sums_that_do_not_fuse_record_a_node() {
    let x = [0.5, -1.5, 2.0];
    // The accumulator is not the node before the product, or has a coefficient other than 1,
    // or the last node is an input: one record per operation.
    let cases: [for<'r> fn(&[Var<'r>]) -> Var<'r>; 3] = [
        |v| v[0] + v[1] * v[2],
        |v| v[2] * 3.0 + v[1] * v[2],
        |v| v[1] + v[2],
    ];
    let reference: [fn(&[f64]) -> f64; 3] = [
        |v| v[0] + v[1] * v[2],
        |v| v[2] * 3.0 + v[1] * v[2],
        |v| v[1] + v[2],
    ];
    for (f, r) in cases.into_iter().zip(reference) {
        let rec = record(&x, |v| vec![f(v)]);
        assert_eq!(rec.stats().bytes, 24 * (rec.stats().nodes - 3));
        let g = rec.pullback(&[1.0]);
        compare(&g, &fd::grad(&x, r), Tolerance::new(1e-6, 1e-6)).unwrap();
    }
    // `p + q + p`: the second sum's operands are the first sum and a product recorded before
    // it, so only the first sum (q is the last node, p the one before) fuses.
    let rec = record(&x, |v| {
        let p = v[0] * v[1];
        let q = v[1] * v[2];
        vec![p + q + p]
    });
    // Three records: p, q with the first sum, the second sum.
    assert_eq!((rec.stats().nodes, rec.stats().bytes), (7, 72));
    assert_eq!(
        rec.pullback(&[1.0]),
        vec![2.0 * x[1], 2.0 * x[0] + x[2], x[1]]
    );
}

#[test]
fn counting_and_skipping_see_the_fused_sums() {
    let x = inputs(3);
    let rec = record(&x, |v| vec![program(v), v[0] * v[1] + v[1]]);
    let all = ReverseOptions {
        skip_zero: false,
        ..ReverseOptions::default()
    };
    let (g, counts) = rec.pullback_counting(&[1.0, 1.0], &all).unwrap();
    assert_eq!(counts.edges_visited, rec.stats().edges as u64);
    assert_eq!(
        counts.nodes_resolved,
        (rec.stats().nodes - rec.stats().inputs) as u64
    );
    assert_eq!(g, rec.pullback(&[1.0, 1.0]));
    // Seeding only the second output resolves only its nodes: a product and a sum (not fused:
    // its accumulator is an input recorded long before).
    let (_, only) = rec
        .pullback_counting(&[0.0, 1.0], &ReverseOptions::default())
        .unwrap();
    assert_eq!((only.nodes_resolved, only.edges_visited), (2, 4));
}
