//! Sums of rows computed by a map, lowered as accumulators (a core-to-core rewrite run before
//! lowering, see [`super::prepare`]).
//!
//! The optimiser's `acc-reduce` turns whole-array accumulator updates in a map into a map
//! producing one row per iteration followed by a `reduce_comm` adding those rows (matrix
//! multiplication's adjoint becomes two matrix products). That is the cheaper form for the
//! interpreter, but compiled as it stands it builds a `w × row` array and adds it up with a
//! sequential array reduction that allocates a row per step. Here the pair
//!
//! ```text
//! let (.., rows, ..) = map(w, f, xs)          -- rows used by nothing else
//! let sum = reduce_comm(w, element-wise +, zeros, rows)
//! ```
//!
//! becomes, at the map's place,
//!
//! ```text
//! let (sum, ..) = with_acc([d] (zeros'), \acc ->
//!   map(w, \(.., a) -> { f's body; row-by-row update_acc(a, [j], [row[j]]) }, xs, acc))
//! ```
//!
//! so each iteration adds its row into the accumulator in place: per-thread copies in a
//! parallel loop, in iteration order otherwise (the same additions in the same order as the
//! reduction, so sequential results are bit-identical). Only sums at the top of a function
//! are rewritten: inside a lambda the rows are small and the reduction is the faster form
//! (matrix product adjoint, 300 × 300, sequential C: 28 ms with the top-level sum rewritten,
//! 40 ms with the nested one too, 132 ms with neither).
//!
//! **Takes** a verified program.
//!
//! **Guarantees** a verified program computing the same values, in which every such pair at
//! the top of a function body is rewritten (bit-identical results when run sequentially).

use crate::core::ir::{BasicOp, Body, Exp, Lambda, NameTable, Prog, Soac, Stm, SubExp, Type, Var};
use crate::core::recognise::is_zero;
use crate::core::visit::{free_in_exp, walk_bodies_mut};
use std::collections::HashSet;

/// Applies the rewrite to the top-level body of every function.
pub fn run(prog: &mut Prog) {
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        // Zero arrays anywhere in the function (hoisting may have moved a sum's neutral
        // element out of the lambda the sum is in).
        let mut zeros: HashSet<Var> = HashSet::new();
        loop {
            let before = zeros.len();
            walk_bodies_mut(&mut f.body, &mut |b| {
                for s in &b.stms {
                    if let (Exp::BasicOp(BasicOp::Replicate { value, .. }), [v]) =
                        (&s.exp, s.pat.as_slice())
                        && (is_zero(value) || matches!(value, SubExp::Var(x) if zeros.contains(x)))
                    {
                        zeros.insert(*v);
                    }
                }
            });
            if zeros.len() == before {
                break;
            }
        }
        // Only at the top of the function: there the rows of a large map would be stored
        // and the map is a parallel loop; a sum nested in a lambda adds small rows that stay
        // in cache, where the reduction is faster than accumulator updates.
        body(names, &mut f.body, &zeros);
    }
}

fn body(names: &mut NameTable, b: &mut Body, zeros: &HashSet<Var>) {
    let mut q = 0;
    while q < b.stms.len() {
        if let Some(p) = candidate(names, b, q, zeros) {
            let sum = b.stms.remove(q);
            let map = b.stms.remove(p);
            let stms = rewrite(names, map, sum);
            let k = stms.len();
            b.stms.splice(p..p, stms);
            q = p + k;
        } else {
            q += 1;
        }
    }
}

/// The position of the map whose rows statement `q` sums, if the pair fits.
fn candidate(names: &NameTable, b: &Body, q: usize, zero_arrays: &HashSet<Var>) -> Option<usize> {
    let Exp::Soac(Soac::Reduce {
        w,
        lam,
        neutral,
        arrays,
        commutative: true,
    }) = &b.stms[q].exp
    else {
        return None;
    };
    let ([zeros], [rows]) = (neutral.as_slice(), arrays.as_slice()) else {
        return None;
    };
    let Type::Array { elem, dims } = names.ty(*rows) else {
        return None;
    };
    if dims.len() < 2 || !elem.is_float() || !elementwise_add(lam, dims.len() - 1) {
        return None;
    }
    if !(is_zero(zeros) || matches!(zeros, SubExp::Var(z) if zero_arrays.contains(z))) {
        return None;
    }
    let p = b.stms[..q].iter().position(|s| s.pat.contains(rows))?;
    let Exp::Soac(Soac::Map {
        w: mw,
        lam: ml,
        arrays: ma,
    }) = &b.stms[p].exp
    else {
        return None;
    };
    if mw != w
        || ma
            .iter()
            .chain(&b.stms[p].pat)
            .any(|a| matches!(names.ty(*a), Type::Acc { .. }))
        || ml.params.len() != ma.len()
    {
        return None;
    }
    let used_elsewhere = b
        .stms
        .iter()
        .enumerate()
        .any(|(k, s)| k != q && k != p && free_in_exp(names, &s.exp).contains(rows))
        || b.result.contains(&SubExp::Var(*rows));
    (!used_elsewhere).then_some(p)
}

