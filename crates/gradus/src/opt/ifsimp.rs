//! `if` simplification (pass `if-simp`).
//!
//! Rules:
//! * `if-const`: a constant condition: the taken branch's statements replace the `if`;
//! * `if-same`: both branches compute nothing and return the same results;
//! * `if-to-select`: both branches compute nothing and return scalars: one `select` per
//!   result (both operands are already computed, so nothing is evaluated in vain);
//! * `if-to-logic`: `if c then {a few safe basic operations; b} else false` (what `c && b`
//!   becomes) to the operations followed by `c and b`, and `if c then true else {..; b}` to
//!   `c or b`: conditions then combine with the rules of the other passes.
//!
//! [`cond_facts`] gives the range facts a `then` branch may assume from its condition
//! (`0 <= i && i < n`, `i >= 0` for an `i` known to lie in `[-1, n)`), used by the engine.

use super::Ctx;
use super::simplify::{Engine, Rewrite};
use crate::core::ir::{BasicOp, Exp, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, TernOp};
use crate::core::safety::Ranges;
use crate::core::scalar::{PrimType, Scalar};

/// The `if-simp` rules.
pub fn rule(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm) -> Option<Rewrite> {
    let Exp::If {
        cond,
        then_body,
        else_body,
        ..
    } = &stm.exp
    else {
        return None;
    };
    if let SubExp::Const(Scalar::Bool(b)) = cond {
        let taken = if *b { then_body } else { else_body };
        ctx.fire("if-const");
        return Some(Rewrite::Stms(taken.stms.clone(), taken.result.clone()));
    }
    if let Some(r) = to_logic(eng, ctx, stm) {
        return Some(r);
    }
    if then_body.stms.is_empty() && else_body.stms.is_empty() {
        if then_body.result == else_body.result {
            ctx.fire("if-same");
            return Some(Rewrite::Subst(then_body.result.clone()));
        }
        let scalar = stm
            .pat
            .iter()
            .all(|v| matches!(eng.names.ty(*v), Type::Prim(_)));
        if scalar {
            let mut stms = Vec::new();
            let mut res = Vec::new();
            for ((v, a), b) in stm.pat.iter().zip(&then_body.result).zip(&else_body.result) {
                let t = eng.names.ty(*v).elem();
                let hint = eng.names.hint(*v).to_string();
                let nv = eng.names.fresh(&hint, Type::Prim(t));
                stms.push(Stm {
                    pat: vec![nv],
                    exp: Exp::BasicOp(BasicOp::Prim(
                        PrimOp::Tern(TernOp::Select, t),
                        vec![*cond, *a, *b],
                    )),
                    aux: stm.aux.clone(),
                });
                res.push(SubExp::Var(nv));
            }
            ctx.fire("if-to-select");
            return Some(Rewrite::Stms(stms, res));
        }
    }
    None
}

fn to_logic(eng: &mut Engine, ctx: &mut Ctx, stm: &Stm) -> Option<Rewrite> {
    let Exp::If {
        cond,
        then_body,
        else_body,
        ..
    } = &stm.exp
    else {
        return None;
    };
    let ([v], [t], [e]) = (
        stm.pat.as_slice(),
        then_body.result.as_slice(),
        else_body.result.as_slice(),
    ) else {
        return None;
    };
    if eng.names.ty(*v) != &Type::Prim(PrimType::Bool) {
        return None;
    }
    let fls = SubExp::Const(Scalar::Bool(false));
    let tru = SubExp::Const(Scalar::Bool(true));
    let (op, body, r) = if *e == fls {
        (BinOp::And, then_body, t)
    } else if *t == tru {
        (BinOp::Or, else_body, e)
    } else {
        return None;
    };
    let other = if op == BinOp::And {
        else_body
    } else {
        then_body
    };
    if !other.stms.is_empty() || body.stms.len() > 3 {
        return None;
    }
    let safe = body.stms.iter().all(|s| match &s.exp {
        Exp::BasicOp(BasicOp::Prim(p, _)) => !crate::core::safety::prim_can_fail(*p),
        Exp::BasicOp(BasicOp::SubExp(_)) => true,
        _ => false,
    });
    if !safe {
        return None;
    }
    ctx.fire("if-to-logic");
    let mut stms = body.stms.clone();
    let nv = eng.names.fresh("cond", Type::Prim(PrimType::Bool));
    stms.push(Stm {
        pat: vec![nv],
        exp: Exp::BasicOp(BasicOp::Prim(
            PrimOp::Bin(op, PrimType::Bool),
            vec![*cond, *r],
        )),
        aux: stm.aux.clone(),
    });
    Some(Rewrite::Stms(stms, vec![nv.into()]))
}

