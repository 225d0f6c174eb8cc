//! The core IR verifier: one valid program per construct passes (see also the snapshot
//! inputs in `text.rs`), and one broken program per invariant fails with its message.

use gradus::core::parse::parse_prog;
use gradus::core::verify::verify;

fn passes(text: &str) {
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("parse: {d:?}"));
    if let Err(e) = verify(&prog) {
        panic!("unexpected verifier error: {e}\n{text}");
    }
}

fn fails(text: &str, expected: &str) -> String {
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("parse: {d:?}"));
    match verify(&prog) {
        Ok(()) => panic!("verifier accepted a broken program (expected `{expected}`):\n{text}"),
        Err(e) => {
            let s = e.to_string();
            assert!(
                s.contains(expected),
                "expected a message containing `{expected}`, got:\n{s}"
            );
            s
        }
    }
}

#[test]
fn error_names_function_and_statement() {
    let msg = fails(
        "fun f (x_0: f64) : f64 { let y_1: i64 = add_f64(x_0, x_0) in y_1 }",
        "pattern variable y_1 has type i64, the expression gives f64",
    );
    assert_eq!(
        msg,
        "in function `f`: pattern variable y_1 has type i64, the expression gives f64\n  \
         in statement: let y_1: i64 = add_f64(x_0, x_0)"
    );
}

// Names and scope ---------------------------------------------------------------------------

#[test]
fn bound_twice() {
    fails(
        "fun f (x_0: f64) : f64 { let x_0: f64 = add_f64(x_0, x_0) in x_0 }",
        "x_0 is bound more than once",
    );
    fails(
        "fun f (x_0: f64) : f64 { in x_0 }\nfun g (x_0: f64) : f64 { in x_0 }",
        "x_0 is bound more than once",
    );
}

#[test]
fn duplicate_function() {
    fails(
        "fun f (x_0: f64) : f64 { in x_0 }\nfun f (y_1: f64) : f64 { in y_1 }",
        "function `f` is defined twice",
    );
}

#[test]
fn out_of_scope() {
    fails(
        "fun f (x_0: f64) : f64 { let y_1: f64 = add_f64(x_0, z_2) in y_1 }\n\
         fun g (z_2: f64) : f64 { in z_2 }",
        "z_2 is used out of scope",
    );
    // A lambda parameter does not leak out of the lambda.
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 {\n\
           let ys_2: [n_0]f64 = map(n_0, \\(x_3: f64) : f64 -> { in x_3 }, xs_1)\n\
           in x_3\n\
         }",
        "x_3 is used out of scope",
    );
    // Branch bindings are not visible after the if.
    fails(
        "fun f (c_0: bool) : f64 {\n\
           let r_1: f64 = if c_0 then { let a_2: f64 = add_f64(1.0f64, 2.0f64) in a_2 } else { in 0.0f64 } : f64\n\
           in a_2\n\
         }",
        "a_2 is used out of scope",
    );
}

#[test]
fn lambdas_see_enclosing_scope() {
    passes(
        "fun f [n_0] (xs_1: [n_0]f64, k_2: f64) : [n_0]f64 {\n\
           let ys_3: [n_0]f64 = map(n_0, \\(x_4: f64) : f64 -> { let y_5: f64 = mul_f64(x_4, k_2) in y_5 }, xs_1)\n\
           in ys_3\n\
         }",
    );
}

#[test]
fn entry_info() {
    fails(
        "entry f (x_0: f64) : f64 external f (\"f64\" y_1) -> (\"f64\" 1) { let y_1: f64 = neg_f64(x_0) in y_1 }",
        "entry point parameter y_1 is not a parameter",
    );
    fails(
        "entry f (x_0: f64) : f64 external f (\"f64\" x_0) -> (\"f64\" 2) { in x_0 }",
        "entry point results account for 2 values",
    );
}

// Types ---------------------------------------------------------------------------------------

