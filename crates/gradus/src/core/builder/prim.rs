//! Primitive operations: their name hints, the CSE table, and the arithmetic helpers built on
//! [`Builder::prim`].

use super::Builder;
use crate::core::ir::{BasicOp, Exp, Stm, SubExp, Var};
use crate::core::prim::{BinOp, PrimOp, TernOp};
use crate::core::scalar::{PrimType, Scalar};
use std::collections::HashMap;

/// What a nested body sees of the operations its enclosing bodies made available for
/// common-subexpression elimination ([`Builder::with_cse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CseScope {
    /// A nested body starts with the operations of the bodies around it (forward-mode AD).
    Inherit,
    /// A nested body starts with none (reverse-mode AD).
    Fresh,
}

/// A hashable form of an operand: a variable, or a constant's type and bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OperandKey {
    Var(Var),
    Const(PrimType, u64),
}

/// What identifies a primitive operation for CSE: the operation and its operands (constants
/// by their bits).
pub(crate) type Key = (PrimOp, Vec<OperandKey>);

pub(crate) fn key(op: PrimOp, args: &[SubExp]) -> Key {
    let keys = args
        .iter()
        .map(|a| match a {
            SubExp::Var(v) => OperandKey::Var(*v),
            SubExp::Const(c) => {
                let bits = match *c {
                    Scalar::F32(x) => x.to_bits() as u64,
                    Scalar::F64(x) => x.to_bits(),
                    other => other.as_i64().unwrap_or(0) as u64,
                };
                OperandKey::Const(c.prim_type(), bits)
            }
        })
        .collect();
    (op, keys)
}

/// The primitive operations bound in scope, and those of the enclosing bodies saved while a
/// nested body is built.
pub(super) struct Cse {
    scope: CseScope,
    available: HashMap<Key, Var>,
    saved: Vec<HashMap<Key, Var>>,
}

impl Cse {
    pub(super) fn new(scope: CseScope) -> Self {
        Cse {
            scope,
            available: HashMap::new(),
            saved: Vec::new(),
        }
    }

    /// A nested body opens.
    pub(super) fn enter(&mut self) {
        let outer = match self.scope {
            CseScope::Inherit => self.available.clone(),
            CseScope::Fresh => std::mem::take(&mut self.available),
        };
        self.saved.push(outer);
    }

    /// The innermost body closes: its operations go out of scope.
    pub(super) fn leave(&mut self) {
        if let Some(outer) = self.saved.pop() {
            self.available = outer;
        }
    }
}

/// The hint of a primitive operation's result: the operation's name (`mul`, `cos`, `lt`,
/// `select`, `conv`).
fn op_hint(op: PrimOp) -> String {
    match op {
        PrimOp::Un(u, _) => format!("{u:?}").to_lowercase(),
        PrimOp::Bin(b, _) => format!("{b:?}").to_lowercase(),
        PrimOp::Cmp(c, _) => format!("{c:?}").to_lowercase(),
        PrimOp::Tern(t, _) => format!("{t:?}").to_lowercase(),
        PrimOp::Conv(..) => "conv".into(),
        PrimOp::FromBits(..) => "from_bits".into(),
    }
}

impl Builder<'_> {
    /// `op(args)`, named after the operation. Returned as an operand, since such results
    /// are mostly the arguments of further operations.
    pub fn prim(&mut self, op: PrimOp, args: Vec<SubExp>) -> SubExp {
        SubExp::Var(self.prim_named(op, args, &op_hint(op)))
    }

    /// `let hint = op(args)`. With CSE on, an identical operation already in scope is
    /// returned instead (under its own hint).
    pub fn prim_named(&mut self, op: PrimOp, args: Vec<SubExp>, hint: &str) -> Var {
        let key = self.cse.as_ref().map(|_| key(op, &args));
        if let (Some(cse), Some(k)) = (&self.cse, &key)
            && let Some(v) = cse.available.get(k)
        {
            return *v;
        }
        let v = self.basic(BasicOp::Prim(op, args), hint);
        if let (Some(cse), Some(k)) = (&mut self.cse, key) {
            cse.available.insert(k, v);
        }
        v
    }

    /// Makes the result of `stm`, if it is a primitive operation with one result, available
    /// to CSE (unless an identical one already is): forward-mode AD copies the primal's
    /// statements and then reuses them in derivatives.
    pub fn record_prim(&mut self, stm: &Stm) {
        if let (Some(cse), Exp::BasicOp(BasicOp::Prim(op, args)), [v]) =
            (&mut self.cse, &stm.exp, stm.pat.as_slice())
        {
            cse.available.entry(key(*op, args)).or_insert(*v);
        }
    }

    /// `a op b` on `i64`, for sizes and indices, where these are often constants: `x + 0`,
    /// `0 + x`, `x - 0`, `x * 1` and `1 * x` are `x`, not bound. With
    /// [`Builder::with_constant_folding`] (the front end), `+`, `-` and `*` of two constants
    /// are folded (wrapping) too, and `0 + x` is bound all the same: the front end has always
    /// bound it, and its output stays as it was.
    pub fn i64_bin(&mut self, op: BinOp, a: SubExp, b: SubExp) -> SubExp {
        let (zero, one) = (SubExp::i64(0), SubExp::i64(1));
        if self.fold_constants
            && let (SubExp::Const(Scalar::I64(x)), SubExp::Const(Scalar::I64(y))) = (a, b)
        {
            let folded = match op {
                BinOp::Add => Some(x.wrapping_add(y)),
                BinOp::Sub => Some(x.wrapping_sub(y)),
                BinOp::Mul => Some(x.wrapping_mul(y)),
                _ => None,
            };
            if let Some(v) = folded {
                return SubExp::i64(v);
            }
        }
        match op {
            BinOp::Add | BinOp::Sub if b == zero => a,
            BinOp::Add if a == zero && !self.fold_constants => b,
            BinOp::Mul if b == one => a,
            BinOp::Mul if a == one => b,
            _ => self.prim(PrimOp::Bin(op, PrimType::I64), vec![a, b]),
        }
    }

    /// `if cond then a else b` on scalars of `a`'s type, as a `select` (both are computed).
    pub fn select(&mut self, cond: SubExp, a: SubExp, b: SubExp) -> SubExp {
        let t = self.ty(&a).elem();
        self.prim(PrimOp::Tern(TernOp::Select, t), vec![cond, a, b])
    }
}
