//! The benchmark programs in `benchmarks/` against the reference values of
//! `benchmarks/README.md`, run by the interpreter on the smallest instances.
//!
//! Inputs come from the smallest ADBench files, kept with their licence in `tests/data/adbench`
//! (read with `gradus_bench::adbench`), or from the generator (`gradus_bench::generate`). Values are compared with ADBench's rule
//! `|x - y| / max(1, |x| + |y|) <= 1e-9` against the 10-digit reference values. Derivatives
//! are also checked against central finite differences and, where both modes exist, by the
//! transposition identity `<vjp(ybar), xdot> = <ybar, jvp(xdot)>`.

use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};
use gradus_bench::adbench::{BA_BLOCK, Ba, BaJacobian, Gmm, Hand, Lstm, f64_array};
use gradus_bench::generate;
use gradus_check::{SplitMix64, Tolerance, fd};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of ADBench's data set, from the copies of the small instances in the repository
/// (HAND's inputs share one `model/` folder).
fn adbench(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/adbench")
        .join(rel)
}

fn program(name: &str) -> Program {
    let path = workspace().join("benchmarks").join(name);
    Program::from_file(&path)
        .unwrap_or_else(|d| panic!("{} does not compile:\n{d}", path.display()))
}

fn call(p: &Program, entry: &str, args: &[Value]) -> Vec<Value> {
    p.call(entry, args.to_vec())
        .unwrap_or_else(|e| panic!("{entry} failed: {e}"))
}

fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(Scalar::F64(x)) => vec![*x],
        Value::Array(a) => match a.buffer() {
            Buffer::F64(v) => v.clone(),
            b => panic!("expected f64 elements, found {:?}", b.prim_type()),
        },
        other => panic!("expected f64 values, found {}", other.type_name()),
    }
}

fn ints(v: &Value) -> Vec<i64> {
    match v {
        Value::Array(a) => match a.buffer() {
            Buffer::I64(v) => v.clone(),
            b => panic!("expected i64 elements, found {:?}", b.prim_type()),
        },
        other => panic!("expected an i64 array, found {}", other.type_name()),
    }
}

/// All the f64 leaves of several results, in order (ADBench's flattened gradient layout).
fn all_floats(vs: &[Value]) -> Vec<f64> {
    vs.iter().flat_map(floats).collect()
}

fn scalar(vs: &[Value]) -> f64 {
    assert_eq!(vs.len(), 1, "expected one result");
    match &vs[0] {
        Value::Scalar(Scalar::F64(x)) => *x,
        other => panic!("expected an f64 scalar, found {}", other.type_name()),
    }
}

/// A value of the same shape as `like` holding `data`.
fn reshape_like(like: &Value, data: Vec<f64>) -> Value {
    match like {
        Value::Scalar(_) => Value::Scalar(Scalar::F64(data[0])),
        Value::Array(a) => Value::Array(Array::new(a.shape().to_vec(), Buffer::F64(data)).unwrap()),
    }
}

/// ADBench's agreement rule against the 10-digit reference values.
fn agrees(x: f64, y: f64) -> bool {
    (x - y).abs() / 1f64.max(x.abs() + y.abs()) <= 1e-9
}

#[track_caller]
fn assert_agrees(what: &str, actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        assert!(agrees(a, e), "{what}[{i}]: got {a:.12e}, reference {e:.9e}");
    }
}

#[track_caller]
fn assert_entries(what: &str, actual: &[f64], expected: &[(usize, f64)]) {
    for &(i, e) in expected {
        assert!(
            agrees(actual[i], e),
            "{what}[{i}]: got {:.12e}, reference {e:.9e}",
            actual[i]
        );
    }
}

/// Two exact derivatives computed by different modes: equal up to rounding.
#[track_caller]
fn assert_same(what: &str, a: &[f64], b: &[f64]) {
    if let Err(m) = gradus_check::compare(a, b, Tolerance::ROUNDING) {
        panic!("{what}: {m}");
    }
}

#[track_caller]
fn assert_fd(what: &str, exact: &[f64], fd: &[f64]) {
    if let Err(m) = gradus_check::compare(exact, fd, Tolerance::FINITE_DIFFERENCE) {
        panic!("{what} against finite differences: {m}");
    }
}

fn random_direction(rng: &mut SplitMix64, n: usize) -> Vec<f64> {
    rng.vector(n, -1.0, 1.0)
}

fn one_hot(len: usize, i: usize) -> Vec<f64> {
    let mut v = vec![0.0; len];
    v[i] = 1.0;
    v
}

// ------------------------------------------------------------------------------------------
// GMM

/// Splits a flat parameter vector into GMM's (alphas, means, icf) values.
fn gmm_params(g: &Gmm, flat: &[f64]) -> [Value; 3] {
    let (a, rest) = flat.split_at(g.k);
    let (m, q) = rest.split_at(g.k * g.d);
    [
        f64_array(&[g.k], a.to_vec()),
        f64_array(&[g.k, g.d], m.to_vec()),
        f64_array(&[g.k, g.s()], q.to_vec()),
    ]
}

fn gmm_flat_params(g: &Gmm) -> Vec<f64> {
    [g.alphas.clone(), g.means.clone(), g.icf.clone()].concat()
}

fn gmm_with(g: &Gmm, flat: &[f64]) -> Vec<Value> {
    let mut v = g.to_values();
    let [a, m, q] = gmm_params(g, flat);
    v[0] = a;
    v[1] = m;
    v[2] = q;
    v
}