#[test]
fn prim_operands() {
    fails(
        "fun f (x_0: i64) : f64 { let y_1: f64 = add_f64(x_0, 1.0f64) in y_1 }",
        "operand 0 of add_f64 x_0 has type i64, expected f64",
    );
    fails(
        "fun f (x_0: f64) : f64 { let y_1: f64 = add_f64(x_0) in y_1 }",
        "add_f64 takes 2 operands, given 1",
    );
    passes("fun f (x_0: f64, k_1: i32) : f64 { let y_2: f64 = ldexp_f64(x_0, k_1) in y_2 }");
}

#[test]
fn index_and_update() {
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 { let y_2: f64 = xs_1[0i64, 1i64] in y_2 }",
        "indexing with 2 indices of an array of rank 1",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 { let y_2: [n_0]f64 = xs_1[0i64] in y_2 }",
        "pattern variable y_2 has type [n_0]f64, the expression gives f64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 { let y_2: f64 = xs_1[1i32] in y_2 }",
        "index 1i32 has type i32, expected i64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 { let y_2: [n_0]f64 = xs_1 with [0i64] = 1i64 in y_2 }",
        "the updated value has type i64, expected f64",
    );
    fails(
        "fun f [n_0, m_1] (xss_2: [n_0][m_1]f64, ys_3: [n_0]f64) : [n_0][m_1]f64 {\n\
           let r_4: [n_0][m_1]f64 = xss_2 with [0i64] = ys_3\n\
           in r_4\n\
         }",
        "the updated value has type [n_0]f64, expected [m_1]f64",
    );
}

#[test]
fn array_operations() {
    fails(
        "fun f [n_0, m_1] (xss_2: [n_0][m_1]f64) : [m_1][n_0]f64 { let t_3: [m_1][n_0]f64 = rearrange([0, 0], xss_2) in t_3 }",
        "is not a permutation",
    );
    fails(
        "fun f (n_0: i64) : [n_0]f64 { let xs_1: [n_0]f64 = iota(f64, n_0, 0.0f64, 1.0f64) in xs_1 }",
        "iota of non-integer type f64",
    );
    fails(
        "fun f (a_0: i32) : [2]i32 { let xs_1: [2]i32 = array(i32, [a_0, 1i64]) in xs_1 }",
        "element 1 has type i64, expected i32",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]i64) : [n_0]f64 { let zs_3: [n_0]f64 = concat(n_0, xs_1, ys_2) in zs_3 }",
        "concat inputs of types [n_0]f64 and [n_0]i64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 { let ys_2: [n_0]f64 = rotate(1i32, xs_1) in ys_2 }",
        "the rotation amount 1i32 has type i32, expected i64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64, m_2: i64) : [m_2][1]f64 { let ys_3: [m_2][1]f64 = coerce([m_2, 1i64], xs_1, \"[m][1]f64\") in ys_3 }",
        "coerce of xs_1 (rank 1) to rank 2",
    );
    // A coercion to other sizes is a run-time check: accepted.
    passes(
        "fun f [n_0] (xs_1: [n_0]f64, m_2: i64) : [m_2]f64 { let ys_3: [m_2]f64 = coerce([m_2], xs_1, \"[m]f64\") in ys_3 }",
    );
}

#[test]
fn assertions() {
    fails(
        "fun f (x_0: i64) : i64 { let () = assert(true, \"{} and {}\", x_0) in x_0 }",
        "the assertion message has 2 `{}` for 1 arguments",
    );
    fails(
        "fun f (x_0: i64) : i64 { let () = assert(x_0, \"no\") in x_0 }",
        "the assertion x_0 has type i64, expected bool",
    );
}

