//! The core IR verifier: checks the invariants every pass may rely on and must preserve.
//!
//! Takes any [`Prog`] and never panics. On the first violation it returns a [`VerifyError`]
//! that names the function, prints the innermost statement being checked and says what is
//! wrong. A verified program is what the interpreter and the lowering may assume. Run it
//! after every pass in debug builds (STYLE.md item 7).
//!
//! # Invariants checked
//!
//! **Names**
//! * every variable mentioned is in the name table;
//! * every variable is bound exactly once in the whole program (function and size parameters,
//!   pattern variables, lambda and loop parameters, loop counters);
//! * function names are unique; an entry point's external parameters name parameters of the
//!   function, and its result counts add up to the number of results.
//!
//! **Scope**
//! * every use of a variable (operands, results, dimensions in types) is in scope: bound
//!   earlier in the same body or in an enclosing one (lambda bodies may use variables of
//!   enclosing scopes); loop bodies see the loop parameters and the counter; size parameters
//!   and parameters are in scope in the whole function;
//! * pattern variables are in scope only after their statement; a pattern variable's type may
//!   mention earlier variables of the same pattern (existential sizes), and likewise for loop
//!   parameters.
//!
//! **Types of expressions** (sizes are compared syntactically: the same constant or the same
//! variable; see below for existential sizes)
//! * the pattern of a basic operation or SOAC has exactly the types
//!   [`crate::core::type_of::type_of_exp`] gives;
//! * primitive operations: operand count and types follow [`PrimOp::operand_types`];
//! * index and update: an array, at most rank-many indices, all `i64`; the value of an update
//!   has the type of the indexed slice;
//! * `iota`: integer element type, `i64` count, start and stride of the element type;
//!   `replicate`, `scratch`, `reshape`, `coerce`: `i64` shapes; `coerce` keeps the rank;
//!   array literals: every element has the row type; `concat`: at least one array, all with
//!   the same element type and inner dimensions, `i64` size; `rearrange`: a permutation of
//!   the array's dimensions; `rotate`: an array and an `i64` amount; `assert`: a `bool`
//!   condition, one argument per `{}` in the message, and an empty pattern;
//! * `if`: a `bool` condition; the declared result types, both branches' results and the
//!   pattern have the same length; the declared types agree with the pattern in element type
//!   and rank; each branch result has the pattern variable's type, where a size that is an
//!   earlier pattern variable stands for the corresponding branch result;
//! * loops: each initial value and each body result has its parameter's type (a size that is
//!   an earlier loop parameter stands for the corresponding initial value or result); the
//!   pattern has the parameters' types (sizes that are parameters stand for the pattern
//!   variables); a `for` counter has the type of the bound, an integer type; a `while`
//!   condition is a `bool` loop parameter;
//! * calls: the callee exists; as many arguments as parameters, each with the parameter's
//!   element type and rank; the declared result types agree with the callee's and with the
//!   pattern in count, element type and rank;
//! * SOACs: every input array has outer size `w` (an `i64`); lambda parameters have the row
//!   types of the inputs; `reduce`, `scan`, `hist`: `2k` lambda parameters for `k` neutral
//!   elements, inputs (values) and results, the neutral elements and both halves of the
//!   parameters having the lambda's result types; `hist` and `scatter`: `[w]i64` indices and
//!   destinations whose rows have the values' row types; `scatter`: as many destinations as
//!   value arrays;
//! * fused SOACs (`redomap`, `scanomap`, `histomap`, `scattermap`): no accumulator inputs;
//!   the map lambda takes the inputs' rows and returns what the consumer would have read from
//!   the mapped arrays (for `histomap` and `scattermap` an `i64` index first), checked as
//!   above for `reduce`, `scan`, `hist` and `scatter`;
//! * `with_acc`: one lambda parameter per input, of type `acc(shape, elems of the arrays)`;
//!   every input array's dimensions start with the shape; the lambda returns those
//!   accumulators first; `update_acc`: an accumulator, one `i64` index per dimension of its
//!   shape, one value per array with the array's element type;
//! * lambda and function bodies return as many results as declared, each of the declared type
//!   (sizes in a function's result type that are not parameters are existential and match
//!   anything);
//! * a `map` takes accumulators whole (not row by row): an input of accumulator type gives a
//!   lambda parameter of the same type, and an accumulator result is returned as it is.
//!
//! **Dimensions**
//! * every dimension in a type is an `i64` constant or an `i64` variable in scope (for the
//!   declared result types of `if` and calls: in scope after the pattern; for a function's
//!   result types: `i64`, not scope-checked, since they may be existential).
//!
//! **Consumption** (uniqueness)
//! * a consumed variable is not used afterwards in the same body or in bodies nested in later
//!   statements. Consumers: the array of an update, the destinations of `hist` and `scatter`,
//!   the accumulator of `update_acc`, the inputs of `with_acc`, accumulator inputs of a `map`;
//!   an `if` consumes what either branch consumes of the enclosing scope; a loop consumes the
//!   initial values of the parameters its body consumes;
//! * a lambda does not consume variables of its enclosing scope, nor does a loop body.
//!
//! **Accumulators**
//! * variables of accumulator type are bound only inside the lambda of a `with_acc` (at any
//!   depth); functions take and return no accumulators.
//!
//! # Not checked
//! Aliasing through `copy`-free bindings (a consumed array's aliases may still be used),
//! uniqueness of function parameters at calls, sizes of call arguments (the sizes of a call
//! are instantiated at run time), and everything the IR leaves to run-time checks (`coerce`,
//! bounds, equal shapes of array literal rows and concatenated arrays).

