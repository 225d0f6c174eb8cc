#![allow(clippy::needless_range_loop)]
//! The reversible GMM objective (examples/gmm.rs) against the reference values of
//! benchmarks/README.md §GMM (ADBench files and the synthetic instance), and its gradient
//! against `gradus-tape` on the native program, forward mode and finite differences.

#[path = "../../examples/gmm.rs"]
mod gmm_example;

use gmm_example::{GmmInput, adbench_dir, gmm_native, gmm_objective, gmm_objective_inv, read_gmm};
use gradus_check::{Tolerance, compare, fd};

/// The ADBench file `rel` of the data beside the repository (`../shared/data/adbench`), or
/// `None` when that directory is absent (a clone on its own): the test is then skipped with
/// a notice. A missing or malformed file in a present directory fails the test.
fn load(rel: &str) -> Option<GmmInput> {
    let dir = adbench_dir();
    if !dir.is_dir() {
        eprintln!("skipped: no ADBench data at {}", dir.display());
        return None;
    }
    Some(read_gmm(&dir.join(rel)).unwrap_or_else(|e| panic!("{e}")))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

/// The generator of benchmarks/README.md §the input generator.
fn bits(s: u64, i: u64) -> u64 {
    let mut z = s.wrapping_add((i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
fn unif(s: u64, i: u64) -> f64 {
    (bits(s, i) >> 11) as f64 * (0.5f64).powi(53)
}
fn gauss(s: u64, i: u64) -> f64 {
    (-2.0 * (1.0 - unif(s, 2 * i)).ln()).sqrt()
        * (2.0 * std::f64::consts::PI * unif(s, 2 * i + 1)).cos()
}

/// The synthetic instance of benchmarks/README.md §GMM.
fn synthetic(d: usize, k: usize, n: usize) -> GmmInput {
    let s = d * (d + 1) / 2;
    GmmInput {
        d,
        k,
        alphas: (0..k).map(|i| gauss(41, i as u64)).collect(),
        means: (0..k * d).map(|i| unif(42, i as u64)).collect(),
        icf: (0..k * s).map(|i| gauss(43, i as u64)).collect(),
        x: (0..n * d).map(|i| gauss(44, i as u64)).collect(),
        gamma: 1.0,
        m: 0,
    }
}

fn objective(inp: &GmmInput) -> f64 {
    let (mut e, mut a, mut mu, mut q) =
        (0.0, inp.alphas.clone(), inp.means.clone(), inp.icf.clone());
    gmm_objective(
        &mut e, &mut a, &mut mu, &mut q, &inp.x, inp.d, inp.gamma, inp.m,
    )
    .unwrap();
    e
}

#[test]
fn generator_matches_its_test_vectors() {
    assert_eq!(bits(0, 0), 0xe220a8397b1dcdaf);
    assert_eq!(bits(42, 0), 0xbdd732262feb6e95);
    assert_eq!(unif(1, 2), 0.971_002_753_586_796_2);
    assert!((gauss(41, 2) - -0.9336242682643392).abs() < 1e-15);
}

#[test]
fn test_file_objective_gradient_and_round_trip() {
    let Some(inp) = load("gmm/test.txt") else {
        return;
    };
    let expected_grad = [
        1.086628555e-01,
        -7.412700395e-01,
        6.326071840e-01,
        1.116925765e+00,
        1.633330136e-01,
        -2.199898241e-02,
        2.277782923e-01,
        1.209630256e+00,
        -6.063759207e-02,
        2.585299941e+00,
        1.126326945e-01,
        3.857443098e-01,
        7.351805732e-02,
        5.418363627e+00,
        -3.214944097e-01,
        1.718923098e+00,
        8.600910908e-01,
        -9.946409305e-01,
    ];
    let (e, g) = gmm_example::gmm_rev_gradient(&inp).unwrap();
    assert!(close(e, 8.073804080e+00, 1e-9), "{e}");
    compare(&g, &expected_grad, Tolerance::new(1e-9, 1e-8)).unwrap();
    // Round trip: the inverse restores the output and leaves the parameters bit for bit.
    let (mut e, mut a, mut mu, mut q) =
        (0.0, inp.alphas.clone(), inp.means.clone(), inp.icf.clone());
    gmm_objective(
        &mut e, &mut a, &mut mu, &mut q, &inp.x, inp.d, inp.gamma, inp.m,
    )
    .unwrap();
    gmm_objective_inv(
        &mut e, &mut a, &mut mu, &mut q, &inp.x, inp.d, inp.gamma, inp.m,
    )
    .unwrap();
    assert!(e.abs() < 1e-12, "{e}");
    assert_eq!(
        (a, mu, q),
        (inp.alphas.clone(), inp.means.clone(), inp.icf.clone())
    );
}

#[test]
fn d2_k5_objective_and_full_gradient_match_references() {
    let Some(inp) = load("gmm/1k/gmm_d2_K5.txt") else {
        return;
    };
    #[rustfmt::skip]
    let expected = [
        1.672152751e+02, -5.072137822e+02, 3.876802422e+01, 2.315535133e+02, 6.967696954e+01,
        -3.928564899e+02, 2.237931549e+01, -2.634476377e+02, -5.243402263e+01,
        -3.003461454e+02, -3.377581203e+02, -8.253446357e+01, 6.043682906e+01,
        -2.108920954e+02, -3.104684644e+00,
        1.872923289e+01, 2.708494785e+02, 2.235558166e+02,
        -3.390708324e+02, -1.927284318e+02, -1.635256814e+01,
        -3.017403567e+02, -1.642428051e+02, 1.094296649e+01,
        2.686327987e+02, 2.562286549e+02, 4.864031695e+02,
        -1.066592697e+02, 1.406113874e+02, 4.169940739e+00,
    ];
    let (e, g) = gmm_example::gmm_rev_gradient(&inp).unwrap();
    assert!(close(e, -5.240590563e+03, 1e-9), "{e}");
    compare(&g, &expected, Tolerance::new(1e-7, 1e-8)).unwrap();
    // Independent implementation: the tape on the native program.
    let p = inp.params();
    let (et, gt) = gradus_tape::grad(&p, |v| {
        gmm_native(v, &inp.x, inp.d, inp.k, inp.gamma, inp.m)
    });
    assert!(close(e, et, 1e-12), "{e} vs tape {et}");
    compare(&g, &gt, Tolerance::new(1e-10, 1e-10)).unwrap();
}

#[test]
fn d10_k5_gradient_entries_pin_the_packing_order() {
    let Some(inp) = load("gmm/1k/gmm_d10_K5.txt") else {
        return;
    };
    assert!(close(objective(&inp), -3.130254091e+04, 1e-9));
    let (_, g) = gmm_example::gmm_rev_gradient(&inp).unwrap();
    for (i, v) in [
        (0, 3.854598011e+01),
        (4, 4.302507344e+02),
        (5, -4.200050378e+01),
        (14, 3.027422530e+01),
        (54, 1.315723544e+02),
        (55, 1.396069536e+02),
        (64, 7.848636305e+01),
        (65, -2.695467331e+01),
        (66, -3.732645071e+01),
        (74, -9.587130107e+01),
        (109, 1.772918455e+01),
        (329, 7.438182890e+01),
    ] {
        assert!(
            close(g[i], v, 1e-8),
            "gradient[{i}] = {} expected {v}",
            g[i]
        );
    }
}

#[test]
fn synthetic_instance_against_references_tape_forward_mode_and_fd() {
    let inp = synthetic(3, 4, 20);
    let (e, g) = gmm_example::gmm_rev_gradient(&inp).unwrap();
    assert!(close(e, -6.464035565e+01, 1e-9), "{e}");
    for (i, v) in [
        (0, -1.560754157e+00),
        (4, -1.638408406e-01),
        (16, 1.092521511e+00),
        (19, 4.062673152e-01),
        (20, -2.374031631e-01),
        (21, 9.486603188e-01),
    ] {
        assert!(
            close(g[i], v, 1e-8),
            "gradient[{i}] = {} expected {v}",
            g[i]
        );
    }
    let p = inp.params();
    let f = |v: &[f64]| gmm_native(v, &inp.x, inp.d, inp.k, inp.gamma, inp.m);
    let (_, gt) = gradus_tape::grad(&p, |v| {
        gmm_native(v, &inp.x, inp.d, inp.k, inp.gamma, inp.m)
    });
    compare(&g, &gt, Tolerance::new(1e-10, 1e-10)).unwrap();
    let (_, gf) = gradus_num::grad_fwd(&p, |v| {
        gmm_native(v, &inp.x, inp.d, inp.k, inp.gamma, inp.m)
    });
    compare(&g, &gf, Tolerance::new(1e-10, 1e-10)).unwrap();
    compare(&g, &fd::grad(&p, f), Tolerance::FINITE_DIFFERENCE).unwrap();
}

#[test]
fn malformed_files_are_errors() {
    assert!(
        gmm_example::parse_gmm("2 3")
            .unwrap_err()
            .contains("ends early")
    );
    assert!(
        gmm_example::parse_gmm("2 x 1")
            .unwrap_err()
            .contains("not a non-negative integer")
    );
    let short = "1 1 3\n0.5\n0.1\n0.2\n1.0 2.0\n1.0 0\n";
    assert!(
        gmm_example::parse_gmm(short)
            .unwrap_err()
            .contains("tokens after icf")
    );
}