#[test]
fn branches() {
    fails(
        "fun f (c_0: i64) : f64 { let r_1: f64 = if c_0 then { in 1.0f64 } else { in 2.0f64 } : f64 in r_1 }",
        "the condition c_0 has type i64, expected bool",
    );
    fails(
        "fun f (c_0: bool) : f64 { let r_1: f64 = if c_0 then { in 1.0f64 } else { in 2.0f64, 3.0f64 } : f64 in r_1 }",
        "the else branch returns 2 values, expected 1",
    );
    fails(
        "fun f (c_0: bool) : f64 { let r_1: f64 = if c_0 then { in 1.0f64 } else { in 2i64 } : f64 in r_1 }",
        "result 0 of the else branch has type i64, expected f64",
    );
    fails(
        "fun f (c_0: bool) : f64 { let r_1: f64 = if c_0 then { in 1.0f64 } else { in 2.0f64 } : i64 in r_1 }",
        "pattern variable r_1 has type f64, the if declares i64",
    );
}

#[test]
fn existential_sizes_of_branches() {
    passes(
        "fun f [n_0] (c_1: bool, xs_2: [n_0]f64, m_3: i64, ys_4: [m_3]f64) : f64 {\n\
           let (k_5: i64, zs_6: [k_5]f64) = if c_1 then { in n_0, xs_2 } else { in m_3, ys_4 } : (i64, [k_5]f64)\n\
           let z_7: f64 = zs_6[0i64]\n\
           in z_7\n\
         }",
    );
    fails(
        "fun f [n_0] (c_1: bool, xs_2: [n_0]f64, m_3: i64, ys_4: [m_3]f64) : f64 {\n\
           let (k_5: i64, zs_6: [k_5]f64) = if c_1 then { in n_0, xs_2 } else { in n_0, ys_4 } : (i64, [k_5]f64)\n\
           let z_7: f64 = zs_6[0i64]\n\
           in z_7\n\
         }",
        "result 1 of the else branch has type [m_3]f64, expected [k_5]f64",
    );
}

#[test]
fn loops() {
    fails(
        "fun f (n_0: i64) : f64 { let a_1: f64 = loop (a_2: f64 = 0i64) for i_3: i64 < n_0 do { in a_2 } in a_1 }",
        "the initial value of a_2 has type i64, expected f64",
    );
    fails(
        "fun f (n_0: i64) : f64 { let a_1: f64 = loop (a_2: f64 = 0.0f64) for i_3: i32 < n_0 do { in a_2 } in a_1 }",
        "the loop counter i_3 has type i32 and the bound i64",
    );
    fails(
        "fun f (n_0: i64) : f64 { let a_1: f64 = loop (a_2: f64 = 0.0f64) for i_3: i64 < n_0 do { in i_3 } in a_1 }",
        "the loop body's result for a_2 has type i64, expected f64",
    );
    fails(
        "fun f (c_0: bool) : f64 { let a_1: f64 = loop (a_2: f64 = 0.0f64) while c_0 do { in a_2 } in a_1 }",
        "the while condition c_0 is not a loop parameter",
    );
    fails(
        "fun f (x_0: f64) : f64 { let a_1: f64 = loop (a_2: f64 = x_0) while a_2 do { in a_2 } in a_1 }",
        "the while condition a_2 is not a bool",
    );
    fails(
        "fun f (n_0: i64) : f64 { let a_1: i64 = loop (a_2: f64 = 0.0f64) for i_3: i64 < n_0 do { in a_2 } in a_1 }",
        "pattern variable a_1 has type i64, expected f64",
    );
}

#[test]
fn existential_sizes_of_loops() {
    passes(
        "fun f [n_0] (xs_1: [n_0]f64) : i64 {\n\
           let (k_2: i64, ys_3: [k_2]f64) = loop (k_4: i64 = n_0, ys_5: [k_4]f64 = xs_1) for i_6: i64 < 3i64 do {\n\
             let k2_7: i64 = mul_i64(k_4, 2i64)\n\
             let zs_8: [k2_7]f64 = concat(k2_7, ys_5, ys_5)\n\
             in k2_7, zs_8\n\
           }\n\
           in k_2\n\
         }",
    );
}

