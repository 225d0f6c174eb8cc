//! The reversible standard library against native Rust: values, round trips, gradients.

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_rev::stdlib;

#[test]
fn stdlib_values_round_trips_and_gradients() {
    let mut rng = SplitMix64::new(99);
    let a0 = rng.vector(6, -1.0, 1.0);
    let b0 = rng.vector(6, -1.0, 1.0);
    let (mut y, mut a, mut b) = (0.25, a0.clone(), b0.clone());
    stdlib::dot(&mut y, &mut a, &mut b).unwrap();
    let native: f64 = 0.25 + a0.iter().zip(&b0).map(|(x, y)| x * y).sum::<f64>();
    assert!((y - native).abs() < 1e-14);
    stdlib::dot_inv(&mut y, &mut a, &mut b).unwrap();
    assert!((y - 0.25).abs() < 1e-14);
    let (_, ga, gb) = stdlib::dot_grad(&mut y, &mut a, &mut b).unwrap();
    compare(&ga, &b0, Tolerance::ROUNDING).unwrap();
    compare(&gb, &a0, Tolerance::ROUNDING).unwrap();

    let (mut y, mut x) = (0.0, a0.clone());
    let (_, gx) = stdlib::norm2_grad(&mut y, &mut x).unwrap();
    let n = a0.iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!((y - n).abs() < 1e-14);
    let fd = fd::grad(&a0, |x| x.iter().map(|v| v * v).sum::<f64>().sqrt());
    compare(&gx, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();

    let (mut y, mut x) = (1.0, a0.clone());
    let (_, gx) = stdlib::sum_grad(&mut y, &mut x).unwrap();
    assert!((y - 1.0 - a0.iter().sum::<f64>()).abs() < 1e-14);
    assert!(gx.iter().all(|g| *g == 1.0));

    // affine: y += W x + b.
    let (m, n) = (3, 4);
    let w0 = rng.vector(m * n, -1.0, 1.0);
    let x0 = rng.vector(n, -1.0, 1.0);
    let bb0 = rng.vector(m, -1.0, 1.0);
    let (mut y, mut w, mut x, mut bb) = (vec![0.5; m], w0.clone(), x0.clone(), bb0.clone());
    stdlib::affine(&mut y, &mut w, &mut x, &mut bb).unwrap();
    for i in 0..m {
        let e: f64 = 0.5 + bb0[i] + (0..n).map(|j| w0[i * n + j] * x0[j]).sum::<f64>();
        assert!((y[i] - e).abs() < 1e-14);
    }
    stdlib::affine_inv(&mut y, &mut w, &mut x, &mut bb).unwrap();
    assert!(y.iter().all(|v| (v - 0.5).abs() < 1e-14));

    let (mut y, mut x) = (vec![0.0; 6], a0.clone());
    stdlib::relu(&mut y, &mut x).unwrap();
    for (v, x) in y.iter().zip(&a0) {
        assert_eq!(*v, x.max(0.0));
    }

    let (mut ya, mut alpha, mut xa) = (b0.clone(), 2.0, a0.clone());
    stdlib::axpy(&mut ya, &mut alpha, &mut xa).unwrap();
    stdlib::axpy_inv(&mut ya, &mut alpha, &mut xa).unwrap();
    compare(&ya, &b0, Tolerance::ROUNDING).unwrap();

    let (mut v, mut th) = (a0.clone(), rng.vector(15, -3.0, 3.0));
    stdlib::givens_unitary(&mut v, &mut th).unwrap();
    let n0: f64 = a0.iter().map(|x| x * x).sum();
    assert!((v.iter().map(|x| x * x).sum::<f64>() - n0).abs() < 1e-12);
}

#[test]
fn logsumexp_and_softmax_cross_entropy() {
    let mut rng = SplitMix64::new(7);
    let x0 = rng.vector(5, -3.0, 3.0);
    let lse = |x: &[f64]| x.iter().map(|v| v.exp()).sum::<f64>().ln();
    let (mut y, mut x) = (0.5, x0.clone());
    let (_, gx) = stdlib::logsumexp_grad(&mut y, &mut x).unwrap();
    assert!((y - 0.5 - lse(&x0)).abs() < 1e-14);
    let softmax: Vec<f64> = x0.iter().map(|v| (v - lse(&x0)).exp()).collect();
    compare(&gx, &softmax, Tolerance::ROUNDING).unwrap();
    stdlib::logsumexp_inv(&mut y, &mut x).unwrap();
    assert!((y - 0.5).abs() < 1e-14);

    let (mut loss, mut x) = (0.0, x0.clone());
    let (_, gx) = stdlib::softmax_cross_entropy_grad(&mut loss, &mut x, 2).unwrap();
    assert!((loss - (lse(&x0) - x0[2])).abs() < 1e-14);
    let fd = fd::grad(&x0, |x| lse(x) - x[2]);
    compare(&gx, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
}

#[test]
fn mean_var_and_matmul_acc() {
    use gradus_rev::{GVar, Mat};
    let mut rng = SplitMix64::new(11);
    let x0 = rng.vector(7, -2.0, 2.0);
    let (mut m, mut v, mut x) = (0.25, 0.0, x0.clone());
    stdlib::mean_var(&mut m, &mut v, &mut x).unwrap();
    let mean = x0.iter().sum::<f64>() / 7.0;
    let var = x0.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / 6.0;
    assert!((m - 0.25 - mean).abs() < 1e-14 && (v - var).abs() < 1e-14);
    stdlib::mean_var_inv(&mut m, &mut v, &mut x).unwrap();
    assert!((m - 0.25).abs() < 1e-14 && v.abs() < 1e-14);
    // Gradient of the variance through the backward sweep, against finite differences.
    let (mut m, mut v, mut x) = (0.0, 0.0, x0.clone());
    stdlib::mean_var(&mut m, &mut v, &mut x).unwrap();
    let (mut wm, mut wv) = (GVar::new(m), GVar::with_grad(v, 1.0));
    let mut wx: Vec<GVar<f64>> = x.iter().map(|&t| GVar::new(t)).collect();
    stdlib::mean_var_inv(&mut wm, &mut wv, &mut wx).unwrap();
    let g: Vec<f64> = wx.iter().map(|t| t.g).collect();
    let fd = fd::grad(&x0, |x| {
        let mu = x.iter().sum::<f64>() / 7.0;
        x.iter().map(|t| (t - mu) * (t - mu)).sum::<f64>() / 6.0
    });
    compare(&g, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();

    let (p, q, r) = (2, 3, 4);
    let a0 = Mat::from_vec(p, q, rng.vector(p * q, -1.0, 1.0)).unwrap();
    let b0 = Mat::from_vec(q, r, rng.vector(q * r, -1.0, 1.0)).unwrap();
    let c0 = Mat::from_vec(p, r, rng.vector(p * r, -1.0, 1.0)).unwrap();
    let (mut a, mut b, mut c) = (a0.clone(), b0.clone(), c0.clone());
    stdlib::matmul_acc(&mut c, &mut a, &mut b).unwrap();
    for i in 0..p {
        for j in 0..r {
            let e = c0[(i, j)] + (0..q).map(|l| a0[(i, l)] * b0[(l, j)]).sum::<f64>();
            assert!((c[(i, j)] - e).abs() < 1e-14);
        }
    }
    // Backward sweep seeded on C[1][2]: ∂/∂A[1][l] = B[l][2], ∂/∂B[l][2] = A[1][l].
    let mut wc = c.map(|&t| GVar::new(t));
    wc[(1, 2)].g = 1.0;
    let (mut wa, mut wb) = (a.map(|&t| GVar::new(t)), b.map(|&t| GVar::new(t)));
    stdlib::matmul_acc_inv(&mut wc, &mut wa, &mut wb).unwrap();
    for l in 0..q {
        assert_eq!(wa[(1, l)].g, b0[(l, 2)]);
        assert_eq!(wb[(l, 2)].g, a0[(1, l)]);
        assert_eq!(wa[(0, l)].g, 0.0);
    }
    compare(
        wc.map(|t| t.x).as_slice(),
        c0.as_slice(),
        Tolerance::ROUNDING,
    )
    .unwrap();
    assert!(Mat::<f64>::from_vec(2, 2, vec![1.0]).is_none());
}
