#![allow(clippy::needless_range_loop)]
//! The examples of docs/reversible.md §Examples and tests and benchmarks/README.md: anchor values,
//! round trips and gradients (finite differences and forward mode as independent references),
//! Hessians through `Dual` inside `GVar`.

#[path = "../../examples/petersen.rs"]
mod petersen;

#[path = "../../examples/givens_unitary.rs"]
mod givens;

#[path = "../../examples/sparse.rs"]
mod sparse;

#[path = "../../examples/exp_series.rs"]
mod exp_series;

#[path = "../../examples/power.rs"]
mod power;

#[path = "../../examples/besselj.rs"]
mod besselj;

#[path = "../../examples/qr.rs"]
mod qr;

/// The bundle-adjustment example, also used by `bundle_adjustment.rs`.
#[path = "../../examples/bundle_adjustment.rs"]
pub(crate) mod ba;

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_num::grad_fwd;
use gradus_rev::prelude::*;

#[test]
fn petersen_anchors_and_round_trip() {
    for (k, loss0, g02) in [
        (2, 1.01452295298651, -0.121619),
        (5, 1.688520275694325, -0.107857),
    ] {
        let x0 = petersen::anchor_input(k);
        let (mut loss, mut x) = (0.0, x0.clone());
        petersen::petersen(&mut loss, &mut x, k).unwrap();
        assert!((loss - loss0).abs() < 1e-12, "k={k}: {loss}");
        assert!((petersen::petersen_native(&x0, k) - loss0).abs() < 1e-12);
        petersen::petersen_inv(&mut loss, &mut x, k).unwrap();
        assert!(loss.abs() < 1e-12);
        assert_eq!(x, x0);
        let mut loss = 0.0;
        let (dl, g) = petersen::petersen_grad(&mut loss, &mut x, k).unwrap();
        assert_eq!(dl, 1.0);
        let (mut lu, mut xu) = (0.0, x0.clone());
        let (_, gu) = petersen::petersen_unchecked_grad(&mut lu, &mut xu, k).unwrap();
        assert_eq!((lu, &gu), (loss, &g));
        assert!((g[2] - g02).abs() < 1e-6, "k={k}: {}", g[2]);
        // Independent references: forward mode on the native program, finite differences.
        let (_, gf) = grad_fwd(&x0, |x| petersen::petersen_native(x, k));
        compare(&g, &gf, Tolerance::new(1e-10, 1e-10)).unwrap();
        let fd = fd::grad(&x0, |x| petersen::petersen_native(x, k));
        compare(&g, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
    }
}

#[test]
fn petersen_hessian_forward_over_reverse() {
    let k = 2;
    let x0 = petersen::anchor_input(k);
    let h = gradus_rev::hessian(&x0, |x| {
        let mut x = x.to_vec();
        let mut loss = Dual::constant(0.0);
        petersen::petersen_grad(&mut loss, &mut x, k).unwrap().1
    });
    // Against finite differences of the reversible gradient.
    for j in [0, 3, 12, 19] {
        let col: Vec<f64> = (0..x0.len()).map(|i| h[i][j]).collect();
        let fd_col: Vec<f64> = (0..x0.len())
            .map(|i| {
                fd::grad(&x0, |x| {
                    let (mut l, mut xx) = (0.0, x.to_vec());
                    petersen::petersen_grad(&mut l, &mut xx, k).unwrap().1[i]
                })[j]
            })
            .collect();
        compare(&col, &fd_col, Tolerance::new(1e-5, 1e-4)).unwrap();
    }
    for i in 0..x0.len() {
        for j in 0..x0.len() {
            assert!((h[i][j] - h[j][i]).abs() < 1e-9);
        }
    }
}

#[test]
fn petersen_adjoint_is_reversible() {
    // Running the forward program on the GVar state after the backward sweep restores the
    // seeded state: values and gradients.
    let k = 3;
    let x0 = petersen::anchor_input(k);
    let (mut loss, mut x) = (0.0, x0.clone());
    petersen::petersen(&mut loss, &mut x, k).unwrap();
    let mut wl = GVar::with_grad(loss, 1.0);
    let mut wx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
    petersen::petersen_inv(&mut wl, &mut wx, k).unwrap();
    petersen::petersen(&mut wl, &mut wx, k).unwrap();
    assert!((wl.x - loss).abs() < 1e-12 && (wl.g - 1.0).abs() < 1e-12);
    for v in &wx {
        assert!(v.g.abs() < 1e-10);
    }
}

#[test]
fn givens_round_trip_orthogonality_and_gradient() {
    let n = 5;
    let mut rng = SplitMix64::new(3);
    let v0 = rng.vector(n, -1.0, 1.0);
    let th0 = rng.vector(n * (n - 1) / 2, -3.0, 3.0);
    let (mut v, mut th) = (v0.clone(), th0.clone());
    givens::givens_unitary(&mut v, &mut th).unwrap();
    let n0: f64 = v0.iter().map(|x| x * x).sum();
    let n1: f64 = v.iter().map(|x| x * x).sum();
    assert!((n0 - n1).abs() < 1e-12);
    givens::givens_unitary_inv(&mut v, &mut th).unwrap();
    compare(&v, &v0, Tolerance::ROUNDING).unwrap();
    let w = rng.vector(n, -1.0, 1.0);
    let mut loss = 0.0;
    let (_, _, gth) = givens::givens_loss_grad(&mut loss, &mut v, &mut th, &w).unwrap();
    let fd = fd::grad(&th0, |t| {
        let (mut l, mut vv, mut tt) = (0.0, v0.clone(), t.to_vec());
        givens::givens_loss(&mut l, &mut vv, &mut tt, &w).unwrap();
        l
    });
    compare(&gth, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
}

#[test]
fn sparse_dot_against_native_round_trip_and_gradient() {
    let (m, n) = (40, 30);
    let pa = sparse::random_csc(m, n, 0.2, 11);
    let pb = sparse::random_csc(m, n, 0.2, 12);
    let mut rng = SplitMix64::new(5);
    let a0 = rng.vector(pa.rowval.len(), -1.0, 1.0);
    let b0 = rng.vector(pb.rowval.len(), -1.0, 1.0);
    let mut keep = vec![false; 2 * m];
    let (mut r, mut a, mut b) = (0.0, a0.clone(), b0.clone());
    sparse::sparse_dot(&mut r, &mut a, &mut b, &pa, &pb, &mut keep).unwrap();
    let native = sparse::sparse_dot_native(&a0, &b0, &pa, &pb);
    assert!((r - native).abs() < 1e-12, "{r} vs {native}");
    assert!(keep.iter().all(|k| !k));
    sparse::sparse_dot_inv(&mut r, &mut a, &mut b, &pa, &pb, &mut keep).unwrap();
    assert!(r.abs() < 1e-12);
    let mut r = 0.0;
    let (_, ga, gb) = sparse::sparse_dot_grad(&mut r, &mut a, &mut b, &pa, &pb, &mut keep).unwrap();
    let fa = fd::grad(&a0, |x| sparse::sparse_dot_native(x, &b0, &pa, &pb));
    let fb = fd::grad(&b0, |x| sparse::sparse_dot_native(&a0, x, &pa, &pb));
    compare(&ga, &fa, Tolerance::FINITE_DIFFERENCE).unwrap();
    compare(&gb, &fb, Tolerance::FINITE_DIFFERENCE).unwrap();
}

#[test]
fn sparse_complex_mul_against_native_and_round_trip() {
    let (m, n, p) = (20, 15, 3);
    let pa = sparse::random_csc(m, n, 0.3, 21);
    let mut rng = SplitMix64::new(9);
    let mut c = |len: usize| -> Vec<Complex<f64>> {
        (0..len)
            .map(|_| Complex::new(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)))
            .collect()
    };
    let a0 = c(pa.rowval.len());
    let x0 = c(n * p);
    let y0 = c(m * p);
    let (mut y, mut a, mut x) = (y0.clone(), a0.clone(), x0.clone());
    sparse::sparse_mul_acc(&mut y, &mut a, &mut x, &pa, p).unwrap();
    let mut yn = y0.clone();
    sparse::sparse_mul_acc_native(&mut yn, &a0, &x0, &pa, p);
    for (u, v) in y.iter().zip(&yn) {
        assert!((u - v).norm() < 1e-12);
    }
    sparse::sparse_mul_acc_inv(&mut y, &mut a, &mut x, &pa, p).unwrap();
    for (u, v) in y.iter().zip(&y0) {
        assert!((u - v).norm() < 1e-12);
    }
    // Adjoint: seed y's gradient with w, run the inverse on GVars; ∂<w, y>/∂a_k re/im parts
    // against finite differences of the native product.
    let w = c(m * p);
    let mut wy: Vec<Complex<GVar<f64>>> = yn
        .iter()
        .zip(&w)
        .map(|(v, g)| Complex::new(GVar::with_grad(v.re, g.re), GVar::with_grad(v.im, g.im)))
        .collect();
    let mut wa: Vec<Complex<GVar<f64>>> = a0
        .iter()
        .map(|v| Complex::new(GVar::new(v.re), GVar::new(v.im)))
        .collect();
    let mut wx: Vec<Complex<GVar<f64>>> = x0
        .iter()
        .map(|v| Complex::new(GVar::new(v.re), GVar::new(v.im)))
        .collect();
    sparse::sparse_mul_acc_inv(&mut wy, &mut wa, &mut wx, &pa, p).unwrap();
    let f = |flat: &[f64]| {
        let a: Vec<Complex<f64>> = flat.chunks(2).map(|c| Complex::new(c[0], c[1])).collect();
        let mut y = y0.clone();
        sparse::sparse_mul_acc_native(&mut y, &a, &x0, &pa, p);
        y.iter()
            .zip(&w)
            .map(|(v, g)| v.re * g.re + v.im * g.im)
            .sum::<f64>()
    };
    let flat: Vec<f64> = a0.iter().flat_map(|c| [c.re, c.im]).collect();
    let fd = fd::grad(&flat, f);
    let got: Vec<f64> = wa.iter().flat_map(|c| [c.re.g, c.im.g]).collect();
    compare(&got, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
}

#[test]
fn exp_series_anchor() {
    let (mut y, mut x) = (0.0, 1.6);
    exp_series::exp_series(&mut y, &mut x).unwrap();
    assert!((y - 1.6f64.exp()).abs() < 1e-13, "{y}");
    exp_series::exp_series_inv(&mut y, &mut x).unwrap();
    assert!(y.abs() < 1e-13);
    let (mut y, mut x) = (0.0f64, 1.6f64);
    let (_, dx) = exp_series::exp_series_grad(&mut y, &mut x).unwrap();
    assert!((dx - 4.953032424395115).abs() < 1e-12, "{dx}");
}

#[test]
fn power_float_and_fixed() {
    let (mut y, mut x) = (0.5f64, 1.3f64);
    let (dy, dx) = power::power_acc_grad(&mut y, &mut x, 5).unwrap();
    assert!((y - (0.5 + 1.3f64.powi(5))).abs() < 1e-12);
    assert_eq!(dy, 1.0);
    assert!((dx - 5.0 * 1.3f64.powi(4)).abs() < 1e-11);
    power::power_acc_inv(&mut y, &mut x, 5).unwrap();
    assert!((y - 0.5).abs() < 1e-12);
    // Fixed point: exact round trips, many times over.
    let (y0, x0) = (I21F43::from_num(0.25), I21F43::from_num(1.1));
    let (mut y, mut x) = (y0, x0);
    let mut p = vec![I21F43::ZERO; 8];
    for _ in 0..10 {
        power::power_fixed(&mut y, &mut x, &mut p, 7).unwrap();
    }
    assert!((y.to_num::<f64>() - (0.25 + 10.0 * 1.1f64.powi(7))).abs() < 1e-9);
    for _ in 0..10 {
        power::power_fixed_inv(&mut y, &mut x, &mut p, 7).unwrap();
    }
    assert_eq!((y.to_bits(), x.to_bits()), (y0.to_bits(), x0.to_bits()));
    assert!(p.iter().all(|v| *v == I21F43::ZERO));
}

#[test]
fn besselj_value_derivative_and_second_derivative() {
    let (mut y, mut z) = (0.0f64, 1.0f64);
    besselj::besselj(&mut y, &mut z, 2).unwrap();
    assert!((y - 0.11490348493190047).abs() < 1e-15, "{y}");
    besselj::besselj_inv(&mut y, &mut z, 2).unwrap();
    assert!(y.abs() < 1e-15);
    let (mut y, mut z) = (0.0f64, 1.0f64);
    let (_, dz) = besselj::besselj_grad(&mut y, &mut z, 2).unwrap();
    assert!((dz - 0.21024361588113258).abs() < 1e-14, "{dz}");
    // Forward over reverse: the tangent of the gradient is the second derivative.
    let (mut yd, mut zd) = (Dual::constant(0.0f64), Dual::variable(1.0f64));
    let (_, dzd) = besselj::besselj_grad(&mut yd, &mut zd, 2).unwrap();
    assert!((dzd.v - 0.21024361588113258).abs() < 1e-14);
    assert!((dzd.d - 0.13446683891456881).abs() < 1e-13, "{}", dzd.d);
}

#[test]
fn qr_reconstructs_round_trips_and_differentiates() {
    let n = 4;
    let mut rng = SplitMix64::new(17);
    let a0 = rng.vector(n * n, -1.0, 1.0);
    let (mut q, mut r, mut a) = (vec![0.0; n * n], vec![0.0; n * n], a0.clone());
    qr::qr(&mut q, &mut r, &mut a, n).unwrap();
    let (qn, rn) = qr::qr_native(&a0, n);
    compare(&q, &qn, Tolerance::ROUNDING).unwrap();
    compare(&r, &rn, Tolerance::ROUNDING).unwrap();
    for i in 0..n {
        for j in 0..n {
            let qr_ij: f64 = (0..n).map(|k| q[i * n + k] * r[k * n + j]).sum();
            assert!((qr_ij - a0[i * n + j]).abs() < 1e-12);
        }
    }
    qr::qr_inv(&mut q, &mut r, &mut a, n).unwrap();
    assert!(q.iter().chain(&r).all(|v| v.abs() < 1e-12));
    // Gradients of Q[0][1] and R[0][1] with respect to A.
    for (wq_idx, wr_idx) in [(Some(1), None), (None, Some(1))] {
        let mut wq = vec![0.0; n * n];
        let mut wr = vec![0.0; n * n];
        if let Some(i) = wq_idx {
            wq[i] = 1.0;
        }
        if let Some(i) = wr_idx {
            wr[i] = 1.0;
        }
        let (mut l, mut q, mut r, mut a) = (0.0, vec![0.0; n * n], vec![0.0; n * n], a0.clone());
        let (_, _, _, ga) = qr::qr_loss_grad(&mut l, &mut q, &mut r, &mut a, n, &wq, &wr).unwrap();
        let fd = fd::grad(&a0, |x| {
            let (q, r) = qr::qr_native(x, n);
            q.iter()
                .zip(&wq)
                .chain(r.iter().zip(&wr))
                .map(|(a, b)| a * b)
                .sum()
        });
        compare(&ga, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
    }
}

#[test]
fn bundle_adjustment_local_jacobian() {
    let feat = [12.0, -3.0];
    for cam in [
        [
            0.1, -0.2, 0.05, 0.3, -0.1, -5.0, 400.0, 10.0, -5.0, 1e-3, 1e-6,
        ],
        [
            0.0, 0.0, 0.0, 0.3, -0.1, -5.0, 400.0, 10.0, -5.0, 1e-3, 1e-6,
        ],
    ] {
        let x = [0.5, 0.2, 1.0];
        let w = 0.9;
        let (mut out, mut c, mut xx, mut ww) = ([0.0; 2], cam, x, w);
        ba::ba_residual(&mut out, &mut c, &mut xx, &mut ww, &feat).unwrap();
        let native = ba::ba_residual_native(&cam, &x, w, &feat);
        compare(&out, &native, Tolerance::ROUNDING).unwrap();
        ba::ba_residual_inv(&mut out, &mut c, &mut xx, &mut ww, &feat).unwrap();
        assert!(out.iter().all(|v| v.abs() < 1e-9));
        let j = ba::ba_local_jacobian(&cam, &x, w, &feat);
        let flat: Vec<f64> = cam.iter().chain(&x).copied().chain([w]).collect();
        let fd = gradus_check::fd::jacobian(&flat, |p| {
            ba::ba_residual_native(&p[..11], &p[11..14], p[14], &feat).to_vec()
        });
        for r in 0..2 {
            compare(&j[r], &fd[r], Tolerance::new(1e-5, 1e-6)).unwrap();
        }
    }
}

/// With checks off, the forward on plain numbers skips the unobservable uncompute of
/// routines that write only their own ancillas; on `GVar`s it must keep it, because the
/// backward sweep carries gradients through it. Running the backward sweep and then the
/// forward on `GVar`s restores the seeded state (adjoint reversibility).
#[test]
fn unchecked_adjoint_keeps_its_uncompute() {
    let k = 3;
    let x0 = petersen::anchor_input(k);
    let (mut loss, mut x) = (0.0, x0.clone());
    petersen::petersen_unchecked(&mut loss, &mut x, k).unwrap();
    assert_eq!(x, x0);
    assert!((loss - petersen::petersen_native(&x0, k)).abs() < 1e-12);
    let mut wl = GVar::with_grad(loss, 1.0);
    let mut wx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
    petersen::petersen_unchecked_inv(&mut wl, &mut wx, k).unwrap();
    let (_, gf) = grad_fwd(&x0, |x| petersen::petersen_native(x, k));
    let g: Vec<f64> = wx.iter().map(|v| v.g).collect();
    compare(&g, &gf, Tolerance::new(1e-10, 1e-10)).unwrap();
    petersen::petersen_unchecked(&mut wl, &mut wx, k).unwrap();
    assert!((wl.x - loss).abs() < 1e-12 && (wl.g - 1.0).abs() < 1e-12);
    for v in &wx {
        assert!(v.g.abs() < 1e-12, "gradient not un-accumulated: {}", v.g);
    }
}
