//! The vector operations `dot` and `matvec` (one node per dot product): against the same
//! program written with scalar operations on the tape, and against finite differences, for
//! every kind of side (a dense range of nodes, a listed side, constants, values of another
//! job).

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_tape::{
    Adjoints, Real, ReverseOptions, Var, dot, dot_const, grad, join, matvec, par_map, record, vjp,
};

const N: usize = 12;

/// The scalar loop that `dot` replaces: summed in index order from 0.
fn dot_loop<S: Real>(u: &[S], v: &[S]) -> S {
    u.iter().zip(v).fold(S::zero(), |acc, (&a, &b)| acc + a * b)
}

fn matvec_loop<S: Real>(m: &[S], v: &[S]) -> Vec<S> {
    m.chunks_exact(v.len())
        .map(|row| dot_loop(row, v))
        .collect()
}

/// A program using dot products of every shape, written over a dot function `d` and a
/// matrix-vector function `mv`, on `3 N` inputs.
fn program<S: Real>(x: &[S], d: impl Fn(&[S], &[S]) -> S, mv: impl Fn(&[S], &[S]) -> Vec<S>) -> S {
    let (a, rest) = x.split_at(N);
    let (b, c) = rest.split_at(N);
    // Consecutive records (dense), and records two apart (listed).
    let sines: Vec<S> = c.iter().map(|t| t.sin()).collect();
    let spread: Vec<S> = a.iter().zip(c).map(|(&p, &q)| (p * q).exp()).collect();
    // Constants mixed in, and a side of constants only.
    let mixed: Vec<S> = (0..N)
        .map(|i| {
            if i % 3 == 0 {
                S::from_f64(0.5 * i as f64)
            } else {
                b[i]
            }
        })
        .collect();
    let consts: Vec<S> = (0..N).map(|i| S::from_f64(1.0 - 0.1 * i as f64)).collect();
    let reversed: Vec<S> = a.iter().rev().copied().collect();
    let rows = mv(&x[..3 * N - 4], &b[..4]);
    let terms = [
        d(a, b),
        d(&sines, b),
        d(a, &spread),
        d(&mixed, c),
        d(&consts, a),
        d(a, a),
        d(&reversed, c),
        d(&spread, &sines).tanh(),
    ];
    let t = terms.iter().enumerate().fold(S::zero(), |acc, (i, &t)| {
        acc + t * S::from_f64(1.0 + i as f64)
    });
    rows.iter().fold(t, |acc, &r| acc + r.sin())
}

fn inputs(seed: u64) -> Vec<f64> {
    SplitMix64::new(seed).vector(3 * N, -1.0, 1.0)
}

#[test]
fn dot_and_matvec_match_the_scalar_loop_and_finite_differences() {
    for seed in 0..5 {
        let x = inputs(seed);
        let (y, g) = grad(&x, |v| program(v, dot, matvec));
        let (ys, gs) = grad(&x, |v| program(v, dot_loop, matvec_loop));
        // The same sums in the same order: the same value.
        assert_eq!(y, ys);
        assert_eq!(y, program(&x, dot_loop, matvec_loop));
        compare(&g, &gs, Tolerance::ROUNDING).unwrap();
        let fd = fd::grad(&x, |x| program(x, dot_loop, matvec_loop));
        compare(&g, &fd, Tolerance::new(1e-6, 1e-6)).unwrap();
    }
}

