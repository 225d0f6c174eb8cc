//! The statement builder of core IR: the front end, the AD pass and the optimiser's rewrites
//! emit the statements they make with a [`Builder`].
//!
//! **Takes** the program's [`NameTable`], borrowed for the length of a rewrite
//! ([`Builder::new`]) or owned for a whole translation ([`Builder::owning`], the front end,
//! which hands the table on at the end with [`Builder::into_names`]).
//!
//! **Guarantees**
//! * every bound variable is fresh, with the hint the caller gave (or, for a primitive
//!   operation bound by [`Builder::prim`], the operation's name: `mul`, `cos`, `lt`);
//! * statements are appended in the order they are emitted, to the innermost open body, and
//!   carry the builder's current [`Aux`] (source span, callers, attributes) unless the caller
//!   builds the [`Stm`] itself ([`Builder::add_stm`]);
//! * types are inferred with [`crate::core::type_of`] unless the caller gives them
//!   ([`Builder::bind`], for expressions whose types the caller knows better, such as the
//!   front end's SOACs);
//! * with common-subexpression elimination on ([`Builder::with_cse`], which AD uses so that a
//!   derivative reuses the primal's `cos x`), [`Builder::prim`] returns an identical primitive
//!   operation already bound in scope instead of binding it again; apart from that and the
//!   arithmetic identities [`Builder::i64_bin`] skips, every call binds what it is asked to;
//! * bodies nest: [`Builder::open_body`] and [`Builder::close_body`] keep a stack of bodies
//!   under construction, and [`HasBuilder`] builds bodies, lambdas and `if`s from closures that
//!   receive the caller's own state (a pass's context holding the builder), closing the body
//!   even when the closure fails.
//!
//! It does not check what it builds (run [`crate::core::verify`] for that) and never reorders
//! or drops statements.
//!
//! ```
//! use gradus::core::builder::Builder;
//! use gradus::core::ir::{NameTable, SubExp, Type};
//! use gradus::core::prim::{BinOp, PrimOp};
//! use gradus::value::PrimType;
//!
//! let mut names = NameTable::new();
//! let x = names.fresh("x", Type::Prim(PrimType::F64));
//! let mut b = Builder::new(&mut names);
//! let y = b.prim(PrimOp::Bin(BinOp::Mul, PrimType::F64), vec![x.into(), x.into()]);
//! let body = b.finish(vec![y]);
//! assert_eq!(body.stms.len(), 1);
//! assert_eq!(names.hint(body.stms[0].pat[0]), "mul");
//! ```

mod nested;
mod prim;

pub use nested::HasBuilder;
pub use prim::CseScope;
pub(crate) use prim::{Key as PrimKey, key as prim_key};

use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, Exp, Lambda, NameTable, Soac, Stm, SubExp, Type, Var,
};
use crate::core::scalar::PrimType;
use crate::core::type_of::{type_of_basic_op, type_of_exp};
use crate::diag::Span;
use std::convert::Infallible;
use std::ops::{Deref, DerefMut};

/// A name table that a builder owns or borrows; it reads as a [`NameTable`] either way.
pub enum Names<'a> {
    /// The builder's own table (the front end, which creates the program's table).
    Owned(NameTable),
    /// A table borrowed from the program (passes that add to an existing program).
    Borrowed(&'a mut NameTable),
}

impl Names<'_> {
    /// The table itself: the owned one, or a copy of the borrowed one (whose lender keeps
    /// it), as [`std::borrow::Cow::into_owned`] does.
    pub fn into_owned(self) -> NameTable {
        match self {
            Names::Owned(t) => t,
            Names::Borrowed(t) => t.clone(),
        }
    }
}

impl Deref for Names<'_> {
    type Target = NameTable;
    fn deref(&self) -> &NameTable {
        match self {
            Names::Owned(t) => t,
            Names::Borrowed(t) => t,
        }
    }
}

impl DerefMut for Names<'_> {
    fn deref_mut(&mut self) -> &mut NameTable {
        match self {
            Names::Owned(t) => t,
            Names::Borrowed(t) => t,
        }
    }
}

