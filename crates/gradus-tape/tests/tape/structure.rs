//! Complexity (counted, never timed), job graphs, deep and wide fork structures, tape reuse and
//! misuse.

use gradus_tape::programs::{dotprod_inputs, fdotprod};
use gradus_tape::{
    Adjoints, LengthMismatch, ReverseOptions, Tape, Var, grad, join, par_map, par_map_chunks,
    record,
};

fn no_skip() -> ReverseOptions {
    ReverseOptions {
        skip_zero: false,
        ..ReverseOptions::sequential()
    }
}

#[test]
fn doubling_chain_is_linear() {
    // x_{k+1} = x_k + x_k: each value used twice. Naive backpropagators would make 2^n calls.
    for n in [10usize, 1000, 10_000] {
        let rec = record(&[1.0], |x| {
            let mut v = x[0];
            for _ in 0..n {
                v = v + v;
            }
            vec![v]
        });
        let stats = rec.stats();
        assert_eq!(stats.nodes, n + 1);
        assert_eq!(stats.edges, 2 * n);
        let (g, counts) = rec.pullback_counting(&[1.0], &no_skip()).unwrap();
        assert_eq!(counts.edges_visited, 2 * n as u64);
        assert_eq!(counts.nodes_resolved, n as u64);
        if n <= 1000 {
            assert_eq!(g[0], 2f64.powi(n as i32));
        }
    }
}

#[test]
fn exponential_sharing_binary_tree() {
    // Each level uses the previous level's value twice, through two different operations:
    // y_{k+1} = (y_k * y_k + sin(y_k)) / 2. The expression tree has 2^n leaves; the tape 2
    // nodes per level (`sin` and the halving fold into coefficients), each resolved once, and
    // one for the output's coefficient.
    let n = 2000;
    let rec = record(&[0.3], |x| {
        let mut y = x[0];
        for _ in 0..n {
            y = (y * y + y.sin()) * 0.5;
        }
        vec![y]
    });
    let (_, counts) = rec.pullback_counting(&[1.0], &no_skip()).unwrap();
    let stats = rec.stats();
    assert_eq!(stats.nodes - 1, 2 * n + 1);
    assert_eq!(counts.edges_visited, stats.edges as u64);
    assert_eq!(stats.edges, 4 * n + 1);
}

#[test]
fn edges_visited_never_exceed_edges_recorded() {
    let x = dotprod_inputs(50);
    let rec = record(&x, |x| {
        let (a, b) = join(|| fdotprod(x), || x[3].sin() * 0.0 + x[0]);
        vec![a * b, a.max(b)]
    });
    let all = rec
        .pullback_counting(
            &[1.0, 1.0],
            &ReverseOptions {
                skip_zero: false,
                ..Default::default()
            },
        )
        .unwrap()
        .1;
    assert_eq!(all.edges_visited, rec.stats().edges as u64);
    let skipping = rec
        .pullback_counting(&[1.0, 0.0], &ReverseOptions::default())
        .unwrap()
        .1;
    assert!(skipping.edges_visited <= all.edges_visited);
}

#[test]
fn dot_product_records_4n_minus_2_edges() {
    for n in [1usize, 10, 1000] {
        let x = dotprod_inputs(n);
        let rec = record(&x, |x| vec![fdotprod(x)]);
        // The paper's 4n - 1, less the first addition, to the constant 0, which records
        // nothing (partial 1 with respect to the product).
        assert_eq!(rec.stats().edges, 4 * n - 2);
        // n products and n - 1 sums, each sum folded into the product's record (the
        // accumulator is the node before the product): 24 bytes per product.
        assert_eq!(rec.stats().nodes, 2 * n + 2 * n - 1);
        assert_eq!(rec.stats().bytes, 24 * n);
    }
}

#[test]
fn worked_example_job_graph() {
    // docs/tape.md §Parallel recording and pullback.
    let rec = record(&[3.0, 0.5], |x| {
        let (a, b) = join(|| x[0] * x[0], || x[1].sin());
        vec![a + b]
    });
    let text = rec.job_graph().to_string();
    assert_eq!(
        text,
        "job 0: start; 2 nodes, 0 edges\n\
         job 1: start; 1 nodes, 2 edges\n\
         job 2: start; 0 nodes, 0 edges\n\
         job 3: fork of 0, joined from [1, 2]; 1 nodes, 2 edges (terminal)\n"
    );
    assert_eq!(rec.pullback(&[1.0]), vec![6.0, 0.5f64.cos()]);
    // `x[0]` twice in job 1, `a` and `b`'s `x[1]` (through its coefficient) in job 3.
    assert_eq!(rec.stats().cross_job_edges, 4);
    assert!(rec.job_graph().to_dot().contains("j1 -> j3;"));
}

