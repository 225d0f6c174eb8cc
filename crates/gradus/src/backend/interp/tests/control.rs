//! Interpreter tests of control flow: `for` and `while` loops, recursion and the call sites
//! in error traces, the call depth limit, `if` with an existential size, and fuel.

use super::*;

/// `loop (acc = 0) for i < n do acc + i` and `loop (x = 1) while x < 100 do x * 3`.
#[test]
fn for_and_while_loops() {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let acc = b.var("acc", i64t());
    let i = b.var("i", i64t());
    let acc2 = b.var("acc2", i64t());
    let res = b.var("res", i64t());
    let lp = Exp::Loop {
        params: vec![(acc, c(0))],
        form: LoopForm::For { i, bound: v(n) },
        body: body(
            vec![stm(
                &[acc2],
                prim(bin(BinOp::Add, PrimType::I64), &[v(acc), v(i)]),
            )],
            &[v(acc2)],
        ),
    };
    b.fun(
        "sum",
        &[],
        &[n],
        body(vec![stm(&[res], lp)], &[v(res)]),
        &[i64t()],
    );
    let (out, counter) = b.ok("sum", vec![si(10)]);
    assert_eq!(out, vec![si(45)]);
    assert_eq!(counter.prim_ops(), 10);
    let (out, counter) = b.ok("sum", vec![si(-3)]);
    assert_eq!(out, vec![si(0)]);
    assert_eq!(counter.prim_ops(), 0);

    let x = b.var("x", i64t());
    let go = b.var("go", boolt());
    let x2 = b.var("x2", i64t());
    let go2 = b.var("go2", boolt());
    let steps = b.var("steps", i64t());
    let steps2 = b.var("steps2", i64t());
    let rx = b.var("rx", i64t());
    let rgo = b.var("rgo", boolt());
    let rsteps = b.var("rsteps", i64t());
    let wl = Exp::Loop {
        params: vec![
            (x, c(1)),
            (go, SubExp::Const(Scalar::Bool(true))),
            (steps, c(0)),
        ],
        form: LoopForm::While { cond: go },
        body: body(
            vec![
                stm(&[x2], prim(bin(BinOp::Mul, PrimType::I64), &[v(x), c(3)])),
                stm(
                    &[go2],
                    prim(PrimOp::Cmp(CmpOp::Lt, PrimType::I64), &[v(x2), c(100)]),
                ),
                stm(
                    &[steps2],
                    prim(bin(BinOp::Add, PrimType::I64), &[v(steps), c(1)]),
                ),
            ],
            &[v(x2), v(go2), v(steps2)],
        ),
    };
    b.fun(
        "pow3",
        &[],
        &[],
        body(vec![stm(&[rx, rgo, rsteps], wl)], &[v(rx), v(rsteps)]),
        &[i64t(), i64t()],
    );
    let (out, _) = b.ok("pow3", vec![]);
    assert_eq!(out, vec![si(243), si(5)]);
}

/// A recursive function, with the call site added to error locations.
#[test]
fn recursion_and_call_sites() {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let le = b.var("le", boolt());
    let m1 = b.var("m1", i64t());
    let rec = b.var("rec", i64t());
    let prod = b.var("prod", i64t());
    let r = b.var("r", i64t());
    let else_body = body(
        vec![
            stm(&[m1], prim(bin(BinOp::Sub, PrimType::I64), &[v(n), c(1)])),
            {
                let mut s = stm(
                    &[rec],
                    Exp::Apply {
                        fun: "fact".into(),
                        args: vec![v(m1)],
                        ret: vec![i64t()],
                    },
                );
                s.aux.span = b.span("f x");
                s
            },
            stm(
                &[prod],
                prim(bin(BinOp::Mul, PrimType::I64), &[v(n), v(rec)]),
            ),
        ],
        &[v(prod)],
    );
    let stms = base_case(CmpOp::Le, n, 1, 1, [le, r], else_body);
    b.fun("fact", &[], &[n], body(stms, &[v(r)]), &[i64t()]);
    let (out, _) = b.ok("fact", vec![si(10)]);
    assert_eq!(out, vec![si(3628800)]);
    // A division by zero inside a called function: its location, then the call site.
    let mut b2 = B::new();
    let d = b2.var("d", i64t());
    let q2 = b2.var("q", i64t());
    let call_res = b2.var("res", i64t());
    let mut s = stm(&[q2], prim(bin(BinOp::Div, PrimType::I64), &[c(7), v(d)]));
    s.aux.span = b2.span("y / 0");
    b2.fun("inner", &[], &[d], body(vec![s], &[v(q2)]), &[i64t()]);
    let d_outer = b2.var("d_outer", i64t());
    let mut call = stm(
        &[call_res],
        Exp::Apply {
            fun: "inner".into(),
            args: vec![v(d_outer)],
            ret: vec![i64t()],
        },
    );
    call.aux.span = b2.span("g x");
    b2.fun(
        "outer",
        &[],
        &[d_outer],
        body(vec![call], &[v(call_res)]),
        &[i64t()],
    );
    let e = b2.err("outer", vec![si(0)]);
    assert_eq!(e.message, "division by zero");
    assert_eq!(
        e.locations,
        vec![
            "test.fut:3:6-3:10".to_string(),
            "test.fut:5:9-5:11".to_string()
        ]
    );
    let (out, _) = b2.ok("outer", vec![si(2)]);
    assert_eq!(out, vec![si(3)]);
}

