//! A body that runs once per iteration (a loop's body, a SOAC's lambda) may not consume an
//! array bound outside it: the first iteration would destroy what the next reads. Rewrites
//! can put such an array into a consuming position without meaning to: a loop that returns
//! an initial value unchanged is unrolled or removed, its result becomes that initial value,
//! and the `with_acc` or in-place update that consumed the result now consumes a value from
//! outside (typically a zero array that `hoist` had moved out, since nothing consumed it
//! there).
//!
//! [`give_own_copies`] repairs a simplified body: every array bound outside it that it
//! consumes is copied once at the body's start, and the body uses the copy instead. The
//! copy costs what the body paid before the value moved out (it built the array itself).
//!
//! Takes a body and the variables its construct binds for it (parameters, counter); gives a
//! body that consumes only variables bound inside it or among those.

use crate::core::ir::{Aux, BasicOp, Body, Exp, NameTable, Stm, SubExp, Type, Var};
use crate::core::renumber::body_binders;
use crate::core::subst::subst_body;
use crate::core::visit::consumed_in_body;
use std::collections::{HashMap, HashSet};

/// Gives `body` its own copy of every outer array it consumes; `params` are the variables
/// bound for it by its loop or SOAC, which it may consume.
pub fn give_own_copies(names: &mut NameTable, body: &mut Body, params: &[Var]) {
    let mut consumed = HashSet::new();
    consumed_in_body(body, &mut consumed);
    if consumed.is_empty() {
        return;
    }
    let mut bound = Vec::new();
    body_binders(body, &mut bound);
    bound.extend_from_slice(params);
    let bound: HashSet<Var> = bound.into_iter().collect();
    let mut outer: Vec<Var> = consumed
        .into_iter()
        .filter(|v| !bound.contains(v) && matches!(names.ty(*v), Type::Array { .. }))
        .collect();
    if outer.is_empty() {
        return;
    }
    outer.sort();
    let mut map = HashMap::new();
    let mut copies = Vec::with_capacity(outer.len());
    for v in outer {
        let hint = names.hint(v).to_string();
        let own = names.fresh(&hint, names.ty(v).clone());
        map.insert(v, SubExp::Var(own));
        copies.push(Stm {
            pat: vec![own],
            exp: Exp::BasicOp(BasicOp::Copy(v)),
            aux: Aux::default(),
        });
    }
    subst_body(body, &map);
    copies.append(&mut body.stms);
    body.stms = copies;
}