#[test]
fn dot_on_values_of_other_jobs() {
    // The sides read the parent job's inputs (through proxies) and the task's own records.
    let x = inputs(7);
    fn forked<'r>(v: &[Var<'r>]) -> Var<'r> {
        let (l, r) = join(
            || program(v, dot, matvec),
            || {
                let own: Vec<Var<'r>> = v[..N].iter().map(|t| t.cos()).collect();
                dot(&own, &v[N..2 * N]) + dot(&v[2 * N..], &v[..N])
            },
        );
        let parts = par_map(&[0usize, 1, 2], |&k| dot(&v[k..k + N], &v[2 * N..]));
        l * r + parts.into_iter().fold(Var::constant(0.0), |a, b| a + b)
    }
    let scalar = |v: &[f64]| {
        let own: Vec<f64> = v[..N].iter().map(|t| t.cos()).collect();
        let r = dot_loop(&own, &v[N..2 * N]) + dot_loop(&v[2 * N..], &v[..N]);
        let parts: f64 = (0..3).map(|k| dot_loop(&v[k..k + N], &v[2 * N..])).sum();
        program(v, dot_loop, matvec_loop) * r + parts
    };
    let rec = record(&x, |v| vec![forked(v)]);
    assert!(rec.stats().jobs > 1 && rec.stats().cross_job_edges > 0);
    let fd = fd::grad(&x, scalar);
    let (_, g_flat) = grad(&x, |v| {
        let own: Vec<Var<'_>> = v[..N].iter().map(|t| t.cos()).collect();
        let r = dot(&own, &v[N..2 * N]) + dot(&v[2 * N..], &v[..N]);
        let parts = (0..3).fold(Var::constant(0.0), |a, k| {
            a + dot(&v[k..k + N], &v[2 * N..])
        });
        program(v, dot, matvec) * r + parts
    });
    for options in [ReverseOptions::default(), ReverseOptions::sequential()] {
        let mut g = vec![0.0; x.len()];
        rec.pullback_into(&[1.0], &options, &mut Adjoints::new(), &mut g)
            .unwrap();
        compare(&g, &fd, Tolerance::new(1e-6, 1e-6)).unwrap();
        compare(&g, &g_flat, Tolerance::ROUNDING).unwrap();
    }
}

#[test]
fn a_dense_dot_takes_8_bytes_per_operand() {
    let x = inputs(3);
    let rec = record(&x, |v| vec![dot(&v[..N], &v[N..2 * N])]);
    let stats = rec.stats();
    assert_eq!((stats.nodes, stats.edges), (3 * N + 1, 2 * N));
    assert_eq!(stats.bytes, 24 + 2 * N * 8);
    // A listed side (every other input) costs 4 bytes more per operand.
    let rec = record(&x, |v| {
        let odd: Vec<Var<'_>> = v.iter().skip(1).step_by(2).take(N).copied().collect();
        vec![dot(&v[..N], &odd)]
    });
    assert_eq!(rec.stats().bytes, 24 + 2 * N * 8 + N * 4);
    let (_, counts) = rec
        .pullback_counting(&[1.0], &ReverseOptions::default())
        .unwrap();
    assert_eq!(
        (counts.nodes_resolved, counts.edges_visited),
        (1, 2 * N as u64)
    );
}

#[test]
fn matvec_pulls_back_every_row() {
    let x = inputs(11);
    let ybar = [0.3, -1.0, 2.0];
    let (y, g) = vjp(&x, &ybar, |v| matvec(&v[..3 * N], &v[3 * N - N..]));
    let (ys, gs) = vjp(&x, &ybar, |v| matvec_loop(&v[..3 * N], &v[3 * N - N..]));
    assert_eq!(y, ys);
    compare(&g, &gs, Tolerance::ROUNDING).unwrap();
    grad(&[1.0], |v| {
        assert!(matvec(&[], &[]).is_empty());
        v[0]
    });
}

#[test]
#[should_panic(expected = "matvec of a matrix of 5 entries and a vector of length 2")]
fn matvec_rejects_a_ragged_matrix() {
    grad(&[1.0; 7], |v| matvec(&v[..5], &v[5..])[0]);
}

#[test]
#[should_panic(expected = "dot of slices of lengths 2 and 3")]
fn dot_rejects_slices_of_different_lengths() {
    grad(&[1.0; 5], |v| dot(&v[..2], &v[2..]));
}

