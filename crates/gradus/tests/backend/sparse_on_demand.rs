//! Sparse Jacobians and Hessians on demand (`Program::sparse`): against the dense Jacobian
//! and Hessian derived from the same entry point, on the interpreter and the `c` backend;
//! patterns kept per value of the other arguments; conservative over value-dependent branches;
//! errors.

use gradus::backend::c::build::find_compiler;
use gradus::derive::Derivative;
use gradus::program::CallError;
use gradus::sparse::{Products, SparseKind};
use gradus::value::Value;
use gradus::{Backend, NativeOptions, Program};
use ndarray::Array1;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

fn f64s(xs: &[f64]) -> Value {
    Value::from_ndarray(Array1::from(xs.to_vec()))
}

fn i64s(xs: &[i64]) -> Value {
    Value::from_ndarray(Array1::from(xs.to_vec()))
}

fn random(n: usize, seed: u64) -> Vec<f64> {
    let mut r = rand_pcg::Pcg64::seed_from_u64(seed);
    (0..n).map(|_| r.random_range(-1.5..1.5)).collect()
}

/// The program on the interpreter and, where a C compiler is installed, on `c`.
fn programs(src: &str) -> Vec<Program> {
    let p = Program::from_source("sparse.fut", src).unwrap_or_else(|d| panic!("{}", d.render()));
    let mut out = vec![];
    if find_compiler().is_some() {
        let q = Program::from_source("sparse.fut", src).unwrap();
        out.push(
            q.with_backend(Backend::Native(NativeOptions::sequential()))
                .unwrap(),
        );
    }
    out.insert(0, p);
    out
}

fn flat(v: &Value) -> Vec<f64> {
    v.to_ndarray::<f64>().unwrap().iter().copied().collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.to_ndarray::<i64>().unwrap().iter().copied().collect()
}

/// Checks the CSR result against the dense matrix `dense` (`m` rows of `n`): well formed,
/// equal at every listed entry, and every non-zero listed. Returns the number of entries.
fn check_csr(out: &[Value], dense: &[f64], m: usize, n: usize, what: &str) -> usize {
    let (vals, cols, offs) = (flat(&out[0]), ints(&out[1]), ints(&out[2]));
    assert_eq!(offs.len(), m + 1, "{what}: offsets");
    assert_eq!(offs[0], 0, "{what}");
    assert_eq!(*offs.last().unwrap() as usize, vals.len(), "{what}");
    assert_eq!(cols.len(), vals.len(), "{what}");
    let mut listed = vec![false; m * n];
    for i in 0..m {
        let row = &cols[offs[i] as usize..offs[i + 1] as usize];
        assert!(
            row.windows(2).all(|w| w[0] < w[1]),
            "{what}: row {i} {row:?}"
        );
        for (k, &j) in row.iter().enumerate() {
            let j = j as usize;
            assert!(j < n, "{what}: column {j}");
            listed[i * n + j] = true;
            let (got, want) = (vals[offs[i] as usize + k], dense[i * n + j]);
            assert!(
                (got - want).abs() <= 1e-10 * (1.0 + want.abs()),
                "{what}: entry ({i}, {j}) is {got}, the dense matrix has {want}"
            );
        }
    }
    for (e, &v) in dense.iter().enumerate() {
        assert!(
            v == 0.0 || listed[e],
            "{what}: entry ({}, {}) = {v} is missing from the pattern",
            e / n,
            e % n
        );
    }
    vals.len()
}

/// The sparse Jacobian of `entry` at `args` against the dense one, on every backend; the
/// plan used on the last.
fn jacobian_agrees(
    src: &str,
    entry: &str,
    args: &[Value],
    point: usize,
) -> Arc<gradus::sparse::SparsePlan> {
    let mut plan = None;
    for prog in programs(src) {
        let sparse = prog
            .sparse(SparseKind::Jacobian, entry, Some(point))
            .unwrap();
        let out = sparse.call(args.to_vec()).unwrap();
        let dense = prog
            .derive(Derivative::Jacobian, entry, Some(&[point]))
            .unwrap();
        let d = dense.call(args.to_vec()).unwrap();
        let shape = d[0].shape().to_vec();
        let (m, n) = if shape.len() == 2 {
            (shape[0], shape[1])
        } else {
            (1, shape[0])
        };
        check_csr(&out, &flat(&d[0]), m, n, entry);
        plan = Some(sparse.plan(args).unwrap());
    }
    plan.unwrap()
}

