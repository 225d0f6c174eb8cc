//! Copy propagation: `let y = x` (a statement whose expression is a sub-expression) is
//! removed and `y` replaced by `x` everywhere after it (and in types).
//!
//! Rule `copy-prop`. Guarantees: arrays are propagated only when neither name is consumed
//! anywhere in the function (otherwise the copy may be what keeps a consumed array's alias
//! alive); accumulators are never propagated.

use super::Ctx;
use super::simplify::{Engine, Rewrite};
use crate::core::ir::{BasicOp, Exp, Stm, SubExp, Type};

/// The `copy-prop` rule.
pub fn rule(eng: &Engine, ctx: &mut Ctx, stm: &Stm) -> Option<Rewrite> {
    let (Exp::BasicOp(BasicOp::SubExp(se)), [y]) = (&stm.exp, stm.pat.as_slice()) else {
        return None;
    };
    match eng.names.ty(*y) {
        Type::Prim(_) => {}
        Type::Acc { .. } => return None,
        Type::Array { .. } => {
            let x = se.as_var()?;
            if eng.consumed.contains(y) || eng.consumed.contains(&x) {
                return None;
            }
            // The source's type must be the same (a size may differ syntactically).
            if eng.names.ty(x) != eng.names.ty(*y) {
                return None;
            }
        }
    }
    ctx.fire("copy-prop");
    Some(Rewrite::Subst(vec![*se]))
}

/// Whether `se` is a variable (not a constant).
pub fn is_var(se: &SubExp) -> bool {
    matches!(se, SubExp::Var(_))
}