/// The forward-mode derivative of the GMM objective along `dir`.
fn gmm_directional(p: &Program, g: &Gmm, dir: &[f64]) -> f64 {
    let mut args = g.to_values();
    args.extend(gmm_params(g, dir));
    scalar(&call(p, "directional", &args))
}

#[test]
fn gmm_test_file() {
    let p = program("gmm.fut");
    let g = Gmm::read(&adbench("gmm/test.txt")).unwrap();
    let args = g.to_values();
    assert_agrees(
        "E",
        &[scalar(&call(&p, "objective", &args))],
        &[8.073804080e+00],
    );
    let reference = [
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
    let rev = all_floats(&call(&p, "gradient", &args));
    let fwd = all_floats(&call(&p, "gradient_fwd", &args));
    assert_agrees("vjp gradient", &rev, &reference);
    assert_agrees("jvp gradient", &fwd, &reference);

    // Finite differences of the objective, coordinate by coordinate.
    let x0 = gmm_flat_params(&g);
    let fd = fd::grad(&x0, |x| scalar(&call(&p, "objective", &gmm_with(&g, x))));
    assert_fd("gmm/test.txt gradient", &rev, &fd);

    // Transposition identity: <gradient, v> equals the jvp along v.
    let mut rng = SplitMix64::new(1);
    for _ in 0..3 {
        let v = random_direction(&mut rng, x0.len());
        let jv = gmm_directional(&p, &g, &v);
        gradus_check::check_transposition(&rev, &v, &[1.0], &[jv], Tolerance::ROUNDING).unwrap();
    }
}

#[test]
fn gmm_1k_d2_k5() {
    let p = program("gmm.fut");
    let g = Gmm::read(&adbench("gmm/1k/gmm_d2_K5.txt")).unwrap();
    let args = g.to_values();
    assert_agrees(
        "E",
        &[scalar(&call(&p, "objective", &args))],
        &[-5.240590563e+03],
    );
    let reference = [
        1.672152751e+02,
        -5.072137822e+02,
        3.876802422e+01,
        2.315535133e+02,
        6.967696954e+01,
        -3.928564899e+02,
        2.237931549e+01,
        -2.634476377e+02,
        -5.243402263e+01,
        -3.003461454e+02,
        -3.377581203e+02,
        -8.253446357e+01,
        6.043682906e+01,
        -2.108920954e+02,
        -3.104684644e+00,
        1.872923289e+01,
        2.708494785e+02,
        2.235558166e+02,
        -3.390708324e+02,
        -1.927284318e+02,
        -1.635256814e+01,
        -3.017403567e+02,
        -1.642428051e+02,
        1.094296649e+01,
        2.686327987e+02,
        2.562286549e+02,
        4.864031695e+02,
        -1.066592697e+02,
        1.406113874e+02,
        4.169940739e+00,
    ];
    assert_agrees(
        "vjp gradient",
        &all_floats(&call(&p, "gradient", &args)),
        &reference,
    );
    assert_agrees(
        "jvp gradient",
        &all_floats(&call(&p, "gradient_fwd", &args)),
        &reference,
    );
}

#[test]
fn gmm_1k_d10_k5_pins_the_packing_order() {
    let p = program("gmm.fut");
    let g = Gmm::read(&adbench("gmm/1k/gmm_d10_K5.txt")).unwrap();
    let args = g.to_values();
    assert_agrees(
        "E",
        &[scalar(&call(&p, "objective", &args))],
        &[-3.130254091e+04],
    );
    let grad = all_floats(&call(&p, "gradient", &args));
    assert_eq!(grad.len(), 330);
    let reference = [
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
    ];
    assert_entries("vjp gradient", &grad, &reference);
    // Forward mode on the two entries that a row-major packing would swap.
    for (i, e) in [(66, -3.732645071e+01), (74, -9.587130107e+01)] {
        let d = gmm_directional(&p, &g, &one_hot(330, i));
        assert!(
            agrees(d, e),
            "jvp along parameter {i}: got {d:e}, reference {e:e}"
        );
    }
}

#[test]
fn gmm_other_files() {
    let p = program("gmm.fut");
    let g = Gmm::read(&adbench("gmm/1k/gmm_d10_K25.txt")).unwrap();
    assert_agrees(
        "1k/gmm_d10_K25 E",
        &[scalar(&call(&p, "objective", &g.to_values()))],
        &[-2.564965262e+04],
    );
    let g = Gmm::read(&adbench("gmm/10k/gmm_d2_K5.txt")).unwrap();
    let args = g.to_values();
    assert_agrees(
        "10k/gmm_d2_K5 E",
        &[scalar(&call(&p, "objective", &args))],
        &[-5.251230605e+04],
    );
    let grad = all_floats(&call(&p, "gradient", &args));
    assert_entries(
        "10k/gmm_d2_K5 gradient",
        &grad,
        &[
            (0, 1.715615951e+03),
            (5, -3.711646768e+03),
            (15, 2.450012811e+02),
            (29, 4.225145035e+01),
        ],
    );
    assert_agrees("Σ gradient", &[grad.iter().sum()], &[-9.021569324e+03]);
}

#[test]
fn gmm_synthetic_instance() {
    let p = program("gmm.fut");
    let g = generate::gmm(3, 4, 20).unwrap();
    let args = g.to_values();
    assert_agrees(
        "E",
        &[scalar(&call(&p, "objective", &args))],
        &[-6.464035565e+01],
    );
    let grad = all_floats(&call(&p, "gradient", &args));
    assert_entries(
        "gradient",
        &grad,
        &[
            (0, -1.560754157e+00),
            (4, -1.638408406e-01),
            (16, 1.092521511e+00),
            (19, 4.062673152e-01),
            (20, -2.374031631e-01),
            (21, 9.486603188e-01),
        ],
    );
}

// ------------------------------------------------------------------------------------------
// BA

const BA_TEST_BLOCK: [[f64; BA_BLOCK]; 2] = [
    [
        2.288772022e+02,
        6.345748115e+02,
        -7.822228663e+02,
        2.428926156e+00,
        -1.178280796e+01,
        2.541693125e+00,
        -1.036570850e+00,
        4.170220000e-01,
        0.000000000e+00,
        -3.507395211e+02,
        -9.121077737e+02,
        -2.428926156e+00,
        1.178280796e+01,
        -2.541693125e+00,
        -6.451670397e-01,
    ],
    [
        -1.205424360e+02,
        -3.856732408e+02,
        9.754762914e+01,
        -1.783721085e+00,
        4.154667994e+00,
        2.040257180e+00,
        3.491763974e-01,
        0.000000000e+00,
        4.170220000e-01,
        1.181491477e+02,
        3.072501090e+02,
        1.783721085e+00,
        -4.154667994e+00,
        -2.040257180e+00,
        6.233359216e-01,
    ],
];

const BA1_BLOCK: [[f64; BA_BLOCK]; 2] = [
    [
        -4.614463210e+02,
        1.788679280e+02,
        -1.942391647e+01,
        -3.061598342e+00,
        6.392457556e+00,
        -3.340282281e+00,
        2.647602492e-01,
        4.170220000e-01,
        0.000000000e+00,
        2.436282457e+02,
        6.764867783e+02,
        3.061598342e+00,
        -6.392457556e+00,
        3.340282281e+00,
        2.429987816e-01,
    ],
    [
        -8.037436234e+02,
        -3.095954175e+02,
        6.047802847e+02,
        -1.504962817e+01,
        6.248486312e+00,
        3.219479952e+00,
        8.381960857e-01,
        0.000000000e+00,
        4.170220000e-01,
        7.712949451e+02,
        2.141668061e+03,
        1.504962817e+01,
        -6.248486312e+00,
        -3.219479952e+00,
        -1.653816008e-01,
    ],
];

/// The reference Jacobian of an instance whose observations all have the same block.
fn ba_reference_jacobian(ba: &Ba, block: &[[f64; BA_BLOCK]; 2], weight_row: f64) -> BaJacobian {
    let blocks: Vec<f64> = (0..ba.p).flat_map(|_| block.concat()).collect();
    BaJacobian::from_blocks(ba, &blocks, &vec![weight_row; ba.p]).unwrap()
}

fn ba_residuals(p: &Program, args: &[Value]) -> (Vec<f64>, Vec<f64>) {
    let r = call(p, "objective", args);
    (floats(&r[0]), floats(&r[1]))
}

#[test]
fn ba_test_file() {
    let p = program("ba.fut");
    let ba = Ba::read(&adbench("ba/test.txt")).unwrap();
    let args = ba.to_values();
    let (reproj, zach) = ba_residuals(&p, &args);
    assert_agrees(
        "reproj",
        &reproj,
        &[-2.690488492e-01, 2.599447927e-01].repeat(ba.p),
    );
    assert_agrees("zach", &zach, &vec![8.260926515e-01; ba.p]);

    let expected = ba_reference_jacobian(&ba, &BA_TEST_BLOCK, -8.340440000e-01);
    assert_eq!(expected.rows[..3], [0, 15, 30]);
    assert_eq!(expected.rows[20..23], [300, 301, 302]);
    assert_eq!(
        expected.cols[15 * 6..15 * 7],
        [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 31, 32, 33, 55]
    );
    for entry in ["jacobian", "jacobian_rev"] {
        let r = call(&p, entry, &args);
        let rows: Vec<usize> = ints(&r[0]).iter().map(|&x| x as usize).collect();
        let cols: Vec<usize> = ints(&r[1]).iter().map(|&x| x as usize).collect();
        assert_eq!(rows, expected.rows, "{entry}: row offsets");
        assert_eq!(cols, expected.cols, "{entry}: column indices");
        assert_agrees(entry, &floats(&r[2]), &expected.vals);
    }
    // The blocks, packed in Rust, give the same CSR as the program.
    let blocks = call(&p, "jacobian_blocks", &args);
    let packed = BaJacobian::from_blocks(&ba, &floats(&blocks[0]), &floats(&blocks[1])).unwrap();
    assert_eq!(packed.cols, expected.cols);
    assert_agrees("packed blocks", &packed.vals, &expected.vals);
}

#[test]
fn ba_block_against_finite_differences() {
    let p = program("ba.fut");
    let ba = Ba::read(&adbench("ba/test.txt")).unwrap();
    let args = ba.to_values();
    let fwd = call(&p, "jacobian_blocks", &args);
    let rev = call(&p, "jacobian_blocks_rev", &args);
    assert_same(
        "forward and reverse blocks",
        &floats(&fwd[0]),
        &floats(&rev[0]),
    );
    assert_same("weight rows", &floats(&fwd[1]), &floats(&rev[1]));
    // Observation 3 (camera 1, point 3, weight 3): perturb its 15 inputs.
    let (obs, cam, pt) = (3, 1, 3);
    let x0: Vec<f64> = [
        &ba.cams[11 * cam..11 * cam + 11],
        &ba.x[3 * pt..3 * pt + 3],
        &ba.w[obs..obs + 1],
    ]
    .concat();
    let f = |v: &[f64]| -> Vec<f64> {
        let mut b = ba.clone();
        b.cams[11 * cam..11 * cam + 11].copy_from_slice(&v[..11]);
        b.x[3 * pt..3 * pt + 3].copy_from_slice(&v[11..14]);
        b.w[obs] = v[14];
        let (reproj, _) = ba_residuals(&p, &b.to_values());
        reproj[2 * obs..2 * obs + 2].to_vec()
    };
    let fd = gradus_check::fd::jacobian(&x0, f);
    let block = &floats(&fwd[0])[obs * 30..obs * 30 + 30];
    assert_fd("BA block", block, &fd.concat());
}

#[test]
fn ba1() {
    let p = program("ba.fut");
    let ba = Ba::read(&adbench("ba/ba1_n49_m7776_p31843.txt")).unwrap();
    assert_eq!((ba.n, ba.m, ba.p), (49, 7776, 31843));
    let args = ba.to_values();
    let (reproj, zach) = ba_residuals(&p, &args);
    assert_agrees(
        "reproj",
        &reproj,
        &[1.013358379e-01, -6.896776592e-02].repeat(ba.p),
    );
    assert_agrees("zach", &zach, &vec![8.260926515e-01; ba.p]);
    let r = call(&p, "jacobian_blocks_rev", &args);
    let j = BaJacobian::from_blocks(&ba, &floats(&r[0]), &floats(&r[1])).unwrap();
    let expected = ba_reference_jacobian(&ba, &BA1_BLOCK, -8.340440000e-01);
    assert_eq!(j.rows, expected.rows);
    assert_eq!(j.cols, expected.cols);
    assert_agrees("ba1 Jacobian", &j.vals, &expected.vals);
}

// ------------------------------------------------------------------------------------------
// HAND

/// Sparse rows of a reference Jacobian: (column, value); unlisted columns are 0.
type SparseRow = &'static [(usize, f64)];

fn dense(rows: &[SparseRow], width: usize) -> Vec<f64> {
    rows.iter()
        .flat_map(|r| {
            let mut d = vec![0.0; width];
            for &(c, v) in r.iter() {
                d[c] = v;
            }
            d
        })
        .collect()
}

const HAND_SIMPLE_J: [SparseRow; 6] = [
    &[
        (0, -1.955129593e-02),
        (1, 1.184213197e-02),
        (2, -1.081400435e-02),
        (3, -1.0),
        (22, -2.215372992e-02),
        (23, 2.980232944e-02),
        (24, -8.897183847e-03),
        (25, -2.248878879e-03),
    ],
    &[
        (0, -6.810275764e-03),
        (1, 1.741087976e-03),
        (2, -6.547316551e-02),
        (4, -1.0),
        (22, 1.426691754e-02),
        (23, 2.585199356e-02),
        (24, 2.304126225e-03),
        (25, 3.098952303e-03),
    ],
    &[
        (0, -4.093596307e-02),
        (1, 2.578361654e-02),
        (2, 2.955292531e-03),
        (5, -1.0),
        (22, -3.123509053e-02),
        (23, -9.404299747e-03),
        (24, -1.847531451e-02),
        (25, -3.092118805e-04),
    ],
    &[
        (0, -7.100320031e-02),
        (1, 5.148925790e-02),
        (2, -6.334088541e-02),
        (3, -1.0),
        (18, -3.453268938e-02),
        (19, -1.954375956e-02),
        (20, -1.291026286e-02),
        (21, 1.997381825e-03),
    ],
    &[
        (0, -2.813469291e-02),
        (1, -4.505919775e-02),
        (2, -8.981892001e-02),
        (4, -1.0),
        (18, 2.420245970e-02),
        (19, -1.843928141e-02),
        (20, 9.766062458e-03),
        (21, -1.425709141e-03),
    ],
    &[
        (0, -2.544841368e-02),
        (1, 6.239817382e-02),
        (2, 2.074409027e-02),
        (5, -1.0),
        (18, -3.106756930e-03),
        (19, 6.527405428e-03),
        (20, 8.495535784e-03),
        (21, -4.354903199e-04),
    ],
];

const HAND_COMPLICATED_J: [SparseRow; 6] = [
    &[
        (0, 3.199947057e-03),
        (1, 5.941210363e-03),
        (2, -3.167804141e-02),
        (3, 2.512738463e-02),
        (4, -3.437516925e-02),
        (5, -1.0),
        (24, -2.673004593e-03),
        (25, -2.053759644e-04),
    ],
    &[
        (0, -5.836643164e-03),
        (1, -2.250872722e-02),
        (2, -1.176031335e-02),
        (3, -6.734310052e-03),
        (4, -7.938243045e-02),
        (6, -1.0),
        (24, 2.519032063e-03),
        (25, 6.357463656e-03),
    ],
    &[
        (0, 5.265396984e-03),
        (1, -7.980309025e-04),
        (2, -4.003570128e-02),
        (3, 4.485947795e-02),
        (4, 1.089958677e-02),
        (7, -1.0),
        (24, -1.657417679e-03),
        (25, 2.115202845e-03),
    ],
    &[
        (0, 6.095131076e-03),
        (1, 4.723402594e-03),
        (2, -2.214244204e-02),
        (3, 3.977514536e-02),
        (4, -8.704764001e-02),
        (5, -1.0),
        (8, -3.338492634e-03),
        (9, 1.282092207e-03),
        (12, 1.372051240e-03),
        (13, -5.451772324e-03),
    ],
    &[
        (0, -1.302730831e-02),
        (1, 5.736485377e-03),
        (2, -9.037986690e-03),
        (3, -1.017850989e-02),
        (4, -4.370816495e-02),
        (6, -1.0),
        (8, 9.534582311e-04),
        (9, 4.019722696e-03),
        (12, -9.336215181e-04),
        (13, -1.382224243e-03),
    ],
    &[
        (0, -1.970549056e-02),
        (1, 8.523712871e-03),
        (2, 1.630197780e-03),
        (3, 7.146464225e-02),
        (4, 2.944031024e-02),
        (7, -1.0),
        (8, 3.249472450e-03),
        (9, 8.499425894e-04),
        (12, -5.875374902e-03),
        (13, 2.954942376e-03),
    ],
];

/// `J · v` for a row-major `rows × cols` matrix.
fn mat_vec(j: &[f64], cols: usize, v: &[f64]) -> Vec<f64> {
    j.chunks(cols).map(|r| gradus_check::dot(r, v)).collect()
}

/// `ybar · J` for a row-major matrix with `cols` columns.
fn vec_mat(ybar: &[f64], j: &[f64], cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; cols];
    for (y, r) in ybar.iter().zip(j.chunks(cols)) {
        for (o, x) in out.iter_mut().zip(r) {
            *o += y * x;
        }
    }
    out
}