fn hessian_agrees(
    src: &str,
    entry: &str,
    args: &[Value],
    point: usize,
) -> Arc<gradus::sparse::SparsePlan> {
    let mut plan = None;
    for prog in programs(src) {
        let sparse = prog
            .sparse(SparseKind::Hessian, entry, Some(point))
            .unwrap();
        let out = sparse.call(args.to_vec()).unwrap();
        let dense = prog
            .derive(Derivative::Hessian, entry, Some(&[point]))
            .unwrap();
        let d = dense.call(args.to_vec()).unwrap();
        let n = d[0].shape()[0];
        check_csr(&out, &flat(&d[0]), n, n, entry);
        let p = sparse.plan(args).unwrap();
        assert_eq!(p.products, Products::Star);
        gradus::sparse::colour::check_star(&p.pattern, &p.colouring).unwrap();
        plan = Some(p);
    }
    plan.unwrap()
}

const TRIDIAGONAL: &str = "
entry residual [n] (x: [n]f64) : [n]f64 =
  tabulate n (\\i -> let l = if i > 0 then x[i-1] else 0
                    let r = if i < n - 1 then x[i+1] else 0
                    in l - 2 * x[i] + r + f64.sin x[i] * r)";

#[test]
fn tridiagonal_jacobian_takes_three_colours() {
    let plan = jacobian_agrees(TRIDIAGONAL, "residual", &[f64s(&random(12, 1))], 0);
    assert_eq!(plan.colouring.count, 3);
    assert_eq!(plan.pattern.nnz(), 3 * 12 - 2);
}

const STENCIL: &str = "
entry bratu (k: i64) (u: []f64) : []f64 =
  tabulate (length u) (\\p ->
    let (i, j) = (p / k, p % k)
    let at (a: i64) (b: i64) = if a >= 0 && a < k && b >= 0 && b < k then u[a*k+b] else 0
    in 4 * u[p] - at (i-1) j - at (i+1) j - at i (j-1) - at i (j+1) - 0.5 * f64.exp u[p])";

#[test]
fn a_five_point_stencil_takes_five_colours() {
    let plan = jacobian_agrees(
        STENCIL,
        "bratu",
        &[
            Value::Scalar(gradus::value::Scalar::I64(7)),
            f64s(&random(49, 2)),
        ],
        1,
    );
    assert_eq!(plan.colouring.count, 5);
    assert_eq!(plan.pattern.max_row_len(), 5);
}

#[test]
fn a_dense_row_over_a_band_goes_by_rows() {
    let src = "
entry f [n] (x: [n]f64) : [n]f64 =
  tabulate n (\\i -> if i == 0 then f64.sum (map (\\v -> v * v) x) else x[i] * x[i-1])";
    let plan = jacobian_agrees(src, "f", &[f64s(&random(10, 3))], 0);
    assert_eq!(plan.products, Products::Rows);
    assert!(plan.colouring.count <= 3, "{}", plan.colouring.count);
}

#[test]
fn a_scalar_result_has_one_row() {
    let src = "entry e [n] (x: [n]f64) : f64 = f64.sum (map2 (*) x (rotate 1 x))";
    let plan = jacobian_agrees(src, "e", &[f64s(&random(6, 4))], 0);
    assert_eq!(plan.pattern.nrows, 1);
    assert_eq!(plan.colouring.count, 1);
}

const BA_LIKE: &str = "
entry residuals [n][k] (obs: [k]i64) (cams: [k]i64) (x: [n]f64) : [k]f64 =
  map2 (\\p c -> x[p] * x[c] - f64.cos x[p]) obs cams";

