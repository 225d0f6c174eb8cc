//! Module elimination (docs/language.md §Modules): imports, module types, ascription and parametric
//! modules rewritten into plain modules, before type checking.
//!
//! Takes the parsed main file and returns declarations in which only plain modules
//! (`module M = { ... }` and aliases `module M = N`), `open` and `local` remain, which the
//! type checker handles. Imported files are parsed (with the compilation's node-id counter,
//! added to its [`SourceMap`]) and each becomes one module at the top of the program, in the
//! order they are first needed, however often it is imported:
//!
//! - `import "p"` is `local open` of the file's module, `open import "p"` is `open` of it and
//!   `module M = import "p"` an alias of it. Paths are relative to the importing file's
//!   directory (`lib/github.com/...` paths too), with `.fut` appended.
//! - `module type T = ...` is recorded; `include` and `with` are resolved where a module type
//!   is used.
//! - Ascription `M : T` becomes `{ local module impl = M; type t = impl.t; def f (x: a) : b =
//!   impl.f x; ... }`: one re-export per specification of `T`, so that everything else is
//!   hidden and the checker checks each value against its specified type.
//! - A parametric module is recorded with the static scope it was defined in. Each
//!   application `F A B` becomes a plain module holding `local module P = A` for each
//!   parameter and a copy of the body with fresh node ids ([`crate::syntax::renumber`]),
//!   ascribed to the result type if there is one. A parametric module defined inside another
//!   module (an imported file, say) and applied outside it opens that module (and the modules
//!   it had opened) locally first and copies the `local` declarations that preceded the
//!   definition, so that the body's names mean what they meant there.
//!
//! Differences from Futhark, for what the checker then sees: abstract types of an ascribed
//! module are transparent (a program Futhark accepts is accepted; one that relies on a type
//! being abstract to be rejected is not), and an argument is not checked against its
//! parameter's module type (a missing member is reported where the body uses it). A name
//! declared in the defining module after the definition is visible in the body of an
//! application outside that module (when nothing nearer has that name). Higher-order modules
//! (module types with arrows, parametric modules as arguments, partial application) are
//! reported as limitations.

use crate::diag::{Diagnostic, FileId, SourceMap, Span};
use crate::syntax::ast::*;
use crate::syntax::renumber;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

type R<T> = Result<T, Box<Diagnostic>>;

/// How deeply parametric module applications may nest (a parametric module applying
/// itself would otherwise never stop).
const MAX_APPLICATION_DEPTH: usize = 64;

/// What a module-level name means statically.
#[derive(Clone)]
enum Entity {
    /// A module, with the static members it exports.
    Struct(Rc<Env>),
    /// A parametric module.
    Functor(Rc<Functor>),
    /// A module type, as its flattened specifications.
    ModType(Rc<Vec<Spec>>),
}

/// The static members of a module: its modules, parametric modules and module types, and
/// the names of its values and types.
#[derive(Clone, Default)]
struct Env {
    names: HashMap<String, Entity>,
    values: HashSet<String>,
    types: HashSet<String>,
    /// Whether every member is known (not for a module this pass has not seen, such as the
    /// prelude's `f64`, nor one that opens such a module).
    complete: bool,
}

impl Env {
    fn complete() -> Env {
        Env {
            complete: true,
            ..Env::default()
        }
    }

    /// The first specification that this module does not provide, if all its members are
    /// known.
    fn missing<'s>(&self, specs: &'s [Spec]) -> Option<(&'s Spec, &'s str, &'static str)> {
        if !self.complete {
            return None;
        }
        specs.iter().find_map(|s| match &s.kind {
            SpecKind::Val { name, .. } if !self.values.contains(name) => {
                Some((s, name.as_str(), "value"))
            }
            SpecKind::Type { name, .. } if !self.types.contains(name) => {
                Some((s, name.as_str(), "type"))
            }
            SpecKind::Module { name, .. } if !self.names.contains_key(name) => {
                Some((s, name.as_str(), "module"))
            }
            _ => None,
        })
    }
}

