//! The core IR.
//!
//! A typed, first-order language in A-normal form, close to Futhark's internal representation
//! (docs/design.md §Core IR):
//!
//! * a [`Prog`] is a table of names ([`NameTable`]: hint and type of every [`Var`]) and a list of
//!   functions; entry points are functions with [`EntryInfo`];
//! * a [`Body`] is statements followed by the sub-expressions it returns;
//! * a [`Stm`] binds one or more fresh variables (its pattern) to one [`Exp`];
//! * operands are [`SubExp`]s: constants or variables;
//! * every variable is bound exactly once in the whole program, so passes never worry about
//!   capture;
//! * types ([`Type`]) are primitives, regular arrays of primitives whose dimensions are
//!   sub-expressions (constants or `i64` variables in scope), and accumulators — no tuples, no
//!   records, no functions;
//! * lambdas ([`Lambda`]) appear only inside SOACs and `with_acc`; they may use variables of
//!   the enclosing scope.
//!
//! Printed form (see `print.rs`), for a dot product:
//!
//! ```text
//! entry dot (n_0: i64, xs_1: [n_0]f64, ys_2: [n_0]f64) : f64 {
//!   let prods_3: [n_0]f64 = map(n_0, \(x_4: f64, y_5: f64) : f64 -> { let p_6: f64 = mul_f64(x_4, y_5) in p_6 }, xs_1, ys_2)
//!   let r_7: f64 = reduce(n_0, \(a_8: f64, b_9: f64) : f64 -> { let s_10: f64 = add_f64(a_8, b_9) in s_10 }, 0.0f64, prods_3)
//!   in r_7
//! }
//! ```
//!
//! Existential sizes: an `if` or `loop` whose array results have sizes not known before it
//! returns those sizes as extra leading results, and binds them as extra leading pattern
//! variables, which the array variables' types then mention (as Futhark's core does).

use crate::core::prim::PrimOp;
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use std::fmt;

/// A variable: an index into the program's [`NameTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// A constant or a variable: the only operands of expressions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SubExp {
    /// A primitive constant.
    Const(Scalar),
    /// A variable in scope.
    Var(Var),
}

impl SubExp {
    /// The `i64` constant `n`.
    pub fn i64(n: i64) -> SubExp {
        SubExp::Const(Scalar::I64(n))
    }
    /// The variable, if this is one.
    pub fn as_var(&self) -> Option<Var> {
        match self {
            SubExp::Var(v) => Some(*v),
            SubExp::Const(_) => None,
        }
    }
}

impl From<Var> for SubExp {
    fn from(v: Var) -> Self {
        SubExp::Var(v)
    }
}

/// The type of a core variable.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// A primitive value.
    Prim(PrimType),
    /// A regular array: element type and dimensions, outermost first (at least one). Each
    /// dimension is an `i64` constant or variable.
    Array {
        /// Element type.
        elem: PrimType,
        /// Dimensions, outermost first.
        dims: Vec<SubExp>,
    },
    /// An accumulator: a write-only view, inside `with_acc`, of arrays of the given shape and
    /// element types (one per accumulated array). See [`Exp::WithAcc`].
    Acc {
        /// Shape of the accumulated arrays (shared).
        shape: Vec<SubExp>,
        /// Element type of each accumulated array.
        elems: Vec<PrimType>,
    },
}

impl Type {
    /// An array type.
    pub fn array(elem: PrimType, dims: Vec<SubExp>) -> Type {
        if dims.is_empty() {
            Type::Prim(elem)
        } else {
            Type::Array { elem, dims }
        }
    }
    /// The element (primitive) type; for accumulators, the first element type.
    pub fn elem(&self) -> PrimType {
        match self {
            Type::Prim(t) => *t,
            Type::Array { elem, .. } => *elem,
            Type::Acc { elems, .. } => elems.first().copied().unwrap_or(PrimType::Bool),
        }
    }
    /// The dimensions (empty for primitives and accumulators).
    pub fn dims(&self) -> &[SubExp] {
        match self {
            Type::Array { dims, .. } => dims,
            _ => &[],
        }
    }
    /// The rank (0 for primitives).
    pub fn rank(&self) -> usize {
        self.dims().len()
    }
    /// The type of one row (an element of the outer dimension).
    pub fn row(&self) -> Type {
        match self {
            Type::Array { elem, dims } => Type::array(*elem, dims[1..].to_vec()),
            other => other.clone(),
        }
    }
    /// This type with an extra outer dimension `n`.
    pub fn array_of(&self, n: SubExp) -> Type {
        let mut dims = vec![n];
        dims.extend_from_slice(self.dims());
        Type::array(self.elem(), dims)
    }
}

