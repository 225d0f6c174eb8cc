//! Loop normalisation (pass `loop-norm`).
//!
//! Rules, for `for` loops:
//! * `loop-zero-trip`: a constant bound `<= 0`: the loop returns its initial values;
//! * `loop-unroll`: a constant bound from 1 to [`UNROLL_MAX`] and a small body: the body is
//!   copied once per iteration (with fresh names), the counter replaced by its value;
//! * `loop-single-point`: a loop whose state changes in at most one iteration becomes a
//!   statement. Each result is either its parameter unchanged, or `p + t` with `t` zero unless
//!   the counter equals some `c` that does not depend on the loop (and `t` does not read the
//!   loop's parameters), or `select`/`if` on `i == c` that keeps `p` otherwise. The loop
//!   becomes the body instantiated at `i = c` on the initial values, guarded by `0 <= c < n`.
//! * `loop-last-skips`: a loop some of whose results nobody reads skips, in its last
//!   iteration, the work only those results need (see [`skip_in_last`]);
//! * `loop-forward`: a loop that visits `n-1-i` (a return sweep of reverse mode), whose
//!   iterations only read their parameters or add into accumulators, runs in increasing
//!   order instead. Its results are the same up to the order of the additions into the
//!   accumulators; the C compiler vectorises forward loops more readily, and the reads of
//!   arrays go forwards.
//!
//! Takes verified IR and gives verified IR.

