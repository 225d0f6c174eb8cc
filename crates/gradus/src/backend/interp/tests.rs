//! Interpreter tests on small core programs built by hand.

use super::*;
use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, Prog, Soac, Stm,
    SubExp, Type, Var,
};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::diag::{FileId, SourceMap, Span};
use crate::value::{Array, Buffer, PrimType, Scalar, Value};

const SOURCE: &str =
    "def main (xs: []f64) =\n  let y = xs[5]\n  in y / 0\n-- call f x\n-- call g x\n";

/// A program under construction, with a source file to point spans into.
struct B {
    prog: Prog,
    sources: SourceMap,
    file: FileId,
}

fn f64t() -> Type {
    Type::Prim(PrimType::F64)
}
fn i64t() -> Type {
    Type::Prim(PrimType::I64)
}
fn boolt() -> Type {
    Type::Prim(PrimType::Bool)
}
fn arr(elem: PrimType, dims: &[SubExp]) -> Type {
    Type::Array {
        elem,
        dims: dims.to_vec(),
    }
}
fn c(n: i64) -> SubExp {
    SubExp::i64(n)
}
fn cf(x: f64) -> SubExp {
    SubExp::Const(Scalar::F64(x))
}
fn v(x: Var) -> SubExp {
    SubExp::Var(x)
}
fn stm(pat: &[Var], exp: Exp) -> Stm {
    Stm {
        pat: pat.to_vec(),
        exp,
        aux: Aux::default(),
    }
}
fn basic(op: BasicOp) -> Exp {
    Exp::BasicOp(op)
}
fn prim(op: PrimOp, args: &[SubExp]) -> Exp {
    Exp::BasicOp(BasicOp::Prim(op, args.to_vec()))
}
fn bin(op: BinOp, t: PrimType) -> PrimOp {
    PrimOp::Bin(op, t)
}
fn body(stms: Vec<Stm>, result: &[SubExp]) -> Body {
    Body {
        stms,
        result: result.to_vec(),
    }
}
fn lam(params: &[Var], body: Body, ret: &[Type]) -> Lambda {
    Lambda {
        params: params.to_vec(),
        body,
        ret: ret.to_vec(),
    }
}
fn index(a: Var, ixs: &[SubExp]) -> Exp {
    basic(BasicOp::Index {
        array: a,
        slice: ixs.iter().map(|&i| DimIndex::Fix(i)).collect(),
    })
}
fn iota(n: SubExp) -> Exp {
    basic(BasicOp::Iota {
        n,
        start: c(0),
        stride: c(1),
        elem: PrimType::I64,
    })
}

fn f64s(xs: &[f64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::F64(xs.to_vec())))
}
fn i64s(xs: &[i64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::I64(xs.to_vec())))
}
fn mat(rows: usize, cols: usize, xs: &[f64]) -> Value {
    Value::Array(Array::new(vec![rows, cols], Buffer::F64(xs.to_vec())).expect("shape"))
}
fn sf(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}
fn si(x: i64) -> Value {
    Value::Scalar(Scalar::I64(x))
}

impl B {
    fn new() -> B {
        let mut sources = SourceMap::new();
        let file = sources.add("test.fut", SOURCE);
        B {
            prog: Prog::default(),
            sources,
            file,
        }
    }
    fn var(&mut self, hint: &str, ty: Type) -> Var {
        self.prog.names.fresh(hint, ty)
    }
    /// The span of the first occurrence of `needle` in the source.
    fn span(&self, needle: &str) -> Span {
        let start = SOURCE.find(needle).expect("needle");
        Span::new(self.file, start, start + needle.len())
    }
    fn fun(&mut self, name: &str, size_params: &[Var], params: &[Var], body: Body, ret: &[Type]) {
        self.prog.funs.push(FunDef {
            name: name.to_string(),
            size_params: size_params.to_vec(),
            params: params.to_vec(),
            body,
            ret: ret.to_vec(),
            entry: Some(EntryInfo {
                name: name.to_string(),
                params: Vec::new(),
                results: Vec::new(),
            }),
            span: self.span("def main"),
        });
    }
    fn run(&self, name: &str, args: Vec<Value>) -> (Result<Vec<Value>, RuntimeError>, OpCounter) {
        let counter = OpCounter::new();
        let fun = self.prog.fun(name).expect("function");
        let r = run_function(&self.prog, &self.sources, fun, args, &counter);
        (r, counter)
    }
    fn ok(&self, name: &str, args: Vec<Value>) -> (Vec<Value>, OpCounter) {
        let (r, c) = self.run(name, args);
        match r {
            Ok(v) => (v, c),
            Err(e) => panic!("{e}"),
        }
    }
    fn err(&self, name: &str, args: Vec<Value>) -> RuntimeError {
        match self.run(name, args).0 {
            Ok(v) => panic!("expected an error, got {v:?}"),
            Err(e) => e,
        }
    }
}