#[test]
fn patterns_are_kept_per_value_of_the_index_arguments() {
    let x = f64s(&random(8, 5));
    let a = [i64s(&[0, 3, 5]), i64s(&[7, 7, 6]), x.clone()];
    jacobian_agrees(BA_LIKE, "residuals", &a, 2);
    let prog = Program::from_source("ba.fut", BA_LIKE).unwrap();
    let sparse = prog
        .sparse(SparseKind::Jacobian, "residuals", None)
        .unwrap();
    let first = sparse.plan(&a).unwrap();
    let mut moved = a.clone();
    moved[2] = f64s(&random(8, 6));
    assert!(
        Arc::ptr_eq(&first, &sparse.plan(&moved).unwrap()),
        "same indices: same plan"
    );
    let mut other = a.clone();
    other[0] = i64s(&[1, 2, 4]);
    let second = sparse.plan(&other).unwrap();
    assert!(!Arc::ptr_eq(&first, &second), "other indices: a new plan");
    assert_eq!(second.pattern.row(0), &[1, 7]);
    jacobian_agrees(BA_LIKE, "residuals", &other, 2);
}

#[test]
fn a_pattern_found_at_one_point_holds_at_points_that_branch_the_other_way() {
    let src = "
entry f [n] (x: [n]f64) : [n]f64 =
  tabulate n (\\i -> if x[i] > 0 then x[i] * x[(i + 1) % n] else f64.exp x[(i + 2) % n])";
    let prog = Program::from_source("b.fut", src).unwrap();
    let sparse = prog.sparse(SparseKind::Jacobian, "f", None).unwrap();
    let dense = prog.derive(Derivative::Jacobian, "f", None).unwrap();
    let mut first = None;
    for seed in 0..6 {
        let x = f64s(&random(7, 10 + seed));
        let out = sparse.call(vec![x.clone()]).unwrap();
        let d = dense.call(vec![x.clone()]).unwrap();
        check_csr(&out, &flat(&d[0]), 7, 7, "branches");
        let plan = sparse.plan(&[x]).unwrap();
        let p = first.get_or_insert(plan.clone());
        assert!(Arc::ptr_eq(p, &plan));
        assert_eq!(plan.pattern.nnz(), 7 * 3);
    }
}

const LAPLACIAN: &str = "
entry energy [n][e] (src: [e]i64) (dst: [e]i64) (x: [n]f64) : f64 =
  f64.sum (map2 (\\a b -> (x[a] - x[b]) ** 2 * (1 + x[a] * x[a])) src dst)
  + f64.sum (map f64.exp x)";

#[test]
fn a_graph_laplacian_energy_has_a_sparse_hessian() {
    let src_ = i64s(&[0, 1, 2, 3, 4, 0]);
    let dst = i64s(&[1, 2, 3, 4, 5, 5]);
    let plan = hessian_agrees(LAPLACIAN, "energy", &[src_, dst, f64s(&random(6, 7))], 2);
    // A ring of six: three entries per row.
    let rows: Vec<&[u32]> = (0..6).map(|i| plan.pattern.row(i)).collect();
    assert_eq!(plan.pattern.nnz(), 18, "{rows:?}");
    // A star colouring of a ring of six needs 3 colours; greedy orders may take one more.
    assert!(plan.colouring.count <= 4, "{}", plan.colouring.count);
}

#[test]
fn an_arrow_hessian_takes_two_star_colours() {
    let src = "entry e [n] (x: [n]f64) : f64 = x[0] * f64.sum (map (\\v -> v * v) x[1:])";
    let plan = hessian_agrees(src, "e", &[f64s(&random(9, 8))], 0);
    assert_eq!(plan.colouring.count, 2);
}

#[test]
fn a_hessian_with_a_branch_on_the_point_keeps_both_sides() {
    let src = "
entry e [n] (x: [n]f64) : f64 =
  f64.sum (tabulate n (\\i -> if x[i] > 0 then x[i] * x[(i + 1) % n] else x[i] ** 3))";
    for seed in 0..4 {
        let plan = hessian_agrees(src, "e", &[f64s(&random(6, 20 + seed))], 0);
        assert_eq!(plan.pattern.nnz(), 18, "seed {seed}");
    }
}

