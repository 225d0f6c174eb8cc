#![allow(clippy::needless_range_loop)]
//! The whole-file bundle-adjustment driver (examples/bundle_adjustment.rs) against the
//! reference values of benchmarks/README.md §BA: residuals, the 2 × 15 blocks and the CSR layout of
//! `ba/test.txt` and `ba/ba1_n49_m7776_p31843.txt`; the blocks also against the `gradus-tape`
//! Jacobian of the native residual.

use crate::examples::ba::{
    BaInput, adbench_dir, ba_jacobian, ba_objective, ba_objective_native, read_ba,
};
use gradus_check::{Tolerance, compare};

/// The ADBench file `rel` of the data beside the repository (`../shared/data/adbench`), or
/// `None` when that directory is absent (a clone on its own): the test is then skipped with
/// a notice. A missing or malformed file in a present directory fails the test.
fn load(rel: &str) -> Option<BaInput> {
    let dir = adbench_dir();
    if !dir.is_dir() {
        eprintln!("skipped: no ADBench data at {}", dir.display());
        return None;
    }
    Some(read_ba(&dir.join(rel)).unwrap_or_else(|e| panic!("{e}")))
}

const REF: Tolerance = Tolerance {
    abs: 1e-12,
    rel: 1e-8,
};

fn check_file(inp: &BaInput, reproj: [f64; 2], block: [[f64; 15]; 2]) -> crate::examples::ba::Csr {
    let (n, m, p) = (inp.n, inp.m, inp.p);
    let f = ba_objective(inp).unwrap();
    compare(&f, &ba_objective_native(inp), Tolerance::ROUNDING).unwrap();
    for i in 0..p {
        compare(&f[2 * i..2 * i + 2], &reproj, REF).unwrap();
        compare(&[f[2 * p + i]], &[8.260926515e-01], REF).unwrap();
    }
    let j = ba_jacobian(inp).unwrap();
    assert_eq!((j.nrows, j.ncols), (3 * p, 11 * n + 3 * m + p));
    assert_eq!(
        (j.rows.len(), j.cols.len(), j.vals.len()),
        (3 * p + 1, 31 * p, 31 * p)
    );
    for r in 0..3 * p {
        let len = j.rows[r + 1] - j.rows[r];
        assert_eq!(len, if r < 2 * p { 15 } else { 1 }, "row {r}");
        let cs = &j.cols[j.rows[r]..j.rows[r + 1]];
        assert!(
            cs.windows(2).all(|w| w[0] < w[1]),
            "row {r}: columns not increasing"
        );
        assert!(cs.iter().all(|&c| c < j.ncols));
    }
    for i in 0..p {
        for a in 0..2 {
            let r = 2 * i + a;
            compare(&j.vals[j.rows[r]..j.rows[r + 1]], &block[a], REF)
                .unwrap_or_else(|e| panic!("observation {i}, row {a}: {e}"));
        }
        compare(&[j.vals[30 * p + i]], &[-8.340440000e-01], REF).unwrap();
        assert_eq!(j.cols[30 * p + i], 11 * n + 3 * m + i);
    }
    j
}

#[test]
fn test_file_matches_references_and_layout() {
    let Some(inp) = load("ba/test.txt") else {
        return;
    };
    assert_eq!((inp.n, inp.m, inp.p), (2, 10, 10));
    #[rustfmt::skip]
    let block = [
        [2.288772022e+02, 6.345748115e+02, -7.822228663e+02, 2.428926156e+00, -1.178280796e+01,
         2.541693125e+00, -1.036570850e+00, 4.170220000e-01, 0.0, -3.507395211e+02,
         -9.121077737e+02, -2.428926156e+00, 1.178280796e+01, -2.541693125e+00, -6.451670397e-01],
        [-1.205424360e+02, -3.856732408e+02, 9.754762914e+01, -1.783721085e+00, 4.154667994e+00,
         2.040257180e+00, 3.491763974e-01, 0.0, 4.170220000e-01, 1.181491477e+02,
         3.072501090e+02, 1.783721085e+00, -4.154667994e+00, -2.040257180e+00, 6.233359216e-01],
    ];
    let j = check_file(&inp, [-2.690488492e-01, 2.599447927e-01], block);
    assert_eq!(j.vals.len(), 310);
    let expected_rows: Vec<usize> = (0..=20).map(|r| 15 * r).chain(301..=310).collect();
    assert_eq!(j.rows, expected_rows);
    let cols = |r: usize| j.cols[j.rows[r]..j.rows[r + 1]].to_vec();
    assert_eq!(cols(0), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 22, 23, 24, 52]);
    assert_eq!(
        cols(2),
        [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 25, 26, 27, 53]
    );
    assert_eq!(
        cols(6),
        [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 31, 32, 33, 55]
    );
    for r in 20..30 {
        assert_eq!(cols(r), [r + 32]);
    }
}