#[test]
fn calls() {
    let callee = "fun g (x_0: f64) : f64 { in x_0 }\n";
    fails(
        &format!(
            "{callee}fun f (y_1: f64) : f64 {{ let r_2: f64 = call g(y_1, y_1) : f64 in r_2 }}"
        ),
        "`g` takes 1 arguments, given 2",
    );
    fails(
        &format!("{callee}fun f (y_1: f64) : f64 {{ let r_2: f64 = call h(y_1) : f64 in r_2 }}"),
        "call of unknown function `h`",
    );
    fails(
        &format!("{callee}fun f (y_1: i64) : f64 {{ let r_2: f64 = call g(y_1) : f64 in r_2 }}"),
        "argument 0 of `g` has type i64, the parameter f64",
    );
    passes(&format!(
        "{callee}fun f (y_1: f64) : f64 {{ let r_2: f64 = call g(y_1) : f64 in r_2 }}"
    ));
}

#[test]
fn function_results() {
    fails(
        "fun f (x_0: i64) : f64 { in x_0 }",
        "result 0 of the function body has type i64, expected f64",
    );
    fails(
        "fun f (x_0: f64) : (f64, f64) { in x_0 }",
        "the function body returns 1 values, expected 2",
    );
    // A result size that is not a parameter is existential.
    passes(
        "fun f (n_0: i64) : [m_2]i64 { let m_2: i64 = add_i64(n_0, 1i64) let xs_3: [m_2]i64 = iota(i64, m_2, 0i64, 1i64) in xs_3 }",
    );
}

#[test]
fn soacs() {
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = map(n_0, \\(x_3: i64) : f64 -> { in 1.0f64 }, xs_1)\n\
           in ys_2\n\
         }",
        "parameter x_3 of the map lambda has type i64, expected f64",
    );
    fails(
        "fun f [n_0, m_1] (xs_2: [m_1]f64) : [n_0]f64 {\n\
           let ys_3: [n_0]f64 = map(n_0, \\(x_4: f64) : f64 -> { in x_4 }, xs_2)\n\
           in ys_3\n\
         }",
        "map input xs_2 has type [m_1]f64, expected outer size n_0",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = map(n_0, \\(x_3: f64) : f64 -> { in 1i64 }, xs_1)\n\
           in ys_2\n\
         }",
        "result 0 of the map lambda has type i64, expected f64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 {\n\
           let r_2: f64 = reduce(n_0, \\(a_3: f64, b_4: f64) : f64 -> { let c_5: f64 = add_f64(a_3, b_4) in c_5 }, (0i64), xs_1)\n\
           in r_2\n\
         }",
        "neutral element 0 of reduce has type i64, expected f64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 {\n\
           let r_2: f64 = reduce(n_0, \\(a_3: f64) : f64 -> { in a_3 }, (0.0f64), xs_1)\n\
           in r_2\n\
         }",
        "the reduce lambda takes 1 parameters, expected 2",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let r_2: f64 = scan(n_0, \\(a_3: f64, b_4: f64) : f64 -> { let c_5: f64 = add_f64(a_3, b_4) in c_5 }, (0.0f64), xs_1)\n\
           in r_2\n\
         }",
        "pattern variable r_2 has type f64, the expression gives [n_0]f64",
    );
    fails(
        "fun f [n_0] (is_1: [n_0]i32, vs_2: [n_0]f64, d_3: [5]f64) : [5]f64 {\n\
           let r_4: [5]f64 = scatter(n_0, (d_3), is_1, vs_2)\n\
           in r_4\n\
         }",
        "the indices of scatter has type [n_0]i32, expected [n_0]i64",
    );
    fails(
        "fun f [n_0] (is_1: [n_0]i64, vs_2: [n_0]f64, d_3: [5]i64) : [5]i64 {\n\
           let r_4: [5]i64 = scatter(n_0, (d_3), is_1, vs_2)\n\
           in r_4\n\
         }",
        "scatter destination d_3 has type [5]i64, expected rows of type f64",
    );
    fails(
        "fun f [n_0] (is_1: [n_0]i64, vs_2: [n_0]f64, d_3: [5]f64) : [5]f64 {\n\
           let r_4: [5]f64 = hist(n_0, (d_3), \\(a_5: f64, b_6: f64) : f64 -> { let c_7: f64 = add_f64(a_5, b_6) in c_7 }, (0.0f64, 1.0f64), is_1, vs_2)\n\
           in r_4\n\
         }",
        "hist has 2 neutral elements and 1 lambda results for 1 inputs",
    );
}