#[test]
fn bad_uses_are_clear_errors() {
    let prog = Program::from_source(
        "e.fut",
        "entry two (x: []f64) (y: []f64) : f64 = f64.sum x + f64.sum y
         entry mat (x: [][]f64) : [][]f64 = x
         entry vec (x: []f64) : []f64 = x
         entry grow (x: []f64) : []f64 = loop y = x while y[0] < 100 do map (* 2) y
         entry at (x: []f64) (i: i64) : [1]f64 = [x[i]]",
    )
    .unwrap();
    let err = |k, e: &str, w| prog.sparse(k, e, w).err().unwrap().to_string();
    assert!(err(SparseKind::Jacobian, "two", None).contains("name the parameter"));
    assert!(err(SparseKind::Jacobian, "mat", None).contains("one-dimensional"));
    assert!(err(SparseKind::Hessian, "vec", None).contains("scalar result"));
    assert!(err(SparseKind::Jacobian, "nope", None).contains("no entry point"));
    let grow = prog.sparse(SparseKind::Jacobian, "grow", None).unwrap();
    let e = grow.call(vec![f64s(&[1.0, 2.0])]).unwrap_err();
    assert!(
        matches!(&e, CallError::BadInput(m)
            if m.contains("depends on the point (at e.fut:4:42)")),
        "{e}"
    );
    let at = prog.sparse(SparseKind::Jacobian, "at", None).unwrap();
    let e = at
        .call(vec![
            f64s(&[1.0]),
            Value::Scalar(gradus::value::Scalar::I64(3)),
        ])
        .unwrap_err();
    assert!(
        matches!(&e, CallError::Runtime(r) if r.to_string().contains("e.fut:5")),
        "{e}"
    );
    let e = at.call(vec![f64s(&[1.0])]).unwrap_err();
    assert!(matches!(e, CallError::BadInput(_)), "{e}");
}

/// `benchmarks/sparse/ba_plain.fut`'s residual of all parameters has the Jacobian that
/// `benchmarks/ba.fut` compresses by hand, which lists all 15 columns of an observation in both
/// of its rows: the traced pattern leaves out only the principal point's other coordinate
/// (`cam[8]` in the first row, `cam[7]` in the second), which is zero there.
#[test]
fn bundle_adjustment_from_the_plain_residual_is_the_hand_compressed_jacobian() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks");
    let load = |p: &str| {
        Program::from_file_with(&root.join(p), &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()))
    };
    let (hand, plain) = (load("ba.fut"), load("sparse/ba_plain.fut"));
    let input = gradus::data::read_file(&root.join("data/ba_test.in")).unwrap();
    let [cams, x, w, obs, feat]: [Value; 5] = input.try_into().unwrap();
    let (n, m) = (cams.shape()[0] as i64, x.shape()[0] as i64);
    let params = plain
        .call("params", vec![cams.clone(), x.clone(), w.clone()])
        .unwrap()
        .remove(0);
    let want = hand
        .call("jacobian", vec![cams, x, w, obs.clone(), feat.clone()])
        .unwrap();
    let args = vec![
        Value::Scalar(gradus::value::Scalar::I64(n)),
        Value::Scalar(gradus::value::Scalar::I64(m)),
        params,
        obs,
        feat,
    ];
    let sparse = plain
        .sparse(SparseKind::Jacobian, "residual", Some(2))
        .unwrap();
    let got = sparse.call(args).unwrap();
    let (offs, cols, vals) = (ints(&got[2]), ints(&got[1]), flat(&got[0]));
    let (want_offs, want_cols, want_vals) = (ints(&want[0]), ints(&want[1]), flat(&want[2]));
    assert_eq!(offs.len(), want_offs.len());
    let reproj_rows = 2 * ints(&got[2]).len().saturating_sub(1) / 3;
    for i in 0..want_offs.len() - 1 {
        let range = |o: &[i64]| o[i] as usize..o[i + 1] as usize;
        let ours: Vec<(i64, f64)> = range(&offs).map(|k| (cols[k], vals[k])).collect();
        let theirs: Vec<(i64, f64)> = range(&want_offs)
            .map(|k| (want_cols[k], want_vals[k]))
            .collect();
        let mut left_out = vec![];
        for &(c, v) in &theirs {
            match ours.iter().find(|(d, _)| *d == c) {
                Some(&(_, u)) => assert!(
                    (u - v).abs() <= 1e-9 * (1.0 + v.abs()),
                    "({i}, {c}): {u} against {v}"
                ),
                None => {
                    assert_eq!(v, 0.0, "({i}, {c}) left out but {v}");
                    left_out.push(c);
                }
            }
        }
        assert_eq!(ours.len() + left_out.len(), theirs.len(), "row {i}");
        if i < reproj_rows {
            assert_eq!(left_out.len(), 1, "row {i}: {left_out:?}");
        } else {
            assert!(left_out.is_empty(), "row {i}");
        }
    }
}

