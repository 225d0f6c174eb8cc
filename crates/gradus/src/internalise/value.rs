//! What source values become during internalisation.
//!
//! Internalisation is a partial evaluator: it runs the *static* part of a program (function
//! values, tuples, records, which function is called) at compile time and emits core
//! statements for the *dynamic* part (numbers and arrays). A source value is an [`IVal`]:
//!
//! * a primitive or an array of primitives is one core [`SubExp`];
//! * a tuple or record is its fields, each an `IVal` (tuples are records `0`, `1`, ...);
//! * an array of tuples or records is a record of arrays with the same outer size (so arrays
//!   of tuples become tuples of arrays, as docs/design.md §The compiler pipeline says);
//! * a function is a [`FunVal`]: what to call and the arguments collected so far. Applying a
//!   saturated function inlines it, so no closure survives into core IR.

use crate::core::ir::SubExp;
use crate::types::ty::{BindingId, Ty};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// A source value during internalisation.
#[derive(Clone, Debug)]
pub enum IVal {
    /// A primitive or an array of primitives.
    Leaf(SubExp),
    /// A record or tuple (or an array of them, as a record of arrays).
    Record(BTreeMap<String, IVal>),
    /// A function value.
    Fun(Rc<FunVal>),
}

impl IVal {
    /// The unit value `()`.
    pub fn unit() -> IVal {
        IVal::Record(BTreeMap::new())
    }

    /// A tuple (one component is returned as it is).
    pub fn tuple(mut items: Vec<IVal>) -> IVal {
        if items.len() == 1 {
            return items.remove(0);
        }
        IVal::Record(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
        )
    }

    /// The primitive/array leaves in a fixed order (fields in name order, numerically for
    /// tuple fields).
    pub fn leaves(&self) -> Vec<SubExp> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves(&self, out: &mut Vec<SubExp>) {
        match self {
            IVal::Leaf(se) => out.push(*se),
            IVal::Record(fields) => {
                for k in ordered_keys(fields) {
                    fields[k].collect_leaves(out);
                }
            }
            IVal::Fun(_) => {}
        }
    }

    /// A value of the same structure as `self` with leaves taken from `leaves` in order.
    pub fn rebuild(&self, leaves: &mut impl Iterator<Item = SubExp>) -> IVal {
        match self {
            IVal::Leaf(_) => IVal::Leaf(leaves.next().unwrap_or(SubExp::i64(0))),
            IVal::Record(fields) => {
                let mut out = BTreeMap::new();
                for k in ordered_keys(fields) {
                    out.insert(k.clone(), fields[k].rebuild(leaves));
                }
                IVal::Record(out)
            }
            IVal::Fun(f) => IVal::Fun(f.clone()),
        }
    }

    /// Whether the value contains a function.
    pub fn has_function(&self) -> bool {
        match self {
            IVal::Leaf(_) => false,
            IVal::Record(fs) => fs.values().any(IVal::has_function),
            IVal::Fun(_) => true,
        }
    }
}

/// Record keys in leaf order: tuple fields numerically, other fields by name.
pub fn ordered_keys<V>(fields: &BTreeMap<String, V>) -> Vec<&String> {
    let mut keys: Vec<&String> = fields.keys().collect();
    keys.sort_by(|a, b| match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    });
    keys
}

/// The local bindings visible at a point: binding id to value. Shared between closures;
/// copied on write.
pub type Env = Rc<HashMap<BindingId, IVal>>;

/// A function value: the callee, the arguments collected so far, the type the function had
/// where it was referenced (to find sizes such as `unflatten`'s), and the environment of that
/// reference (to evaluate those sizes).
#[derive(Clone, Debug)]
pub struct FunVal {
    /// What is called.
    pub callee: Callee,
    /// Arguments applied so far.
    pub args: Vec<IVal>,
    /// The instantiated type at the reference (before any arguments were applied).
    pub ty: Option<Ty>,
    /// The environment at the reference.
    pub env: Env,
    /// The referencing expression, whose instantiation (`TypedProgram::instances`) gives
    /// sizes that only the result type determines.
    pub node: Option<crate::syntax::ast::NodeId>,
}

/// What a function value calls.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A lambda or local function: index into the internaliser's table of function
    /// definitions (parameter patterns, body, captured environment).
    Closure(usize),
    /// A declaration (top-level or in a module) with a body.
    Decl(usize),
    /// A prelude intrinsic (`map`, `f64.sqrt`, `i32.+`) with its arity.
    Intrinsic(String, usize),
    /// A built-in overloaded operator (`+`, `==`, unary `-` as `neg`) with its arity.
    Builtin(String, usize),
    /// Right operator section `(op e)`: applies the operator (a function value) with `e` as
    /// its second argument.
    RightSection(Rc<FunVal>, Box<IVal>),
    /// Field projection section `(.a.b)`.
    Project(Vec<String>),
}

impl Callee {
    /// Number of arguments needed before the call happens.
    pub fn arity(&self, closure_arity: impl Fn(usize) -> usize) -> usize {
        match self {
            Callee::Closure(i) | Callee::Decl(i) => closure_arity(*i),
            Callee::Intrinsic(_, n) | Callee::Builtin(_, n) => *n,
            Callee::RightSection(..) | Callee::Project(_) => 1,
        }
    }
}