#[test]
fn deep_recursion_runs_on_a_large_stack() {
    // count n = if n == 0 then 0 else 1 + count (n - 1), 10000 deep.
    let mut b = B::new();
    let n = b.var("n", i64t());
    let z = b.var("z", boolt());
    let m1 = b.var("m1", i64t());
    let rec = b.var("rec", i64t());
    let s = b.var("s", i64t());
    let r = b.var("r", i64t());
    let else_body = body(
        vec![
            stm(&[m1], prim(bin(BinOp::Sub, PrimType::I64), &[v(n), c(1)])),
            stm(
                &[rec],
                Exp::Apply {
                    fun: "count".into(),
                    args: vec![v(m1)],
                    ret: vec![i64t()],
                },
            ),
            stm(&[s], prim(bin(BinOp::Add, PrimType::I64), &[v(rec), c(1)])),
        ],
        &[v(s)],
    );
    let stms = base_case(CmpOp::Eq, n, 0, 0, [z, r], else_body);
    b.fun("count", &[], &[n], body(stms, &[v(r)]), &[i64t()]);
    let (out, _) = b.ok("count", vec![si(10_000)]);
    assert_eq!(out, vec![si(10_000)]);
    let e = b.err("count", vec![si(MAX_CALL_DEPTH as i64 + 5)]);
    assert!(
        e.message.starts_with("call depth limit exceeded"),
        "{}",
        e.message
    );
}

/// `if c then iota 3 else iota 5`, with the size returned as an existential, through one
/// prepared [`Interpreter`] called twice.
#[test]
fn if_with_an_existential_size() {
    let mut b = B::new();
    let cnd = b.var("cnd", boolt());
    let sz = b.var("sz", i64t());
    let xs = b.var("xs", arr(PrimType::I64, &[v(sz)]));
    let a = b.var("a", arr(PrimType::I64, &[c(3)]));
    let bb = b.var("b", arr(PrimType::I64, &[c(5)]));
    let stms = vec![stm(
        &[sz, xs],
        Exp::If {
            cond: v(cnd),
            then_body: body(vec![stm(&[a], iota(c(3)))], &[c(3), v(a)]),
            else_body: body(vec![stm(&[bb], iota(c(5)))], &[c(5), v(bb)]),
            ret: vec![i64t(), arr(PrimType::I64, &[v(sz)])],
        },
    )];
    b.fun("pick", &[], &[cnd], body(stms, &[v(sz), v(xs)]), &[]);
    let interp = Interpreter::new(&b.prog, &b.sources);
    let counter = OpCounter::new();
    let out = interp.call("pick", vec![Value::Scalar(Scalar::Bool(true))], &counter);
    assert_eq!(out, Ok(vec![si(3), i64s(&[0, 1, 2])]));
    let out = interp.call("pick", vec![Value::Scalar(Scalar::Bool(false))], &counter);
    assert_eq!(out, Ok(vec![si(5), i64s(&[0, 1, 2, 3, 4])]));
    assert_eq!(counter.elements_built(), 8);
    counter.reset();
    assert_eq!(counter.total(), 0);
}

#[test]
fn fuel_stops_endless_loops() {
    let mut b = B::new();
    let go = b.var("go", boolt());
    let go2 = b.var("go2", boolt());
    let r = b.var("r", boolt());
    let wl = Exp::Loop {
        params: vec![(go, SubExp::Const(Scalar::Bool(true)))],
        form: LoopForm::While { cond: go },
        body: body(vec![stm(&[go2], basic(BasicOp::SubExp(v(go))))], &[v(go2)]),
    };
    b.fun("forever", &[], &[], body(vec![stm(&[r], wl)], &[v(r)]), &[]);
    let interp = Interpreter::new(&b.prog, &b.sources).with_fuel(10_000);
    let e = interp
        .call("forever", vec![], &OpCounter::new())
        .expect_err("runs out of fuel");
    assert!(e.message.starts_with("out of fuel"), "{}", e.message);
}

/// `let t = n cmp k; let r = if t then base else else_body`: a recursive `i64` function's
/// test of its base case.
fn base_case(cmp: CmpOp, n: Var, k: i64, base: i64, [t, r]: [Var; 2], else_body: Body) -> Vec<Stm> {
    let if_ = Exp::If {
        cond: v(t),
        then_body: body(vec![], &[c(base)]),
        else_body,
        ret: vec![i64t()],
    };
    vec![
        stm(&[t], prim(PrimOp::Cmp(cmp, PrimType::I64), &[v(n), c(k)])),
        stm(&[r], if_),
    ]
}