#[test]
fn short_dots_are_operations_with_the_same_value() {
    let x = inputs(13);
    for n in 0..=4 {
        let (y, g) = grad(&x, |v| dot(&v[..n], &v[N..N + n]).sin() + v[0]);
        let (ys, gs) = grad(&x, |v| dot_loop(&v[..n], &v[N..N + n]).sin() + v[0]);
        assert_eq!(y, ys, "n = {n}");
        compare(&g, &gs, Tolerance::ROUNDING).unwrap();
        let rec = record(&x, |v| vec![dot(&v[..n], &v[N..N + n])]);
        // One or two pairs: their products and sums; more: one node.
        let ops = [0, 1, 3, 1, 1][n];
        assert_eq!(rec.stats().nodes - rec.stats().inputs, ops, "n = {n}");
    }
}

/// `Σ uᵢ cᵢ` as the loop that [`dot_const`] replaces.
fn dot_const_loop<S: Real>(u: &[S], c: &[f64]) -> S {
    u.iter()
        .zip(c)
        .fold(S::zero(), |acc, (&a, &w)| acc + a * S::from_f64(w))
}

/// Constant-weight dot products on every kind of side: a dense range of inputs, values with
/// coefficients, every other input (listed), constants mixed in, values of another job.
fn weighted<S: Real>(x: &[S], d: impl Fn(&[S], &[f64]) -> S) -> S {
    let w: Vec<f64> = (0..N).map(|i| 0.3 * i as f64 - 1.1).collect();
    let scaled: Vec<S> = x[..N].iter().map(|&t| t * S::from_f64(-2.5)).collect();
    let odd: Vec<S> = x.iter().skip(1).step_by(2).take(N).copied().collect();
    let mixed: Vec<S> = (0..N)
        .map(|i| {
            if i % 4 == 0 {
                S::from_f64(0.7)
            } else {
                x[N + i]
            }
        })
        .collect();
    let a = d(&x[..N], &w);
    let b = d(&scaled, &w);
    let c = d(&odd, &w[..N]);
    let e = d(&mixed, &w);
    (a * b).sin() + c * e + d(&x[2 * N..], &w).exp()
}

#[test]
fn dot_const_matches_the_loop_and_finite_differences() {
    for seed in 0..4 {
        let x = inputs(20 + seed);
        let (y, g) = grad(&x, |v| weighted(v, dot_const));
        let (ys, gs) = grad(&x, |v| weighted(v, dot_const_loop));
        assert_eq!(y, ys);
        assert_eq!(y, weighted(&x, dot_const_loop));
        compare(&g, &gs, Tolerance::ROUNDING).unwrap();
        let fd = fd::grad(&x, |v| weighted(v, dot_const_loop));
        compare(&g, &fd, Tolerance::new(1e-6, 1e-6)).unwrap();
        // In a task, on the parent's values (proxies), sequential and parallel.
        let rec = record(&x, |v| {
            let (l, r) = join(
                || weighted(v, dot_const),
                || dot_const(&v[N..2 * N], &[2.0; N]),
            );
            vec![l * r]
        });
        let reference = fd::grad(&x, |v| {
            weighted(v, dot_const_loop) * dot_const_loop(&v[N..2 * N], &[2.0; N])
        });
        for options in [ReverseOptions::default(), ReverseOptions::sequential()] {
            let mut g = vec![0.0; x.len()];
            rec.pullback_into(&[1.0], &options, &mut Adjoints::new(), &mut g)
                .unwrap();
            compare(&g, &reference, Tolerance::new(1e-6, 1e-6)).unwrap();
        }
    }
}

#[test]
fn dot_const_is_one_node() {
    let x = inputs(5);
    let w = [0.5; N];
    // A dense side: 24 bytes and 8 per operand; a listed one, 12 per operand.
    let rec = record(&x, |v| vec![dot_const(&v[..N], &w)]);
    assert_eq!((rec.stats().nodes, rec.stats().edges), (3 * N + 1, N));
    assert_eq!(rec.stats().bytes, 24 + 8 * N);
    let rec = record(&x, |v| {
        let odd: Vec<Var<'_>> = v.iter().skip(1).step_by(2).take(N).copied().collect();
        vec![dot_const(&odd, &w)]
    });
    assert_eq!(rec.stats().bytes, 24 + 12 * N);
    let (_, counts) = rec
        .pullback_counting(&[1.0], &ReverseOptions::default())
        .unwrap();
    assert_eq!((counts.nodes_resolved, counts.edges_visited), (1, N as u64));
    // Constants only: a constant.
    let rec = record(&x, |_| vec![dot_const(&[Var::constant(2.0); N], &w)]);
    assert_eq!(rec.stats().nodes, rec.stats().inputs);
    assert_eq!(rec.outputs(), &[dot_const_loop(&[2.0; N], &w)]);
}

