//! Benchmarks of the reversible eDSL (benchmarks/README.md): the Petersen-graph embedding
//! (native, reversible forward, uncall, gradient, Hessian, forward-mode gradient peer), the
//! complex logarithm (native, reversible, adjoint) and sparse 1000 × 1000 matrices at
//! density 0.05 (Frobenius dot and complex sparse × dense accumulate: native, reversible
//! forward, backward from seeded output gradients), the ADBench GMM objective (native,
//! reversible, reversible gradient, tape gradient of the native program and of the same
//! objective written with the tape's `dot`) and the whole-file
//! bundle-adjustment objective and CSR Jacobian on `ba1` (plus one observation's residual and
//! 2 × 15 block).
//!
//! The reversible functions are the tested examples of `gradus-rev/examples`, run with their
//! invertibility checks on (the default): the `unchecked` feature is not enabled here because
//! feature unification would switch the checks off in the workspace's test build too.
//! Gradients use the zero-allocation path: the forward `f`, then `f_inv` on caller-owned
//! `GVar` buffers.
//!
//! Run: `cargo bench -p gradus-bench --bench rev_programs`.

#![allow(clippy::type_complexity)]

#[path = "../../gradus-rev/examples/petersen.rs"]
#[allow(unused)]
mod petersen;

#[path = "../../gradus-rev/examples/sparse.rs"]
#[allow(unused)]
mod sparse;

#[path = "../../gradus-rev/examples/bundle_adjustment.rs"]
#[allow(unused)]
mod ba;

#[path = "../../gradus-rev/examples/gmm.rs"]
#[allow(unused)]
mod gmm;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gradus_rev::hessian;
use gradus_rev::prelude::*;
use std::hint::black_box;
use std::time::Duration;

/// y ← y + log(x) for complex x (docs/reversible.md §Compute, copy, uncompute).
#[reversible]
fn log_acc<T: RevReal>(y: &mut Complex<T>, x: &mut Complex<T>) {
    routine! {
        let mut r = T::zero();
        r += abs(x);
    }
    y.re += ln(r);
    y.im += arg(x);
    unroutine!();
}

fn bench_petersen(c: &mut Criterion) {
    let mut g = c.benchmark_group("rev_petersen");
    for k in [2usize, 4, 6, 8, 10] {
        let x0 = petersen::anchor_input(k);
        g.bench_with_input(BenchmarkId::new("native", k), &k, |b, &k| {
            b.iter(|| petersen::petersen_native(black_box(&x0), k))
        });
        g.bench_with_input(BenchmarkId::new("rev", k), &k, |b, &k| {
            let mut x = x0.clone();
            b.iter(|| {
                let mut loss = 0.0;
                petersen::petersen(&mut loss, black_box(&mut x), k).unwrap();
                loss
            })
        });
        g.bench_with_input(BenchmarkId::new("rev_unchecked", k), &k, |b, &k| {
            let mut x = x0.clone();
            b.iter(|| {
                let mut loss = 0.0;
                petersen::petersen_unchecked(&mut loss, black_box(&mut x), k).unwrap();
                loss
            })
        });
        g.bench_with_input(BenchmarkId::new("grad_unchecked", k), &k, |b, &k| {
            let mut x = x0.clone();
            let mut wx: Vec<GVar<f64>> = x0.iter().map(|&v| GVar::new(v)).collect();
            b.iter(|| {
                let mut loss = 0.0;
                petersen::petersen_unchecked(&mut loss, &mut x, k).unwrap();
                let mut wl = GVar::with_grad(loss, 1.0);
                for (w, v) in wx.iter_mut().zip(&x) {
                    *w = GVar::new(*v);
                }
                petersen::petersen_unchecked_inv(&mut wl, black_box(&mut wx), k).unwrap();
                wx[2].g
            })
        });
        let mut lf = 0.0;
        let mut xf = x0.clone();
        petersen::petersen(&mut lf, &mut xf, k).unwrap();
        g.bench_with_input(BenchmarkId::new("uncall", k), &k, |b, &k| {
            let mut x = x0.clone();
            b.iter(|| {
                let mut loss = lf;
                petersen::petersen_inv(&mut loss, black_box(&mut x), k).unwrap();
                loss
            })
        });
        g.bench_with_input(BenchmarkId::new("grad", k), &k, |b, &k| {
            let mut x = x0.clone();
            let mut wx: Vec<GVar<f64>> = x0.iter().map(|&v| GVar::new(v)).collect();
            b.iter(|| {
                let mut loss = 0.0;
                petersen::petersen(&mut loss, &mut x, k).unwrap();
                let mut wl = GVar::with_grad(loss, 1.0);
                for (w, v) in wx.iter_mut().zip(&x) {
                    *w = GVar::new(*v);
                }
                petersen::petersen_inv(&mut wl, black_box(&mut wx), k).unwrap();
                wx[2].g
            })
        });
        g.bench_with_input(BenchmarkId::new("fwd_mode_grad", k), &k, |b, &k| {
            b.iter(|| gradus_num::grad_fwd(black_box(&x0), |x| petersen::petersen_native(x, k)))
        });
        g.bench_with_input(BenchmarkId::new("hess", k), &k, |b, &k| {
            b.iter(|| {
                hessian(black_box(&x0), |x| {
                    let mut x = x.to_vec();
                    let mut loss = Dual::constant(0.0);
                    petersen::petersen_grad(&mut loss, &mut x, k).unwrap().1
                })
            })
        });
    }
    g.finish();
}

