//! Name resolution and type inference: AST -> typed AST (side tables keyed by node id).
//!
//! # Contract
//!
//! [`check_program`] takes the parsed prelude and the parsed main file (one [`NodeId`] space
//! shared by both) and either returns a [`TypedProgram`] or the diagnostics of the first
//! problem found (a user error, or a limitation for T2 features not supported yet). It never
//! panics on any AST.
//!
//! What it guarantees to later stages, for every declaration it accepts:
//!
//! - every expression node has a type in [`TypedProgram::exp_types`] and every pattern node
//!   one in [`TypedProgram::pat_types`], fully substituted: no unification variable that any
//!   constraint touched is left; overloaded literals and operators are defaulted (docs/language.md
//!   §Overloaded literals and operators) per top-level declaration; a type variable that nothing
//!   constrains may stay [`Ty::Var`] (for example the element type of `length []`);
//! - every name-like node (variables, qualified names, operators, sections, backticked
//!   functions) is resolved in [`TypedProgram::resolved`]: a local binding, a declaration, or
//!   a built-in overloaded operator at a known operand type;
//! - polymorphic uses carry their instantiation in [`TypedProgram::instances`], so the
//!   internaliser can monomorphise without re-running inference;
//! - sizes: size parameters and `i64` parameters appear as [`Size::Named`] with the
//!   [`BindingId`] of their binding; sizes that the checker cannot tell are
//!   [`Size::Unknown`]. A size conflict is never an error (docs/language.md §Size rules allows the
//!   run-time check); the conflicting size is kept from the expected side. Sizes that must be
//!   known statically (§Size rules again: `unflatten`, `split`, `rep`, and in general size
//!   parameters that appear bare in no parameter type) are checked and reported by name.
//!   At a call, an `i64` argument for a parameter that sizes depend on (`replicate (n + 1)`)
//!   becomes a size when it is an integer literal, an `i64` variable, a top-level `i64`
//!   constant, or `+`, `-`, `*` of those; otherwise the size is unknown. Sizes naming
//!   bindings that go out of scope (a `let` body's result, a lambda's result) become
//!   unknown. Loop parameters keep the initial sizes only where the body preserves them.
//!
//! What it checks: scoping of values, types and modules; Hindley–Milner inference with
//! let-polymorphism (top-level declarations and local functions with parameters are
//! generalised; overloading-constrained variables of local functions are not); rigid explicit
//! type parameters; literals and overloaded operators (docs/language.md §Overloaded literals and
//! operators) including the range of integer literals; tuples and records (field access needs the
//! record type to be known by the end of the declaration); sum types, constructors and `match` (see
//! below); type abbreviations with parameters; application, sections, pipes, lambdas, `let`, local
//! functions, loops, `if`, indexing, slicing, updates, ranges, ascriptions and coercions; the
//! function restrictions of docs/language.md §Functions as values (no arrays of functions, `if`,
//! `match` and loops cannot produce functions, `'t` cannot be instantiated with a function type).
//!
//! Uniqueness (docs/language.md §Uniqueness) is checked only partially:
//!
//! - a variable is *consumed* when it is the target of `with` (or `let a[i] = v`), an argument
//!   for a `*` parameter of a named function or local function (`scatter xs ...`), or the
//!   initial value of a loop parameter that the loop body consumes;
//! - a name bound by `let` to a variable, or to a row, slice or field (of array type) of one,
//!   aliases that variable: consuming either consumes both;
//! - a consumed variable (or an alias of it) may not be used afterwards (the two branches of
//!   an `if` are checked independently);
//! - a function (top-level or local) may consume only its parameters declared unique (`*`),
//!   also not through an alias;
//! - a lambda, a loop body or a local function may not consume a variable bound outside it
//!   (loop parameters are bound inside their loop).
//!
//! Not checked: aliases other than those above (tuples containing the variable, results of
//! functions whose return type is not unique, `if` and loop results, patterns other than a
//! single name), consumption through operators, sections or partially applied functions,
//! consumption of lambda parameters, and whether a function's result declared unique (`*t`)
//! really is unaliased.
//!
//! Other decisions worth knowing:
//!
//! - `a.b` is a qualified name when `a` is a module, unless a local binding (parameter,
//!   `let`, lambda or loop parameter) named `a` is more recent, which makes it a field access.
//! - A named top-level function may call itself (monomorphically); operators (`def (+)`)
//!   are never in scope in their own body, so a module's `+` can use the outer `+`.
//! - Entry points must not be polymorphic in types (size parameters are fine).
//! - Unqualified built-in operators are [`Resolved::Builtin`] unless a declaration or an
//!   opened module (`open M`, `M.(e)`) provides an operator of that name.
//!
//! Sum types (docs/language.md §Compound types, §Patterns): a constructor expression or pattern
//! requires its type to be a sum with that constructor (a constraint on a type variable until the
//! type is known); a variable left with only such constraints when the declaration is finished
//! becomes the sum of exactly those constructors. Then every `match` is checked to be
//! exhaustive, with no unreachable case, and every constructor pattern outside `case` to
//! belong to a type with a single constructor (`check/exhaustive.rs`).
//!
//! Parametric modules, module types, ascription and `import` are eliminated before checking
//! ([`crate::modules`]); given to the checker directly, they are reported as limitations.