/// `dot (xs: [n]f64) (ys: [n]f64) = reduce (+) 0 (map2 (*) xs ys)`.
fn dot_program() -> B {
    let mut b = B::new();
    let n = b.var("n", i64t());
    let xs = b.var("xs", arr(PrimType::F64, &[v(n)]));
    let ys = b.var("ys", arr(PrimType::F64, &[v(n)]));
    let x = b.var("x", f64t());
    let y = b.var("y", f64t());
    let p = b.var("p", f64t());
    let prods = b.var("prods", arr(PrimType::F64, &[v(n)]));
    let a = b.var("a", f64t());
    let bb = b.var("b", f64t());
    let s = b.var("s", f64t());
    let r = b.var("r", f64t());
    let mul = lam(
        &[x, y],
        body(
            vec![stm(
                &[p],
                prim(bin(BinOp::Mul, PrimType::F64), &[v(x), v(y)]),
            )],
            &[v(p)],
        ),
        &[f64t()],
    );
    let add = lam(
        &[a, bb],
        body(
            vec![stm(
                &[s],
                prim(bin(BinOp::Add, PrimType::F64), &[v(a), v(bb)]),
            )],
            &[v(s)],
        ),
        &[f64t()],
    );
    let stms = vec![
        stm(
            &[prods],
            Exp::Soac(Soac::Map {
                w: v(n),
                lam: mul,
                arrays: vec![xs, ys],
            }),
        ),
        stm(
            &[r],
            Exp::Soac(Soac::Reduce {
                w: v(n),
                lam: add,
                neutral: vec![cf(0.0)],
                arrays: vec![prods],
                commutative: true,
            }),
        ),
    ];
    b.fun("dot", &[n], &[xs, ys], body(stms, &[v(r)]), &[f64t()]);
    b
}

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
    let add = lam(
        &[a, x],
        body(
            vec![stm(
                &[s],
                prim(bin(BinOp::Add, PrimType::F64), &[v(a), v(x)]),
            )],
            &[v(s)],
        ),
        &[f64t()],
    );
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
    let add = lam(
        &[x, y],
        body(
            vec![stm(
                &[s],
                prim(bin(BinOp::Add, PrimType::F64), &[v(x), v(y)]),
            )],
            &[v(s)],
        ),
        &[f64t()],
    );
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
    let add_i = lam(
        &[p, q],
        body(
            vec![stm(
                &[r],
                prim(bin(BinOp::Add, PrimType::I64), &[v(p), v(q)]),
            )],
            &[v(r)],
        ),
        &[i64t()],
    );
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
    let stms = vec![
        stm(
            &[le],
            prim(PrimOp::Cmp(CmpOp::Le, PrimType::I64), &[v(n), c(1)]),
        ),
        stm(
            &[r],
            Exp::If {
                cond: v(le),
                then_body: body(vec![], &[c(1)]),
                else_body,
                ret: vec![i64t()],
            },
        ),
    ];
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
    let stms = vec![
        stm(
            &[z],
            prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), &[v(n), c(0)]),
        ),
        stm(
            &[r],
            Exp::If {
                cond: v(z),
                then_body: body(vec![], &[c(0)]),
                else_body,
                ret: vec![i64t()],
            },
        ),
    ];
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
    let add = lam(
        &[x, y],
        body(
            vec![stm(
                &[s],
                prim(bin(BinOp::Add, PrimType::F64), &[v(x), v(y)]),
            )],
            &[v(s)],
        ),
        &[f64t()],
    );
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
    let e = b.err("unbound", vec![sf(1.0)]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);

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
    let e = b.err("badtype", vec![sf(1.0)]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);
    let e = b.err("badtype", vec![si(1)]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);
    let e = b.err("badtype", vec![]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);

    let a = b.var("a", f64t());
    let (p1, p2) = (b.var("p1", f64t()), b.var("p2", f64t()));
    b.fun(
        "pattern",
        &[],
        &[a],
        body(vec![stm(&[p1, p2], basic(BasicOp::SubExp(v(a))))], &[v(p1)]),
        &[],
    );
    let e = b.err("pattern", vec![sf(1.0)]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);

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
    let e = b.err("nofun", vec![sf(1.0)]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);

    // A variable bound in two functions.
    let dup = b.var("dup", f64t());
    b.fun("dup1", &[], &[dup], body(vec![], &[v(dup)]), &[]);
    b.fun("dup2", &[], &[dup], body(vec![], &[v(dup)]), &[]);
    let e = b.err("dup2", vec![sf(1.0)]);
    assert!(e.message.starts_with("internal error:"), "{}", e.message);
    let (out, _) = b.ok("dup1", vec![sf(1.0)]);
    assert_eq!(out, vec![sf(1.0)]);
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

