//! Before/after tests of the optimiser's rewrite rules on core IR written as text: each case
//! runs the optimiser with only the passes it names (plus `dce`, which cleans up) and
//! snapshots the printed, renumbered result; the result must pass the verifier and the rule
//! must have fired.

use gradus::core::parse::parse_prog;
use gradus::core::print::print_prog;
use gradus::core::renumber::renumber;
use gradus::core::verify::verify;
use gradus::opt::OptOptions;
use gradus::pipeline::optimise;
use gradus::pipeline::passes::optimiser_passes;

/// Options running only `passes`, plus `dce` and `simplify`, under the fast-math float
/// policy so that the rules inexact under IEEE can be tested too.
fn only(passes: &[&str]) -> OptOptions {
    let mut opts = OptOptions {
        strict_float: false,
        ..Default::default()
    };
    for p in optimiser_passes().map(|p| p.name) {
        if !passes.contains(&p) && p != "dce" && p != "simplify" {
            opts.disable(p).unwrap();
        }
    }
    opts
}

fn run(text: &str, passes: &[&str], rule: &str) -> String {
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
    verify(&prog).unwrap();
    let (out, stats) = optimise(prog, &only(passes)).unwrap();
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
    // The default policy is strict unless fast math is asked for.
    let opts = OptOptions::default();
    assert_eq!(opts.strict_float, !gradus::opt::fast_math_from_env());
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
fn a_return_sweep_with_independent_iterations_runs_forwards() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_adj_2: [n_0]f64, c_3: f64) : [n_0]f64 {
  let (r_4: [n_0]f64) = with_acc([n_0] (ys_adj_2), \(acc_5: acc([n_0], f64)) : (acc([n_0], f64)) -> {
    let last_6: i64 = sub_i64(n_0, 1i64)
    let (s_7: f64, a_8: acc([n_0], f64)) = loop (s_9: f64 = c_3, a_10: acc([n_0], f64) = acc_5) for i_11: i64 < n_0 do {
      let k_12: i64 = sub_i64(last_6, i_11)
      let x_13: f64 = xs_1[k_12]
      let t_14: f64 = mul_f64(x_13, s_9)
      let a_15: acc([n_0], f64) = update_acc(a_10, [k_12], [t_14])
      in s_9, a_15
    }
    in a_8
  })
  in r_4
}"#,
        &["loop-norm"],
        "loop-forward",
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