#[test]
fn nested_forks_and_par_map_job_graphs() {
    let rec = record(&[1.0, 2.0], |x| {
        let (a, (b, c)) = join(|| x[0] * 2.0, || join(|| x[1] * 3.0, || x[0] * x[1]));
        vec![a + b + c]
    });
    assert_eq!(
        rec.job_graph().to_string(),
        "job 0: start; 2 nodes, 0 edges\n\
         job 1: start; 0 nodes, 0 edges\n\
         job 2: start; 0 nodes, 0 edges\n\
         job 3: fork of 0, joined from [1, 6]; 2 nodes, 4 edges (terminal)\n\
         job 4: start; 0 nodes, 0 edges\n\
         job 5: start; 1 nodes, 2 edges\n\
         job 6: fork of 2, joined from [4, 5]; 0 nodes, 0 edges\n"
    );
    assert_eq!(rec.pullback(&[1.0]), vec![2.0 + 2.0, 3.0 + 1.0]);

    let rec = record(&[2.0], |x| {
        let parts: Vec<Var> = par_map_chunks(&[1.0, 2.0, 3.0, 4.0, 5.0], 2, |k| x[0] * *k);
        vec![parts.into_iter().sum()]
    });
    // The products with constants and the sum's first addition (to the constant 0) record
    // nothing.
    assert_eq!(
        rec.job_graph().to_string(),
        "job 0: start; 1 nodes, 0 edges\n\
         job 1: start; 0 nodes, 0 edges\n\
         job 2: start; 0 nodes, 0 edges\n\
         job 3: fork of 0, joined from [1, 2]; 4 nodes, 8 edges (terminal)\n"
    );
    assert_eq!(rec.pullback(&[1.0]), vec![15.0]);
}

#[test]
fn fork_inside_a_loop() {
    let rec = record(&[0.5], |x| {
        let mut y = x[0];
        for _ in 0..3 {
            let (a, b) = join(|| y.sin(), || y * y);
            y = a + b;
        }
        vec![y]
    });
    assert_eq!(rec.stats().jobs, 1 + 3 * 3);
    let g = rec.pullback(&[1.0]);
    let fd = gradus_check::fd::grad(&[0.5], |x| {
        let mut y = x[0];
        for _ in 0..3 {
            y = y.sin() + y * y;
        }
        y
    });
    gradus_check::compare(&g, &fd, gradus_check::Tolerance::FINITE_DIFFERENCE).unwrap();
}

#[test]
fn deep_and_wide() {
    // 100 000 sequential forks: the reverse pass iterates along the chain, no deep recursion.
    let n = 100_000;
    let (y, g) = grad(&[1.0], |x| {
        let mut y = x[0];
        for _ in 0..n {
            let (a, _) = join(|| y + 1.0, || ());
            y = a;
        }
        y
    });
    assert_eq!((y, g), (1.0 + n as f64, vec![1.0]));
    // A par_map over 100 000 items.
    let items: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let (y, g) = grad(&[2.0], |x| {
        let parts = par_map(&items, |k| x[0] * *k);
        gradus_tape::sum(&parts)
    });
    let total: f64 = items.iter().sum();
    assert_eq!((y, g), (2.0 * total, vec![total]));
}

#[test]
fn tape_reuse_gives_the_same_results() {
    let x = dotprod_inputs(100);
    let mut tape = Tape::new();
    let (y0, g0) = grad(&x, |x| fdotprod(x));
    let mut g = vec![0.0; x.len()];
    for _ in 0..3 {
        let y = tape.grad_into(&x, |x| fdotprod(x), &mut g);
        assert_eq!(y, y0);
        assert_eq!(g, g0);
    }
}

/// A tape reused with other inputs of the same length (whose input `Var`s it keeps, writing
/// only their values), of other lengths, and through forks, `record` and `vjp`, gives what a
/// fresh tape gives.
#[test]
fn tape_reuse_with_other_inputs() {
    fn forked<'r>(x: &[Var<'r>]) -> Var<'r> {
        let (a, b) = join(|| fdotprod(x), || x[0] * x[x.len() - 1]);
        a + b.sin()
    }
    let mut rng = gradus_check::SplitMix64::new(4711);
    let mut tape = Tape::new();
    for n in [40usize, 40, 17, 40, 40, 3, 17, 17] {
        let x = rng.vector(2 * n, -2.0, 2.0);
        let mut g = vec![0.0; x.len()];
        let y = tape.grad_into(&x, |v| fdotprod(v), &mut g);
        assert_eq!((y, g), Tape::new().grad(&x, |v| fdotprod(v)));
        assert_eq!(tape.grad(&x, forked), Tape::new().grad(&x, forked));
        let rec = tape.record(&x, |v| vec![fdotprod(v), v[1] * v[0]]);
        let fresh = record(&x, |v| vec![fdotprod(v), v[1] * v[0]]);
        assert_eq!(rec.outputs(), fresh.outputs());
        assert_eq!(rec.pullback(&[1.0, 2.0]), fresh.pullback(&[1.0, 2.0]));
        tape.recycle(rec);
        let ybar = [0.5];
        assert_eq!(
            tape.vjp(&x, &ybar, |v| vec![forked(v)]),
            Tape::new().vjp(&x, &ybar, |v| vec![forked(v)])
        );
    }
}