/// A random basic operation over the variables of `pool` (often ill-typed or out of bounds).
fn random_basic(
    rng: &mut rand_pcg::Pcg64,
    names: &crate::core::ir::NameTable,
    pool: &[Var],
) -> BasicOp {
    use rand::Rng;
    let int = |rng: &mut rand_pcg::Pcg64| {
        let choices = [-2, -1, 0, 1, 2, 3, 5, i64::MAX];
        c(choices[rng.random_range(0..choices.len())])
    };
    let pick = |rng: &mut rand_pcg::Pcg64| pool[rng.random_range(0..pool.len())];
    let operand = |rng: &mut rand_pcg::Pcg64| {
        if rng.random_bool(0.7) {
            v(pool[rng.random_range(0..pool.len())])
        } else {
            int(rng)
        }
    };
    let arrays: Vec<Var> = pool
        .iter()
        .copied()
        .filter(|&x| matches!(names.ty(x), Type::Array { .. }))
        .collect();
    let array = |rng: &mut rand_pcg::Pcg64| {
        if arrays.is_empty() || rng.random_bool(0.1) {
            pool[rng.random_range(0..pool.len())]
        } else {
            arrays[rng.random_range(0..arrays.len())]
        }
    };
    let slice = |rng: &mut rand_pcg::Pcg64| -> Vec<DimIndex> {
        (0..rng.random_range(0..4))
            .map(|_| {
                if rng.random_bool(0.6) {
                    DimIndex::Fix(operand(rng))
                } else {
                    DimIndex::Slice {
                        start: operand(rng),
                        count: int(rng),
                        stride: int(rng),
                    }
                }
            })
            .collect()
    };
    let shape = |rng: &mut rand_pcg::Pcg64| -> Vec<SubExp> {
        (0..rng.random_range(0..3)).map(|_| operand(rng)).collect()
    };
    match rng.random_range(0..16) {
        0 => BasicOp::SubExp(operand(rng)),
        1 | 2 => {
            let ops = [
                bin(BinOp::Add, PrimType::F64),
                bin(BinOp::Div, PrimType::I64),
                bin(BinOp::Mod, PrimType::I64),
                bin(BinOp::Shl, PrimType::I64),
                PrimOp::Un(UnOp::Sqrt, PrimType::F64),
                PrimOp::Cmp(CmpOp::Lt, PrimType::I64),
                PrimOp::Conv(PrimType::F64, PrimType::I64),
                PrimOp::Conv(PrimType::I64, PrimType::F64),
                PrimOp::Tern(crate::core::prim::TernOp::Select, PrimType::I64),
            ];
            let op = ops[rng.random_range(0..ops.len())];
            let args = (0..op.arity()).map(|_| operand(rng)).collect();
            BasicOp::Prim(op, args)
        }
        3 | 4 => BasicOp::Index {
            array: array(rng),
            slice: slice(rng),
        },
        5 => BasicOp::Update {
            array: array(rng),
            slice: slice(rng),
            value: operand(rng),
        },
        6 => BasicOp::Iota {
            n: operand(rng),
            start: c(0),
            stride: int(rng),
            elem: PrimType::I64,
        },
        7 => BasicOp::Replicate {
            shape: shape(rng),
            value: operand(rng),
        },
        8 => BasicOp::Scratch {
            elem: PrimType::F64,
            shape: shape(rng),
        },
        9 => {
            let elems: Vec<SubExp> = (0..rng.random_range(0..3)).map(|_| operand(rng)).collect();
            let row = elems.first().map_or(f64t(), |e| names.subexp_ty(e));
            BasicOp::ArrayLit { elems, row }
        }
        10 => BasicOp::Concat {
            arrays: (0..rng.random_range(0..3)).map(|_| array(rng)).collect(),
            size: operand(rng),
        },
        11 => BasicOp::Copy(pick(rng)),
        12 => BasicOp::Reshape {
            array: array(rng),
            shape: shape(rng),
        },
        13 => {
            let r = rng.random_range(0..4);
            let mut perm: Vec<usize> = (0..r).collect();
            if r > 1 && rng.random_bool(0.5) {
                perm.swap(0, r - 1);
            }
            if rng.random_bool(0.1) {
                perm.push(7);
            }
            BasicOp::Rearrange {
                array: array(rng),
                perm,
            }
        }
        14 => BasicOp::Rotate {
            array: array(rng),
            amount: operand(rng),
        },
        _ => BasicOp::Coerce {
            array: array(rng),
            shape: shape(rng),
            type_text: String::new(),
        },
    }
}