#[test]
fn the_invariant_part_of_a_map_nest_leaves_a_lambda() {
    // The primal product `x · h` is computed in the same inner map as a tangent that depends
    // on the outer lambda's `t_3`; the product's map nest leaves the lambda, the tangent stays.
    let out = run(
        r#"fun f [m_0, r_1] (w_2: [m_0][r_1]f64, h_3: [r_1]f64, ts_4: [m_0][r_1]f64) : [m_0][m_0]f64 {
  let g_5: [m_0][m_0]f64 = map(m_0, \(t_6: [r_1]f64) : [m_0]f64 -> {
    let o_7: [m_0]f64 = map(m_0, \(x_8: [r_1]f64) : f64 -> {
      let (p_9: [r_1]f64, d_10: [r_1]f64) = map(r_1, \(a_11: f64, b_12: f64, c_13: f64) : (f64, f64) -> {
        let q_14: f64 = mul_f64(a_11, b_12)
        let e_15: f64 = mul_f64(a_11, c_13)
        in q_14, e_15
      }, x_8, h_3, t_6)
      let s_16: f64 = reduce(r_1, \(u_17: f64, v_18: f64) : f64 -> { let y_19: f64 = add_f64(u_17, v_18) in y_19 }, (0.0f64), p_9)
      let z_20: f64 = reduce(r_1, \(u_21: f64, v_22: f64) : f64 -> { let y_23: f64 = add_f64(u_21, v_22) in y_23 }, (0.0f64), d_10)
      let l_24: f64 = log_f64(s_16)
      let k_25: f64 = mul_f64(l_24, z_20)
      in k_25
    }, w_2)
    in o_7
  }, ts_4)
  in g_5
}"#,
        &["hoist", "map-fission"],
        "map-split-invariant",
    );
    let hoisted = out.lines().nth(1).unwrap();
    assert!(
        hoisted.contains("map(m_0, \\(x_"),
        "nothing left the lambda:\n{out}"
    );
    assert_eq!(out.matches("log_f64").count(), 1, "{out}");
    assert!(out.find("log_f64") < out.find("ts_4)"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn an_invariant_loop_group_leaves_a_lambda() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, s_2: f64) : [n_0]f64 {
  let r_3: [n_0]f64 = map(n_0, \(x_4: f64) : f64 -> {
    let (a_5: f64, b_6: f64) = loop (p_7: f64 = 0.0f64, q_8: f64 = x_4) for i_9: i64 < n_0 do {
      let y_10: f64 = xs_1[i_9]
      let y2_11: f64 = mul_f64(y_10, y_10)
      let p2_12: f64 = add_f64(p_7, y2_11)
      let q2_13: f64 = mul_f64(q_8, s_2)
      in p2_12, q2_13
    }
    let c_14: f64 = add_f64(a_5, b_6)
    in c_14
  }, xs_1)
  in r_3
}"#,
        &["hoist", "map-fission"],
        "loop-split-invariant",
    );
    assert!(
        out.find("loop").unwrap() < out.find("map(").unwrap(),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_sum_over_the_rows_of_a_one_hot_array_is_one_term() {
    // The tangent of `sum (map2 (*) ys x)` at the seed `copy zeros with [c] = 1`, without an
    // index to follow: the map reads rows of the seed.
    let out = run(
        r#"fun f [n_0] (ys_1: [n_0]f64, c_2: i64) : f64 {
  let z_3: [n_0]f64 = replicate([n_0], 0.0f64)
  let z2_4: [n_0]f64 = copy(z_3)
  let s_5: [n_0]f64 = z2_4 with [c_2] = 1.0f64
  let t_6: [n_0]f64 = map(n_0, \(y_7: f64, d_8: f64) : f64 -> {
    let p_9: f64 = mul_f64(y_7, d_8)
    let q_10: f64 = exp_f64(y_7)
    let r_11: f64 = mul_f64(p_9, q_10)
    in r_11
  }, ys_1, s_5)
  let u_12: f64 = reduce(n_0, \(a_13: f64, b_14: f64) : f64 -> { let e_15: f64 = add_f64(a_13, b_14) in e_15 }, (0.0f64), t_6)
  in u_12
}"#,
        &["single-point", "fold", "copy-prop"],
        "reduce-single-row",
    );
    assert!(!out.contains("reduce"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn an_element_of_a_one_hot_array_is_a_comparison() {
    let out = run(
        r#"fun f (i_0: i64, j_1: i64) : [4]f64 {
  let z_3: [3][4]f64 = replicate([3, 4], 0.0f64)
  let z2_4: [3][4]f64 = copy(z_3)
  let s_5: [3][4]f64 = z2_4 with [i_0, j_1] = 2.5f64
  let t_6: [4][3]f64 = rearrange([1, 0], s_5)
  let is_7: [4]i64 = iota(i64, 4i64, 0i64, 1i64)
  let v_8: [4]f64 = map(4i64, \(k_9: i64) : f64 -> { let e_10: f64 = t_6[k_9, 1i64] in e_10 }, is_7)
  in v_8
}"#,
        &["fold", "copy-prop"],
        "index-one-hot",
    );
    assert!(!out.contains("with"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_constant_map_result_is_a_replicate() {
    // The zero tangent of `sin x` taken as a constant: the product with it disappears.
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : [n_0]f64 {
  let (a_3: [n_0]f64, t_4: [n_0]f64) = map(n_0, \(x_5: f64) : (f64, f64) -> { let s_6: f64 = sin_f64(x_5) in s_6, 0.0f64 }, xs_1)
  let b_7: [n_0]f64 = map(n_0, \(u_8: f64, v_9: f64, w_10: f64) : f64 -> {
    let p_11: f64 = mul_f64(u_8, w_10)
    let q_12: f64 = add_f64(p_11, v_9)
    in q_12
  }, t_4, a_3, ys_2)
  in b_7
}"#,
        &["fusion", "fold", "copy-prop"],
        "map-invariant-result",
    );
    assert!(!out.contains("mul_f64"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_sum_of_zeros_is_zero() {
    let out = run(
        r#"fun f [n_0] (x_1: f64) : f64 {
  let z_2: [n_0]f64 = replicate([n_0], 0.0f64)
  let s_3: f64 = reduce(n_0, \(a_4: f64, b_5: f64) : f64 -> { let c_6: f64 = add_f64(a_4, b_5) in c_6 }, (0.0f64), z_2)
  let t_7: f64 = add_f64(s_3, x_1)
  in t_7
}"#,
        &["single-point", "fold", "copy-prop"],
        "reduce-of-zeros",
    );
    assert!(!out.contains("reduce"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_fuses_into_a_sum_histogram() {
    // Indices and values computed by one map and read only by a `+` histogram: the map's body
    // updates an accumulator over the histogram's destination instead.
    let out = run(
        r#"fun f [n_0, k_1] (xs_2: [n_0]f64, d_3: [k_1]f64) : [k_1]f64 {
  let (is_4: [n_0]i64, vs_5: [n_0]f64) = map(n_0, \(x_6: f64) : (i64, f64) -> {
    let m_7: f64 = mul_f64(x_6, 3.0f64)
    let i_8: i64 = conv_f64_i64(m_7)
    let v_9: f64 = mul_f64(x_6, x_6)
    in i_8, v_9
  }, xs_2)
  let h_10: [k_1]f64 = hist(n_0, (d_3), \(a_11: f64, b_12: f64) : f64 -> { let c_13: f64 = add_f64(a_11, b_12) in c_13 }, (0.0f64), is_4, vs_5)
  in h_10
}"#,
        &["fusion"],
        "map-into-hist",
    );
    assert!(!out.contains("hist("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_of_values_fuses_into_a_histogram_over_given_indices() {
    let out = run(
        r#"fun f [n_0, k_1] (xs_2: [n_0]f64, is_3: [n_0]i64, d_4: [k_1]f64) : [k_1]f64 {
  let vs_5: [n_0]f64 = map(n_0, \(x_6: f64) : f64 -> { let v_7: f64 = mul_f64(x_6, x_6) in v_7 }, xs_2)
  let h_8: [k_1]f64 = hist(n_0, (d_4), \(a_9: f64, b_10: f64) : f64 -> { let c_11: f64 = add_f64(a_9, b_10) in c_11 }, (0.0f64), is_3, vs_5)
  in h_8
}"#,
        &["fusion"],
        "map-into-hist",
    );
    assert!(!out.contains("hist("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_fuses_into_its_reduction() {
    // The squares are never stored: `redomap` squares each row and adds it on.
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : f64 {
  let sq_3: [n_0]f64 = map(n_0, \(x_4: f64) : f64 -> { let s_5: f64 = mul_f64(x_4, x_4) in s_5 }, xs_1)
  let r_6: f64 = reduce(n_0, \(a_7: f64, b_8: f64) : f64 -> { let c_9: f64 = add_f64(a_7, b_8) in c_9 }, (0.0f64), sq_3)
  in r_6
}"#,
        &["consumer-fusion"],
        "map-into-reduce",
    );
    assert!(out.contains("redomap(") && !out.contains(" map("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_fuses_into_a_scan_reading_another_array_too() {
    // The second scanned array is not the map's: it becomes an input of the fused map.
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : ([n_0]f64, [n_0]f64) {
  let sq_3: [n_0]f64 = map(n_0, \(x_4: f64) : f64 -> { let s_5: f64 = mul_f64(x_4, x_4) in s_5 }, xs_1)
  let (p_6: [n_0]f64, q_7: [n_0]f64) = scan(n_0, \(a_8: f64, b_9: f64, c_10: f64, d_11: f64) : (f64, f64) -> {
    let e_12: f64 = add_f64(a_8, c_10)
    let g_13: f64 = max_f64(b_9, d_11)
    in e_12, g_13
  }, (0.0f64, -f64.inf), sq_3, ys_2)
  in p_6, q_7
}"#,
        &["consumer-fusion"],
        "map-into-scan",
    );
    assert!(out.contains("scanomap(") && !out.contains(" map("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_fuses_into_a_max_histogram_after_the_map_before_it() {
    // The index and value maps were fused horizontally into one map reading `xs` twice;
    // `map-into-histomap` fuses it into the histogram, then `map-into-screma` the map
    // computing `xs`.
    let out = run(
        r#"fun f [n_0, k_1] (zs_2: [n_0]f64, d_3: [k_1]f64) : [k_1]f64 {
  let xs_4: [n_0]f64 = map(n_0, \(z_5: f64) : f64 -> { let y_6: f64 = sqrt_f64(z_5) in y_6 }, zs_2)
  let (is_7: [n_0]i64, vs_8: [n_0]f64) = map(n_0, \(x_9: f64, x_10: f64) : (i64, f64) -> {
    let i_11: i64 = conv_f64_i64(x_9)
    let v_12: f64 = mul_f64(x_10, 0.5f64)
    in i_11, v_12
  }, xs_4, xs_4)
  let h_13: [k_1]f64 = hist(n_0, (d_3), \(a_14: f64, b_15: f64) : f64 -> { let c_16: f64 = max_f64(a_14, b_15) in c_16 }, (-f64.inf), is_7, vs_8)
  in h_13
}"#,
        &["consumer-fusion"],
        "map-into-screma",
    );
    assert!(out.contains("histomap(") && !out.contains(" map("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_fuses_into_a_scatter() {
    let out = run(
        r#"fun f [n_0, k_1] (xs_2: [n_0]i64, d_3: [k_1]f64) : [k_1]f64 {
  let (is_4: [n_0]i64, vs_5: [n_0]f64) = map(n_0, \(x_6: i64) : (i64, f64) -> {
    let i_7: i64 = mul_i64(x_6, 2i64)
    let v_8: f64 = conv_i64_f64(x_6)
    in i_7, v_8
  }, xs_2)
  let s_9: [k_1]f64 = scatter(n_0, (d_3), is_4, vs_5)
  in s_9
}"#,
        &["consumer-fusion"],
        "map-into-scatter",
    );
    assert!(
        out.contains("scattermap(") && !out.contains(" map("),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_reading_the_scatter_destination_stays_apart() {
    // The values are read from the destination before the scatter overwrites it; fused, the
    // map would see its own writes.
    let text = r#"fun f [n_0, k_1] (is_2: [n_0]i64, d_3: [k_1]f64) : [k_1]f64 {
  let v_4: [k_1]f64 = reshape([k_1], d_3)
  let vs_5: [n_0]f64 = map(n_0, \(i_6: i64) : f64 -> {
    let j_7: i64 = sub_i64(k_1, 1i64)
    let x_8: f64 = v_4[j_7]
    in x_8
  }, is_2)
  let s_9: [k_1]f64 = scatter(n_0, (d_3), is_2, vs_5)
  in s_9
}"#;
    let prog = parse_prog(text).unwrap();
    let mut opts = OptOptions::default();
    for p in optimiser_passes().map(|p| p.name) {
        if p != "consumer-fusion" {
            opts.disable(p).unwrap();
        }
    }
    let (out, stats) = optimise(prog, &opts).unwrap();
    assert!(!stats.rules.contains_key("map-into-scatter"), "{stats:?}");
    assert!(print_prog(&out).contains("scatter("));
}

#[test]
fn a_map_into_a_reduction_that_can_fail_stays_apart() {
    // An integer division in the operator could fail; interleaved with the map it might
    // report a different error first.
    let text = r#"fun f [n_0] (xs_1: [n_0]i64) : i64 {
  let ys_2: [n_0]i64 = map(n_0, \(x_3: i64) : i64 -> { let s_4: i64 = add_i64(x_3, 1i64) in s_4 }, xs_1)
  let r_5: i64 = reduce(n_0, \(a_6: i64, b_7: i64) : i64 -> { let c_8: i64 = div_i64(a_6, b_7) in c_8 }, (1i64), ys_2)
  in r_5
}"#;
    let prog = parse_prog(text).unwrap();
    let (_, stats) = optimise(prog, &OptOptions::default()).unwrap();
    assert!(!stats.rules.contains_key("map-into-reduce"), "{stats:?}");
}

#[test]
fn two_reductions_of_one_map_become_one_traversal() {
    // Sum and maximum of the same mapped array: `reduce-horizontal` pairs the reductions
    // (the map is read twice, so it cannot fuse into either alone), then `map-into-screma`
    // moves the map into the pair and the squares are never stored.
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64) : (f64, f64) {
  let sq_2: [n_0]f64 = map(n_0, \(x_3: f64) : f64 -> { let s_4: f64 = mul_f64(x_3, x_3) in s_4 }, xs_1)
  let r_5: f64 = reduce_comm(n_0, \(a_6: f64, b_7: f64) : f64 -> { let c_8: f64 = add_f64(a_6, b_7) in c_8 }, (0.0f64), sq_2)
  let m_9: f64 = reduce(n_0, \(a_10: f64, b_11: f64) : f64 -> { let c_12: f64 = max_f64(a_10, b_11) in c_12 }, (-f64.inf), sq_2)
  in r_5, m_9
}"#,
        &["consumer-fusion"],
        "reduce-horizontal",
    );
    assert_eq!(out.matches("redomap(").count(), 1, "{out}");
    assert!(!out.contains(" map(") && !out.contains(" reduce"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn independent_reductions_of_one_width_become_one_traversal() {
    // The sum of `e` and the first position of the maximum of `x` (lse's gradient) read
    // different arrays; the `iota` between them moves before the pair.
    let out = run(
        r#"fun f [n_0] (x_1: [n_0]f64, e_2: [n_0]f64, m_3: f64) : (f64, i64) {
  let s_4: f64 = reduce(n_0, \(a_5: f64, b_6: f64) : f64 -> { let c_7: f64 = add_f64(a_5, b_6) in c_7 }, (0.0f64), e_2)
  let iota_8: [n_0]i64 = iota(i64, n_0, 0i64, 1i64)
  let k_9: i64 = redomap_comm(n_0, \(i_10: i64, x_11: f64) : i64 -> {
    let q_12: bool = eq_f64(x_11, m_3)
    let r_13: i64 = select_i64(q_12, i_10, n_0)
    in r_13
  }, \(a_14: i64, b_15: i64) : i64 -> { let c_16: i64 = min_i64(a_14, b_15) in c_16 }, (n_0), iota_8, x_1)
  in s_4, k_9
}"#,
        &["consumer-fusion"],
        "reduce-horizontal",
    );
    assert_eq!(out.matches("redomap(").count(), 1, "{out}");
    assert!(!out.contains(" reduce("), "{out}");
    assert!(
        out.find("iota(").unwrap() < out.find("redomap(").unwrap(),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_small_map_unrolls_and_its_literal_is_read_directly() {
    let out = run(
        r#"fun f (a_0: f64, b_1: f64, c_2: f64) : f64 {
  let v_3: [3]f64 = array(f64, [a_0, b_1, c_2])
  let w_4: [3]f64 = map(3i64, \(x_5: f64) : f64 -> { let y_6: f64 = mul_f64(x_5, x_5) in y_6 }, v_3)
  let e_7: f64 = w_4[1i64]
  let g_8: f64 = w_4[2i64]
  let s_9: f64 = add_f64(e_7, g_8)
  in s_9
}"#,
        &["scalarise", "copy-prop"],
        "map-unroll",
    );
    assert!(!out.contains("map("), "{out}");
    assert!(!out.contains("array("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_zero_adjoint_updated_by_element_becomes_scalars() {
    let out = run(
        r#"fun f (a_0: f64, b_1: f64) : (f64, [3]f64) {
  let z_2: [3]f64 = replicate([3], 0.0f64)
  let u_3: [3]f64 = z_2 with [1i64] = a_0
  let e_4: f64 = u_3[1i64]
  let d_5: f64 = add_f64(e_4, b_1)
  let u_6: [3]f64 = u_3 with [1i64] = d_5
  let r_7: f64 = u_6[1i64]
  in r_7, u_6
}"#,
        &["scalarise", "copy-prop"],
        "update-lit",
    );
    assert!(!out.contains("with"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn an_if_returning_a_small_array_returns_its_elements() {
    let out = run(
        r#"fun f (c_0: bool, a_1: f64, b_2: f64) : f64 {
  let r_3: [2]f64 = if c_0 then {
    let x_4: [2]f64 = array(f64, [a_1, b_2])
    in x_4
  } else {
    let y_5: [2]f64 = array(f64, [b_2, a_1])
    in y_5
  } : [2]f64
  let e_6: f64 = r_3[0i64]
  in e_6
}"#,
        &["scalarise", "copy-prop"],
        "if-split",
    );
    assert!(!out.contains("array("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_over_large_rows_is_not_unrolled() {
    let prog = parse_prog(
        r#"fun f [n_0] (a_1: [3][n_0]f64) : [3]f64 {
  let s_2: [3]f64 = map(3i64, \(r_3: [n_0]f64) : f64 -> {
    let t_4: f64 = reduce(n_0, \(x_5: f64, y_6: f64) : f64 -> { let z_7: f64 = add_f64(x_5, y_6) in z_7 }, (0.0f64), r_3)
    in t_4
  }, a_1)
  in s_2
}"#,
    )
    .unwrap();
    let (_, stats) = optimise(prog, &OptOptions::default()).unwrap();
    assert!(!stats.rules.contains_key("map-unroll"), "{:?}", stats.rules);
}

#[test]
fn the_invariant_part_of_an_if_leaves_a_map_over_seeds() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, c_2: bool, i_3: i64, ss_4: [4]f64) : [4]f64 {
  let r_5: [4]f64 = map(4i64, \(s_6: f64) : f64 -> {
    let y_7: f64 = if c_2 then {
      let a_8: f64 = xs_1[i_3]
      let b_9: f64 = mul_f64(a_8, a_8)
      let t_10: f64 = mul_f64(b_9, s_6)
      in t_10
    } else { in s_6 } : f64
    in y_7
  }, ss_4)
  in r_5
}"#,
        &["hoist", "map-fission"],
        "if-split-invariant",
    );
    // The index and the square run once, before the map; the map keeps the product.
    let map_at = out.find("map(").unwrap();
    assert!(out.find("xs_1[").unwrap() < map_at, "{out}");
    assert!(out.find("mul_f64").unwrap() < map_at, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_statement_that_may_fail_stays_in_a_map_that_may_not_run() {
    let prog = parse_prog(
        r#"fun f [n_0, m_1] (xs_2: [n_0]f64, i_3: i64, ss_4: [m_1]f64) : [m_1]f64 {
  let r_5: [m_1]f64 = map(m_1, \(s_6: f64) : f64 -> {
    let a_7: f64 = xs_2[i_3]
    let t_8: f64 = mul_f64(a_7, s_6)
    in t_8
  }, ss_4)
  in r_5
}"#,
    )
    .unwrap();
    let (out, _) = optimise(prog, &OptOptions::default()).unwrap();
    let text = print_prog(&out);
    assert!(
        text.find("xs_2[").unwrap() > text.find("map(").unwrap(),
        "{text}"
    );
}

#[test]
fn fused_multiply_adds_with_a_zero_or_one_factor_simplify() {
    let out = run(
        r#"fun f (a_0: f64, b_1: f64, c_2: f64) : (f64, f64, f64) {
  let x_3: f64 = fma_f64(a_0, 0.0f64, c_2)
  let y_4: f64 = fma_f64(1.0f64, b_1, c_2)
  let z_5: f64 = fma_f64(a_0, b_1, 0.0f64)
  in x_3, y_4, z_5
}"#,
        &["fold", "copy-prop"],
        "fma-zero",
    );
    assert!(!out.contains("fma"), "{out}");
    insta::assert_snapshot!(out);
}
/// Per point `x_10`, a map builds rows `ys_12` with a `with_acc` over two zero arrays of the
/// same type and returns them only to add them into the outer accumulator; the sums of the
/// other local accumulator are returned.
const ROWS_ADDED_INTO_AN_ACCUMULATOR: &str = r#"fun f [n_0, k_1, d_2] (xs_3: [n_0][k_1][d_2]f64) : ([k_1][d_2]f64, [n_0][k_1]f64) {
  let zero_4: [k_1][d_2]f64 = replicate([k_1, d_2], 0.0f64)
  let iota_5: [k_1]i64 = iota(i64, k_1, 0i64, 1i64)
  let iota_6: [d_2]i64 = iota(i64, d_2, 0i64, 1i64)
  let (r_7: [k_1][d_2]f64, ss_8: [n_0][k_1]f64) = with_acc([k_1, d_2] (zero_4), \(acc_9: acc([k_1, d_2], f64)) : (acc([k_1, d_2], f64), [n_0][k_1]f64) -> {
    let (acc_10: acc([k_1, d_2], f64), ss_11: [n_0][k_1]f64) = map(n_0, \(x_12: [k_1][d_2]f64, a_13: acc([k_1, d_2], f64)) : (acc([k_1, d_2], f64), [k_1]f64) -> {
      let (ys_14: [k_1][d_2]f64, s_15: [k_1]f64) = map(k_1, \(row_16: [d_2]f64) : ([d_2]f64, f64) -> {
        let z_17: [d_2]f64 = replicate([d_2], 0.0f64)
        let z_18: [d_2]f64 = replicate([d_2], 0.0f64)
        let (y_19: [d_2]f64, t_20: [d_2]f64) = with_acc([d_2] (z_17), [d_2] (z_18), \(b_21: acc([d_2], f64), c_22: acc([d_2], f64)) : (acc([d_2], f64), acc([d_2], f64)) -> {
          let (b_23: acc([d_2], f64), c_24: acc([d_2], f64)) = map(d_2, \(i_25: i64, e_26: f64, b_27: acc([d_2], f64), c_28: acc([d_2], f64)) : (acc([d_2], f64), acc([d_2], f64)) -> {
            let m_29: f64 = mul_f64(e_26, e_26)
            let b_30: acc([d_2], f64) = update_acc(b_27, [i_25], [m_29])
            let c_31: acc([d_2], f64) = update_acc(c_28, [i_25], [e_26])
            in b_30, c_31
          }, iota_6, row_16, b_21, c_22)
          in b_23, c_24
        })
        let s_32: f64 = reduce(d_2, \(u_33: f64, v_34: f64) : f64 -> { let w_35: f64 = add_f64(u_33, v_34) in w_35 }, (0.0f64), t_20)
        in y_19, s_32
      }, x_12)
      let a_36: acc([k_1, d_2], f64) = map(k_1, \(j_37: i64, r_38: [d_2]f64, a_39: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
        let a_40: acc([k_1, d_2], f64) = map(d_2, \(i_41: i64, e_42: f64, a_43: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> { let a_44: acc([k_1, d_2], f64) = update_acc(a_43, [j_37, i_41], [e_42]) in a_44 }, iota_6, r_38, a_39)
        in a_40
      }, iota_5, ys_14, a_13)
      in a_36, s_15
    }, xs_3, acc_9)
    in acc_10, ss_11
  })
  in r_7, ss_8
}"#;

#[test]
fn a_with_acc_row_is_accumulated_into_the_outer_accumulator() {
    let out = run(
        ROWS_ADDED_INTO_AN_ACCUMULATOR,
        &["acc-sink", "copy-prop"],
        "acc-sink-with-acc",
    );
    // The squares go straight into the outer accumulator at row `j`; the inner `with_acc`
    // keeps only the accumulator of the sums, and no full update is left.
    assert_eq!(out.matches("with_acc(").count(), 2, "{out}");
    assert_eq!(out.matches("update_acc(").count(), 2, "{out}");
    assert!(!out.contains("[k_1][d_2]f64 = map"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_row_built_otherwise_is_added_inside_the_map() {
    let out = run(
        r#"fun f [n_0, k_1, d_2] (xs_3: [n_0][k_1][d_2]f64) : [k_1][d_2]f64 {
  let zero_4: [k_1][d_2]f64 = replicate([k_1, d_2], 0.0f64)
  let iota_5: [k_1]i64 = iota(i64, k_1, 0i64, 1i64)
  let iota_6: [d_2]i64 = iota(i64, d_2, 0i64, 1i64)
  let r_7: [k_1][d_2]f64 = with_acc([k_1, d_2] (zero_4), \(acc_9: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
    let acc_10: acc([k_1, d_2], f64) = map(n_0, \(x_12: [k_1][d_2]f64, a_13: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
      let ys_14: [k_1][d_2]f64 = map(k_1, \(row_16: [d_2]f64) : [d_2]f64 -> {
        let y_19: [d_2]f64 = map(d_2, \(e_26: f64) : f64 -> { let m_29: f64 = mul_f64(e_26, e_26) in m_29 }, row_16)
        in y_19
      }, x_12)
      let a_36: acc([k_1, d_2], f64) = map(k_1, \(j_37: i64, r_38: [d_2]f64, a_39: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
        let a_40: acc([k_1, d_2], f64) = map(d_2, \(i_41: i64, e_42: f64, a_43: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> { let a_44: acc([k_1, d_2], f64) = update_acc(a_43, [j_37, i_41], [e_42]) in a_44 }, iota_6, r_38, a_39)
        in a_40
      }, iota_5, ys_14, a_13)
      in a_36
    }, xs_3, acc_9)
    in acc_10
  })
  in r_7
}"#,
        &["acc-sink", "copy-prop"],
        "acc-sink-update",
    );
    // One map over the rows, which adds each row into the accumulator itself.
    assert_eq!(out.matches("map(k_1").count(), 1, "{out}");
    insta::assert_snapshot!(out);
}

/// Reverse mode's shape of the adjoint of `x - mu[j]` inside a map over `j`: the adjoint of
/// the difference is accumulated from zeros, then added negated into row `j` of `mu`'s.
const A_LOCAL_ADJOINT_ADDED_NEGATED: &str = r#"fun f [n_0, k_1, d_2] (xs_3: [n_0][d_2]f64, ws_4: [k_1]f64) : [k_1][d_2]f64 {
  let zero_5: [k_1][d_2]f64 = replicate([k_1, d_2], 0.0f64)
  let iota_6: [k_1]i64 = iota(i64, k_1, 0i64, 1i64)
  let iota_7: [d_2]i64 = iota(i64, d_2, 0i64, 1i64)
  let r_8: [k_1][d_2]f64 = with_acc([k_1, d_2] (zero_5), \(acc_9: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
    let acc_10: acc([k_1, d_2], f64) = map(n_0, \(x_11: [d_2]f64, a_12: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
      let a_13: acc([k_1, d_2], f64) = map(k_1, \(j_14: i64, w_15: f64, a_16: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
        let z_17: [d_2]f64 = replicate([d_2], 0.0f64)
        let y_18: [d_2]f64 = with_acc([d_2] (z_17), \(b_19: acc([d_2], f64)) : acc([d_2], f64) -> {
          let b_20: acc([d_2], f64) = map(d_2, \(i_21: i64, e_22: f64, b_23: acc([d_2], f64)) : acc([d_2], f64) -> {
            let t_24: f64 = mul_f64(e_22, w_15)
            let b_25: acc([d_2], f64) = update_acc(b_23, [i_21], [t_24])
            in b_25
          }, iota_7, x_11, b_19)
          in b_20
        })
        let a_26: acc([k_1, d_2], f64) = map(d_2, \(e_27: f64, i_28: i64, a_29: acc([k_1, d_2], f64)) : acc([k_1, d_2], f64) -> {
          let n_30: f64 = neg_f64(e_27)
          let a_31: acc([k_1, d_2], f64) = update_acc(a_29, [j_14, i_28], [n_30])
          in a_31
        }, y_18, iota_7, a_16)
        in a_26
      }, iota_6, ws_4, a_12)
      in a_13
    }, xs_3, acc_9)
    in acc_10
  })
  in r_8
}"#;

#[test]
fn a_local_adjoint_is_added_negated_into_the_outer_accumulator() {
    let out = run(
        A_LOCAL_ADJOINT_ADDED_NEGATED,
        &["acc-sink", "copy-prop"],
        "acc-sink-local",
    );
    // The products go straight into row `j` of the outer accumulator, negated there: no
    // zero row, no inner `with_acc`, one update.
    assert_eq!(out.matches("with_acc(").count(), 1, "{out}");
    assert_eq!(out.matches("update_acc(").count(), 1, "{out}");
    assert!(!out.contains("replicate([d_2]"), "{out}");
    assert!(out.contains("neg_f64(t_"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_local_adjoint_added_nonlinearly_or_read_elsewhere_is_kept() {
    for text in [
        // The square of each term is not the sum of the squares.
        A_LOCAL_ADJOINT_ADDED_NEGATED.replace("neg_f64(e_27)", "mul_f64(e_27, e_27)"),
        // A scale computed inside the full update differs per element.
        A_LOCAL_ADJOINT_ADDED_NEGATED.replace(
            "let n_30: f64 = neg_f64(e_27)",
            "let c_32: f64 = conv_i64_f64(i_28)\n          let n_30: f64 = mul_f64(e_27, c_32)",
        ),
        // The outer accumulator is updated between the two: its update cannot move up.
        A_LOCAL_ADJOINT_ADDED_NEGATED
            .replace(
                "        let a_26:",
                "        let a_33: acc([k_1, d_2], f64) = update_acc(a_16, [j_14, 0i64], [w_15])\n        let a_26:",
            )
            .replace("}, y_18, iota_7, a_16)", "}, y_18, iota_7, a_33)"),
    ] {
        let prog = parse_prog(&text).unwrap_or_else(|d| panic!("{d:?}"));
        verify(&prog).unwrap();
        let (_, stats) = optimise(prog, &only(&["acc-sink", "copy-prop"])).unwrap();
        assert!(!stats.rules.contains_key("acc-sink-local"), "{:?}\n{text}", stats.rules);
    }
}

#[test]
fn rows_read_elsewhere_are_not_sunk() {
    // The rows are also returned: the map must still build them.
    let text = ROWS_ADDED_INTO_AN_ACCUMULATOR.replace(
        "in a_36, s_15",
        "let q_45: [d_2]f64 = ys_14[0i64] in a_36, s_15",
    );
    let prog = parse_prog(&text).unwrap_or_else(|d| panic!("{d:?}"));
    verify(&prog).unwrap();
    let (_, stats) = optimise(prog, &OptOptions::default()).unwrap();
    assert!(
        !stats.rules.contains_key("acc-sink-with-acc"),
        "{:?}",
        stats.rules
    );
    assert!(
        !stats.rules.contains_key("acc-sink-update"),
        "{:?}",
        stats.rules
    );
}

#[test]
fn a_loop_whose_rest_reads_the_invariant_scalars_is_split_through_arrays() {
    // The loop carries a primal `p` and a tangent `q` that reads `p`'s value of each
    // iteration; `p`'s loop leaves the map over seeds and writes the values `q` reads.
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ss_2: [4]f64) : [4]f64 {
  let r_3: [4]f64 = map(4i64, \(s_4: f64) : f64 -> {
    let (a_5: f64, b_6: f64) = loop (p_7: f64 = 1.0f64, q_8: f64 = s_4) for i_9: i64 < n_0 do {
      let y_10: f64 = xs_1[i_9]
      let e_11: f64 = exp_f64(p_7)
      let p2_12: f64 = mul_f64(e_11, y_10)
      let q2_13: f64 = mul_f64(q_8, e_11)
      let q3_14: f64 = mul_f64(q2_13, y_10)
      in p2_12, q3_14
    }
    let c_15: f64 = add_f64(a_5, b_6)
    in c_15
  }, ss_2)
  in r_3
}"#,
        &["hoist", "map-fission"],
        "loop-split-materialise",
    );
    let map_at = out.find("map(").unwrap();
    assert!(out.find("exp_f64").unwrap() < map_at, "{out}");
    assert!(out.find("scratch").unwrap() < map_at, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_redomap_of_independent_sums_leaves_its_invariant_sum_behind() {
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64, ss_2: [4]f64) : [4]f64 {
  let r_3: [4]f64 = map(4i64, \(s_4: f64) : f64 -> {
    let (a_5: f64, b_6: f64) = redomap(n_0, \(x_7: f64) : (f64, f64) -> {
      let e_8: f64 = exp_f64(x_7)
      let t_9: f64 = mul_f64(e_8, s_4)
      in e_8, t_9
    }, \(u_10: f64, v_11: f64, w_12: f64, z_13: f64) : (f64, f64) -> {
      let p_14: f64 = add_f64(u_10, w_12)
      let q_15: f64 = add_f64(v_11, z_13)
      in p_14, q_15
    }, (0.0f64, 0.0f64), xs_1)
    let c_16: f64 = mul_f64(a_5, b_6)
    in c_16
  }, ss_2)
  in r_3
}"#,
        &["hoist", "map-fission"],
        "redomap-split-invariant",
    );
    // The sum of exponentials runs once, before the map over seeds.
    assert!(
        out.find("redomap").unwrap() < out.find("map(4i64").unwrap(),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_loop_split_keeps_a_rest_that_may_fail_on_its_own() {
    // The rest divides by an integer that may be zero: running the whole invariant loop
    // first could report another error first, so the loop stays whole.
    let prog = parse_prog(
        r#"fun f [n_0] (xs_1: [n_0]f64, ks_2: [n_0]i64, ss_3: [4]i64) : [4]i64 {
  let r_4: [4]i64 = map(4i64, \(s_5: i64) : i64 -> {
    let (a_6: i64, b_7: i64) = loop (p_8: i64 = 1i64, q_9: i64 = s_5) for i_10: i64 < n_0 do {
      let k_11: i64 = ks_2[i_10]
      let j_12: i64 = ks_2[k_11]
      let p2_13: i64 = add_i64(p_8, j_12)
      let q2_14: i64 = div_i64(q_9, p_8)
      in p2_13, q2_14
    }
    let c_15: i64 = add_i64(a_6, b_7)
    in c_15
  }, ss_3)
  in r_4
}"#,
    )
    .unwrap();
    let (out, stats) = optimise(prog, &OptOptions::default()).unwrap();
    verify(&out).unwrap();
    assert!(
        !stats.rules.contains_key("loop-split-materialise"),
        "{}",
        print_prog(&out)
    );
}

#[test]
fn a_later_if_on_the_same_condition_reads_what_the_earlier_one_computed() {
    // The return sweep's branch recomputes the forward branch's sqrt and sin (the first
    // through the second): both are handed over, the cos of the sqrt reads the handed value,
    // and the else branches, which share nothing, are unchanged.
    let out = run(
        r#"fun f (c_0: bool, x_1: f64, y_2: f64) : (f64, f64) {
  let a_3: f64 = if c_0 then {
    let s_4: f64 = sqrt_f64(x_1)
    let t_5: f64 = sin_f64(s_4)
    let u_6: f64 = mul_f64(t_5, y_2)
    in u_6
  } else { let v_7: f64 = mul_f64(x_1, y_2) in v_7 } : f64
  let w_8: f64 = mul_f64(a_3, a_3)
  let b_9: f64 = if c_0 then {
    let s_10: f64 = sqrt_f64(x_1)
    let t_11: f64 = sin_f64(s_10)
    let k_12: f64 = cos_f64(s_10)
    let m_13: f64 = mul_f64(t_11, k_12)
    let n_14: f64 = mul_f64(m_13, w_8)
    in n_14
  } else { let v_15: f64 = mul_f64(x_1, w_8) in v_15 } : f64
  in w_8, b_9
}"#,
        &["if-share"],
        "if-share",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_later_map_over_the_same_rows_reads_what_the_earlier_one_computed() {
    // The adjoint map recomputes each row's loop sum (the earlier map's), the exponential
    // of the row's weight and its negation: the loop sum and the exponential are handed over
    // as extra results of the earlier map (arrays of one value per row) and read through new
    // parameters; the negation, which costs no more than storing it, is recomputed.
    let out = run(
        r#"fun f [n_0, m_1] (q_2: [n_0][m_1]f64, w_3: [n_0]f64, y_4: f64) : ([n_0]f64, [n_0]f64) {
  let a_5: [n_0]f64 = map(n_0, \(r_6: [m_1]f64, v_7: f64) : f64 -> {
    let g_8: f64 = neg_f64(v_7)
    let s_9: f64 = loop (acc_10: f64 = 0.0f64) for c_11: i64 < m_1 do {
      let e_12: f64 = r_6[c_11]
      let t_13: f64 = mul_f64(e_12, e_12)
      let u_14: f64 = add_f64(acc_10, t_13)
      in u_14
    }
    let x_28: f64 = exp_f64(v_7)
    let p_15: f64 = mul_f64(s_9, g_8)
    let q_29: f64 = mul_f64(p_15, x_28)
    in q_29
  }, q_2, w_3)
  let b_16: [n_0]f64 = map(n_0, \(v_17: f64, r_18: [m_1]f64) : f64 -> {
    let g_19: f64 = neg_f64(v_17)
    let s_20: f64 = loop (acc_21: f64 = 0.0f64) for c_22: i64 < m_1 do {
      let e_23: f64 = r_18[c_22]
      let t_24: f64 = mul_f64(e_23, e_23)
      let u_25: f64 = add_f64(acc_21, t_24)
      in u_25
    }
    let p_26: f64 = mul_f64(s_20, y_4)
    let x_30: f64 = exp_f64(v_17)
    let h_27: f64 = add_f64(p_26, g_19)
    let k_31: f64 = mul_f64(h_27, x_30)
    in k_31
  }, w_3, q_2)
  in a_5, b_16
}"#,
        &["map-share"],
        "map-share",
    );
    insta::assert_snapshot!(out);
}

#[test]
fn a_permuted_map_of_replicates_is_a_replicate_of_the_permuted_map() {
    // Seeds of a `jmp` in lane layout: `tabulate 3 (\j -> replicate n [f j, g j])` with the
    // directions moved innermost.
    let out = run(
        r#"fun f [n_0] (xs_1: [3]f64) : [n_0][2][3]f64 {
  let (s_2: [3][n_0][2]f64) = map(3i64, \(x_3: f64) : [n_0][2]f64 -> {
    let y_4: f64 = neg_f64(x_3)
    let a_5: [2]f64 = array(f64, [x_3, y_4])
    let r_6: [n_0][2]f64 = replicate([n_0], a_5)
    in r_6
  }, xs_1)
  let l_7: [n_0][2][3]f64 = rearrange([1, 2, 0], s_2)
  in l_7
}"#,
        &["fold"],
        "rearrange-map-replicate",
    );
    assert!(out.contains("replicate([n_0], "), "{out}");
    assert!(out.contains("rearrange([1, 0], "), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_sum_of_rows_inside_a_lambda_becomes_a_loop_adding_each_row() {
    // The tangent lanes of `f64.sum (map (\x -> c * x) xs)` per row of an outer map: the
    // rows are no longer stored, and the map making each row fuses into the addition.
    let out = run(
        r#"fun f [m_0, n_1] (xss_2: [m_0][n_1]f64, ts_3: [m_0][n_1][4]f64, z_4: [4]f64) : ([m_0]f64, [m_0][4]f64) {
  let (s_5: [m_0]f64, t_6: [m_0][4]f64) = map(m_0, \(xs_7: [n_1]f64, tss_8: [n_1][4]f64) : (f64, [4]f64) -> {
    let (as_9: [n_1]f64, rows_10: [n_1][4]f64) = map(n_1, \(x_11: f64, ts_12: [4]f64) : (f64, [4]f64) -> {
      let y_13: f64 = mul_f64(x_11, x_11)
      let r_14: [4]f64 = map(4i64, \(l_15: f64) : f64 -> { let p_16: f64 = mul_f64(x_11, l_15) in p_16 }, ts_12)
      in y_13, r_14
    }, xs_7, tss_8)
    let s_17: f64 = reduce(n_1, \(a_18: f64, b_19: f64) : f64 -> { let c_20: f64 = add_f64(a_18, b_19) in c_20 }, (0.0f64), as_9)
    let t_21: [4]f64 = reduce(n_1, \(a_22: [4]f64, b_23: [4]f64) : [4]f64 -> {
      let c_24: [4]f64 = map(4i64, \(u_25: f64, v_26: f64) : f64 -> { let w_27: f64 = add_f64(u_25, v_26) in w_27 }, a_22, b_23)
      in c_24
    }, (z_4), rows_10)
    in s_17, t_21
  }, xss_2, ts_3)
  in s_5, t_6
}"#,
        &["reduce-loop", "fusion"],
        "reduce-loop",
    );
    assert!(!out.contains("reduce("), "{out}");
    assert_eq!(out.matches("map(4i64").count(), 1, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_sum_of_rows_at_the_top_of_a_function_stays_a_reduction() {
    let text = r#"fun f [n_1] (tss_8: [n_1][4]f64, z_4: [4]f64) : [4]f64 {
  let rows_10: [n_1][4]f64 = map(n_1, \(ts_12: [4]f64) : [4]f64 -> {
    let r_14: [4]f64 = map(4i64, \(l_15: f64) : f64 -> { let p_16: f64 = mul_f64(l_15, l_15) in p_16 }, ts_12)
    in r_14
  }, tss_8)
  let t_21: [4]f64 = reduce(n_1, \(a_22: [4]f64, b_23: [4]f64) : [4]f64 -> {
    let c_24: [4]f64 = map(4i64, \(u_25: f64, v_26: f64) : f64 -> { let w_27: f64 = add_f64(u_25, v_26) in w_27 }, a_22, b_23)
    in c_24
  }, (z_4), rows_10)
  in t_21
}"#;
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
    let (_, stats) = optimise(prog, &only(&["reduce-loop"])).unwrap();
    assert!(
        !stats.rules.contains_key("reduce-loop"),
        "{:?}",
        stats.rules
    );
}

#[test]
fn a_map_result_only_summed_is_split_off_into_the_sum() {
    let out = run(
        r#"fun f [n_0] (e_1: [n_0]f64, d_2: f64) : ([n_0]f64, f64) {
  let (g_3: [n_0]f64, h_4: [n_0]f64) = map(n_0, \(x_5: f64) : (f64, f64) -> {
    let m_6: f64 = mul_f64(x_5, d_2)
    let k_7: f64 = neg_f64(m_6)
    in m_6, k_7
  }, e_1)
  let s_8: f64 = reduce_comm(n_0, \(a_9: f64, b_10: f64) : f64 -> { let c_11: f64 = add_f64(a_9, b_10) in c_11 }, (0.0f64), h_4)
  in g_3, s_8
}"#,
        &["consumer-fusion"],
        "split-for-reduce",
    );
    // The summed result is never built: the map keeps one result, the sum maps its own.
    assert!(out.contains("redomap_comm("), "{out}");
    assert_eq!(out.matches("mul_f64").count(), 2, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_result_needing_a_function_call_is_not_split() {
    let text = r#"fun f [n_0] (e_1: [n_0]f64) : ([n_0]f64, f64) {
  let (g_3: [n_0]f64, h_4: [n_0]f64) = map(n_0, \(x_5: f64) : (f64, f64) -> {
    let m_6: f64 = exp_f64(x_5)
    in m_6, m_6
  }, e_1)
  let s_8: f64 = reduce_comm(n_0, \(a_9: f64, b_10: f64) : f64 -> { let c_11: f64 = add_f64(a_9, b_10) in c_11 }, (0.0f64), h_4)
  in g_3, s_8
}"#;
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
    let (_, stats) = optimise(prog, &only(&["consumer-fusion"])).unwrap();
    assert!(
        !stats.rules.contains_key("split-for-reduce"),
        "{:?}",
        stats.rules
    );
}

#[test]
fn a_cheap_map_read_at_the_previous_row_fuses_into_its_reader() {
    // `ys[i - 1]` in the else branch of `i == 0` is in bounds, so the element is computed
    // where it is read and `ys` is never built.
    let out = run(
        r#"fun f [n_0] (x_1: [n_0]f64, h_2: f64) : [n_0]f64 {
  let ys_3: [n_0]f64 = map(n_0, \(a_4: f64) : f64 -> { let b_5: f64 = mul_f64(a_4, h_2) in b_5 }, x_1)
  let iota_6: [n_0]i64 = iota(i64, n_0, 0i64, 1i64)
  let zs_7: [n_0]f64 = map(n_0, \(i_8: i64) : f64 -> {
    let z_9: bool = eq_i64(i_8, 0i64)
    let r_10: f64 = if z_9 then { in 0.0f64 } else {
      let p_11: i64 = sub_i64(i_8, 1i64)
      let y_12: f64 = ys_3[p_11]
      in y_12
    } : f64
    in r_10
  }, iota_6)
  in zs_7
}"#,
        &["fusion"],
        "index-of-map",
    );
    assert!(!out.contains("ys_"), "{out}");
    assert_eq!(out.matches("map(").count(), 1, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_cheap_map_read_by_two_maps_is_split_into_each() {
    // `a` and `b` have different readers: each reader computes its own part, and neither
    // array is built (the two readers then share one traversal).
    let out = run(
        r#"fun f [n_0] (x_1: [n_0]f64, y_2: [n_0]f64, h_3: f64) : ([n_0]f64, [n_0]f64) {
  let (a_4: [n_0]f64, b_5: [n_0]f64) = map(n_0, \(p_6: f64) : (f64, f64) -> {
    let q_7: f64 = mul_f64(p_6, h_3)
    let r_8: f64 = add_f64(q_7, p_6)
    in q_7, r_8
  }, x_1)
  let c_9: [n_0]f64 = map(n_0, \(s_10: f64, t_11: f64) : f64 -> { let u_12: f64 = add_f64(s_10, t_11) in u_12 }, a_4, y_2)
  let d_13: [n_0]f64 = map(n_0, \(s_14: f64, t_15: f64) : f64 -> { let u_16: f64 = mul_f64(s_14, t_15) in u_16 }, b_5, y_2)
  in c_9, d_13
}"#,
        &["fusion"],
        "map-split-consumers",
    );
    assert!(!out.contains("a_") && !out.contains("b_"), "{out}");
    assert_eq!(out.matches("map(").count(), 1, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_read_twice_or_needing_a_function_call_is_not_split() {
    for text in [
        // `a` and `b` go to one `with_acc`, which takes maps of one result only.
        r#"fun f [n_0] (x_1: [n_0]f64, y_2: [n_0]f64) : ([n_0]f64, [n_0]f64) {
  let (a_4: [n_0]f64, b_5: [n_0]f64, e_20: [n_0]f64) = map(n_0, \(p_6: f64) : (f64, f64, f64) -> {
    let q_7: f64 = mul_f64(p_6, p_6)
    in q_7, p_6, q_7
  }, x_1)
  let d_13: [n_0]f64 = map(n_0, \(s_14: f64, t_15: f64) : f64 -> { let u_16: f64 = mul_f64(s_14, t_15) in u_16 }, e_20, y_2)
  let iota_21: [n_0]i64 = iota(i64, n_0, 0i64, 1i64)
  let z_22: [n_0]f64 = replicate([n_0], 0.0f64)
  let r_23: [n_0]f64 = with_acc([n_0] (z_22), \(acc_24: acc([n_0], f64)) : acc([n_0], f64) -> {
    let a_25: acc([n_0], f64) = map(n_0, \(i_26: i64, b_27: f64, c_28: f64, acc_29: acc([n_0], f64)) : acc([n_0], f64) -> {
      let d_30: f64 = mul_f64(b_27, c_28)
      let acc_31: acc([n_0], f64) = update_acc(acc_29, [i_26], [d_30])
      in acc_31
    }, iota_21, a_4, b_5, acc_24)
    in a_25
  })
  in r_23, d_13
}"#,
        // `a` is read by both later maps.
        r#"fun f [n_0] (x_1: [n_0]f64, y_2: [n_0]f64) : ([n_0]f64, [n_0]f64) {
  let (a_4: [n_0]f64, b_5: [n_0]f64) = map(n_0, \(p_6: f64) : (f64, f64) -> {
    let q_7: f64 = mul_f64(p_6, p_6)
    in q_7, p_6
  }, x_1)
  let c_9: [n_0]f64 = map(n_0, \(s_10: f64, t_11: f64) : f64 -> { let u_12: f64 = add_f64(s_10, t_11) in u_12 }, a_4, y_2)
  let d_13: [n_0]f64 = map(n_0, \(s_14: f64, t_15: f64, v_17: f64) : f64 -> { let u_16: f64 = mul_f64(s_14, t_15) let w_18: f64 = add_f64(u_16, v_17) in w_18 }, b_5, y_2, a_4)
  in c_9, d_13
}"#,
        // `a` costs a call of `exp`.
        r#"fun f [n_0] (x_1: [n_0]f64, y_2: [n_0]f64) : ([n_0]f64, [n_0]f64) {
  let (a_4: [n_0]f64, b_5: [n_0]f64) = map(n_0, \(p_6: f64) : (f64, f64) -> {
    let q_7: f64 = exp_f64(p_6)
    in q_7, p_6
  }, x_1)
  let c_9: [n_0]f64 = map(n_0, \(s_10: f64, t_11: f64) : f64 -> { let u_12: f64 = add_f64(s_10, t_11) in u_12 }, a_4, y_2)
  let d_13: [n_0]f64 = map(n_0, \(s_14: f64, t_15: f64) : f64 -> { let u_16: f64 = mul_f64(s_14, t_15) in u_16 }, b_5, y_2)
  in c_9, d_13
}"#,
    ] {
        let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
        let (out, stats) = optimise(prog, &only(&["fusion"])).unwrap();
        verify(&out).unwrap();
        assert!(
            !stats.rules.contains_key("map-split-consumers"),
            "{:?}\n{}",
            stats.rules,
            print_prog(&out)
        );
    }
}

#[test]
fn a_cheap_map_fuses_into_the_accumulating_map_of_a_with_acc() {
    // The scaled cotangent `g` is computed where the map adding it into the accumulator
    // reads it: it moves into the `with_acc` (which runs once) and fuses there.
    let out = run(
        r#"fun f [n_0] (x_1: [n_0]f64, y_2: [n_0]f64, h_3: f64) : [n_0]f64 {
  let g_4: [n_0]f64 = map(n_0, \(p_5: f64) : f64 -> { let q_6: f64 = mul_f64(p_5, h_3) in q_6 }, y_2)
  let iota_7: [n_0]i64 = iota(i64, n_0, 0i64, 1i64)
  let z_8: [n_0]f64 = replicate([n_0], 0.0f64)
  let r_9: [n_0]f64 = with_acc([n_0] (z_8), \(acc_10: acc([n_0], f64)) : acc([n_0], f64) -> {
    let a_11: acc([n_0], f64) = map(n_0, \(i_12: i64, b_13: f64, c_14: f64, acc_15: acc([n_0], f64)) : acc([n_0], f64) -> {
      let d_16: f64 = mul_f64(b_13, c_14)
      let acc_17: acc([n_0], f64) = update_acc(acc_15, [i_12], [d_16])
      in acc_17
    }, iota_7, g_4, x_1, acc_10)
    in a_11
  })
  in r_9
}"#,
        &["fusion"],
        "map-sink",
    );
    assert!(!out.contains("g_"), "{out}");
    assert_eq!(out.matches("map(").count(), 1, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_read_later_fuses_into_its_reduction_and_keeps_its_results() {
    // Softmax: the exponentials are summed and read again by the division. The map fuses
    // into the sum and the fused traversal stores them (a `redomap` with a map result).
    let out = run(
        r#"fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {
  let e_2: [n_0]f64 = map(n_0, \(x_3: f64) : f64 -> { let y_4: f64 = exp_f64(x_3) in y_4 }, xs_1)
  let s_5: f64 = reduce_comm(n_0, \(a_6: f64, b_7: f64) : f64 -> { let c_8: f64 = add_f64(a_6, b_7) in c_8 }, (0.0f64), e_2)
  let p_9: [n_0]f64 = map(n_0, \(y_10: f64) : f64 -> { let z_11: f64 = div_f64(y_10, s_5) in z_11 }, e_2)
  in p_9
}"#,
        &["consumer-fusion"],
        "map-into-reduce-kept",
    );
    assert_eq!(out.matches("redomap").count(), 1, "{out}");
    assert_eq!(out.matches(" map(").count(), 1, "{out}");
    let reparsed = parse_prog(&out).unwrap_or_else(|d| panic!("{d:?}\n{out}"));
    verify(&reparsed).unwrap();
    insta::assert_snapshot!(out);
}

#[test]
fn a_map_read_before_the_reduction_keeps_its_own_traversal() {
    // `e` is read between the map and the sum: the fused statement, at the sum's place,
    // would bind it too late.
    let text = r#"fun f [n_0] (xs_1: [n_0]f64) : (f64, f64) {
  let e_2: [n_0]f64 = map(n_0, \(x_3: f64) : f64 -> { let y_4: f64 = exp_f64(x_3) in y_4 }, xs_1)
  let g_5: f64 = e_2[0i64]
  let s_6: f64 = reduce_comm(n_0, \(a_7: f64, b_8: f64) : f64 -> { let c_9: f64 = add_f64(a_7, b_8) in c_9 }, (0.0f64), e_2)
  let t_10: f64 = e_2[1i64]
  let u_11: f64 = add_f64(g_5, t_10)
  in s_6, u_11
}"#;
    let prog = parse_prog(text).unwrap();
    let (out, stats) = optimise(prog, &only(&["consumer-fusion"])).unwrap();
    verify(&out).unwrap();
    assert!(
        !stats.rules.contains_key("map-into-reduce-kept"),
        "{stats:?}"
    );
}

#[test]
fn a_map_beside_a_reduction_of_its_input_becomes_one_traversal() {
    // lse's gradient: the scaled exponentials and the sum of their negations read the same
    // array; the pair becomes one `redomap` whose map result is the scaled array (which an
    // update then changes: a map whose result the body returns as it is stays a map).
    let out = run(
        r#"fun f [n_0] (e_1: [n_0]f64, d_2: f64, k_13: i64) : ([n_0]f64, f64) {
  let g_3: [n_0]f64 = map(n_0, \(x_4: f64) : f64 -> { let y_5: f64 = mul_f64(x_4, d_2) in y_5 }, e_1)
  let s_6: f64 = redomap_comm(n_0, \(x_7: f64) : f64 -> {
    let y_8: f64 = mul_f64(x_7, d_2)
    let z_9: f64 = neg_f64(y_8)
    in z_9
  }, \(a_10: f64, b_11: f64) : f64 -> { let c_12: f64 = add_f64(a_10, b_11) in c_12 }, (0.0f64), e_1)
  let h_14: [n_0]f64 = g_3 with [k_13] = s_6
  in h_14, s_6
}"#,
        &["consumer-fusion"],
        "map-reduce-horizontal",
    );
    assert_eq!(out.matches("redomap").count(), 1, "{out}");
    assert!(!out.contains(" map("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_cheap_map_read_in_a_nested_loop_is_kept() {
    // `v[c]` is read in a loop inside a map inside the body that binds `v` (the
    // difference `x - mu` in the triangular loops of a Gaussian mixture): computing the
    // element there would compute each row `r + 1` times, so `v` stays an array. Read in
    // the loop directly (one level down), the element is computed at the read.
    let body = |read_in_map: bool| {
        let bound = if read_in_map { "k_13" } else { "d_1" };
        let inner = format!(
            r#"let acc_14: f64 = loop (p_15: f64 = 0.0f64) for c_16: i64 < {bound} do {{
        let e_17: f64 = v_6[c_16]
        let q_18: f64 = add_f64(p_15, e_17)
        in q_18
      }}"#
        );
        let reader = if read_in_map {
            format!(
                r#"let w_11: [d_1]f64 = map(d_1, \(r_12: i64) : f64 -> {{
      let k_13: i64 = add_i64(r_12, 1i64)
      {inner}
      in acc_14
    }}, iota_10)
    in w_11"#
            )
        } else {
            format!(
                r#"{inner}
    let w_11: [d_1]f64 = replicate([d_1], acc_14)
    in w_11"#
            )
        };
        format!(
            r#"fun f [n_0, d_1] (x_2: [n_0][d_1]f64, mu_3: [d_1]f64) : [n_0][d_1]f64 {{
  let r_4: [n_0][d_1]f64 = map(n_0, \(xi_5: [d_1]f64) : [d_1]f64 -> {{
    let v_6: [d_1]f64 = map(d_1, \(a_7: f64, b_8: f64) : f64 -> {{ let s_9: f64 = sub_f64(a_7, b_8) in s_9 }}, xi_5, mu_3)
    let iota_10: [d_1]i64 = iota(i64, d_1, 0i64, 1i64)
    {reader}
  }}, x_2)
  in r_4
}}"#
        )
    };
    let prog = parse_prog(&body(true)).unwrap_or_else(|d| panic!("{d:?}"));
    verify(&prog).unwrap();
    let (out, stats) = optimise(prog, &only(&["fusion"])).unwrap();
    assert!(
        !stats.rules.contains_key("index-of-map"),
        "{}",
        print_prog(&out)
    );
    let out = run(&body(false), &["fusion"], "index-of-map");
    assert_eq!(out.matches("map(").count(), 1, "{out}");
}

/// A sum of rows `cs[j] * adj[j]` into an accumulator, with `adj` one-hot at `first` if
/// `first < k` (the adjoint of `minimum`, reverse mode's shape for k-means).
const ONE_HOT_IN_A_BRANCH: &str = r#"fun f [k_0, d_1] (cs_2: [k_0][d_1]f64, first_3: i64, v_4: f64) : [k_0][d_1]f64 {
  let z_5: [k_0][d_1]f64 = replicate([k_0, d_1], 0.0f64)
  let lt_6: bool = lt_i64(first_3, k_0)
  let rep_7: [k_0]f64 = replicate([k_0], 0.0f64)
  let adj_8: [k_0]f64 = if lt_6 then {
    let hot_9: [k_0]f64 = rep_7 with [first_3] = v_4
    in hot_9
  } else { in rep_7 } : ([k_0]f64)
  let r_10: [k_0][d_1]f64 = with_acc([k_0, d_1] (z_5), \(acc_11: acc([k_0, d_1], f64)) : (acc([k_0, d_1], f64)) -> {
    let is_12: [k_0]i64 = iota(i64, k_0, 0i64, 1i64)
    let a_13: acc([k_0, d_1], f64) = map(k_0, \(j_14: i64, y_15: f64, a_17: acc([k_0, d_1], f64)) : (acc([k_0, d_1], f64)) -> {
      let c_16: [d_1]f64 = cs_2[j_14]
      let js_18: [d_1]i64 = iota(i64, d_1, 0i64, 1i64)
      let a_19: acc([k_0, d_1], f64) = map(d_1, \(i_20: i64, e_21: f64, a_22: acc([k_0, d_1], f64)) : (acc([k_0, d_1], f64)) -> {
        let m_23: f64 = mul_f64(e_21, y_15)
        let a_24: acc([k_0, d_1], f64) = update_acc(a_22, [j_14, i_20], [m_23])
        in a_24
      }, js_18, c_16, a_17)
      in a_19
    }, is_12, adj_8, acc_11)
    in a_13
  })
  in r_10
}"#;

#[test]
fn the_row_of_a_one_hot_adjoint_built_in_a_branch_is_its_value() {
    // The adjoint of `minimum` is one-hot at the position found, if one was: a branch. The
    // single row added is that branch's choice of the value or zero, not a read of an array
    // that would have to be built (zero-filled) for it.
    let out = run(
        ONE_HOT_IN_A_BRANCH,
        &["single-point", "fold", "copy-prop"],
        "acc-single-row",
    );
    assert!(!out.contains("replicate([k_0], "), "{out}");
    assert!(out.contains("select_f64("), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn the_row_of_a_one_hot_adjoint_is_read_where_its_value_is_made_in_the_branch() {
    // The value at the hot row is computed inside the branch: not available outside it, so
    // the row is read from the array.
    let text = ONE_HOT_IN_A_BRANCH.replace(
        "let hot_9: [k_0]f64 = rep_7 with [first_3] = v_4",
        "let w_30: f64 = mul_f64(v_4, 2.0f64)\n    let hot_9: [k_0]f64 = rep_7 with [first_3] = w_30",
    );
    let out = run(
        &text,
        &["single-point", "fold", "copy-prop"],
        "acc-single-row",
    );
    assert!(out.contains("replicate([k_0], "), "{out}");
    assert!(!out.contains("select_f64("), "{out}");
}

/// A forward sweep: each iteration saves its state `y` into row `i` of `ck`, then computes
/// the next state; only `ck` is read after the loop.
const SAVING_SWEEP: &str = r#"fun f [n_0, s_1] (xs_2: [n_0]f64) : [s_1][n_0]f64 {
  let z_3: [s_1][n_0]f64 = replicate([s_1, n_0], 0.0f64)
  let (y_4: [n_0]f64, ck_5: [s_1][n_0]f64) = loop (y_6: [n_0]f64 = xs_2, ck_7: [s_1][n_0]f64 = z_3) for i_8: i64 < s_1 do {
    let ck_9: [s_1][n_0]f64 = ck_7 with [i_8] = y_6
    let y_10: [n_0]f64 = map(n_0, \(a_11: f64) : f64 -> { let b_12: f64 = mul_f64(a_11, a_11) in b_12 }, y_6)
    in y_10, ck_9
  }
  in ck_5
}"#;

#[test]
fn a_loop_skips_in_its_last_iteration_the_state_nobody_reads() {
    let out = run(SAVING_SWEEP, &["loop-norm"], "loop-last-skips");
    assert!(out.contains("if "), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_loop_whose_skippable_work_is_small_or_touches_a_consumed_array_is_kept() {
    let not_fired = |text: &str| {
        let prog = parse_prog(text).unwrap_or_else(|d| panic!("{d:?}"));
        let (out, stats) = optimise(prog, &only(&["loop-norm"])).unwrap();
        verify(&out).unwrap();
        assert!(
            !stats.rules.contains_key("loop-last-skips"),
            "{}",
            print_prog(&out)
        );
    };
    // The state is read after the loop.
    not_fired(&SAVING_SWEEP.replace(
        "  in ck_5\n}",
        "  let r_20: [s_1][n_0]f64 = ck_5 with [0i64] = y_4\n  in r_20\n}",
    ));
    // The next state reads the array that saving the state consumes.
    not_fired(
        &SAVING_SWEEP
            .replace("}, y_6)\n    in y_10, ck_9", "}, r_19)\n    in y_10, ck_9")
            .replace(
                "    let ck_9: [s_1][n_0]f64",
                "    let r_19: [n_0]f64 = ck_7[0i64]\n    let ck_9: [s_1][n_0]f64",
            ),
    );
    // An assertion checks the next state: it stays, and so does what it checks.
    not_fired(&SAVING_SWEEP.replace(
        "    in y_10, ck_9",
        "    let m_20: f64 = y_10[0i64]\n    let c_21: bool = lt_f64(m_20, 100.0f64)\n    let () = assert(c_21, \"too large: {}\", m_20)\n    in y_10, ck_9",
    ));
    // A statement the saved rows need consumes the state that the skipping branch would
    // pass on (a return sweep restoring its array in place).
    not_fired(
        &SAVING_SWEEP
            .replace(
                "  let (y_4: [n_0]f64, ck_5: [s_1][n_0]f64) = loop (y_6: [n_0]f64 = xs_2,",
                "  let c_30: [n_0]f64 = copy(xs_2)\n  let (y_4: [n_0]f64, ck_5: [s_1][n_0]f64) = loop (y_6: [n_0]f64 = c_30,",
            )
            .replace(
                "    let ck_9: [s_1][n_0]f64 = ck_7 with [i_8] = y_6\n",
                "    let w_20: [n_0]f64 = y_6 with [0i64] = 1.0f64\n    let ck_9: [s_1][n_0]f64 = ck_7 with [i_8] = w_20\n",
            )
            .replace("}, y_6)\n    in y_10, ck_9", "}, xs_2)\n    in y_10, ck_9"),
    );
    // Two of the iteration's three maps are needed by the saved rows.
    not_fired(&SAVING_SWEEP.replace(
        "    let ck_9: [s_1][n_0]f64 = ck_7 with [i_8] = y_6\n",
        "    let u_13: [n_0]f64 = map(n_0, \\(a_14: f64) : f64 -> { let b_15: f64 = neg_f64(a_14) in b_15 }, y_6)\n    let v_16: [n_0]f64 = map(n_0, \\(a_17: f64) : f64 -> { let b_18: f64 = neg_f64(a_17) in b_18 }, u_13)\n    let ck_9: [s_1][n_0]f64 = ck_7 with [i_8] = v_16\n",
    ));
}

#[test]
fn a_returned_map_read_by_a_sum_fuses_into_it_and_keeps_its_results() {
    // Inside a map: the row is returned (the lowering writes it into the output's row) and
    // its sum of squares is taken. One traversal computes both.
    let out = run(
        r#"fun f [n_0, k_1] (xs_2: [n_0]f64) : ([n_0][k_1]f64, [n_0]f64) {
  let is_3: [k_1]i64 = iota(i64, k_1, 0i64, 1i64)
  let (r_4: [n_0][k_1]f64, s_5: [n_0]f64) = map(n_0, \(x_6: f64) : ([k_1]f64, f64) -> {
    let row_7: [k_1]f64 = map(k_1, \(j_8: i64) : f64 -> {
      let c_9: f64 = conv_i64_f64(j_8)
      let y_10: f64 = mul_f64(x_6, c_9)
      in y_10
    }, is_3)
    let t_11: f64 = redomap(k_1, \(v_12: f64) : f64 -> { let q_13: f64 = mul_f64(v_12, v_12) in q_13 }, \(a_14: f64, b_15: f64) : f64 -> { let e_16: f64 = add_f64(a_14, b_15) in e_16 }, (0.0f64), row_7)
    in row_7, t_11
  }, xs_2)
  in r_4, s_5
}"#,
        &["consumer-fusion"],
        "map-into-reduce-kept",
    );
    assert_eq!(out.matches("redomap").count(), 1, "{out}");
    assert_eq!(out.matches(" map(").count(), 1, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn constants_differing_only_in_the_sign_of_zero_stay_apart() {
    let prog = parse_prog(
        r#"fun f (x_0: f64) : ([2]f64, f64, f64) {
  let a_1: [2]f64 = array(f64, [0.0f64, -0.0f64])
  let b_2: f64 = add_f64(x_0, -0.0f64)
  let c_3: f64 = add_f64(x_0, 0.0f64)
  in a_1, b_2, c_3
}"#,
    )
    .unwrap();
    let (out, _) = optimise(prog, &OptOptions::default()).unwrap();
    let text = print_prog(&out);
    // Not a replicate of one value; `x + -0.0` is `x`, `x + 0.0` is not (x may be -0.0).
    assert!(text.contains("[0.0f64, -0.0f64]"), "{text}");
    assert!(text.contains("add_f64(x_0, 0.0f64)"), "{text}");
    assert!(!text.contains("add_f64(x_0, -0.0f64)"), "{text}");
}
