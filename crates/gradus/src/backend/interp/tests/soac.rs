//! Interpreter tests of SOACs: `hist` and `scatter` (out-of-range indices ignored), nested
//! maps with free variables, `reduce` and `scan` over tuples and arrays, accumulators.

use super::*;

/// `hist (+) 0 3 [0, 2, 2, 5] [1.0, 2.0, 3.0, 4.0] == [1.0, 0.0, 5.0]` and
/// `scatter (replicate 4 0) [1, 3, 9, 1] [10, 30, 90, 11] == [0, 11, 0, 30]`.
#[test]
fn hist_and_scatter_ignore_out_of_range() {
    let mut b = B::new();
    let is = b.var("is", arr(PrimType::I64, &[c(4)]));
    let vs = b.var("vs", arr(PrimType::F64, &[c(4)]));
    let dst = b.var("dst", arr(PrimType::F64, &[c(3)]));
    let h = b.var("h", arr(PrimType::F64, &[c(3)]));
    let a = b.var("a", f64t());
    let x = b.var("x", f64t());
    let s = b.var("s", f64t());
    let add = bin_lam(BinOp::Add, PrimType::F64, [a, x, s]);
    let stms = vec![
        stm(
            &[dst],
            basic(BasicOp::Replicate {
                shape: vec![c(3)],
                value: cf(0.0),
            }),
        ),
        stm(
            &[h],
            Exp::Soac(Soac::Hist {
                w: c(4),
                dests: vec![dst],
                lam: add,
                neutral: vec![cf(0.0)],
                indices: is,
                values: vec![vs],
            }),
        ),
    ];
    b.fun("hist", &[], &[is, vs], body(stms, &[v(h)]), &[]);
    let (out, counter) = b.ok(
        "hist",
        vec![i64s(&[0, 2, 2, 5]), f64s(&[1.0, 2.0, 3.0, 4.0])],
    );
    assert_eq!(out, vec![f64s(&[1.0, 0.0, 5.0])]);
    assert_eq!(counter.prim_ops(), 3);
    assert_eq!(counter.elements_built(), 3);
    assert_eq!(counter.copies_on_write(), 0);

    let is2 = b.var("is", arr(PrimType::I64, &[c(4)]));
    let vs2 = b.var("vs", arr(PrimType::I64, &[c(4)]));
    let d2 = b.var("d", arr(PrimType::I64, &[c(4)]));
    let r2 = b.var("r", arr(PrimType::I64, &[c(4)]));
    let stms = vec![
        stm(
            &[d2],
            basic(BasicOp::Replicate {
                shape: vec![c(4)],
                value: c(0),
            }),
        ),
        stm(
            &[r2],
            Exp::Soac(Soac::Scatter {
                w: c(4),
                dests: vec![d2],
                indices: is2,
                values: vec![vs2],
            }),
        ),
    ];
    b.fun("scatter", &[], &[is2, vs2], body(stms, &[v(r2)]), &[]);
    let (out, counter) = b.ok(
        "scatter",
        vec![i64s(&[1, 3, 9, 1]), i64s(&[10, 30, 90, 11])],
    );
    assert_eq!(out, vec![i64s(&[0, 11, 0, 30])]);
    assert_eq!(counter.element_writes(), 3);
    let e = b.err("scatter", vec![i64s(&[1, 3, 9]), i64s(&[10, 30, 90, 11])]);
    assert_eq!(
        e.message,
        "value of shape [3] cannot match shape of type \"[4]i64\"."
    );
}