/// The module types of the prelude (docs/language.md §Modules), which parameters may name; their
/// arguments are not checked here.
const PRELUDE_MODULE_TYPES: &[&str] =
    &["numeric", "integral", "real", "float", "from_prim", "size"];

struct Functor {
    params: Vec<ModParam>,
    /// Each parameter's specifications, where its module type is not one of the prelude's.
    param_specs: Vec<Option<Vec<Spec>>>,
    /// The result's specifications, when the result is ascribed.
    sig: Option<Vec<Spec>>,
    body: ModExp,
    /// The static scope at the definition.
    scope: Vec<(String, Entity)>,
    /// The module the definition is in (empty at the top level of the main file).
    path: Vec<String>,
    /// The modules opened around the definition, to be opened again at an application
    /// outside `path`.
    opens: Vec<QualName>,
    /// The `local` declarations before the definition in the modules around it, copied
    /// into an application outside `path` (they are not visible from there).
    locals: Vec<Dec>,
}

/// Rewrites the main file's declarations `decs` (of file `main`) into ones without module
/// types, ascriptions, parametric modules or imports; imported files are read, added to
/// `sources` and parsed with `ids`.
pub fn eliminate(
    main: FileId,
    decs: Vec<Dec>,
    sources: &mut SourceMap,
    ids: &mut NodeIdGen,
) -> Result<Vec<Dec>, Diagnostic> {
    if !decs.iter().any(needs_elimination) {
        return Ok(decs);
    }
    let dir = Path::new(sources.name(main))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut e = Eliminator {
        sources,
        ids,
        scope: Vec::new(),
        exports: vec![Env::complete()],
        local_depth: 0,
        path: Vec::new(),
        opens: Vec::new(),
        locals: Vec::new(),
        files: HashMap::new(),
        loading: Vec::new(),
        dirs: vec![dir],
        prefix: Vec::new(),
        counter: 0,
        depth: 0,
    };
    let body = e.decs(decs).map_err(|d| *d)?;
    let mut out = std::mem::take(&mut e.prefix);
    out.extend(body);
    Ok(out)
}

/// Whether a declaration uses anything this pass rewrites (so that plain programs skip it).
fn needs_elimination(d: &Dec) -> bool {
    match &d.kind {
        DecKind::Value(_) | DecKind::TypeAbbrev(_) => false,
        DecKind::Local(inner) => needs_elimination(inner),
        DecKind::Module(m) => {
            !m.params.is_empty() || m.sig.is_some() || mod_exp_needs_elimination(&m.body)
        }
        DecKind::Open(m) => mod_exp_needs_elimination(m),
        DecKind::ModuleType(_) | DecKind::Import { .. } => true,
    }
}

fn mod_exp_needs_elimination(m: &ModExp) -> bool {
    match &m.kind {
        ModExpKind::Var(_) => false,
        ModExpKind::Decs(ds) => ds.iter().any(needs_elimination),
        _ => true,
    }
}

struct Eliminator<'s> {
    sources: &'s mut SourceMap,
    ids: &'s mut NodeIdGen,
    /// Static names in scope, innermost last.
    scope: Vec<(String, Entity)>,
    /// The exports of each module being built, innermost last.
    exports: Vec<Env>,
    /// How many `local`s enclose the current declaration (in the current module).
    local_depth: usize,
    /// The names of the enclosing modules, outermost first.
    path: Vec<String>,
    /// The modules opened in the current module (and around it in its file).
    opens: Vec<QualName>,
    /// The `local` declarations of the current module and those around it in its file.
    locals: Vec<Dec>,
    /// Imported files (canonical paths): their modules' names and exports.
    files: HashMap<PathBuf, (String, Rc<Env>)>,
    /// The files being imported, for cycles.
    loading: Vec<PathBuf>,
    /// The directory of each file being processed, innermost last.
    dirs: Vec<PathBuf>,
    /// The imported files' modules, in dependency order.
    prefix: Vec<Dec>,
    /// For fresh module names.
    counter: usize,
    /// Nesting of parametric module applications.
    depth: usize,
}

