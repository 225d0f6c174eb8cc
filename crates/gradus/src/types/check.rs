//! The checker: scopes, declarations, expressions and patterns.
//!
//! One pass over the declarations, top to bottom (prelude first). Each value declaration is
//! inferred at level 1 (local functions one level deeper); when it is finished, overloaded
//! variables are defaulted, pending checks (literal ranges, field accesses on unknown types,
//! statically needed sizes) run, and the remaining variables are generalised by binding them
//! to [`Ty::Param`] / [`Size::Named`], so that the recorded node types of the body agree with
//! the declaration's scheme. All recorded types are fully substituted at the very end.

use super::infer::{PrimSet, UErr, Unifier};
use super::ty::{BindingId, Size, SizeVar, Ty, TyVar};
use super::{
    DecPath, DeclInfo, DeclRef, EntrySig, FIRST_CHECKER_BINDING, Instance, LocalFunInfo, Resolved,
    TypedProgram,
};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::value::PrimType;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

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
    /// Size parameters that no parameter type determines (7.3 rule 4).
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
    pending_lits: Vec<(Span, NodeId, u128)>,
    negated_lits: HashSet<NodeId>,
    consumed: HashMap<BindingId, Span>,
    nonunique_params: HashSet<BindingId>,
}

fn strip(e: &Exp) -> &Exp {
    match &e.kind {
        ExpKind::Parens(i) => strip(i),
        ExpKind::Attr { exp, .. } => strip(exp),
        _ => e,
    }
}

fn arrows(params: Vec<Ty>, ret: Ty) -> Ty {
    params
        .into_iter()
        .rev()
        .fold(ret, |r, p| Ty::Arrow(Box::new(p), Box::new(r)))
}

fn subst(t: &Ty, tm: &HashMap<String, Ty>, sm: &HashMap<BindingId, Size>) -> Ty {
    match t {
        Ty::Param(p) => tm.get(p).cloned().unwrap_or_else(|| t.clone()),
        Ty::Prim(_) | Ty::Var(_) => t.clone(),
        Ty::Array(dims, e) => {
            let dims: Vec<Size> = dims.iter().map(|d| subst_size(d, sm)).collect();
            let e = subst(e, tm, sm);
            let mut r = e;
            for d in dims.into_iter().rev() {
                r = r.array_of(d);
            }
            r
        }
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), subst(v, tm, sm)))
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(Box::new(subst(a, tm, sm)), Box::new(subst(b, tm, sm))),
    }
}

fn subst_size(s: &Size, sm: &HashMap<BindingId, Size>) -> Size {
    match s {
        Size::Named(b, _) => sm.get(b).cloned().unwrap_or_else(|| s.clone()),
        Size::Op(o, a, b) => Size::Op(*o, Box::new(subst_size(a, sm)), Box::new(subst_size(b, sm))),
        _ => s.clone(),
    }
}

/// Replaces sizes naming the given bindings (going out of scope) by `Unknown`.
fn forget(t: &Ty, ids: &HashSet<BindingId>) -> Ty {
    if ids.is_empty() {
        return t.clone();
    }
    let mut sm = HashMap::new();
    for b in ids {
        sm.insert(*b, Size::Unknown);
    }
    let t = subst(t, &HashMap::new(), &sm);
    unknown_ops(&t)
}

/// An `Op` size with an unknown part is unknown.
fn unknown_ops(t: &Ty) -> Ty {
    fn size(s: &Size) -> Size {
        match s {
            Size::Op(o, a, b) => {
                let (a, b) = (size(a), size(b));
                if a == Size::Unknown || b == Size::Unknown {
                    Size::Unknown
                } else {
                    Size::Op(*o, Box::new(a), Box::new(b))
                }
            }
            _ => s.clone(),
        }
    }
    match t {
        Ty::Array(dims, e) => Ty::Array(dims.iter().map(size).collect(), Box::new(unknown_ops(e))),
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), unknown_ops(v)))
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(Box::new(unknown_ops(a)), Box::new(unknown_ops(b))),
        _ => t.clone(),
    }
}

fn size_mentions(s: &Size, b: BindingId) -> bool {
    match s {
        Size::Named(x, _) => *x == b,
        Size::Op(_, l, r) => size_mentions(l, b) || size_mentions(r, b),
        _ => false,
    }
}

fn ty_mentions(t: &Ty, b: BindingId) -> bool {
    match t {
        Ty::Array(dims, e) => dims.iter().any(|d| size_mentions(d, b)) || ty_mentions(e, b),
        Ty::Record(fs) => fs.values().any(|f| ty_mentions(f, b)),
        Ty::Arrow(a, r) => ty_mentions(a, b) || ty_mentions(r, b),
        _ => false,
    }
}

/// Whether `b` appears as a whole dimension somewhere in `t`.
fn bare_in(t: &Ty, b: BindingId) -> bool {
    match t {
        Ty::Array(dims, e) => {
            dims.iter()
                .any(|d| matches!(d, Size::Named(x, _) if *x == b))
                || bare_in(e, b)
        }
        Ty::Record(fs) => fs.values().any(|f| bare_in(f, b)),
        Ty::Arrow(a, r) => bare_in(a, b) || bare_in(r, b),
        _ => false,
    }
}

fn size_is_known(s: &Size) -> bool {
    match s {
        Size::Var(_) | Size::Unknown => false,
        Size::Op(_, a, b) => size_is_known(a) && size_is_known(b),
        _ => true,
    }
}

/// Where two types' sizes differ, the result has an unknown size.
fn merge_sizes(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Array(d1, e1), Ty::Array(d2, e2)) if d1.len() == d2.len() => Ty::Array(
            d1.iter()
                .zip(d2)
                .map(|(x, y)| if x == y { x.clone() } else { Size::Unknown })
                .collect(),
            Box::new(merge_sizes(e1, e2)),
        ),
        (Ty::Record(f1), Ty::Record(f2)) => Ty::Record(
            f1.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        f2.get(k).map_or(v.clone(), |w| merge_sizes(v, w)),
                    )
                })
                .collect(),
        ),
        _ => a.clone(),
    }
}

fn type_param_names(tps: &[TypeParam]) -> Vec<String> {
    tps.iter()
        .map(|tp| match tp {
            TypeParam::Size { name, .. } | TypeParam::Type { name, .. } => name.clone(),
        })
        .collect()
}

/// The binding of a parameter pattern that is a single (possibly annotated) name.
fn single_name(p: &Pat) -> Option<BindingId> {
    match &p.kind {
        PatKind::Name(_) => Some(BindingId(p.id.0)),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => single_name(pat),
        _ => None,
    }
}

/// Whether a parameter pattern is annotated unique at its top.
fn pat_unique(p: &Pat) -> bool {
    match &p.kind {
        PatKind::Ascribe { ty, pat } => {
            matches!(ty.kind, TypeExpKind::Unique(_)) || pat_unique(pat)
        }
        PatKind::Attr { pat, .. } => pat_unique(pat),
        _ => false,
    }
}

fn builtin_binop(op: &str) -> Option<(PrimSetKind, bool)> {
    // (operand constraint, result is bool)
    Some(match op {
        "+" | "-" | "*" | "/" | "%" | "**" => (PrimSetKind::Numeric, false),
        "//" | "%%" | "&" | "|" | "^" | "<<" | ">>" => (PrimSetKind::Integral, false),
        "==" | "!=" => (PrimSetKind::Equality, true),
        "<" | "<=" | ">" | ">=" => (PrimSetKind::Ordered, true),
        "&&" | "||" => (PrimSetKind::Bool, true),
        _ => return None,
    })
}

#[derive(Clone, Copy)]
enum PrimSetKind {
    Numeric,
    Integral,
    Ordered,
    Equality,
    Bool,
}

impl Checker {
    // ------------------------------------------------------------------------------------
    // Small helpers

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
        let a = rename_vars(&self.u.resolve(a), &mut names);
        let b = rename_vars(&self.u.resolve(b), &mut names);
        (format!("`{a}`"), format!("`{b}`"))
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

