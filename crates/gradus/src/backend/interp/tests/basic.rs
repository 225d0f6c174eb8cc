//! Interpreter tests of basic operations: a dot product and its cost, size parameters,
//! indexing, slicing and in-place updates with their errors and locations, assertions,
//! array constructors and the elements they build, `rearrange`.

use super::*;

#[test]
fn dot_product_and_its_cost() {
    let b = dot_program();
    let (out, counter) = b.ok("dot", vec![f64s(&[1.0, 2.0, 3.0]), f64s(&[4.0, 5.0, 6.0])]);
    assert_eq!(out, vec![sf(32.0)]);
    // Three multiplications and three additions; nothing else is counted.
    assert_eq!(counter.prim_ops(), 6);
    assert_eq!(counter.total(), 6);
    let (out, counter) = b.ok("dot", vec![f64s(&[]), f64s(&[])]);
    assert_eq!(out, vec![sf(0.0)]);
    assert_eq!(counter.total(), 0);
}

#[test]
fn size_parameters_are_checked() {
    let b = dot_program();
    let e = b.err("dot", vec![f64s(&[1.0, 2.0, 3.0]), f64s(&[4.0, 5.0])]);
    assert_eq!(
        e.message,
        "value of shape [2] cannot match shape of type \"[3]f64\"."
    );
    assert_eq!(e.locations, vec!["test.fut:1:1-1:8".to_string()]);
}