fn qual(path: &[String]) -> QualName {
    let mut qualifiers = path.to_vec();
    let name = qualifiers.pop().unwrap_or_default();
    QualName { qualifiers, name }
}

fn qual_path(q: &QualName) -> Vec<String> {
    let mut p = q.qualifiers.clone();
    p.push(q.name.clone());
    p
}

fn mk_dec(span: Span, kind: DecKind) -> Dec {
    Dec {
        span,
        attrs: Vec::new(),
        kind,
    }
}

fn local(d: Dec) -> Dec {
    mk_dec(d.span, DecKind::Local(Box::new(d)))
}

fn module_dec(span: Span, name: &str, body: ModExp) -> Dec {
    mk_dec(
        span,
        DecKind::Module(ModuleDec {
            name: name.to_string(),
            name_span: span,
            params: Vec::new(),
            sig: None,
            body,
        }),
    )
}

fn open_dec(span: Span, q: QualName) -> Dec {
    mk_dec(
        span,
        DecKind::Open(ModExp {
            span,
            kind: ModExpKind::Var(q),
        }),
    )
}

fn var_mod(span: Span, q: QualName) -> ModExp {
    ModExp {
        span,
        kind: ModExpKind::Var(q),
    }
}

/// An expression node whose id is given later by [`renumber`].
fn exp(span: Span, kind: ExpKind) -> Exp {
    Exp {
        id: NodeId(0),
        span,
        kind,
    }
}

/// What an ascription to `specs` leaves of a module's members.
fn restrict(env: &Env, specs: &[Spec]) -> Env {
    let mut out = Env::complete();
    for s in specs {
        match &s.kind {
            SpecKind::Val { name, .. } => {
                out.values.insert(name.clone());
            }
            SpecKind::Type { name, .. } => {
                out.types.insert(name.clone());
            }
            SpecKind::Module { name, .. } => {
                let inner = env.names.get(name).cloned();
                out.names.insert(
                    name.clone(),
                    inner.unwrap_or_else(|| Entity::Struct(Rc::default())),
                );
            }
            SpecKind::Include(_) => {}
        }
    }
    out
}

