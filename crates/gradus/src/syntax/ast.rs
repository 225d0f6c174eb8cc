//! The abstract syntax tree produced by the parser.
//!
//! The tree is close to the concrete syntax: names are plain strings (nothing is resolved
//! here), every expression, pattern and type expression carries the [`Span`] of its source
//! text, and every expression and pattern carries a [`NodeId`] unique across a whole
//! compilation, so later stages can keep facts in side tables keyed by it.
//!
//! Conventions, shared by expressions, patterns and types:
//!
//! - A tuple with no elements is the unit value / pattern / type (`()`); a tuple written in
//!   the source always has either zero or at least two elements (`(e)` is grouping).
//! - A dotted chain of plain identifiers written without whitespace, `a.b.c`, is parsed as one
//!   [`QualName`] (`qualifiers = ["a", "b"]`, `name = "c"`) in an [`ExpKind::Var`]. Whether
//!   `a` is a module (a qualified name) or a record variable (field accesses `a.b` then `.c`)
//!   is decided by the type checker, which knows what `a` is. A field access on anything else
//!   (a parenthesised expression, an indexing, a field number `t.0`) is an
//!   [`ExpKind::Project`]; so `x.f.0` is `Project(Var(x.f), "0")`.
//! - Sugar that only rearranges syntax is removed: `let a[i] = v in e` becomes
//!   `let a = a with [i] = v in e` and `let r.f = v in e` becomes
//!   `let r = r with f = v in e`. Sections and `M.(e)` are kept as written.

use crate::core::scalar::PrimType;
use crate::diag::Span;
use std::fmt;

/// Identifies one expression or pattern node, unique across a compilation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// Hands out fresh [`NodeId`]s; one counter is shared by every file of a compilation.
#[derive(Clone, Debug, Default)]
pub struct NodeIdGen {
    next: u32,
}

impl NodeIdGen {
    /// A counter starting at 0.
    pub fn new() -> Self {
        Self::default()
    }
    /// A counter whose first id is `first`.
    pub fn starting_at(first: u32) -> Self {
        NodeIdGen { next: first }
    }
    /// A fresh id.
    pub fn fresh(&mut self) -> NodeId {
        let id = NodeId(self.next);
        self.next = self.next.wrapping_add(1);
        id
    }
    /// How many ids have been handed out (the next id's number).
    pub fn count(&self) -> u32 {
        self.next
    }
}

/// A possibly qualified name: `x`, `f64.sqrt`, `M.N.x`, `f64.+`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualName {
    /// The module path (empty for an unqualified name).
    pub qualifiers: Vec<String>,
    /// The final component: an identifier or an operator symbol.
    pub name: String,
}

impl QualName {
    /// An unqualified name.
    pub fn unqualified(name: impl Into<String>) -> Self {
        QualName {
            qualifiers: Vec::new(),
            name: name.into(),
        }
    }
    /// Whether the name has no module path.
    pub fn is_unqualified(&self) -> bool {
        self.qualifiers.is_empty()
    }
}

impl fmt::Display for QualName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for q in &self.qualifiers {
            write!(f, "{q}.")?;
        }
        f.write_str(&self.name)
    }
}

/// An attribute `#[name]`, `#[name(args)]`, or an integer argument inside one.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// The attribute's text (without `#[` and `]` for the outermost one).
    pub span: Span,
    /// Its shape.
    pub kind: AttrKind,
}

/// The shape of an [`Attr`].
#[derive(Clone, Debug, PartialEq)]
pub enum AttrKind {
    /// `name`
    Name(String),
    /// `name(a1, ..., an)`
    Call(String, Vec<Attr>),
    /// An integer argument: `stripmine(2)`; may be negative.
    Int(i128),
}

/// An integer literal: `42`, `0xff_u8`, `3i64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLit {
    /// The magnitude (literals have no sign; `-3` is a negation).
    pub value: u128,
    /// An integer suffix (never a float type: `2f32` is a [`FloatLit`]).
    pub suffix: Option<PrimType>,
}