/// Program-wide table of variables: a readable hint and a type for each [`Var`].
#[derive(Clone, Debug, Default)]
pub struct NameTable {
    hints: Vec<String>,
    types: Vec<Type>,
}

impl NameTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }
    /// A fresh variable with a hint (what it is, e.g. `xs`, `mul_lhs_adj`) and a type.
    pub fn fresh(&mut self, hint: &str, ty: Type) -> Var {
        self.hints.push(hint.to_string());
        self.types.push(ty);
        Var(self.hints.len() as u32 - 1)
    }
    /// The hint of `v`.
    pub fn hint(&self, v: Var) -> &str {
        self.hints.get(v.0 as usize).map_or("?", String::as_str)
    }
    /// The type of `v`.
    pub fn ty(&self, v: Var) -> &Type {
        &self.types[v.0 as usize]
    }
    /// Replaces the type of `v` (used by passes that refine sizes).
    pub fn set_ty(&mut self, v: Var, ty: Type) {
        self.types[v.0 as usize] = ty;
    }
    /// The type of a sub-expression.
    pub fn subexp_ty(&self, se: &SubExp) -> Type {
        match se {
            SubExp::Const(c) => Type::Prim(c.prim_type()),
            SubExp::Var(v) => self.ty(*v).clone(),
        }
    }
    /// Number of variables.
    pub fn len(&self) -> usize {
        self.hints.len()
    }
    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.hints.is_empty()
    }
    /// The printed name `hint_id`.
    pub fn display(&self, v: Var) -> String {
        format!("{}_{}", self.hint(v), v.0)
    }
}

/// The attribute of an `if` whose condition only says whether its then branch may be used:
/// both branches compute the same values (up to rounding), and the else branch does so whatever
/// the condition. Reverse mode puts it on the choice between recomputing a loop's iterates by
/// inversion and re-running the loop with checkpoints; an analysis that cannot evaluate the
/// condition may take the else branch (the sharding analysis does).
pub const ATTR_FALLBACK: &str = "fallback";

/// Where a statement came from: its source span, the call sites it was inlined through
/// (innermost first), and its attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Aux {
    /// The source expression.
    pub span: Span,
    /// Call sites of the functions this statement was inlined from, innermost first.
    pub callers: Vec<Span>,
    /// Attributes such as `unsafe`, `stripmine(2)`.
    pub attrs: Vec<String>,
    /// Whether the AD pass added the statement: derivative code, in which a zero tangent
    /// or adjoint is a strong zero (see the float policy of [`crate::opt`]). Provenance, like
    /// the span: not printed.
    pub derivative: bool,
}

/// A statement: `let pat = exp`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stm {
    /// The variables bound, in the order of the expression's results.
    pub pat: Vec<Var>,
    /// The expression.
    pub exp: Exp,
    /// Source location and attributes.
    pub aux: Aux,
}

/// Statements followed by results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Body {
    /// Statements, in order.
    pub stms: Vec<Stm>,
    /// What the body returns.
    pub result: Vec<SubExp>,
}

/// An anonymous function, only as an argument of a SOAC or `with_acc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    /// Parameters (their types are in the name table).
    pub params: Vec<Var>,
    /// The body.
    pub body: Body,
    /// Result types.
    pub ret: Vec<Type>,
}

