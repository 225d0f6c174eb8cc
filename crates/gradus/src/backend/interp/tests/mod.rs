//! Interpreter tests on small core programs built by hand: the program builder [`B`] and
//! the constructors the themed test files share.

use super::*;
use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, Prog, Soac, Stm,
    SubExp, Type, Var,
};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::diag::{FileId, SourceMap, Span};
use crate::value::{Array, Buffer, PrimType, Scalar, Value};

mod basic;
mod control;
mod errors;
mod random;
mod soac;

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
/// `\(x, y) -> r` where `r = x op y`, all of type `t`.
fn bin_lam(op: BinOp, t: PrimType, [x, y, r]: [Var; 3]) -> Lambda {
    let b = body(vec![stm(&[r], prim(bin(op, t), &[v(x), v(y)]))], &[v(r)]);
    lam(&[x, y], b, &[Type::Prim(t)])
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
    let mul = bin_lam(BinOp::Mul, PrimType::F64, [x, y, p]);
    let add = bin_lam(BinOp::Add, PrimType::F64, [a, bb, s]);
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
