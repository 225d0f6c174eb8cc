//! The six benchmark programs of docs/tape.md §Tests and benchmarks: reference outputs and
//! gradients from docs/tape.md, finite differences, forward mode (transposition identity), and
//! parallel against sequential reverse passes.

use gradus_check::{SplitMix64, Tolerance, check_transposition, compare, fd};
use gradus_num::{Dual, jvp};
use gradus_tape::programs::*;
use gradus_tape::{Adjoints, ReverseOptions, Var, grad, jacobian, record};

/// Checks `grad` of a scalar program against forward mode along a few random directions
/// (transposition identity) and against central finite differences along the same directions.
fn check_scalar_program(
    x: &[f64],
    f64_fn: fn(&[f64]) -> f64,
    dual_fn: fn(&[Dual<f64>]) -> Dual<f64>,
    g: &[f64],
    fd_tol: Tolerance,
) {
    let mut rng = SplitMix64::new(99);
    for _ in 0..3 {
        let xdot = rng.vector(x.len(), -1.0, 1.0);
        let (_, ydot) = jvp(x, &xdot, |d| vec![dual_fn(d)]);
        check_transposition(g, &xdot, &[1.0], &ydot, Tolerance::ROUNDING).unwrap();
        let fd = fd::jvp(x, &xdot, |x| vec![f64_fn(x)]);
        compare(&[gradus_check::dot(g, &xdot)], &fd, fd_tol).unwrap();
    }
}

#[test]
fn fmult_value_and_gradient() {
    let (y, g) = grad(&[3.0, 4.0], |x| fmult(x));
    assert_eq!((y, g), (12.0, vec![4.0, 3.0]));
}

#[test]
fn fdotprod_value_and_gradient() {
    for n in [1usize, 100, 1000] {
        let x = dotprod_inputs(n);
        let (y, g) = grad(&x, |x| fdotprod(x));
        // Σ (i + 1)(2i + 3) in integers.
        let exact: u128 = (0..n as u128).map(|i| (i + 1) * (2 * i + 3)).sum();
        assert_eq!(y, exact as f64);
        for i in 0..n {
            assert_eq!(g[i], 2.0 * i as f64 + 3.0, "∂f/∂u_{i}");
            assert_eq!(g[n + i], i as f64 + 1.0, "∂f/∂v_{i}");
        }
    }
}

#[test]
fn fsummatvec_value_and_gradient() {
    for n in [1usize, 7, 100] {
        let x = summatvec_inputs(n);
        let (y, g) = grad(&x, |x| fsummatvec(x));
        let nf = n as f64;
        let mut exact = 0.0;
        for c in 0..n {
            let col: f64 = nf * (1.0 + c as f64) + nf * nf * (nf - 1.0) / 2.0;
            exact += col * (2.0 * c as f64 + 3.0);
            assert_eq!(g[n * n + c], col, "∂f/∂v_{c}");
        }
        assert_eq!(y, exact);
        for r in 0..n {
            for c in 0..n {
                assert_eq!(g[r * n + c], 2.0 * c as f64 + 3.0);
            }
        }
    }
}

#[test]
fn frotvecquat_value_and_jacobian() {
    let (y, j) = jacobian(&ROTVECQUAT_INPUTS, |x| frotvecquat(x).to_vec());
    assert_eq!(y, vec![270.0, 180.0, 342.0]);
    let expected = [
        [4.0, -44.0, 118.0, 64.0, 48.0, -16.0, 20.0],
        [124.0, 22.0, 4.0, -48.0, 64.0, 20.0, 16.0],
        [-22.0, 116.0, 44.0, 16.0, -20.0, 64.0, 48.0],
    ];
    for (row, e) in j.iter().zip(&expected) {
        assert_eq!(row.as_slice(), e.as_slice());
    }
    // The same from one recording pulled back three times, reusing one adjoint buffer.
    let rec = record(&ROTVECQUAT_INPUTS, |x| frotvecquat(x).to_vec());
    let mut adj = Adjoints::new();
    let mut row = vec![0.0; 7];
    for (i, e) in expected.iter().enumerate() {
        let mut seed = [0.0; 3];
        seed[i] = 1.0;
        rec.pullback_into(&seed, &ReverseOptions::sequential(), &mut adj, &mut row)
            .unwrap();
        assert_eq!(row.as_slice(), e.as_slice());
    }
    // Forward mode agrees.
    let (_, jf) = gradus_num::jacobian_fwd::<7, _>(&ROTVECQUAT_INPUTS, |x| frotvecquat(x).to_vec());
    assert_eq!(jf, j);
}