#[test]
fn hand_simple_test_file() {
    let p = program("hand.fut");
    let h = Hand::read(&adbench("hand/test.txt"), false).unwrap();
    let args = h.to_values();
    let err = floats(&call(&p, "objective_simple", &args)[0]);
    assert_agrees(
        "err",
        &err,
        &[
            1.651931479e-01,
            -1.745427693e-01,
            1.547511616e-01,
            -1.256517497e-01,
            -4.251029354e-02,
            -1.306657811e-01,
        ],
    );
    let j = floats(&call(&p, "jacobian_simple", &args)[0]);
    assert_agrees("J", &j, &dense(&HAND_SIMPLE_J, 26));

    // J·v against finite differences of the residuals along random directions of θ.
    let mut rng = SplitMix64::new(3);
    let theta_at = |t: &[f64]| {
        let mut a = args.clone();
        *a.last_mut().unwrap() = f64_array(&[26], t.to_vec());
        floats(&call(&p, "objective_simple", &a)[0])
    };
    for _ in 0..2 {
        let v = random_direction(&mut rng, 26);
        let fd = fd::jvp(&h.theta, &v, theta_at);
        assert_fd("hand simple J·v", &mat_vec(&j, 26, &v), &fd);
    }
    // Transposition identity with the reverse-mode product.
    let ybar = random_direction(&mut rng, 6);
    let mut a = args.clone();
    a.push(f64_array(&[6], ybar.clone()));
    let rev = floats(&call(&p, "vjp_simple", &a)[0]);
    assert_same("vjp vs ybar·J", &rev, &vec_mat(&ybar, &j, 26));
}

