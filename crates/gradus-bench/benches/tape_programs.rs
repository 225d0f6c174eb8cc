//! The six programs of docs/tape.md §Tests and benchmarks on gradus-tape and its peers (`reverse`,
//! `ad_trait`'s reverse-mode `adr`, and forward mode with gradus-num's `Dual` and `num-dual`), plus
//! the primal in `f64` as the baseline.
//!
//! Each program is written once over the bench-local trait `Sc` (a local adapter trait, since
//! the orphan rule forbids implementing gradus's `Real` for the peers' types here), so every
//! engine performs the same operations. One iteration is one full differentiation: recording
//! plus pullback(s) (reverse mode), or one forward pass per input (forward mode). Tapes and
//! graphs are reused between iterations by every reverse engine (`Tape::grad_into`,
//! `reverse::Tape::clear`, `adr`'s global graph reset).
//!
//! Run: `cargo bench -p gradus-bench --bench tape_programs`. Before measuring, each engine's
//! gradient is checked against the primal's finite differences (the program would panic).

#![allow(clippy::type_complexity)]

mod tape_common;

use ad_trait::reverse_ad::adr::{GlobalComputationGraph, adr};
use criterion::{Criterion, criterion_group, criterion_main};
use gradus_num::Dual;
use gradus_tape::{Adjoints, ReverseOptions, Tape};
use num_dual::Dual64;
use reverse::Gradient;
use std::hint::black_box;
use std::time::Duration;
use tape_common::*;

fn bench_scalar_programs(c: &mut Criterion) {
    let rtape = reverse::Tape::new();
    for p in programs() {
        let mut tape = Tape::new();
        let mut g = vec![0.0; p.x.len()];
        let y = (p.gradus)(&mut tape, &p.x, &mut g);
        assert_eq!(y, (p.f64_fn)(&p.x), "{}: value", p.name);
        // Cross-check every engine against gradus-tape before timing.
        let (yr, gr) = (p.reverse)(&rtape, &p.x);
        assert!((yr - y).abs() <= 1e-9 * y.abs().max(1.0));
        check(&p.name, "reverse", &gr, &g);
        let (ya, ga) = (p.adr)(&p.x);
        assert!((ya - y).abs() <= 1e-9 * y.abs().max(1.0));
        check(&p.name, "ad_trait adr", &ga, &g);

        let mut group = c.benchmark_group(format!("tape/{}", p.name));
        group.bench_function("primal_f64", |b| b.iter(|| (p.f64_fn)(black_box(&p.x))));
        group.bench_function("gradus_tape", |b| {
            b.iter(|| (p.gradus)(&mut tape, black_box(&p.x), &mut g))
        });
        group.bench_function("reverse", |b| {
            b.iter(|| (p.reverse)(&rtape, black_box(&p.x)))
        });
        group.bench_function("ad_trait_adr", |b| b.iter(|| (p.adr)(black_box(&p.x))));
        if let Some((fg, fnd)) = &p.forward {
            let gf = forward_gradient(&p.x, Dual::new, fg.as_ref(), |d| d.d);
            check(&p.name, "gradus-num Dual", &gf, &g);
            let gn = forward_gradient(&p.x, Dual64::new, fnd.as_ref(), |d| d.eps);
            check(&p.name, "num-dual", &gn, &g);
            group.bench_function("gradus_num_dual_fwd", |b| {
                b.iter(|| forward_gradient(black_box(&p.x), Dual::new, fg.as_ref(), |d| d.d))
            });
            group.bench_function("num_dual_fwd", |b| {
                b.iter(|| forward_gradient(black_box(&p.x), Dual64::new, fnd.as_ref(), |d| d.eps))
            });
        }
        group.finish();
    }
}