/// One dimension of an index or slice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DimIndex {
    /// A single position: removes the dimension.
    Fix(SubExp),
    /// `count` positions `start, start + stride, ...`: keeps the dimension, with size `count`.
    Slice {
        /// First position.
        start: SubExp,
        /// Number of positions.
        count: SubExp,
        /// Distance between positions (non-zero, may be negative).
        stride: SubExp,
    },
}

/// Operations without sub-bodies.
#[derive(Clone, Debug, PartialEq)]
pub enum BasicOp {
    /// The value of a sub-expression: `x`, `3i32`.
    SubExp(SubExp),
    /// A primitive scalar operation from the table in [`crate::core::prim`]: `add_f64(x, y)`.
    Prim(PrimOp, Vec<SubExp>),
    /// Indexing and slicing `xs[i, 2:5:1]`: the result shares no storage that the program can
    /// observe. Every position must be in bounds (a run-time error otherwise).
    Index {
        /// The array.
        array: Var,
        /// One entry per leading dimension (fewer than the rank selects sub-arrays).
        slice: Vec<DimIndex>,
    },
    /// In-place update `xs with [i, 2:5:1] = v`: consumes `array`. `value` is a scalar for a
    /// full index, or an array of the slice's shape.
    Update {
        /// The array, consumed.
        array: Var,
        /// The positions written.
        slice: Vec<DimIndex>,
        /// The value written.
        value: SubExp,
    },
    /// `iota(n, start, stride)`: `[start, start + stride, ..., start + (n-1)·stride]` of
    /// integer type `elem`. `n` must be non-negative.
    Iota {
        /// Number of elements.
        n: SubExp,
        /// First element.
        start: SubExp,
        /// Step.
        stride: SubExp,
        /// Element type.
        elem: PrimType,
    },
    /// `replicate([n, m], v)`: an array of shape `shape ++ shape(v)` filled with copies of `v`.
    Replicate {
        /// Leading dimensions.
        shape: Vec<SubExp>,
        /// The replicated value (scalar or array).
        value: SubExp,
    },
    /// `scratch(f64, [n])`: an array whose contents are never read before being written.
    Scratch {
        /// Element type.
        elem: PrimType,
        /// Shape.
        shape: Vec<SubExp>,
    },
    /// An array literal `[a, b, c]` whose rows have type `row`; all rows must have the same
    /// shape (checked at run time).
    ArrayLit {
        /// The rows.
        elems: Vec<SubExp>,
        /// Type of each row.
        row: Type,
    },
    /// Concatenation along the outer dimension; inner shapes must agree. `size` is the result's
    /// outer size (the sum of the inputs').
    Concat {
        /// The arrays, in order.
        arrays: Vec<Var>,
        /// Outer size of the result.
        size: SubExp,
    },
    /// A copy that shares nothing with its input.
    Copy(Var),
    /// Reinterprets the array with a new shape of the same number of elements (flatten,
    /// unflatten); a run-time size error otherwise.
    Reshape {
        /// The array.
        array: Var,
        /// The new shape.
        shape: Vec<SubExp>,
    },
    /// Permutes dimensions: result dimension `i` is input dimension `perm[i]` (`transpose`
    /// is `[1, 0, 2, ...]`).
    Rearrange {
        /// The array.
        array: Var,
        /// The permutation.
        perm: Vec<usize>,
    },
    /// Left rotation of the outer dimension: element `i` of the result is element
    /// `(i + amount) mod n` of the input.
    Rotate {
        /// The array.
        array: Var,
        /// Rotation amount (`i64`, may be negative).
        amount: SubExp,
    },
    /// Checks that the array has exactly `shape` (a size coercion or ascription); the result is
    /// the same array with the new type. On failure:
    /// `value of shape [3] cannot match shape of type "[2]f64".`
    Coerce {
        /// The array.
        array: Var,
        /// The required shape.
        shape: Vec<SubExp>,
        /// The required type as written in the source, for the error message.
        type_text: String,
    },
    /// Binds nothing; fails with `message` when `cond` is false. Messages are complete texts
    /// of docs/language.md §Run-time errors (`Assertion is false: n > 0`, `Range 5..<1 is
    /// invalid.`) in which each `{}` is replaced by the printed value of the corresponding `args`
    /// entry.
    Assert {
        /// The condition.
        cond: SubExp,
        /// The message template.
        message: String,
        /// Values substituted into the template.
        args: Vec<SubExp>,
    },
    /// `update_acc(acc, [i, j], [v1, v2])`: adds `vs` into position `[i, j]` of the arrays
    /// behind accumulator `acc` and returns the updated accumulator (consumes `acc`).
    /// Out-of-range positions are ignored.
    UpdateAcc {
        /// The accumulator, consumed.
        acc: Var,
        /// Position (one index per accumulator dimension).
        indices: Vec<SubExp>,
        /// One value per accumulated array.
        values: Vec<SubExp>,
    },
}

