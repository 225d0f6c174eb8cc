use super::TraceError;
use crate::program::Program;
use crate::sparse::{SparseKind, trace_entry};
use crate::value::Value;
use ndarray::Array1;

fn vec_f64(xs: &[f64]) -> Value {
    Value::from_ndarray(Array1::from(xs.to_vec()))
}

fn vec_i64(xs: &[i64]) -> Value {
    Value::from_ndarray(Array1::from(xs.to_vec()))
}

/// The pattern of result 0 of `entry` as lists of inputs.
fn pattern(src: &str, entry: &str, args: &[Value], point: usize) -> Vec<Vec<u32>> {
    let prog = Program::from_source("t.fut", src).unwrap_or_else(|d| panic!("{}", d.render()));
    let sets = trace_entry(&prog, entry, args, point).unwrap();
    sets[0]
        .iter()
        .map(|d| d.as_ref().map(|v| v.to_vec()).unwrap_or_default())
        .collect()
}

#[test]
fn a_tridiagonal_residual_has_three_bands() {
    let src = "entry r [n] (x: [n]f64) : [n]f64 =
      tabulate n (\\i -> let l = if i > 0 then x[i-1] else 0
                        let r = if i < n - 1 then x[i+1] else 0
                        in l - 2 * x[i] + r * r)";
    let p = pattern(src, "r", &[vec_f64(&[1.0, 2.0, 3.0, 4.0, 5.0])], 0);
    assert_eq!(
        p,
        vec![
            vec![0, 1],
            vec![0, 1, 2],
            vec![1, 2, 3],
            vec![2, 3, 4],
            vec![3, 4]
        ]
    );
}

#[test]
fn a_branch_on_the_point_takes_both_sides() {
    let src = "entry r [n] (x: [n]f64) : [n]f64 =
      map (\\i -> if x[i] > 0 then x[i] * x[(i + 1) % n] else f64.exp x[0]) (iota n)";
    // x[0] > 0 takes the first side at 0, x[1] < 0 the second at 1: both rows get both.
    let p = pattern(src, "r", &[vec_f64(&[1.0, -2.0, 3.0])], 0);
    assert_eq!(p, vec![vec![0, 1], vec![0, 1, 2], vec![0, 2]]);
}

#[test]
fn an_array_built_in_a_branch_on_the_point_keeps_both_sides() {
    let src = "entry r [n] (x: [n]f64) : [n]f64 =
      if x[0] > 0 then map (\\v -> v * 2) x else reverse x";
    let p = pattern(src, "r", &[vec_f64(&[1.0, 2.0, 3.0])], 0);
    assert_eq!(p, vec![vec![0, 2], vec![1], vec![0, 2]]);
    let q = pattern(src, "r", &[vec_f64(&[-1.0, 2.0, 3.0])], 0);
    assert_eq!(p, q);
}

#[test]
fn an_update_in_a_branch_on_the_point_keeps_both_sides() {
    let src = "entry r [n] (x: [n]f64) : [n]f64 =
      let y = map (\\v -> v + 1) x
      in if x[1] > 0 then y with [0] = x[2] else y with [0] = x[1] * 3";
    for s in [1.0, -1.0] {
        let p = pattern(src, "r", &[vec_f64(&[5.0, s, 3.0])], 0);
        assert_eq!(p, vec![vec![0, 1, 2], vec![1], vec![2]], "x[1] = {s}");
    }
}

#[test]
fn indices_read_from_arrays_give_the_rows_they_name() {
    let src = "entry r [n][k] (x: [n]f64) (a: [k]i64) (b: [k]i64) : [k]f64 =
      map2 (\\i j -> x[i] * f64.sin x[j]) a b";
    let p = pattern(
        src,
        "r",
        &[
            vec_f64(&[1.0, 2.0, 3.0, 4.0]),
            vec_i64(&[3, 0, 2]),
            vec_i64(&[1, 0, 0]),
        ],
        0,
    );
    assert_eq!(p, vec![vec![1, 3], vec![0], vec![0, 2]]);
}

#[test]
fn a_sum_depends_on_every_input_and_floor_on_its_operand() {
    // `floor`'s derivative is zero, but its value depends on the point (it may steer a
    // branch or an index): its entry is listed.
    let src = "entry r [n] (x: [n]f64) : [3]f64 = [f64.sum x, f64.floor x[1] + 1, 2]";
    let p = pattern(src, "r", &[vec_f64(&[1.0, 2.0, 3.0, 4.0])], 0);
    assert_eq!(p, vec![vec![0, 1, 2, 3], vec![1], vec![]]);
}

