//! The statement AST of the reversible language (docs/reversible.md §Statements), with spans.
//!
//! Expressions that are evaluated but never inverted (conditions, index expressions, `let`
//! initialisers, `constant!` bodies) stay `syn::Expr`; by the time the parser returns them the
//! dereference of reference parameters has been inserted (`x` → `(*x)`).

use proc_macro2::{Span, TokenStream};
use syn::{Expr, ExprPath, Ident, Member, Path, Type};

/// What a name denotes; decides how a place rooted at it is passed (docs/reversible.md §Places and
/// values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `&mut` parameter: read, written, differentiated.
    State,
    /// `&` parameter: constant data.
    ConstRef,
    /// By-value parameter: a constant value.
    ByValue,
    /// `let mut` ancilla.
    Ancilla,
    /// Immutable `let`.
    ImmLet,
    /// Loop variable.
    LoopVar,
}

impl Kind {
    /// Whether instructions may write places rooted here.
    pub fn writable(self) -> bool {
        matches!(self, Kind::State | Kind::Ancilla)
    }
    /// How the kind is named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::State => "state (declared `&mut`)",
            Kind::ConstRef => "constant data (declared `&`), instructions may only read it",
            Kind::ByValue => "a constant value (passed by value), instructions may only read it",
            Kind::Ancilla => "an ancilla",
            Kind::ImmLet => "an immutable `let`, instructions may only read it",
            Kind::LoopVar => "a loop variable, instructions may only read it",
        }
    }
}

/// A place: `root(.field | [index])*`.
#[derive(Clone, Debug)]
pub struct Place {
    pub root: Ident,
    pub kind: Kind,
    pub projs: Vec<Proj>,
    pub span: Span,
}

/// One projection of a place.
#[derive(Clone, Debug)]
pub enum Proj {
    Field(Member),
    Index(Expr),
}

/// An argument of an instruction or call.
#[derive(Clone, Debug)]
pub enum Operand {
    Place(Place),
    /// A literal (possibly negated).
    Lit(Expr),
    /// `constant!(e)`, a `const` item or a path not bound in the function.
    Const(Expr),
    /// `&place` (calls only).
    Ref(Place),
}

/// Binary operators of a right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinKind {
    Add,
    Sub,
    Mul,
    Div,
}

/// The callee of a primitive right-hand side.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A built-in name, stored as its marker type's name (`Sin`, `Phase`, …).
    Builtin(Ident, &'static str),
    /// A user primitive type.
    User(Path),
}

/// A right-hand side.
#[derive(Clone, Debug)]
pub enum Rhs {
    One(Operand),
    Bin(BinKind, Operand, Operand),
    Prim(Callee, Vec<Operand>),
}

/// Accumulation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccOp {
    Add,
    Sub,
    Xor,
    Mul,
    Div,
}

/// Named (non-accumulating) instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    Swap,
    Neg,
    Inc,
    Dec,
    Flip,
    Conj,
    Rot,
    Irot,
}

/// A range of a `for` loop.
#[derive(Clone, Debug)]
pub struct Range {
    pub form: RangeForm,
    pub lo: Expr,
    pub hi: Expr,
    pub step: Option<Expr>,
}

/// The accepted range forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeForm {
    /// `a..b`
    Excl,
    /// `a..=b`
    Incl,
    /// `(a..b).rev()`
    Rev,
    /// `(a..b).step_by(s)`
    Step,
}

/// One arm of an `if` chain.
#[derive(Clone, Debug)]
pub struct IfArm {
    pub pre: Expr,
    pub post: Expr,
    pub body: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    Acc {
        target: Place,
        op: AccOp,
        rhs: Rhs,
        span: Span,
    },
    Named {
        name: Named,
        args: Vec<Operand>,
        span: Span,
    },
    Call {
        func: ExprPath,
        args: Vec<Operand>,
        inverse: bool,
        span: Span,
    },
    Let {
        name: Ident,
        mutable: bool,
        ty: Option<Type>,
        init: Expr,
        atol: Option<Expr>,
        span: Span,
    },
    Release {
        name: Ident,
        mutable: bool,
        ty: Option<Type>,
        expr: Expr,
        atol: Option<Expr>,
        span: Span,
    },
    Routine {
        name: Option<Ident>,
        body: Vec<Stmt>,
        span: Span,
    },
    Unroutine {
        name: Option<Ident>,
        body: Vec<Stmt>,
        span: Span,
    },
    If {
        arms: Vec<IfArm>,
        els: Vec<Stmt>,
        span: Span,
    },
    While {
        pre: Expr,
        post: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
    For {
        var: Option<Ident>,
        range: Range,
        reversed: bool,
        body: Vec<Stmt>,
        span: Span,
    },
    Safe {
        tokens: TokenStream,
        span: Span,
    },
    /// A nested scope; `inverted` means "run the inverse of `body`" (`inv! { … }`).
    Block {
        body: Vec<Stmt>,
        inverted: bool,
        unchecked: bool,
    },
}