/// The iteration form of a loop.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < bound`: `i` runs over `0 .. bound-1` with the type of `bound` (an integer).
    For {
        /// The counter.
        i: Var,
        /// Number of iterations (none if not positive).
        bound: SubExp,
    },
    /// `while cond`: `cond` is one of the loop parameters (a `bool`); the loop runs while its
    /// current value is true.
    While {
        /// The condition parameter.
        cond: Var,
    },
}

/// Second-order array combinators. `w` is the outer size of every input array.
#[derive(Clone, Debug, PartialEq)]
pub enum Soac {
    /// `map(w, f, xs, ys)`: applies `f` to the rows of the inputs; one result array per result
    /// of `f`, each with outer size `w`.
    Map {
        /// Width.
        w: SubExp,
        /// Function of one row of each input.
        lam: Lambda,
        /// Input arrays.
        arrays: Vec<Var>,
    },
    /// `reduce(w, op, ne, xs)`: combines the rows of `k` arrays with an associative operator
    /// of `2k` parameters (`k` accumulated values, then `k` row values) and `k` neutral
    /// elements. The interpreter combines left to right.
    Reduce {
        /// Width.
        w: SubExp,
        /// The operator.
        lam: Lambda,
        /// Neutral elements.
        neutral: Vec<SubExp>,
        /// Input arrays.
        arrays: Vec<Var>,
        /// Whether the operator is declared commutative (`reduce_comm`).
        commutative: bool,
    },
    /// `scan(w, op, ne, xs)`: inclusive prefix combination, one result array per input.
    Scan {
        /// Width.
        w: SubExp,
        /// The operator.
        lam: Lambda,
        /// Neutral elements.
        neutral: Vec<SubExp>,
        /// Input arrays.
        arrays: Vec<Var>,
    },
    /// `hist(w, dests, op, ne, is, vs)`: for each `j < w` with `is[j]` in range, combines
    /// `vs[j]` into bin `is[j]` of `dests` (consumed), in increasing `j`; out-of-range indices
    /// are ignored. One destination per value array.
    Hist {
        /// Width.
        w: SubExp,
        /// Destination arrays, consumed (bins start with their values).
        dests: Vec<Var>,
        /// The operator (`2k` parameters for `k` destinations).
        lam: Lambda,
        /// Neutral elements.
        neutral: Vec<SubExp>,
        /// Bin indices (`[w]i64`).
        indices: Var,
        /// Values (`[w]t` each).
        values: Vec<Var>,
    },
    /// `scatter(w, dests, is, vs)`: writes `vs[j]` to position `is[j]` of each destination
    /// (consumed), in increasing `j` (the last write wins); out-of-range indices are ignored.
    Scatter {
        /// Width.
        w: SubExp,
        /// Destination arrays, consumed.
        dests: Vec<Var>,
        /// Positions (`[w]i64`).
        indices: Var,
        /// Values, one array per destination.
        values: Vec<Var>,
    },
    /// A `map` fused into the SOAC that consumes all of its results (a "screma", after
    /// Futhark's scan-reduce-map): `map` is applied to the rows of `arrays` and its results
    /// go straight into `form`, row by row, so the mapped arrays are never built. The
    /// meaning is that of `form` applied to `map(w, map, arrays)`, with the map run row by
    /// row interleaved with the consumer; the optimiser builds it only where the consumer's
    /// operator cannot fail, so the interleaving reports the same errors. What `map`
    /// returns depends on the form (see [`ScremaForm`]).
    Screma {
        /// Width.
        w: SubExp,
        /// Function of one row of each input.
        map: Lambda,
        /// Input arrays.
        arrays: Vec<Var>,
        /// The consumer of the mapped values (boxed: it keeps [`Exp`] small).
        form: Box<ScremaForm>,
    },
}

