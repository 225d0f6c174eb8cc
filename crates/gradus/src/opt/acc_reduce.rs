//! Accumulators to reductions (pass `acc-reduce`; SC'22 §6.1).
//!
//! Reverse mode turns every read of a free array inside a `map` into an accumulator update
//! (`update_acc`), which is the right thing where the reads are scattered but wasteful where
//! every iteration of the map adds a whole array into the accumulator: that is a sum over the
//! map's iterations, written as scattered updates. Matrix multiplication's adjoint is the
//! typical case: each row of the result adds an outer product into the adjoint of the right
//! operand.
//!
//! Rules (on a `with_acc` of one accumulator over one array that starts as zeros):
//! * `acc-map-to-reduce`: the lambda hands its accumulator to one `map` of width `w` whose
//!   lambda ends with a *full update*, adding an array `v` of the accumulator's shape at every
//!   position (`map(d, \(j, r, a) -> update_acc(a, [j], [r]), iota(d), v, a)`, nested for
//!   higher ranks). The map returns `v` instead, and the accumulated array becomes the sum of
//!   those rows, one `reduce` whose operator adds whole arrays (from the accumulator's zeros).
//!   Where `v` is `rearrange(perm, u)` (the adjoint of a transpose), the map returns `u` and
//!   the sum is rearranged once. With the inner product's adjoint rewritten the same way, the
//!   adjoint of a matrix product is two matrix products (no accumulator, no scattered
//!   update);
//! * `acc-full-update`: the lambda's only use of the accumulator is one full update by `v`;
//!   the accumulated array is `v`.
//!
//! The reductions add in the order the accumulator did (from zero, in increasing iteration),
//! so the results are the same to the bit under the interpreter. Accumulators over several
//! arrays, non-zero initial arrays, and partial or indirect updates are left alone.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use crate::core::ir::{BasicOp, Body, Exp, Lambda, Prog, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::recognise::{is_counter, is_zero};
use crate::core::scalar::PrimType;
use crate::core::visit::{visit_body, walk_bodies_mut};
use std::collections::HashMap;

/// Runs the pass on every body of every function.
pub fn run(prog: &mut Prog, ctx: &mut Ctx) {
    if !ctx.on("acc-reduce") {
        return;
    }
    let Prog { names, funs } = prog;
    for f in funs.iter_mut() {
        let mut defs = HashMap::new();
        collect_defs(&f.body, &mut defs);
        walk_bodies_mut(&mut f.body, &mut |body| {
            let mut i = 0;
            while i < body.stms.len() {
                match rewrite(names, ctx, &defs, &body.stms[i]) {
                    Some(stms) => {
                        let n = stms.len();
                        body.stms.splice(i..=i, stms);
                        i += n;
                    }
                    None => i += 1,
                }
            }
        });
    }
}

/// Single-result definitions of every variable bound in `body` (names are unique).
pub(super) fn collect_defs(body: &Body, defs: &mut HashMap<Var, Exp>) {
    for stm in &body.stms {
        if let ([v], Exp::BasicOp(_)) = (&stm.pat[..], &stm.exp) {
            defs.insert(*v, stm.exp.clone());
        }
        let mut inner = |b: &Body| collect_defs(b, defs);
        match &stm.exp {
            Exp::BasicOp(_) | Exp::Apply { .. } | Exp::Ad { .. } => {}
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                inner(then_body);
                inner(else_body);
            }
            Exp::Loop { body, .. } => inner(body),
            Exp::Soac(s) => {
                for l in s.lambdas() {
                    inner(&l.body);
                }
            }
            Exp::WithAcc { lam, .. } => inner(&lam.body),
        }
    }
}

fn occurrences(body: &Body, v: Var) -> usize {
    let mut n = 0;
    visit_body(body, &mut |u| n += usize::from(u == v));
    n
}

/// If `stm` is a full update of accumulator `acc` (shape `shape`), the array added.
pub(super) fn full_update(
    defs: &HashMap<Var, Exp>,
    stm: &Stm,
    acc: Var,
    shape: &[SubExp],
) -> Option<Var> {
    full_update_with(&|v| defs.get(&v), stm, acc, shape)
}