/// `map (\row -> map (\x -> x * s) row) m` with `s` free, and a map with two results.
#[test]
fn nested_maps_with_free_variables() {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let k = b.var("k", i64t());
    let m = b.var("m", arr(PrimType::F64, &[v(n), v(k)]));
    let s = b.var("s", f64t());
    let row = b.var("row", arr(PrimType::F64, &[v(k)]));
    let x = b.var("x", f64t());
    let y = b.var("y", f64t());
    let neg = b.var("neg", f64t());
    let ys = b.var("ys", arr(PrimType::F64, &[v(k)]));
    let negs = b.var("negs", arr(PrimType::F64, &[v(k)]));
    let out = b.var("out", arr(PrimType::F64, &[v(n), v(k)]));
    let outneg = b.var("outneg", arr(PrimType::F64, &[v(n), v(k)]));
    let inner = lam(
        &[x],
        body(
            vec![
                stm(&[y], prim(bin(BinOp::Mul, PrimType::F64), &[v(x), v(s)])),
                stm(&[neg], prim(PrimOp::Un(UnOp::Neg, PrimType::F64), &[v(y)])),
            ],
            &[v(y), v(neg)],
        ),
        &[f64t(), f64t()],
    );
    let outer = lam(
        &[row],
        body(
            vec![stm(
                &[ys, negs],
                Exp::Soac(Soac::Map {
                    w: v(k),
                    lam: inner,
                    arrays: vec![row],
                }),
            )],
            &[v(ys), v(negs)],
        ),
        &[arr(PrimType::F64, &[v(k)]), arr(PrimType::F64, &[v(k)])],
    );
    let stms = vec![stm(
        &[out, outneg],
        Exp::Soac(Soac::Map {
            w: v(n),
            lam: outer,
            arrays: vec![m],
        }),
    )];
    b.fun(
        "scale",
        &[n, k],
        &[m, s],
        body(stms, &[v(out), v(outneg)]),
        &[],
    );
    let (res, counter) = b.ok(
        "scale",
        vec![mat(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), sf(2.0)],
    );
    assert_eq!(
        res,
        vec![
            mat(2, 3, &[2.0, 4.0, 6.0, 8.0, 10.0, 12.0]),
            mat(2, 3, &[-2.0, -4.0, -6.0, -8.0, -10.0, -12.0]),
        ]
    );
    assert_eq!(counter.prim_ops(), 12);
    // An empty outer dimension keeps the inner size from the pattern's type.
    let empty = Value::Array(Array::new(vec![0, 3], Buffer::F64(vec![])).expect("shape"));
    let (res, _) = b.ok("scale", vec![empty.clone(), sf(2.0)]);
    assert_eq!(res, vec![empty.clone(), empty]);
}