/// The consumer of a [`Soac::Screma`].
#[derive(Clone, Debug, PartialEq)]
pub enum ScremaForm {
    /// `redomap(w, f, op, ne, xs)`: `f` returns `k` values, combined like `reduce`, then
    /// possibly more, its *map results*: the statement binds the `k` reduced values and
    /// then one array `[w]t` per further value of `f`, as a `map` would (a map whose
    /// results a reduction reads and later statements read too, computed in the same
    /// traversal).
    Reduce {
        /// The operator (`2k` parameters).
        lam: Lambda,
        /// Neutral elements.
        neutral: Vec<SubExp>,
        /// Whether the operator is declared commutative (`redomap_comm`).
        commutative: bool,
    },
    /// `scanomap(w, f, op, ne, xs)`: `f` returns `k` values, scanned like `scan`; one result
    /// array per value.
    Scan {
        /// The operator (`2k` parameters).
        lam: Lambda,
        /// Neutral elements.
        neutral: Vec<SubExp>,
    },
    /// `histomap(w, dests, f, op, ne, xs)`: `f` returns a bin index (`i64`) and `k` values,
    /// combined into the bins of the `k` destinations like `hist`.
    Hist {
        /// Destination arrays, consumed.
        dests: Vec<Var>,
        /// The operator (`2k` parameters).
        lam: Lambda,
        /// Neutral elements.
        neutral: Vec<SubExp>,
    },
    /// `scattermap(w, dests, f, xs)`: `f` returns a position (`i64`) and one value per
    /// destination, written like `scatter`.
    Scatter {
        /// Destination arrays, consumed.
        dests: Vec<Var>,
    },
}

impl ScremaForm {
    /// The consumer's operator, if it has one.
    pub fn op(&self) -> Option<&Lambda> {
        match self {
            ScremaForm::Reduce { lam, .. }
            | ScremaForm::Scan { lam, .. }
            | ScremaForm::Hist { lam, .. } => Some(lam),
            ScremaForm::Scatter { .. } => None,
        }
    }
    /// The consumer's operator, if it has one, mutably.
    pub fn op_mut(&mut self) -> Option<&mut Lambda> {
        match self {
            ScremaForm::Reduce { lam, .. }
            | ScremaForm::Scan { lam, .. }
            | ScremaForm::Hist { lam, .. } => Some(lam),
            ScremaForm::Scatter { .. } => None,
        }
    }
    /// The consumed destinations (`hist`, `scatter`).
    pub fn dests(&self) -> &[Var] {
        match self {
            ScremaForm::Hist { dests, .. } | ScremaForm::Scatter { dests } => dests,
            _ => &[],
        }
    }
}

impl Exp {
    /// The bodies nested directly in this expression (branches, loop body, lambdas).
    pub fn bodies(&self) -> Vec<&Body> {
        match self {
            Exp::BasicOp(_) | Exp::Apply { .. } => vec![],
            Exp::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            Exp::Loop { body, .. } => vec![body],
            Exp::Soac(soac) => soac.lambdas().into_iter().map(|l| &l.body).collect(),
            Exp::WithAcc { lam, .. } | Exp::Ad { lam, .. } => vec![&lam.body],
        }
    }
    /// The bodies nested in the expression (not recursively), mutably, in the order of
    /// [`Exp::bodies`].
    pub fn bodies_mut(&mut self) -> Vec<&mut Body> {
        match self {
            Exp::BasicOp(_) | Exp::Apply { .. } => vec![],
            Exp::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            Exp::Loop { body, .. } => vec![body],
            Exp::Soac(soac) => soac
                .lambdas_mut()
                .into_iter()
                .map(|l| &mut l.body)
                .collect(),
            Exp::WithAcc { lam, .. } | Exp::Ad { lam, .. } => vec![&mut lam.body],
        }
    }
}