// Dimensions ----------------------------------------------------------------------------------

#[test]
fn dimensions() {
    fails(
        "fun f (x_0: f64, xs_1: [x_0]f64) : f64 { in x_0 }",
        "size x_0 in the type of parameter xs_1 has type f64, expected i64",
    );
    fails(
        "fun f (n_0: i64) : i64 { let xs_1: [m_2]f64 = scratch(f64, [m_2]) in n_0 }\nfun g (m_2: i64) : i64 { in m_2 }",
        "m_2 is used out of scope",
    );
    fails(
        "fun f (n_0: i64) : i64 { let xs_1: [3i32]f64 = scratch(f64, [3i32]) in n_0 }",
        "size 3i32 in the scratch shape has type i32, expected i64",
    );
}

// Consumption ---------------------------------------------------------------------------------

#[test]
fn use_after_consumption() {
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 {\n\
           let ys_2: [n_0]f64 = xs_1 with [0i64] = 1.0f64\n\
           let x_3: f64 = xs_1[1i64]\n\
           in x_3\n\
         }",
        "xs_1 is used after it was consumed",
    );
    // A use in a later nested body counts too.
    fails(
        "fun f [n_0] (xs_1: [n_0]f64, c_2: bool) : f64 {\n\
           let ys_3: [n_0]f64 = xs_1 with [0i64] = 1.0f64\n\
           let r_4: f64 = if c_2 then { let x_5: f64 = xs_1[0i64] in x_5 } else { in 0.0f64 } : f64\n\
           in r_4\n\
         }",
        "xs_1 is used after it was consumed",
    );
    // Consumption in a branch consumes in the enclosing body.
    fails(
        "fun f [n_0] (xs_1: [n_0]f64, c_2: bool) : f64 {\n\
           let ys_3: [n_0]f64 = if c_2 then { let y_4: [n_0]f64 = xs_1 with [0i64] = 1.0f64 in y_4 } else { in xs_1 } : [n_0]f64\n\
           let x_5: f64 = xs_1[0i64]\n\
           in x_5\n\
         }",
        "xs_1 is used after it was consumed",
    );
    fails(
        "fun f [n_0] (is_1: [n_0]i64, vs_2: [n_0]f64, d_3: [5]f64) : f64 {\n\
           let r_4: [5]f64 = scatter(n_0, (d_3), is_1, vs_2)\n\
           let x_5: f64 = d_3[0i64]\n\
           in x_5\n\
         }",
        "d_3 is used after it was consumed",
    );
    // Consuming in place and returning the new array is fine.
    passes(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = copy(xs_1)\n\
           let zs_3: [n_0]f64 = ys_2 with [0i64] = 1.0f64\n\
           let x_4: f64 = xs_1[0i64]\n\
           let ws_5: [n_0]f64 = zs_3 with [1i64] = x_4\n\
           in ws_5\n\
         }",
    );
}

#[test]
fn lambdas_and_loops_do_not_consume_free_variables() {
    fails(
        "fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : [n_0]f64 {\n\
           let zs_3: [n_0]f64 = map(n_0, \\(x_4: f64) : f64 -> {\n\
             let w_5: [n_0]f64 = ys_2 with [0i64] = x_4\n\
             in x_4\n\
           }, xs_1)\n\
           in zs_3\n\
         }",
        "the map lambda consumes ys_2, which is bound outside it",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = loop (a_3: [n_0]f64 = xs_1) for i_4: i64 < n_0 do {\n\
             let b_5: [n_0]f64 = xs_1 with [i_4] = 0.0f64\n\
             in b_5\n\
           }\n\
           in ys_2\n\
         }",
        "the loop body consumes xs_1, which is bound outside the loop",
    );
    // A loop that updates its parameter consumes the initial value.
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 {\n\
           let ys_2: [n_0]f64 = loop (a_3: [n_0]f64 = xs_1) for i_4: i64 < n_0 do {\n\
             let b_5: [n_0]f64 = a_3 with [i_4] = 0.0f64\n\
             in b_5\n\
           }\n\
           let x_6: f64 = xs_1[0i64]\n\
           in x_6\n\
         }",
        "xs_1 is used after it was consumed",
    );
}