/// A floating-point literal: `1.5`, `2.5e-3f64`, `2f32`.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatLit {
    /// The value, parsed as an `f64` (to be rounded to `f32` where the type says so).
    pub value: f64,
    /// The source text without underscores and suffix (`"2.5e-3"`, `"2"`), for exact
    /// re-parsing at another precision.
    pub text: String,
    /// A float suffix.
    pub suffix: Option<PrimType>,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Exp {
    /// Unique id, key of the type checker's side tables.
    pub id: NodeId,
    /// The source text of the whole expression.
    pub span: Span,
    /// What it is.
    pub kind: ExpKind,
}

/// One index of an indexing or slicing expression, or of an update.
// A slice is three expressions side by side; boxing them would only add allocations.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum DimIndex {
    /// `a[i]`: a single index.
    Fix(Exp),
    /// `a[i:j:s]` with any part left out (`a[:]`, `a[::-1]`).
    Slice {
        /// `i`
        start: Option<Exp>,
        /// `j`
        end: Option<Exp>,
        /// `s`
        stride: Option<Exp>,
    },
}

/// Which kind of range a [`ExpKind::Range`] is (by its last punctuation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// `x..<z`, `x..y..<z`
    UpToExclusive,
    /// `x...z`, `x..y...z`
    Inclusive,
    /// `x..>z`, `x..y..>z`
    DownToExclusive,
}

/// The iteration part of a `loop`.
#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < bound`; `var` is a [`PatKind::Name`] (or [`PatKind::Wildcard`]).
    For {
        /// The loop counter.
        var: Pat,
        /// The number of iterations.
        bound: Exp,
    },
    /// `for p in array`
    ForIn {
        /// Bound to each element in turn.
        pat: Pat,
        /// The array iterated over.
        array: Exp,
    },
    /// `while cond`
    While(Exp),
}

/// A field in a record literal `{f = e, g}`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldExp {
    /// The field name.
    pub name: String,
    /// Where the field name is.
    pub name_span: Span,
    /// The value; for a punned field `{g}` an [`ExpKind::Var`] of `g` with its own id.
    pub value: Exp,
    /// Whether the field was written as just its name (`{g}` meaning `{g = g}`).
    pub punned: bool,
}

/// One `case p -> e` of a `match`.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// From `case` to the end of the body.
    pub span: Span,
    /// The pattern.
    pub pat: Pat,
    /// The body.
    pub body: Exp,
}

/// A size binder `[n]` in `let [n] p = e`.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeBinder {
    /// The size name.
    pub name: String,
    /// Where it is.
    pub span: Span,
}