#[test]
fn constants_record_nothing() {
    let rec = record(&[1.0], |x| {
        let c = Var::constant(2.0) * Var::constant(3.0) + 1.0;
        vec![c, x[0] * c, Var::constant(5.0)]
    });
    assert_eq!(rec.stats().nodes, 2);
    assert_eq!(rec.outputs(), &[7.0, 7.0, 5.0]);
    assert_eq!(rec.pullback(&[1.0, 1.0, 1.0]), vec![7.0]);
    // An output listed twice gets both seeds; an input as output seeds the input.
    let rec = record(&[1.0, 2.0], |x| vec![x[0], x[0], x[1] * 3.0]);
    assert_eq!(rec.pullback(&[1.0, 2.0, 1.0]), vec![3.0, 3.0]);
}

#[test]
#[should_panic(expected = "gradus-tape: operation on a Var outside its recording's jobs")]
fn operation_on_a_foreign_thread_panics() {
    grad(&[1.0], |x| {
        let v = x[0];
        std::thread::scope(|s| {
            let h = s.spawn(move || v.value() * 2.0 + (v * v).value());
            match h.join() {
                Ok(_) => {}
                Err(e) => std::panic::resume_unwind(e),
            }
        });
        v
    });
}

#[test]
#[should_panic(expected = "has length 2 but the recording needs 1")]
fn pullback_with_wrong_seed_length_panics() {
    let rec = record(&[1.0], |x| vec![x[0] * 2.0]);
    rec.pullback(&[1.0, 2.0]);
}

#[test]
fn pullback_into_reports_length_mismatch() {
    let rec = record(&[1.0, 2.0], |x| vec![x[0] * x[1]]);
    let mut out = [0.0; 2];
    let e = rec
        .pullback_into(
            &[],
            &ReverseOptions::default(),
            &mut Adjoints::new(),
            &mut out,
        )
        .unwrap_err();
    assert_eq!((e.expected, e.actual), (1, 0));
    let mut short = [0.0; 1];
    let e: LengthMismatch = rec
        .pullback_into(
            &[1.0],
            &ReverseOptions::default(),
            &mut Adjoints::new(),
            &mut short,
        )
        .unwrap_err();
    assert_eq!((e.expected, e.actual), (2, 1));
}

#[test]
fn panic_inside_the_closure_discards_the_recording() {
    let r = std::panic::catch_unwind(|| {
        grad(&[1.0], |x| {
            let (a, _) = join(|| x[0] * 2.0, || -> Var { panic!("inside a task") });
            a
        })
    });
    assert!(r.is_err());
    // The thread-local state was restored: recording works again, and operations outside
    // any recording still panic.
    assert_eq!(grad(&[2.0], |x| x[0] * x[0]), (4.0, vec![4.0]));
    let outside = std::panic::catch_unwind(|| {
        let rec = record(&[1.0], |x| vec![x[0]]);
        drop(rec);
    });
    assert!(outside.is_ok());
}

#[test]
fn nested_recordings_are_independent() {
    let (y, g) = grad(&[3.0], |x| {
        let (inner, inner_g) = grad(&[x[0].value()], |z| z[0] * z[0] * z[0]);
        assert_eq!((inner, inner_g.clone()), (27.0, vec![27.0]));
        x[0] * inner_g[0]
    });
    assert_eq!((y, g), (81.0, vec![27.0]));
}

#[test]
fn join_and_par_map_outside_a_recording_are_plain() {
    let (a, b) = join(|| 1 + 1, || 2 * 3);
    assert_eq!((a, b), (2, 6));
    assert_eq!(par_map(&[1, 2, 3], |x| x * 10), vec![10, 20, 30]);
}

/// A task's share of `tasks_reading_many_values_of_the_parent`: every input read several
/// times, by binary operations, `sum`, `mul_add` and `dot` (also with constants).
fn task_share<'r>(x: &[Var<'r>], k: usize) -> Var<'r> {
    use gradus_tape::Real;
    let n = x.len();
    let mut s = Var::constant(0.0);
    for i in 0..n {
        s += x[i] * x[(i * 7 + k) % n];
    }
    let consts: Vec<Var<'r>> = (0..5).map(|i| Var::constant(i as f64 - 2.0)).collect();
    s + gradus_tape::sum(&x[k..k + 10])
        + x[k].mul_add(x[k + 1], x[(k + 50) % n]).sin()
        + gradus_tape::dot(&x[k..k + 20], &x[40..60]).tanh()
        + gradus_tape::dot(&consts, &x[k + 3..k + 8])
}