fn bench_complex_log(c: &mut Criterion) {
    let mut g = c.benchmark_group("rev_complex_log");
    let x0 = Complex::new(1.0f64, 1.2);
    g.bench_function("native", |b| b.iter(|| black_box(x0).ln()));
    g.bench_function("rev", |b| {
        b.iter(|| {
            let (mut y, mut x) = (Complex::new(0.0, 0.0), black_box(x0));
            log_acc(&mut y, &mut x).unwrap();
            y
        })
    });
    let ln = x0.ln();
    g.bench_function("adjoint", |b| {
        b.iter(|| {
            let mut y = Complex::new(GVar::with_grad(ln.re, 1.0), GVar::new(ln.im));
            let mut x = Complex::new(GVar::new(black_box(x0).re), GVar::new(x0.im));
            log_acc_inv(&mut y, &mut x).unwrap();
            x
        })
    });
    g.finish();
}

fn bench_sparse(c: &mut Criterion) {
    let mut g = c.benchmark_group("rev_sparse");
    let (m, n) = (1000, 1000);
    let pa = sparse::random_csc(m, n, 0.05, 1);
    let pb = sparse::random_csc(m, n, 0.05, 2);
    let a0: Vec<f64> = (0..pa.rowval.len())
        .map(|i| (i as f64 * 0.37).sin())
        .collect();
    let b0: Vec<f64> = (0..pb.rowval.len())
        .map(|i| (i as f64 * 0.53).cos())
        .collect();
    g.bench_function("dot/native", |b| {
        b.iter(|| sparse::sparse_dot_native(black_box(&a0), &b0, &pa, &pb))
    });
    let mut keep = vec![false; 2 * m];
    g.bench_function("dot/rev", |b| {
        let (mut a, mut bb) = (a0.clone(), b0.clone());
        b.iter(|| {
            let mut r = 0.0;
            sparse::sparse_dot(&mut r, black_box(&mut a), &mut bb, &pa, &pb, &mut keep).unwrap();
            r
        })
    });
    let r0 = sparse::sparse_dot_native(&a0, &b0, &pa, &pb);
    g.bench_function("dot/back", |b| {
        let mut wa: Vec<GVar<f64>> = a0.iter().map(|&v| GVar::new(v)).collect();
        let mut wb: Vec<GVar<f64>> = b0.iter().map(|&v| GVar::new(v)).collect();
        b.iter(|| {
            let mut r = GVar::with_grad(r0, 1.0);
            sparse::sparse_dot_inv(&mut r, black_box(&mut wa), &mut wb, &pa, &pb, &mut keep)
                .unwrap();
            wa[0].g
        })
    });
    // Complex sparse × dense accumulate, dense X with p = 1 column (a sparse matrix–vector
    // product).
    let p = 1;
    let ca: Vec<Complex<f64>> = a0.iter().map(|&v| Complex::new(v, 0.5 * v)).collect();
    let cx: Vec<Complex<f64>> = (0..n * p)
        .map(|i| Complex::new((i as f64).sin(), (i as f64).cos()))
        .collect();
    g.bench_function("mul/native", |b| {
        let mut y = vec![Complex::new(0.0, 0.0); m * p];
        b.iter(|| sparse::sparse_mul_acc_native(black_box(&mut y), &ca, &cx, &pa, p))
    });
    g.bench_function("mul/rev", |b| {
        let mut y = vec![Complex::new(0.0, 0.0); m * p];
        let (mut a, mut x) = (ca.clone(), cx.clone());
        b.iter(|| sparse::sparse_mul_acc(black_box(&mut y), &mut a, &mut x, &pa, p).unwrap())
    });
    g.bench_function("mul/back", |b| {
        let w = |v: &Complex<f64>| Complex::new(GVar::new(v.re), GVar::new(v.im));
        let mut y: Vec<Complex<GVar<f64>>> = (0..m * p)
            .map(|_| Complex::new(GVar::with_grad(0.0, 1.0), GVar::with_grad(0.0, 0.5)))
            .collect();
        let mut a: Vec<Complex<GVar<f64>>> = ca.iter().map(w).collect();
        let mut x: Vec<Complex<GVar<f64>>> = cx.iter().map(w).collect();
        b.iter(|| sparse::sparse_mul_acc_inv(black_box(&mut y), &mut a, &mut x, &pa, p).unwrap())
    });
    g.finish();
}