/// Random (mostly malformed) programs run without panicking: every failure is a run-time
/// error, an internal error or a size or bounds error.
#[test]
fn random_programs_never_panic() {
    use crate::core::type_of::type_of_basic_op;
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..400 {
        let mut b = B::new();
        let n = b.var("n", i64t());
        let params = vec![
            b.var("xs", arr(PrimType::F64, &[v(n)])),
            b.var("is", arr(PrimType::I64, &[v(n)])),
            b.var("k", i64t()),
            b.var("x", f64t()),
            b.var("m", arr(PrimType::F64, &[c(2), c(3)])),
            b.var("flag", boolt()),
        ];
        let mut pool = params.clone();
        pool.push(n);
        pool.push(b.var("unbound", i64t()));
        let mut stms = Vec::new();
        for _ in 0..rng.random_range(1..10) {
            let op = random_basic(&mut rng, &b.prog.names, &pool);
            let tys = type_of_basic_op(&b.prog.names, &op);
            let pat: Vec<Var> = tys.into_iter().map(|t| b.var("t", t)).collect();
            pool.extend_from_slice(&pat);
            let exp = if rng.random_bool(0.1) {
                // Sometimes inside a map over `is`, or a loop.
                let i = b.var("i", i64t());
                let inner: Vec<Var> = pat
                    .iter()
                    .map(|&p| b.var("inner", b.prog.names.ty(p).clone()))
                    .collect();
                let ret: Vec<Type> = inner.iter().map(|&p| b.prog.names.ty(p).clone()).collect();
                let mut s = stm(&inner, basic(op));
                s.pat = inner.clone();
                let l = lam(
                    &[i],
                    body(vec![s], &inner.iter().map(|&x| v(x)).collect::<Vec<_>>()),
                    &ret,
                );
                let outs: Vec<Var> = ret.iter().map(|t| b.var("out", t.array_of(v(n)))).collect();
                pool.extend_from_slice(&outs);
                stms.push(stm(
                    &outs,
                    Exp::Soac(Soac::Map {
                        w: v(n),
                        lam: l,
                        arrays: vec![params[1]],
                    }),
                ));
                continue;
            } else {
                basic(op)
            };
            stms.push(stm(&pat, exp));
        }
        let res = pool[rng.random_range(0..pool.len())];
        b.fun("f", &[n], &params, body(stms, &[v(res)]), &[]);
        let args = vec![
            f64s(&[1.0, -2.0, 0.5]),
            i64s(&[2, -1, 7]),
            si(rng.random_range(-3..5)),
            sf(0.0),
            mat(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            Value::Scalar(Scalar::Bool(rng.random())),
        ];
        match b.run("f", args).0 {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.message.contains("panicked"), "{e}");
                failed += 1;
            }
        }
    }
    // Some programs must get through, so the generator reaches deep code.
    assert!(ok > 20 && failed > 20, "{ok} ran, {failed} failed");
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