fn is_operator(name: &str) -> bool {
    !name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn limitation(span: Span, what: &str) -> Box<Diagnostic> {
    Box::new(Diagnostic::limitation(span, what.to_string()))
}

impl Eliminator<'_> {
    fn fresh_name(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("_{what}{}", self.counter)
    }

    fn declare(&mut self, name: &str, entity: Entity) {
        self.scope.push((name.to_string(), entity.clone()));
        if self.local_depth == 0
            && let Some(env) = self.exports.last_mut()
        {
            env.names.insert(name.to_string(), entity);
        }
    }

    fn open_env(&mut self, env: &Env) {
        let mut names: Vec<_> = env.names.iter().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (n, ent) in names {
            self.declare(n, ent.clone());
        }
        if self.local_depth == 0
            && let Some(e) = self.exports.last_mut()
        {
            e.values.extend(env.values.iter().cloned());
            e.types.extend(env.types.iter().cloned());
            e.complete &= env.complete;
        }
    }

    /// Records an exported value or type name.
    fn declare_member(&mut self, value: Option<&str>, ty: Option<&str>) {
        if self.local_depth == 0
            && let Some(e) = self.exports.last_mut()
        {
            e.values.extend(value.map(String::from));
            e.types.extend(ty.map(String::from));
        }
    }

    /// Reports the first specification `env` lacks.
    fn check_provides(&self, env: &Env, specs: &[Spec], span: Span, what: &str) -> R<()> {
        match env.missing(specs) {
            None => Ok(()),
            Some((spec, name, kind)) => Err(Box::new(
                Diagnostic::error(
                    span,
                    format!(
                        "{what} does not provide the {kind} `{name}` that its module type specifies"
                    ),
                )
                .with_label(format!("no {kind} `{name}` here"))
                .with_secondary(spec.span, "specified here"),
            )),
        }
    }

    fn lookup(&self, path: &[String]) -> Option<Entity> {
        let (first, rest) = path.split_first()?;
        let mut ent = self
            .scope
            .iter()
            .rev()
            .find(|(n, _)| n == first)
            .map(|(_, e)| e.clone())?;
        for n in rest {
            let Entity::Struct(env) = &ent else {
                return None;
            };
            ent = env.names.get(n)?.clone();
        }
        Some(ent)
    }

    fn decs(&mut self, ds: Vec<Dec>) -> R<Vec<Dec>> {
        let mut out = Vec::new();
        for d in ds {
            self.dec(d, &mut out)?;
        }
        Ok(out)
    }

    fn dec(&mut self, d: Dec, out: &mut Vec<Dec>) -> R<()> {
        let span = d.span;
        match d.kind {
            DecKind::Value(v) => {
                self.declare_member(Some(&v.name), None);
                out.push(Dec {
                    kind: DecKind::Value(v),
                    ..d
                });
            }
            DecKind::TypeAbbrev(t) => {
                self.declare_member(None, Some(&t.name));
                out.push(Dec {
                    kind: DecKind::TypeAbbrev(t),
                    ..d
                });
            }
            DecKind::ModuleType(mt) => {
                let specs = self.specs(&mt.body)?;
                self.declare(&mt.name, Entity::ModType(Rc::new(specs)));
            }
            DecKind::Module(md) => self.module(span, md, out)?,
            DecKind::Open(me) => {
                let (me, env) = self.mod_exp(me, "open")?;
                let q = match me.kind {
                    ModExpKind::Var(q) => q,
                    kind => {
                        let name = self.fresh_name("open");
                        out.push(local(module_dec(span, &name, ModExp { span, kind })));
                        QualName::unqualified(name)
                    }
                };
                self.opens.push(q.clone());
                out.push(open_dec(span, q));
                self.open_env(&env);
            }
            DecKind::Local(inner) => {
                self.local_depth += 1;
                let mut inner_out = Vec::new();
                let r = self.dec(*inner, &mut inner_out);
                self.local_depth -= 1;
                r?;
                let inner_out: Vec<Dec> = inner_out.into_iter().map(local).collect();
                // Opened modules are reopened by `opens` instead.
                self.locals.extend(
                    inner_out
                        .iter()
                        .filter(|d| !matches!(&d.kind, DecKind::Local(i) if matches!(i.kind, DecKind::Open(_))))
                        .cloned(),
                );
                out.extend(inner_out);
            }
            DecKind::Import { path, path_span } => {
                let (name, env) = self.import(&path, path_span)?;
                let q = QualName::unqualified(name);
                self.opens.push(q.clone());
                out.push(local(open_dec(span, q)));
                self.local_depth += 1;
                self.open_env(&env);
                self.local_depth -= 1;
            }
        }
        Ok(())
    }

    fn module(&mut self, span: Span, md: ModuleDec, out: &mut Vec<Dec>) -> R<()> {
        let mut params = md.params;
        let mut sig = md.sig;
        let mut body = md.body;
        // `module F = \(P: T) -> ...` is `module F (P: T) = ...`.
        while sig.is_none()
            && let ModExpKind::Lambda {
                param,
                sig: inner_sig,
                body: inner,
            } = body.kind
        {
            params.push(param);
            sig = inner_sig.map(|s| *s);
            body = *inner;
        }
        if !params.is_empty() {
            let sig = match &sig {
                Some(s) => Some(self.specs(s)?),
                None => None,
            };
            let mut param_specs = Vec::new();
            for p in &params {
                let prelude_type = matches!(&p.sig.kind, ModTypeExpKind::Var(q)
                    if q.is_unqualified() && PRELUDE_MODULE_TYPES.contains(&q.name.as_str())
                        && self.lookup(&qual_path(q)).is_none());
                param_specs.push(if prelude_type {
                    None
                } else {
                    Some(self.specs(&p.sig)?)
                });
            }
            let mut opens = self.opens.clone();
            if !self.path.is_empty() {
                opens.push(qual(&self.path));
            }
            let f = Functor {
                params,
                param_specs,
                sig,
                body,
                scope: self.scope.clone(),
                path: self.path.clone(),
                opens,
                locals: self.locals.clone(),
            };
            self.declare(&md.name, Entity::Functor(Rc::new(f)));
            return Ok(());
        }
        let (mut me, mut env) = self.mod_exp(body, &md.name)?;
        if let Some(s) = sig {
            let specs = self.specs(&s)?;
            self.check_provides(&env, &specs, md.name_span, &format!("module `{}`", md.name))?;
            me = self.ascribe(me, &specs, s.span);
            env = Rc::new(restrict(&env, &specs));
        }
        out.push(module_dec(span, &md.name, me));
        self.declare(&md.name, Entity::Struct(env));
        Ok(())
    }

    /// A module expression as a name or a `{ ... }` body, with its static exports.
    fn mod_exp(&mut self, me: ModExp, name: &str) -> R<(ModExp, Rc<Env>)> {
        let span = me.span;
        match me.kind {
            ModExpKind::Var(q) => match self.lookup(&qual_path(&q)) {
                Some(Entity::Struct(env)) => Ok((var_mod(span, q), env)),
                Some(Entity::Functor(_)) => Err(limitation(
                    span,
                    &format!("parametric module `{q}` used without all its arguments"),
                )),
                Some(Entity::ModType(_)) => Err(Box::new(
                    Diagnostic::error(span, format!("`{q}` is a module type, not a module"))
                        .with_label("expected a module"),
                )),
                // A module the checker knows (the prelude's `f64`, ...) or reports.
                None => Ok((var_mod(span, q), Rc::new(Env::default()))),
            },
            ModExpKind::Decs(ds) => {
                let (decs, env) = self.in_module(name, |e| e.decs(ds))?;
                Ok((
                    ModExp {
                        span,
                        kind: ModExpKind::Decs(decs),
                    },
                    env,
                ))
            }
            ModExpKind::Import(path) => {
                let (file_mod, env) = self.import(&path, span)?;
                Ok((var_mod(span, QualName::unqualified(file_mod)), env))
            }
            ModExpKind::Ascribe(m, t) => {
                let (m, env) = self.mod_exp(*m, name)?;
                let specs = self.specs(&t)?;
                self.check_provides(&env, &specs, m.span, "this module")?;
                let env = Rc::new(restrict(&env, &specs));
                Ok((self.ascribe(m, &specs, t.span), env))
            }
            ModExpKind::Apply(..) => self.apply(me, name),
            ModExpKind::Lambda { .. } => Err(limitation(
                span,
                "anonymous parametric modules (name them with `module F (P: T) = ...`)",
            )),
        }
    }

    /// Runs `f` as the body of a new module `name`, returning its result and exports.
    fn in_module<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R<T>) -> R<(T, Rc<Env>)> {
        let mark = self.scope.len();
        let saved_local = std::mem::replace(&mut self.local_depth, 0);
        let saved_opens = self.opens.clone();
        let locals_mark = self.locals.len();
        self.exports.push(Env::complete());
        self.path.push(name.to_string());
        let r = f(self);
        self.path.pop();
        let env = self.exports.pop().unwrap_or_default();
        self.opens = saved_opens;
        self.locals.truncate(locals_mark);
        self.local_depth = saved_local;
        self.scope.truncate(mark);
        Ok((r?, Rc::new(env)))
    }

    /// `F A B ...`: a plain module holding the arguments and a fresh copy of `F`'s body.
    fn apply(&mut self, me: ModExp, name: &str) -> R<(ModExp, Rc<Env>)> {
        let span = me.span;
        let mut args = Vec::new();
        let mut f = me;
        while let ModExpKind::Apply(g, a) = f.kind {
            args.push(*a);
            f = *g;
        }
        args.reverse();
        let ModExpKind::Var(fname) = &f.kind else {
            return Err(limitation(
                f.span,
                "applying a module expression that is not the name of a parametric module",
            ));
        };
        let functor = match self.lookup(&qual_path(fname)) {
            Some(Entity::Functor(func)) => func,
            Some(_) => {
                return Err(Box::new(
                    Diagnostic::error(f.span, format!("`{fname}` is not a parametric module"))
                        .with_label("applied to arguments here"),
                ));
            }
            None => {
                return Err(Box::new(
                    Diagnostic::error(f.span, format!("unknown parametric module `{fname}`"))
                        .with_label("not found in this scope"),
                ));
            }
        };
        if args.len() != functor.params.len() {
            let msg = format!(
                "`{fname}` takes {} module argument(s), given {}",
                functor.params.len(),
                args.len()
            );
            return Err(if args.len() < functor.params.len() {
                limitation(
                    span,
                    &format!("partial application of a parametric module: {msg}"),
                )
            } else {
                Box::new(Diagnostic::error(span, msg).with_label("here"))
            });
        }
        if self.depth >= MAX_APPLICATION_DEPTH {
            return Err(limitation(
                span,
                "parametric module applications nested this deeply (a recursive parametric module?)",
            ));
        }
        let mut arg_mods = Vec::new();
        for (i, a) in args.into_iter().enumerate() {
            let arg_span = a.span;
            let (m, env) = self.mod_exp(a, &format!("{name}_arg{i}"))?;
            if let (Some(Some(specs)), Some(p)) =
                (functor.param_specs.get(i), functor.params.get(i))
            {
                self.check_provides(
                    &env,
                    specs,
                    arg_span,
                    &format!("the argument for parameter `{}` of `{fname}`", p.name),
                )?;
            }
            arg_mods.push((m, env));
        }
        let inside_definition = self.path.starts_with(&functor.path);
        self.depth += 1;
        let saved_scope = std::mem::replace(&mut self.scope, functor.scope.clone());
        let saved_locals = std::mem::replace(&mut self.locals, functor.locals.clone());
        let r = self.in_module(name, |e| {
            let mut out = Vec::new();
            if !inside_definition {
                for q in &functor.opens {
                    out.push(local(open_dec(span, q.clone())));
                }
                for d in &functor.locals {
                    let mut d = d.clone();
                    renumber::dec(&mut d, e.ids);
                    out.push(d);
                }
            }
            for (p, (m, env)) in functor.params.iter().zip(arg_mods) {
                out.push(local(module_dec(p.span, &p.name, m)));
                e.local_depth += 1;
                e.declare(&p.name, Entity::Struct(env));
                e.local_depth -= 1;
            }
            let mut body = functor.body.clone();
            renumber::mod_exp(&mut body, e.ids);
            let body_span = body.span;
            let (body, body_env) = match body.kind {
                ModExpKind::Decs(ds) => (e.decs(ds)?, None),
                kind => {
                    let (m, env) = e.mod_exp(
                        ModExp {
                            span: body_span,
                            kind,
                        },
                        "body",
                    )?;
                    let name = e.fresh_name("body");
                    (
                        vec![
                            local(module_dec(body_span, &name, m)),
                            open_dec(body_span, QualName::unqualified(name)),
                        ],
                        Some(env),
                    )
                }
            };
            if let Some(env) = body_env {
                e.open_env(&env);
            }
            match &functor.sig {
                None => out.extend(body),
                Some(specs) => {
                    let impl_name = e.fresh_name("impl");
                    let impl_mod = ModExp {
                        span: body_span,
                        kind: ModExpKind::Decs(body),
                    };
                    out.push(local(module_dec(body_span, &impl_name, impl_mod)));
                    out.extend(e.re_exports(&QualName::unqualified(impl_name), specs, span));
                }
            }
            Ok(out)
        });
        self.scope = saved_scope;
        self.locals = saved_locals;
        self.depth -= 1;
        let (decs, mut env) = r?;
        if let Some(specs) = &functor.sig {
            env = Rc::new(restrict(&env, specs));
        }
        Ok((
            ModExp {
                span,
                kind: ModExpKind::Decs(decs),
            },
            env,
        ))
    }

    /// `m : T`: a module re-exporting what `T` specifies.
    fn ascribe(&mut self, m: ModExp, specs: &[Spec], span: Span) -> ModExp {
        let impl_name = self.fresh_name("impl");
        let mut decs = vec![local(module_dec(m.span, &impl_name, m))];
        decs.extend(self.re_exports(&QualName::unqualified(impl_name), specs, span));
        ModExp {
            span,
            kind: ModExpKind::Decs(decs),
        }
    }

    /// One declaration per specification, taking the member from module `from`.
    fn re_exports(&mut self, from: &QualName, specs: &[Spec], span: Span) -> Vec<Dec> {
        let mut out = Vec::new();
        let member = |name: &str| {
            let mut q = qual_path(from);
            q.push(name.to_string());
            qual(&q)
        };
        for s in specs {
            let mut d = match &s.kind {
                SpecKind::Val {
                    name,
                    name_span,
                    type_params,
                    ty,
                } => {
                    let mut params = Vec::new();
                    let mut t = ty.clone();
                    while let TypeExpKind::Function {
                        param_name,
                        param,
                        ret,
                    } = t.kind
                    {
                        let pname = match param_name {
                            Some((n, _)) => n,
                            None => format!("x'{}", params.len()),
                        };
                        let sp = param.span;
                        params.push(Pat {
                            id: NodeId(0),
                            span: sp,
                            kind: PatKind::Ascribe {
                                pat: Box::new(Pat {
                                    id: NodeId(0),
                                    span: sp,
                                    kind: PatKind::Name(pname),
                                }),
                                ty: *param,
                            },
                        });
                        t = *ret;
                    }
                    let operator = is_operator(name);
                    let q = member(name);
                    let func = if operator {
                        exp(
                            s.span,
                            ExpKind::OpSection {
                                op: q,
                                op_span: *name_span,
                                backtick: false,
                            },
                        )
                    } else {
                        exp(s.span, ExpKind::Var(q))
                    };
                    let args: Vec<Exp> = params
                        .iter()
                        .map(|p| match &p.kind {
                            PatKind::Ascribe { pat, .. } => match &pat.kind {
                                PatKind::Name(n) => {
                                    exp(p.span, ExpKind::Var(QualName::unqualified(n.clone())))
                                }
                                _ => exp(p.span, ExpKind::Hole),
                            },
                            _ => exp(p.span, ExpKind::Hole),
                        })
                        .collect();
                    let body = if args.is_empty() {
                        func
                    } else {
                        exp(
                            s.span,
                            ExpKind::Apply {
                                func: Box::new(func),
                                args,
                            },
                        )
                    };
                    mk_dec(
                        s.span,
                        DecKind::Value(ValueDec {
                            entry: false,
                            name: name.clone(),
                            name_span: *name_span,
                            operator,
                            type_params: type_params.clone(),
                            params,
                            ret: Some(t),
                            body,
                        }),
                    )
                }
                SpecKind::Type {
                    name,
                    name_span,
                    lifted,
                    params,
                    ..
                } => {
                    let args = params
                        .iter()
                        .map(|p| match p {
                            TypeParam::Size { name, span } => TypeArg::Size(
                                SizeExp::Exp(Box::new(exp(
                                    *span,
                                    ExpKind::Var(QualName::unqualified(name.clone())),
                                ))),
                                *span,
                            ),
                            TypeParam::Type { name, span, .. } => TypeArg::Type(TypeExp {
                                span: *span,
                                kind: TypeExpKind::Named {
                                    name: QualName::unqualified(name.clone()),
                                    args: Vec::new(),
                                },
                            }),
                        })
                        .collect();
                    mk_dec(
                        s.span,
                        DecKind::TypeAbbrev(TypeDec {
                            name: name.clone(),
                            name_span: *name_span,
                            lifted: *lifted,
                            params: params.clone(),
                            ty: TypeExp {
                                span: s.span,
                                kind: TypeExpKind::Named {
                                    name: member(name),
                                    args,
                                },
                            },
                        }),
                    )
                }
                SpecKind::Module { name, sig, .. } => {
                    // Checked where the module type was resolved (see `specs`).
                    let inner = self.specs(sig).unwrap_or_default();
                    let m = self.ascribe(var_mod(s.span, member(name)), &inner, span);
                    module_dec(s.span, name, m)
                }
                // Flattened by `specs`.
                SpecKind::Include(_) => continue,
            };
            renumber::dec(&mut d, self.ids);
            out.push(d);
        }
        out
    }

    /// The specifications of a module type, `include`s expanded; a `with` refinement adds
    /// nothing, since re-exported types are the implementation's.
    fn specs(&mut self, mt: &ModTypeExp) -> R<Vec<Spec>> {
        match &mt.kind {
            ModTypeExpKind::Var(q) => match self.lookup(&qual_path(q)) {
                Some(Entity::ModType(specs)) => Ok((*specs).clone()),
                _ => Err(Box::new(
                    Diagnostic::error(mt.span, format!("unknown module type `{q}`"))
                        .with_label("not found in this scope"),
                )),
            },
            ModTypeExpKind::Specs(specs) => {
                let mut out = Vec::new();
                for s in specs {
                    match &s.kind {
                        SpecKind::Include(t) => out.extend(self.specs(t)?),
                        SpecKind::Module { sig, .. } => {
                            // Check the module type exists now, where its names are in scope.
                            self.specs(sig)?;
                            out.push(s.clone());
                        }
                        _ => out.push(s.clone()),
                    }
                }
                Ok(out)
            }
            ModTypeExpKind::With { base, .. } => self.specs(base),
            ModTypeExpKind::Arrow { .. } => Err(limitation(
                mt.span,
                "higher-order modules (module types of parametric modules)",
            )),
        }
    }

    /// Reads, parses and eliminates an imported file once; returns its module's name and
    /// exports.
    fn import(&mut self, path: &str, span: Span) -> R<(String, Rc<Env>)> {
        let dir = self.dirs.last().cloned().unwrap_or_default();
        let file = dir.join(format!("{path}.fut"));
        let canonical = std::fs::canonicalize(&file).map_err(|e| {
            Box::new(
                Diagnostic::error(span, format!("cannot find the imported file `{path}`"))
                    .with_label(format!("looked for {}: {e}", file.display())),
            )
        })?;
        if let Some((name, env)) = self.files.get(&canonical) {
            return Ok((name.clone(), env.clone()));
        }
        if self.loading.contains(&canonical) {
            return Err(Box::new(
                Diagnostic::error(span, format!("`{path}` imports itself (an import cycle)"))
                    .with_label("imported again here"),
            ));
        }
        let text = std::fs::read_to_string(&canonical).map_err(|e| {
            Box::new(
                Diagnostic::error(span, format!("cannot read the imported file `{path}`"))
                    .with_label(format!("{}: {e}", file.display())),
            )
        })?;
        let id = self.sources.add(file.display().to_string(), text.clone());
        let decs = crate::syntax::parse_file(id, &text, self.ids).map_err(Box::new)?;
        let stem = Path::new(path)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect::<String>();
        let name = self.fresh_name(&format!("import_{stem}_"));
        self.loading.push(canonical.clone());
        self.dirs.push(
            canonical
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        );
        // A file sees the prelude and what it imports, nothing of its importer.
        let saved_scope = std::mem::take(&mut self.scope);
        let saved_path = std::mem::take(&mut self.path);
        let saved_opens = std::mem::take(&mut self.opens);
        let saved_locals = std::mem::take(&mut self.locals);
        let r = self.in_module(&name, |e| e.decs(decs));
        self.scope = saved_scope;
        self.path = saved_path;
        self.opens = saved_opens;
        self.locals = saved_locals;
        self.dirs.pop();
        self.loading.pop();
        let (decs, env) = r?;
        self.prefix.push(module_dec(
            span,
            &name,
            ModExp {
                span,
                kind: ModExpKind::Decs(decs),
            },
        ));
        self.files.insert(canonical, (name.clone(), env.clone()));
        Ok((name, env))
    }
}