#[test]
fn hand_complicated_test_file() {
    let p = program("hand.fut");
    let h = Hand::read(&adbench("hand/hand_complicated.txt"), true).unwrap();
    assert_eq!(h.us.as_deref(), Some(&[0.2, 0.25, 0.4, 0.5][..]));
    let args = h.to_values();
    let err = floats(&call(&p, "objective_complicated", &args)[0]);
    assert_agrees(
        "err",
        &err,
        &[
            1.561876617e-01,
            -1.493005260e-01,
            1.722380898e-01,
            -9.887704518e-02,
            -1.612380355e-02,
            -1.975867685e-01,
        ],
    );
    let j = floats(&call(&p, "jacobian_complicated", &args)[0]);
    assert_agrees("J", &j, &dense(&HAND_COMPLICATED_J, 28));

    // The us columns against finite differences: moving us[i][c] for every i at once.
    let us = h.us.clone().unwrap();
    let us_at = |u: &[f64]| {
        let mut a = args.clone();
        let k = a.len() - 2;
        a[k] = f64_array(&[h.n(), 2], u.to_vec());
        floats(&call(&p, "objective_complicated", &a)[0])
    };
    for c in 0..2 {
        let dir: Vec<f64> = (0..2 * h.n()).map(|t| f64::from(t % 2 == c)).collect();
        let fd = fd::jvp(&us, &dir, us_at);
        let col: Vec<f64> = j.chunks(28).map(|r| r[c]).collect();
        assert_fd("hand complicated us column", &col, &fd);
    }
    // Transposition identity on the θ part.
    let mut rng = SplitMix64::new(4);
    let ybar = random_direction(&mut rng, 6);
    let mut a = args.clone();
    a.push(f64_array(&[6], ybar.clone()));
    let rev = call(&p, "vjp_complicated", &a);
    assert_same(
        "vjp vs ybar·J (θ)",
        &floats(&rev[1]),
        &vec_mat(&ybar, &j, 28)[2..],
    );
}