/// Emits statements with fresh names into a stack of bodies under construction (see the
/// module documentation).
pub struct Builder<'a> {
    /// The program's name table, where fresh variables are created.
    pub names: Names<'a>,
    /// The bodies under construction, innermost last; never empty.
    open: Vec<Vec<Stm>>,
    aux: Aux,
    /// Primitive operations bound in scope, when common-subexpression elimination is on.
    cse: Option<prim::Cse>,
    /// Whether [`Builder::i64_bin`] folds constant operands.
    fold_constants: bool,
    /// Whether the statements it makes are marked as derivative code ([`Aux::derivative`]).
    marks_derivatives: bool,
}

impl<'a> Builder<'a> {
    /// A builder on a borrowed table with one empty body open; statements get a default
    /// [`Aux`], and CSE and constant folding are off.
    pub fn new(names: &'a mut NameTable) -> Self {
        Self::with_names(Names::Borrowed(names))
    }

    fn with_names(names: Names<'a>) -> Self {
        Builder {
            names,
            open: vec![Vec::new()],
            aux: Aux::default(),
            cse: None,
            fold_constants: false,
            marks_derivatives: false,
        }
    }

    /// Marks every statement it makes (not those it is given whole, [`Builder::add_stm`]) as
    /// derivative code: what the AD pass's builders do.
    pub fn marking_derivatives(mut self) -> Self {
        self.marks_derivatives = true;
        self
    }

    /// Turns common-subexpression elimination of primitive operations on: [`Builder::prim`]
    /// reuses an identical operation bound earlier in the current body or, as `scope` says,
    /// in the bodies around it. Operations bound in a nested body are forgotten when it
    /// closes.
    pub fn with_cse(mut self, scope: CseScope) -> Self {
        self.cse = Some(prim::Cse::new(scope));
        self
    }

    /// Makes [`Builder::i64_bin`] fold `+`, `-` and `*` of two constants (the front end, so
    /// that sizes known when translating stay constants in types).
    pub fn with_constant_folding(mut self) -> Self {
        self.fold_constants = true;
        self
    }

    /// The name table: the owned one, or a copy of a borrowed one ([`Names::into_owned`]).
    pub fn into_names(self) -> NameTable {
        self.names.into_owned()
    }

    // ------------------------------------------------------------------ context

    /// Sets the [`Aux`] (span, callers, attributes) given to the statements emitted from now on
    /// (typically the source expression being translated or differentiated).
    pub fn set_aux(&mut self, aux: Aux) {
        self.aux = aux;
    }

    /// The [`Aux`] statements currently get.
    pub fn aux(&self) -> &Aux {
        &self.aux
    }

    /// The [`Aux`] statements get, to change a part of it for a while (the front end adds a
    /// caller while it inlines a call, an attribute while it translates an attributed
    /// expression).
    pub fn aux_mut(&mut self) -> &mut Aux {
        &mut self.aux
    }

    /// Sets the source span of the statements emitted next and returns the previous one, for
    /// the caller to restore (the front end, around each source expression).
    pub fn at(&mut self, span: Span) -> Span {
        std::mem::replace(&mut self.aux.span, span)
    }

    /// A fresh variable, not bound by any statement yet (for parameters and patterns the
    /// caller assembles).
    pub fn fresh(&mut self, hint: &str, ty: Type) -> Var {
        self.names.fresh(hint, ty)
    }

    /// The type of a sub-expression.
    pub fn ty(&self, se: &SubExp) -> Type {
        self.names.subexp_ty(se)
    }

    /// The dimensions of a sub-expression's type (none for scalars).
    pub fn dims(&self, se: &SubExp) -> Vec<SubExp> {
        self.ty(se).dims().to_vec()
    }

    // ------------------------------------------------------------------ statements

    /// Appends a statement as it is (with its own [`Aux`]).
    pub fn add_stm(&mut self, stm: Stm) {
        self.innermost().push(stm);
    }