use super::Ctx;
use super::simplify::{Engine, Rewrite, Scope};
use super::singlepoint::{Region, Sparse, cond_point, sparse};
use crate::core::ir::{BasicOp, Body, Exp, Lambda, LoopForm, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::subst::instantiate_lambda;
use crate::core::visit::exp_binders;
use std::collections::HashSet;

/// Longest constant loop that is unrolled.
pub const UNROLL_MAX: i64 = 4;
/// Largest body (in statements) that is unrolled.
const UNROLL_BODY: usize = 24;

/// The `loop-norm` rules.
pub fn rule(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm, scope: &Scope) -> Option<Rewrite> {
    let Exp::Loop { params, form, body } = &stm.exp else {
        return None;
    };
    let LoopForm::For { i, bound } = form else {
        return None;
    };
    // Loops whose parameters' types mention other parameters (existential sizes) are left.
    let pvars: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
    for (p, _) in params {
        if crate::core::visit::type_vars(eng.names.ty(*p))
            .iter()
            .any(|d| pvars.contains(d))
        {
            return None;
        }
    }
    if let SubExp::Const(c) = bound {
        let n = c.as_i64().unwrap_or(i64::MAX);
        if n <= 0 {
            ctx.fire("loop-zero-trip");
            return Some(Rewrite::Subst(params.iter().map(|(_, e)| *e).collect()));
        }
        if n <= UNROLL_MAX && small(body) && !consumes(body) {
            ctx.fire("loop-unroll");
            let lam = as_lambda(eng, *i, params, body);
            let mut stms = Vec::new();
            let mut state: Vec<SubExp> = params.iter().map(|(_, e)| *e).collect();
            let it = eng.names.ty(*i).elem();
            for k in 0..n {
                let mut args = vec![SubExp::Const(Scalar::from_i128(it, k as i128))];
                args.extend(state.iter().copied());
                let (s, r) = instantiate_lambda(eng.names, &lam, &args, &stm.aux);
                stms.extend(s);
                state = r;
            }
            return Some(Rewrite::Stms(stms, state));
        }
    }
    if let Some(exp) = forward(eng, *i, *bound, params, body) {
        ctx.fire("loop-forward");
        return Some(Rewrite::Exp(exp));
    }
    if let Some(rw) = skip_in_last(eng, ctx, stm, *i, *bound, params, body) {
        return Some(rw);
    }
    single_point(eng, ctx, stm, *i, *bound, params, body, scope)
}

/// Rule `loop-last-skips`: a loop some of whose results nobody reads, where at least half
/// of the loops and SOACs of an iteration compute only those results, computes them in every
/// iteration but the last: those statements move into `if i < n - 1 then {..} else {p..}`,
/// at the end of the body, whose else branch passes the unread results' parameters on.
/// Reverse mode's forward sweep is such a loop: it saves each iteration's state for the
/// return sweep, and its final state is read by nobody, so its last iteration (all of it
/// when the loop runs once) computed a state only to drop it.
///
/// The moved statements are those neither the read results nor an assertion need, so
/// nothing left before the `if` reads them; none may read an array that a statement left
/// before it consumes, nor may such a statement consume a parameter the else branch returns.
fn skip_in_last(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    i: Var,
    bound: SubExp,
    params: &[(Var, SubExp)],
    body: &Body,
) -> Option<Rewrite> {
    // Use counts are those of the walk's start: a statement made since has none at all.
    let used = |v: &Var| eng.uses.get(v).is_some_and(|&n| n > 0);
    if !stm.pat.iter().any(used) || stm.pat.iter().all(used) {
        return None;
    }
    // What the read results need, back from the body's end.
    let mut needed: HashSet<Var> = stm
        .pat
        .iter()
        .zip(&body.result)
        .filter(|(v, _)| used(v))
        .filter_map(|(_, r)| r.as_var())
        .collect();
    let mut keep = vec![false; body.stms.len()];
    let (mut work, mut wasted) = (0, 0);
    for (k, st) in body.stms.iter().enumerate().rev() {
        let heavy = matches!(st.exp, Exp::Soac(_) | Exp::Loop { .. });
        work += usize::from(heavy);
        // Assertions stay, with what they check, as dead code elimination keeps them.
        let asserts = matches!(st.exp, Exp::BasicOp(BasicOp::Assert { .. }));
        if asserts || st.pat.iter().any(|v| needed.contains(v)) {
            needed.extend(crate::core::visit::stm_free_vars(st));
            keep[k] = true;
        } else {
            wasted += usize::from(heavy);
        }
    }
    // Worth a branch where it skips at least half of the iteration's work.
    if wasted == 0 || 2 * wasted < work {
        return None;
    }
    let (mut kept, mut moved): (Vec<&Stm>, Vec<&Stm>) = (Vec::new(), Vec::new());
    for (st, k) in body.stms.iter().zip(&keep) {
        if *k { kept.push(st) } else { moved.push(st) }
    }
    let consumed: HashSet<Var> = kept
        .iter()
        .flat_map(|st| crate::core::visit::consumed_in_stm(st))
        .collect();
    if moved.iter().any(|st| {
        crate::core::visit::stm_free_vars(st)
            .iter()
            .any(|v| consumed.contains(v))
    }) {
        return None;
    }
    // The else branch passes the unread results' parameters on: none may be consumed by a
    // statement left before the `if` (a return sweep restoring an array in place).
    let dead: Vec<usize> = (0..stm.pat.len()).filter(|k| !used(&stm.pat[*k])).collect();
    if dead.iter().any(|k| consumed.contains(&params[*k].0)) {
        return None;
    }
    ctx.fire("loop-last-skips");
    let types: Vec<Type> = dead
        .iter()
        .map(|k| eng.names.ty(params[*k].0).clone())
        .collect();
    let it = eng.names.ty(i).elem();
    let mut b = crate::core::builder::Builder::new(eng.names);
    b.set_aux(stm.aux.clone());
    b.add_stms(kept.iter().map(|st| (*st).clone()));
    let last = b.prim_named(
        PrimOp::Bin(BinOp::Sub, it),
        vec![bound, SubExp::Const(Scalar::from_i128(it, 1))],
        "last",
    );
    let more = b.prim_named(
        PrimOp::Cmp(CmpOp::Lt, it),
        vec![i.into(), last.into()],
        "more",
    );
    let next = b.bind(
        Exp::If {
            cond: more.into(),
            then_body: Body {
                stms: moved.iter().map(|st| (*st).clone()).collect(),
                result: dead.iter().map(|k| body.result[*k]).collect(),
            },
            else_body: Body {
                stms: vec![],
                result: dead.iter().map(|k| SubExp::Var(params[*k].0)).collect(),
            },
            ret: types.clone(),
        },
        types,
        "next",
    );
    let mut result = body.result.clone();
    for (k, v) in dead.iter().zip(next) {
        result[*k] = SubExp::Var(v);
    }
    let new_body = Body {
        stms: b.take_stms(),
        result,
    };
    Some(Rewrite::Exp(Exp::Loop {
        params: params.to_vec(),
        form: LoopForm::For { i, bound },
        body: new_body,
    }))
}

/// The loop with `k = (n - 1) - i` replaced by `k = i` (rule `loop-forward`), when the
/// counter is read only that way and no iteration depends on another: every parameter is
/// passed on unchanged or is an accumulator, whose additions commute.
fn forward(
    eng: &Engine,
    i: Var,
    bound: SubExp,
    params: &[(Var, SubExp)],
    body: &Body,
) -> Option<Exp> {
    let independent = params
        .iter()
        .zip(&body.result)
        .all(|((p, _), r)| *r == SubExp::Var(*p) || matches!(eng.names.ty(*p), Type::Acc { .. }));
    if !independent || body.result.contains(&SubExp::Var(i)) {
        return None;
    }
    let is_last = |c: &SubExp| {
        matches!(
            eng.def_se(c).map(|d| &d.exp),
            Some(Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Sub, PrimType::I64), args)))
                if args.len() == 2 && args[0] == bound && args[1] == SubExp::i64(1)
        )
    };
    let mut reversed = Vec::new();
    for (k, st) in body.stms.iter().enumerate() {
        if let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Sub, PrimType::I64), args)) = &st.exp
            && args.len() == 2
            && args[1] == SubExp::Var(i)
            && is_last(&args[0])
        {
            reversed.push(k);
        } else if crate::core::visit::stm_free_vars(st).contains(&i) {
            return None;
        }
    }
    if reversed.is_empty() {
        return None;
    }
    let mut body = body.clone();
    for k in reversed {
        body.stms[k].exp = Exp::BasicOp(BasicOp::SubExp(SubExp::Var(i)));
    }
    Some(Exp::Loop {
        params: params.to_vec(),
        form: LoopForm::For { i, bound },
        body,
    })
}

