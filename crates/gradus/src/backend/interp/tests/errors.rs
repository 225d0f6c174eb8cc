//! Interpreter tests of errors: size mismatches are reported as size errors, and malformed
//! programs (which the verifier would reject) as internal errors, never as panics.

use super::*;

#[test]
fn size_errors() {
    let mut b = B::new();
    let xs = b.var("xs", arr(PrimType::F64, &[c(3)]));
    let ys = b.var("ys", arr(PrimType::F64, &[c(2)]));
    let lit = b.var("lit", arr(PrimType::F64, &[c(2), c(3)]));
    b.fun(
        "irregular",
        &[],
        &[xs, ys],
        body(
            vec![stm(
                &[lit],
                basic(BasicOp::ArrayLit {
                    elems: vec![v(xs), v(ys)],
                    row: arr(PrimType::F64, &[c(3)]),
                }),
            )],
            &[v(lit)],
        ),
        &[],
    );
    let e = b.err("irregular", vec![f64s(&[1.0, 2.0, 3.0]), f64s(&[1.0, 2.0])]);
    assert_eq!(
        e.message,
        "value of shape [2] cannot match shape of type \"[3]f64\"."
    );

    let n = b.var("n", i64t());
    let zs = b.var("zs", arr(PrimType::F64, &[v(n)]));
    let m = b.var("m", arr(PrimType::F64, &[c(4), c(2)]));
    b.fun(
        "unflatten",
        &[n],
        &[zs],
        body(
            vec![stm(
                &[m],
                basic(BasicOp::Reshape {
                    array: zs,
                    shape: vec![c(4), c(2)],
                }),
            )],
            &[v(m)],
        ),
        &[],
    );
    let e = b.err("unflatten", vec![f64s(&[0.0; 6])]);
    assert_eq!(
        e.message,
        "value of shape [6] cannot match shape of type \"[4][2]f64\"."
    );

    let k = b.var("k", i64t());
    let ws = b.var("ws", arr(PrimType::F64, &[v(k)]));
    let co = b.var("co", arr(PrimType::F64, &[c(2)]));
    b.fun(
        "coerce",
        &[k],
        &[ws],
        body(
            vec![stm(
                &[co],
                basic(BasicOp::Coerce {
                    array: ws,
                    shape: vec![c(2)],
                    type_text: "[2]f64".into(),
                }),
            )],
            &[v(co)],
        ),
        &[],
    );
    let e = b.err("coerce", vec![f64s(&[1.0, 2.0, 3.0])]);
    assert_eq!(
        e.message,
        "value of shape [3] cannot match shape of type \"[2]f64\"."
    );
    let (out, _) = b.ok("coerce", vec![f64s(&[1.0, 2.0])]);
    assert_eq!(out, vec![f64s(&[1.0, 2.0])]);

    // map2 on arrays of different lengths.
    let p = b.var("p", arr(PrimType::F64, &[c(2)]));
    let q = b.var("q", arr(PrimType::F64, &[c(2)]));
    let (x, y, s) = (b.var("x", f64t()), b.var("y", f64t()), b.var("s", f64t()));
    let r = b.var("r", arr(PrimType::F64, &[c(2)]));
    let add = bin_lam(BinOp::Add, PrimType::F64, [x, y, s]);
    b.fun(
        "map2",
        &[],
        &[p, q],
        body(
            vec![stm(
                &[r],
                Exp::Soac(Soac::Map {
                    w: c(2),
                    lam: add,
                    arrays: vec![p, q],
                }),
            )],
            &[v(r)],
        ),
        &[],
    );
    let e = b.err("map2", vec![f64s(&[1.0, 2.0]), f64s(&[1.0, 2.0, 3.0])]);
    assert_eq!(
        e.message,
        "value of shape [3] cannot match shape of type \"[2]f64\"."
    );

    // iota with a negative count.
    let cnt = b.var("cnt", i64t());
    let io = b.var("io", arr(PrimType::I64, &[v(cnt)]));
    b.fun(
        "iota",
        &[],
        &[cnt],
        body(vec![stm(&[io], iota(v(cnt)))], &[v(io)]),
        &[],
    );
    let e = b.err("iota", vec![si(-2)]);
    assert_eq!(e.message, "Range 0..1..<-2 is invalid.");
}

#[test]
fn malformed_programs_are_internal_errors() {
    let mut b = B::new();
    let x = b.var("x", f64t());
    let y = b.var("y", f64t());
    let unbound = b.var("unbound", f64t());
    b.fun(
        "unbound",
        &[],
        &[x],
        body(
            vec![stm(
                &[y],
                prim(bin(BinOp::Add, PrimType::F64), &[v(x), v(unbound)]),
            )],
            &[v(y)],
        ),
        &[],
    );
    internal_error(&b, "unbound", vec![sf(1.0)]);

    let z = b.var("z", f64t());
    let w = b.var("w", f64t());
    b.fun(
        "badtype",
        &[],
        &[z],
        body(
            vec![stm(
                &[w],
                prim(bin(BinOp::Add, PrimType::I64), &[v(z), v(z)]),
            )],
            &[v(w)],
        ),
        &[],
    );
    internal_error(&b, "badtype", vec![sf(1.0)]);
    internal_error(&b, "badtype", vec![si(1)]);
    internal_error(&b, "badtype", vec![]);

    let a = b.var("a", f64t());
    let (p1, p2) = (b.var("p1", f64t()), b.var("p2", f64t()));
    b.fun(
        "pattern",
        &[],
        &[a],
        body(vec![stm(&[p1, p2], basic(BasicOp::SubExp(v(a))))], &[v(p1)]),
        &[],
    );
    internal_error(&b, "pattern", vec![sf(1.0)]);

    let q = b.var("q", f64t());
    let call = b.var("call", f64t());
    b.fun(
        "nofun",
        &[],
        &[q],
        body(
            vec![stm(
                &[call],
                Exp::Apply {
                    fun: "missing".into(),
                    args: vec![v(q)],
                    ret: vec![f64t()],
                },
            )],
            &[v(call)],
        ),
        &[],
    );
    internal_error(&b, "nofun", vec![sf(1.0)]);

    // A variable bound in two functions.
    let dup = b.var("dup", f64t());
    b.fun("dup1", &[], &[dup], body(vec![], &[v(dup)]), &[]);
    b.fun("dup2", &[], &[dup], body(vec![], &[v(dup)]), &[]);
    internal_error(&b, "dup2", vec![sf(1.0)]);
    let (out, _) = b.ok("dup1", vec![sf(1.0)]);
    assert_eq!(out, vec![sf(1.0)]);
}

/// Runs `name` and checks that it fails with an internal error (a malformed program).
fn internal_error(b: &B, name: &str, args: Vec<Value>) {
    let e = b.err(name, args);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);
}