    fn lookup_val(&self, name: &str) -> Option<(usize, ValEntry)> {
        self.scope
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, e)| match &e.item {
                Item::Val(v) if e.name == name => Some((i, v.clone())),
                _ => None,
            })
    }
    fn lookup_type(&self, name: &str) -> Option<Rc<TypeAbbr>> {
        self.scope.iter().rev().find_map(|e| match &e.item {
            Item::Type(t) if e.name == name => Some(t.clone()),
            _ => None,
        })
    }
    fn lookup_mod(&self, name: &str) -> Option<(usize, Rc<ModEnv>)> {
        self.scope
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, e)| match &e.item {
                Item::Mod(m) if e.name == name => Some((i, m.clone())),
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

    fn open_module(&mut self, m: &ModEnv, export: bool) {
        for (n, v) in &m.vals {
            if export {
                self.declare(n, Item::Val(v.clone()));
            } else {
                self.push_val(n, v.clone());
            }
        }
        for (n, t) in &m.types {
            let item = Item::Type(t.clone());
            if export {
                self.declare(n, item);
            } else {
                self.scope.push(Entry {
                    name: n.clone(),
                    item,
                });
            }
        }
        for (n, s) in &m.mods {
            let item = Item::Mod(s.clone());
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

    // ------------------------------------------------------------------------------------
    // Declarations

    fn check_decs(&mut self, decs: &[Dec]) -> R<()> {
        for (i, d) in decs.iter().enumerate() {
            self.dec_path.push(i);
            let r = self.check_dec(d);
            self.dec_path.pop();
            r?;
        }
        Ok(())
    }

    fn check_dec(&mut self, d: &Dec) -> R<()> {
        match &d.kind {
            DecKind::Value(vd) => self.check_value_dec(vd),
            DecKind::TypeAbbrev(td) => self.check_type_dec(td),
            DecKind::Module(md) => {
                if let Some(p) = md.params.first() {
                    return Err(limitation(p.span, "parametric modules"));
                }
                if let Some(s) = &md.sig {
                    return Err(limitation(s.span, "module type ascription"));
                }
                let env = self.check_modexp(&md.body, &md.name)?;
                self.declare(&md.name, Item::Mod(Rc::new(env)));
                Ok(())
            }
            DecKind::ModuleType(mt) => Err(limitation(mt.name_span, "module types")),
            DecKind::Open(me) => {
                let env = match &me.kind {
                    ModExpKind::Var(q) => {
                        let mut path = q.qualifiers.clone();
                        path.push(q.name.clone());
                        self.lookup_mod_path(&path, me.span)?
                    }
                    ModExpKind::Import(_) => return Err(limitation(me.span, "`import`")),
                    _ => {
                        return Err(limitation(
                            me.span,
                            "`open` of a module expression that is not a name",
                        ));
                    }
                };
                self.open_module(&env, true);
                Ok(())
            }
            DecKind::Local(inner) => {
                self.local_depth += 1;
                let r = self.check_dec(inner);
                self.local_depth -= 1;
                r
            }
            DecKind::Import { path_span, .. } => Err(limitation(*path_span, "`import`")),
        }
    }

    fn check_modexp(&mut self, me: &ModExp, name: &str) -> R<ModEnv> {
        match &me.kind {
            ModExpKind::Decs(decs) => {
                let mark = self.scope.len();
                let saved_local = self.local_depth;
                self.local_depth = 0;
                self.exports.push(ModEnv::default());
                self.module_path.push(name.to_string());
                let r = self.check_decs(decs);
                self.module_path.pop();
                let env = self.exports.pop().unwrap_or_default();
                self.local_depth = saved_local;
                self.scope.truncate(mark);
                r?;
                Ok(env)
            }
            ModExpKind::Var(q) => {
                let mut path = q.qualifiers.clone();
                path.push(q.name.clone());
                Ok((*self.lookup_mod_path(&path, me.span)?).clone())
            }
            ModExpKind::Apply(..) => Err(limitation(me.span, "parametric modules")),
            ModExpKind::Ascribe(..) => Err(limitation(me.span, "module type ascription")),
            ModExpKind::Import(_) => Err(limitation(me.span, "`import`")),
            ModExpKind::Lambda { .. } => Err(limitation(me.span, "parametric modules")),
        }
    }

    #[allow(clippy::redundant_closure_call)] // a closure so that `?` cannot skip the truncation
    fn check_type_dec(&mut self, td: &TypeDec) -> R<()> {
        let mark = self.scope.len();
        let mut params = Vec::new();
        let r = (|| -> R<Ty> {
            for tp in &td.params {
                match tp {
                    TypeParam::Size { name, .. } => {
                        let b = self.new_binding();
                        self.push_val(
                            name,
                            ValEntry::Local {
                                id: b,
                                ty: Ty::Prim(PrimType::I64),
                            },
                        );
                        params.push(AbbrParam::Size(b));
                    }
                    TypeParam::Type { name, .. } => {
                        self.scope.push(Entry {
                            name: name.clone(),
                            item: Item::Type(Rc::new(TypeAbbr {
                                params: vec![],
                                ty: Ty::Param(name.clone()),
                            })),
                        });
                        params.push(AbbrParam::Type(name.clone()));
                    }
                }
            }
            self.resolve_type(&td.ty, Anon::Unknown)
        })();
        self.scope.truncate(mark);
        let ty = r?;
        let ty = self.u.resolve(&ty);
        self.declare(&td.name, Item::Type(Rc::new(TypeAbbr { params, ty })));
        Ok(())
    }

    /// Binds `[n]` and `'t` parameters; returns size and type parameters.
    fn bind_type_params(&mut self, tps: &[TypeParam]) -> (SizeParams, TypeParams) {
        let mut sizes = Vec::new();
        let mut types = Vec::new();
        for tp in tps {
            match tp {
                TypeParam::Size { name, .. } => {
                    let b = self.new_binding();
                    self.push_val(
                        name,
                        ValEntry::Local {
                            id: b,
                            ty: Ty::Prim(PrimType::I64),
                        },
                    );
                    sizes.push((name.clone(), b));
                }
                TypeParam::Type { name, lifted, .. } => {
                    self.scope.push(Entry {
                        name: name.clone(),
                        item: Item::Type(Rc::new(TypeAbbr {
                            params: vec![],
                            ty: Ty::Param(name.clone()),
                        })),
                    });
                    let l = *lifted == Lift::Caret;
                    if l {
                        self.lifted.push(name.clone());
                    }
                    types.push((name.clone(), l));
                }
            }
        }
        (sizes, types)
    }

    /// Checks parameters, return type and body of a function-like declaration, in the
    /// current (already entered) level. Returns parameter types, result type, deps and
    /// uniqueness.
    fn check_function(
        &mut self,
        params: &[Pat],
        ret: Option<&TypeExp>,
        body: &Exp,
        rec: Option<(&str, ValEntry)>,
    ) -> R<FunctionParts> {
        if let Some((name, entry)) = rec {
            self.push_val(name, entry);
        }
        let mut ptys = Vec::new();
        let mut deps = Vec::new();
        let mut uniq = Vec::new();
        for p in params {
            let mut bs = Vec::new();
            let t = self.check_pat(p, Anon::Fresh, &mut bs)?;
            let unique = pat_unique(p);
            if !unique {
                for b in &bs {
                    self.nonunique_params.insert(b.id);
                }
            }
            self.push_binders(bs);
            ptys.push(t);
            deps.push(single_name(p));
            uniq.push(unique);
        }
        let ret_ty = match ret {
            Some(te) => Some(self.resolve_type(te, Anon::Unknown)?),
            None => None,
        };
        let body_ty = self.check_exp(body)?;
        let result = match ret_ty {
            Some(rt) => {
                self.expect(
                    body.span,
                    "the body does not have the declared return type",
                    &rt,
                    &body_ty,
                )?;
                rt
            }
            None => body_ty,
        };
        Ok((ptys, result, deps, uniq))
    }

    fn fresh_param_name(&mut self, avoid: &[String]) -> String {
        loop {
            let i = self.param_counter as usize;
            self.param_counter += 1;
            let letter = (b'a' + (i % 26) as u8) as char;
            let name = if i < 26 {
                letter.to_string()
            } else {
                format!("{letter}{}", i / 26)
            };
            if !avoid.contains(&name) {
                return name;
            }
        }
    }

    fn check_value_dec(&mut self, vd: &ValueDec) -> R<()> {
        let var_start = self.u.tvar_count();
        let svar_start = self.u.svar_count();
        let lit_start = self.pending_lits.len();
        let static_start = self.pending_static.len();
        let mark = self.scope.len();
        let lifted_mark = self.lifted.len();
        let index = self.out.decls.len();
        let dref = DeclRef {
            module_path: self.module_path.clone(),
            name: vd.name.clone(),
            index,
        };
        let binding = self.new_binding();
        self.level += 1;
        let (explicit_sizes, explicit_types) = self.bind_type_params(&vd.type_params);
        let self_ty = self.fresh();
        // Named functions may call themselves; operators are not in scope in their bodies
        // (`def (+) a b = (a.0 + b.0, ...)` in a module means the outer `+`).
        let rec = if vd.params.is_empty() || vd.operator {
            None
        } else {
            Some((
                vd.name.as_str(),
                ValEntry::RecDecl {
                    dref: dref.clone(),
                    ty: self_ty.clone(),
                },
            ))
        };
        let r = self.check_function(&vd.params, vd.ret.as_ref(), &vd.body, rec);
        self.level -= 1;
        self.scope.truncate(mark);
        let lifted_names: Vec<String> = self.lifted.split_off(lifted_mark);
        let (ptys, result, deps, consumes) = r?;
        let fn_ty = arrows(ptys.clone(), result.clone());
        self.expect(
            vd.name_span,
            "this recursive use does not match the function's type",
            &self_ty,
            &fn_ty,
        )?;
        let _ = lifted_names;

        self.finish_constraints(var_start, lit_start, static_start)?;

        // Generalise.
        let fn_res = self.u.resolve(&fn_ty);
        let mut avoid = type_param_names(&vd.type_params);
        let mut tparams = explicit_types;
        self.param_counter = 0;
        let mut free = Vec::new();
        free_vars(&fn_res, &mut free);
        for v in free {
            if (v.0 as usize) < var_start || self.u.is_bound(v) {
                continue;
            }
            let lifted = !self.u.info(v).is_some_and(|i| i.no_fun);
            let name = self.fresh_param_name(&avoid);
            avoid.push(name.clone());
            self.u.set(v, Ty::Param(name.clone()));
            tparams.push((name, lifted));
        }
        let mut sparams = explicit_sizes;
        self.generalise_sizes(&ptys, svar_start, &mut sparams, &avoid);
        // Sizes of the result only (or nowhere) are unknown.
        let fn_res = self.u.resolve(&fn_ty);
        let mut leftover = Vec::new();
        free_size_vars(&fn_res, &mut leftover);
        for v in leftover {
            if (v.0 as usize) >= svar_start {
                self.u.set_size(v, Size::Unknown);
            }
        }
        let fn_res = self.u.resolve(&fn_ty);
        let ptys_res: Vec<Ty> = ptys.iter().map(|t| self.u.resolve(t)).collect();
        let deps: Vec<Option<BindingId>> = deps
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                d.filter(|b| {
                    ptys_res.get(i) == Some(&Ty::Prim(PrimType::I64)) && ty_mentions(&fn_res, *b)
                })
            })
            .collect();
        let static_sizes = sparams
            .iter()
            .filter(|(_, b)| !ptys_res.iter().any(|t| bare_in(t, *b)))
            .cloned()
            .collect();
        let tparams_empty = tparams.is_empty();
        let scheme = Rc::new(Scheme {
            name: vd.name.clone(),
            tparams: tparams.clone(),
            sparams: sparams.clone(),
            deps,
            consumes: consumes.clone(),
            static_sizes,
            ty: fn_res.clone(),
        });
        self.out.size_params.insert(vd.body.id, sparams.clone());
        self.out.decl_bindings.insert(binding, dref.clone());
        self.out.decls.push(DeclInfo {
            decl: dref.clone(),
            location: DecPath {
                in_prelude: self.in_prelude,
                path: self.dec_path.clone(),
            },
            body: vd.body.id,
            type_params: tparams,
            size_params: sparams,
            ty: fn_res.clone(),
            binding,
            intrinsic: matches!(strip(&vd.body).kind, ExpKind::Hole),
        });
        if !self.in_prelude && self.module_path.is_empty() && (vd.entry || vd.name == "main") {
            if vd.name.contains('\'') {
                return Err(err(
                    vd.name_span,
                    format!("entry point name `{}` must not contain `'`", vd.name),
                ));
            }
            if !tparams_empty {
                return Err(Box::new(
                    Diagnostic::error(
                        vd.name_span,
                        format!("entry point `{}` must not be polymorphic", vd.name),
                    )
                    .with_label(format!("its type is `{fn_res}`"))
                    .with_note("annotate the parameters with concrete types"),
                ));
            }
            let mut params = ptys_res;
            let mut unique_params = consumes;
            let mut ret = self.u.resolve(&result);
            while let Ty::Arrow(a, b) = ret {
                params.push(*a);
                unique_params.push(false);
                ret = *b;
            }
            self.out.entries.retain(|e| e.name != vd.name);
            self.out.entries.push(EntrySig {
                name: vd.name.clone(),
                decl: dref.clone(),
                params,
                unique_params,
                ret,
            });
        }
        self.declare(&vd.name, Item::Val(ValEntry::Decl { dref, scheme }));
        Ok(())
    }

    /// Turns free size variables of parameter types (created since `svar_start`, above the
    /// current level) into implicit size parameters.
    fn generalise_sizes(
        &mut self,
        ptys: &[Ty],
        svar_start: usize,
        sparams: &mut Vec<(String, BindingId)>,
        avoid: &[String],
    ) {
        let mut vs = Vec::new();
        for t in ptys {
            free_size_vars(&self.u.resolve(t), &mut vs);
        }
        let names = ["n", "m", "k", "l", "p", "q"];
        let mut counter = 0usize;
        for v in vs {
            if (v.0 as usize) < svar_start
                || self.u.size_is_bound(v)
                || self.u.size_level(v) <= self.level
            {
                continue;
            }
            let name = loop {
                let base = names[counter % names.len()];
                let cand = if counter < names.len() {
                    base.to_string()
                } else {
                    format!("{base}{}", counter / names.len())
                };
                counter += 1;
                if !avoid.contains(&cand) && !sparams.iter().any(|(n, _)| *n == cand) {
                    break cand;
                }
            };
            let b = self.new_binding();
            self.u.set_size(v, Size::Named(b, name.clone()));
            sparams.push((name, b));
        }
    }

    /// Defaulting and the checks that wait until a top-level declaration is inferred.
    fn finish_constraints(
        &mut self,
        var_start: usize,
        lit_start: usize,
        static_start: usize,
    ) -> R<()> {
        for i in var_start..self.u.tvar_count() {
            let v = TyVar(i as u32);
            if self.u.is_bound(v) {
                continue;
            }
            let Some(info) = self.u.info(v).cloned() else {
                continue;
            };
            if let Some(span) = info.field_span.filter(|_| info.fields.is_some()) {
                let f = info
                    .fields
                    .as_ref()
                    .and_then(|f| f.keys().next().cloned())
                    .unwrap_or_default();
                return Err(Box::new(
                    Diagnostic::error(
                        span,
                        format!("the type of this expression must be known to access field `{f}`"),
                    )
                    .with_label("type not known here")
                    .with_note("add a type annotation"),
                ));
            }
            if let Some(p) = info.prims.and_then(PrimSet::default_type) {
                self.u.set(v, Ty::Prim(p));
            }
        }
        // Literal ranges.
        let lits: Vec<(Span, NodeId, u128)> = self.pending_lits.drain(lit_start..).collect();
        for (span, id, value) in lits {
            let Some(t) = self.out.exp_types.get(&id).map(|t| self.u.resolve(t)) else {
                continue;
            };
            if let Ty::Prim(p) = t
                && p.is_int()
            {
                let bits = p.bits();
                let neg = self.negated_lits.contains(&id);
                let max: u128 = if p.is_signed_int() {
                    (1u128 << (bits - 1)) - 1 + u128::from(neg)
                } else {
                    (1u128 << bits) - 1
                };
                if value > max {
                    return Err(Box::new(
                        Diagnostic::error(
                            span,
                            format!("integer literal does not fit in type `{p}`"),
                        )
                        .with_label(format!(
                            "the largest `{p}` is {}",
                            (1u128 << (bits - u32::from(p.is_signed_int()))) - 1
                        )),
                    ));
                }
            }
        }
        // Sizes that must be known statically.
        let pend: Vec<PendingStatic> = self.pending_static.drain(static_start..).collect();
        for p in pend {
            let s = self.u.resolve_size(&p.size);
            if !size_is_known(&s) {
                return Err(Box::new(
                    Diagnostic::error(p.span, format!("cannot determine the size `{}` of `{}`", p.size_name, p.func))
                        .with_label(format!("size `{}` must be known here", p.size_name))
                        .with_note("give the argument or the result a type with this size, e.g. with `:>` or `sized`"),
                ));
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------------------------
    // Types

    fn resolve_type(&mut self, te: &TypeExp, anon: Anon) -> R<Ty> {
        match &te.kind {
            TypeExpKind::Prim(p) => Ok(Ty::Prim(*p)),
            TypeExpKind::Named { name, args } => {
                let abbr = if name.is_unqualified() {
                    self.lookup_type(&name.name)
                } else {
                    self.lookup_mod_path(&name.qualifiers, te.span)?
                        .types
                        .get(&name.name)
                        .cloned()
                };
                let abbr = match abbr {
                    Some(a) => a,
                    None => match PrimType::from_name(&name.name) {
                        Some(p) if name.is_unqualified() && args.is_empty() => {
                            return Ok(Ty::Prim(p));
                        }
                        _ => {
                            return Err(Box::new(
                                Diagnostic::error(te.span, format!("unknown type `{name}`"))
                                    .with_label("not found in this scope"),
                            ));
                        }
                    },
                };
                if args.len() != abbr.params.len() {
                    return Err(err(
                        te.span,
                        format!(
                            "type `{name}` takes {} argument(s) but {} were given",
                            abbr.params.len(),
                            args.len()
                        ),
                    ));
                }
                let mut tm = HashMap::new();
                let mut sm = HashMap::new();
                for (p, a) in abbr.params.iter().zip(args) {
                    match (p, a) {
                        (AbbrParam::Size(b), TypeArg::Size(se, _)) => {
                            let s = self.size_exp(se, anon)?;
                            sm.insert(*b, s);
                        }
                        (AbbrParam::Type(n), TypeArg::Type(t)) => {
                            let t = self.resolve_type(t, anon)?;
                            tm.insert(n.clone(), t);
                        }
                        (AbbrParam::Size(_), TypeArg::Type(t)) => {
                            return Err(err(
                                t.span,
                                format!("type `{name}` expects a size argument `[...]` here"),
                            ));
                        }
                        (AbbrParam::Type(_), TypeArg::Size(_, sp)) => {
                            return Err(err(
                                *sp,
                                format!("type `{name}` expects a type argument here"),
                            ));
                        }
                    }
                }
                Ok(unknown_ops(&subst(&abbr.ty, &tm, &sm)))
            }
            TypeExpKind::Array { size, elem, .. } => {
                let e = self.resolve_type(elem, anon)?;
                if self.u.resolve(&e).contains_function() {
                    return Err(err(te.span, "arrays of functions are not allowed"));
                }
                let d = self.size_exp(size, anon)?;
                Ok(self.u.resolve(&e).array_of(d))
            }
            TypeExpKind::Tuple(ts) => {
                let mut v = Vec::new();
                for t in ts {
                    v.push(self.resolve_type(t, anon)?);
                }
                Ok(Ty::tuple(v))
            }
            TypeExpKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let t = self.resolve_type(&f.ty, anon)?;
                    if m.insert(f.name.clone(), t).is_some() {
                        return Err(err(
                            f.name_span,
                            format!("field `{}` appears twice", f.name),
                        ));
                    }
                }
                Ok(Ty::Record(m))
            }
            TypeExpKind::Function {
                param_name,
                param,
                ret,
            } => {
                let p = self.resolve_type(param, anon)?;
                let mark = self.scope.len();
                let mut ids = HashSet::new();
                if let Some((n, _)) = param_name {
                    let b = self.new_binding();
                    ids.insert(b);
                    self.push_val(
                        n,
                        ValEntry::Local {
                            id: b,
                            ty: p.clone(),
                        },
                    );
                }
                let r = self.resolve_type(ret, Anon::Unknown);
                self.scope.truncate(mark);
                let r = r?;
                Ok(Ty::Arrow(
                    Box::new(p),
                    Box::new(forget(&self.u.resolve(&r), &ids)),
                ))
            }
            TypeExpKind::Unique(t) => self.resolve_type(t, anon),
            TypeExpKind::Sum(_) => Err(limitation(te.span, "sum types")),
            TypeExpKind::Existential { sizes, ty } => {
                let mark = self.scope.len();
                let mut ids = HashSet::new();
                for s in sizes {
                    let b = self.new_binding();
                    ids.insert(b);
                    self.push_val(
                        &s.name,
                        ValEntry::Local {
                            id: b,
                            ty: Ty::Prim(PrimType::I64),
                        },
                    );
                }
                let r = self.resolve_type(ty, anon);
                self.scope.truncate(mark);
                Ok(forget(&self.u.resolve(&r?), &ids))
            }
        }
    }

    fn size_exp(&mut self, se: &SizeExp, anon: Anon) -> R<Size> {
        match se {
            SizeExp::Any => Ok(match anon {
                Anon::Fresh => self.fresh_size(),
                Anon::Unknown => Size::Unknown,
            }),
            SizeExp::Exp(e) => {
                let t = self.check_exp(e)?;
                self.expect(
                    e.span,
                    "a size must have type `i64`",
                    &Ty::Prim(PrimType::I64),
                    &t,
                )?;
                Ok(self.exp_to_size(e).unwrap_or(Size::Unknown))
            }
        }
    }

    /// The size an (already checked) `i64` expression denotes, if it can be written as one.
    fn exp_to_size(&self, e: &Exp) -> Option<Size> {
        let e = strip(e);
        match &e.kind {
            ExpKind::Int(l) => i64::try_from(l.value).ok().map(Size::Const),
            ExpKind::Var(q) => {
                let t = self.out.exp_types.get(&e.id).map(|t| self.u.resolve(t));
                if t != Some(Ty::Prim(PrimType::I64)) {
                    return None;
                }
                match self.out.resolved.get(&e.id)? {
                    Resolved::Local(b) => Some(Size::Named(*b, q.to_string())),
                    Resolved::Decl(d) => {
                        let info = self.out.decls.get(d.index)?;
                        if matches!(info.ty, Ty::Arrow(..)) {
                            return None;
                        }
                        Some(Size::Named(info.binding, q.to_string()))
                    }
                    _ => None,
                }
            }
            ExpKind::BinOp { lhs, rhs, .. } => {
                let op = match self.out.resolved.get(&e.id)? {
                    Resolved::Builtin { op, .. } => op.as_str(),
                    _ => return None,
                };
                let c = match op {
                    "+" => '+',
                    "-" => '-',
                    "*" => '*',
                    _ => return None,
                };
                Some(Size::Op(
                    c,
                    Box::new(self.exp_to_size(lhs)?),
                    Box::new(self.exp_to_size(rhs)?),
                ))
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------------------------------
    // Patterns

    fn check_pat(&mut self, p: &Pat, anon: Anon, out: &mut Vec<Binder>) -> R<Ty> {
        let t = match &p.kind {
            PatKind::Name(n) => {
                if out.iter().any(|b| b.name == *n) {
                    return Err(Box::new(
                        Diagnostic::error(
                            p.span,
                            format!("`{n}` is bound twice in the same pattern"),
                        )
                        .with_label("bound again here"),
                    ));
                }
                let t = self.fresh();
                out.push(Binder {
                    name: n.clone(),
                    id: BindingId(p.id.0),
                    ty: t.clone(),
                });
                t
            }
            PatKind::Wildcard => self.fresh(),
            PatKind::Tuple(ps) => {
                let mut v = Vec::new();
                for q in ps {
                    v.push(self.check_pat(q, anon, out)?);
                }
                Ty::tuple(v)
            }
            PatKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let t = self.check_pat(&f.pat, anon, out)?;
                    if m.insert(f.name.clone(), t).is_some() {
                        return Err(err(
                            f.name_span,
                            format!("field `{}` appears twice", f.name),
                        ));
                    }
                }
                Ty::Record(m)
            }
            PatKind::Ascribe { pat, ty } => {
                let at = self.resolve_type(ty, anon)?;
                let it = self.check_pat(pat, anon, out)?;
                self.expect(
                    p.span,
                    "the pattern does not match its type annotation",
                    &at,
                    &it,
                )?;
                at
            }
            PatKind::Constructor { .. } => {
                return Err(limitation(p.span, "sum types and constructor patterns"));
            }
            PatKind::Literal(_) => {
                return Err(Box::new(
                    Diagnostic::error(
                        p.span,
                        "refutable pattern: literals may appear only in `case`",
                    )
                    .with_label("this pattern may fail to match"),
                ));
            }
            PatKind::Attr { pat, .. } => self.check_pat(pat, anon, out)?,
        };
        self.out.pat_types.insert(p.id, t.clone());
        Ok(t)
    }

    // ------------------------------------------------------------------------------------
    // Names

    fn instantiate(&mut self, s: &Scheme, node: NodeId, span: Span) -> (Ty, Callee) {
        let mut tm = HashMap::new();
        let mut inst = Instance::default();
        for (n, lifted) in &s.tparams {
            let v = self.u.fresh(self.level, None, !lifted);
            inst.types.push((n.clone(), v.clone()));
            tm.insert(n.clone(), v);
        }
        let mut sm = HashMap::new();
        for (_, b) in &s.sparams {
            let v = self.fresh_size();
            inst.sizes.push((*b, v.clone()));
            sm.insert(*b, v);
        }
        for b in s.deps.iter().flatten() {
            let v = self.fresh_size();
            inst.sizes.push((*b, v.clone()));
            sm.insert(*b, v);
        }
        for (n, b) in &s.static_sizes {
            if let Some(v) = sm.get(b) {
                self.pending_static.push(PendingStatic {
                    span,
                    func: s.name.clone(),
                    size_name: n.clone(),
                    size: v.clone(),
                });
            }
        }
        let ty = subst(&s.ty, &tm, &sm);
        if !inst.types.is_empty() || !inst.sizes.is_empty() {
            self.out.instances.insert(node, inst);
        }
        let deps = s
            .deps
            .iter()
            .map(|d| d.and_then(|b| sm.get(&b).cloned()))
            .collect();
        (
            ty,
            Callee {
                name: s.name.clone(),
                deps,
                consumes: s.consumes.clone(),
                operator: false,
            },
        )
    }

    /// The type of a value entry at a use, its resolution and callee facts.
    fn use_entry(
        &mut self,
        v: &ValEntry,
        name: &str,
        node: NodeId,
        span: Span,
    ) -> R<(Ty, Resolved, Callee)> {
        Ok(match v {
            ValEntry::Local { id, ty } => {
                let hit = std::iter::once(id)
                    .chain(self.aliases.get(id).into_iter().flatten())
                    .find_map(|b| self.consumed.get(b));
                if let Some(at) = hit {
                    return Err(Box::new(
                        Diagnostic::error(span, format!("`{name}` is used after being consumed"))
                            .with_label("used here")
                            .with_secondary(*at, "consumed here"),
                    ));
                }
                (
                    ty.clone(),
                    Resolved::Local(*id),
                    Callee {
                        name: name.to_string(),
                        ..Default::default()
                    },
                )
            }
            ValEntry::LocalFun { id, scheme } => {
                let (t, c) = self.instantiate(scheme, node, span);
                (t, Resolved::Local(*id), c)
            }
            ValEntry::Decl { dref, scheme, .. } => {
                let (t, c) = self.instantiate(scheme, node, span);
                (t, Resolved::Decl(dref.clone()), c)
            }
            ValEntry::RecDecl { dref, ty } => (
                ty.clone(),
                Resolved::Decl(dref.clone()),
                Callee {
                    name: name.to_string(),
                    ..Default::default()
                },
            ),
        })
    }

    fn unknown_name(span: Span, name: &QualName) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::error(span, format!("unknown name `{name}`"))
                .with_label("not found in this scope"),
        )
    }

    /// Looks up a possibly qualified value name: the entry, the fields projected after it.
    fn lookup_qual(&self, q: &QualName, span: Span) -> R<(ValEntry, String, Vec<String>)> {
        if q.is_unqualified() {
            return match self.lookup_val(&q.name) {
                Some((_, v)) => Ok((v, q.name.clone(), vec![])),
                None => Err(Self::unknown_name(span, q)),
            };
        }
        let root = &q.qualifiers[0];
        let val = self.lookup_val(root);
        let module = self.lookup_mod(root);
        let use_module = match (&val, &module) {
            (Some((vi, v)), Some((mi, _))) => match v {
                ValEntry::Local { .. } | ValEntry::LocalFun { .. } => mi > vi,
                _ => true,
            },
            (None, Some(_)) => true,
            _ => false,
        };
        if use_module {
            let Some((_, mut m)) = module else {
                return Err(Self::unknown_name(span, q));
            };
            let mut comps: Vec<&String> = q.qualifiers[1..].iter().collect();
            comps.push(&q.name);
            let mut i = 0;
            let mut path = vec![root.clone()];
            while i + 1 < comps.len() {
                match m.mods.get(comps[i]) {
                    Some(s) => {
                        path.push(comps[i].clone());
                        m = s.clone();
                        i += 1;
                    }
                    None => break,
                }
            }
            let name = comps[i];
            let v = m.vals.get(name).cloned().ok_or_else(|| {
                Box::new(
                    Diagnostic::error(
                        span,
                        format!("module `{}` has no member `{name}`", path.join(".")),
                    )
                    .with_label("not found in this module"),
                )
            })?;
            let fields = comps[i + 1..].iter().map(|s| (*s).clone()).collect();
            return Ok((v, format!("{}.{name}", path.join(".")), fields));
        }
        match val {
            Some((_, v)) => {
                let mut fields: Vec<String> = q.qualifiers[1..].to_vec();
                fields.push(q.name.clone());
                Ok((v, root.clone(), fields))
            }
            None => Err(Self::unknown_name(span, q)),
        }
    }

    fn check_var(&mut self, e: &Exp, q: &QualName) -> R<(Ty, Callee)> {
        let (entry, name, fields) = self.lookup_qual(q, e.span)?;
        let (mut t, res, mut callee) = self.use_entry(&entry, &name, e.id, e.span)?;
        callee.name = name;
        if fields.is_empty() {
            self.out.resolved.insert(e.id, res);
            return Ok((t, callee));
        }
        let base_ty = t.clone();
        for f in &fields {
            t = self.project(&t, f, e.span)?;
        }
        self.out.resolved.insert(
            e.id,
            Resolved::Project {
                base: Box::new(res),
                base_ty,
                fields,
            },
        );
        Ok((
            t,
            Callee {
                name: q.to_string(),
                ..Default::default()
            },
        ))
    }

    fn project(&mut self, t: &Ty, field: &str, span: Span) -> R<Ty> {
        match self.u.shallow(t) {
            Ty::Record(fs) => fs.get(field).cloned().ok_or_else(|| {
                Box::new(
                    Diagnostic::error(
                        span,
                        format!("type {} has no field `{field}`", self.show(t)),
                    )
                    .with_label(format!("unknown field `{field}`")),
                )
            }),
            Ty::Var(v) => Ok(self.u.require_field(v, field, Some(span))),
            other => Err(Box::new(
                Diagnostic::error(
                    span,
                    format!("type `{}` has no field `{field}`", self.u.resolve(&other)),
                )
                .with_label(format!("unknown field `{field}`")),
            )),
        }
    }

    /// The function type of an operator (builtin or declared) at one use.
    fn check_op(
        &mut self,
        node: NodeId,
        op: &QualName,
        span: Span,
        backtick: bool,
    ) -> R<(Ty, Callee)> {
        if !backtick && op.is_unqualified() && self.lookup_val(&op.name).is_none() {
            if let Some((kind, is_bool)) = builtin_binop(&op.name) {
                let a = match kind {
                    PrimSetKind::Numeric => self.fresh_constrained(PrimSet::numeric()),
                    PrimSetKind::Integral => self.fresh_constrained(PrimSet::integral()),
                    PrimSetKind::Ordered => self.fresh_constrained(PrimSet::ordered()),
                    PrimSetKind::Bool => Ty::Prim(PrimType::Bool),
                    // The "no functions" check comes after the operands; see `BinOp`.
                    PrimSetKind::Equality => self.u.fresh(self.level, None, false),
                };
                let r = if is_bool {
                    Ty::Prim(PrimType::Bool)
                } else {
                    a.clone()
                };
                self.out.resolved.insert(
                    node,
                    Resolved::Builtin {
                        op: op.name.clone(),
                        operand: a.clone(),
                    },
                );
                let t = arrows(vec![a.clone(), a], r);
                return Ok((
                    t,
                    Callee {
                        name: op.name.clone(),
                        operator: true,
                        ..Default::default()
                    },
                ));
            }
            return Err(Box::new(
                Diagnostic::error(span, format!("unknown operator `{op}`"))
                    .with_label("not found in this scope"),
            ));
        }
        let (entry, name, fields) = self.lookup_qual(op, span)?;
        if !fields.is_empty() {
            return Err(Self::unknown_name(span, op));
        }
        let (t, res, mut callee) = self.use_entry(&entry, &name, node, span)?;
        self.out.resolved.insert(node, res);
        self.out.op_types.insert(node, t.clone());
        callee.operator = !backtick;
        callee.name = op.to_string();
        Ok((t, callee))
    }

    // ------------------------------------------------------------------------------------
    // Application

    fn consume(&mut self, e: &Exp) -> R<()> {
        let e = strip(e);
        if let ExpKind::Var(q) = &e.kind
            && q.is_unqualified()
            && let Some(Resolved::Local(b)) = self.out.resolved.get(&e.id)
        {
            let b = *b;
            let mut all = vec![b];
            all.extend(self.aliases.get(&b).into_iter().flatten().copied());
            if all
                .iter()
                .any(|x| self.binding_depth.get(x).is_some_and(|d| *d < self.barrier))
            {
                return Err(Box::new(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "cannot consume `{}` here: it is bound outside this lambda, loop or local function",
                            q.name
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("consume a copy instead (`copy`), or pass it as a loop parameter"),
                ));
            }
            if all[1..].iter().any(|x| self.nonunique_params.contains(x)) {
                return Err(Box::new(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "cannot consume `{}`: it aliases a parameter that is not declared unique",
                            q.name
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("consume a copy instead (`copy`), or declare the parameter unique (`*`)"),
                ));
            }
            if self.nonunique_params.contains(&b) {
                return Err(Box::new(
                    Diagnostic::error(
                        e.span,
                        format!(
                            "cannot consume `{}`: it is a parameter that is not declared unique",
                            q.name
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("declare the parameter's type with `*` to allow consuming it"),
                ));
            }
            for x in all {
                self.consumed.insert(x, e.span);
            }
        }
        Ok(())
    }

    /// The local bindings whose memory the value of `e` may share: `e` is a variable, or a
    /// row, slice or field of one that is itself an array or contains one.
    fn alias_roots(&self, e: &Exp) -> Vec<BindingId> {
        let e = strip(e);
        let shares = |t: Option<&Ty>| {
            let t = t.map(|t| self.u.resolve(t));
            fn has_array(t: &Ty) -> bool {
                match t {
                    Ty::Array(..) => true,
                    Ty::Record(fs) => fs.values().any(has_array),
                    _ => false,
                }
            }
            t.as_ref().is_some_and(has_array)
        };
        match &e.kind {
            ExpKind::Var(_) => {
                let root = match self.out.resolved.get(&e.id) {
                    Some(Resolved::Local(b)) => Some(*b),
                    Some(Resolved::Project { base, .. }) => match **base {
                        Resolved::Local(b) if shares(self.out.exp_types.get(&e.id)) => Some(b),
                        _ => None,
                    },
                    _ => None,
                };
                let mut v: Vec<BindingId> = root.into_iter().collect();
                if let Some(b) = root {
                    v.extend(self.aliases.get(&b).into_iter().flatten().copied());
                }
                v
            }
            ExpKind::Index { target, .. } | ExpKind::Project { target, .. }
                if shares(self.out.exp_types.get(&e.id)) =>
            {
                self.alias_roots(target)
            }
            _ => Vec::new(),
        }
    }

    fn apply_args(&mut self, mut ft: Ty, callee: &Callee, fspan: Span, args: &[&Exp]) -> R<Ty> {
        for (i, arg) in args.iter().enumerate() {
            let (p, r) = match self.u.shallow(&ft) {
                Ty::Arrow(p, r) => (*p, *r),
                Ty::Var(_) => {
                    let p = self.fresh();
                    let r = self.fresh();
                    let want = Ty::Arrow(Box::new(p.clone()), Box::new(r.clone()));
                    if self.u.unify(&want, &ft).is_err() {
                        let d = if i == 0 {
                            Diagnostic::error(fspan, "cannot apply a non-function")
                                .with_label(format!("this has type {}", self.show(&ft)))
                        } else {
                            Diagnostic::error(
                                arg.span,
                                format!("too many arguments to `{}`", callee.name),
                            )
                            .with_label("unexpected argument")
                            .with_secondary(
                                fspan,
                                format!(
                                    "the result after {i} argument(s) has type {}",
                                    self.show(&ft)
                                ),
                            )
                        };
                        return Err(Box::new(d));
                    }
                    (p, r)
                }
                other => {
                    let other = rename_vars(&self.u.resolve(&other), &mut Vec::new());
                    let d = if i == 0 {
                        Diagnostic::error(fspan, "cannot apply a non-function")
                            .with_label(format!("this has type `{other}`"))
                    } else {
                        Diagnostic::error(
                            arg.span,
                            format!(
                                "too many arguments: `{}` takes {i} argument(s) here",
                                callee.name
                            ),
                        )
                        .with_label("unexpected argument")
                        .with_secondary(
                            fspan,
                            format!("the result after {i} argument(s) has type `{other}`"),
                        )
                    };
                    return Err(Box::new(d));
                }
            };
            let at = self.check_exp(arg)?;
            let what = if callee.operator {
                let side = if i == 0 { "left" } else { "right" };
                format!("the {side} operand of `{}` has the wrong type", callee.name)
            } else {
                format!("argument {} of `{}` has the wrong type", i + 1, callee.name)
            };
            self.expect(arg.span, &what, &p, &at)?;
            if let Some(Some(dep)) = callee.deps.get(i) {
                let s = self.exp_to_size(arg).unwrap_or(Size::Unknown);
                self.u.unify_size(dep, &s);
            }
            if callee.consumes.get(i) == Some(&true) {
                self.consume(arg)?;
            }
            ft = r;
        }
        Ok(ft)
    }

    // ------------------------------------------------------------------------------------
    // Indexing

    fn index_type(&mut self, t: &Ty, idx: &[DimIndex], span: Span) -> R<Ty> {
        let mut slices: Vec<Option<&DimIndex>> = Vec::new();
        for d in idx {
            match d {
                DimIndex::Fix(e) => {
                    let it = self.check_exp(e)?;
                    self.expect(
                        e.span,
                        "an index must have type `i64`",
                        &Ty::Prim(PrimType::I64),
                        &it,
                    )?;
                    slices.push(None);
                }
                DimIndex::Slice { start, end, stride } => {
                    for e in [start, end, stride].into_iter().flatten() {
                        let it = self.check_exp(e)?;
                        self.expect(
                            e.span,
                            "a slice bound must have type `i64`",
                            &Ty::Prim(PrimType::I64),
                            &it,
                        )?;
                    }
                    slices.push(Some(d));
                }
            }
        }
        let mut t = self.u.resolve(t);
        if let Ty::Var(_) = t {
            let elem = self.fresh();
            let mut want = elem;
            for _ in 0..idx.len() {
                let s = self.fresh_size();
                want = self.u.resolve(&want).array_of(s);
            }
            self.expect(span, "cannot index this value", &want, &t)?;
            t = self.u.resolve(&t);
        }
        let Ty::Array(dims, elem) = &t else {
            return Err(Box::new(
                Diagnostic::error(span, format!("cannot index into a value of type `{t}`"))
                    .with_label("not an array"),
            ));
        };
        if idx.len() > dims.len() {
            return Err(Box::new(
                Diagnostic::error(
                    span,
                    format!(
                        "too many indices: type `{t}` has {} dimension(s)",
                        dims.len()
                    ),
                )
                .with_label(format!("{} indices", idx.len())),
            ));
        }
        let mut out = Vec::new();
        for (s, d) in slices.iter().zip(dims) {
            if let Some(DimIndex::Slice { start, end, stride }) = s {
                out.push(self.slice_size(d, start.as_ref(), end.as_ref(), stride.as_ref()));
            }
        }
        out.extend(dims[idx.len()..].iter().cloned());
        if out.is_empty() {
            Ok((**elem).clone())
        } else {
            Ok(Ty::Array(out, elem.clone()))
        }
    }

    fn slice_size(
        &self,
        d: &Size,
        start: Option<&Exp>,
        end: Option<&Exp>,
        stride: Option<&Exp>,
    ) -> Size {
        let is_lit = |e: &Exp, v: u128| matches!(&strip(e).kind, ExpKind::Int(l) if l.value == v);
        let is_minus_one = |e: &Exp| matches!(&strip(e).kind, ExpKind::Neg(i) if is_lit(i, 1));
        match (start, end, stride) {
            (None, None, None) => d.clone(),
            (None, None, Some(s)) if is_minus_one(s) => d.clone(),
            (st, Some(e), None) if st.is_none_or(|s| is_lit(s, 0)) => match self.exp_to_size(e) {
                Some(s @ (Size::Named(..) | Size::Const(_))) => s,
                _ => Size::Unknown,
            },
            _ => Size::Unknown,
        }
    }

    // ------------------------------------------------------------------------------------
    // Expressions

    fn check_exp(&mut self, e: &Exp) -> R<Ty> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(err(e.span, "expression nested too deeply"));
        }
        let t = self.infer_exp(e);
        self.depth -= 1;
        let t = t?;
        self.record_exp(e, &t);
        Ok(t)
    }

    fn infer_exp(&mut self, e: &Exp) -> R<Ty> {
        let bool_t = Ty::Prim(PrimType::Bool);
        let i64_t = Ty::Prim(PrimType::I64);
        match &e.kind {
            ExpKind::Int(l) => {
                self.pending_lits.push((e.span, e.id, l.value));
                Ok(match l.suffix {
                    Some(p) => Ty::Prim(p),
                    None => self.fresh_constrained(PrimSet::numeric()),
                })
            }
            ExpKind::Float(l) => Ok(match l.suffix {
                Some(p) => Ty::Prim(p),
                None => self.fresh_constrained(PrimSet::float()),
            }),
            ExpKind::Bool(_) => Ok(bool_t),
            ExpKind::Char(_) => Ok(self.fresh_constrained(PrimSet::integral())),
            ExpKind::String(s) => Ok(Ty::Array(
                vec![Size::Const(s.len() as i64)],
                Box::new(Ty::Prim(PrimType::U8)),
            )),
            ExpKind::Var(q) => Ok(self.check_var(e, q)?.0),
            ExpKind::Parens(i) => self.check_exp(i),
            ExpKind::Tuple(es) => {
                let mut v = Vec::new();
                for x in es {
                    v.push(self.check_exp(x)?);
                }
                Ok(Ty::tuple(v))
            }
            ExpKind::Array(es) => {
                let elem = self.fresh();
                for x in es {
                    let t = self.check_exp(x)?;
                    self.expect(
                        x.span,
                        "array elements must all have the same type",
                        &elem,
                        &t,
                    )?;
                }
                let lifted = self.lifted.clone();
                if self.u.require_no_fun(&elem, &lifted).is_err() {
                    return Err(Box::new(
                        Diagnostic::error(e.span, "arrays of functions are not allowed")
                            .with_label(format!("the elements have type {}", self.show(&elem))),
                    ));
                }
                let elem = self.u.resolve(&elem);
                Ok(elem.array_of(Size::Const(es.len() as i64)))
            }
            ExpKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let t = self.check_exp(&f.value)?;
                    if m.insert(f.name.clone(), t).is_some() {
                        return Err(err(
                            f.name_span,
                            format!("field `{}` appears twice", f.name),
                        ));
                    }
                }
                Ok(Ty::Record(m))
            }
            ExpKind::Project {
                target,
                field,
                field_span,
            } => {
                let t = self.check_exp(target)?;
                self.project(&t, field, *field_span)
            }
            ExpKind::Index { target, indices } => {
                let t = self.check_exp(target)?;
                self.index_type(&t, indices, e.span)
            }
            ExpKind::Apply { func, args } => {
                let (ft, callee) = match &strip(func).kind {
                    ExpKind::Var(q) => {
                        let f = strip(func);
                        let (t, c) = self.check_var(f, q)?;
                        self.record_exp(f, &t);
                        if f.id != func.id {
                            self.check_exp(func)?;
                        }
                        (t, c)
                    }
                    _ => (
                        self.check_exp(func)?,
                        Callee {
                            name: "function".into(),
                            ..Default::default()
                        },
                    ),
                };
                let args: Vec<&Exp> = args.iter().collect();
                self.apply_args(ft, &callee, func.span, &args)
            }
            ExpKind::BinOp {
                op,
                op_span,
                backtick,
                lhs,
                rhs,
            } => {
                let (ft, callee) = self.check_op(e.id, op, *op_span, *backtick)?;
                let r = self.apply_args(ft, &callee, *op_span, &[lhs, rhs])?;
                if let Some(Resolved::Builtin { operand, .. }) = self.out.resolved.get(&e.id) {
                    let operand = operand.clone();
                    if let Err(x) = self.u.require_no_fun(&operand, &self.lifted.clone()) {
                        return Err(self.mismatch(
                            lhs.span,
                            &format!("`{op}` cannot compare functions"),
                            &operand,
                            &operand,
                            x,
                        ));
                    }
                }
                Ok(r)
            }
            ExpKind::Neg(x) => {
                if let ExpKind::Int(_) = strip(x).kind {
                    self.negated_lits.insert(strip(x).id);
                }
                let t = self.check_exp(x)?;
                let a = self.fresh_constrained(PrimSet::numeric());
                self.expect(x.span, "the operand of `-` has the wrong type", &a, &t)?;
                self.out.resolved.insert(
                    e.id,
                    Resolved::Builtin {
                        op: "-".into(),
                        operand: a.clone(),
                    },
                );
                Ok(a)
            }
            ExpKind::Not(x) => {
                let t = self.check_exp(x)?;
                let a = self.fresh_constrained(PrimSet::bool_or_int());
                self.expect(x.span, "the operand of `!` has the wrong type", &a, &t)?;
                self.out.resolved.insert(
                    e.id,
                    Resolved::Builtin {
                        op: "!".into(),
                        operand: a.clone(),
                    },
                );
                Ok(a)
            }
            ExpKind::OpSection {
                op,
                op_span,
                backtick,
            } => Ok(self.check_op(e.id, op, *op_span, *backtick)?.0),
            ExpKind::LeftSection {
                op,
                op_span,
                backtick,
                left,
            } => {
                let (ft, callee) = self.check_op(e.id, op, *op_span, *backtick)?;
                self.apply_args(ft, &callee, *op_span, &[left])
            }
            ExpKind::RightSection {
                op,
                op_span,
                backtick,
                right,
            } => {
                let (ft, callee) = self.check_op(e.id, op, *op_span, *backtick)?;
                let a = self.fresh();
                let b = self.fresh();
                let c = self.fresh();
                let want = arrows(vec![a.clone(), b.clone()], c.clone());
                self.expect(
                    *op_span,
                    &format!("`{op}` must take two arguments to be used in a section"),
                    &want,
                    &ft,
                )?;
                let rt = self.check_exp(right)?;
                let what = if callee.operator {
                    format!("the right operand of `{}` has the wrong type", callee.name)
                } else {
                    format!("argument 2 of `{}` has the wrong type", callee.name)
                };
                self.expect(right.span, &what, &b, &rt)?;
                Ok(Ty::Arrow(Box::new(a), Box::new(c)))
            }
            ExpKind::ProjectSection { fields } => {
                let a = self.fresh();
                let mut t = a.clone();
                for (f, sp) in fields {
                    t = self.project(&t, f, *sp)?;
                }
                Ok(Ty::Arrow(Box::new(a), Box::new(t)))
            }
            ExpKind::IndexSection { indices } => {
                let a = self.fresh();
                let t = self.index_type(&a, indices, e.span)?;
                Ok(Ty::Arrow(Box::new(a), Box::new(t)))
            }
            ExpKind::Lambda { params, ret, body } => {
                let mark = self.scope.len();
                self.barrier += 1;
                let r = (|| -> R<Ty> {
                    let mut ptys = Vec::new();
                    let mut ids = HashSet::new();
                    for p in params {
                        let mut bs = Vec::new();
                        ptys.push(self.check_pat(p, Anon::Fresh, &mut bs)?);
                        ids.extend(bs.iter().map(|b| b.id));
                        self.push_binders(bs);
                    }
                    let bt = self.check_exp(body)?;
                    let rt = match ret {
                        Some(te) => {
                            let rt = self.resolve_type(te, Anon::Fresh)?;
                            self.expect(
                                body.span,
                                "the body does not have the declared return type",
                                &rt,
                                &bt,
                            )?;
                            rt
                        }
                        None => bt,
                    };
                    let rt = forget(&self.u.resolve(&rt), &ids);
                    Ok(arrows(ptys, rt))
                })();
                self.barrier -= 1;
                self.scope.truncate(mark);
                r
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                let vt = self.check_exp(value)?;
                let mark = self.scope.len();
                let r = (|| -> R<Ty> {
                    let mut ids = HashSet::new();
                    let mut sps = Vec::new();
                    for s in sizes {
                        let b = self.new_binding();
                        ids.insert(b);
                        sps.push((s.name.clone(), b));
                        self.push_val(
                            &s.name,
                            ValEntry::Local {
                                id: b,
                                ty: i64_t.clone(),
                            },
                        );
                    }
                    if !sps.is_empty() {
                        self.out.size_params.insert(e.id, sps);
                    }
                    let mut bs = Vec::new();
                    let pt = self.check_pat(pat, Anon::Fresh, &mut bs)?;
                    self.expect(
                        value.span,
                        "the bound value does not match the pattern",
                        &pt,
                        &vt,
                    )?;
                    ids.extend(bs.iter().map(|b| b.id));
                    if let [b] = bs.as_slice() {
                        let roots = self.alias_roots(value);
                        if !roots.is_empty() {
                            self.aliases.insert(b.id, roots);
                        }
                    }
                    self.push_binders(bs);
                    let bt = self.check_exp(body)?;
                    Ok(forget(&self.u.resolve(&bt), &ids))
                })();
                self.scope.truncate(mark);
                r
            }
            ExpKind::LetFun {
                name,
                name_span,
                type_params,
                params,
                ret,
                value,
                body,
            } => self.check_let_fun(
                e,
                name,
                *name_span,
                type_params,
                params,
                ret.as_ref(),
                value,
                body,
            ),
            ExpKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let ct = self.check_exp(cond)?;
                self.expect(
                    cond.span,
                    "the condition of `if` must be a `bool`",
                    &bool_t,
                    &ct,
                )?;
                let saved = self.consumed.clone();
                let tt = self.check_exp(then_branch)?;
                let after_then = std::mem::replace(&mut self.consumed, saved);
                let et = self.check_exp(else_branch)?;
                self.consumed.extend(after_then);
                if let Err(x) = self.u.unify(&tt, &et) {
                    let (a, b) = self.show2(&tt, &et);
                    let mut d =
                        Diagnostic::error(else_branch.span, "`if` and `else` have different types")
                            .with_label(format!("expected {a}, found {b}"))
                            .with_secondary(then_branch.span, format!("this has type {a}"))
                            .with_note(format!("expected type {a}\n   found type {b}"));
                    if let Some(n) = x.detail() {
                        d = d.with_note(n);
                    }
                    return Err(Box::new(d));
                }
                let r = merge_sizes(&self.u.resolve(&tt), &self.u.resolve(&et));
                let lifted = self.lifted.clone();
                if self.u.require_no_fun(&r, &lifted).is_err() {
                    return Err(Box::new(
                        Diagnostic::error(e.span, "an `if` cannot return a function")
                            .with_label(format!("this has type {}", self.show(&r))),
                    ));
                }
                Ok(r)
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.check_loop(e, pat, init.as_deref(), form, body),
            ExpKind::Update {
                target,
                indices,
                value,
            } => {
                let tt = self.check_exp(target)?;
                let elem = self.index_type(&tt, indices, target.span)?;
                let vt = self.check_exp(value)?;
                self.expect(
                    value.span,
                    "the new value does not have the type of the updated part",
                    &elem,
                    &vt,
                )?;
                self.consume(target)?;
                Ok(self.u.resolve(&tt))
            }
            ExpKind::RecordUpdate {
                target,
                fields,
                value,
            } => {
                let tt = self.check_exp(target)?;
                let mut t = tt.clone();
                for (f, sp) in fields {
                    if let Ty::Var(_) = self.u.shallow(&t) {
                        return Err(Box::new(
                            Diagnostic::error(
                                target.span,
                                "the type of this record must be known to update it",
                            )
                            .with_label("type not known here")
                            .with_note("add a type annotation"),
                        ));
                    }
                    t = self.project(&t, f, *sp)?;
                }
                let vt = self.check_exp(value)?;
                self.expect(
                    value.span,
                    "the new field value has the wrong type",
                    &t,
                    &vt,
                )?;
                Ok(tt)
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => {
                let a = self.fresh_constrained(PrimSet::integral());
                let st = self.check_exp(start)?;
                self.expect(
                    start.span,
                    "range bounds must be integers of one type",
                    &a,
                    &st,
                )?;
                if let Some(s) = second {
                    let t = self.check_exp(s)?;
                    self.expect(s.span, "range bounds must be integers of one type", &a, &t)?;
                }
                let et = self.check_exp(end)?;
                self.expect(
                    end.span,
                    "range bounds must be integers of one type",
                    &a,
                    &et,
                )?;
                let zero = matches!(&strip(start).kind, ExpKind::Int(l) if l.value == 0);
                let unit = second
                    .as_ref()
                    .is_none_or(|s| matches!(&strip(s).kind, ExpKind::Int(l) if l.value == 1));
                let size = if zero && unit && *kind == RangeKind::UpToExclusive {
                    match self.exp_to_size(end) {
                        Some(s @ (Size::Named(..) | Size::Const(_))) => s,
                        _ => Size::Unknown,
                    }
                } else {
                    Size::Unknown
                };
                Ok(self.u.resolve(&a).array_of(size))
            }
            ExpKind::Ascribe { exp, ty } => {
                let xt = self.check_exp(exp)?;
                let t = self.resolve_type(ty, Anon::Fresh)?;
                self.expect(
                    exp.span,
                    "the expression does not have the ascribed type",
                    &t,
                    &xt,
                )?;
                Ok(self.u.resolve(&t))
            }
            ExpKind::Coerce { exp, ty } => {
                let xt = self.check_exp(exp)?;
                let t = self.resolve_type(ty, Anon::Fresh)?;
                let saved = self.u.sizes_off;
                self.u.sizes_off = true;
                let r = self.expect(exp.span, "a size coercion may change only sizes", &t, &xt);
                self.u.sizes_off = saved;
                r?;
                Ok(self.u.resolve(&t))
            }
            ExpKind::LocalOpen {
                module,
                module_span,
                body,
            } => {
                let mut path = module.qualifiers.clone();
                path.push(module.name.clone());
                let m = self.lookup_mod_path(&path, *module_span)?;
                let mark = self.scope.len();
                self.open_module(&m, false);
                let r = self.check_exp(body);
                self.scope.truncate(mark);
                r
            }
            ExpKind::Attr { exp, .. } => self.check_exp(exp),
            ExpKind::Assert { cond, body } => {
                let ct = self.check_exp(cond)?;
                self.expect(
                    cond.span,
                    "the condition of `assert` must be a `bool`",
                    &bool_t,
                    &ct,
                )?;
                self.check_exp(body)
            }
            ExpKind::Match { .. } => Err(limitation(e.span, "`match` and sum types")),
            ExpKind::Constructor { .. } => Err(limitation(e.span, "sum types and constructors")),
            ExpKind::Hole => Ok(self.fresh()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_let_fun(
        &mut self,
        e: &Exp,
        name: &str,
        name_span: Span,
        type_params: &[TypeParam],
        params: &[Pat],
        ret: Option<&TypeExp>,
        value: &Exp,
        body: &Exp,
    ) -> R<Ty> {
        let svar_start = self.u.svar_count();
        let mark = self.scope.len();
        let lifted_mark = self.lifted.len();
        self.level += 1;
        let (explicit_sizes, explicit_types) = self.bind_type_params(type_params);
        self.barrier += 1;
        let r = self.check_function(params, ret, value, None);
        self.barrier -= 1;
        self.level -= 1;
        self.scope.truncate(mark);
        self.lifted.truncate(lifted_mark);
        let (ptys, result, deps, consumes) = r?;
        let fn_ty = arrows(ptys.clone(), result);
        let fn_res = self.u.resolve(&fn_ty);
        let mut tparams = explicit_types;
        let mut free = Vec::new();
        free_vars(&fn_res, &mut free);
        for v in free {
            let Some(info) = self.u.info(v).cloned() else {
                continue;
            };
            if self.u.is_bound(v)
                || info.level <= self.level
                || info.prims.is_some()
                || info.fields.is_some()
            {
                continue;
            }
            let pname = format!("t{}", self.next_binding - FIRST_CHECKER_BINDING);
            self.next_binding = self.next_binding.wrapping_add(1);
            self.u.set(v, Ty::Param(pname.clone()));
            tparams.push((pname, !info.no_fun));
        }
        let mut sparams = explicit_sizes;
        self.generalise_sizes(
            &ptys,
            svar_start,
            &mut sparams,
            &type_param_names(type_params),
        );
        let fn_res = self.u.resolve(&fn_ty);
        let ptys_res: Vec<Ty> = ptys.iter().map(|t| self.u.resolve(t)).collect();
        let deps = deps
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                d.filter(|b| {
                    ptys_res.get(i) == Some(&Ty::Prim(PrimType::I64)) && ty_mentions(&fn_res, *b)
                })
            })
            .collect();
        let static_sizes = sparams
            .iter()
            .filter(|(_, b)| !ptys_res.iter().any(|t| bare_in(t, *b)))
            .cloned()
            .collect();
        let binding = self.new_binding();
        let scheme = Rc::new(Scheme {
            name: name.to_string(),
            tparams: tparams.clone(),
            sparams: sparams.clone(),
            deps,
            consumes,
            static_sizes,
            ty: fn_res.clone(),
        });
        let _ = name_span;
        self.out.size_params.insert(value.id, sparams);
        self.out.local_functions.insert(
            e.id,
            LocalFunInfo {
                binding,
                type_params: tparams,
                ty: fn_res,
            },
        );
        let mark = self.scope.len();
        self.push_val(
            name,
            ValEntry::LocalFun {
                id: binding,
                scheme,
            },
        );
        let r = self.check_exp(body);
        self.scope.truncate(mark);
        r
    }

    fn check_loop(
        &mut self,
        e: &Exp,
        pat: &Pat,
        init: Option<&Exp>,
        form: &LoopForm,
        body: &Exp,
    ) -> R<Ty> {
        let init_ty = match init {
            Some(i) => self.check_exp(i)?,
            None => self.shorthand_init(pat)?,
        };
        // Loop parameters start with the initial sizes replaced by fresh variables; see
        // Note [Sizes of loop parameters].
        let init_res = self.u.resolve(&init_ty);
        let mut fresh = Vec::new();
        let freshened = self.freshen_sizes(&init_res, &mut fresh);
        let mark = self.scope.len();
        self.barrier += 1;
        let r = (|| -> R<(Ty, Vec<&Exp>)> {
            let mut bs = Vec::new();
            let pt = self.check_pat(pat, Anon::Fresh, &mut bs)?;
            let what = "the initial value does not match the loop parameters";
            self.expect(init.map_or(pat.span, |i| i.span), what, &pt, &freshened)?;
            let lifted = self.lifted.clone();
            if let Err(x) = self.u.require_no_fun(&pt, &lifted) {
                return Err(self.mismatch(
                    pat.span,
                    "loop parameters cannot be functions",
                    &pt,
                    &pt,
                    x,
                ));
            }
            self.push_binders(bs);
            match form {
                LoopForm::For { var, bound } => {
                    let bt = self.check_exp(bound)?;
                    let it = self.fresh_constrained(PrimSet::integral());
                    self.expect(
                        bound.span,
                        "the bound of a `for` loop must be an integer",
                        &it,
                        &bt,
                    )?;
                    let mut vb = Vec::new();
                    let vt = self.check_pat(var, Anon::Fresh, &mut vb)?;
                    self.expect(var.span, "loop counter", &it, &vt)?;
                    self.push_binders(vb);
                }
                LoopForm::ForIn { pat: xp, array } => {
                    let at = self.check_exp(array)?;
                    let elem = self.fresh();
                    let s = self.fresh_size();
                    let want = self.u.resolve(&elem).array_of(s);
                    self.expect(array.span, "`for ... in` needs an array", &want, &at)?;
                    let mut vb = Vec::new();
                    let xt = self.check_pat(xp, Anon::Fresh, &mut vb)?;
                    self.expect(
                        xp.span,
                        "the element pattern does not match the array's elements",
                        &xt,
                        &elem,
                    )?;
                    self.push_binders(vb);
                }
                LoopForm::While(c) => {
                    let ct = self.check_exp(c)?;
                    self.expect(
                        c.span,
                        "the condition of a `while` loop must be a `bool`",
                        &Ty::Prim(PrimType::Bool),
                        &ct,
                    )?;
                }
            }
            let bt = self.check_exp(body)?;
            let saved = self.u.sizes_off;
            self.u.sizes_off = true;
            let r = self.expect(
                body.span,
                "the loop body must return the type of the loop parameters",
                &pt,
                &bt,
            );
            self.u.sizes_off = saved;
            r?;
            // Which fresh sizes does the body preserve?
            let mut varying = HashSet::new();
            self.varying_sizes(&self.u.resolve(&pt), &self.u.resolve(&bt), &mut varying);
            for (v, orig) in &fresh {
                if self.u.size_is_bound(*v) {
                    continue;
                }
                if varying.contains(v) {
                    self.u.set_size(*v, Size::Unknown);
                } else {
                    self.u.set_size(*v, orig.clone());
                }
            }
            // The initial value of a parameter the body consumes is consumed (7.4).
            let mut consumed_inits = Vec::new();
            if let Some(i) = init {
                consumed_init_parts(pat, i, &self.consumed, &mut consumed_inits);
            }
            Ok((self.u.resolve(&pt), consumed_inits))
        })();
        self.barrier -= 1;
        self.scope.truncate(mark);
        let (r, consumed_inits) = r?;
        for i in consumed_inits {
            self.consume(i)?;
        }
        let r = Ok(r);
        let _ = e;
        r
    }

    fn varying_sizes(&self, p: &Ty, b: &Ty, out: &mut HashSet<SizeVar>) {
        match (p, b) {
            (Ty::Array(d1, e1), Ty::Array(d2, e2)) => {
                for (x, y) in d1.iter().zip(d2) {
                    if let Size::Var(v) = x
                        && x != y
                    {
                        out.insert(*v);
                    }
                }
                self.varying_sizes(e1, e2, out);
            }
            (Ty::Record(f1), Ty::Record(f2)) => {
                for (k, v) in f1 {
                    if let Some(w) = f2.get(k) {
                        self.varying_sizes(v, w, out);
                    }
                }
            }
            _ => {}
        }
    }

    fn freshen_sizes(&mut self, t: &Ty, out: &mut Vec<(SizeVar, Size)>) -> Ty {
        match t {
            Ty::Array(dims, e) => {
                let mut nd = Vec::new();
                for d in dims {
                    let s = self.fresh_size();
                    if let Size::Var(v) = s {
                        out.push((v, d.clone()));
                    }
                    nd.push(s);
                }
                Ty::Array(nd, Box::new(self.freshen_sizes(e, out)))
            }
            Ty::Record(fs) => {
                let mut m = BTreeMap::new();
                for (k, v) in fs {
                    m.insert(k.clone(), self.freshen_sizes(v, out));
                }
                Ty::Record(m)
            }
            _ => t.clone(),
        }
    }

    /// The initial value of `loop p for ...`: the variables named like the parameters.
    fn shorthand_init(&mut self, p: &Pat) -> R<Ty> {
        match &p.kind {
            PatKind::Name(n) => {
                let q = QualName::unqualified(n.clone());
                let (entry, name, _) = self.lookup_qual(&q, p.span)?;
                let (t, res, _) = self.use_entry(&entry, &name, p.id, p.span)?;
                self.out.resolved.insert(p.id, res);
                Ok(t)
            }
            PatKind::Tuple(ps) => {
                let mut v = Vec::new();
                for q in ps {
                    v.push(self.shorthand_init(q)?);
                }
                Ok(Ty::tuple(v))
            }
            PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => self.shorthand_init(pat),
            _ => Err(err(
                p.span,
                "the shorthand `loop p for ...` needs parameters that are names",
            )),
        }
    }

    // ------------------------------------------------------------------------------------
    // The end

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

fn final_size(s: &Size) -> Size {
    match s {
        Size::Var(_) => Size::Unknown,
        Size::Op(o, a, b) => {
            let (a, b) = (final_size(a), final_size(b));
            if a == Size::Unknown || b == Size::Unknown {
                Size::Unknown
            } else {
                Size::Op(*o, Box::new(a), Box::new(b))
            }
        }
        _ => s.clone(),
    }
}

/// Unbound size variables become unknown sizes.
fn final_ty(t: &Ty) -> Ty {
    match t {
        Ty::Array(dims, e) => {
            Ty::Array(dims.iter().map(final_size).collect(), Box::new(final_ty(e)))
        }
        Ty::Record(fs) => Ty::Record(fs.iter().map(|(k, v)| (k.clone(), final_ty(v))).collect()),
        Ty::Arrow(a, b) => Ty::Arrow(Box::new(final_ty(a)), Box::new(final_ty(b))),
        _ => t.clone(),
    }
}

fn free_vars(t: &Ty, out: &mut Vec<TyVar>) {
    match t {
        Ty::Var(v) if !out.contains(v) => out.push(*v),
        Ty::Array(_, e) => free_vars(e, out),
        Ty::Record(fs) => fs.values().for_each(|f| free_vars(f, out)),
        Ty::Arrow(a, b) => {
            free_vars(a, out);
            free_vars(b, out);
        }
        _ => {}
    }
}

fn free_size_vars(t: &Ty, out: &mut Vec<SizeVar>) {
    fn size(s: &Size, out: &mut Vec<SizeVar>) {
        match s {
            Size::Var(v) if !out.contains(v) => out.push(*v),
            Size::Op(_, a, b) => {
                size(a, out);
                size(b, out);
            }
            _ => {}
        }
    }
    match t {
        Ty::Array(dims, e) => {
            dims.iter().for_each(|d| size(d, out));
            free_size_vars(e, out);
        }
        Ty::Record(fs) => fs.values().for_each(|f| free_size_vars(f, out)),
        Ty::Arrow(a, b) => {
            free_size_vars(a, out);
            free_size_vars(b, out);
        }
        _ => {}
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

// Note [Sizes of loop parameters]
//
// A loop parameter's sizes may change from one iteration to the next (`loop xs = [] for i < n
// do xs ++ [i]`). The parameters are therefore checked with fresh size variables in place of
// the initial sizes, and the body's result is unified with them with size unification turned
// off. Afterwards, a fresh size that the body returned unchanged (the same variable, or one a
// size annotation or another unification fixed) takes the initial value's size; one that the
// body changed becomes unknown. So `loop ys = copy xs for i < n do ys with [i] = 0` keeps the
// size of `xs`, and the growing loop above has an unknown size.

fn rename_vars(t: &Ty, names: &mut Vec<TyVar>) -> Ty {
    match t {
        Ty::Var(v) => {
            let i = names.iter().position(|x| x == v).unwrap_or_else(|| {
                names.push(*v);
                names.len() - 1
            });
            let letter = (b'a' + (i % 26) as u8) as char;
            Ty::Param(if i < 26 {
                format!("?{letter}")
            } else {
                format!("?{letter}{}", i / 26)
            })
        }
        Ty::Array(dims, e) => Ty::Array(dims.clone(), Box::new(rename_vars(e, names))),
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), rename_vars(v, names)))
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(
            Box::new(rename_vars(a, names)),
            Box::new(rename_vars(b, names)),
        ),
        _ => t.clone(),
    }
}