#[test]
fn an_index_computed_from_the_point_reads_any_element() {
    let src = "entry r [n] (x: [n]f64) : [1]f64 = [x[i64.f64 x[0] % n] * 2]";
    let p = pattern(src, "r", &[vec_f64(&[1.0, 2.0, 3.0])], 0);
    assert_eq!(p, vec![vec![0, 1, 2]]);
}

#[test]
fn a_loop_count_that_depends_on_the_point_is_refused() {
    let src = "entry r [n] (x: [n]f64) : [n]f64 =
      loop y = x while y[0] < 100 do map (\\v -> v * 2) y";
    let prog = Program::from_source("t.fut", src).unwrap();
    let e = trace_entry(&prog, "r", &[vec_f64(&[1.0, 2.0])], 0).unwrap_err();
    let reason = e.reason(|span| prog.sources.short_location(span));
    assert_eq!(
        reason,
        "a `loop ... while` runs a number of times that depends on the point (at t.fut:2:7)"
    );
}

#[test]
fn a_for_loop_whose_count_depends_on_the_point_is_refused_with_its_location() {
    let src = "entry r [n] (x: [n]f64) : f64 =
      let m = i64.f64 x[0]
      in loop s = 0 for i < m do s + x[i % n]";
    let prog = Program::from_source("t.fut", src).unwrap();
    let e = trace_entry(&prog, "r", &[vec_f64(&[3.0, 2.0])], 0).unwrap_err();
    let reason = e.reason(|span| prog.sources.short_location(span));
    assert_eq!(
        reason,
        "a loop runs a number of times that depends on the point (at t.fut:3:10)"
    );
}

#[test]
fn a_failing_program_says_so() {
    let src = "entry r [n] (x: [n]f64) (i: i64) : [1]f64 = [x[i]]";
    let prog = Program::from_source("t.fut", src).unwrap();
    let e = trace_entry(
        &prog,
        "r",
        &[vec_f64(&[1.0]), Value::Scalar(crate::value::Scalar::I64(5))],
        0,
    )
    .unwrap_err();
    assert_eq!(e, TraceError::Fails);
}

#[test]
fn a_branch_not_taken_may_read_out_of_range() {
    // At s = 5 the row index is n = m, out of range: the guarded read is in the branch not
    // taken, which is still traced for what it depends on (here in the Hessian's program).
    let src = "def f [n] [m] (c: [n][m]f64) (x: [n]f64, s: f64) : [n][m]f64 =
      let a = transpose (replicate n (replicate m (replicate m s)))
      let k = if 2.0 < s then n else m
      in if k >= 0 && k < m then a[k] else replicate n (replicate m s)
    entry j [n] [m] (c: [n][m]f64) (v: []f64) : []f64 = flatten (f c (take n v, v[n]))
    entry h [n] [m] (c: [n][m]f64) (w: []f64) (v: []f64) : f64 =
      let fy = flatten (f c (take n v, v[n]))
      in f64.sum (map (\\i -> w[i] * fy[i]) (iota (length fy)))";
    let prog = Program::from_source("t.fut", src).unwrap_or_else(|d| panic!("{}", d.render()));
    let c = Value::from_ndarray(ndarray::Array2::<f64>::zeros((3, 3)));
    let v = vec_f64(&[0.5, 1.0, 1.5, 5.0]);
    let w = vec_f64(&[1.0; 9]);
    let jac = prog.sparse(SparseKind::Jacobian, "j", Some(1)).unwrap();
    let plan = jac.plan(&[c.clone(), v.clone()]).unwrap();
    assert_eq!(plan.pattern.nrows, 9);
    let hess = prog.sparse(SparseKind::Hessian, "h", Some(2)).unwrap();
    hess.plan(&[c, w, v]).unwrap();
}

#[test]
fn a_write_out_of_range_at_an_index_from_the_point_may_write_anywhere() {
    // Fuzz seed 45200036: the index set to m is `floor s % m`. At s = 0.3 both of the
    // scatter's indices are out of range for the one-row result, at s = -1.3 the first is 0:
    // so the row may be s.
    let src = "entry r [n] [m] (c: [n][m]f64) (v: []f64) : [n]f64 =
      let s = v[n]
      let is = tabulate m (\\i -> i)
      let is[i64.f64 s % m] = m
      in scatter (copy (take n v)) is (replicate m s)";
    let c = Value::from_ndarray(ndarray::Array2::<f64>::zeros((1, 2)));
    let p = pattern(src, "r", &[c, vec_f64(&[0.25, 0.3])], 1);
    assert_eq!(p, vec![vec![0, 1]]);
}