impl Soac {
    /// Every lambda of the SOAC: the function applied per row first, then the operator.
    pub fn lambdas(&self) -> Vec<&Lambda> {
        match self {
            Soac::Map { lam, .. }
            | Soac::Reduce { lam, .. }
            | Soac::Scan { lam, .. }
            | Soac::Hist { lam, .. } => vec![lam],
            Soac::Scatter { .. } => vec![],
            Soac::Screma { map, form, .. } => std::iter::once(map).chain(form.op()).collect(),
        }
    }
    /// Every lambda of the SOAC, mutably, in the order of [`Soac::lambdas`].
    pub fn lambdas_mut(&mut self) -> Vec<&mut Lambda> {
        match self {
            Soac::Map { lam, .. }
            | Soac::Reduce { lam, .. }
            | Soac::Scan { lam, .. }
            | Soac::Hist { lam, .. } => vec![lam],
            Soac::Scatter { .. } => vec![],
            Soac::Screma { map, form, .. } => std::iter::once(map).chain(form.op_mut()).collect(),
        }
    }
    /// The width.
    pub fn width(&self) -> &SubExp {
        match self {
            Soac::Map { w, .. }
            | Soac::Reduce { w, .. }
            | Soac::Scan { w, .. }
            | Soac::Hist { w, .. }
            | Soac::Scatter { w, .. }
            | Soac::Screma { w, .. } => w,
        }
    }
}

/// Expressions: the right-hand sides of statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Exp {
    /// An operation without sub-bodies.
    BasicOp(BasicOp),
    /// `if c then {..} else {..}`: evaluates one branch; `ret` are the result types (which may
    /// mention existential sizes returned as leading results).
    If {
        /// The condition (a `bool`).
        cond: SubExp,
        /// The true branch.
        then_body: Body,
        /// The false branch.
        else_body: Body,
        /// Result types.
        ret: Vec<Type>,
    },
    /// `loop (p1 = e1, ...) for i < n do {..}`: the body's results become the next values of
    /// the parameters; the loop returns their final values.
    Loop {
        /// Loop parameters and their initial values.
        params: Vec<(Var, SubExp)>,
        /// `for` or `while`.
        form: LoopForm,
        /// The body.
        body: Body,
    },
    /// A call of a function of the program (by name); arguments are the flattened parameters.
    Apply {
        /// The function's name.
        fun: String,
        /// Arguments.
        args: Vec<SubExp>,
        /// Result types.
        ret: Vec<Type>,
    },
    /// A second-order array combinator.
    Soac(Soac),
    /// `with_acc([(shape, arrays)], \accs -> ...)`: runs the lambda with one accumulator per
    /// input group (consuming the arrays); the lambda returns the final accumulators followed
    /// by other results. The statement binds the updated arrays followed by the other results.
    WithAcc {
        /// Per accumulator: its shape and the arrays it accumulates into.
        inputs: Vec<(Vec<SubExp>, Vec<Var>)>,
        /// Takes one accumulator per input and returns them (updated) first.
        lam: Lambda,
    },
    /// `jvp` or `vjp` of a lambda at a point, as internalisation emits them. The AD pass
    /// ([`crate::ad::run`]) expands every one of them, innermost first; no later stage sees
    /// them.
    ///
    /// The lambda takes `args` (one per parameter); its result types mention variables in
    /// scope outside it, its parameters, or variables its body binds at its top level. The
    /// last two are existential sizes of the results (a `filter`'s count, the `n` of
    /// `jvp iota n 1`): the statement binds them too, under the same names, as the AD pass's
    /// expansion does by putting the body in place of the statement. The statement binds its
    /// results, then the derivative: for
    /// [`AdMode::Jvp`] the tangent of each result given the parameters' tangents `seeds`; for
    /// [`AdMode::Vjp`] the adjoint of each parameter given the results' adjoints `seeds`.
    ///
    /// A custom derivative ([`AdMode::WithVjp`], [`AdMode::WithJvp`]) has no seeds: its lambda
    /// takes `args` and then one more parameter per derivative input (the results' adjoints,
    /// or the parameters' tangents), and returns the function's results followed by the
    /// user's derivative. The statement binds the function's results only; an enclosing
    /// `vjp` or `jvp` reads the derivative part, and the AD pass drops it where none does.
    Ad {
        /// Forward or reverse.
        mode: AdMode,
        /// The differentiated function.
        lam: Lambda,
        /// The point: one argument per parameter.
        args: Vec<SubExp>,
        /// Tangents of the parameters (jvp) or adjoints of the results (vjp).
        seeds: Vec<SubExp>,
    },
}