mod check;
mod infer;
mod print;
pub mod ty;

pub use check::check_program;
pub use print::print_typed;
pub use ty::{BindingId, Size, SizeVar, Ty, TyVar};

use crate::syntax::ast::NodeId;
use std::collections::HashMap;

/// Identifies one value declaration (`def`, `entry`, `let` at declaration level).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeclRef {
    /// The names of the enclosing modules, outermost first (`["f64"]` for `f64.sum`); empty
    /// at the top level.
    pub module_path: Vec<String>,
    /// The declared name (an operator symbol for `def (+)`).
    pub name: String,
    /// Index into [`TypedProgram::decls`].
    pub index: usize,
}

/// What a name-like expression node refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    /// A local binding: a pattern identifier (BindingId = the pattern node's `NodeId.0`), a
    /// size parameter or a local function (BindingIds allocated by the checker, at or above
    /// [`FIRST_CHECKER_BINDING`]).
    Local(BindingId),
    /// A top-level or module-level value declaration.
    Decl(DeclRef),
    /// A built-in overloaded operator (`+`, `==`, `&&`, unary `-` on a [`ExpKind::Neg`]
    /// node, `!`, ...) at the operand type the checker resolved.
    ///
    /// [`ExpKind::Neg`]: crate::syntax::ast::ExpKind::Neg
    Builtin {
        /// The operator symbol.
        op: String,
        /// The type of (each) operand.
        operand: Ty,
    },
    /// A dotted name `r.f.g` whose root is a value: the root's resolution, the root's type
    /// and the fields projected from it, outermost first.
    Project {
        /// What the root name refers to (never a `Project`).
        base: Box<Resolved>,
        /// The type of the root value (at this use).
        base_ty: Ty,
        /// The fields, in order.
        fields: Vec<String>,
    },
}

/// The first [`BindingId`] the checker allocates itself (size parameters, local functions,
/// top-level declarations); every smaller id is a pattern node's `NodeId`.
pub const FIRST_CHECKER_BINDING: u32 = 1 << 31;

/// The instantiation of a polymorphic declaration or local function at one use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instance {
    /// Type parameters (as named in the scheme's [`Ty::Param`]s) and their types here.
    pub types: Vec<(String, Ty)>,
    /// Size parameters (and size-dependent `i64` parameters) and their sizes here.
    pub sizes: Vec<(BindingId, Size)>,
}