/// Whether `lam` adds two arrays of rank `rank` element by element (a nest of maps around
/// an addition of the parameters; the caller checks the element type).
fn elementwise_add(lam: &Lambda, rank: usize) -> bool {
    if rank == 0 {
        return crate::core::recognise::is_plus(lam);
    }
    let ([x, y], [stm], [SubExp::Var(r)]) = (
        lam.params.as_slice(),
        lam.body.stms.as_slice(),
        lam.body.result.as_slice(),
    ) else {
        return false;
    };
    match &stm.exp {
        Exp::Soac(Soac::Map {
            lam: inner, arrays, ..
        }) => stm.pat == [*r] && arrays == &[*x, *y] && elementwise_add(inner, rank - 1),
        _ => false,
    }
}

/// The statements replacing the map `map` and the sum `sum` of one of its results.
fn rewrite(names: &mut NameTable, map: Stm, sum: Stm) -> Vec<Stm> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = map.exp else {
        unreachable!("rewrite of a map")
    };
    let Exp::Soac(Soac::Reduce { arrays: summed, .. }) = &sum.exp else {
        unreachable!("rewrite of a reduce")
    };
    let o = map
        .pat
        .iter()
        .position(|v| *v == summed[0])
        .expect("summed result of the map");
    let row_ty = names.ty(summed[0]).row();
    let elem = row_ty.elem();
    let d = row_ty.dims()[0];
    let acc_ty = Type::Acc {
        shape: vec![d],
        elems: vec![elem],
    };
    let aux = map.aux.clone();
    let stm = |pat: Vec<Var>, exp: Exp| Stm {
        pat,
        exp,
        aux: aux.clone(),
    };
    let mut out = Vec::new();
    // Zeros to accumulate into (consumed by with_acc), the row indices.
    let zeros = names.fresh("acc_zeros", row_ty.clone());
    out.push(stm(
        vec![zeros],
        Exp::BasicOp(BasicOp::Replicate {
            shape: row_ty.dims().to_vec(),
            value: crate::core::recognise::zero_of(elem),
        }),
    ));
    let iota = names.fresh(
        "acc_rows",
        Type::array(crate::core::scalar::PrimType::I64, vec![d]),
    );
    out.push(stm(
        vec![iota],
        Exp::BasicOp(BasicOp::Iota {
            n: d,
            start: SubExp::i64(0),
            stride: SubExp::i64(1),
            elem: crate::core::scalar::PrimType::I64,
        }),
    ));
    // The map's body, then its row added into the accumulator.
    let a = names.fresh("acc", acc_ty.clone());
    let j = names.fresh("j", Type::Prim(crate::core::scalar::PrimType::I64));
    let rr = names.fresh("row", row_ty.row());
    let aa = names.fresh("acc", acc_ty.clone());
    let aa2 = names.fresh("acc", acc_ty.clone());
    let a2 = names.fresh("acc", acc_ty.clone());
    let SubExp::Var(row) = lam.body.result[o] else {
        unreachable!("an array result is a variable")
    };
    let update = Lambda {
        params: vec![j, rr, aa],
        body: Body {
            stms: vec![stm(
                vec![aa2],
                Exp::BasicOp(BasicOp::UpdateAcc {
                    acc: aa,
                    indices: vec![SubExp::Var(j)],
                    values: vec![SubExp::Var(rr)],
                }),
            )],
            result: vec![SubExp::Var(aa2)],
        },
        ret: vec![acc_ty.clone()],
    };
    let mut stms = lam.body.stms;
    stms.push(stm(
        vec![a2],
        Exp::Soac(Soac::Map {
            w: d,
            lam: update,
            arrays: vec![iota, row, a],
        }),
    ));
    let others: Vec<usize> = (0..map.pat.len()).filter(|k| *k != o).collect();
    let mut result = vec![SubExp::Var(a2)];
    result.extend(others.iter().map(|k| lam.body.result[*k]));
    let mut ret = vec![acc_ty.clone()];
    ret.extend(others.iter().map(|k| lam.ret[*k].clone()));
    let mut params = lam.params;
    params.push(a);
    let mut inputs = arrays;
    // The with_acc lambda's accumulator goes in as the map's last input.
    let acc_param = names.fresh("acc", acc_ty.clone());
    inputs.push(acc_param);
    let map_acc = names.fresh("acc", acc_ty.clone());
    let mut map_pat = vec![map_acc];
    for k in &others {
        let t = names.ty(map.pat[*k]).clone();
        map_pat.push(names.fresh("map_res", t));
    }
    let inner = stm(
        map_pat.clone(),
        Exp::Soac(Soac::Map {
            w,
            lam: Lambda {
                params,
                body: Body { stms, result },
                ret: ret.clone(),
            },
            arrays: inputs,
        }),
    );
    let mut pat = sum.pat.clone();
    pat.extend(others.iter().map(|k| map.pat[*k]));
    let mut outer_ret = vec![acc_ty];
    outer_ret.extend(others.iter().map(|k| names.ty(map.pat[*k]).clone()));
    out.push(stm(
        pat,
        Exp::WithAcc {
            inputs: vec![(vec![d], vec![zeros])],
            lam: Lambda {
                params: vec![acc_param],
                body: Body {
                    stms: vec![inner],
                    result: map_pat.into_iter().map(SubExp::Var).collect(),
                },
                ret: outer_ret,
            },
        },
    ));
    out
}
