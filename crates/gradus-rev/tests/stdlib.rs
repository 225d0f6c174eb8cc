//! The reversible standard library against native Rust: values, round trips, gradients.

use gradus_check::{SplitMix64, Tolerance, compare, fd_gradient};
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
    let fd = fd_gradient(|x| x.iter().map(|v| v * v).sum::<f64>().sqrt(), &a0);
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