#[test]
fn hand_small_files() {
    let p = program("hand.fut");
    let h = Hand::read(&adbench("hand/hand1_t26_c100_simple.txt"), false).unwrap();
    assert_eq!(h.n(), 100);
    let args = h.to_values();
    let err = floats(&call(&p, "objective_simple", &args)[0]);
    assert_agrees(
        "simple err[0..6]",
        &err[..6],
        &[
            1.922433945e-01,
            8.247191593e-02,
            -2.365194665e-01,
            1.299682722e-03,
            8.386372018e-02,
            6.321925112e-02,
        ],
    );
    assert_agrees(
        "simple Σ err²",
        &[err.iter().map(|e| e * e).sum()],
        &[3.124739869e+00],
    );
    let j = floats(&call(&p, "jacobian_simple", &args)[0]);
    assert_agrees(
        "simple J[0][0..3]",
        &j[..3],
        &[-1.014593931e-01, -2.787415281e-02, 4.512952859e-02],
    );
    assert_agrees(
        "simple J[0][14..18]",
        &j[14..18],
        &[
            -3.006409490e-02,
            -2.340454434e-02,
            -2.066306072e-02,
            -2.272300078e-03,
        ],
    );
    assert_agrees("simple Σ J", &[j.iter().sum()], &[-3.131742282e+02]);
    assert_agrees(
        "simple Σ |J|",
        &[j.iter().map(|x| x.abs()).sum()],
        &[3.422496444e+02],
    );

    let h = Hand::read(&adbench("hand/hand1_t26_c100_complicated.txt"), true).unwrap();
    let args = h.to_values();
    let err = floats(&call(&p, "objective_complicated", &args)[0]);
    assert_agrees(
        "complicated err[0..6]",
        &err[..6],
        &[
            -1.068942946e-01,
            -1.005524014e-02,
            2.153338754e-03,
            -7.359201066e-02,
            1.512248428e-01,
            -8.096117656e-02,
        ],
    );
    assert_agrees(
        "complicated Σ err²",
        &[err.iter().map(|e| e * e).sum()],
        &[3.227015111e+00],
    );
    let j = floats(&call(&p, "jacobian_complicated", &args)[0]);
    assert_agrees(
        "complicated J[0][0..5]",
        &j[..5],
        &[
            3.384704188e-04,
            2.843189514e-03,
            1.451807335e-03,
            1.402933297e-03,
            -6.105303777e-02,
        ],
    );
    assert_agrees(
        "complicated J[0][20..24]",
        &j[20..24],
        &[
            2.945311180e-02,
            1.674772108e-02,
            3.282311628e-02,
            1.692685710e-02,
        ],
    );
    assert_agrees("complicated Σ J", &[j.iter().sum()], &[-3.092251217e+02]);
    assert_agrees(
        "complicated Σ |J|",
        &[j.iter().map(|x| x.abs()).sum()],
        &[3.442064690e+02],
    );
}

