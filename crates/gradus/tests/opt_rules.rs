//! Before/after tests of the optimiser's rewrite rules on core IR written as text: each case
//! runs the optimiser with only the passes it names (plus `dce`, which cleans up) and
//! snapshots the printed, renumbered result; the result must pass the verifier and the rule
//! must have fired.

use gradus::core::parse::parse_prog;
use gradus::core::print::print_prog;
use gradus::core::renumber::renumber;
use gradus::core::verify::verify;
use gradus::opt::{OptOptions, PASSES, optimise};

fn run(text: &str, passes: &[&str], rule: &str) -> String {
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
    verify(&prog).unwrap();
    let mut opts = OptOptions::default();
    for (p, _) in PASSES {
        if !passes.contains(p) && *p != "dce" {
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

#[test]
fn fold_ring_laws() {
    let out = run(
        r#"fun f (x_0: f64, k_1: i64) : (f64, i64, f64) {
  let a_2: f64 = mul_f64(x_0, 1.0f64)
  let b_3: f64 = add_f64(a_2, 0.0f64)
  let c_4: i64 = mul_i64(k_1, 0i64)
  let d_5: i64 = add_i64(c_4, 3i64)
  let e_6: f64 = mul_f64(b_3, 0.0f64)
  in b_3, d_5, e_6
}"#,
        &["fold", "copy-prop"],
        "mul-zero",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn fold_is_exact_under_strict_floats() {
    let prog = parse_prog(
        r#"fun f (x_0: f64) : f64 {
  let e_1: f64 = mul_f64(x_0, 0.0f64)
  in e_1
}"#,
    )
    .unwrap();
    let opts = OptOptions {
        strict_float: true,
        ..Default::default()
    };
    let (out, stats) = optimise(prog, &opts).unwrap();
    assert!(!stats.rules.contains_key("mul-zero"));
    assert!(print_prog(&out).contains("mul_f64"));
}

#[test]
fn cse_merges_equal_maps() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64) : ([n_0]f64, [n_0]f64) {
  let a_2: [n_0]f64 = map(n_0, \(x_3: f64) : f64 -> { let s_4: f64 = mul_f64(x_3, x_3) in s_4 }, xs_1)
  let b_5: [n_0]f64 = map(n_0, \(y_6: f64) : f64 -> { let t_7: f64 = mul_f64(y_6, y_6) in t_7 }, xs_1)
  in a_2, b_5
}"#,
        &["cse"],
        "cse",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn if_simplification() {
    let out = run(
        r#"fun f (c_0: bool, x_1: f64, y_2: f64) : (f64, f64) {
  let a_3: f64 = if true then { let s_4: f64 = add_f64(x_1, y_2) in s_4 } else { in y_2 } : f64
  let b_5: f64 = if c_0 then { in x_1 } else { in y_2 } : f64
  in a_3, b_5
}"#,
        &["if-simp", "copy-prop"],
        "if-const",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn dead_results_of_a_reduce_are_removed() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : f64 {
  let (s_3: f64, p_4: f64) = reduce(n_0, \(a_5: f64, b_6: f64, c_7: f64, d_8: f64) : (f64, f64) -> {
    let s_9: f64 = add_f64(a_5, c_7)
    let p_10: f64 = mul_f64(b_6, d_8)
    in s_9, p_10
  }, (0.0f64, 1.0f64), xs_1, ys_2)
  in s_3
}"#,
        &["tuple-elim"],
        "reduce-dead-component",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn invariant_code_leaves_a_lambda() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, y_2: f64) : [n_0]f64 {
  let r_3: [n_0]f64 = map(n_0, \(x_4: f64) : f64 -> {
    let e_5: f64 = exp_f64(y_2)
    let p_6: f64 = mul_f64(x_4, e_5)
    in p_6
  }, xs_1)
  in r_3
}"#,
        &["hoist"],
        "hoist",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn maps_fuse() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : [n_0]f64 {
  let a_3: [n_0]f64 = map(n_0, \(x_4: f64) : f64 -> { let s_5: f64 = sin_f64(x_4) in s_5 }, xs_1)
  let b_6: [n_0]f64 = map(n_0, \(u_7: f64, v_8: f64) : f64 -> { let p_9: f64 = mul_f64(u_7, v_8) in p_9 }, a_3, ys_2)
  in b_6
}"#,
        &["fusion"],
        "map-map",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_replicated_map_input_becomes_the_value() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, y_2: f64) : [n_0]f64 {
  let r_3: [n_0]f64 = replicate([n_0], y_2)
  let b_4: [n_0]f64 = map(n_0, \(u_5: f64, v_6: f64) : f64 -> { let p_7: f64 = mul_f64(u_5, v_6) in p_7 }, xs_1, r_3)
  in b_4
}"#,
        &["fusion"],
        "map-of-replicate",
    );
    assert!(!out.contains("replicate"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_sum_over_one_point_is_that_term() {
    let out = run(
        r#"fun f [n_0] (ys_1: [n_0]f64, i_2: i64) : f64 {
  let is_3: [n_0]i64 = iota(i64, n_0, 0i64, 1i64)
  let t_4: [n_0]f64 = map(n_0, \(j_5: i64, y_6: f64) : f64 -> {
    let e_7: bool = eq_i64(j_5, i_2)
    let o_8: f64 = select_f64(e_7, 1.0f64, 0.0f64)
    let p_9: f64 = mul_f64(y_6, o_8)
    in p_9
  }, is_3, ys_1)
  let s_10: f64 = reduce(n_0, \(a_11: f64, b_12: f64) : f64 -> { let c_13: f64 = add_f64(a_11, b_12) in c_13 }, (0.0f64), t_4)
  in s_10
}"#,
        &["single-point", "fold", "copy-prop"],
        "reduce-single-point",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_loop_changing_state_once_becomes_a_statement() {
    let out = run(
        r#"fun f [n_0] (ys_1: [n_0]f64, i_2: i64) : f64 {
  let s_3: f64 = loop (acc_4: f64 = 0.0f64) for j_5: i64 < n_0 do {
    let e_6: bool = eq_i64(j_5, i_2)
    let y_7: f64 = ys_1[j_5]
    let t_8: f64 = select_f64(e_6, y_7, 0.0f64)
    let a_9: f64 = add_f64(acc_4, t_8)
    in a_9
  }
  in s_3
}"#,
        &["loop-norm", "fold", "copy-prop", "if-simp"],
        "loop-single-point",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn short_constant_loops_unroll() {
    let out = run(
        r#"fun f (x_0: f64) : f64 {
  let s_1: f64 = loop (acc_2: f64 = x_0) for j_3: i64 < 3i64 do {
    let a_4: f64 = mul_f64(acc_2, acc_2)
    in a_4
  }
  in s_1
}"#,
        &["loop-norm", "copy-prop"],
        "loop-unroll",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn an_argmax_reduction_splits_off_its_payload() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ts_2: [n_0]f64) : f64 {
  let (m_3: f64, t_4: f64) = reduce(n_0, \(a_5: f64, at_6: f64, b_7: f64, bt_8: f64) : (f64, f64) -> {
    let m_9: f64 = max_f64(a_5, b_7)
    let c_10: bool = ge_f64(a_5, b_7)
    let t_11: f64 = select_f64(c_10, at_6, bt_8)
    in m_9, t_11
  }, (-f64.inf, 0.0f64), xs_1, ts_2)
  in t_4
}"#,
        &["fission"],
        "reduce-payload",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn an_identity_map_is_its_input() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : [n_0]f64 {
  let b_3: [n_0]f64 = map(n_0, \(u_4: f64, v_5: f64) : f64 -> { in v_5 }, xs_1, ys_2)
  in b_3
}"#,
        &["fusion", "copy-prop"],
        "map-identity",
    );
    assert!(!out.contains("map"), "{out}");
    insta::assert_snapshot!(out);
}
