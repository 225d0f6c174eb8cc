//! The first iteration of a map's loop that branches on it runs apart from the others.
//!
//! **Takes** the loop `for i < n { body }` of a `map` (sequential, or parallel: a `ParFor`)
//! whose body sets a boolean to `i' == 0`, where `i'` is `i` plus a constant (an `iota`'s
//! element: `0 + i·1`): a boundary case such as
//! `tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1])`.
//!
//! **Guarantees** the same iterations: iteration 0 alone, with the boolean set to `true`,
//! when `n > 0`; then a loop of the same kind over `j < n - 1` running iteration `j + 1` with
//! it set to `false`. A map's iterations are independent, so running the first one before
//! the others changes nothing, not even the order of a privatised parallel loop's additions
//! (its threads add into zeroed copies summed into the arrays afterwards). The C compiler
//! folds the branch away in both parts, and the loop of the other iterations is left
//! without a branch one side of which reads `y[i - 1]`: a read the compiler cannot move out
//! of the branch (it is out of bounds where the branch is not taken), which kept such loops
//! from being vectorised at all.

use super::imp::{Ex, IdxOp, Stm as I, Ty};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use std::collections::HashMap;

/// How to peel the first iteration off a loop whose body branches on it.
pub(super) struct Peel {
    /// The loop's counter, declared in both parts.
    var: String,
    /// The boolean set to `var == 0`.
    flag: String,
    /// The counter of the loop over the other iterations.
    pub(super) rest_var: String,
}

impl Peel {
    /// The peeling of the loop over `var` whose body is `body`, if the body branches on
    /// `var == 0` (see the module's documentation); `fresh` gives an unused name for the
    /// counter of the loop over the other iterations.
    pub(super) fn find(var: &str, body: &[I], fresh: impl FnOnce() -> String) -> Option<Peel> {
        let flag = first_iteration_flag(var, body)?;
        Some(Peel {
            var: var.to_string(),
            flag,
            rest_var: fresh(),
        })
    }

    /// Iteration 0 of `body`, run when `0 < bound`.
    pub(super) fn first(&self, bound: &Ex, body: &[I]) -> I {
        I::If {
            cond: Ex::idx(IdxOp::Lt, Ex::int(0), bound.clone()),
            then: self.with_counter(Ex::int(0), true, body),
            els: Vec::new(),
        }
    }

    /// The number of the other iterations.
    pub(super) fn rest_bound(&self, bound: &Ex) -> Ex {
        Ex::idx(IdxOp::Sub, bound.clone(), Ex::int(1))
    }

    /// The body of the loop over the other iterations: iteration `rest_var + 1` of `body`.
    pub(super) fn rest_body(&self, body: &[I]) -> Vec<I> {
        let counter = Ex::idx(IdxOp::Add, Ex::var(&self.rest_var), Ex::int(1));
        self.with_counter(counter, false, body)
    }

    /// `body` with the counter declared as `counter` and the flag set to `first`.
    fn with_counter(&self, counter: Ex, first: bool, body: &[I]) -> Vec<I> {
        let mut out = vec![I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: self.var.clone(),
            init: Some(counter),
        }];
        for st in body {
            match st {
                I::Set { name, .. } if *name == self.flag => out.push(I::Set {
                    name: name.clone(),
                    val: Ex::Const(Scalar::Bool(first)),
                }),
                // The branch on the flag becomes the branch taken: the other one (often a
                // check that the boundary case's index is in bounds) is not left behind for
                // the printer to see a check in every iteration.
                I::If {
                    cond: Ex::Var(c),
                    then,
                    els,
                } if *c == self.flag => out.extend(if first { then } else { els }.iter().cloned()),
                other => out.push(other.clone()),
            }
        }
        out
    }
}