// ------------------------------------------------------------------------------------------
// LSTM

#[test]
fn lstm_l2_c1024() {
    let p = program("lstm.fut");
    let l = Lstm::read(&adbench("lstm/lstm_l2_c1024.txt")).unwrap();
    let args = l.to_values();
    assert_agrees(
        "loss",
        &[scalar(&call(&p, "objective", &args))],
        &[6.666651796e-01],
    );
    let grad = all_floats(&call(&p, "gradient", &args));
    assert_eq!(grad.len(), l.num_params());
    let w_forget = [
        3.143870250e-06,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        -3.678408073e-05,
        -1.548486127e-04,
        5.487172679e-06,
        -4.045274135e-06,
        -8.773539087e-07,
        -1.819737181e-06,
        -6.614046208e-07,
    ];
    let w_input = [
        1.254323141e-04,
        5.264595500e-06,
        3.428331979e-06,
        2.790766840e-05,
        4.456030552e-05,
        4.041854051e-05,
        1.134871387e-05,
        -7.361194142e-05,
        -3.923185969e-04,
        6.036075958e-06,
        -2.507490244e-05,
        -4.839554046e-06,
        -4.941757934e-06,
        -1.498484518e-06,
    ];
    let b_forget = [
        7.415624005e-04,
        1.359058922e-04,
        9.183194277e-05,
        1.140398614e-04,
        1.310374905e-04,
        1.899580039e-04,
        6.666670891e-05,
        -2.997530937e-04,
        -1.394284885e-03,
        7.819974867e-05,
        -7.110034636e-05,
        -1.566894150e-05,
        -1.591326739e-05,
        -5.887018561e-06,
    ];
    let w_in = [
        8.950566563e-06,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        -1.736839660e-04,
        -3.219795644e-04,
        7.719255477e-06,
        -2.988072241e-05,
        -1.117388545e-05,
        -2.925054119e-06,
        -2.041872813e-06,
    ];
    let w_out = [
        1.140427482e-02,
        9.939473891e-03,
        4.538767974e-03,
        1.467535851e-03,
        1.595785016e-02,
        7.132159961e-03,
        2.521206444e-03,
        -1.799902398e-02,
        -2.626596141e-02,
        2.442939921e-03,
        -3.670747149e-03,
        -1.314444811e-02,
        -4.549998920e-03,
        -1.092709838e-02,
    ];
    let b_out = [
        2.173486628e-02,
        1.828573755e-02,
        1.118874419e-02,
        8.976729200e-03,
        2.398538932e-02,
        1.208003752e-02,
        1.486387886e-02,
        -3.023246901e-02,
        -5.001167754e-02,
        4.466209428e-03,
        -5.236024060e-03,
        -1.793162852e-02,
        -7.731671065e-03,
        -2.002256909e-02,
    ];
    assert_agrees("W_forget", &grad[0..14], &w_forget);
    assert_agrees("W_input", &grad[14..28], &w_input);
    assert_agrees("B_forget", &grad[56..70], &b_forget);
    assert_agrees("w_in", &grad[224..238], &w_in);
    assert_agrees("w_out", &grad[238..252], &w_out);
    assert_agrees("b_out", &grad[252..266], &b_out);
    let zeros: Vec<usize> = (1..=6).chain(29..=34).chain(225..=230).collect();
    for i in zeros {
        assert_eq!(grad[i], 0.0, "gradient entry {i} must be exactly 0");
    }
    assert_agrees("Σ grad", &[grad.iter().sum()], &[-3.819500097e-02]);
    assert_agrees(
        "Σ |grad|",
        &[grad.iter().map(|g| g.abs()).sum()],
        &[5.504392892e-01],
    );
    assert_agrees(
        "‖grad‖",
        &[grad.iter().map(|g| g * g).sum::<f64>().sqrt()],
        &[9.474138011e-02],
    );

    // Forward mode, finite differences and the transposition identity along random
    // directions of all weights.
    let shapes = [args[0].clone(), args[1].clone()];
    let split = |v: &[f64]| {
        let (m, e) = v.split_at(l.main.len());
        [
            reshape_like(&shapes[0], m.to_vec()),
            reshape_like(&shapes[1], e.to_vec()),
        ]
    };
    let x0 = [l.main.clone(), l.extra.clone()].concat();
    let loss_at = |x: &[f64]| {
        let [m, e] = split(x);
        vec![scalar(&call(
            &p,
            "objective",
            &[m, e, args[2].clone(), args[3].clone()],
        ))]
    };
    let mut rng = SplitMix64::new(5);
    for k in 0..2 {
        let v = random_direction(&mut rng, x0.len());
        let mut a = args.clone();
        a.extend(split(&v));
        let jv = scalar(&call(&p, "directional", &a));
        gradus_check::check_transposition(&grad, &v, &[1.0], &[jv], Tolerance::ROUNDING)
            .unwrap_or_else(|e| panic!("direction {k}: {e}"));
        assert_fd(
            "LSTM directional derivative",
            &[jv],
            &fd::jvp(&x0, &v, loss_at),
        );
    }
    // One forward-mode entry of the gradient pinned to the reference.
    let mut a = args.clone();
    a.extend(split(&one_hot(x0.len(), 240)));
    assert!(agrees(scalar(&call(&p, "directional", &a)), w_out[2]));
}

