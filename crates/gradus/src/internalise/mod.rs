//! Internalisation: typed AST -> core IR.
//!
//! Takes the declarations of the prelude and the program with the type checker's side tables
//! ([`TypedProgram`]) and produces a [`Prog`] with one core function per entry point.
//!
//! Guarantees on the output:
//! * **monomorphic and first-order**: every call is inlined at its call site with the actual
//!   argument values, so polymorphic functions are specialised and function values
//!   (lambdas, partial applications, sections, functions in tuples and records) are
//!   evaluated away; lambdas survive only as arguments of SOACs;
//! * **flat**: tuples and records become separate variables, arrays of tuples become tuples
//!   of arrays ([`value::IVal`]);
//! * **sized**: every array variable's type gives its dimensions as constants or `i64`
//!   variables in scope; sizes a branch or loop changes become explicit existential results;
//! * **checked**: slices, ranges, size coercions, `zip`, and `assert` emit the run-time checks
//!   of docs/language.md §Run-time errors, with the source location of the expression.
//!
//! It does not optimise (that is the optimiser's job) and it does not differentiate: `jvp`
//! and `vjp` become [`crate::core::ir::Exp::Ad`] statements (and `jmp`, `mjp` a `map` of
//! them over the seeds) that the AD pass ([`crate::ad::run`]) expands. Recursive functions
//! (T2) are reported as not supported: inlining cannot terminate for them.
//!
//! This file holds the entry point and the state shared by the `impl` blocks of the child
//! modules, one per construct: entry points (`entry`), declarations and application
//! (`apply`), `pattern`s, expressions (`exp`), `builtins` operators, `control` flow, `arrays`,
//! size checks (`size_checks`), intrinsic functions (`library`), `soac`s, the AD operators
//! (`ad_ops`) and sum types and `match` (`sums`, which lowers sums to records with a tag field).
//! They all emit code through one [`Builder`] that owns the program's name table for the
//! whole translation, with the span of the expression being translated, and that folds
//! constant size arithmetic so that sizes known here stay constants in types.

mod ad_ops;
mod apply;
mod arrays;
mod builtins;
mod control;
mod entry;
mod exp;
pub mod intrinsics;
mod library;
mod map_sizes;
mod pattern;
mod size_checks;
pub mod sizes;
mod soac;
mod sums;
pub mod value;

use crate::core::builder::{Builder, HasBuilder};
use crate::core::external::ExternalType;
use crate::core::ir::{Body, NameTable, Prog, SubExp};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, SourceMap, Span};
use crate::syntax::ast::{self, Dec, DecKind, Pat, ValueDec};
use crate::types::TypedProgram;
use crate::types::ty::Ty;
use std::collections::HashMap;
use value::{Env, IVal};

type R<T> = Result<T, Diagnostic>;

/// How deep calls may nest while inlining before the program is taken to be recursive.
const MAX_INLINE_DEPTH: usize = 100;

/// A value declaration and the module path it lives in.
struct DeclInfo<'a> {
    dec: &'a ValueDec,
    module_path: Vec<String>,
    prelude: bool,
}

/// A lambda, local function, or index section, with the environment it captured.
enum ClosureDef<'a> {
    Lambda {
        params: &'a [Pat],
        body: &'a ast::Exp,
        env: Env,
        /// The type-parameter environment where it was defined.
        tenv: TypeEnv,
    },
    IndexSection {
        indices: &'a [ast::DimIndex],
        env: Env,
        span: Span,
    },
}