    /// Appends statements as they are.
    pub fn add_stms(&mut self, stms: impl IntoIterator<Item = Stm>) {
        self.innermost().extend(stms);
    }

    /// `let pat = exp` for variables the caller created (results of branches and loops whose
    /// types it works out itself).
    pub fn push(&mut self, pat: Vec<Var>, exp: Exp) {
        let mut aux = self.aux.clone();
        aux.derivative |= self.marks_derivatives;
        self.add_stm(Stm { pat, exp, aux });
    }

    /// Binds `exp` to fresh variables of the given types, all with hint `hint`.
    pub fn bind(&mut self, exp: Exp, types: Vec<Type>, hint: &str) -> Vec<Var> {
        let pat: Vec<Var> = types
            .into_iter()
            .map(|t| self.names.fresh(hint, t))
            .collect();
        self.push(pat.clone(), exp);
        pat
    }

    /// Binds `exp` to fresh variables of its inferred types
    /// ([`crate::core::type_of::type_of_exp`]), all with hint `hint`.
    pub fn bind_exp(&mut self, exp: Exp, hint: &str) -> Vec<Var> {
        let types = type_of_exp(&self.names, &exp);
        self.bind(exp, types, hint)
    }

    /// Binds an expression with one result of inferred type and returns its variable.
    pub fn bind1(&mut self, exp: Exp, hint: &str) -> Var {
        self.bind_exp(exp, hint)
            .first()
            .copied()
            .unwrap_or(Var(u32::MAX))
    }

    /// Binds a basic operation with one result (not `assert`) and returns its variable.
    /// A [`BasicOp::Prim`] bound here is never shared by CSE; [`Builder::prim`] is.
    pub fn basic(&mut self, op: BasicOp, hint: &str) -> Var {
        let types = type_of_basic_op(&self.names, &op);
        let vs = self.bind(Exp::BasicOp(op), types, hint);
        vs.first().copied().unwrap_or(Var(u32::MAX))
    }

    /// A copy of a sub-expression bound to a fresh variable.
    pub fn subexp(&mut self, se: SubExp, hint: &str) -> Var {
        self.basic(BasicOp::SubExp(se), hint)
    }

    /// `se` as a variable: itself, or a constant bound to a fresh one (for operands that must
    /// be arrays or be consumed).
    pub fn as_var(&mut self, se: SubExp, hint: &str) -> Var {
        match se {
            SubExp::Var(v) => v,
            c => self.subexp(c, hint),
        }
    }

    /// `copy se` under the hint of the variable copied (so it can be consumed or returned
    /// under a new name); constants are returned as they are.
    pub fn copy(&mut self, se: SubExp) -> SubExp {
        match se {
            SubExp::Var(v) => {
                let hint = self.names.hint(v).to_string();
                SubExp::Var(self.basic(BasicOp::Copy(v), &hint))
            }
            c => c,
        }
    }

    /// `array[slice]`; the result's type keeps the dimensions the slice ranges over and those
    /// after it.
    pub fn index(&mut self, array: Var, slice: Vec<DimIndex>, hint: &str) -> Var {
        self.basic(BasicOp::Index { array, slice }, hint)
    }

    /// The array `se` with dimensions `shape` (which has as many elements).
    pub fn reshape(&mut self, se: SubExp, shape: Vec<SubExp>, hint: &str) -> Var {
        let array = self.as_var(se, "const");
        self.basic(BasicOp::Reshape { array, shape }, hint)
    }

    /// `iota n`: the `i64`s `0, 1, .., n-1`.
    pub fn iota(&mut self, n: SubExp, hint: &str) -> Var {
        self.basic(
            BasicOp::Iota {
                n,
                start: SubExp::i64(0),
                stride: SubExp::i64(1),
                elem: PrimType::I64,
            },
            hint,
        )
    }

    /// Binds a SOAC to fresh variables of the given types, returned as operands (the front
    /// end, which rebuilds values from them).
    pub fn soac(&mut self, soac: Soac, types: Vec<Type>, hint: &str) -> Vec<SubExp> {
        self.bind(Exp::Soac(soac), types, hint)
            .into_iter()
            .map(SubExp::Var)
            .collect()
    }