#[test]
fn fneural_reference_values() {
    let p = neural_inputs();
    assert_eq!(p.len(), 10_200);
    let (h2, m) = neural_hidden(&p);
    assert!((m - 43.19981468100205).abs() < 1e-10, "m = {m}");
    assert_eq!(h2.iter().filter(|&&h| h > 0.0).count(), 25);
    let (n0, n1, _) = NEURAL_SIZES;
    // 50 of the 100 first-layer units are active.
    let x = &p[..n0];
    let active1 = (0..n1)
        .filter(|&i| {
            let z: f64 =
                (0..n0).map(|j| p[n0 + i * n0 + j] * x[j]).sum::<f64>() + p[n0 + n1 * n0 + i];
            z > 0.0
        })
        .count();
    assert_eq!(active1, 50);
    let y = fneural_weighted(&p);
    assert!((y + 0.7925674033888).abs() < 1e-11, "weighted output {y}");
    assert!((fneural(&p) - 1.0).abs() < 1e-14);
}

#[test]
fn fneural_gradients() {
    let p = neural_inputs();
    let (y, g) = grad(&p, |p| fneural_weighted(p));
    assert_eq!(y, fneural_weighted(&p));
    check_scalar_program(
        &p,
        fneural_weighted::<f64>,
        fneural_weighted::<Dual<f64>>,
        &g,
        Tolerance::new(1e-6, 1e-6),
    );
    // The unweighted network's output is identically 1: its gradient is rounding noise.
    let (y1, g1) = grad(&p, |p| fneural(p));
    assert!((y1 - 1.0).abs() < 1e-14);
    assert!(g1.iter().all(|d| d.abs() < 1e-12));
}

#[test]
fn fparticles_anchor_values() {
    let x = particles_inputs();
    let expected_grad = [
        [
            1.243122891987e-4,
            1.741838697798e-4,
            1.115154763241e-4,
            1.562532339455e-4,
        ],
        [
            1.243122891987e-4,
            2.365233455061e-4,
            1.115154763241e-4,
            2.121754309722e-4,
        ],
        [
            1.243122891987e-4,
            2.988628212325e-4,
            1.115154763241e-4,
            2.680976279990e-4,
        ],
        [
            1.243122891987e-4,
            3.612022969588e-4,
            1.115154763241e-4,
            3.240198250257e-4,
        ],
    ]
    .concat();
    let anchor = Tolerance::new(1e-16, 1e-11);
    type Program = for<'r> fn(&[Var<'r>]) -> Var<'r>;
    let variants: [(&str, Program); 3] = [
        ("chain", |x| fparticles(x)),
        ("balanced", |x| fparticles_balanced(x, PARTICLE_STEPS)),
        ("sequential", |x| fparticles_sequential(x, PARTICLE_STEPS)),
    ];
    for (name, f) in variants {
        let (y, g) = grad(&x, f);
        assert!((y - 0.00106762335129008).abs() < 1e-15, "{name}: {y}");
        compare(&g, &expected_grad, anchor).unwrap_or_else(|m| panic!("{name}: {m}"));
    }
    let g = grad(&x, |x| fparticles(x)).1;
    check_scalar_program(
        &x,
        fparticles::<f64>,
        fparticles::<Dual<f64>>,
        &g,
        Tolerance::new(1e-9, 1e-6),
    );
    let fd = fd::grad(&x, fparticles::<f64>);
    compare(&g, &fd, Tolerance::new(1e-9, 1e-5)).unwrap();
}

