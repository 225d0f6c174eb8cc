//! The checker: scopes, declarations, expressions and patterns.
//!
//! One pass over the declarations, top to bottom (prelude first). Each value declaration is
//! inferred at level 1 (local functions one level deeper); when it is finished, overloaded
//! variables are defaulted, types known only by their constructors are closed, pending checks
//! (literal ranges, field accesses on unknown types, statically needed sizes, exhaustiveness
//! of `match`) run, and the remaining variables are generalised by binding them
//! to [`Ty::Param`] / [`Size::Named`], so that the recorded node types of the body agree with
//! the declaration's scheme. All recorded types are fully substituted at the very end.
//!
//! This file holds the entry point, the checker's state and the scope helpers; the rest is
//! split by construct: [`decl`] (declarations and generalisation), [`types`] (type
//! expressions), [`pattern`], [`exhaustive`] (`match` exhaustiveness and refutable
//! patterns), [`names`] (name resolution and operators), [`apply`]
//! (application and indexing), [`exp`], [`loops`], [`uniqueness`] (consumption and aliases)
//! and [`typeops`] (functions on types that need no checker state).

use super::infer::{PrimSet, UErr, Unifier};
use super::ty::{BindingId, OPEN_SUM, Size, Ty};
use super::{DeclRef, FIRST_CHECKER_BINDING, Resolved, TypedProgram};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use typeops::{final_size, final_ty, rename_vars};

mod apply;
mod decl;
mod exhaustive;
mod exp;
mod loops;
mod names;
mod pattern;
mod typeops;
mod types;
mod uniqueness;

type R<T> = Result<T, Box<Diagnostic>>;
type SizeParams = Vec<(String, BindingId)>;
type TypeParams = Vec<(String, bool)>;
/// Parameter types, result type, size-dependent parameters, unique parameters.
type FunctionParts = (Vec<Ty>, Ty, Vec<Option<BindingId>>, Vec<bool>);

fn err(span: Span, msg: impl Into<String>) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(span, msg))
}

fn limitation(span: Span, msg: impl Into<String>) -> Box<Diagnostic> {
    Box::new(Diagnostic::limitation(span, msg))
}

/// The stack size of the checker's own thread: the parser accepts left-nested chains of
/// thousands of nodes, which the checker traverses recursively.
const CHECKER_STACK: usize = 512 << 20;

/// The deepest expression nesting the checker follows before reporting an error.
const MAX_DEPTH: u32 = 20_000;

/// Checks the prelude and then the main program (see the module doc of [`super`]).
///
/// Runs on a thread of its own with a large stack; if no thread can be started, on the
/// caller's thread.
pub fn check_program(prelude: &[Dec], program: &[Dec]) -> Result<TypedProgram, Vec<Diagnostic>> {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(CHECKER_STACK)
            .spawn_scoped(scope, || check_on_this_thread(prelude, program));
        match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|_| Err(vec![Diagnostic::bug("the type checker panicked")])),
            Err(_) => check_on_this_thread(prelude, program),
        }
    })
}

fn check_on_this_thread(prelude: &[Dec], program: &[Dec]) -> Result<TypedProgram, Vec<Diagnostic>> {
    let mut c = Checker {
        next_binding: FIRST_CHECKER_BINDING,
        exports: vec![ModEnv::default()],
        ..Checker::default()
    };
    let run = |c: &mut Checker| -> R<()> {
        c.in_prelude = true;
        c.check_decs(prelude)?;
        c.in_prelude = false;
        c.check_decs(program)?;
        Ok(())
    };
    match run(&mut c) {
        Ok(()) => Ok(c.finish()),
        Err(d) => Err(vec![*d]),
    }
}

/// A polymorphic type.
#[derive(Clone, Debug)]
struct Scheme {
    name: String,
    tparams: Vec<(String, bool)>,
    sparams: Vec<(String, BindingId)>,
    /// Per value parameter: the binding of an `i64` parameter that sizes depend on.
    deps: Vec<Option<BindingId>>,
    /// Per value parameter: declared unique.
    consumes: Vec<bool>,
    /// Size parameters that no parameter type determines (docs/language.md §Size rules).
    static_sizes: Vec<(String, BindingId)>,
    ty: Ty,
}

#[derive(Clone, Debug)]
enum ValEntry {
    Local {
        id: BindingId,
        ty: Ty,
    },
    LocalFun {
        id: BindingId,
        scheme: Rc<Scheme>,
    },
    Decl {
        dref: DeclRef,
        scheme: Rc<Scheme>,
    },
    /// A top-level function inside its own body (monomorphic recursion).
    RecDecl {
        dref: DeclRef,
        ty: Ty,
    },
}