/// [`full_update`] with the definitions of variables looked up by `def`.
pub(super) fn full_update_with<'a>(
    def: &dyn Fn(Var) -> Option<&'a Exp>,
    stm: &Stm,
    acc: Var,
    shape: &[SubExp],
) -> Option<Var> {
    let Exp::Soac(Soac::Map { w, lam, arrays }) = &stm.exp else {
        return None;
    };
    let ([iota, v, a], [j, r, ap], [out]) = (&arrays[..], &lam.params[..], &stm.pat[..]) else {
        return None;
    };
    let _ = out;
    if *a != acc || shape.is_empty() || *w != shape[0] {
        return None;
    }
    if !is_counter(def(*iota), w) {
        return None;
    }
    let [inner] = &lam.body.stms[..] else {
        return None;
    };
    if lam.body.result != [SubExp::Var(inner.pat[0])] || inner.pat.len() != 1 {
        return None;
    }
    if occurrences(&lam.body, *ap) != 1 || occurrences(&lam.body, *r) != 1 {
        return None;
    }
    fn indices_ok(indices: &[SubExp], js: &[Var]) -> bool {
        indices.len() == js.len() && indices.iter().zip(js).all(|(i, j)| *i == SubExp::Var(*j))
    }
    // Walk down the nest, collecting counters; the innermost statement is the update.
    let mut js = vec![*j];
    let (mut stm, mut acc_p, mut row, mut shape) = (inner, *ap, *r, &shape[1..]);
    loop {
        match &stm.exp {
            Exp::BasicOp(BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            }) => {
                return (*acc == acc_p
                    && shape.is_empty()
                    && indices_ok(indices, &js)
                    && values[..] == [SubExp::Var(row)])
                .then_some(*v);
            }
            Exp::Soac(Soac::Map { w, lam, arrays }) => {
                let ([iota, rv, a], [j, r, ap]) = (&arrays[..], &lam.params[..]) else {
                    return None;
                };
                if *a != acc_p || *rv != row || shape.is_empty() || *w != shape[0] {
                    return None;
                }
                if !is_counter(def(*iota), w) {
                    return None;
                }
                let [next] = &lam.body.stms[..] else {
                    return None;
                };
                if next.pat.len() != 1 || lam.body.result != [SubExp::Var(next.pat[0])] {
                    return None;
                }
                js.push(*j);
                (stm, acc_p, row, shape) = (next, *ap, *r, &shape[1..]);
            }
            _ => return None,
        }
    }
}

