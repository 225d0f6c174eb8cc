//! Hessian-vector products and Hessians against finite differences of the gradient and
//! against nested forward mode.

#![allow(clippy::needless_range_loop)]

use gradus_check::{SplitMix64, Tolerance, compare, fd};
use gradus_num::{Dual, Real};
use gradus_tape::programs::{fparticles_steps, particles_inputs};
use gradus_tape::{grad, hessian, hvp, join};

fn rosenbrock_ish<S: Real>(x: &[S]) -> S {
    let (a, b) = join(
        || {
            x.windows(2).fold(S::zero(), |acc, w| {
                acc + S::from_f64(100.0) * (w[1] - w[0] * w[0]).square()
                    + (S::one() - w[0]).square()
            })
        },
        || x.iter().fold(S::zero(), |acc, &v| acc + v.sin() * v.exp()),
    );
    a + b * x[0]
}

#[test]
fn hvp_matches_finite_differences_of_the_gradient() {
    let mut rng = SplitMix64::new(4);
    for _ in 0..5 {
        let x = rng.vector(5, -1.0, 1.0);
        let v = rng.vector(5, -1.0, 1.0);
        let (y, g, hv) = hvp(&x, &v, |d| rosenbrock_ish(d));
        let (y2, g2) = grad(&x, |t| rosenbrock_ish(t));
        assert_eq!(y, y2);
        compare(&g, &g2, Tolerance::ROUNDING).unwrap();
        let h = fd::jacobian(&x, |t| grad(t, |s| rosenbrock_ish(s)).1);
        let expected: Vec<f64> = h.iter().map(|r| gradus_check::dot(r, &v)).collect();
        compare(&hv, &expected, Tolerance::new(1e-5, 1e-5)).unwrap();
    }
}

#[test]
fn hessian_matches_nested_forward_mode() {
    let x = [0.3, -0.4, 0.8];
    let h = hessian(&x, |d| rosenbrock_ish(d));
    for i in 0..3 {
        for j in 0..3 {
            // d²f/dxi dxj by Dual<Dual<f64>>.
            let d: Vec<Dual<Dual<f64>>> = (0..3)
                .map(|k| {
                    Dual::new(
                        Dual::new(x[k], if k == i { 1.0 } else { 0.0 }),
                        Dual::new(if k == j { 1.0 } else { 0.0 }, 0.0),
                    )
                })
                .collect();
            let exact = rosenbrock_ish(&d).d.d;
            assert!(
                (h[i][j] - exact).abs() <= 1e-12 * exact.abs().max(1.0),
                "H[{i}][{j}] = {} vs {exact}",
                h[i][j]
            );
        }
    }
}

#[test]
fn hvp_through_parallel_particles() {
    let x = particles_inputs();
    let mut v = vec![0.0; 16];
    v[1] = 1.0;
    let (_, _, hv) = hvp(&x, &v, |d| fparticles_steps(d, 100));
    let h = fd::jacobian(&x, |t| grad(t, |s| fparticles_steps(s, 100)).1);
    let expected: Vec<f64> = h.iter().map(|r| r[1]).collect();
    compare(&hv, &expected, Tolerance::new(1e-8, 1e-5)).unwrap();
}