// ------------------------------------------------------------------------------------------
// k-means, NNMF, micro benchmarks, project

#[test]
fn kmeans_small_instances() {
    let p = program("kmeans.fut");
    let args = generate::kmeans(3, 10, 2).unwrap();
    assert_agrees(
        "P",
        &floats(&args[0])[..4],
        &[
            0.5665615751722809,
            0.7457817572627011,
            0.9710027535867962,
            0.4443592170557721,
        ],
    );
    assert_agrees(
        "f",
        &[scalar(&call(&p, "objective", &args))],
        &[5.173619701e-01],
    );
    let grad_ref = [
        -1.266405758e-01,
        7.412702715e-01,
        1.873081336e-01,
        -1.574159256e-01,
        3.764106831e-01,
        7.183744072e-01,
    ];
    let grad = floats(&call(&p, "gradient", &args)[0]);
    assert_agrees("∇f", &grad, &grad_ref);
    assert_agrees(
        "∇f (forward)",
        &floats(&call(&p, "gradient_fwd", &args)[0]),
        &grad_ref,
    );
    let hess_ref = [8.0, 8.0, 4.0, 4.0, 8.0, 8.0];
    for e in ["hessian_diagonal", "hessian_diagonal_fwd"] {
        assert_agrees(e, &floats(&call(&p, e, &args)[0]), &hess_ref);
    }
    let c0 = floats(&args[1]);
    let fd = fd::grad(&c0, |c| {
        scalar(&call(
            &p,
            "objective",
            &[args[0].clone(), reshape_like(&args[1], c.to_vec())],
        ))
    });
    assert_fd("k-means gradient", &grad, &fd);

    let args = generate::kmeans(5, 1000, 4).unwrap();
    assert_agrees(
        "f",
        &[scalar(&call(&p, "objective", &args))],
        &[2.559754930e+02],
    );
    let grad = floats(&call(&p, "gradient", &args)[0]);
    assert_entries(
        "∇f",
        &grad,
        &[
            (0, -2.793536869e+01),
            (3, 2.109114415e+01),
            (16, -3.279308092e+01),
        ],
    );
    assert_agrees("Σ ∇f", &[grad.iter().sum()], &[3.608421749e+02]);
    assert_agrees(
        "Σ |∇f|",
        &[grad.iter().map(|g| g.abs()).sum()],
        &[7.965579091e+02],
    );
    let hdiag = floats(&call(&p, "hessian_diagonal", &args)[0]);
    let cnt = [92.0, 106.0, 226.0, 420.0, 156.0];
    let expected: Vec<f64> = cnt.iter().flat_map(|c| [2.0 * c; 4]).collect();
    assert_eq!(hdiag, expected, "Hessian diagonal is 2·cnt");
}

#[test]
fn nnmf_small_instances() {
    let p = program("nnmf.fut");
    let args = generate::nnmf(4, 5, 2).unwrap();
    assert_agrees(
        "D",
        &[scalar(&call(&p, "objective", &args))],
        &[2.553335768e+01],
    );
    let reference = [
        1.073890059e+00,
        1.079785342e+00,
        6.756885788e-01,
        6.263669816e-01,
        7.497922532e-01,
        1.356152321e+00,
        1.356219148e+00,
        8.638293703e-01,
        9.355888596e-01,
        9.756269907e-01,
    ];
    for e in ["gradient", "gradient_fwd", "gradient_closed_form"] {
        assert_agrees(e, &floats(&call(&p, e, &args)[0]), &reference);
    }
    let h0 = floats(&args[2]);
    let fd = fd::grad(&h0, |h| {
        let a = [
            args[0].clone(),
            args[1].clone(),
            reshape_like(&args[2], h.to_vec()),
        ];
        scalar(&call(&p, "objective", &a))
    });
    assert_fd(
        "NNMF gradient",
        &floats(&call(&p, "gradient", &args)[0]),
        &fd,
    );
    // The W part of the joint gradient against its closed form (1/X - A/X²)·Hᵀ.
    let wh = call(&p, "gradient_wh", &args);
    let (a, w, h) = (floats(&args[0]), floats(&args[1]), h0);
    let (m, n, r) = (4, 5, 2);
    let mut gw = vec![0.0; m * r];
    for i in 0..m {
        for j in 0..n {
            let x: f64 = (0..r).map(|q| w[i * r + q] * h[q * n + j]).sum();
            let g = 1.0 / x - a[i * n + j] / (x * x);
            for q in 0..r {
                gw[i * r + q] += g * h[q * n + j];
            }
        }
    }
    assert_same("∂D/∂W", &floats(&wh[0]), &gw);
    assert_agrees("∂D/∂H (joint)", &floats(&wh[1]), &reference);

    let args = generate::nnmf(10, 10, 1).unwrap();
    assert_agrees(
        "D",
        &[scalar(&call(&p, "objective", &args))],
        &[1.141301327e+02],
    );
    let reference = [
        1.367051145e+00,
        -3.286768030e+00,
        -8.711839612e-01,
        -6.190267956e+00,
        1.178080795e+00,
        -5.478120812e+00,
        1.162092900e+00,
        -4.608078700e+00,
        -7.543030635e+00,
        4.199505074e-01,
    ];
    for e in ["gradient", "gradient_fwd"] {
        assert_agrees(e, &floats(&call(&p, e, &args)[0]), &reference);
    }
}