// Accumulators --------------------------------------------------------------------------------

#[test]
fn accumulators_only_in_with_acc() {
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let (ys_2: [n_0]f64, a_3: acc([n_0], f64)) = with_acc([n_0] (xs_1), \\(acc_4: acc([n_0], f64)) : (acc([n_0], f64), acc([n_0], f64)) -> { in acc_4, acc_4 })\n\
           in ys_2\n\
         }",
        "a_3 has accumulator type acc([n_0], f64) outside a with_acc lambda",
    );
    fails(
        "fun f [n_0] (a_1: acc([n_0], f64)) : f64 { in 1.0f64 }",
        "parameter a_1 is an accumulator",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = with_acc([n_0] (xs_1), \\(acc_3: acc([n_0], i64)) : acc([n_0], i64) -> { in acc_3 })\n\
           in ys_2\n\
         }",
        "parameter acc_3 of the with_acc lambda has type acc([n_0], i64), expected acc([n_0], f64)",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = with_acc([n_0] (xs_1), \\(acc_3: acc([n_0], f64)) : acc([n_0], f64) -> {\n\
             let a_4: acc([n_0], f64) = update_acc(acc_3, [0i64], [1i64])\n\
             in a_4\n\
           })\n\
           in ys_2\n\
         }",
        "update_acc value 1i64 has type i64, expected element type f64",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : [n_0]f64 {\n\
           let ys_2: [n_0]f64 = with_acc([n_0] (xs_1), \\(acc_3: acc([n_0], f64)) : acc([n_0], f64) -> {\n\
             let a_4: acc([n_0], f64) = update_acc(acc_3, [0i64], [1.0f64])\n\
             in acc_3\n\
           })\n\
           in ys_2\n\
         }",
        "acc_3 is used after it was consumed",
    );
    fails(
        "fun f [n_0] (xs_1: [n_0]f64) : f64 {\n\
           let ys_2: [n_0]f64 = with_acc([n_0] (xs_1), \\(acc_3: acc([n_0], f64)) : acc([n_0], f64) -> { in acc_3 })\n\
           let x_4: f64 = xs_1[0i64]\n\
           in x_4\n\
         }",
        "xs_1 is used after it was consumed",
    );
}

// Result types ----------------------------------------------------------------------------------

#[test]
fn type_of_matches_the_printed_patterns() {
    use gradus::core::print::print_type;
    use gradus::core::type_of::type_of_exp;
    let p = parse_prog(
        "fun f [n_0, m_1] (xss_2: [n_0][m_1]f64, k_3: i64) : f64 {\n\
           let a_4: [m_1]f64 = xss_2[k_3]\n\
           let b_5: [k_3][m_1]f64 = xss_2[0i64 :+ k_3 * 1i64]\n\
           let c_6: [k_3]f64 = xss_2[0i64 :+ k_3 * 2i64, 1i64]\n\
           let d_7: [m_1][n_0]f64 = rearrange([1, 0], xss_2)\n\
           let e_8: [2][3][m_1]f64 = replicate([2, 3], a_4)\n\
           let g_9: [4][m_1]f64 = concat(4i64, b_5, b_5)\n\
           let h_10: [2][m_1]f64 = array([m_1]f64, [a_4, a_4])\n\
           in 1.0f64\n\
         }",
    )
    .unwrap();
    for stm in &p.funs[0].body.stms {
        let got: Vec<String> = type_of_exp(&p.names, &stm.exp)
            .iter()
            .map(|t| print_type(&p.names, t))
            .collect();
        let want: Vec<String> = stm
            .pat
            .iter()
            .map(|v| print_type(&p.names, p.names.ty(*v)))
            .collect();
        assert_eq!(got, want);
    }
    verify(&p).unwrap();
}