/// The parts of a loop's initial value whose parameters the body consumed.
fn consumed_init_parts<'a>(
    pat: &Pat,
    init: &'a Exp,
    consumed: &HashMap<BindingId, Span>,
    out: &mut Vec<&'a Exp>,
) {
    let init = strip(init);
    match (&pat.kind, &init.kind) {
        (PatKind::Tuple(ps), ExpKind::Tuple(es)) if ps.len() == es.len() => {
            for (p, e) in ps.iter().zip(es) {
                consumed_init_parts(p, e, consumed, out);
            }
        }
        (PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. }, _) => {
            consumed_init_parts(pat, init, consumed, out)
        }
        _ => {
            let mut ids = Vec::new();
            pat_binders(pat, &mut ids);
            if ids.iter().any(|b| consumed.contains_key(b)) {
                out.push(init);
            }
        }
    }
}

fn pat_binders(p: &Pat, out: &mut Vec<BindingId>) {
    match &p.kind {
        PatKind::Name(_) => out.push(BindingId(p.id.0)),
        PatKind::Tuple(ps) => ps.iter().for_each(|q| pat_binders(q, out)),
        PatKind::Record(fs) => fs.iter().for_each(|f| pat_binders(&f.pat, out)),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => pat_binders(pat, out),
        PatKind::Constructor { args, .. } => args.iter().for_each(|q| pat_binders(q, out)),
        PatKind::Wildcard | PatKind::Literal(_) => {}
    }
}