#[test]
#[should_panic(expected = "dot_const of slices of lengths 3 and 2")]
fn dot_const_rejects_slices_of_different_lengths() {
    grad(&[1.0; 5], |v| dot_const(&v[..3], &[1.0, 2.0]));
}

/// Vector operations through [`Real`], so that one function serves every number type.
fn generic<S: Real>(x: &[S]) -> S {
    let rows = S::matvec(&x[..2 * N], &x[2 * N..2 * N + 2]);
    let w: Vec<f64> = (0..N).map(|i| (i as f64).sin()).collect();
    S::dot(&x[..N], &x[N..2 * N]) * S::dot_const(&x[2 * N..], &w) + rows[3] * rows[N - 1]
}

#[test]
fn vector_operations_through_real_on_every_number_type() {
    let x = inputs(31);
    let loops = |v: &[f64]| {
        let rows = matvec_loop(&v[..2 * N], &v[2 * N..2 * N + 2]);
        let w: Vec<f64> = (0..N).map(|i| (i as f64).sin()).collect();
        dot_loop(&v[..N], &v[N..2 * N]) * dot_const_loop(&v[2 * N..], &w) + rows[3] * rows[N - 1]
    };
    assert_eq!(generic(&x), loops(&x));
    let (y, g) = grad(&x, |v| generic(v));
    assert_eq!(y, loops(&x));
    // Forward mode runs the default (loop) methods of `Real`.
    let forward: Vec<f64> = (0..x.len())
        .map(|i| {
            let mut e = vec![0.0; x.len()];
            e[i] = 1.0;
            gradus_tape::jvp(&x, &e, |d| vec![generic(d)]).1[0]
        })
        .collect();
    compare(&g, &forward, Tolerance::new(1e-12, 1e-12)).unwrap();
    // On the tape they are nodes: fewer records than the loops.
    let vec_bytes = record(&x, |v| vec![generic(v)]).stats().bytes;
    let loop_bytes = record(&x, |v| vec![loops_var(v)]).stats().bytes;
    assert!(vec_bytes < loop_bytes, "{vec_bytes} >= {loop_bytes}");
}

fn loops_var<'r>(v: &[Var<'r>]) -> Var<'r> {
    let rows = matvec_loop(&v[..2 * N], &v[2 * N..2 * N + 2]);
    let w: Vec<f64> = (0..N).map(|i| (i as f64).sin()).collect();
    dot_loop(&v[..N], &v[N..2 * N]) * dot_const_loop(&v[2 * N..], &w) + rows[3] * rows[N - 1]
}

/// Sums of every shape over `3 N` inputs, written over a sum function: elementwise functions
/// of a slice of inputs (consecutive nodes with folded coefficients: a dense sum), values
/// recorded one apart (listed), constants mixed in, a single term, and a pair.
fn sums<S: Real>(x: &[S], s: impl Fn(Vec<S>) -> S) -> S {
    let (a, rest) = x.split_at(N);
    let (b, c) = rest.split_at(N);
    let (half, three) = (S::from_f64(0.5), S::from_f64(3.0));
    let dense = s(a.iter().map(|&t| (t * half).exp() * three).collect());
    let products: Vec<S> = b.iter().zip(c).map(|(&p, &q)| p * q).collect();
    let listed = s(products.iter().step_by(2).copied().collect());
    let mixed = s((0..N)
        .map(|i| {
            if i % 4 == 0 {
                S::from_f64(i as f64)
            } else {
                c[i].sin()
            }
        })
        .collect());
    let one = s(vec![S::from_f64(2.0), a[3].cos(), S::from_f64(-1.0)]);
    let two = s(vec![a[1] * three, half, b[2].exp()]);
    dense * listed + mixed.sin() * one + two * dense
}