/// Random SOACs, loops and accumulators over random operands (often ill-typed or of the
/// wrong width) run without panicking.
#[test]
fn random_soacs_never_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    let ops = [
        bin(BinOp::Add, PrimType::F64),
        bin(BinOp::Max, PrimType::I64),
        bin(BinOp::Div, PrimType::I64),
    ];
    for _ in 0..300 {
        let mut b = B::new();
        let n = b.var("n", i64t());
        let params = vec![
            b.var("xs", arr(PrimType::F64, &[v(n)])),
            b.var("is", arr(PrimType::I64, &[v(n)])),
            b.var("m", arr(PrimType::F64, &[c(2), c(3)])),
            b.var("k", i64t()),
        ];
        let pick = |rng: &mut rand_pcg::Pcg64| params[rng.random_range(0..params.len())];
        // A lambda of `np` parameters of random types applying one random operation.
        let lambda = |b: &mut B, rng: &mut rand_pcg::Pcg64, np: usize| -> Lambda {
            let tys = [f64t(), i64t(), arr(PrimType::F64, &[c(3)])];
            let ps: Vec<Var> = (0..np)
                .map(|_| b.var("p", tys[rng.random_range(0..tys.len())].clone()))
                .collect();
            let op = ops[rng.random_range(0..ops.len())];
            let r = b.var("r", Type::Prim(op.result_type()));
            let args: Vec<SubExp> = (0..2)
                .map(|_| {
                    if ps.is_empty() || rng.random_bool(0.2) {
                        c(1)
                    } else {
                        v(ps[rng.random_range(0..ps.len())])
                    }
                })
                .collect();
            let res: Vec<SubExp> = (0..(np / 2).max(1)).map(|_| v(r)).collect();
            let ret = vec![Type::Prim(op.result_type()); res.len()];
            lam(&ps, body(vec![stm(&[r], prim(op, &args))], &res), &ret)
        };
        let w = if rng.random_bool(0.8) { v(n) } else { c(2) };
        let k = rng.random_range(1..3);
        let arrays: Vec<Var> = (0..k).map(|_| pick(&mut rng)).collect();
        let neutral: Vec<SubExp> = (0..k)
            .map(|_| if rng.random_bool(0.5) { cf(0.0) } else { c(0) })
            .collect();
        let (exp, outs): (Exp, Vec<Type>) = match rng.random_range(0..6) {
            0 => (
                Exp::Soac(Soac::Map {
                    w,
                    lam: lambda(&mut b, &mut rng, k),
                    arrays,
                }),
                vec![arr(PrimType::F64, &[w])],
            ),
            1 => (
                Exp::Soac(Soac::Reduce {
                    w,
                    lam: lambda(&mut b, &mut rng, 2 * k),
                    neutral,
                    arrays,
                    commutative: false,
                }),
                vec![f64t(); k],
            ),
            2 => (
                Exp::Soac(Soac::Scan {
                    w,
                    lam: lambda(&mut b, &mut rng, 2 * k),
                    neutral,
                    arrays,
                }),
                vec![arr(PrimType::F64, &[w]); k],
            ),
            3 => (
                Exp::Soac(Soac::Hist {
                    w,
                    dests: vec![arrays[0]],
                    lam: lambda(&mut b, &mut rng, 2),
                    neutral: vec![neutral[0]],
                    indices: pick(&mut rng),
                    values: vec![pick(&mut rng)],
                }),
                vec![arr(PrimType::F64, &[w])],
            ),
            4 => (
                Exp::Soac(Soac::Scatter {
                    w,
                    dests: vec![arrays[0]],
                    indices: pick(&mut rng),
                    values: vec![pick(&mut rng)],
                }),
                vec![b.prog.names.ty(arrays[0]).clone()],
            ),
            _ => {
                let acc_ty = Type::Acc {
                    shape: vec![w],
                    elems: vec![b.prog.names.ty(arrays[0]).elem()],
                };
                let acc = b.var("acc", acc_ty.clone());
                let acc2 = b.var("acc2", acc_ty.clone());
                let upd = stm(
                    &[acc2],
                    basic(BasicOp::UpdateAcc {
                        acc,
                        indices: vec![v(params[3])],
                        values: vec![if rng.random_bool(0.5) {
                            cf(1.0)
                        } else {
                            v(pick(&mut rng))
                        }],
                    }),
                );
                (
                    Exp::WithAcc {
                        inputs: vec![(vec![w], vec![arrays[0]])],
                        lam: lam(&[acc], body(vec![upd], &[v(acc2)]), &[acc_ty]),
                    },
                    vec![b.prog.names.ty(arrays[0]).clone()],
                )
            }
        };
        let pat: Vec<Var> = outs.into_iter().map(|t| b.var("o", t)).collect();
        let res = pat.first().map_or(v(n), |&p| v(p));
        b.fun("f", &[n], &params, body(vec![stm(&pat, exp)], &[res]), &[]);
        let args = vec![
            f64s(&[1.0, -2.0, 0.5]),
            i64s(&[2, -1, 0]),
            mat(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            si(rng.random_range(-1..4)),
        ];
        if let Err(e) = b.run("f", args).0 {
            assert!(!e.message.contains("panicked"), "{e}");
        }
    }
}