/// Bundle adjustment, one observation: native residual, reversible residual, and the 2 × 15
/// local Jacobian from one batched backward sweep (the per-observation unit of ADBench's
/// Jacobian; the whole file is `bench_ba_file`).
fn bench_ba(c: &mut Criterion) {
    let mut g = c.benchmark_group("rev_ba_observation");
    let cam = [
        0.1, -0.2, 0.05, 0.3, -0.1, -5.0, 400.0, 10.0, -5.0, 1e-3, 1e-6,
    ];
    let x = [0.5, 0.2, 1.0];
    let feat = [12.0, -3.0];
    g.bench_function("native", |b| {
        b.iter(|| ba::ba_residual_native(black_box(&cam), &x, 0.9, &feat))
    });
    g.bench_function("rev", |b| {
        b.iter(|| {
            let (mut out, mut c, mut xx, mut w) = ([0.0; 2], black_box(cam), x, 0.9);
            ba::ba_residual(&mut out, &mut c, &mut xx, &mut w, &feat).unwrap();
            out
        })
    });
    g.bench_function("jacobian", |b| {
        b.iter(|| ba::ba_local_jacobian(black_box(&cam), &x, 0.9, &feat))
    });
    g.finish();
}

/// Whether the ADBench data beside the repository (`../shared/data/adbench`) is there; the
/// benchmarks that read it are skipped, with a notice, when it is not.
fn adbench_present() -> bool {
    let dir = gmm::adbench_dir();
    let present = dir.is_dir();
    if !present {
        eprintln!("skipped: no ADBench data at {}", dir.display());
    }
    present
}

