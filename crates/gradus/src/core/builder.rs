//! A small builder for passes and the front end that emit core IR: it holds the program's
//! [`NameTable`] and a list of statements, gives every bound variable a fresh name and infers
//! the types of basic operations ([`crate::core::type_of`]).
//!
//! It does not check what it builds (run [`crate::core::verify`] for that), and it never
//! reorders statements. Sub-bodies (branches, loop bodies) and lambdas are built with nested
//! builders on the same name table.
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
//! let y = b.prim(PrimOp::Bin(BinOp::Mul, PrimType::F64), vec![x.into(), x.into()], "y");
//! let body = b.finish(vec![y.into()]);
//! assert_eq!(body.stms.len(), 1);
//! ```

use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, Exp, Lambda, NameTable, Stm, SubExp, Type, Var,
};
use crate::core::prim::PrimOp;
use crate::core::type_of::{type_of_basic_op, type_of_exp};

/// Emits statements with fresh names into a body under construction.
pub struct Builder<'a> {
    /// The program's name table, where fresh variables are created.
    pub names: &'a mut NameTable,
    stms: Vec<Stm>,
    aux: Aux,
}

impl<'a> Builder<'a> {
    /// An empty builder; statements get a default [`Aux`].
    pub fn new(names: &'a mut NameTable) -> Self {
        Builder {
            names,
            stms: Vec::new(),
            aux: Aux::default(),
        }
    }

    /// Sets the [`Aux`] (span, callers, attributes) given to the statements emitted from now on
    /// (typically the source expression being translated or differentiated).
    pub fn set_aux(&mut self, aux: Aux) {
        self.aux = aux;
    }

    /// The [`Aux`] statements currently get.
    pub fn aux(&self) -> &Aux {
        &self.aux
    }

    /// A fresh variable, not bound by any statement yet (for parameters).
    pub fn fresh(&mut self, hint: &str, ty: Type) -> Var {
        self.names.fresh(hint, ty)
    }

    /// The type of a sub-expression.
    pub fn ty(&self, se: &SubExp) -> Type {
        self.names.subexp_ty(se)
    }

    /// Appends a statement as it is.
    pub fn add_stm(&mut self, stm: Stm) {
        self.stms.push(stm);
    }

    /// Appends statements as they are.
    pub fn add_stms(&mut self, stms: impl IntoIterator<Item = Stm>) {
        self.stms.extend(stms);
    }

    /// Binds `exp` to fresh variables of the given types. `hints` gives one hint per result;
    /// when shorter, its last hint (or `tmp`) is used for the rest. `aux` overrides the
    /// builder's current one.
    pub fn bind(
        &mut self,
        exp: Exp,
        types: Vec<Type>,
        hints: &[&str],
        aux: Option<Aux>,
    ) -> Vec<Var> {
        let pat: Vec<Var> = types
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let hint = hints.get(i).or(hints.last()).copied().unwrap_or("tmp");
                self.names.fresh(hint, t)
            })
            .collect();
        self.stms.push(Stm {
            pat: pat.clone(),
            exp,
            aux: aux.unwrap_or_else(|| self.aux.clone()),
        });
        pat
    }

    /// Binds `exp` to fresh variables whose types are inferred
    /// ([`crate::core::type_of::type_of_exp`]), all with hint `hint`.
    pub fn bind_exp(&mut self, exp: Exp, hint: &str) -> Vec<Var> {
        let types = type_of_exp(self.names, &exp);
        self.bind(exp, types, &[hint], None)
    }

    /// Binds a basic operation with one result (not `assert`) and returns its variable.
    pub fn basic(&mut self, op: BasicOp, hint: &str) -> Var {
        let types = type_of_basic_op(self.names, &op);
        let vs = self.bind(Exp::BasicOp(op), types, &[hint], None);
        vs.first().copied().unwrap_or(Var(u32::MAX))
    }

    /// `let hint = op(args)`.
    pub fn prim(&mut self, op: PrimOp, args: Vec<SubExp>, hint: &str) -> Var {
        self.basic(BasicOp::Prim(op, args), hint)
    }

    /// `let hint = array[slice]`.
    pub fn index(&mut self, array: Var, slice: Vec<DimIndex>, hint: &str) -> Var {
        self.basic(BasicOp::Index { array, slice }, hint)
    }

    /// A copy of a sub-expression bound to a fresh variable.
    pub fn subexp(&mut self, se: SubExp, hint: &str) -> Var {
        self.basic(BasicOp::SubExp(se), hint)
    }

    /// `let () = assert(cond, message, args)`.
    pub fn assert(&mut self, cond: SubExp, message: &str, args: Vec<SubExp>) {
        self.bind(
            Exp::BasicOp(BasicOp::Assert {
                cond,
                message: message.to_string(),
                args,
            }),
            vec![],
            &[],
            None,
        );
    }

    /// Builds a sub-body (a branch, a loop body) with a nested builder on the same name
    /// table; `f` emits its statements and returns its results. The nested builder starts
    /// with this builder's [`Aux`].
    pub fn body(&mut self, f: impl FnOnce(&mut Builder<'_>) -> Vec<SubExp>) -> Body {
        let mut b = Builder {
            names: &mut *self.names,
            stms: Vec::new(),
            aux: self.aux.clone(),
        };
        let result = f(&mut b);
        b.finish(result)
    }

    /// Builds a lambda with fresh parameters of the given hints and types and result types
    /// `ret`; `f` receives a nested builder and the parameters and returns the results.
    pub fn lambda(
        &mut self,
        params: &[(&str, Type)],
        ret: Vec<Type>,
        f: impl FnOnce(&mut Builder<'_>, &[Var]) -> Vec<SubExp>,
    ) -> Lambda {
        let params: Vec<Var> = params
            .iter()
            .map(|(h, t)| self.names.fresh(h, t.clone()))
            .collect();
        let body = self.body(|b| f(b, &params));
        Lambda { params, body, ret }
    }

    /// `let hints = if cond then {..} else {..} : ret`: builds both branches with nested
    /// builders and binds the results to fresh variables of types `ret`.
    pub fn if_then_else(
        &mut self,
        cond: SubExp,
        ret: Vec<Type>,
        hints: &[&str],
        then_f: impl FnOnce(&mut Builder<'_>) -> Vec<SubExp>,
        else_f: impl FnOnce(&mut Builder<'_>) -> Vec<SubExp>,
    ) -> Vec<Var> {
        let then_body = self.body(then_f);
        let else_body = self.body(else_f);
        let exp = Exp::If {
            cond,
            then_body,
            else_body,
            ret: ret.clone(),
        };
        self.bind(exp, ret, hints, None)
    }

    /// The statements emitted so far.
    pub fn stms(&self) -> &[Stm] {
        &self.stms
    }

    /// Takes the statements emitted so far, leaving the builder empty.
    pub fn take_stms(&mut self) -> Vec<Stm> {
        std::mem::take(&mut self.stms)
    }

    /// The body of the emitted statements followed by `result`.
    pub fn finish(self, result: Vec<SubExp>) -> Body {
        Body {
            stms: self.stms,
            result,
        }
    }
}