/// The direction of an [`Exp::Ad`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdMode {
    /// Forward mode: tangents of the results.
    Jvp,
    /// Reverse mode: adjoints of the parameters.
    Vjp,
    /// `with_vjp f f' x`: the lambda takes `x` then `ybar` and returns `f x` then
    /// `f' (f x) ybar`, the cotangent of `x` an enclosing `vjp` uses.
    WithVjp,
    /// `with_jvp f f' x`: the lambda takes `x` then `xdot` and returns `f x` then
    /// `f' x xdot`, the tangent of the result an enclosing `jvp` uses.
    WithJvp,
}

impl AdMode {
    /// The name in the IR's text form.
    pub fn name(self) -> &'static str {
        match self {
            AdMode::Jvp => "jvp",
            AdMode::Vjp => "vjp",
            AdMode::WithVjp => "with_vjp",
            AdMode::WithJvp => "with_jvp",
        }
    }

    /// Whether this is a custom derivative (`with_vjp`, `with_jvp`) rather than an AD
    /// operator.
    pub fn is_custom(self) -> bool {
        matches!(self, AdMode::WithVjp | AdMode::WithJvp)
    }

    /// How many of `lam`'s results are the function's own (the rest are the derivative),
    /// for a statement with `n_args` arguments.
    pub fn primal_results(self, lam: &Lambda, n_args: usize) -> usize {
        match self {
            AdMode::Jvp | AdMode::Vjp => lam.ret.len(),
            AdMode::WithVjp => lam.ret.len().saturating_sub(n_args),
            AdMode::WithJvp => lam.ret.len() / 2,
        }
    }
}

/// Information that makes a function an entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryInfo {
    /// The source-level name.
    pub name: String,
    /// Per source-level parameter: its external type and the core parameters it became.
    pub params: Vec<(crate::core::external::ExternalType, Vec<Var>)>,
    /// Per source-level result component: its external type and how many core results it
    /// became.
    pub results: Vec<(crate::core::external::ExternalType, usize)>,
}

/// A function.
#[derive(Clone, Debug, PartialEq)]
pub struct FunDef {
    /// The name (unique in the program).
    pub name: String,
    /// Size parameters: `i64` variables bound from the shapes of the arguments (first
    /// occurrence binds, later occurrences are checked).
    pub size_params: Vec<Var>,
    /// Parameters.
    pub params: Vec<Var>,
    /// The body.
    pub body: Body,
    /// Result types.
    pub ret: Vec<Type>,
    /// Present for entry points.
    pub entry: Option<EntryInfo>,
    /// Source location of the declaration.
    pub span: Span,
}

/// A whole program.
#[derive(Clone, Debug, Default)]
pub struct Prog {
    /// Hints and types of all variables.
    pub names: NameTable,
    /// Functions, entry points among them.
    pub funs: Vec<FunDef>,
}

impl Prog {
    /// The function with this name.
    pub fn fun(&self, name: &str) -> Option<&FunDef> {
        self.funs.iter().find(|f| f.name == name)
    }
    /// The entry point with this source name.
    pub fn entry(&self, name: &str) -> Option<&FunDef> {
        self.funs
            .iter()
            .find(|f| f.entry.as_ref().is_some_and(|e| e.name == name))
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}