#[derive(Clone, Debug)]
enum AbbrParam {
    Size(BindingId),
    Type(String),
}

#[derive(Clone, Debug)]
struct TypeAbbr {
    params: Vec<AbbrParam>,
    ty: Ty,
}

#[derive(Clone, Debug, Default)]
struct ModEnv {
    vals: BTreeMap<String, ValEntry>,
    types: BTreeMap<String, Rc<TypeAbbr>>,
    mods: BTreeMap<String, Rc<ModEnv>>,
}

#[derive(Clone, Debug)]
enum Item {
    Val(ValEntry),
    Type(Rc<TypeAbbr>),
    Mod(Rc<ModEnv>),
}

#[derive(Clone, Debug)]
struct Entry {
    name: String,
    item: Item,
}

/// What anonymous sizes `[]` in a type expression become.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Anon {
    Fresh,
    Unknown,
}

struct Binder {
    name: String,
    id: BindingId,
    ty: Ty,
}

/// Facts about a callee that application needs.
#[derive(Default)]
struct Callee {
    name: String,
    deps: Vec<Option<Size>>,
    consumes: Vec<bool>,
    operator: bool,
}

struct PendingStatic {
    span: Span,
    func: String,
    size_name: String,
    size: Size,
}

#[derive(Default)]
struct Checker {
    u: Unifier,
    depth: u32,
    /// Lambdas, loop bodies and local functions entered (see `consume`).
    barrier: u32,
    binding_depth: HashMap<BindingId, u32>,
    /// For a `let`-bound name, the variables its value may share memory with.
    aliases: HashMap<BindingId, Vec<BindingId>>,
    level: u32,
    scope: Vec<Entry>,
    exports: Vec<ModEnv>,
    local_depth: u32,
    module_path: Vec<String>,
    dec_path: Vec<usize>,
    in_prelude: bool,
    next_binding: u32,
    param_counter: u32,
    lifted: Vec<String>,
    out: TypedProgram,
    pending_static: Vec<PendingStatic>,
    /// The local bindings named by the expressions checked so far in the current top-level
    /// declaration, in order (a function's size parameters its body names must be known).
    local_uses: Vec<BindingId>,
    /// The part of `local_uses` from the body of the function [`Checker::check_function`]
    /// checked last (its start).
    body_uses_start: usize,
    pending_lits: Vec<(Span, NodeId, u128)>,
    negated_lits: HashSet<NodeId>,
    consumed: HashMap<BindingId, Span>,
    nonunique_params: HashSet<BindingId>,
    /// Whether the pattern being checked is the pattern of a `case` (refutable patterns
    /// allowed).
    in_case: bool,
    /// `match` expressions of the current top-level declaration, checked for exhaustiveness
    /// and unreachable cases once its types are known.
    pending_matches: Vec<PendingMatch>,
    /// Constructor patterns outside `case` (pattern id, span, constructor): their type must
    /// have only that constructor, which is known once the declaration is inferred.
    pending_constr_pats: Vec<(NodeId, Span, String)>,
}

/// A `match` whose exhaustiveness is checked when its declaration is finished.
struct PendingMatch {
    span: Span,
    scrutinee: Ty,
    cases: Vec<Pat>,
}

fn strip(e: &Exp) -> &Exp {
    match &e.kind {
        ExpKind::Parens(i) => strip(i),
        ExpKind::Attr { exp, .. } => strip(exp),
        _ => e,
    }
}

/// Adds field `name` of type `t` to the fields of a record type; a field given twice is an
/// error at `span`.
fn add_field(fields: &mut BTreeMap<String, Ty>, name: &str, span: Span, t: Ty) -> R<()> {
    if fields.insert(name.to_string(), t).is_some() {
        return Err(err(span, format!("field `{name}` appears twice")));
    }
    Ok(())
}

impl Checker {
    fn fresh(&mut self) -> Ty {
        self.u.fresh(self.level, None, false)
    }
    fn fresh_constrained(&mut self, set: PrimSet) -> Ty {
        match set.single() {
            Some(p) => Ty::Prim(p),
            None => self.u.fresh(self.level, Some(set), false),
        }
    }
    fn fresh_size(&mut self) -> Size {
        self.u.fresh_size(self.level)
    }
    fn new_binding(&mut self) -> BindingId {
        let b = BindingId(self.next_binding);
        self.next_binding = self.next_binding.wrapping_add(1);
        b
    }
    fn show(&self, t: &Ty) -> String {
        self.show2(t, t).0
    }

    /// Two types for a message, with unification variables named `?a`, `?b`, ... in order of
    /// appearance.
    fn show2(&self, a: &Ty, b: &Ty) -> (String, String) {
        let mut names = Vec::new();
        let a = rename_vars(&self.show_constrs(&self.u.resolve(a), 0), &mut names);
        let b = rename_vars(&self.show_constrs(&self.u.resolve(b), 0), &mut names);
        (format!("`{a}`"), format!("`{b}`"))
    }

