//! Result types of core expressions, shared by the verifier, the builder and the front end.
//!
//! [`type_of_basic_op`] computes the types a [`BasicOp`] binds from the types of its operands
//! (looked up in the [`NameTable`]); [`type_of_exp`] does the same for any [`Exp`], reading the
//! declared result types of `if`, calls and lambdas. Neither checks that the operands are
//! well typed (that is the verifier's job, `core/verify.rs`) and neither panics on ill-typed
//! input: a malformed operation gets a best-effort type, which the verifier then rejects.
//! Variables must be in the name table.

use crate::core::ir::{
    AdMode, BasicOp, DimIndex, Exp, NameTable, ScremaForm, Soac, SubExp, Type, Var,
};

/// The types bound by a basic operation, one per pattern variable (none for `Assert`).
///
/// ```text
/// xs_1: [n_0][m_2]f64          xs_1[i_3]          -> [m_2]f64
///                              xs_1[0:k_4:1]      -> [k_4][m_2]f64
/// iota(i64, n_0, 0i64, 1i64)                      -> [n_0]i64
/// ```
pub fn type_of_basic_op(names: &NameTable, op: &BasicOp) -> Vec<Type> {
    match op {
        BasicOp::SubExp(se) => vec![names.subexp_ty(se)],
        BasicOp::Prim(p, _) => vec![Type::Prim(p.result_type())],
        BasicOp::Index { array, slice } => {
            let t = names.ty(*array);
            vec![Type::array(t.elem(), slice_dims(t.dims(), slice))]
        }
        BasicOp::Update { array, .. } => vec![names.ty(*array).clone()],
        BasicOp::Iota { n, elem, .. } => vec![Type::array(*elem, vec![*n])],
        BasicOp::Replicate { shape, value } => {
            let t = names.subexp_ty(value);
            let mut dims = shape.clone();
            dims.extend_from_slice(t.dims());
            vec![Type::array(t.elem(), dims)]
        }
        BasicOp::Scratch { elem, shape } => vec![Type::array(*elem, shape.clone())],
        BasicOp::ArrayLit { elems, row } => {
            vec![row.array_of(SubExp::i64(elems.len() as i64))]
        }
        BasicOp::Concat { arrays, size } => {
            let t = arrays
                .first()
                .map_or(Type::Prim(crate::core::scalar::PrimType::Bool), |a| {
                    names.ty(*a).clone()
                });
            let mut dims = vec![*size];
            dims.extend(t.dims().iter().skip(1).copied());
            vec![Type::array(t.elem(), dims)]
        }
        BasicOp::Copy(v) => vec![names.ty(*v).clone()],
        BasicOp::Reshape { array, shape } => {
            vec![Type::array(names.ty(*array).elem(), shape.clone())]
        }
        BasicOp::Rearrange { array, perm } => {
            let t = names.ty(*array);
            let dims = perm
                .iter()
                .map(|&p| t.dims().get(p).copied().unwrap_or(SubExp::i64(0)))
                .collect();
            vec![Type::array(t.elem(), dims)]
        }
        BasicOp::Rotate { array, .. } => vec![names.ty(*array).clone()],
        BasicOp::Coerce { array, shape, .. } => {
            vec![Type::array(names.ty(*array).elem(), shape.clone())]
        }
        BasicOp::Assert { .. } => vec![],
        BasicOp::UpdateAcc { acc, .. } => vec![names.ty(*acc).clone()],
    }
}

/// The dimensions that remain after indexing an array of dimensions `dims` with `slice`:
/// `Fix` removes a dimension, `Slice` keeps it with size `count`, dimensions beyond the slice
/// are kept.
pub fn slice_dims(dims: &[SubExp], slice: &[DimIndex]) -> Vec<SubExp> {
    let mut out = Vec::new();
    for d in slice {
        if let DimIndex::Slice { count, .. } = d {
            out.push(*count);
        }
    }
    out.extend(dims.iter().skip(slice.len()).copied());
    out
}