fn sum_loop<S: Real>(terms: Vec<S>) -> S {
    terms.into_iter().fold(S::zero(), |acc, t| acc + t)
}

#[test]
fn sum_and_sum_iter_match_the_loop_and_finite_differences() {
    for seed in 0..5 {
        let x = inputs(seed);
        let (y, g) = grad(&x, |v| sums(v, |t| gradus_tape::sum(&t)));
        let (yi, gi) = grad(&x, |v| sums(v, gradus_tape::sum_iter));
        let (ys, gs) = grad(&x, |v| sums(v, sum_loop));
        assert_eq!(y, sums(&x, sum_loop));
        assert_eq!(yi, sums(&x, sum_loop));
        assert_eq!(ys, sums(&x, sum_loop));
        compare(&g, &gs, Tolerance::ROUNDING).unwrap();
        compare(&gi, &gs, Tolerance::ROUNDING).unwrap();
        let fd = fd::grad(&x, |x| sums(x, sum_loop));
        compare(&g, &fd, Tolerance::new(1e-6, 1e-6)).unwrap();
        compare(&gi, &fd, Tolerance::new(1e-6, 1e-6)).unwrap();
    }
}

#[test]
fn a_sum_of_consecutive_nodes_takes_8_bytes_per_term() {
    let x = inputs(6);
    for how in 0..2 {
        fn pick<'r>(how: usize, t: Vec<Var<'r>>) -> Var<'r> {
            if how == 0 {
                gradus_tape::sum(&t)
            } else {
                gradus_tape::sum_iter(t)
            }
        }
        // Inputs with folded coefficients: one record of 24 bytes and 8 per term.
        let rec = record(&x, |v| {
            vec![pick(how, v[..N].iter().map(|t| t.exp()).collect())]
        });
        assert_eq!(rec.stats().bytes, 24 + 8 * N);
        let ybar = [1.0];
        let g = rec.pullback(&ybar);
        let expect: Vec<f64> = (0..3 * N)
            .map(|i| if i < N { x[i].exp() } else { 0.0 })
            .collect();
        compare(&g, &expect, Tolerance::ROUNDING).unwrap();
        // Every other input: listed, 12 bytes per term.
        let rec = record(&x, |v| {
            vec![pick(how, v.iter().step_by(2).take(N).copied().collect())]
        });
        assert_eq!(rec.stats().bytes, 24 + 12 * N);
        // Products recorded one after the other: dense, after their own records.
        let rec = record(&x, |v| {
            vec![pick(how, (0..N).map(|i| v[i] * v[N + i]).collect())]
        });
        assert_eq!(rec.stats().bytes, 24 * N + 24 + 8 * N);
    }
}

#[test]
fn sum_iter_of_few_terms() {
    let x = [0.5, -1.5, 2.0];
    // No term, constants only: a constant.
    let rec = record(&x, |_| {
        vec![gradus_tape::sum_iter([
            Var::constant(1.0),
            Var::constant(2.0),
        ])]
    });
    assert_eq!((rec.outputs(), rec.stats().bytes), (&[3.0][..], 0));
    // One non-constant term: its node and coefficient, nothing recorded but the output.
    let (y, g) = grad(&x, |v| {
        gradus_tape::sum_iter([Var::constant(1.0), v[1] * 3.0])
    });
    assert_eq!((y, g), (1.0 - 4.5, vec![0.0, 3.0, 0.0]));
    // Two: one addition.
    let rec = record(&x, |v| {
        vec![gradus_tape::sum_iter([v[0].exp(), v[2] * 4.0])]
    });
    assert_eq!(rec.stats().bytes, 24);
    assert_eq!(rec.pullback(&[1.0]), vec![0.5f64.exp(), 0.0, 4.0]);
    // Inside tasks of a fork, on values of the parent job.
    let (y, g) = grad(&x, |v| {
        let parts = par_map(&[0usize, 1, 2], |&k| {
            gradus_tape::sum_iter((0..3).map(|i| v[(i + k) % 3] * (i + 1) as f64))
        });
        gradus_tape::sum_iter(parts)
    });
    let s: f64 = x.iter().sum();
    assert_eq!(y, 6.0 * s);
    assert_eq!(g, vec![6.0; 3]);
}