#[test]
fn micro_benchmarks() {
    let p = program("micro.fut");
    for (n, dot, sum_y, argmax, max, sum_sy) in [
        (
            10,
            3.024690482e+00,
            6.683274168e+00,
            1,
            9.152831531e-01,
            6.078729470e+00,
        ),
        (
            100,
            2.489074826e+01,
            5.312063337e+01,
            78,
            9.886775473e-01,
            4.831553389e+01,
        ),
    ] {
        let args = generate::micro(n);
        assert_agrees("s", &floats(&args[2]), &[9.095436335e-01]);
        let y = floats(&args[1]);
        assert_agrees("Σ y", &[y.iter().sum()], &[sum_y]);
        assert_agrees("dot", &[scalar(&call(&p, "dot_value", &args))], &[dot]);
        assert_agrees("max", &[scalar(&call(&p, "max_value", &args))], &[max]);
        assert_agrees(
            "Σ s·y",
            &[scalar(&call(&p, "scale_value", &args))],
            &[sum_sy],
        );
        for e in ["dot_fwd", "dot_rev", "scale_fwd", "scale_rev"] {
            assert_eq!(floats(&call(&p, e, &args)[0]), y, "{e} (n = {n}) is y");
        }
        for e in ["max_fwd", "max_rev"] {
            assert_eq!(
                floats(&call(&p, e, &args)[0]),
                one_hot(n, argmax),
                "{e} (n = {n})"
            );
        }
        let identity: Vec<f64> = (0..n * n).map(|t| f64::from(t / n == t % n)).collect();
        for e in ["add_fwd", "add_rev"] {
            assert_eq!(floats(&call(&p, e, &args)[0]), identity, "{e} (n = {n})");
        }
    }
}

#[test]
fn project_jacobian() {
    let p = program("ba_project.fut");
    let row0 = [
        -1.122546546e+03,
        4.273885127e+02,
        -5.670210613e+01,
        -7.441922400e+00,
        1.565774704e+01,
        -8.167575856e+00,
        6.295399046e-01,
        1.0,
        0.0,
        5.906671897e+02,
        1.681994398e+03,
    ];
    let row1 = [
        -1.999806003e+03,
        -7.798022932e+02,
        1.486878841e+03,
        -3.771165235e+01,
        1.549120716e+01,
        7.837460310e+00,
        2.052559895e+00,
        0.0,
        1.0,
        1.925818803e+03,
        5.483995883e+03,
    ];
    let row19 = [
        -1.767685273e+03,
        -7.170781901e+02,
        1.312955882e+03,
        -3.270393340e+01,
        1.376169822e+01,
        7.602133807e+00,
        1.914118559e+00,
        0.0,
        1.0,
        1.661924509e+03,
        4.284038791e+03,
    ];
    for (n, sum_g, sum_j, sum_abs) in [
        (1, 1.121667078e+03, 7.628234042e+03, 1.565259024e+04),
        (10, 1.114322152e+04, 7.458661775e+04, 1.533423796e+05),
    ] {
        let args = generate::project(n).unwrap();
        let g = floats(&call(&p, "objective", &args)[0]);
        assert_agrees("G[0..2]", &g[..2], &[2.697641003e+02, 8.519029778e+02]);
        assert_agrees("Σ G", &[g.iter().sum()], &[sum_g]);
        let fwd = floats(&call(&p, "jacobian_fwd", &args)[0]);
        let rev = floats(&call(&p, "jacobian_rev", &args)[0]);
        assert_same("forward and reverse Jacobians", &fwd, &rev);
        assert_agrees("row 0", &fwd[..11], &row0);
        assert_agrees("row 1", &fwd[11..22], &row1);
        assert_agrees("Σ J", &[fwd.iter().sum()], &[sum_j]);
        assert_agrees("Σ |J|", &[fwd.iter().map(|x| x.abs()).sum()], &[sum_abs]);
        if n == 10 {
            assert_agrees("row 19", &fwd[19 * 11..], &row19);
            let cam = floats(&args[0]);
            let fd = gradus_check::fd::jacobian(&cam, |c| {
                floats(
                    &call(
                        &p,
                        "objective",
                        &[f64_array(&[11], c.to_vec()), args[1].clone()],
                    )[0],
                )
            });
            assert_fd("project Jacobian", &fwd, &fd.concat());
        }
    }
}