/// `frotvecquat`: the full 3 × 7 Jacobian, one recording and three pullbacks (forward mode:
/// seven passes).
fn bench_rotvecquat(c: &mut Criterion) {
    let x = gradus_tape::programs::ROTVECQUAT_INPUTS;
    let mut group = c.benchmark_group("tape/frotvecquat");
    group.bench_function("primal_f64", |b| b.iter(|| frotvecquat(black_box(&x))));
    let mut tape = Tape::new();
    let mut adj = Adjoints::new();
    let options = ReverseOptions::default();
    let mut jac = [[0.0; 7]; 3];
    let mut gradus_jacobian = |x: &[f64], jac: &mut [[f64; 7]; 3]| {
        let rec = tape.record(x, |v| frotvecquat(v).to_vec());
        for (i, row) in jac.iter_mut().enumerate() {
            let mut seed = [0.0; 3];
            seed[i] = 1.0;
            rec.pullback_into(&seed, &options, &mut adj, row).unwrap();
        }
        tape.recycle(rec);
    };
    gradus_jacobian(&x, &mut jac);
    assert_eq!(jac[0], [4.0, -44.0, 118.0, 64.0, 48.0, -16.0, 20.0]);
    group.bench_function("gradus_tape", |b| {
        b.iter(|| gradus_jacobian(black_box(&x), &mut jac))
    });
    let rtape = reverse::Tape::new();
    let reverse_jacobian = |x: &[f64]| {
        rtape.clear();
        let vars = rtape.add_vars(x);
        let y = frotvecquat(&vars);
        y.map(|yi| yi.grad().wrt(&vars))
    };
    assert_eq!(reverse_jacobian(&x)[1], jac[1].to_vec());
    group.bench_function("reverse", |b| b.iter(|| reverse_jacobian(black_box(&x))));
    let adr_jacobian = |x: &[f64]| {
        GlobalComputationGraph::get().reset();
        let vars: Vec<adr> = x.iter().map(|&v| adr::new_variable(v, false)).collect();
        let y = frotvecquat(&vars);
        y.map(|yi| {
            let g = yi.get_backwards_mode_grad();
            vars.iter().map(|v| g.wrt(v)).collect::<Vec<f64>>()
        })
    };
    assert_eq!(adr_jacobian(&x)[2], jac[2].to_vec());
    group.bench_function("ad_trait_adr", |b| b.iter(|| adr_jacobian(black_box(&x))));
    let fwd = |x: &[f64]| {
        let mut cols = [[0.0; 3]; 7];
        for (i, col) in cols.iter_mut().enumerate() {
            let xs: [Dual<f64>; 7] =
                std::array::from_fn(|k| Dual::new(x[k], if k == i { 1.0 } else { 0.0 }));
            *col = frotvecquat(&xs).map(|d| d.d);
        }
        cols
    };
    assert_eq!(fwd(&x)[0][0], 4.0);
    group.bench_function("gradus_num_dual_fwd", |b| b.iter(|| fwd(black_box(&x))));
    let fwd_nd = |x: &[f64]| {
        let mut cols = [[0.0; 3]; 7];
        for (i, col) in cols.iter_mut().enumerate() {
            let xs: [Dual64; 7] =
                std::array::from_fn(|k| Dual64::new(x[k], if k == i { 1.0 } else { 0.0 }));
            *col = frotvecquat(&xs).map(|d| d.eps);
        }
        cols
    };
    assert_eq!(fwd_nd(&x)[0][0], 4.0);
    group.bench_function("num_dual_fwd", |b| b.iter(|| fwd_nd(black_box(&x))));
    group.finish();
}

/// Bytes of tape per recorded operation for each program (printed once).
fn tape_sizes(_: &mut Criterion) {
    let mut tape = Tape::new();
    let rows: Vec<(&str, Vec<f64>, gradus_tape::TapeStats)> = vec![
        {
            let x = gradus_tape::programs::dotprod_inputs(1000);
            let r = tape.record(&x, |v| vec![fdotprod(v)]);
            ("fdotprod/1000", x, r.stats())
        },
        {
            let x = gradus_tape::programs::summatvec_inputs(100);
            let r = tape.record(&x, |v| vec![fsummatvec(v, 100)]);
            ("fsummatvec/100", x, r.stats())
        },
        {
            let x = gradus_tape::programs::ROTVECQUAT_INPUTS.to_vec();
            let r = tape.record(&x, |v| frotvecquat(v).to_vec());
            ("frotvecquat", x, r.stats())
        },
        {
            let x = gradus_tape::programs::neural_inputs();
            let r = tape.record(&x, |v| vec![fneural(v)]);
            ("fneural", x, r.stats())
        },
        {
            let x = gradus_tape::programs::particles_inputs();
            let r = tape.record(&x, |v| vec![gradus_tape::programs::fparticles(v)]);
            ("fparticles (join chain)", x, r.stats())
        },
    ];
    for (name, _, s) in rows {
        eprintln!("tape size {name}: {s}");
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = tape_sizes, bench_scalar_programs, bench_rotvecquat
}
criterion_main!(benches);