#[test]
fn tasks_reading_many_values_of_the_parent() {
    // More distinct values of the parent job than the per-job cache of imports holds, read
    // from 8 parallel tasks: against the same program without forks.
    let x: Vec<f64> = (0..100).map(|i| 0.03 * i as f64 - 1.5).collect();
    let ks: Vec<usize> = (0..8).collect();
    let (y_seq, g_seq) = grad(&x, |x| {
        ks.iter()
            .map(|&k| task_share(x, k) * (k + 1) as f64)
            .fold(Var::constant(0.0), |a, b| a + b)
    });
    let rec = record(&x, |x| {
        let parts = par_map(&ks, |&k| task_share(x, k) * (k + 1) as f64);
        vec![parts.into_iter().fold(Var::constant(0.0), |a, b| a + b)]
    });
    assert_eq!(rec.outputs()[0], y_seq);
    // Every use of a value of another job is a cross-job edge (258 per task, and the 8 parts).
    assert_eq!(
        rec.stats().cross_job_edges,
        8 * (2 * 100 + 10 + 3 + 40 + 5) + 8
    );
    for g in [rec.pullback(&[1.0]), {
        let mut out = vec![0.0; x.len()];
        rec.pullback_into(
            &[1.0],
            &ReverseOptions::sequential(),
            &mut Adjoints::new(),
            &mut out,
        )
        .unwrap();
        out
    }] {
        for (a, b) in g.iter().zip(&g_seq) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} against {b}");
        }
    }
}

#[test]
#[should_panic(expected = "a Var of another recording")]
fn a_var_of_an_outer_recording_is_caught() {
    record(&[1.0, 2.0, 3.0], |outer| {
        let late = outer[0] * outer[1] * outer[2];
        // The brand forbids combining `late` with the inner recording's Vars; alone, `late *
        // late` is recorded into the inner recording's job 0, which has one node: `late` lies
        // past its end.
        let _ = grad(&[1.0], |inner| {
            let _ = late * late;
            inner[0]
        });
        vec![late]
    });
}

#[test]
fn dot_is_one_node_and_matches_the_scalar_loop() {
    let x = dotprod_inputs(300);
    let (y, g) = grad(&x, |v| {
        let (u, w) = v.split_at(300);
        gradus_tape::dot(u, w)
    });
    assert_eq!((y, g.clone()), grad(&x, |v| fdotprod(v)));
    let rec = record(&x, |v| {
        let (u, w) = v.split_at(300);
        vec![gradus_tape::dot(u, w)]
    });
    let stats = rec.stats();
    assert_eq!((stats.nodes, stats.edges), (600 + 1, 600));
    let (_, counts) = rec.pullback_counting(&[1.0], &no_skip()).unwrap();
    assert_eq!((counts.nodes_resolved, counts.edges_visited), (1, 600));
    // All constants: a constant.
    let (y, g) = grad(&[1.0], |_| {
        let c = [Var::constant(2.0), Var::constant(3.0)];
        gradus_tape::dot(&c, &c)
    });
    assert_eq!((y, g), (13.0, vec![0.0]));
}

#[test]
fn operations_passing_the_adjoint_unchanged_record_nothing() {
    // `x + c`, `c + x`, `x - c`, `x * 1`, `x / 1`: partial 1 with respect to the only
    // non-constant operand, so the result is that operand's node with the new value.
    fn f<'r>(x: &[Var<'r>]) -> Var<'r> {
        let one = Var::constant(1.0);
        let y = (((x[0] + 2.5) * 1.0 - 0.5) / one + x[1]) * one;
        (3.0 + y) / 1.0
    }
    let rec = record(&[1.5, -2.0], |x| vec![f(x)]);
    // Only `… + x[1]` is recorded.
    assert_eq!((rec.stats().nodes, rec.stats().edges), (3, 2));
    assert_eq!(
        rec.outputs(),
        &[(((1.5 + 2.5) * 1.0 - 0.5) / 1.0 - 2.0) * 1.0 + 3.0]
    );
    assert_eq!(rec.pullback(&[2.0]), vec![2.0, 2.0]);
    // `c - x`, `x * c`: folded into the coefficient; the output records it once.
    let rec = record(&[1.5], |x| vec![(1.0 - x[0]) * 3.0]);
    assert_eq!(rec.stats().nodes, 2);
    assert_eq!(rec.pullback(&[1.0]), vec![-3.0]);
    // A folded input as an output gets its seed.
    let (y, g) = grad(&[4.0, 5.0], |x| x[1] - 1.0);
    assert_eq!((y, g), (4.0, vec![0.0, 1.0]));
}
