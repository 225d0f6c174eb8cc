//! The accumulator-to-reduction rewrite (pass `acc-reduce`): before/after tests on IR text,
//! the adjoint of a matrix product as two matrix products (no accumulator left in the
//! optimised IR; about the operation count of two products, measured with the interpreter's
//! counter), and the same results with and without the rewrite.

use gradus::core::parse::parse_prog;
use gradus::core::print::print_prog;
use gradus::core::renumber::renumber;
use gradus::core::verify::verify;
use gradus::opt::OptOptions;
use gradus::pipeline::optimise;
use gradus::pipeline::passes::optimiser_passes;
use gradus::program::Program;
use gradus::value::{Array, Buffer, Value};

fn only(text: &str, passes: &[&str], rule: &str) -> String {
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
    verify(&prog).unwrap();
    let mut opts = OptOptions::default();
    for p in optimiser_passes().map(|p| p.name) {
        if !passes.contains(&p) && p != "dce" && p != "simplify" {
            opts.disable(p).unwrap();
        }
    }
    let (out, stats) = optimise(prog, &opts).unwrap();
    verify(&out).unwrap_or_else(|e| panic!("{e}\n{}", print_prog(&out)));
    assert!(
        stats.rules.contains_key(rule),
        "rule {rule} did not fire: {:?}\n{}",
        stats.rules,
        print_prog(&out)
    );
    print_prog(&renumber(&out))
}

/// Each row of `xs` adds the row times `y` into the accumulator: a sum of rows.
const MAP_OF_FULL_UPDATES: &str = r#"fun f [n_0, m_1] (xs_2: [n_0][m_1]f64, y_3: f64) : [m_1]f64 {
  let zero_4: [m_1]f64 = replicate([m_1], 0.0f64)
  let iota_5: [m_1]i64 = iota(i64, m_1, 0i64, 1i64)
  let r_6: [m_1]f64 = with_acc([m_1] (zero_4), \(acc_7: acc([m_1], f64)) : acc([m_1], f64) -> {
    let acc_8: acc([m_1], f64) = map(n_0, \(x_9: [m_1]f64, a_10: acc([m_1], f64)) : acc([m_1], f64) -> {
      let v_11: [m_1]f64 = map(m_1, \(e_12: f64) : f64 -> { let p_13: f64 = mul_f64(e_12, y_3) in p_13 }, x_9)
      let a_14: acc([m_1], f64) = map(m_1, \(j_15: i64, r_16: f64, a_17: acc([m_1], f64)) : acc([m_1], f64) -> { let a_18: acc([m_1], f64) = update_acc(a_17, [j_15], [r_16]) in a_18 }, iota_5, v_11, a_10)
      in a_14
    }, xs_2, acc_7)
    in acc_8
  })
  in r_6
}"#;

