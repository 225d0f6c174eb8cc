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

use crate::core::ir::{
    AdMode, BasicOp, Body, DimIndex, Exp, FunDef, Lambda, LoopForm, NameTable, Prog, ScremaForm,
    Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::PrimOp;
use crate::core::print::{print_stm, print_type, print_var};
use crate::core::type_of::{map_param_type, slice_dims, type_of_exp};
use crate::value::PrimType;
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

    // Scopes ------------------------------------------------------------------------------

    fn push_frame(&mut self) {
        self.frames.push(Frame {
            bound: HashSet::new(),
            consumed: HashSet::new(),
        });
    }

    /// Leaves a frame; returns what it consumed of enclosing scopes and of its own bindings.
    fn pop_frame(&mut self) -> (HashSet<Var>, HashSet<Var>) {
        let Some(f) = self.frames.pop() else {
            return Default::default();
        };
        for v in &f.bound {
            self.scope.remove(v);
        }
        let (own, free): (HashSet<Var>, HashSet<Var>) =
            f.consumed.into_iter().partition(|v| f.bound.contains(v));
        (free, own)
    }

    /// Binds `v` in the current frame: unique in the program, in the table, its type's
    /// dimensions in scope, accumulators only inside `with_acc`.
    fn bind(&mut self, v: Var) -> R {
        let t = self.ty(v)?;
        if !self.bound.insert(v) {
            return self.fail(format!("{} is bound more than once", self.show(v)));
        }
        if matches!(t, Type::Acc { .. }) && self.acc_depth == 0 {
            return self.fail(format!(
                "{} has accumulator type {} outside a with_acc lambda",
                self.show(v),
                self.show_ty(&t)
            ));
        }
        self.check_type_dims(&t, &format!("the type of {}", self.show(v)))?;
        self.scope.insert(v);
        if let Some(f) = self.frames.last_mut() {
            f.bound.insert(v);
        }
        Ok(())
    }

    fn use_var(&self, v: Var) -> R<Type> {
        let t = self.ty(v)?;
        if !self.scope.contains(&v) {
            return self.fail(format!("{} is used out of scope", self.show(v)));
        }
        if self.frames.iter().any(|f| f.consumed.contains(&v)) {
            return self.fail(format!("{} is used after it was consumed", self.show(v)));
        }
        Ok(t)
    }

    fn use_se(&self, se: &SubExp) -> R<Type> {
        match se {
            SubExp::Const(c) => Ok(Type::Prim(c.prim_type())),
            SubExp::Var(v) => self.use_var(*v),
        }
    }

    fn use_ses(&self, ses: &[SubExp]) -> R<Vec<Type>> {
        ses.iter().map(|s| self.use_se(s)).collect()
    }

    fn expect_se(&self, se: &SubExp, t: PrimType, what: &str) -> R {
        let st = self.use_se(se)?;
        if st != Type::Prim(t) {
            return self.fail(format!(
                "{what} {} has type {}, expected {t}",
                self.show_se(se),
                self.show_ty(&st)
            ));
        }
        Ok(())
    }

    fn consume(&mut self, v: Var) {
        if let Some(f) = self.frames.last_mut() {
            f.consumed.insert(v);
        }
    }

    fn check_dim(&self, d: &SubExp, what: &str) -> R {
        let t = match d {
            SubExp::Const(c) => Type::Prim(c.prim_type()),
            SubExp::Var(v) => {
                let t = self.ty(*v)?;
                if !self.scope.contains(v) {
                    return self.fail(format!("size {} in {what} is not in scope", self.show(*v)));
                }
                t
            }
        };
        if !is_i64(&t) {
            return self.fail(format!(
                "size {} in {what} has type {}, expected i64",
                self.show_se(d),
                self.show_ty(&t)
            ));
        }
        Ok(())
    }

    fn check_type_dims(&self, t: &Type, what: &str) -> R {
        let dims = match t {
            Type::Prim(_) => return Ok(()),
            Type::Array { dims, .. } => dims,
            Type::Acc { shape, .. } => shape,
        };
        dims.iter().try_for_each(|d| self.check_dim(d, what))
    }

    /// `i64` dimensions that are constants or variables of the table (no scope check).
    fn check_type_dims_loose(&self, t: &Type, what: &str) -> R {
        for d in t.dims().iter().chain(match t {
            Type::Acc { shape, .. } => shape.iter(),
            _ => [].iter(),
        }) {
            let dt = self.se_ty(d)?;
            if !is_i64(&dt) {
                return self.fail(format!(
                    "size {} in {what} has type {}, expected i64",
                    self.show_se(d),
                    self.show_ty(&dt)
                ));
            }
        }
        Ok(())
    }

    fn expect_type(&self, expected: &Type, actual: &Type, subst: &Subst, what: &str) -> R {
        if type_matches(expected, actual, subst) {
            Ok(())
        } else {
            self.fail(format!(
                "{what} has type {}, expected {}",
                self.show_ty(actual),
                self.show_ty(expected)
            ))
        }
    }

    // Functions ---------------------------------------------------------------------------

    fn fun(&mut self, f: &'a FunDef) -> R {
        self.fun_name = f.name.clone();
        self.stms.clear();
        self.scope.clear();
        self.push_frame();
        // Size parameters and parameters are all in scope before their types are checked.
        for &v in f.size_params.iter().chain(&f.params) {
            self.ty(v)?;
            if !self.bound.insert(v) {
                return self.fail(format!("{} is bound more than once", self.show(v)));
            }
            self.scope.insert(v);
        }
        for &v in &f.size_params {
            let t = self.ty(v)?;
            if !is_i64(&t) {
                return self.fail(format!(
                    "size parameter {} has type {}, expected i64",
                    self.show(v),
                    self.show_ty(&t)
                ));
            }
        }
        for &v in &f.params {
            let t = self.ty(v)?;
            if matches!(t, Type::Acc { .. }) {
                return self.fail(format!("parameter {} is an accumulator", self.show(v)));
            }
            self.check_type_dims(&t, &format!("the type of parameter {}", self.show(v)))?;
        }
        let mut subst = Subst::new();
        for t in &f.ret {
            if matches!(t, Type::Acc { .. }) {
                return self.fail("a function returns an accumulator");
            }
            self.check_type_dims_loose(t, "the result type")?;
            for d in t.dims() {
                if let SubExp::Var(d) = d
                    && !f.size_params.contains(d)
                    && !f.params.contains(d)
                {
                    subst.insert(*d, None);
                }
            }
        }
        if let Some(e) = &f.entry {
            for (_, vs) in &e.params {
                for v in vs {
                    if !f.params.contains(v) {
                        return self.fail(format!(
                            "entry point parameter {} is not a parameter of the function",
                            self.show(*v)
                        ));
                    }
                }
            }
            let n: usize = e.results.iter().map(|r| r.1).sum();
            if n != f.ret.len() {
                return self.fail(format!(
                    "entry point results account for {n} values, the function returns {}",
                    f.ret.len()
                ));
            }
        }
        self.body_results(&f.body, &f.ret, &subst, "the function body")?;
        self.pop_frame();
        Ok(())
    }

    /// Checks a body in a new frame (which the caller must pop) and its results against
    /// `ret`.
    fn body_results(&mut self, body: &'a Body, ret: &[Type], subst: &Subst, what: &str) -> R {
        let tys = self.body(body)?;
        if tys.len() != ret.len() {
            return self.fail(format!(
                "{what} returns {} values, expected {}",
                tys.len(),
                ret.len()
            ));
        }
        for (i, (t, e)) in tys.iter().zip(ret).enumerate() {
            self.expect_type(e, t, subst, &format!("result {i} of {what}"))?;
        }
        Ok(())
    }

    /// Checks the statements and results of a body in the current frame; returns the
    /// results' types.
    fn body(&mut self, body: &'a Body) -> R<Vec<Type>> {
        for stm in &body.stms {
            self.stms.push(stm);
            self.stm(stm)?;
            self.stms.pop();
        }
        self.use_ses(&body.result)
    }

    fn stm(&mut self, stm: &'a Stm) -> R {
        let consumed = self.exp(stm)?;
        // Bind the pattern; a pattern variable's type may mention earlier ones.
        for &v in &stm.pat {
            self.bind(v)?;
        }
        // Declared result types of `if` and calls may mention the pattern.
        if let Exp::If { ret, .. } | Exp::Apply { ret, .. } = &stm.exp {
            for t in ret {
                self.check_type_dims(t, "the declared result type")?;
            }
        }
        for v in consumed {
            self.consume(v);
        }
        Ok(())
    }

    fn pat_types(&self, stm: &Stm) -> R<Vec<Type>> {
        stm.pat.iter().map(|v| self.ty(*v)).collect()
    }

    fn expect_pattern(&self, stm: &Stm, tys: &[Type]) -> R {
        let pat = self.pat_types(stm)?;
        if pat.len() != tys.len() {
            return self.fail(format!(
                "the pattern binds {} variables, the expression has {} results",
                pat.len(),
                tys.len()
            ));
        }
        for (i, (p, t)) in pat.iter().zip(tys).enumerate() {
            if !type_matches(t, p, &Subst::new()) {
                return self.fail(format!(
                    "pattern variable {} has type {}, the expression gives {}",
                    self.show(stm.pat[i]),
                    self.show_ty(p),
                    self.show_ty(t)
                ));
            }
        }
        Ok(())
    }

    fn expect_pattern_class(&self, stm: &Stm, tys: &[Type], what: &str) -> R {
        let pat = self.pat_types(stm)?;
        if pat.len() != tys.len() {
            return self.fail(format!(
                "the pattern binds {} variables, {what} has {}",
                pat.len(),
                tys.len()
            ));
        }
        for (i, (p, t)) in pat.iter().zip(tys).enumerate() {
            if !same_shape_class(p, t) {
                return self.fail(format!(
                    "pattern variable {} has type {}, {what} declares {}",
                    self.show(stm.pat[i]),
                    self.show_ty(p),
                    self.show_ty(t)
                ));
            }
        }
        Ok(())
    }

    /// Checks an expression; returns the variables the statement consumes.
    fn exp(&mut self, stm: &'a Stm) -> R<Vec<Var>> {
        match &stm.exp {
            Exp::BasicOp(op) => {
                let consumed = self.basic_op(op)?;
                if let BasicOp::Assert { .. } = op
                    && !stm.pat.is_empty()
                {
                    return self.fail("assert binds no variables");
                }
                let tys = type_of_exp(self.names, &stm.exp);
                self.expect_pattern(stm, &tys)?;
                Ok(consumed)
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                self.expect_se(cond, PrimType::Bool, "the condition")?;
                self.expect_pattern_class(stm, ret, "the if")?;
                let pat = self.pat_types(stm)?;
                let mut consumed = Vec::new();
                for (body, which) in [(then_body, "then"), (else_body, "else")] {
                    self.push_frame();
                    let tys = self.body(body)?;
                    let (free, _) = self.pop_frame();
                    consumed.extend(free);
                    if tys.len() != pat.len() {
                        return self.fail(format!(
                            "the {which} branch returns {} values, expected {}",
                            tys.len(),
                            pat.len()
                        ));
                    }
                    let subst: Subst = stm
                        .pat
                        .iter()
                        .zip(&body.result)
                        .map(|(p, r)| (*p, Some(*r)))
                        .collect();
                    for (i, (p, t)) in pat.iter().zip(&tys).enumerate() {
                        self.expect_type(
                            p,
                            t,
                            &subst,
                            &format!("result {i} of the {which} branch"),
                        )?;
                    }
                }
                Ok(consumed)
            }
            Exp::Loop { params, form, body } => self.loop_(stm, params, form, body),
            Exp::Apply { fun, args, ret } => {
                let arg_tys = self.use_ses(args)?;
                let Some(callee) = self.funs.get(fun.as_str()).copied() else {
                    return self.fail(format!("call of unknown function `{fun}`"));
                };
                if args.len() != callee.params.len() {
                    return self.fail(format!(
                        "`{fun}` takes {} arguments, given {}",
                        callee.params.len(),
                        args.len()
                    ));
                }
                for (i, (a, p)) in arg_tys.iter().zip(&callee.params).enumerate() {
                    let pt = self.ty(*p)?;
                    if !same_shape_class(&pt, a) {
                        return self.fail(format!(
                            "argument {i} of `{fun}` has type {}, the parameter {}",
                            self.show_ty(a),
                            self.show_ty(&pt)
                        ));
                    }
                }
                if ret.len() != callee.ret.len()
                    || !ret
                        .iter()
                        .zip(&callee.ret)
                        .all(|(a, b)| same_shape_class(a, b))
                {
                    return self.fail(format!(
                        "the declared result types do not match those of `{fun}`"
                    ));
                }
                self.expect_pattern_class(stm, ret, "the call")?;
                Ok(vec![])
            }
            Exp::Soac(soac) => {
                let consumed = self.soac(soac)?;
                let tys = type_of_exp(self.names, &stm.exp);
                self.expect_pattern(stm, &tys)?;
                Ok(consumed)
            }
            Exp::WithAcc { inputs, lam } => {
                let mut consumed = Vec::new();
                let mut acc_tys = Vec::new();
                for (shape, arrays) in inputs {
                    for d in shape {
                        self.check_dim(d, "a with_acc shape")?;
                    }
                    let mut elems = Vec::new();
                    for a in arrays {
                        let t = self.use_var(*a)?;
                        if !t.dims().starts_with(shape) {
                            return self.fail(format!(
                                "with_acc input {} of type {} does not have shape [{}]",
                                self.show(*a),
                                self.show_ty(&t),
                                shape
                                    .iter()
                                    .map(|d| self.show_se(d))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ));
                        }
                        elems.push(t.elem());
                        consumed.push(*a);
                    }
                    acc_tys.push(Type::Acc {
                        shape: shape.clone(),
                        elems,
                    });
                }
                if lam.params.len() != inputs.len() {
                    return self.fail(format!(
                        "the with_acc lambda takes {} parameters, expected one accumulator per input ({})",
                        lam.params.len(),
                        inputs.len()
                    ));
                }
                self.acc_depth += 1;
                self.lambda_runs_once = true;
                let r = self.lambda(lam, &acc_tys, "the with_acc lambda");
                self.acc_depth -= 1;
                r?;
                if lam.ret.len() < inputs.len()
                    || !lam.ret.iter().zip(&acc_tys).all(|(a, b)| a == b)
                {
                    return self.fail(
                        "the with_acc lambda must return its accumulators first, with their types",
                    );
                }
                let tys = type_of_exp(self.names, &stm.exp);
                self.expect_pattern(stm, &tys)?;
                Ok(consumed)
            }
            Exp::Ad {
                mode,
                lam,
                args,
                seeds,
            } => {
                let what = format!("the lambda of {}", mode.name());
                let arg_tys = self.use_ses(args)?;
                // The differentiated function runs once, in place of the statement.
                self.lambda_runs_once = true;
                self.lambda(lam, &arg_tys, &what)?;
                let seed_tys = self.use_ses(seeds)?;
                let (expected, of) = match mode {
                    AdMode::Jvp => (arg_tys, "parameter"),
                    AdMode::Vjp => (lam.ret.clone(), "result"),
                };
                if seed_tys.len() != expected.len() {
                    return self.fail(format!(
                        "{} has {} seeds, expected one per {of} ({})",
                        mode.name(),
                        seed_tys.len(),
                        expected.len()
                    ));
                }
                // Sizes of seeds are checked when the AD pass expands the statement.
                for (k, (s, e)) in seed_tys.iter().zip(&expected).enumerate() {
                    if s.elem() != e.elem() || s.rank() != e.rank() {
                        return self.fail(format!(
                            "seed #{k} of {} has type {}, expected the type of its {of}, {}",
                            mode.name(),
                            self.show_ty(s),
                            self.show_ty(e)
                        ));
                    }
                }
                let tys = type_of_exp(self.names, &stm.exp);
                self.expect_pattern(stm, &tys)?;
                Ok(Vec::new())
            }
        }
    }

    fn loop_(
        &mut self,
        stm: &'a Stm,
        params: &'a [(Var, SubExp)],
        form: &'a LoopForm,
        body: &'a Body,
    ) -> R<Vec<Var>> {
        let init_tys = params
            .iter()
            .map(|(_, e)| self.use_se(e))
            .collect::<R<Vec<_>>>()?;
        if let LoopForm::For { bound, .. } = form {
            self.use_se(bound)?;
        }
        let init_subst: Subst = params.iter().map(|(p, e)| (*p, Some(*e))).collect();
        for ((p, _), t) in params.iter().zip(&init_tys) {
            let pt = self.ty(*p)?;
            self.expect_type(
                &pt,
                t,
                &init_subst,
                &format!("the initial value of {}", self.show(*p)),
            )?;
        }
        self.push_frame();
        for (p, _) in params {
            self.bind(*p)?;
        }
        match form {
            LoopForm::For { i, bound } => {
                self.bind(*i)?;
                let it = self.ty(*i)?;
                let bt = self.se_ty(bound)?;
                if it != bt || !matches!(bt, Type::Prim(t) if t.is_int()) {
                    return self.fail(format!(
                        "the loop counter {} has type {} and the bound {}: expected the same integer type",
                        self.show(*i),
                        self.show_ty(&it),
                        self.show_ty(&bt)
                    ));
                }
            }
            LoopForm::While { cond } => {
                if !params.iter().any(|(p, _)| p == cond) {
                    return self.fail(format!(
                        "the while condition {} is not a loop parameter",
                        self.show(*cond)
                    ));
                }
                if self.ty(*cond)? != Type::Prim(PrimType::Bool) {
                    return self.fail(format!(
                        "the while condition {} is not a bool",
                        self.show(*cond)
                    ));
                }
            }
        }
        let tys = self.body(body)?;
        let (free, own) = self.pop_frame();
        if let Some(v) = free.iter().next() {
            return self.fail(format!(
                "the loop body consumes {}, which is bound outside the loop",
                self.show(*v)
            ));
        }
        if tys.len() != params.len() {
            return self.fail(format!(
                "the loop body returns {} values for {} parameters",
                tys.len(),
                params.len()
            ));
        }
        let res_subst: Subst = params
            .iter()
            .zip(&body.result)
            .map(|((p, _), r)| (*p, Some(*r)))
            .collect();
        for ((p, _), t) in params.iter().zip(&tys) {
            let pt = self.ty(*p)?;
            self.expect_type(
                &pt,
                t,
                &res_subst,
                &format!("the loop body's result for {}", self.show(*p)),
            )?;
        }
        // The pattern has the parameters' types, with parameters standing for the pattern.
        if stm.pat.len() != params.len() {
            return self.fail(format!(
                "the pattern binds {} variables, the loop has {} parameters",
                stm.pat.len(),
                params.len()
            ));
        }
        let pat_subst: Subst = params
            .iter()
            .zip(&stm.pat)
            .map(|((p, _), v)| (*p, Some(SubExp::Var(*v))))
            .collect();
        for ((p, _), v) in params.iter().zip(&stm.pat) {
            let pt = self.ty(*p)?;
            let vt = self.ty(*v)?;
            self.expect_type(
                &pt,
                &vt,
                &pat_subst,
                &format!("pattern variable {}", self.show(*v)),
            )?;
        }
        Ok(params
            .iter()
            .filter(|(p, _)| own.contains(p))
            .filter_map(|(_, e)| e.as_var())
            .collect())
    }

    /// Checks a lambda whose parameters must have `param_tys`; checks its body against its
    /// declared result types.
    fn lambda(&mut self, lam: &'a Lambda, param_tys: &[Type], what: &str) -> R {
        let once = std::mem::take(&mut self.lambda_runs_once);
        if lam.params.len() != param_tys.len() {
            return self.fail(format!(
                "{what} takes {} parameters, expected {}",
                lam.params.len(),
                param_tys.len()
            ));
        }
        self.push_frame();
        for (p, t) in lam.params.iter().zip(param_tys) {
            self.bind(*p)?;
            let pt = self.ty(*p)?;
            self.expect_type(
                t,
                &pt,
                &Subst::new(),
                &format!("parameter {} of {what}", self.show(*p)),
            )?;
        }
        for t in &lam.ret {
            self.check_type_dims(t, &format!("the result type of {what}"))?;
        }
        self.body_results(&lam.body, &lam.ret, &Subst::new(), what)?;
        let (free, _) = self.pop_frame();
        if once {
            // A with_acc lambda runs exactly once: consuming an outer value (an enclosing
            // accumulator threaded through it) consumes it in the enclosing scope.
            for v in free {
                self.consume(v);
            }
            return Ok(());
        }
        if let Some(v) = free.iter().next() {
            return self.fail(format!(
                "{what} consumes {}, which is bound outside it",
                self.show(*v)
            ));
        }
        Ok(())
    }

    fn expect_width(&self, arrays: &[Var], w: &SubExp, what: &str) -> R<Vec<Type>> {
        let mut tys = Vec::new();
        for a in arrays {
            let t = self.use_var(*a)?;
            if let Type::Acc { .. } = t {
                tys.push(t);
                continue;
            }
            if t.dims().first() != Some(w) {
                return self.fail(format!(
                    "{what} {} has type {}, expected outer size {}",
                    self.show(*a),
                    self.show_ty(&t),
                    self.show_se(w)
                ));
            }
            tys.push(t);
        }
        Ok(tys)
    }

    fn soac(&mut self, soac: &'a Soac) -> R<Vec<Var>> {
        let (w, what) = match soac {
            Soac::Map { w, .. } => (w, "map"),
            Soac::Reduce { w, .. } => (w, "reduce"),
            Soac::Scan { w, .. } => (w, "scan"),
            Soac::Hist { w, .. } => (w, "hist"),
            Soac::Scatter { w, .. } => (w, "scatter"),
            Soac::Screma { w, form, .. } => (
                w,
                match &**form {
                    ScremaForm::Reduce { .. } => "redomap",
                    ScremaForm::Scan { .. } => "scanomap",
                    ScremaForm::Hist { .. } => "histomap",
                    ScremaForm::Scatter { .. } => "scattermap",
                },
            ),
        };
        self.expect_se(w, PrimType::I64, &format!("the width of {what}"))?;
        match soac {
            Soac::Map { w, lam, arrays } => {
                let tys = self.expect_width(arrays, w, "map input")?;
                let rows: Vec<Type> = tys.iter().map(map_param_type).collect();
                self.lambda(lam, &rows, "the map lambda")?;
                Ok(arrays
                    .iter()
                    .zip(&tys)
                    .filter(|(_, t)| matches!(t, Type::Acc { .. }))
                    .map(|(a, _)| *a)
                    .collect())
            }
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            }
            | Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => {
                let tys = self.expect_width(arrays, w, &format!("{what} input"))?;
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.operator(lam, neutral, &rows, what)?;
                Ok(vec![])
            }
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                self.indices(*indices, w, what)?;
                let tys = self.expect_width(values, w, "hist values")?;
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.dests(dests, &rows, what)?;
                self.operator(lam, neutral, &rows, what)?;
                Ok(dests.clone())
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => {
                self.indices(*indices, w, what)?;
                let tys = self.expect_width(values, w, "scatter values")?;
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.dests(dests, &rows, what)?;
                Ok(dests.clone())
            }
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => {
                let tys = self.expect_width(arrays, w, &format!("{what} input"))?;
                if tys.iter().any(|t| matches!(t, Type::Acc { .. })) {
                    return self.fail(format!("{what} takes an accumulator as input"));
                }
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.lambda(map, &rows, &format!("the map lambda of {what}"))?;
                let values: &'a [Type] = match &**form {
                    ScremaForm::Reduce { .. } | ScremaForm::Scan { .. } => &map.ret,
                    ScremaForm::Hist { .. } | ScremaForm::Scatter { .. } => {
                        if map.ret.first() != Some(&Type::Prim(PrimType::I64)) {
                            return self.fail(format!(
                                "the map lambda of {what} must return an i64 index first"
                            ));
                        }
                        &map.ret[1..]
                    }
                };
                if matches!(**form, ScremaForm::Hist { .. } | ScremaForm::Scatter { .. }) {
                    self.dests(form.dests(), values, what)?;
                }
                if let (
                    Some(op),
                    ScremaForm::Reduce { neutral, .. }
                    | ScremaForm::Scan { neutral, .. }
                    | ScremaForm::Hist { neutral, .. },
                ) = (form.op(), &**form)
                {
                    self.operator(op, neutral, values, what)?;
                }
                Ok(form.dests().to_vec())
            }
        }
    }

    fn indices(&self, indices: Var, w: &SubExp, what: &str) -> R {
        let t = self.use_var(indices)?;
        let expected = Type::array(PrimType::I64, vec![*w]);
        self.expect_type(
            &expected,
            &t,
            &Subst::new(),
            &format!("the indices of {what}"),
        )
    }

    fn dests(&self, dests: &[Var], rows: &[Type], what: &str) -> R {
        if dests.len() != rows.len() {
            return self.fail(format!(
                "{what} has {} destinations and {} value arrays",
                dests.len(),
                rows.len()
            ));
        }
        for (d, row) in dests.iter().zip(rows) {
            let t = self.use_var(*d)?;
            if t.rank() == 0 || !type_matches(row, &t.row(), &Subst::new()) {
                return self.fail(format!(
                    "{what} destination {} has type {}, expected rows of type {}",
                    self.show(*d),
                    self.show_ty(&t),
                    self.show_ty(row)
                ));
            }
        }
        Ok(())
    }

    /// An associative operator with `k` neutral elements over rows of types `rows`.
    fn operator(&mut self, lam: &'a Lambda, neutral: &[SubExp], rows: &[Type], what: &str) -> R {
        let k = rows.len();
        if neutral.len() != k || lam.ret.len() != k {
            return self.fail(format!(
                "{what} has {} neutral elements and {} lambda results for {k} inputs",
                neutral.len(),
                lam.ret.len()
            ));
        }
        let ne_tys = self.use_ses(neutral)?;
        for (i, (t, r)) in ne_tys.iter().zip(rows).enumerate() {
            self.expect_type(
                r,
                t,
                &Subst::new(),
                &format!("neutral element {i} of {what}"),
            )?;
        }
        for (i, (t, r)) in lam.ret.iter().zip(rows).enumerate() {
            self.expect_type(
                r,
                t,
                &Subst::new(),
                &format!("result type {i} of the {what} lambda"),
            )?;
        }
        let params: Vec<Type> = rows.iter().chain(rows).cloned().collect();
        self.lambda(lam, &params, &format!("the {what} lambda"))
    }

    fn slice(&self, array_ty: &Type, slice: &[DimIndex], what: &str) -> R {
        if array_ty.rank() == 0 {
            return self.fail(format!(
                "{what} of a value of type {}, which is not an array",
                self.show_ty(array_ty)
            ));
        }
        if slice.len() > array_ty.rank() {
            return self.fail(format!(
                "{what} with {} indices of an array of rank {}",
                slice.len(),
                array_ty.rank()
            ));
        }
        for d in slice {
            match d {
                DimIndex::Fix(i) => self.expect_se(i, PrimType::I64, "index")?,
                DimIndex::Slice {
                    start,
                    count,
                    stride,
                } => {
                    self.expect_se(start, PrimType::I64, "slice start")?;
                    self.expect_se(count, PrimType::I64, "slice count")?;
                    self.expect_se(stride, PrimType::I64, "slice stride")?;
                }
            }
        }
        Ok(())
    }

    fn shape(&self, shape: &[SubExp], what: &str) -> R {
        for d in shape {
            self.use_se(d)?;
            self.check_dim(d, what)?;
        }
        Ok(())
    }

    fn array(&self, v: Var, what: &str) -> R<Type> {
        let t = self.use_var(v)?;
        if t.rank() == 0 {
            return self.fail(format!(
                "{what} {} has type {}, which is not an array",
                self.show(v),
                self.show_ty(&t)
            ));
        }
        Ok(t)
    }

    /// Checks a basic operation; returns the variables it consumes.
    fn basic_op(&mut self, op: &BasicOp) -> R<Vec<Var>> {
        match op {
            BasicOp::SubExp(se) => {
                self.use_se(se)?;
            }
            BasicOp::Prim(p, args) => self.prim(*p, args)?,
            BasicOp::Index { array, slice } => {
                let t = self.use_var(*array)?;
                self.slice(&t, slice, "indexing")?;
            }
            BasicOp::Update {
                array,
                slice,
                value,
            } => {
                let t = self.use_var(*array)?;
                self.slice(&t, slice, "an update")?;
                let vt = self.use_se(value)?;
                let expected = Type::array(t.elem(), slice_dims(t.dims(), slice));
                self.expect_type(&expected, &vt, &Subst::new(), "the updated value")?;
                return Ok(vec![*array]);
            }
            BasicOp::Iota {
                n,
                start,
                stride,
                elem,
            } => {
                if !elem.is_int() {
                    return self.fail(format!("iota of non-integer type {elem}"));
                }
                self.expect_se(n, PrimType::I64, "the iota count")?;
                self.expect_se(start, *elem, "the iota start")?;
                self.expect_se(stride, *elem, "the iota stride")?;
            }
            BasicOp::Replicate { shape, value } => {
                self.shape(shape, "the replicate shape")?;
                let t = self.use_se(value)?;
                if matches!(t, Type::Acc { .. }) {
                    return self.fail("replicate of an accumulator");
                }
            }
            BasicOp::Scratch { shape, .. } => self.shape(shape, "the scratch shape")?,
            BasicOp::ArrayLit { elems, row } => {
                self.check_type_dims(row, "the row type of the array literal")?;
                if matches!(row, Type::Acc { .. }) {
                    return self.fail("array literal of accumulators");
                }
                for (i, e) in elems.iter().enumerate() {
                    let t = self.use_se(e)?;
                    self.expect_type(row, &t, &Subst::new(), &format!("element {i}"))?;
                }
            }
            BasicOp::Concat { arrays, size } => {
                self.expect_se(size, PrimType::I64, "the concat size")?;
                let Some(first) = arrays.first() else {
                    return self.fail("concat of no arrays");
                };
                let t0 = self.array(*first, "concat input")?;
                for a in &arrays[1..] {
                    let t = self.array(*a, "concat input")?;
                    if t.elem() != t0.elem() || t.dims()[1..] != t0.dims()[1..] {
                        return self.fail(format!(
                            "concat inputs of types {} and {}",
                            self.show_ty(&t0),
                            self.show_ty(&t)
                        ));
                    }
                }
            }
            BasicOp::Copy(v) => {
                let t = self.use_var(*v)?;
                if matches!(t, Type::Acc { .. }) {
                    return self.fail("copy of an accumulator");
                }
            }
            BasicOp::Reshape { array, shape } => {
                self.array(*array, "reshape input")?;
                self.shape(shape, "the reshape shape")?;
                if shape.is_empty() {
                    return self.fail("reshape to an empty shape");
                }
            }
            BasicOp::Rearrange { array, perm } => {
                let t = self.array(*array, "rearrange input")?;
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..t.rank()).collect::<Vec<_>>() {
                    return self.fail(format!(
                        "{:?} is not a permutation of the {} dimensions of {}",
                        perm,
                        t.rank(),
                        self.show(*array)
                    ));
                }
            }
            BasicOp::Rotate { array, amount } => {
                self.array(*array, "rotate input")?;
                self.expect_se(amount, PrimType::I64, "the rotation amount")?;
            }
            BasicOp::Coerce { array, shape, .. } => {
                let t = self.array(*array, "coerce input")?;
                self.shape(shape, "the coerce shape")?;
                if shape.len() != t.rank() {
                    return self.fail(format!(
                        "coerce of {} (rank {}) to rank {}",
                        self.show(*array),
                        t.rank(),
                        shape.len()
                    ));
                }
            }
            BasicOp::Assert {
                cond,
                message,
                args,
            } => {
                self.expect_se(cond, PrimType::Bool, "the assertion")?;
                self.use_ses(args)?;
                let holes = message.matches("{}").count();
                if holes != args.len() {
                    return self.fail(format!(
                        "the assertion message has {holes} `{{}}` for {} arguments",
                        args.len()
                    ));
                }
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => {
                let t = self.use_var(*acc)?;
                let Type::Acc { shape, elems } = &t else {
                    return self.fail(format!(
                        "update_acc of {}, of type {}, which is not an accumulator",
                        self.show(*acc),
                        self.show_ty(&t)
                    ));
                };
                if indices.len() != shape.len() {
                    return self.fail(format!(
                        "update_acc with {} indices into an accumulator of rank {}",
                        indices.len(),
                        shape.len()
                    ));
                }
                for i in indices {
                    self.expect_se(i, PrimType::I64, "the update_acc index")?;
                }
                if values.len() != elems.len() {
                    return self.fail(format!(
                        "update_acc with {} values into {} arrays",
                        values.len(),
                        elems.len()
                    ));
                }
                for (v, e) in values.iter().zip(elems) {
                    let vt = self.use_se(v)?;
                    if vt.elem() != *e || matches!(vt, Type::Acc { .. }) {
                        return self.fail(format!(
                            "update_acc value {} has type {}, expected element type {e}",
                            self.show_se(v),
                            self.show_ty(&vt)
                        ));
                    }
                }
                return Ok(vec![*acc]);
            }
        }
        Ok(vec![])
    }

    fn prim(&self, p: PrimOp, args: &[SubExp]) -> R {
        let expected = p.operand_types();
        if args.len() != expected.len() {
            return self.fail(format!(
                "{p} takes {} operands, given {}",
                expected.len(),
                args.len()
            ));
        }
        for (i, (a, t)) in args.iter().zip(expected).enumerate() {
            self.expect_se(a, t, &format!("operand {i} of {p}"))?;
        }
        Ok(())
    }
}