mod acc;
mod basic;
mod control;
mod scopes;
mod soac;
mod stms;

use crate::core::ir::{FunDef, NameTable, Prog, Stm, SubExp, Type, Var};
use crate::core::print::{print_stm, print_type, print_var};
use crate::core::scalar::PrimType;
use std::collections::{HashMap, HashSet};
use std::fmt;

/// A violated invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function in which it was found.
    pub fun: String,
    /// The innermost statement being checked, printed (none for function headers).
    pub stm: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in function `{}`: {}", self.fun, self.message)?;
        if let Some(s) = &self.stm {
            write!(f, "\n  in statement: {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyError {}

/// Checks every invariant listed in the module documentation.
pub fn verify(prog: &Prog) -> Result<(), VerifyError> {
    let mut v = Verifier {
        names: &prog.names,
        funs: HashMap::new(),
        bound: HashSet::new(),
        scope: HashSet::new(),
        frames: Vec::new(),
        acc_depth: 0,
        lambda_runs_once: false,
        lambda_sizes_inside: false,
        statement_sizes: Vec::new(),
        fun_name: String::new(),
        stms: Vec::new(),
    };
    for f in &prog.funs {
        if v.funs.insert(f.name.as_str(), f).is_some() {
            v.fun_name = f.name.clone();
            return v.fail(format!("function `{}` is defined twice", f.name));
        }
    }
    for f in &prog.funs {
        v.fun(f)?;
    }
    Ok(())
}

/// Substitution for comparing types: a dimension variable of the expected type that is a key
/// stands for the value (`None`: matches any dimension).
type Subst = HashMap<Var, Option<SubExp>>;

struct Frame {
    bound: HashSet<Var>,
    consumed: HashSet<Var>,
}

struct Verifier<'a> {
    names: &'a NameTable,
    funs: HashMap<&'a str, &'a FunDef>,
    bound: HashSet<Var>,
    scope: HashSet<Var>,
    frames: Vec<Frame>,
    acc_depth: usize,
    /// Set just before checking a `with_acc` lambda, which runs exactly once.
    lambda_runs_once: bool,
    /// Set just before checking the lambda of a `jvp` or `vjp`, whose result types may
    /// mention its parameters and what its body binds (checked after the body).
    lambda_sizes_inside: bool,
    /// Sizes the statement being checked binds besides its pattern: the existential sizes of
    /// a `jvp` or `vjp` (see [`crate::core::ir::Exp::Ad`]).
    statement_sizes: Vec<Var>,
    fun_name: String,
    stms: Vec<&'a Stm>,
}

type R<T = ()> = Result<T, VerifyError>;

fn is_i64(t: &Type) -> bool {
    *t == Type::Prim(PrimType::I64)
}

/// Same element type, rank and kind.
fn same_shape_class(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Acc { elems: x, shape: s }, Type::Acc { elems: y, shape: t }) => {
            x == y && s.len() == t.len()
        }
        (Type::Acc { .. }, _) | (_, Type::Acc { .. }) => false,
        _ => a.elem() == b.elem() && a.rank() == b.rank(),
    }
}

fn dims_match(expected: &[SubExp], actual: &[SubExp], subst: &Subst) -> bool {
    expected.len() == actual.len()
        && expected.iter().zip(actual).all(|(e, a)| match e {
            SubExp::Var(v) => match subst.get(v) {
                Some(None) => true,
                Some(Some(s)) => s == a,
                None => e == a,
            },
            SubExp::Const(_) => e == a,
        })
}

/// `actual` has type `expected` under `subst`.
fn type_matches(expected: &Type, actual: &Type, subst: &Subst) -> bool {
    match (expected, actual) {
        (Type::Prim(a), Type::Prim(b)) => a == b,
        (Type::Array { elem: a, dims: d }, Type::Array { elem: b, dims: e }) => {
            a == b && dims_match(d, e, subst)
        }
        (Type::Acc { shape: s, elems: a }, Type::Acc { shape: t, elems: b }) => {
            a == b && dims_match(s, t, subst)
        }
        _ => false,
    }
}

impl<'a> Verifier<'a> {
    fn fail<T>(&self, message: impl Into<String>) -> R<T> {
        Err(VerifyError {
            fun: self.fun_name.clone(),
            stm: self.stms.last().map(|s| print_stm(self.names, s)),
            message: message.into(),
        })
    }

    fn in_table(&self, v: Var) -> bool {
        (v.0 as usize) < self.names.len()
    }

    fn show(&self, v: Var) -> String {
        if self.in_table(v) {
            print_var(self.names, v)
        } else {
            format!("variable {} (not in the name table)", v.0)
        }
    }

    fn show_ty(&self, t: &Type) -> String {
        print_type(self.names, t)
    }

    fn show_se(&self, se: &SubExp) -> String {
        crate::core::print::print_subexp(self.names, se)
    }

    fn ty(&self, v: Var) -> R<Type> {
        if self.in_table(v) {
            Ok(self.names.ty(v).clone())
        } else {
            self.fail(format!("{} is not in the name table", self.show(v)))
        }
    }

    fn se_ty(&self, se: &SubExp) -> R<Type> {
        match se {
            SubExp::Const(c) => Ok(Type::Prim(c.prim_type())),
            SubExp::Var(v) => self.ty(*v),
        }
    }
}