/// The forms of expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpKind {
    /// An integer literal.
    Int(IntLit),
    /// A floating-point literal.
    Float(FloatLit),
    /// `true` or `false`.
    Bool(bool),
    /// A character literal `'a'` (its code point is an integer).
    Char(char),
    /// A string literal `"..."` (an array of `u8`, UTF-8 encoded); escapes are resolved.
    String(String),
    /// A variable or qualified name, `x`, `f64.sqrt`, or a dotted chain `r.f.g` that the
    /// type checker may split into a variable and field accesses (see the module doc).
    Var(QualName),
    /// `(e)`: grouping, kept so spans and printing follow the source.
    Parens(Box<Exp>),
    /// `(e1, ..., en)` with n >= 2, or `()` with no elements.
    Tuple(Vec<Exp>),
    /// `[e1, ..., en]`, possibly empty.
    Array(Vec<Exp>),
    /// `{f = e, g}`
    Record(Vec<FieldExp>),
    /// `e.f`, `e.0`: a field access on something that is not a plain dotted name.
    Project {
        /// The record or tuple.
        target: Box<Exp>,
        /// The field name or number.
        field: String,
        /// Where the field name is.
        field_span: Span,
    },
    /// `a[i, j:k]`
    Index {
        /// The array.
        target: Box<Exp>,
        /// One entry per indexed dimension (never empty).
        indices: Vec<DimIndex>,
    },
    /// `f e1 ... en` (n >= 1), left-associative juxtaposition kept as one node.
    Apply {
        /// The function.
        func: Box<Exp>,
        /// The arguments, in order.
        args: Vec<Exp>,
    },
    /// `e1 op e2`, including `|>`, `<|`, `&&`, `||`, qualified `a f64.+ b` and backticked
    /// ``a `f` b``.
    BinOp {
        /// The operator (or backticked function) name.
        op: QualName,
        /// Where the operator is (for a backticked name, without the backticks).
        op_span: Span,
        /// Whether it was a backticked function name.
        backtick: bool,
        /// Left operand.
        lhs: Box<Exp>,
        /// Right operand.
        rhs: Box<Exp>,
    },
    /// `-e` (prefix negation).
    Neg(Box<Exp>),
    /// `!e` (logical not / bitwise complement).
    Not(Box<Exp>),
    /// `(op)`, ``(`f`)``: an operator as a function of two arguments.
    OpSection {
        /// The operator.
        op: QualName,
        /// Where it is.
        op_span: Span,
        /// Whether it was a backticked function name.
        backtick: bool,
    },
    /// `(e op)`: `\y -> e op y`.
    LeftSection {
        /// The operator.
        op: QualName,
        /// Where it is.
        op_span: Span,
        /// Whether it was a backticked function name.
        backtick: bool,
        /// The left operand.
        left: Box<Exp>,
    },
    /// `(op e)`: `\x -> x op e`.
    RightSection {
        /// The operator.
        op: QualName,
        /// Where it is.
        op_span: Span,
        /// Whether it was a backticked function name.
        backtick: bool,
        /// The right operand.
        right: Box<Exp>,
    },
    /// `(.f.g)`, `(.0)`: `\r -> r.f.g`.
    ProjectSection {
        /// The fields, outermost first, with their spans.
        fields: Vec<(String, Span)>,
    },
    /// `(.[i])`: `\a -> a[i]`.
    IndexSection {
        /// The indices.
        indices: Vec<DimIndex>,
    },
    /// `\p1 ... pn : t -> body`
    Lambda {
        /// The parameters (at least one).
        params: Vec<Pat>,
        /// The return type, if written.
        ret: Option<TypeExp>,
        /// The body.
        body: Box<Exp>,
    },
    /// `let [n] p = value in body` (also a `let` chain without `in`).
    Let {
        /// Size binders `[n]` written before the pattern (T2).
        sizes: Vec<SizeBinder>,
        /// The pattern.
        pat: Pat,
        /// The bound expression.
        value: Box<Exp>,
        /// The body.
        body: Box<Exp>,
    },
    /// `let f [n] 'a p1 ... pn : t = value in body` (n >= 1).
    LetFun {
        /// The function name.
        name: String,
        /// Where the name is.
        name_span: Span,
        /// Size and type parameters.
        type_params: Vec<TypeParam>,
        /// Value parameters (at least one).
        params: Vec<Pat>,
        /// The return type, if written.
        ret: Option<TypeExp>,
        /// The function body.
        value: Box<Exp>,
        /// The `let` body.
        body: Box<Exp>,
    },
    /// `if cond then a else b`
    If {
        /// The condition.
        cond: Box<Exp>,
        /// The `then` branch.
        then_branch: Box<Exp>,
        /// The `else` branch.
        else_branch: Box<Exp>,
    },
    /// `loop pat = init form do body`; `init` is `None` in the shorthand `loop pat for ...`.
    Loop {
        /// The loop parameters.
        pat: Pat,
        /// Their initial values.
        init: Option<Box<Exp>>,
        /// `for`, `for in` or `while`.
        form: Box<LoopForm>,
        /// The body.
        body: Box<Exp>,
    },
    /// `target with [indices] = value` (also from `let a[i] = v`).
    Update {
        /// The array updated.
        target: Box<Exp>,
        /// Where.
        indices: Vec<DimIndex>,
        /// The new element or slice.
        value: Box<Exp>,
    },
    /// `target with f.g = value` (also from `let r.f = v`).
    RecordUpdate {
        /// The record updated.
        target: Box<Exp>,
        /// The field path (at least one), with spans.
        fields: Vec<(String, Span)>,
        /// The new field value.
        value: Box<Exp>,
    },
    /// `start..<end`, `start..second...end`, ...
    Range {
        /// The first element.
        start: Box<Exp>,
        /// The second element, `y` in `x..y..<z`.
        second: Option<Box<Exp>>,
        /// The bound.
        end: Box<Exp>,
        /// Which punctuation ends the range.
        kind: RangeKind,
    },
    /// `e : t`
    Ascribe {
        /// The expression.
        exp: Box<Exp>,
        /// The type.
        ty: TypeExp,
    },
    /// `e :> t`
    Coerce {
        /// The expression.
        exp: Box<Exp>,
        /// The type.
        ty: TypeExp,
    },
    /// `M.(e)`: `e` with module `M` opened.
    LocalOpen {
        /// The module.
        module: QualName,
        /// Where the module name is.
        module_span: Span,
        /// The expression.
        body: Box<Exp>,
    },
    /// `#[attr] e`
    Attr {
        /// The attribute.
        attr: Attr,
        /// The expression it applies to.
        exp: Box<Exp>,
    },
    /// `assert cond body`
    Assert {
        /// The condition (an atom or application argument).
        cond: Box<Exp>,
        /// The value when it holds.
        body: Box<Exp>,
    },
    /// `match e case p -> e ...`
    Match {
        /// The scrutinee.
        scrutinee: Box<Exp>,
        /// The cases (at least one), in order.
        cases: Vec<Case>,
    },
    /// `#c e1 ... en` (n >= 0)
    Constructor {
        /// The constructor name, without `#`.
        name: String,
        /// The arguments.
        args: Vec<Exp>,
    },
    /// `???`
    Hole,
}