/// The types bound by an expression, one per pattern variable.
///
/// `if` and calls give their declared `ret`; a loop gives its parameters' types; `map` and
/// `scan` give the lambda's result types with outer size `w` (accumulators unchanged, see
/// [`map_result_type`]); `reduce` the lambda's result
/// types; `hist` and `scatter` their destinations' types; a `screma` what its consumer gives; `with_acc` the types of the input
/// arrays followed by the lambda's results after the accumulators.
pub fn type_of_exp(names: &NameTable, exp: &Exp) -> Vec<Type> {
    match exp {
        Exp::BasicOp(op) => type_of_basic_op(names, op),
        Exp::If { ret, .. } | Exp::Apply { ret, .. } => ret.clone(),
        Exp::Loop { params, .. } => params.iter().map(|(p, _)| names.ty(*p).clone()).collect(),
        Exp::Soac(soac) => match soac {
            Soac::Map { w, lam, .. } | Soac::Scan { w, lam, .. } => {
                lam.ret.iter().map(|t| map_result_type(t, *w)).collect()
            }
            Soac::Reduce { lam, .. } => lam.ret.clone(),
            Soac::Hist { dests, .. } | Soac::Scatter { dests, .. } => {
                dests.iter().map(|d| names.ty(*d).clone()).collect()
            }
            Soac::Screma { w, map, form, .. } => match &**form {
                ScremaForm::Reduce { lam, neutral, .. } => {
                    let mapped = map.ret.iter().skip(neutral.len());
                    let mut out = lam.ret.clone();
                    out.extend(mapped.map(|t| map_result_type(t, *w)));
                    out
                }
                ScremaForm::Scan { lam, .. } => {
                    lam.ret.iter().map(|t| map_result_type(t, *w)).collect()
                }
                ScremaForm::Hist { dests, .. } | ScremaForm::Scatter { dests } => {
                    dests.iter().map(|d| names.ty(*d).clone()).collect()
                }
            },
        },
        Exp::WithAcc { inputs, lam } => {
            let mut out: Vec<Type> = inputs
                .iter()
                .flat_map(|(_, arrays)| arrays.iter().map(|a| names.ty(*a).clone()))
                .collect();
            out.extend(lam.ret.iter().skip(inputs.len()).cloned());
            out
        }
        Exp::Ad {
            mode, lam, args, ..
        } => {
            let derivative: Vec<Type> = match mode {
                AdMode::Jvp => lam.ret.clone(),
                AdMode::Vjp => lam.params.iter().map(|p| names.ty(*p).clone()).collect(),
                AdMode::WithVjp | AdMode::WithJvp => {
                    return lam.ret[..mode.primal_results(lam, args.len())].to_vec();
                }
            };
            lam.ret.iter().cloned().chain(derivative).collect()
        }
    }
}

/// The type of one result of a `map` (or `scan`) of width `w` whose lambda returns `t`:
/// `[w]t`, except that an accumulator stays an accumulator (a `map` takes accumulators as
/// inputs whole, not row by row, and returns them updated, as in Futhark).
pub fn map_result_type(t: &Type, w: SubExp) -> Type {
    match t {
        Type::Acc { .. } => t.clone(),
        _ => t.array_of(w),
    }
}

/// The type of the lambda parameter that receives input `t` of a SOAC: the row type, or the
/// accumulator itself.
pub fn map_param_type(t: &Type) -> Type {
    match t {
        Type::Acc { .. } => t.clone(),
        _ => t.row(),
    }
}

/// The accumulator type for one `with_acc` input group: shape and the element types of the
/// arrays.
pub fn acc_type(names: &NameTable, shape: &[SubExp], arrays: &[Var]) -> Type {
    Type::Acc {
        shape: shape.to_vec(),
        elems: arrays.iter().map(|a| names.ty(*a).elem()).collect(),
    }
}