fn small(body: &Body) -> bool {
    body.stms.len() <= UNROLL_BODY
        && body
            .stms
            .iter()
            .all(|s| matches!(s.exp, Exp::BasicOp(_) | Exp::If { .. }))
}

fn consumes(body: &Body) -> bool {
    let mut c = HashSet::new();
    crate::core::visit::consumed_in_body(body, &mut c);
    !c.is_empty()
}

/// The loop body as a lambda of the counter and the parameters.
fn as_lambda(eng: &Engine, i: Var, params: &[(Var, SubExp)], body: &Body) -> Lambda {
    let mut ps = vec![i];
    ps.extend(params.iter().map(|(p, _)| *p));
    Lambda {
        params: ps,
        body: body.clone(),
        ret: params
            .iter()
            .map(|(p, _)| eng.names.ty(*p).clone())
            .collect(),
    }
}

#[allow(clippy::too_many_arguments)]
fn single_point(
    eng: &mut Engine,
    ctx: &mut Ctx,
    stm: &Stm,
    i: Var,
    bound: SubExp,
    params: &[(Var, SubExp)],
    body: &Body,
    scope: &Scope,
) -> Option<Rewrite> {
    if eng.names.ty(i) != &Type::Prim(PrimType::I64) || consumes(body) {
        return None;
    }
    if params
        .iter()
        .any(|(p, _)| !matches!(eng.names.ty(*p), Type::Prim(_)))
    {
        return None;
    }
    let mut bound_set = exp_binders(&stm.exp);
    bound_set.insert(i);
    let pvars: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
    let index_vars = [i];
    let region = Region {
        index_vars: &index_vars,
        bound: &bound_set,
    };
    let mut point: Option<SubExp> = None;
    let mut agree = |c: SubExp| match point {
        None => {
            point = Some(c);
            true
        }
        Some(p) => p == c,
    };
    // For each parameter: None (unchanged) or Some(additive term).
    let mut terms: Vec<Option<SubExp>> = Vec::new();
    let mut any = false;
    for ((p, _), r) in params.iter().zip(&body.result) {
        if *r == SubExp::Var(*p) {
            terms.push(None);
            continue;
        }
        any = true;
        // `p + t`
        if let Some((PrimOp::Bin(BinOp::Add, _), args)) = eng.prim_def(r) {
            let t = if args[0] == SubExp::Var(*p) {
                Some(args[1])
            } else if args[1] == SubExp::Var(*p) {
                Some(args[0])
            } else {
                None
            };
            if let Some(t) = t {
                let reads = crate::core::subst::deps_in(eng.names, body, &t, &pvars);
                if reads.is_empty()
                    && let Some(Sparse::At(_, c)) = sparse(eng, &t, &region, 0)
                    && agree(c)
                {
                    terms.push(Some(t));
                    continue;
                }
            }
        }
        // `if i == c then f(p) else p`, as `select` or `if`.
        let keeps = match eng.def_se(r) {
            Some(Stm {
                exp: Exp::BasicOp(BasicOp::Prim(PrimOp::Tern(TernOp::Select, _), args)),
                ..
            }) if args[2] == SubExp::Var(*p) => cond_point(eng, &args[0], &region),
            Some(
                s @ Stm {
                    exp: Exp::If {
                        cond, else_body, ..
                    },
                    ..
                },
            ) => {
                let k = s.pat.iter().position(|v| SubExp::Var(*v) == *r)?;
                if else_body.stms.is_empty() && else_body.result[k] == SubExp::Var(*p) {
                    cond_point(eng, cond, &region)
                } else {
                    None
                }
            }
            _ => None,
        };
        match keeps {
            Some(Sparse::At(_, c)) if agree(c) => terms.push(Some(*r)),
            _ => return None,
        }
    }
    let c = point?;
    if !any {
        return None;
    }
    ctx.fire("loop-single-point");
    // The body at `i = c` on the initial values.
    let lam = as_lambda(eng, i, params, body);
    let mut args = vec![c];
    args.extend(params.iter().map(|(_, e)| *e));
    let (stms, res) = instantiate_lambda(eng.names, &lam, &args, &stm.aux);
    let inits: Vec<SubExp> = params.iter().map(|(_, e)| *e).collect();
    if scope.ranges.in_bounds(&c, &bound) {
        return Some(Rewrite::Stms(stms, res));
    }
    let ret: Vec<Type> = params
        .iter()
        .map(|(p, _)| eng.names.ty(*p).clone())
        .collect();
    Some(super::singlepoint::guarded_all(
        eng, c, bound, stms, res, inits, ret, &stm.aux,
    ))
}