#[test]
fn fparticles_job_graph_and_modes() {
    let x = particles_inputs();
    let rec = record(&x, |x| vec![fparticles(x)]);
    let stats = rec.stats();
    // Root, then per join of the chain 3 jobs (two tasks and the continuation), four joins.
    assert_eq!(stats.jobs, 1 + 3 * 4);
    assert_eq!(stats.inputs, 16);
    // 16 operations per Euler step and particle, of which only the 6 with two non-constant
    // operands are recorded (the products with and divisions by constants fold into the
    // coefficients of their results), 4 × 1000 steps, plus 4 products and 3 sums (the first
    // adds to the constant 0).
    assert_eq!(stats.nodes - stats.inputs, 6 * 4000 + 4 + 3);
    let seq = {
        let mut out = vec![0.0; 16];
        rec.pullback_into(
            &[1.0],
            &ReverseOptions::sequential(),
            &mut Adjoints::new(),
            &mut out,
        )
        .unwrap();
        out
    };
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (par, seq2) = pool.install(|| {
            let rec2 = record(&x, |x| vec![fparticles(x)]);
            let mut out = vec![0.0; 16];
            rec2.pullback_into(
                &[1.0],
                &ReverseOptions::sequential(),
                &mut Adjoints::new(),
                &mut out,
            )
            .unwrap();
            (rec2.pullback(&[1.0]), out)
        });
        assert_eq!(
            seq2, seq,
            "sequential mode must be bitwise identical on {threads} threads"
        );
        compare(&par, &seq, Tolerance::new(0.0, 1e-12)).unwrap();
    }
}

/// The programs written with the vector operations of `Real` compute the same values as the
/// scalar programs, on `f64` and on the tape, and the same gradients with fewer records (and
/// fewer bytes where both sides of every dot product are dense; in `fneural`'s second layer the
/// scalar program records nothing for the weights that meet a unit the `relu` cut, while the
/// dot product lists a slot per operand).
#[test]
fn vector_variants_of_the_programs() {
    type P = for<'r> fn(&[Var<'r>]) -> Var<'r>;
    type F = fn(&[f64]) -> f64;
    let cases: [(Vec<f64>, F, F, P, P); 4] = [
        (
            dotprod_inputs(300),
            fdotprod,
            fdotprod_vec,
            |v| fdotprod(v),
            |v| fdotprod_vec(v),
        ),
        (
            summatvec_inputs(30),
            fsummatvec,
            fsummatvec_vec,
            |v| fsummatvec(v),
            |v| fsummatvec_vec(v),
        ),
        (
            neural_inputs(),
            fneural,
            fneural_vec,
            |v| fneural(v),
            |v| fneural_vec(v),
        ),
        (
            neural_inputs(),
            fneural_weighted,
            fneural_weighted_vec,
            |v| fneural_weighted(v),
            |v| fneural_weighted_vec(v),
        ),
    ];
    for (k, (x, scalar, vector, scalar_tape, vector_tape)) in cases.into_iter().enumerate() {
        assert_eq!(vector(&x), scalar(&x));
        let (y, g) = grad(&x, vector_tape);
        let (ys, gs) = grad(&x, scalar_tape);
        assert_eq!(y, ys);
        compare(&g, &gs, Tolerance::new(1e-13, 1e-13)).unwrap();
        let stats = record(&x, |v| vec![vector_tape(v)]).stats();
        let scalar_stats = record(&x, |v| vec![scalar_tape(v)]).stats();
        assert!(
            stats.nodes < scalar_stats.nodes,
            "{stats} against {scalar_stats}"
        );
        if k < 2 {
            assert!(
                stats.bytes < scalar_stats.bytes,
                "{stats} against {scalar_stats}"
            );
        }
    }
    // Forward mode through the default methods of `Real`.
    let p = neural_inputs();
    let (_, g) = grad(&p, |v| fneural_weighted_vec(v));
    check_scalar_program(
        &p,
        fneural_weighted_vec::<f64>,
        fneural_weighted_vec::<Dual<f64>>,
        &g,
        Tolerance::new(1e-6, 1e-6),
    );
}