/// The products run on the `gpu` backend (POCL in CI) and give the interpreter's matrix.
#[test]
fn the_gpu_backend_gives_the_same_sparse_matrices() {
    let skip = |why: String| {
        assert!(
            std::env::var_os("GRADUS_REQUIRE_GPU").is_none(),
            "no gpu backend: {why}"
        );
        eprintln!("skipped: {why}");
    };
    if find_compiler().is_none() {
        return skip("no C compiler".into());
    }
    let k = Value::Scalar(gradus::value::Scalar::I64(6));
    let args = vec![k, f64s(&random(36, 30))];
    let oracle = Program::from_source("s.fut", STENCIL).unwrap();
    let want = oracle
        .sparse(SparseKind::Jacobian, "bratu", Some(1))
        .unwrap()
        .call(args.clone())
        .unwrap();
    let gpu = match Program::from_source("s.fut", STENCIL)
        .unwrap()
        .with_backend(Backend::Native(NativeOptions::gpu()))
    {
        Ok(p) => p,
        Err(e) => return skip(e.to_string()),
    };
    let got = match gpu
        .sparse(SparseKind::Jacobian, "bratu", Some(1))
        .unwrap()
        .call(args)
    {
        Ok(r) => r,
        Err(e) if e.to_string().contains("OpenCL") => return skip(e.to_string()),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(ints(&got[1]), ints(&want[1]));
    assert_eq!(ints(&got[2]), ints(&want[2]));
    for (a, b) in flat(&got[0]).iter().zip(flat(&want[0])) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} against {b}");
    }
}

/// The sparse Jacobian of `entry` at each point in `points` (each a full argument list) with
/// the plan traced at the first, against the dense Jacobian there, on every backend.
fn one_plan_holds_at(src: &str, entry: &str, points: &[Vec<Value>], point: usize) {
    for prog in programs(src) {
        let sparse = prog
            .sparse(SparseKind::Jacobian, entry, Some(point))
            .unwrap();
        let dense = prog
            .derive(Derivative::Jacobian, entry, Some(&[point]))
            .unwrap();
        let plan = sparse.plan(&points[0]).unwrap();
        for (k, args) in points.iter().enumerate() {
            assert!(Arc::ptr_eq(&plan, &sparse.plan(args).unwrap()));
            let out = sparse.call(args.clone()).unwrap();
            let d = dense.call(args.clone()).unwrap();
            let shape = d[0].shape().to_vec();
            let (m, n) = if shape.len() == 2 {
                (shape[0], shape[1])
            } else {
                (1, shape[0])
            };
            check_csr(&out, &flat(&d[0]), m, n, &format!("{entry} at point {k}"));
        }
    }
}

#[test]
fn an_index_chosen_by_a_branch_on_the_point_may_be_either() {
    let src = "
entry f [n] (x: [n]f64) : [1]f64 =
  let k = if x[0] > 0 then 1 else 2
  in [x[k] * 3]";
    let points = [vec![f64s(&[1.0, 2.0, 3.0])], vec![f64s(&[-1.0, 2.0, 3.0])]];
    one_plan_holds_at(src, "f", &points, 0);
    let flipped = [points[1].clone(), points[0].clone()];
    one_plan_holds_at(src, "f", &flipped, 0);
}

#[test]
fn a_loop_count_chosen_by_a_branch_on_the_point_is_not_fixed() {
    let src = "
entry f [n] (x: [n]f64) : [n]f64 =
  let k = if x[0] > 0 then 1 else 3
  in map (\\v -> loop acc = v for i < k do acc + x[i] * acc) x";
    let prog = Program::from_source("k.fut", src).unwrap();
    let sparse = prog.sparse(SparseKind::Jacobian, "f", None).unwrap();
    for x0 in [1.0, -1.0] {
        let e = sparse.call(vec![f64s(&[x0, 2.0, 3.0])]).unwrap_err();
        assert!(
            matches!(&e, CallError::BadInput(m) if m.contains("depends on the point")),
            "{e}"
        );
    }
}