#[test]
fn ba1_matches_references_and_the_tape() {
    let Some(inp) = load("ba/ba1_n49_m7776_p31843.txt") else {
        return;
    };
    assert_eq!((inp.n, inp.m, inp.p), (49, 7776, 31843));
    #[rustfmt::skip]
    let block = [
        [-4.614463210e+02, 1.788679280e+02, -1.942391647e+01, -3.061598342e+00, 6.392457556e+00,
         -3.340282281e+00, 2.647602492e-01, 4.170220000e-01, 0.0, 2.436282457e+02,
         6.764867783e+02, 3.061598342e+00, -6.392457556e+00, 3.340282281e+00, 2.429987816e-01],
        [-8.037436234e+02, -3.095954175e+02, 6.047802847e+02, -1.504962817e+01, 6.248486312e+00,
         3.219479952e+00, 8.381960857e-01, 0.0, 4.170220000e-01, 7.712949451e+02,
         2.141668061e+03, 1.504962817e+01, -6.248486312e+00, -3.219479952e+00, -1.653816008e-01],
    ];
    let j = check_file(&inp, [1.013358379e-01, -6.896776592e-02], block);
    // Observation 31842 sees camera 31842 mod 49 = 41 and point 31842 mod 7776 = 738.
    let r = 2 * 31842;
    let cs = &j.cols[j.rows[r]..j.rows[r + 1]];
    assert_eq!(cs[0], 11 * 41);
    assert_eq!(cs[11], 11 * 49 + 3 * 738);
    assert_eq!(cs[14], 11 * 49 + 3 * 7776 + 31842);
    // Independent implementation: the tape's Jacobian of the native residual.
    let flat: Vec<f64> = inp.cams[0]
        .iter()
        .chain(&inp.x[0])
        .copied()
        .chain([inp.w[0]])
        .collect();
    let feat = inp.feat[0];
    let (_, jt) = gradus_tape::jacobian(&flat, |v| {
        let xs = [v[11], v[12], v[13]];
        let w = v[14];
        let r = ba_native_generic(&v[..11], &xs, w, &feat);
        r.to_vec()
    });
    for a in 0..2 {
        compare(
            &j.vals[15 * a..15 * a + 15],
            &jt[a],
            Tolerance::new(1e-10, 1e-10),
        )
        .unwrap();
    }
}

/// The residual of benchmarks/README.md §BA over any `Real`, written independently of the
/// example (for the tape).
fn ba_native_generic<R: gradus_num::Real>(cam: &[R], x: &[R; 3], w: R, feat: &[f64; 2]) -> [R; 2] {
    let y = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let t2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let cross = |a: [R; 3], b: [R; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let z = if t2.to_f64() != 0.0 {
        let t = t2.sqrt();
        let e = [r[0] / t, r[1] / t, r[2] / t];
        let (c, s) = (t.cos(), t.sin());
        let ey = e[0] * y[0] + e[1] * y[1] + e[2] * y[2];
        let ex = cross(e, y);
        [0, 1, 2].map(|i| y[i] * c + ex[i] * s + e[i] * ey * (R::one() - c))
    } else {
        let rx = cross(r, y);
        [0, 1, 2].map(|i| y[i] + rx[i])
    };
    let a = [z[0] / z[2], z[1] / z[2]];
    let rho = a[0] * a[0] + a[1] * a[1];
    let dist = R::one() + cam[9] * rho + cam[10] * rho * rho;
    [0, 1].map(|i| w * (cam[6] * a[i] * dist + cam[7 + i] - R::from_f64(feat[i])))
}

#[test]
fn malformed_files_are_errors() {
    assert!(
        crate::examples::ba::parse_ba("1 2 3")
            .unwrap_err()
            .contains("tokens")
    );
    let bad = "1 1 1 0 0 0 0 0 0 1 0 0 0 0 x 0 0 1 0 0";
    assert!(
        crate::examples::ba::parse_ba(bad)
            .unwrap_err()
            .contains("not a number")
    );
    let zero = "0 1 1 0 0 0 0 0 0 1 0 0 0 0 0 0 0 1 0 0";
    assert!(
        crate::examples::ba::parse_ba(zero)
            .unwrap_err()
            .contains("positive")
    );
}