    /// `t` (resolved) with each variable that only constructors constrain shown as the sum
    /// of those constructors and more ([`OPEN_SUM`]), for messages.
    fn show_constrs(&self, t: &Ty, depth: u32) -> Ty {
        if depth > 8 {
            return t.clone();
        }
        let go = |t: &Ty| self.show_constrs(t, depth + 1);
        match t {
            Ty::Var(v) => match self.u.info(*v).and_then(|i| i.constrs.clone()) {
                Some(mut cs) => {
                    for payload in cs.values_mut() {
                        *payload = payload.iter().map(|p| go(&self.u.resolve(p))).collect();
                    }
                    cs.insert(OPEN_SUM.to_string(), Vec::new());
                    Ty::Sum(cs)
                }
                None => t.clone(),
            },
            Ty::Array(dims, e) => Ty::Array(dims.clone(), Box::new(go(e))),
            Ty::Record(fs) => Ty::Record(fs.iter().map(|(k, f)| (k.clone(), go(f))).collect()),
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(k, ts)| (k.clone(), ts.iter().map(go).collect()))
                    .collect(),
            ),
            Ty::Arrow(a, b) => Ty::Arrow(Box::new(go(a)), Box::new(go(b))),
            Ty::Prim(_) | Ty::Param(_) => t.clone(),
        }
    }

    fn record_exp(&mut self, e: &Exp, t: &Ty) {
        self.out.exp_types.insert(e.id, t.clone());
    }

    /// Unifies `expected` with `found`; on failure reports `what` at `span`.
    fn expect(&mut self, span: Span, what: &str, expected: &Ty, found: &Ty) -> R<()> {
        match self.u.unify(expected, found) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.mismatch(span, what, expected, found, e)),
        }
    }

    /// [`Checker::expect`] with size unification turned off, so that only sizes may differ.
    fn expect_ignoring_sizes(
        &mut self,
        span: Span,
        what: &str,
        expected: &Ty,
        found: &Ty,
    ) -> R<()> {
        let saved = self.u.sizes_off;
        self.u.sizes_off = true;
        let r = self.expect(span, what, expected, found);
        self.u.sizes_off = saved;
        r
    }

    /// Checks `e` and unifies its type with `expected`; on failure reports `what` at `e`.
    fn check_exp_as(&mut self, e: &Exp, what: &str, expected: &Ty) -> R<()> {
        let t = self.check_exp(e)?;
        self.expect(e.span, what, expected, &t)
    }

    fn mismatch(
        &self,
        span: Span,
        what: &str,
        expected: &Ty,
        found: &Ty,
        e: UErr,
    ) -> Box<Diagnostic> {
        let (exp, fnd) = self.show2(expected, found);
        let mut d = Diagnostic::error(span, what.to_string());
        d = match &e {
            UErr::NotIn(_, set) if matches!(self.u.resolve(found), Ty::Var(_)) => {
                d.with_label(format!("expected {exp}, found {}", set.describe()))
            }
            UErr::NotIn(_, set) => {
                d.with_label(format!("expected {}, found {fnd}", set.describe()))
            }
            _ => d.with_label(format!("expected {exp}, found {fnd}")),
        };
        if !matches!(e, UErr::NotIn(..)) {
            d = d.with_note(format!("expected type {exp}\n   found type {fnd}"));
        }
        if let Some(note) = e.detail() {
            d = d.with_note(note);
        }
        Box::new(d)
    }

    fn push_val(&mut self, name: &str, v: ValEntry) {
        self.scope.push(Entry {
            name: name.to_string(),
            item: Item::Val(v),
        });
    }

    fn push_binders(&mut self, bs: Vec<Binder>) {
        for b in bs {
            self.binding_depth.insert(b.id, self.barrier);
            self.push_val(&b.name, ValEntry::Local { id: b.id, ty: b.ty });
        }
    }

    /// Binds a size parameter or size binder `[n]`: a local `i64` variable.
    fn bind_size(&mut self, name: &str) -> BindingId {
        let b = self.new_binding();
        self.push_val(
            name,
            ValEntry::Local {
                id: b,
                ty: Ty::Prim(PrimType::I64),
            },
        );
        b
    }

    /// Binds a type parameter `'t`: a type that stands for itself.
    fn bind_type(&mut self, name: &str) {
        self.scope.push(Entry {
            name: name.to_string(),
            item: Item::Type(Rc::new(TypeAbbr {
                params: vec![],
                ty: Ty::Param(name.to_string()),
            })),
        });
    }

    /// Declares a module-level item: in scope, and exported unless `local`.
    fn declare(&mut self, name: &str, item: Item) {
        if self.local_depth == 0
            && let Some(frame) = self.exports.last_mut()
        {
            match &item {
                Item::Val(v) => {
                    frame.vals.insert(name.to_string(), v.clone());
                }
                Item::Type(t) => {
                    frame.types.insert(name.to_string(), t.clone());
                }
                Item::Mod(m) => {
                    frame.mods.insert(name.to_string(), m.clone());
                }
            }
        }
        self.scope.push(Entry {
            name: name.to_string(),
            item,
        });
    }

    /// The innermost item named `name` that `pick` accepts, and its position in the scope.
    fn lookup<T>(&self, name: &str, pick: impl Fn(&Item) -> Option<T>) -> Option<(usize, T)> {
        self.scope.iter().enumerate().rev().find_map(|(i, e)| {
            if e.name == name {
                pick(&e.item).map(|x| (i, x))
            } else {
                None
            }
        })
    }

    fn lookup_val(&self, name: &str) -> Option<(usize, ValEntry)> {
        self.lookup(name, |item| match item {
            Item::Val(v) => Some(v.clone()),
            _ => None,
        })
    }

    fn lookup_type(&self, name: &str) -> Option<Rc<TypeAbbr>> {
        let found = self.lookup(name, |item| match item {
            Item::Type(t) => Some(t.clone()),
            _ => None,
        });
        found.map(|(_, t)| t)
    }

    fn lookup_mod(&self, name: &str) -> Option<(usize, Rc<ModEnv>)> {
        self.lookup(name, |item| match item {
            Item::Mod(m) => Some(m.clone()),
            _ => None,
        })
    }

    fn lookup_mod_path(&self, path: &[String], span: Span) -> R<Rc<ModEnv>> {
        let Some(first) = path.first() else {
            return Err(err(span, "empty module path"));
        };
        let mut m = self.lookup_mod(first).map(|(_, m)| m).ok_or_else(|| {
            err(span, format!("unknown module `{first}`")).with_label_box("not found")
        })?;
        for (i, q) in path.iter().enumerate().skip(1) {
            m = m.mods.get(q).cloned().ok_or_else(|| {
                err(
                    span,
                    format!("module `{}` has no module `{q}`", path[..i].join(".")),
                )
            })?;
        }
        Ok(m)
    }

    /// Brings the items of `m` into scope (values, then types, then modules), also exporting
    /// them if `export` (`open M` as a declaration, not `M.(e)`).
    fn open_module(&mut self, m: &ModEnv, export: bool) {
        let vals = m.vals.iter().map(|(n, v)| (n, Item::Val(v.clone())));
        let types = m.types.iter().map(|(n, t)| (n, Item::Type(t.clone())));
        let mods = m.mods.iter().map(|(n, s)| (n, Item::Mod(s.clone())));
        for (n, item) in vals.chain(types).chain(mods) {
            if export {
                self.declare(n, item);
            } else {
                self.scope.push(Entry {
                    name: n.clone(),
                    item,
                });
            }
        }
    }

    fn finish(mut self) -> TypedProgram {
        let resolve = |u: &Unifier, t: &Ty| final_ty(&u.resolve(t));
        for t in self.out.exp_types.values_mut() {
            *t = resolve(&self.u, t);
        }
        for t in self.out.pat_types.values_mut() {
            *t = resolve(&self.u, t);
        }
        for t in self.out.op_types.values_mut() {
            *t = resolve(&self.u, t);
        }
        for r in self.out.resolved.values_mut() {
            match r {
                Resolved::Builtin { operand, .. } => *operand = resolve(&self.u, operand),
                Resolved::Project { base_ty, .. } => *base_ty = resolve(&self.u, base_ty),
                _ => {}
            }
        }
        for i in self.out.instances.values_mut() {
            for (_, t) in &mut i.types {
                *t = resolve(&self.u, t);
            }
            for (_, s) in &mut i.sizes {
                *s = final_size(&self.u.resolve_size(s));
            }
        }
        for e in &mut self.out.entries {
            for p in &mut e.params {
                *p = resolve(&self.u, p);
            }
            e.ret = resolve(&self.u, &e.ret);
        }
        for d in &mut self.out.decls {
            d.ty = resolve(&self.u, &d.ty);
        }
        for l in self.out.local_functions.values_mut() {
            l.ty = resolve(&self.u, &l.ty);
        }
        self.out
    }
}

trait LabelBox {
    fn with_label_box(self, label: &str) -> Self;
}

impl LabelBox for Box<Diagnostic> {
    fn with_label_box(self, label: &str) -> Self {
        Box::new((*self).with_label(label))
    }
}