    /// `let () = assert(cond, message, args)`.
    pub fn assert(&mut self, cond: SubExp, message: &str, args: Vec<SubExp>) {
        let exp = Exp::BasicOp(BasicOp::Assert {
            cond,
            message: message.to_string(),
            args,
        });
        self.push(vec![], exp);
    }

    // ------------------------------------------------------------------ bodies

    fn innermost(&mut self) -> &mut Vec<Stm> {
        if self.open.is_empty() {
            self.open.push(Vec::new());
        }
        let last = self.open.len() - 1;
        &mut self.open[last]
    }

    /// Starts a nested body: statements go there until [`Builder::close_body`]. With CSE on,
    /// the operations available so far are saved (and, with [`CseScope::Fresh`], hidden from
    /// the new body).
    pub fn open_body(&mut self) {
        self.open.push(Vec::new());
        if let Some(cse) = &mut self.cse {
            cse.enter();
        }
    }

    /// Finishes the innermost body with the given results; statements go to the enclosing
    /// body again, and with CSE on the operations available there are restored. Closing the
    /// outermost body returns its statements and leaves an empty one open.
    pub fn close_body(&mut self, result: Vec<SubExp>) -> Body {
        let stms = self.open.pop().unwrap_or_default();
        if self.open.is_empty() {
            self.open.push(Vec::new());
        } else if let Some(cse) = &mut self.cse {
            cse.leave();
        }
        Body { stms, result }
    }

    /// The statements of the innermost body so far.
    pub fn stms(&self) -> &[Stm] {
        self.open.last().map_or(&[], Vec::as_slice)
    }

    /// Takes the statements of the innermost body so far, leaving it empty.
    pub fn take_stms(&mut self) -> Vec<Stm> {
        std::mem::take(self.innermost())
    }

    /// The body of the statements emitted (every nested body must have been closed)
    /// followed by `result`.
    pub fn finish(mut self, result: Vec<SubExp>) -> Body {
        debug_assert_eq!(self.open.len(), 1, "a nested body was left open");
        self.close_body(result)
    }

    /// Builds a body with `f`, which emits its statements and returns its results (see
    /// [`HasBuilder::try_body`], for closures that may fail or need more than the builder).
    pub fn body(&mut self, f: impl FnOnce(&mut Self) -> Vec<SubExp>) -> Body {
        infallible(self.try_body(|b| Ok(f(b))))
    }

    /// A lambda with fresh parameters of the given hints and types, whose body `f` builds from
    /// them; its result types are those of the results (see [`HasBuilder::try_lambda`]).
    pub fn lambda(
        &mut self,
        params: &[(&str, Type)],
        f: impl FnOnce(&mut Self, &[Var]) -> Vec<SubExp>,
    ) -> Lambda {
        infallible(self.try_lambda(params, |b, ps| Ok(f(b, ps))))
    }

    /// `let hint = if cond then {then_f} else {else_f}`, typed by the then-branch's results
    /// (see [`HasBuilder::try_if`]).
    pub fn if_then_else(
        &mut self,
        cond: SubExp,
        then_f: impl FnOnce(&mut Self) -> Vec<SubExp>,
        else_f: impl FnOnce(&mut Self) -> Vec<SubExp>,
        hint: &str,
    ) -> Vec<Var> {
        infallible(self.try_if(cond, |b| Ok(then_f(b)), |b| Ok(else_f(b)), hint))
    }
}

fn infallible<T>(r: Result<T, Infallible>) -> T {
    match r {
        Ok(t) => t,
        Err(e) => match e {},
    }
}

impl Builder<'static> {
    /// A builder that owns `names` (the front end, which translates a whole program and then
    /// takes the table back with [`Builder::into_names`]); otherwise as [`Builder::new`].
    pub fn owning(names: NameTable) -> Self {
        Self::with_names(Names::Owned(names))
    }
}