/// A pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct Pat {
    /// Unique id.
    pub id: NodeId,
    /// The source text.
    pub span: Span,
    /// What it is.
    pub kind: PatKind,
}

/// A field of a record pattern `{f = p, g}`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldPat {
    /// The field name.
    pub name: String,
    /// Where the field name is.
    pub name_span: Span,
    /// The pattern; for a punned field `{g}` a [`PatKind::Name`] `g`.
    pub pat: Pat,
    /// Whether the field was written as just its name.
    pub punned: bool,
}

/// A literal in a pattern (only meaningful in `case`).
#[derive(Clone, Debug, PartialEq)]
pub enum PatLit {
    /// An integer, possibly negated (`-1`).
    Int {
        /// Whether it was written with a leading `-`.
        negative: bool,
        /// The literal.
        lit: IntLit,
    },
    /// A float, possibly negated.
    Float {
        /// Whether it was written with a leading `-`.
        negative: bool,
        /// The literal.
        lit: FloatLit,
    },
    /// `true` / `false`.
    Bool(bool),
    /// A character literal.
    Char(char),
}

/// The forms of patterns.
#[derive(Clone, Debug, PartialEq)]
pub enum PatKind {
    /// `x`
    Name(String),
    /// `_`
    Wildcard,
    /// `(p1, ..., pn)` with n >= 2, or `()`. Parentheses around one pattern are dropped.
    Tuple(Vec<Pat>),
    /// `{f = p, g}`
    Record(Vec<FieldPat>),
    /// `p : t`
    Ascribe {
        /// The pattern.
        pat: Box<Pat>,
        /// The type.
        ty: TypeExp,
    },
    /// `#c p1 ... pn`
    Constructor {
        /// The constructor name, without `#`.
        name: String,
        /// The argument patterns.
        args: Vec<Pat>,
    },
    /// `3`, `-1`, `true`
    Literal(PatLit),
    /// `#[attr] p`
    Attr {
        /// The attribute.
        attr: Attr,
        /// The pattern.
        pat: Box<Pat>,
    },
}

/// A size in an array type.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeExp {
    /// `[]`
    Any,
    /// `[e]`: any expression (`n`, `3`, `n * m`).
    Exp(Box<Exp>),
}

/// An argument of a type application `vec [3] f64`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeArg {
    /// `[d]`, with the span of the brackets.
    Size(SizeExp, Span),
    /// A type (an atom: a name, parenthesised, an array, a tuple, a record).
    Type(TypeExp),
}

/// A field of a record type.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldType {
    /// The field name (an identifier or a decimal number).
    pub name: String,
    /// Where it is.
    pub name_span: Span,
    /// Its type.
    pub ty: TypeExp,
}