#[test]
fn index_errors_have_messages_and_locations() {
    let mut b = B::new();
    let xs = b.var("xs", arr(PrimType::F64, &[c(4)]));
    let m = b.var("m", arr(PrimType::F64, &[c(2), c(4)]));
    let i = b.var("i", i64t());
    let j = b.var("j", i64t());
    let y = b.var("y", f64t());
    let z = b.var("z", f64t());
    let sl = b.var("sl", arr(PrimType::F64, &[c(7)]));
    let mut s1 = stm(&[y], index(xs, &[v(i)]));
    s1.aux.span = b.span("xs[5]");
    s1.aux.callers = vec![b.span("f x"), b.span("g x")];
    b.fun("one", &[], &[xs, i], body(vec![s1], &[v(y)]), &[f64t()]);
    let i2 = b.var("i2", i64t());
    let s2 = stm(&[z], index(m, &[v(i2), v(j)]));
    b.fun("two", &[], &[m, i2, j], body(vec![s2], &[v(z)]), &[f64t()]);
    let xs3 = b.var("xs3", arr(PrimType::F64, &[c(4)]));
    let i3 = b.var("i3", i64t());
    let s3 = stm(
        &[sl],
        basic(BasicOp::Index {
            array: xs3,
            slice: vec![DimIndex::Slice {
                start: v(i3),
                count: c(7),
                stride: c(1),
            }],
        }),
    );
    b.fun("slice", &[], &[xs3, i3], body(vec![s3], &[v(sl)]), &[]);

    let xs4 = f64s(&[1.0, 2.0, 3.0, 4.0]);
    let e = b.err("one", vec![xs4.clone(), si(5)]);
    assert_eq!(e.message, "Index [5] out of bounds for array of shape [4].");
    assert_eq!(
        e.locations,
        vec![
            "test.fut:2:11-2:15".to_string(),
            "test.fut:4:9-4:11".to_string(),
            "test.fut:5:9-5:11".to_string()
        ]
    );
    let e = b.err("one", vec![xs4.clone(), si(-1)]);
    assert_eq!(
        e.message,
        "Index [-1] out of bounds for array of shape [4]."
    );
    let (out, counter) = b.ok("one", vec![xs4.clone(), si(3)]);
    assert_eq!(out, vec![sf(4.0)]);
    assert_eq!(counter.element_reads(), 1);

    let m24 = mat(2, 4, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let e = b.err("two", vec![m24.clone(), si(1), si(7)]);
    assert_eq!(
        e.message,
        "Index [1, 7] out of bounds for array of shape [2][4]."
    );
    let (out, _) = b.ok("two", vec![m24, si(1), si(2)]);
    assert_eq!(out, vec![sf(6.0)]);

    let e = b.err("slice", vec![xs4, si(2)]);
    assert_eq!(
        e.message,
        "Index [2:9] out of bounds for array of shape [4]."
    );
}

#[test]
fn slices_rows_and_strides() {
    let mut b = B::new();
    let m = b.var("m", arr(PrimType::F64, &[c(3), c(4)]));
    let r = b.var("r", arr(PrimType::F64, &[c(4)]));
    let col = b.var("col", arr(PrimType::F64, &[c(3)]));
    let sub = b.var("sub", arr(PrimType::F64, &[c(2), c(2)]));
    let rev = b.var("rev", arr(PrimType::F64, &[c(3)]));
    let stms = vec![
        stm(&[r], index(m, &[c(1)])),
        stm(
            &[col],
            basic(BasicOp::Index {
                array: m,
                slice: vec![
                    DimIndex::Slice {
                        start: c(0),
                        count: c(3),
                        stride: c(1),
                    },
                    DimIndex::Fix(c(2)),
                ],
            }),
        ),
        stm(
            &[sub],
            basic(BasicOp::Index {
                array: m,
                slice: vec![
                    DimIndex::Slice {
                        start: c(2),
                        count: c(2),
                        stride: c(-2),
                    },
                    DimIndex::Slice {
                        start: c(1),
                        count: c(2),
                        stride: c(2),
                    },
                ],
            }),
        ),
        stm(
            &[rev],
            basic(BasicOp::Index {
                array: r,
                slice: vec![DimIndex::Slice {
                    start: c(3),
                    count: c(3),
                    stride: c(-1),
                }],
            }),
        ),
    ];
    b.fun(
        "f",
        &[],
        &[m],
        body(stms, &[v(r), v(col), v(sub), v(rev)]),
        &[],
    );
    let m34: Vec<f64> = (0..12).map(|x| x as f64).collect();
    let (out, counter) = b.ok("f", vec![mat(3, 4, &m34)]);
    assert_eq!(
        out,
        vec![
            f64s(&[4.0, 5.0, 6.0, 7.0]),
            f64s(&[2.0, 6.0, 10.0]),
            mat(2, 2, &[9.0, 11.0, 1.0, 3.0]),
            f64s(&[7.0, 6.0, 5.0]),
        ]
    );
    assert_eq!(counter.element_reads(), 4 + 3 + 4 + 3);
}

/// `loop (xs) for i < n do xs with [i] = f64.i64 i`: updates in place.
#[test]
fn in_place_updates_do_not_copy() {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let xs0 = b.var("xs0", arr(PrimType::F64, &[v(n)]));
    let xs = b.var("xs", arr(PrimType::F64, &[v(n)]));
    let i = b.var("i", i64t());
    let x = b.var("x", f64t());
    let xs2 = b.var("xs2", arr(PrimType::F64, &[v(n)]));
    let out = b.var("out", arr(PrimType::F64, &[v(n)]));
    let lp = Exp::Loop {
        params: vec![(xs, v(xs0))],
        form: LoopForm::For { i, bound: v(n) },
        body: body(
            vec![
                stm(
                    &[x],
                    prim(PrimOp::Conv(PrimType::I64, PrimType::F64), &[v(i)]),
                ),
                stm(
                    &[xs2],
                    basic(BasicOp::Update {
                        array: xs,
                        slice: vec![DimIndex::Fix(v(i))],
                        value: v(x),
                    }),
                ),
            ],
            &[v(xs2)],
        ),
    };
    let stms = vec![
        stm(
            &[xs0],
            basic(BasicOp::Scratch {
                elem: PrimType::F64,
                shape: vec![v(n)],
            }),
        ),
        stm(&[out], lp),
    ];
    b.fun("fill", &[n], &[n], body(stms, &[v(out)]), &[]);
    let (res, counter) = b.ok("fill", vec![si(1000)]);
    let want: Vec<f64> = (0..1000).map(|x| x as f64).collect();
    assert_eq!(res, vec![f64s(&want)]);
    assert_eq!(counter.element_writes(), 1000);
    assert_eq!(counter.prim_ops(), 1000);
    // The scratch array is still held by `xs0` when the loop starts: one copy, then none.
    assert!(
        counter.copies_on_write() <= 1,
        "{}",
        counter.copies_on_write()
    );
}

#[test]
fn asserts_fill_their_templates() {
    let mut b = B::new();
    let lo = b.var("lo", i64t());
    let hi = b.var("hi", i64t());
    let ok = b.var("ok", boolt());
    let stms = vec![
        stm(
            &[ok],
            prim(PrimOp::Cmp(CmpOp::Le, PrimType::I64), &[v(lo), v(hi)]),
        ),
        stm(
            &[],
            basic(BasicOp::Assert {
                cond: v(ok),
                message: "Range {}..<{} is invalid.".into(),
                args: vec![v(lo), v(hi)],
            }),
        ),
    ];
    b.fun("range", &[], &[lo, hi], body(stms, &[v(hi)]), &[i64t()]);
    let e = b.err("range", vec![si(5), si(1)]);
    assert_eq!(e.message, "Range 5..<1 is invalid.");
    let (out, _) = b.ok("range", vec![si(1), si(5)]);
    assert_eq!(out, vec![si(5)]);
}

#[test]
fn constructors_and_their_counts() {
    let mut b = B::new();
    let xs = b.var("xs", arr(PrimType::I64, &[c(3)]));
    let ys = b.var("ys", arr(PrimType::I64, &[c(2)]));
    let cat = b.var("cat", arr(PrimType::I64, &[c(5)]));
    let rot = b.var("rot", arr(PrimType::I64, &[c(5)]));
    let rotn = b.var("rotn", arr(PrimType::I64, &[c(5)]));
    let cat6 = b.var("cat6", arr(PrimType::I64, &[c(6)]));
    let m = b.var("m", arr(PrimType::I64, &[c(2), c(3)]));
    let t = b.var("t", arr(PrimType::I64, &[c(3), c(2)]));
    let flat = b.var("flat", arr(PrimType::I64, &[c(6)]));
    let lit = b.var("lit", arr(PrimType::I64, &[c(2), c(3)]));
    let cp = b.var("cp", arr(PrimType::I64, &[c(3)]));
    let rep = b.var("rep", arr(PrimType::I64, &[c(2), c(3)]));
    let it = b.var("it", arr(PrimType::I32, &[c(4)]));
    let stms = vec![
        stm(
            &[cat],
            basic(BasicOp::Concat {
                arrays: vec![xs, ys],
                size: c(5),
            }),
        ),
        stm(
            &[rot],
            basic(BasicOp::Rotate {
                array: cat,
                amount: c(2),
            }),
        ),
        stm(
            &[rotn],
            basic(BasicOp::Rotate {
                array: cat,
                amount: c(-1),
            }),
        ),
        stm(
            &[cat6],
            basic(BasicOp::Concat {
                arrays: vec![xs, xs],
                size: c(6),
            }),
        ),
        stm(
            &[m],
            basic(BasicOp::Reshape {
                array: cat6,
                shape: vec![c(2), c(3)],
            }),
        ),
        stm(
            &[t],
            basic(BasicOp::Rearrange {
                array: m,
                perm: vec![1, 0],
            }),
        ),
        stm(
            &[flat],
            basic(BasicOp::Reshape {
                array: t,
                shape: vec![c(6)],
            }),
        ),
        stm(
            &[lit],
            basic(BasicOp::ArrayLit {
                elems: vec![v(xs), v(xs)],
                row: arr(PrimType::I64, &[c(3)]),
            }),
        ),
        stm(&[cp], basic(BasicOp::Copy(xs))),
        stm(
            &[rep],
            basic(BasicOp::Replicate {
                shape: vec![c(2)],
                value: v(xs),
            }),
        ),
        stm(
            &[it],
            basic(BasicOp::Iota {
                n: c(4),
                start: SubExp::Const(Scalar::I32(10)),
                stride: SubExp::Const(Scalar::I32(-3)),
                elem: PrimType::I32,
            }),
        ),
    ];
    b.fun(
        "build",
        &[],
        &[xs, ys],
        body(
            stms,
            &[
                v(cat),
                v(rot),
                v(rotn),
                v(t),
                v(flat),
                v(lit),
                v(cp),
                v(rep),
                v(it),
            ],
        ),
        &[],
    );
    let (out, counter) = b.ok("build", vec![i64s(&[1, 2, 3]), i64s(&[4, 5])]);
    let m2 = |r: usize, c: usize, xs: &[i64]| {
        Value::Array(Array::new(vec![r, c], Buffer::I64(xs.to_vec())).expect("shape"))
    };
    assert_eq!(
        out,
        vec![
            i64s(&[1, 2, 3, 4, 5]),
            i64s(&[3, 4, 5, 1, 2]),
            i64s(&[5, 1, 2, 3, 4]),
            m2(3, 2, &[1, 1, 2, 2, 3, 3]),
            i64s(&[1, 1, 2, 2, 3, 3]),
            m2(2, 3, &[1, 2, 3, 1, 2, 3]),
            i64s(&[1, 2, 3]),
            m2(2, 3, &[1, 2, 3, 1, 2, 3]),
            Value::Array(Array::from_buffer(Buffer::I32(vec![10, 7, 4, 1]))),
        ]
    );
    // concat 5 + 6, rotate 5 + 5, transpose 6, literal 6, copy 3, replicate 6, iota 4.
    assert_eq!(counter.elements_built(), 11 + 10 + 6 + 6 + 3 + 6 + 4);
    assert_eq!(
        counter.prim_ops() + counter.element_reads() + counter.element_writes(),
        0
    );

    let e = b.err("build", vec![i64s(&[1, 2, 3]), i64s(&[4, 5, 6])]);
    assert_eq!(
        e.message,
        "value of shape [3] cannot match shape of type \"[2]i64\"."
    );
}

#[test]
fn slice_updates_and_their_errors() {
    let mut b = B::new();
    let xs = b.var("xs", arr(PrimType::F64, &[c(4)]));
    let vs = b.var("vs", arr(PrimType::F64, &[c(2)]));
    let start = b.var("start", i64t());
    let ys = b.var("ys", arr(PrimType::F64, &[c(4)]));
    let stms = vec![stm(
        &[ys],
        basic(BasicOp::Update {
            array: xs,
            slice: vec![DimIndex::Slice {
                start: v(start),
                count: c(2),
                stride: c(2),
            }],
            value: v(vs),
        }),
    )];
    b.fun("upd", &[], &[xs, vs, start], body(stms, &[v(ys)]), &[]);
    let (out, counter) = b.ok(
        "upd",
        vec![f64s(&[0.0, 1.0, 2.0, 3.0]), f64s(&[8.0, 9.0]), si(1)],
    );
    assert_eq!(out, vec![f64s(&[0.0, 8.0, 2.0, 9.0])]);
    assert_eq!(counter.element_writes(), 2);
    // The argument was moved into the call: updated in place.
    assert_eq!(counter.copies_on_write(), 0);
    let e = b.err(
        "upd",
        vec![f64s(&[0.0, 1.0, 2.0, 3.0]), f64s(&[8.0, 9.0]), si(2)],
    );
    assert_eq!(
        e.message,
        "Index [2:6:2] out of bounds for array of shape [4]."
    );

    // A row of a matrix, with a value of the wrong size.
    let m = b.var("m", arr(PrimType::F64, &[c(2), c(3)]));
    let k = b.var("k", i64t());
    let row = b.var("row", arr(PrimType::F64, &[v(k)]));
    let m2 = b.var("m2", arr(PrimType::F64, &[c(2), c(3)]));
    let stms = vec![stm(
        &[m2],
        basic(BasicOp::Update {
            array: m,
            slice: vec![DimIndex::Fix(c(1))],
            value: v(row),
        }),
    )];
    b.fun("setrow", &[k], &[m, row], body(stms, &[v(m2)]), &[]);
    let (out, _) = b.ok("setrow", vec![mat(2, 3, &[0.0; 6]), f64s(&[1.0, 2.0, 3.0])]);
    assert_eq!(out, vec![mat(2, 3, &[0.0, 0.0, 0.0, 1.0, 2.0, 3.0])]);
    let e = b.err("setrow", vec![mat(2, 3, &[0.0; 6]), f64s(&[1.0, 2.0])]);
    assert_eq!(
        e.message,
        "value of shape [2] cannot match shape of type \"[3]f64\"."
    );
}

#[test]
fn rearrange_in_three_dimensions() {
    let mut b = B::new();
    let a = b.var("a", arr(PrimType::I64, &[c(2), c(3), c(4)]));
    let t = b.var("t", arr(PrimType::I64, &[c(4), c(2), c(3)]));
    let stms = vec![stm(
        &[t],
        basic(BasicOp::Rearrange {
            array: a,
            perm: vec![2, 0, 1],
        }),
    )];
    b.fun("perm", &[], &[a], body(stms, &[v(t)]), &[]);
    let data: Vec<i64> = (0..24).collect();
    let input = Value::Array(Array::new(vec![2, 3, 4], Buffer::I64(data)).expect("shape"));
    let (out, counter) = b.ok("perm", vec![input]);
    // t[i][j][k] = a[j][k][i] = 12 j + 4 k + i.
    let mut want = Vec::new();
    for i in 0..4 {
        for j in 0..2 {
            for k in 0..3 {
                want.push(12 * j + 4 * k + i);
            }
        }
    }
    let want = Value::Array(Array::new(vec![4, 2, 3], Buffer::I64(want)).expect("shape"));
    assert_eq!(out, vec![want]);
    assert_eq!(counter.elements_built(), 24);
}
