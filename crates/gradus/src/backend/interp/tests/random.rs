//! Interpreter robustness: random, mostly ill-typed programs of basic operations and SOACs
//! run without panicking; every failure is a run-time, size, bounds or internal error.

use super::*;

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