/// A constructor of a sum type, `#c t1 ... tn`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstrType {
    /// The name without `#`.
    pub name: String,
    /// Where `#name` is.
    pub span: Span,
    /// The payload types.
    pub args: Vec<TypeExp>,
}

/// A type expression.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExp {
    /// The source text.
    pub span: Span,
    /// What it is.
    pub kind: TypeExpKind,
}

/// The forms of type expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExpKind {
    /// An unqualified primitive type name with no arguments: `f64`, `bool`.
    Prim(PrimType),
    /// A named type, possibly qualified, possibly applied: `t`, `R.t`, `vec [3] f64`.
    Named {
        /// The name.
        name: QualName,
        /// The arguments (empty when none).
        args: Vec<TypeArg>,
    },
    /// `[d]t`
    Array {
        /// The size.
        size: SizeExp,
        /// The span of `[d]`.
        size_span: Span,
        /// The element type.
        elem: Box<TypeExp>,
    },
    /// `(t1, ..., tn)` with n >= 2, or `()`.
    Tuple(Vec<TypeExp>),
    /// `{f1: t1, ..., fn: tn}`
    Record(Vec<FieldType>),
    /// `a -> b` or `(x: a) -> b`.
    Function {
        /// The parameter name of the named form, with its span.
        param_name: Option<(String, Span)>,
        /// The parameter type.
        param: Box<TypeExp>,
        /// The result type.
        ret: Box<TypeExp>,
    },
    /// `*t`
    Unique(Box<TypeExp>),
    /// `#a t | #b`
    Sum(Vec<ConstrType>),
    /// `?[k][l].t`
    Existential {
        /// The existentially bound sizes.
        sizes: Vec<SizeBinder>,
        /// The type they scope over.
        ty: Box<TypeExp>,
    },
}

/// Whether a type parameter or abbreviation may hold more than ordinary types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lift {
    /// `'t`, `type t`
    None,
    /// `'~t`, `type~ t`: may have existential (anonymous) sizes.
    Tilde,
    /// `'^t`, `type^ t`: may contain functions.
    Caret,
}

/// A size or type parameter of a function or type abbreviation.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeParam {
    /// `[n]`
    Size {
        /// The size name.
        name: String,
        /// The span of `[n]`.
        span: Span,
    },
    /// `'t`, `'~t`, `'^t`
    Type {
        /// The name, without the quote.
        name: String,
        /// The span of the whole parameter.
        span: Span,
        /// Which quote was used.
        lifted: Lift,
    },
}

/// A top-level or module-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Dec {
    /// The source text (attributes included).
    pub span: Span,
    /// Attributes written before it, in order.
    pub attrs: Vec<Attr>,
    /// What it is.
    pub kind: DecKind,
}

/// `def`, `entry` or `let` at declaration level.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDec {
    /// Declared with `entry`.
    pub entry: bool,
    /// The name; for an operator definition the symbol (`"<+>"`).
    pub name: String,
    /// Where the name is.
    pub name_span: Span,
    /// Whether the name is an operator symbol (`def (<+>) a b`, `def a <+> b`).
    pub operator: bool,
    /// Size and type parameters.
    pub type_params: Vec<TypeParam>,
    /// Value parameters (empty for a constant).
    pub params: Vec<Pat>,
    /// The return type, if written.
    pub ret: Option<TypeExp>,
    /// The body.
    pub body: Exp,
}

/// `type name params = ty`
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDec {
    /// The name.
    pub name: String,
    /// Where it is.
    pub name_span: Span,
    /// `type`, `type~` or `type^`.
    pub lifted: Lift,
    /// Size and type parameters.
    pub params: Vec<TypeParam>,
    /// The definition.
    pub ty: TypeExp,
}

/// A module parameter `(P: T)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ModParam {
    /// The name.
    pub name: String,
    /// The span of `(P: T)`.
    pub span: Span,
    /// Its module type.
    pub sig: ModTypeExp,
}