/// Range facts `(v, lo, hi)` that hold where `cond` is true.
pub fn cond_facts(eng: &Engine, cond: &SubExp, ranges: &Ranges) -> Vec<(Var, i64, SubExp)> {
    let mut out = Vec::new();
    let Some((op, args)) = eng.prim_def(cond) else {
        return out;
    };
    match (op, args.as_slice()) {
        (PrimOp::Bin(BinOp::And, PrimType::Bool), [a, b]) => {
            let mut lo_facts = Vec::new();
            let mut hi_facts = Vec::new();
            for x in [a, b] {
                if let Some(v) = lower_zero(eng, x) {
                    lo_facts.push(v);
                }
                if let Some(f) = upper(eng, x) {
                    hi_facts.push(f);
                }
            }
            for v in &lo_facts {
                for (w, n) in &hi_facts {
                    if v == w {
                        out.push((*v, 0, *n));
                    }
                }
            }
            out.extend(cond_facts(eng, a, ranges));
            out.extend(cond_facts(eng, b, ranges));
        }
        _ => {
            if let Some(v) = lower_zero(eng, cond)
                && let Some((_, hi)) = ranges.get(v).or(eng.extra_facts.get(&v).copied())
            {
                out.push((v, 0, hi));
            }
        }
    }
    out
}

/// Facts `lo <= v < hi` that hold where `cond` is false: `v == lo` false with `lo <= v < hi`
/// known gives `lo + 1 <= v < hi` (the else branch of `if i == 0`, which reads row `i - 1`).
pub fn else_facts(eng: &Engine, cond: &SubExp, ranges: &Ranges) -> Vec<(Var, i64, SubExp)> {
    let Some((PrimOp::Cmp(CmpOp::Eq, PrimType::I64), args)) = eng.prim_def(cond) else {
        return vec![];
    };
    let mut out = Vec::new();
    if let [a, b] = args.as_slice() {
        for (x, k) in [(a, b), (b, a)] {
            if let (SubExp::Var(v), SubExp::Const(c)) = (x, k)
                && let Some((lo, hi)) = ranges.get(*v)
                && c.prim_type() == PrimType::I64
                && c.to_f64() == lo as f64
            {
                out.push((*v, lo + 1, hi));
            }
        }
    }
    out
}

/// `v >= 0` (or `0 <= v`, `v > -1`, `-1 < v`) on `i64`.
fn lower_zero(eng: &Engine, c: &SubExp) -> Option<Var> {
    let (op, args) = eng.prim_def(c)?;
    let PrimOp::Cmp(op, PrimType::I64) = op else {
        return None;
    };
    let zero = SubExp::i64(0);
    let m1 = SubExp::i64(-1);
    match (op, args.as_slice()) {
        (CmpOp::Ge, [SubExp::Var(v), k]) | (CmpOp::Le, [k, SubExp::Var(v)]) if *k == zero => {
            Some(*v)
        }
        (CmpOp::Gt, [SubExp::Var(v), k]) | (CmpOp::Lt, [k, SubExp::Var(v)]) if *k == m1 => Some(*v),
        _ => None,
    }
}

/// `v < n` (or `n > v`) on `i64`.
fn upper(eng: &Engine, c: &SubExp) -> Option<(Var, SubExp)> {
    let (op, args) = eng.prim_def(c)?;
    let PrimOp::Cmp(op, PrimType::I64) = op else {
        return None;
    };
    match (op, args.as_slice()) {
        (CmpOp::Lt, [SubExp::Var(v), n]) | (CmpOp::Gt, [n, SubExp::Var(v)]) => Some((*v, *n)),
        _ => None,
    }
}