/// Where a value declaration is in the AST.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecPath {
    /// In the prelude's declarations (else the main program's).
    pub in_prelude: bool,
    /// Indices from the file's declaration list down through `module M = { ... }` bodies.
    /// A `local` wrapper takes no step (its inner declaration has the same path).
    pub path: Vec<usize>,
}

/// What the checker knows about one value declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclInfo {
    /// How to refer to it.
    pub decl: DeclRef,
    /// Where it is.
    pub location: DecPath,
    /// The node id of its body expression.
    pub body: NodeId,
    /// Type parameters (explicit first, then generalised ones) and whether each is lifted
    /// (`'^t`: may be a function).
    pub type_params: Vec<(String, bool)>,
    /// Size parameters, explicit and implicit, in order.
    pub size_params: Vec<(String, BindingId)>,
    /// The type: parameters as arrows, then the result type.
    pub ty: Ty,
    /// The binding id of the declared name (used by sizes that name a top-level constant).
    pub binding: BindingId,
    /// Whether the body is the typed hole `???` (an intrinsic of the prelude).
    pub intrinsic: bool,
}

/// A local function `let f ... = ... in ...`.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalFunInfo {
    /// The binding of `f` (references resolve to `Resolved::Local` of it).
    pub binding: BindingId,
    /// Generalised type parameters and whether each is lifted.
    pub type_params: Vec<(String, bool)>,
    /// Its type (generalised variables as [`Ty::Param`]).
    pub ty: Ty,
}

/// The signature of an entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct EntrySig {
    /// The entry point's name.
    pub name: String,
    /// The declaration.
    pub decl: DeclRef,
    /// Parameter types, in order (point-free entries take them from their function type).
    pub params: Vec<Ty>,
    /// Whether each parameter is declared unique (`*`).
    pub unique_params: Vec<bool>,
    /// The result type.
    pub ret: Ty,
}

/// The output of the type checker: side tables over the AST.
#[derive(Clone, Debug, Default)]
pub struct TypedProgram {
    /// Type of every expression node (see the module doc for what "fully substituted" means).
    pub exp_types: HashMap<NodeId, Ty>,
    /// Type of every pattern node (for a parameter, its declared/inferred type with sizes as
    /// `Size::Named(binding)` where they name size parameters).
    pub pat_types: HashMap<NodeId, Ty>,
    /// What each name-like expression node refers to: `Var`, `BinOp` (the operator),
    /// `OpSection`, `LeftSection`, `RightSection` (the operator), `Neg` and `Not` (always a
    /// builtin). For the shorthand loop `loop x for ...`, the loop pattern's name nodes map to
    /// the outer variables that give the initial values.
    pub resolved: HashMap<NodeId, Resolved>,
    /// For the nodes of [`TypedProgram::resolved`] whose operator or function is a
    /// declaration (binary operators, sections): the operator's instantiated function type.
    pub op_types: HashMap<NodeId, Ty>,
    /// Instantiations of polymorphic declarations and local functions, keyed like
    /// [`TypedProgram::resolved`].
    pub instances: HashMap<NodeId, Instance>,
    /// Size parameters bound by each function-like construct (top-level or local function,
    /// keyed by the NodeId of its body expression; `let [n] p = e` keyed by the NodeId of
    /// its pattern `p`, since the `let` may itself be a function's body): their names and BindingIds in order. Implicit size parameters
    /// (from `[]` in parameter types or inferred) come after the explicit ones.
    pub size_params: HashMap<NodeId, Vec<(String, BindingId)>>,
    /// Every value declaration checked, prelude first, in order ([`DeclRef::index`]).
    pub decls: Vec<DeclInfo>,
    /// Binding ids of top-level constants used in sizes, to their declarations.
    pub decl_bindings: HashMap<BindingId, DeclRef>,
    /// Local functions, keyed by the `LetFun` expression's NodeId.
    pub local_functions: HashMap<NodeId, LocalFunInfo>,
    /// Entry points (docs/language.md §Programs and entry points), in order.
    pub entries: Vec<EntrySig>,
}