#[test]
fn a_nested_with_acc_may_consume_an_outer_accumulator() {
    // Reverse mode threads the accumulators of an enclosing with_acc through a nested one: the
    // nested lambda runs once, so consuming the outer accumulator there is consuming it once.
    passes(
        "fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : ([n_0]f64, [n_0]f64) {\n\
           let (a_3: [n_0]f64, b_4: [n_0]f64) = with_acc([n_0] (xs_1), \\(acc_5: acc([n_0], f64)) : (acc([n_0], f64), [n_0]f64) -> {\n\
             let (c_6: [n_0]f64, d_7: acc([n_0], f64)) = with_acc([n_0] (ys_2), \\(acc_8: acc([n_0], f64)) : (acc([n_0], f64), acc([n_0], f64)) -> {\n\
               let e_9: acc([n_0], f64) = update_acc(acc_5, [0i64], [1.0f64])\n\
               in acc_8, e_9\n\
             })\n\
             in d_7, c_6\n\
           })\n\
           in a_3, b_4\n\
         }",
    );
    // Used after the nested lambda consumed it: an error in the enclosing lambda.
    fails(
        "fun f [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : ([n_0]f64, [n_0]f64) {\n\
           let (a_3: [n_0]f64, b_4: [n_0]f64) = with_acc([n_0] (xs_1), \\(acc_5: acc([n_0], f64)) : (acc([n_0], f64), [n_0]f64) -> {\n\
             let (c_6: [n_0]f64, d_7: acc([n_0], f64)) = with_acc([n_0] (ys_2), \\(acc_8: acc([n_0], f64)) : (acc([n_0], f64), acc([n_0], f64)) -> {\n\
               let e_9: acc([n_0], f64) = update_acc(acc_5, [0i64], [1.0f64])\n\
               in acc_8, e_9\n\
             })\n\
             in acc_5, c_6\n\
           })\n\
           in a_3, b_4\n\
         }",
        "acc_5",
    );
}

#[test]
fn fused_soacs() {
    passes(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/core_ir/fused.ir"
        ))
        .unwrap(),
    );
    fails(
        r#"fun f [n_0, k_1] (xs_2: [n_0]f64, d_3: [k_1]f64) : [k_1]f64 {
  let h_4: [k_1]f64 = histomap(n_0, (d_3), \(x_5: f64) : (f64, f64) -> { in x_5, x_5 }, \(a_6: f64, b_7: f64) : f64 -> { let c_8: f64 = max_f64(a_6, b_7) in c_8 }, (0.0f64), xs_2)
  in h_4
}"#,
        "the map lambda of histomap must return an i64 index first",
    );
    fails(
        r#"fun f [n_0] (xs_1: [n_0]f64) : f64 {
  let r_2: f64 = redomap(n_0, \(x_3: f64) : i64 -> { let i_4: i64 = conv_f64_i64(x_3) in i_4 }, \(a_5: f64, b_6: f64) : f64 -> { let c_7: f64 = add_f64(a_5, b_6) in c_7 }, (0.0f64), xs_1)
  in r_2
}"#,
        "redomap",
    );
    fails(
        r#"fun f [n_0, k_1] (xs_2: [n_0]i64, d_3: [k_1]f64) : ([k_1]f64, f64) {
  let s_4: [k_1]f64 = scattermap(n_0, (d_3), \(x_5: i64) : (i64, f64) -> { let v_6: f64 = conv_i64_f64(x_5) in x_5, v_6 }, xs_2)
  let y_7: f64 = d_3[0i64]
  in s_4, y_7
}"#,
        "consumed",
    );
}