fn rewrite(
    names: &mut crate::core::ir::NameTable,
    ctx: &mut Ctx,
    defs: &HashMap<Var, Exp>,
    stm: &Stm,
) -> Option<Vec<Stm>> {
    let Exp::WithAcc { inputs, lam } = &stm.exp else {
        return None;
    };
    let [(shape, arrays)] = &inputs[..] else {
        return None;
    };
    let [init] = arrays[..] else {
        return None;
    };
    let [acc] = lam.params[..] else {
        return None;
    };
    let elem = match names.ty(acc) {
        Type::Acc { elems, .. } if elems.len() == 1 => elems[0],
        _ => return None,
    };
    if !elem.is_numeric() || elem == PrimType::Bool {
        return None;
    }
    match defs.get(&init) {
        Some(Exp::BasicOp(BasicOp::Replicate { shape: s, value }))
            if s == shape && is_zero(value) => {}
        _ => return None,
    }
    // The one statement that takes the accumulator; it must produce the lambda's first result.
    let pos = lam.body.stms.iter().position(|s| {
        let mut b = Body::default();
        b.stms.push(s.clone());
        occurrences(&b, acc) > 0
    })?;
    if occurrences(&lam.body, acc) != 1 {
        return None;
    }
    let user = &lam.body.stms[pos];
    let SubExp::Var(acc_res) = lam.body.result[0] else {
        return None;
    };
    let acc_out = user.pat.iter().position(|v| *v == acc_res)?;
    if occurrences(&lam.body, acc_res) != 2 {
        return None;
    }
    let aux = stm.aux.clone();
    let mut out: Vec<Stm> = lam.body.stms[..pos].to_vec();
    let total = if let Some(v) = full_update(defs, user, acc, shape) {
        ctx.fire("acc-full-update");
        v
    } else {
        let Exp::Soac(Soac::Map {
            w,
            lam: mlam,
            arrays: marrays,
        }) = &user.exp
        else {
            return None;
        };
        let k = marrays.iter().position(|a| *a == acc)?;
        let ap = mlam.params[k];
        let SubExp::Var(ar) = mlam.body.result[acc_out] else {
            return None;
        };
        let last = mlam.body.stms.last()?;
        if last.pat != [ar] || occurrences(&mlam.body, ap) != 1 || occurrences(&mlam.body, ar) != 2
        {
            return None;
        }
        let v = full_update(defs, last, ap, shape)?;
        if mlam.body.result.contains(&SubExp::Var(v)) {
            return None;
        }
        ctx.fire("acc-map-to-reduce");
        let mut nlam = mlam.clone();
        nlam.params.remove(k);
        nlam.body.stms.pop();
        // A row made by `rearrange` (the adjoint of a transpose) is rearranged once, after
        // the sum, instead of once per row.
        let mut rearranged = HashMap::new();
        let mut row = v;
        if let Some(Stm {
            exp: Exp::BasicOp(BasicOp::Rearrange { array: u, perm }),
            ..
        }) = nlam.body.stms.iter().find(|s| s.pat == [v])
            && occurrences(&nlam.body, v) == 1
        {
            rearranged.insert(v, (*u, perm.clone()));
            row = *u;
        }
        nlam.body.result[acc_out] = SubExp::Var(row);
        nlam.ret[acc_out] = names.ty(row).clone();
        let mut arrs = marrays.clone();
        arrs.remove(k);
        let vs = names.fresh("acc_rows", names.ty(row).array_of(*w));
        let mut pat = user.pat.clone();
        pat[acc_out] = vs;
        out.push(Stm {
            pat,
            exp: Exp::Soac(Soac::Map {
                w: *w,
                lam: nlam,
                arrays: arrs,
            }),
            aux: user.aux.clone(),
        });
        // Sum the rows with one reduction of whole arrays, from the zeros the accumulator
        // started with; a row that is a rearranged array is summed before rearranging.
        let (sum_shape, neutral, perm) = match rearranged.get(&v) {
            Some((u, perm)) => {
                let dims = names.ty(*u).dims().to_vec();
                let z = names.fresh("zero", Type::array(elem, dims.clone()));
                out.push(Stm {
                    pat: vec![z],
                    exp: Exp::BasicOp(BasicOp::Replicate {
                        shape: dims.clone(),
                        value: crate::core::recognise::zero_of(elem),
                    }),
                    aux: aux.clone(),
                });
                (dims, z, Some(perm.clone()))
            }
            None => (shape.clone(), init, None),
        };
        let sum = names.fresh("acc_sum", Type::array(elem, sum_shape.clone()));
        let x = names.fresh("x", Type::array(elem, sum_shape.clone()));
        let y = names.fresh("y", Type::array(elem, sum_shape.clone()));
        let s = names.fresh("sum", Type::array(elem, sum_shape.clone()));
        let add = add_nest(names, elem, &sum_shape, x, y);
        out.push(Stm {
            pat: vec![sum],
            exp: Exp::Soac(Soac::Reduce {
                w: *w,
                lam: Lambda {
                    params: vec![x, y],
                    body: Body {
                        stms: vec![Stm {
                            pat: vec![s],
                            exp: add,
                            aux: aux.clone(),
                        }],
                        result: vec![s.into()],
                    },
                    ret: vec![Type::array(elem, sum_shape)],
                },
                neutral: vec![neutral.into()],
                arrays: vec![vs],
                commutative: true,
            }),
            aux: aux.clone(),
        });
        match perm {
            Some(perm) => {
                let r = names.fresh("acc_sum", Type::array(elem, shape.clone()));
                out.push(Stm {
                    pat: vec![r],
                    exp: Exp::BasicOp(BasicOp::Rearrange { array: sum, perm }),
                    aux: aux.clone(),
                });
                r
            }
            None => sum,
        }
    };
    out.extend(lam.body.stms[pos + 1..].iter().cloned());
    // The with_acc's results: the accumulated array, then the lambda's other results.
    out.push(Stm {
        pat: vec![stm.pat[0]],
        exp: Exp::BasicOp(BasicOp::SubExp(SubExp::Var(total))),
        aux: aux.clone(),
    });
    for (p, r) in stm.pat[1..].iter().zip(&lam.body.result[1..]) {
        out.push(Stm {
            pat: vec![*p],
            exp: Exp::BasicOp(BasicOp::SubExp(*r)),
            aux: aux.clone(),
        });
    }
    Some(out)
}

/// `x + y` elementwise, for arrays of shape `dims` (nested maps of `add`).
fn add_nest(
    names: &mut crate::core::ir::NameTable,
    elem: PrimType,
    dims: &[SubExp],
    x: Var,
    y: Var,
) -> Exp {
    let Some((d, rest)) = dims.split_first() else {
        return Exp::BasicOp(BasicOp::Prim(
            PrimOp::Bin(BinOp::Add, elem),
            vec![x.into(), y.into()],
        ));
    };
    let row_ty = Type::array(elem, rest.to_vec());
    let a = names.fresh("x", row_ty.clone());
    let b = names.fresh("y", row_ty.clone());
    let s = names.fresh("sum", row_ty.clone());
    let inner = add_nest(names, elem, rest, a, b);
    Exp::Soac(Soac::Map {
        w: *d,
        lam: Lambda {
            params: vec![a, b],
            body: Body {
                stms: vec![Stm {
                    pat: vec![s],
                    exp: inner,
                    aux: Default::default(),
                }],
                result: vec![s.into()],
            },
            ret: vec![row_ty],
        },
        arrays: vec![x, y],
    })
}