/// An array of indices chosen by a branch on the point was once taken as fixed: the pattern
/// traced where `x[0] > 0` (row `i` reads `x[i]`) missed the entries of the other side
/// (`x[n-1-i]`), whose products were then recovered into the wrong columns.
#[test]
fn indices_chosen_by_a_branch_on_the_point_may_be_either() {
    let src = "
entry f [n] (x: [n]f64) : [n]f64 =
  let is = if x[0] > 0 then iota n else reverse (iota n)
  in map (\\i -> x[i] * x[i]) is";
    let points = [
        vec![f64s(&[1.0, 2.0, 3.0, 4.0])],
        vec![f64s(&[-1.0, 2.0, 3.0, 4.0])],
    ];
    one_plan_holds_at(src, "f", &points, 0);
}

/// An integer set in a branch on the point inside a loop (the last `i` with `x[i] <= 0`),
/// then used as an index: it may be any of the values either side would give.
#[test]
fn an_integer_set_by_a_branch_on_the_point_in_a_loop_may_be_either() {
    let src = "
entry f [n] (x: [n]f64) : [n]f64 =
  let (k, _) = loop (k, j) = (0, 0.0) for i < n do
    if x[i] > 0 then (k, j + x[i]) else (i, j)
  in map (\\v -> v * x[k]) x";
    let points = [
        vec![f64s(&[1.0, -2.0, 3.0, 4.0])],
        vec![f64s(&[1.0, 2.0, 3.0, -4.0])],
        vec![f64s(&[-1.0, 2.0, 3.0, 4.0])],
    ];
    one_plan_holds_at(src, "f", &points, 0);
}

/// `floor` has no derivative, but its value depends on the point: a branch on it, or an index
/// computed from it, must be taken as depending on the point. The tracer once gave `floor`
/// an empty set, and the pattern traced at `x[0] = 0.5` missed `x[2]` and `x[1]`.
#[test]
fn a_branch_on_the_floor_of_the_point_takes_both_sides() {
    let src = "
entry f [n] (x: [n]f64) : [2]f64 =
  [if f64.floor x[0] > 0 then x[1] else x[2],
   x[i64.f64 (f64.floor (f64.abs x[0])) % n]]";
    let points = [
        vec![f64s(&[0.5, 2.0, 3.0])],
        vec![f64s(&[1.5, 2.0, 3.0])],
        vec![f64s(&[2.5, 2.0, 3.0])],
    ];
    one_plan_holds_at(src, "f", &points, 0);
}

/// A Hessian whose gradient fails at the point where the function does not: the function's
/// optimised code drops an index out of bounds whose result it does not use (`a[3]` of an
/// array of 2), and the gradient's code, which the pattern is traced on, keeps it. The error
/// is the gradient's, located, not an internal error (found by `gradus-fuzz`, seed 46400099).
#[test]
fn a_gradient_that_fails_where_the_function_does_not_reports_its_error() {
    let src = "
def f [n] [m] (c: [n][m]f64) (x: [n]f64, s: f64) : [n][m]f64 =
  map (\\_ -> map (\\y -> y) (replicate m s))
      (map2 (\\_ _ -> let a = replicate m (replicate m (replicate m s)) in a[3])
            (loop acc = replicate n (iota n) for _z in replicate m m do acc) c)

entry sh [n] [m] (c: [n][m]f64) (w: []f64) (v: []f64) : f64 =
  let fy = flatten (f c (take n v, v[n]))
  in f64.sum (map (\\i -> w[i] * fy[i]) (iota (length fy)))
";
    let prog = Program::from_source("h.fut", src).unwrap();
    let c = Value::from_ndarray(ndarray::Array2::from_shape_vec((2, 2), random(4, 7)).unwrap());
    let args = vec![c, f64s(&random(4, 8)), f64s(&random(3, 9))];
    prog.call("sh", args.clone()).unwrap();
    let hessian = prog.sparse(SparseKind::Hessian, "sh", Some(2)).unwrap();
    let e = hessian.call(args).unwrap_err().to_string();
    assert!(
        e.contains("out of bounds") && e.contains("h.fut:") && !e.contains("internal error"),
        "{e}"
    );
}
