//! The dF~ identities in the optimised IR: forward-mode gradients written as one `jvp` per
//! one-hot seed simplify to the closed forms (snapshots of the renumbered, printed core IR),
//! and compute the same values as the unoptimised programs.

use gradus::core::print::print_prog;
use gradus::core::renumber::renumber;
use gradus::opt::OptOptions;
use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

const PRELUDE: &str = r#"
def dot [n] (xs: [n]f64) (ys: [n]f64) = f64.sum (map2 (*) xs ys)
def onehot (n: i64) (i: i64) : [n]f64 = tabulate n (\j -> if j == i then 1 else 0)
def onehot2 (n: i64) (m: i64) (i: i64) (j: i64) : [n][m]f64 =
  tabulate_2d n m (\k l -> if k == i && l == j then 1 else 0)
def trace [n] (a: [n][n]f64) = f64.sum (tabulate n (\i -> a[i][i]))
def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a
"#;

fn optimised(src: &str) -> String {
    let text = format!("{PRELUDE}\n{src}");
    let p =
        Program::from_source("identities.fut", &text).unwrap_or_else(|d| panic!("{}", d.render()));
    print_prog(&renumber(p.core()))
}

fn vector(xs: &[f64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::F64(xs.to_vec())))
}

fn matrix(rows: usize, cols: usize, xs: &[f64]) -> Value {
    Value::Array(Array::new(vec![rows, cols], Buffer::F64(xs.to_vec())).unwrap())
}

/// Runs `entry` with and without optimisation; both must agree, and the result is returned.
fn run_both(src: &str, entry: &str, args: Vec<Value>) -> Value {
    let text = format!("{PRELUDE}\n{src}");
    let on = Program::from_source("identities.fut", &text).unwrap();
    let off = Program::from_source_with("identities.fut", &text, &OptOptions::off()).unwrap();
    let a = on.call(entry, args.clone()).unwrap();
    let b = off.call(entry, args).unwrap();
    assert_eq!(a, b, "{entry}: optimised and unoptimised results differ");
    a.into_iter().next().unwrap()
}

const TRANSPOSE: &str = "entry tt [n][m] (a: [n][m]f64) = transpose (transpose a)";

#[test]
fn transpose_of_transpose_is_the_identity() {
    insta::assert_snapshot!("transpose_transpose", optimised(TRANSPOSE));
    let a = matrix(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(run_both(TRANSPOSE, "tt", vec![a.clone()]), a);
}

const DOT: &str = r#"
entry grad_dot [n] (x: [n]f64) (y: [n]f64) = tabulate n (\i -> jvp (\x -> dot x y) x (onehot n i))
"#;

#[test]
fn gradient_of_a_dot_product_is_the_other_vector() {
    let ir = optimised(DOT);
    insta::assert_snapshot!("grad_dot", ir);
    let y = vector(&[0.5, -2.0, 3.25]);
    let g = run_both(DOT, "grad_dot", vec![vector(&[1.0, 2.0, 3.0]), y.clone()]);
    assert_eq!(g, y);
}

const TRACE: &str = r#"
entry grad_tr [n] (m: [n][n]f64) (a: [n][n]f64) =
  tabulate_2d n n (\i j -> jvp (\m -> trace (matmul m a)) m (onehot2 n n i j))
"#;

#[test]
fn gradient_of_the_trace_of_a_product_is_the_transpose() {
    insta::assert_snapshot!("grad_trace", optimised(TRACE));
    let m = matrix(2, 2, &[1.0, 2.0, 3.0, 4.0]);
    let a = matrix(2, 2, &[5.0, 6.0, 7.0, 8.0]);
    let g = run_both(TRACE, "grad_tr", vec![m, a]);
    assert_eq!(g, matrix(2, 2, &[5.0, 7.0, 6.0, 8.0]));
}

const UMV: &str = r#"
def umv [n][m] (u: [n]f64) (mat: [n][m]f64) (v: [m]f64) = dot u (map (\row -> dot row v) mat)
entry grad_umv [n][m] (u: [n]f64) (mat: [n][m]f64) (v: [m]f64) =
  tabulate_2d n m (\i j -> jvp (\mat -> umv u mat v) mat (onehot2 n m i j))
"#;

#[test]
fn gradient_of_a_bilinear_form_is_the_outer_product() {
    insta::assert_snapshot!("grad_umv", optimised(UMV));
    let u = vector(&[1.0, 2.0]);
    let v = vector(&[3.0, 4.0, 5.0]);
    let mat = matrix(2, 3, &[0.0; 6]);
    let g = run_both(UMV, "grad_umv", vec![u, mat, v]);
    assert_eq!(g, matrix(2, 3, &[3.0, 4.0, 5.0, 6.0, 8.0, 10.0]));
}

const MAX: &str = r#"
entry grad_max [n] (x: [n]f64) = tabulate n (\i -> jvp (\x -> f64.maximum x) x (onehot n i))
"#;

#[test]
fn gradient_of_a_maximum_selects_the_argmax_once() {
    let ir = optimised(MAX);
    insta::assert_snapshot!("grad_max", ir);
    let g = run_both(MAX, "grad_max", vec![vector(&[0.5, 3.0, -1.0, 2.0])]);
    assert_eq!(g, vector(&[0.0, 1.0, 0.0, 0.0]));
}

const DOT_BOOL: &str = r#"
entry grad_dot_bool [n] (x: [n]f64) (y: [n]f64) =
  tabulate n (\i -> jvp (\x -> dot x y) x (tabulate n (\j -> f64.bool (j == i))))
"#;

#[test]
fn a_one_hot_seed_written_with_f64_bool_is_a_single_point() {
    let ir = optimised(DOT_BOOL);
    let start = ir
        .find("entry entry_grad_dot_bool")
        .expect("the entry is printed");
    let entry = &ir[start..];
    let entry = &entry[..entry.find("\n}").map_or(entry.len(), |e| e + 2)];
    assert!(
        !entry.contains("reduce") && !entry.contains("conv_bool"),
        "the gradient still sums over the seed:\n{entry}"
    );
    let y = vector(&[4.0, -5.0, 6.0]);
    let g = run_both(
        DOT_BOOL,
        "grad_dot_bool",
        vec![vector(&[1.0, 2.0, 3.0]), y.clone()],
    );
    assert_eq!(g, y);
}