/// Internalises a type-checked program. `prelude` and `program` are the declarations the
/// checker saw, in the same order.
pub fn internalise(
    prelude: &[Dec],
    program: &[Dec],
    typed: &TypedProgram,
    sources: &SourceMap,
) -> Result<Prog, Diagnostic> {
    let mut decls = Vec::new();
    for info in &typed.decls {
        let files = if info.location.in_prelude {
            prelude
        } else {
            program
        };
        let dec = dec_at(files, &info.location.path).ok_or_else(|| {
            Diagnostic::bug(format!(
                "declaration {} not found in the AST",
                info.decl.name
            ))
        })?;
        decls.push(DeclInfo {
            dec,
            module_path: info.decl.module_path.clone(),
            prelude: info.location.in_prelude,
        });
    }
    let mut ctx = Internaliser {
        typed,
        sources,
        em: Builder::owning(NameTable::new()).with_constant_folding(),
        decls,
        closures: Vec::new(),
        constants: HashMap::new(),
        depth: 0,
        tenv: TypeEnv::default(),
    };
    let mut funs = Vec::new();
    for sig in &typed.entries {
        funs.push(ctx.entry(sig)?);
    }
    let mut prog = Prog {
        names: ctx.em.into_names(),
        funs,
    };
    sizes::hoist_result_sizes(&mut prog);
    Ok(prog)
}

/// The value declaration at a [`crate::types::DecPath`] path: indices down through module
/// bodies; `local` wrappers take no step.
fn dec_at<'a>(decs: &'a [Dec], path: &[usize]) -> Option<&'a ValueDec> {
    let (first, rest) = path.split_first()?;
    let mut d = decs.get(*first)?;
    while let DecKind::Local(inner) = &d.kind {
        d = inner;
    }
    match (&d.kind, rest.is_empty()) {
        (DecKind::Value(v), true) => Some(v),
        (DecKind::Module(m), false) => match &m.body.kind {
            ast::ModExpKind::Decs(inner) => dec_at(inner, rest),
            _ => None,
        },
        _ => None,
    }
}

struct Internaliser<'a> {
    typed: &'a TypedProgram,
    sources: &'a SourceMap,
    em: Builder<'static>,
    decls: Vec<DeclInfo<'a>>,
    closures: Vec<ClosureDef<'a>>,
    /// The values of parameterless declarations already internalised in this entry point,
    /// when they are made of constants only (others are internalised again at each use).
    constants: HashMap<usize, IVal>,
    depth: usize,
    /// The instantiations of the type parameters of the functions being inlined, which
    /// the types the checker recorded in their bodies mention (needed where a value is
    /// built from its type: the blank payloads of sum values).
    tenv: TypeEnv,
}

/// Type parameter names and the concrete types they stand for.
type TypeEnv = std::rc::Rc<HashMap<String, Ty>>;

impl HasBuilder<'static> for Internaliser<'_> {
    fn builder(&mut self) -> &mut Builder<'static> {
        &mut self.em
    }
}

impl Internaliser<'_> {
    /// Builds a nested body (of a branch, lambda or differentiated function) with `build`,
    /// whose value's leaves are the body's results. On failure the half-built body is
    /// dropped ([`HasBuilder::nested`]), so the builder's stack of open bodies stays balanced
    /// for the caller.
    fn body_of(&mut self, build: impl FnOnce(&mut Self) -> R<IVal>) -> R<(IVal, Body)> {
        let (stms, v) = self.nested(build)?;
        let result = v.leaves();
        Ok((v, Body { stms, result }))
    }
}

fn limitation(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::limitation(span, msg)
}

fn bug(span: Span, msg: impl Into<String>) -> Diagnostic {
    let mut d = Diagnostic::bug(msg);
    d.primary = Some((span, String::new()));
    d
}

fn i64c(n: i64) -> SubExp {
    SubExp::i64(n)
}

/// The external type of an entry-point parameter or result.
pub fn external_type(t: &Ty) -> ExternalType {
    fn elem_rank(t: &Ty) -> Option<(PrimType, usize)> {
        match t {
            Ty::Prim(p) => Some((*p, 0)),
            Ty::Array(dims, e) => {
                let (p, r) = elem_rank(e)?;
                Some((p, r + dims.len()))
            }
            _ => None,
        }
    }
    match elem_rank(t) {
        Some((elem, rank)) => ExternalType::Value {
            elem,
            rank,
            text: t.to_string(),
        },
        None => ExternalType::Opaque(t.to_string()),
    }
}