/// GMM's objective for the tape, as `gmm::gmm_native` with its inner products as the tape's
/// `dot` (one node each): every row of the triangular product `L y` and the squared norm
/// `|Q y|²`. The sums run in another order than the native program's, so the value agrees to
/// rounding.
fn gmm_tape_dot<'r>(
    p: &[gradus_tape::Var<'r>],
    x: &[f64],
    (d, k): (usize, usize),
    gamma: f64,
    m: usize,
) -> gradus_tape::Var<'r> {
    use gradus_tape::{Var, dot};
    let s = d * (d + 1) / 2;
    let n = x.len() / d;
    let (alphas, rest) = p.split_at(k);
    let (means, icf) = rest.split_at(k * d);
    let lse = |v: &[Var<'r>]| {
        let mx = v[1..].iter().fold(v[0], |a, &t| if t > a { t } else { a });
        v.iter()
            .fold(Var::constant(0.0), |a, &t| a + (t - mx).exp())
            .ln()
            + mx
    };
    let qsum: Vec<Var<'r>> = (0..k)
        .map(|c| {
            icf[c * s..c * s + d]
                .iter()
                .fold(Var::constant(0.0), |a, &q| a + q)
        })
        .collect();
    // Row r of cluster c's strictly lower part, gathered once (no records).
    let rows: Vec<Vec<Vec<Var<'r>>>> = (0..k)
        .map(|c| {
            (0..d)
                .map(|r| {
                    (0..r)
                        .map(|col| icf[c * s + gmm::lower_index(d, r, col)])
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut inner = vec![Var::constant(0.0); k];
    let (mut y, mut z) = (Vec::with_capacity(d), Vec::with_capacity(d));
    let mut total = Var::constant(0.0);
    for i in 0..n {
        for c in 0..k {
            y.clear();
            y.extend((0..d).map(|j| Var::constant(x[i * d + j]) - means[c * d + j]));
            z.clear();
            z.extend((0..d).map(|r| icf[c * s + r].exp() * y[r] + dot(&rows[c][r], &y[..r])));
            inner[c] = alphas[c] + qsum[c] - dot(&z, &z) * 0.5;
        }
        total += lse(&inner);
    }
    total -= lse(alphas) * n as f64;
    let mut fro = Var::constant(0.0);
    for c in 0..k {
        for j in 0..d {
            fro += icf[c * s + j].exp().square();
        }
        for t in d..s {
            fro += icf[c * s + t].square();
        }
    }
    let msum = qsum.iter().fold(Var::constant(0.0), |a, &q| a + q);
    total + fro * (0.5 * gamma * gamma) - msum * m as f64 + gmm::gmm_constant(d, k, n, gamma, m)
}

/// ADBench GMM (benchmarks/README.md §GMM): `10k/gmm_d2_K5` (the 3.00e1-parameter column of the
/// published table, n = 10 000) and `1k/gmm_d10_K5` (330 parameters, n = 1 000).
fn bench_gmm(c: &mut Criterion) {
    if !adbench_present() {
        return;
    }
    let mut g = c.benchmark_group("rev_gmm");
    for file in ["10k/gmm_d2_K5", "1k/gmm_d10_K5"] {
        let path = gmm::adbench_dir().join(format!("gmm/{file}.txt"));
        let inp = gmm::read_gmm(&path).unwrap_or_else(|e| panic!("{e}"));
        let p0 = inp.params();
        g.bench_function(BenchmarkId::new("native", file), |b| {
            b.iter(|| gmm::gmm_native(black_box(&p0), &inp.x, inp.d, inp.k, inp.gamma, inp.m))
        });
        g.bench_function(BenchmarkId::new("rev", file), |b| {
            let (mut a, mut mu, mut q) = (inp.alphas.clone(), inp.means.clone(), inp.icf.clone());
            b.iter(|| {
                let mut e = 0.0;
                gmm::gmm_objective(
                    &mut e,
                    black_box(&mut a),
                    &mut mu,
                    &mut q,
                    &inp.x,
                    inp.d,
                    inp.gamma,
                    inp.m,
                )
                .unwrap();
                e
            })
        });
        g.bench_function(BenchmarkId::new("grad", file), |b| {
            b.iter(|| gmm::gmm_rev_gradient(black_box(&inp)).unwrap())
        });
        let dk = (inp.d, inp.k);
        let (y_ops, g_ops) = gradus_tape::grad(&p0, |v| {
            gmm::gmm_native(v, &inp.x, inp.d, inp.k, inp.gamma, inp.m)
        });
        let (y_dot, g_dot) =
            gradus_tape::grad(&p0, |v| gmm_tape_dot(v, &inp.x, dk, inp.gamma, inp.m));
        let tol = gradus_check::Tolerance::new(1e-9, 1e-9);
        gradus_check::compare(&[y_dot], &[y_ops], tol).expect("tape_grad_dot objective");
        gradus_check::compare(&g_dot, &g_ops, tol).expect("tape_grad_dot gradient");
        g.bench_function(BenchmarkId::new("tape_grad_dot", file), |b| {
            b.iter(|| {
                gradus_tape::grad(black_box(&p0), |v| {
                    gmm_tape_dot(v, &inp.x, dk, inp.gamma, inp.m)
                })
            })
        });
        g.bench_function(BenchmarkId::new("tape_grad", file), |b| {
            b.iter(|| {
                gradus_tape::grad(black_box(&p0), |v| {
                    gmm::gmm_native(v, &inp.x, inp.d, inp.k, inp.gamma, inp.m)
                })
            })
        });
    }
    g.finish();
}

/// Whole-file bundle adjustment on `ba1` (31 843 observations, benchmarks/README.md §BA): the
/// residual vector natively and reversibly, and the CSR Jacobian assembled from the
/// per-observation reversible blocks.
fn bench_ba_file(c: &mut Criterion) {
    if !adbench_present() {
        return;
    }
    let mut g = c.benchmark_group("rev_ba_file");
    let path = ba::adbench_dir().join("ba/ba1_n49_m7776_p31843.txt");
    let inp = ba::read_ba(&path).unwrap_or_else(|e| panic!("{e}"));
    g.bench_function("ba1/objective_native", |b| {
        b.iter(|| ba::ba_objective_native(black_box(&inp)))
    });
    g.bench_function("ba1/objective_rev", |b| {
        b.iter(|| ba::ba_objective(black_box(&inp)).unwrap())
    });
    g.bench_function("ba1/jacobian", |b| {
        b.iter(|| ba::ba_jacobian(black_box(&inp)).unwrap())
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_petersen, bench_complex_log, bench_sparse, bench_ba, bench_gmm, bench_ba_file
}
criterion_main!(benches);