/// The boolean the top level of `body` sets, once, to `var + c == c` (true in iteration 0
/// only), with no other assignment to it.
fn first_iteration_flag(var: &str, body: &[I]) -> Option<String> {
    // Scalars set to `var + offset`.
    let mut offsets: HashMap<String, i64> = HashMap::from([(var.to_string(), 0)]);
    let mut found = None;
    for st in body {
        let (name, val) = match st {
            I::Set { name, val } => (name, val),
            I::Decl {
                name,
                init: Some(val),
                ..
            } => (name, val),
            _ => continue,
        };
        if let Some(o) = offset(val, &offsets) {
            offsets.insert(name.clone(), o);
        } else if found.is_none() && is_first(val, &offsets) {
            found = Some(name.clone());
        }
    }
    let flag = found?;
    // The flag and the counter are assigned nowhere else (at any depth).
    let mut sets = 0;
    count_sets(body, &flag, false, &mut sets);
    let mut counter_sets = 0;
    count_sets(body, var, true, &mut counter_sets);
    (sets == 1 && counter_sets == 0).then_some(flag)
}

/// `e` as `var + offset`, from the scalars known to be such.
fn offset(e: &Ex, offsets: &HashMap<String, i64>) -> Option<i64> {
    match e {
        Ex::Var(v) => offsets.get(v).copied(),
        Ex::Prim(PrimOp::Conv(PrimType::I64, PrimType::I64), args) if args.len() == 1 => {
            offset(&args[0], offsets)
        }
        Ex::Prim(PrimOp::Bin(op, PrimType::I64), args) if args.len() == 2 => {
            bin_offset(*op, &args[0], &args[1], offsets)
        }
        Ex::Idx(op, a, b) => {
            let op = match op {
                IdxOp::Add => BinOp::Add,
                IdxOp::Sub => BinOp::Sub,
                IdxOp::Mul => BinOp::Mul,
                _ => return None,
            };
            bin_offset(op, a, b, offsets)
        }
        _ => None,
    }
}

fn bin_offset(op: BinOp, a: &Ex, b: &Ex, offsets: &HashMap<String, i64>) -> Option<i64> {
    match (
        op,
        offset(a, offsets),
        offset(b, offsets),
        a.as_int(),
        b.as_int(),
    ) {
        (BinOp::Add, Some(o), None, _, Some(c)) | (BinOp::Add, None, Some(o), Some(c), _) => {
            o.checked_add(c)
        }
        (BinOp::Sub, Some(o), None, _, Some(c)) => o.checked_sub(c),
        (BinOp::Mul, Some(o), None, _, Some(1)) | (BinOp::Mul, None, Some(o), Some(1), _) => {
            Some(o)
        }
        _ => None,
    }
}

/// Whether `e` is `x == c` (either way round) with `x = var + c`: true in iteration 0 only.
fn is_first(e: &Ex, offsets: &HashMap<String, i64>) -> bool {
    let (a, b) = match e {
        Ex::Prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), args) if args.len() == 2 => {
            (&args[0], &args[1])
        }
        Ex::Idx(IdxOp::Eq, a, b) => (&**a, &**b),
        _ => return false,
    };
    let at_zero =
        |x: &Ex, c: &Ex| matches!((offset(x, offsets), c.as_int()), (Some(o), Some(c)) if o == c);
    at_zero(a, b) || at_zero(b, a)
}

/// Adds to `n` the assignments of `name` in `body`, at any depth: `Set`s, declarations with
/// an initial value, and with `any_decl` declarations without one and loop counters too.
fn count_sets(body: &[I], name: &str, any_decl: bool, n: &mut usize) {
    for st in body {
        match st {
            I::Set { name: x, .. } if x == name => *n += 1,
            I::Decl { name: x, init, .. } if x == name && (any_decl || init.is_some()) => *n += 1,
            I::For { var, body, .. } | I::ParFor { var, body, .. } => {
                if any_decl && var == name {
                    *n += 1;
                }
                count_sets(body, name, any_decl, n);
            }
            I::While { body, .. } => count_sets(body, name, any_decl, n),
            I::GroupTree(t) => count_sets(&t.host, name, any_decl, n),
            I::If { then, els, .. } => {
                count_sets(then, name, any_decl, n);
                count_sets(els, name, any_decl, n);
            }
            _ => {}
        }
    }
}