#[test]
fn a_dot_of_a_slice_with_itself_is_one_side() {
    for seed in 0..3 {
        let x = inputs(seed);
        // Dense (inputs with folded coefficients), listed (every other product), constants
        // mixed in, and values of another job.
        fn norms<'r>(
            v: &[Var<'r>],
            d: impl Fn(&[Var<'r>], &[Var<'r>]) -> Var<'r> + Sync,
        ) -> Var<'r> {
            let scaled: Vec<Var<'r>> = v[..N].iter().map(|&t| t * 1.5).collect();
            let products: Vec<Var<'r>> = (0..N).map(|i| v[i] * v[N + i]).collect();
            let listed: Vec<Var<'r>> = products.iter().step_by(2).copied().collect();
            let mut mixed = v[2 * N..].to_vec();
            mixed[3] = Var::constant(0.25);
            let (a, b) = join(|| d(&scaled, &scaled), || d(&v[N..2 * N], &v[N..2 * N]));
            a * d(&listed, &listed) + d(&mixed, &mixed).sin() + b
        }
        let (y, g) = grad(&x, |v| norms(v, dot));
        let (ys, gs) = grad(&x, |v| norms(v, dot_loop));
        assert_eq!(y, ys);
        compare(&g, &gs, Tolerance::ROUNDING).unwrap();
        let fd = fd::grad(&x, |x| {
            let s: Vec<f64> = x[..N].iter().map(|t| t * 1.5).collect();
            let p: Vec<f64> = (0..N).step_by(2).map(|i| x[i] * x[N + i]).collect();
            let mut m = x[2 * N..].to_vec();
            m[3] = 0.25;
            dot_loop(&s, &s) * dot_loop(&p, &p)
                + dot_loop(&m, &m).sin()
                + dot_loop(&x[N..2 * N], &x[N..2 * N])
        });
        compare(&g, &fd, Tolerance::new(1e-6, 1e-6)).unwrap();
    }
    // One side: 24 bytes and 8 per operand (dense), 12 (listed).
    let x = inputs(9);
    let rec = record(&x, |v| vec![dot(&v[..N], &v[..N])]);
    assert_eq!(rec.stats().bytes, 24 + 8 * N);
    let rec = record(&x, |v| {
        let odd: Vec<Var<'_>> = v.iter().skip(1).step_by(2).take(N).copied().collect();
        vec![dot(&odd, &odd)]
    });
    assert_eq!(rec.stats().bytes, 24 + 12 * N);
}

#[test]
fn sum_iter_of_a_dense_run_then_others_and_nested() {
    let x = inputs(11);
    // Consecutive inputs, then one out of order, then consecutive again; each term a sum of
    // its own in the nested case.
    let order: Vec<usize> = (0..6).chain([20, 7, 8, 9]).collect();
    let (y, g) = grad(&x, |v| {
        gradus_tape::sum_iter(order.iter().map(|&i| v[i].sin()))
    });
    let expect: f64 = order.iter().map(|&i| x[i].sin()).sum();
    assert_eq!(y, expect);
    let mut ge = vec![0.0; x.len()];
    order.iter().for_each(|&i| ge[i] += x[i].cos());
    compare(&g, &ge, Tolerance::ROUNDING).unwrap();
    let (y, g) = grad(&x, |v| {
        gradus_tape::sum_iter(
            order
                .iter()
                .map(|&i| gradus_tape::sum_iter(v[i..i + 4].iter().map(|t| t.square())) * v[i]),
        )
    });
    let f = |x: &[f64]| -> f64 {
        order
            .iter()
            .map(|&i| x[i..i + 4].iter().map(|t| t * t).sum::<f64>() * x[i])
            .sum()
    };
    assert!((y - f(&x)).abs() < 1e-12);
    compare(&g, &fd::grad(&x, f), Tolerance::new(1e-6, 1e-6)).unwrap();
}