#[test]
fn a_map_of_whole_array_updates_becomes_a_reduction() {
    let out = only(
        MAP_OF_FULL_UPDATES,
        &["acc-reduce", "copy-prop"],
        "acc-map-to-reduce",
    );
    assert!(
        !out.contains("with_acc") && !out.contains("update_acc"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn one_whole_array_update_is_the_array() {
    let out = only(
        r#"fun f [n_0, m_1] (xs_2: [n_0][m_1]f64) : [n_0][m_1]f64 {
  let zero_3: [n_0][m_1]f64 = replicate([n_0, m_1], 0.0f64)
  let i_4: [n_0]i64 = iota(i64, n_0, 0i64, 1i64)
  let j_5: [m_1]i64 = iota(i64, m_1, 0i64, 1i64)
  let r_6: [n_0][m_1]f64 = with_acc([n_0, m_1] (zero_3), \(acc_7: acc([n_0, m_1], f64)) : acc([n_0, m_1], f64) -> {
    let a_8: acc([n_0, m_1], f64) = map(n_0, \(i_9: i64, row_10: [m_1]f64, a_11: acc([n_0, m_1], f64)) : acc([n_0, m_1], f64) -> {
      let a_12: acc([n_0, m_1], f64) = map(m_1, \(j_13: i64, x_14: f64, a_15: acc([n_0, m_1], f64)) : acc([n_0, m_1], f64) -> { let a_16: acc([n_0, m_1], f64) = update_acc(a_15, [i_9, j_13], [x_14]) in a_16 }, j_5, row_10, a_11)
      in a_12
    }, i_4, xs_2, acc_7)
    in a_8
  })
  in r_6
}"#,
        &["acc-reduce", "copy-prop"],
        "acc-full-update",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn partial_updates_keep_their_accumulator() {
    // Only the first element of each row is added: not a whole-array update.
    let text = MAP_OF_FULL_UPDATES.replace("[j_15], [r_16]", "[0i64], [r_16]");
    let prog = parse_prog(&text).unwrap();
    verify(&prog).unwrap();
    let (out, stats) = optimise(prog, &OptOptions::default()).unwrap();
    assert!(!stats.rules.contains_key("acc-map-to-reduce"));
    assert!(print_prog(&out).contains("update_acc"));
}

const MATMUL: &str = r#"
def matmul [n][m][p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a

entry mm [n][m][p] (a: [n][m]f64) (b: [m][p]f64) (_c: [n][p]f64) = matmul a b
entry mm_rev [n][m][p] (a: [n][m]f64) (b: [m][p]f64) (c: [n][p]f64) =
  vjp (\(a, b) -> matmul a b) (a, b) c
"#;

fn matrix(rows: usize, cols: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let xs = rng.vector(rows * cols, -1.0, 1.0);
    Value::Array(Array::new(vec![rows, cols], Buffer::F64(xs)).unwrap())
}

fn with(disabled: &[&str]) -> Program {
    let mut o = OptOptions::default();
    for d in disabled {
        o.disable(d).unwrap();
    }
    Program::from_source_with("mm.fut", MATMUL, &o).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn work(p: &Program, entry: &str, (n, m, q): (usize, usize, usize)) -> (u64, Vec<Value>) {
    p.counter().reset();
    let args = vec![matrix(n, m, 1), matrix(m, q, 2), matrix(n, q, 3)];
    let out = p.call(entry, args).unwrap();
    (p.counter().total(), out)
}

#[test]
fn the_adjoint_of_a_matrix_product_is_two_matrix_products() {
    let opt = with(&[]);
    let ir = print_prog(opt.core());
    assert!(
        !ir.contains("with_acc") && !ir.contains("update_acc"),
        "accumulators left in the optimised matrix product adjoint:\n{ir}"
    );
    let no_acc_reduce = with(&["acc-reduce"]);
    let plain = Program::from_source_with("mm.fut", MATMUL, &OptOptions::off()).unwrap();
    for dims in [(7, 5, 6), (12, 12, 12), (20, 8, 3)] {
        let (mm, _) = work(&opt, "mm", dims);
        let (o, r) = work(&opt, "mm_rev", dims);
        let (a, s) = work(&no_acc_reduce, "mm_rev", dims);
        let (p, t) = work(&plain, "mm_rev", dims);
        // The accumulator adds in the order of the reduction, so results agree to the bit.
        assert_eq!(r, s, "{dims:?}: results differ without acc-reduce");
        assert_eq!(r, t, "{dims:?}: results differ without optimisation");
        let ratio = o as f64 / mm as f64;
        println!(
            "{dims:?}: matmul {mm}, adjoint optimised {o} (x{ratio:.2} of a product), \
             without acc-reduce {a}, unoptimised {p}"
        );
        assert!(
            ratio < 2.3,
            "{dims:?}: the adjoint costs {ratio:.2} matrix products"
        );
        assert!(
            o < a,
            "{dims:?}: acc-reduce does not save work ({o} >= {a})"
        );
    }
}