/// `module M params : T = body`
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleDec {
    /// The name.
    pub name: String,
    /// Where it is.
    pub name_span: Span,
    /// Parameters of a parametric module.
    pub params: Vec<ModParam>,
    /// The ascribed module type.
    pub sig: Option<ModTypeExp>,
    /// The definition.
    pub body: ModExp,
}

/// `module type T = body`
#[derive(Clone, Debug, PartialEq)]
pub struct ModTypeDec {
    /// The name.
    pub name: String,
    /// Where it is.
    pub name_span: Span,
    /// The definition.
    pub body: ModTypeExp,
}

/// The forms of declarations.
#[derive(Clone, Debug, PartialEq)]
pub enum DecKind {
    /// `def`, `entry`, `let`.
    Value(ValueDec),
    /// `type`
    TypeAbbrev(TypeDec),
    /// `module M = ...`
    Module(ModuleDec),
    /// `module type T = ...`
    ModuleType(ModTypeDec),
    /// `open modexp`
    Open(ModExp),
    /// `local dec`
    Local(Box<Dec>),
    /// `import "path"`
    Import {
        /// The path as written (without `.fut`).
        path: String,
        /// The span of the string literal.
        path_span: Span,
    },
}

/// A module expression.
#[derive(Clone, Debug, PartialEq)]
pub struct ModExp {
    /// The source text.
    pub span: Span,
    /// What it is.
    pub kind: ModExpKind,
}

/// The forms of module expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ModExpKind {
    /// `M`, `M.N`
    Var(QualName),
    /// `{ decs }`
    Decs(Vec<Dec>),
    /// `F A` (one argument; curried application nests).
    Apply(Box<ModExp>, Box<ModExp>),
    /// `M : T`
    Ascribe(Box<ModExp>, Box<ModTypeExp>),
    /// `import "path"`
    Import(String),
    /// `\(P: T) : R -> body`
    Lambda {
        /// The parameter.
        param: ModParam,
        /// The result module type, if written.
        sig: Option<Box<ModTypeExp>>,
        /// The body.
        body: Box<ModExp>,
    },
}

/// A module type expression.
#[derive(Clone, Debug, PartialEq)]
pub struct ModTypeExp {
    /// The source text.
    pub span: Span,
    /// What it is.
    pub kind: ModTypeExpKind,
}

/// The forms of module type expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ModTypeExpKind {
    /// `T`, `M.T`
    Var(QualName),
    /// `{ specs }`
    Specs(Vec<Spec>),
    /// `T with t 'a = u`
    With {
        /// The refined module type.
        base: Box<ModTypeExp>,
        /// The abstract type refined.
        name: QualName,
        /// Its parameters.
        params: Vec<TypeParam>,
        /// Its definition.
        ty: TypeExp,
    },
    /// `(P: A) -> B` or `A -> B`.
    Arrow {
        /// The parameter name of the named form.
        param_name: Option<(String, Span)>,
        /// The parameter module type.
        param: Box<ModTypeExp>,
        /// The result module type.
        result: Box<ModTypeExp>,
    },
}

/// A specification inside a module type.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The source text.
    pub span: Span,
    /// What it is.
    pub kind: SpecKind,
}

/// The forms of specifications.
#[derive(Clone, Debug, PartialEq)]
pub enum SpecKind {
    /// `val f [n] 'a : t`, `val + : t`, `val (+) : t`
    Val {
        /// The name or operator symbol.
        name: String,
        /// Where it is.
        name_span: Span,
        /// Size and type parameters.
        type_params: Vec<TypeParam>,
        /// The type.
        ty: TypeExp,
    },
    /// `type t 'a`, `type^ t = u`
    Type {
        /// The name.
        name: String,
        /// Where it is.
        name_span: Span,
        /// `type`, `type~` or `type^`.
        lifted: Lift,
        /// Its parameters.
        params: Vec<TypeParam>,
        /// The definition, for a transparent type.
        ty: Option<TypeExp>,
    },
    /// `module M : T`
    Module {
        /// The name.
        name: String,
        /// Where it is.
        name_span: Span,
        /// Its module type.
        sig: ModTypeExp,
    },
    /// `include T`
    Include(ModTypeExp),
}