/// Reduce with a two-value operator (arg-max) and with an array-valued operator (sum of rows),
/// and an inclusive scan.
#[test]
fn reduce_and_scan_with_tuples_and_arrays() {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let xs = b.var("xs", arr(PrimType::F64, &[v(n)]));
    let is = b.var("is", arr(PrimType::I64, &[v(n)]));
    let (av, ai, bv, bi) = (
        b.var("av", f64t()),
        b.var("ai", i64t()),
        b.var("bv", f64t()),
        b.var("bi", i64t()),
    );
    let gt = b.var("gt", boolt());
    let rv = b.var("rv", f64t());
    let ri = b.var("ri", i64t());
    let sel_v = PrimOp::Tern(crate::core::prim::TernOp::Select, PrimType::F64);
    let sel_i = PrimOp::Tern(crate::core::prim::TernOp::Select, PrimType::I64);
    let argmax = lam(
        &[av, ai, bv, bi],
        body(
            vec![
                stm(
                    &[gt],
                    prim(PrimOp::Cmp(CmpOp::Gt, PrimType::F64), &[v(bv), v(av)]),
                ),
                stm(&[rv], prim(sel_v, &[v(gt), v(bv), v(av)])),
                stm(&[ri], prim(sel_i, &[v(gt), v(bi), v(ai)])),
            ],
            &[v(rv), v(ri)],
        ),
        &[f64t(), i64t()],
    );
    let (mv, mi) = (b.var("mv", f64t()), b.var("mi", i64t()));
    let stms = vec![
        stm(&[is], iota(v(n))),
        stm(
            &[mv, mi],
            Exp::Soac(Soac::Reduce {
                w: v(n),
                lam: argmax,
                neutral: vec![cf(f64::NEG_INFINITY), c(-1)],
                arrays: vec![xs, is],
                commutative: false,
            }),
        ),
    ];
    b.fun("argmax", &[n], &[xs], body(stms, &[v(mv), v(mi)]), &[]);
    let (res, counter) = b.ok("argmax", vec![f64s(&[3.0, 9.0, 1.0, 9.0])]);
    assert_eq!(res, vec![sf(9.0), si(1)]);
    assert_eq!(counter.prim_ops(), 12);
    assert_eq!(counter.elements_built(), 4);
    let (res, _) = b.ok("argmax", vec![f64s(&[])]);
    assert_eq!(res, vec![sf(f64::NEG_INFINITY), si(-1)]);

    // Sum of the rows of a matrix, with `map2 (+)` as the operator.
    let n = b.var("n", i64t());
    let k = b.var("k", i64t());
    let m = b.var("m", arr(PrimType::F64, &[v(n), v(k)]));
    let ra = b.var("ra", arr(PrimType::F64, &[v(k)]));
    let rb = b.var("rb", arr(PrimType::F64, &[v(k)]));
    let (x, y, s) = (b.var("x", f64t()), b.var("y", f64t()), b.var("s", f64t()));
    let rs = b.var("rs", arr(PrimType::F64, &[v(k)]));
    let z = b.var("z", arr(PrimType::F64, &[v(k)]));
    let tot = b.var("tot", arr(PrimType::F64, &[v(k)]));
    let add = bin_lam(BinOp::Add, PrimType::F64, [x, y, s]);
    let rowadd = lam(
        &[ra, rb],
        body(
            vec![stm(
                &[rs],
                Exp::Soac(Soac::Map {
                    w: v(k),
                    lam: add,
                    arrays: vec![ra, rb],
                }),
            )],
            &[v(rs)],
        ),
        &[arr(PrimType::F64, &[v(k)])],
    );
    let stms = vec![
        stm(
            &[z],
            basic(BasicOp::Replicate {
                shape: vec![v(k)],
                value: cf(0.0),
            }),
        ),
        stm(
            &[tot],
            Exp::Soac(Soac::Reduce {
                w: v(n),
                lam: rowadd,
                neutral: vec![v(z)],
                arrays: vec![m],
                commutative: true,
            }),
        ),
    ];
    b.fun("colsums", &[n, k], &[m], body(stms, &[v(tot)]), &[]);
    let (res, _) = b.ok("colsums", vec![mat(3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]);
    assert_eq!(res, vec![f64s(&[9.0, 12.0])]);

    // scan (+) 0 [1, 2, 3] == [1, 3, 6]
    let n = b.var("n", i64t());
    let (p, q, r) = (b.var("p", i64t()), b.var("q", i64t()), b.var("r", i64t()));
    let ys = b.var("ys", arr(PrimType::I64, &[v(n)]));
    let sc = b.var("sc", arr(PrimType::I64, &[v(n)]));
    let add_i = bin_lam(BinOp::Add, PrimType::I64, [p, q, r]);
    let stms = vec![stm(
        &[sc],
        Exp::Soac(Soac::Scan {
            w: v(n),
            lam: add_i,
            neutral: vec![c(0)],
            arrays: vec![ys],
        }),
    )];
    b.fun("scan", &[n], &[ys], body(stms, &[v(sc)]), &[]);
    let (res, _) = b.ok("scan", vec![i64s(&[1, 2, 3])]);
    assert_eq!(res, vec![i64s(&[1, 3, 6])]);
    let (res, _) = b.ok("scan", vec![i64s(&[])]);
    assert_eq!(res, vec![i64s(&[])]);
}

/// `with_acc` around a map that adds `vs[j]` at `is[j]` (out-of-range ignored).
#[test]
fn accumulators_add_into_arrays() {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let is = b.var("is", arr(PrimType::I64, &[v(n)]));
    let vs = b.var("vs", arr(PrimType::F64, &[v(n)]));
    let dst = b.var("dst", arr(PrimType::F64, &[c(3)]));
    let acc_ty = Type::Acc {
        shape: vec![c(3)],
        elems: vec![PrimType::F64],
    };
    let acc = b.var("acc", acc_ty.clone());
    let acc_in = b.var("acc_in", acc_ty.clone());
    let i = b.var("i", i64t());
    let x = b.var("x", f64t());
    let acc_out = b.var("acc_out", acc_ty.clone());
    let acc_fin = b.var("acc_fin", acc_ty.clone());
    let res = b.var("res", arr(PrimType::F64, &[c(3)]));
    let upd = lam(
        &[i, x, acc_in],
        body(
            vec![stm(
                &[acc_out],
                basic(BasicOp::UpdateAcc {
                    acc: acc_in,
                    indices: vec![v(i)],
                    values: vec![v(x)],
                }),
            )],
            &[v(acc_out)],
        ),
        std::slice::from_ref(&acc_ty),
    );
    let body_acc = lam(
        &[acc],
        body(
            vec![stm(
                &[acc_fin],
                Exp::Soac(Soac::Map {
                    w: v(n),
                    lam: upd,
                    arrays: vec![is, vs, acc],
                }),
            )],
            &[v(acc_fin)],
        ),
        &[acc_ty],
    );
    let stms = vec![
        stm(
            &[dst],
            basic(BasicOp::Replicate {
                shape: vec![c(3)],
                value: cf(1.0),
            }),
        ),
        stm(
            &[res],
            Exp::WithAcc {
                inputs: vec![(vec![c(3)], vec![dst])],
                lam: body_acc,
            },
        ),
    ];
    b.fun("acc", &[n], &[is, vs], body(stms, &[v(res)]), &[]);
    let (out, counter) = b.ok(
        "acc",
        vec![i64s(&[0, 2, 2, -1, 3]), f64s(&[1.0, 2.0, 3.0, 4.0, 5.0])],
    );
    assert_eq!(out, vec![f64s(&[2.0, 1.0, 6.0])]);
    assert_eq!(counter.element_writes(), 3);
    assert_eq!(counter.prim_ops(), 3);
    assert_eq!(counter.copies_on_write(), 0);
}
