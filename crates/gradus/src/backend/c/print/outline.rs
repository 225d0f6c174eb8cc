//! Splitting large entry points into several C functions, so that the C compiler optimises
//! many functions of moderate size rather than one huge one.
//!
//! GCC's register allocation, global common-subexpression elimination and the data-flow
//! analyses under them take time superlinear in the size of a function: a `vjp` of a few
//! tuple `scan`s printed as one function of 20,000 lines took half a minute at `-O3`. So
//! where an entry point (or a function split off from it) is larger than [`CAP`] statements,
//! each loop or `if` of its top level of at least [`MIN`] statements is printed as a
//! `static` function of its own, called where the statement stood; such a function is split
//! further in the same way when it is larger than [`CAP`] as the `c` backend prints it (a
//! parallel loop, printed two or three times, counted once, and a reduction printed in chunks
//! and left to right counted as the latter: see [`one_copy_size`], by which statements are
//! split off too), so that the `multicore` backend on one thread runs the functions `c` runs.
//! Such a function then holds at most a few copies of [`CAP`] statements. A parallel loop split
//! off this way becomes two functions, one per version (`par_for.rs`), called from the branch
//! that chooses the version: its one-thread version is then compiled alone, as `c`'s loop is.
//!
//! A split-off function takes the context, the call's team and thread count, and the
//! position in the order of errors of the code calling it (see `gr_fail`), then the
//! variables of the enclosing code it uses: scalars it only reads by value, the others
//! (scalars it assigns, arrays with their memory block, the allocation slots of its sites
//! inside loops) by address. It copies them into locals of the same names, so its body is
//! printed exactly as in place, and stores back those it may change before it returns. It
//! returns 1 after an error, which the caller then handles as if the error had happened in
//! place. The slots of its allocation sites belong to the scope of the caller (declared and
//! released there), so an allocation inside a loop that encloses the call still reuses its
//! buffer from one call to the next.
//!
//! The functions are marked `noinline`: inlined back into their single caller, they would
//! give the compiler the one large function again.

use super::par_for::Version;
use super::{Printer, SlotScope};
use crate::backend::lower::imp::{Ex, Stm, Ty};
use crate::core::scalar::PrimType;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Size (in statements, see [`size`]) above which a function is split.
pub const CAP: usize = 400;

/// The smallest statement (in statements) printed as a function of its own.
pub const MIN: usize = 15;

/// What splitting needs to know about the entry point being printed.
#[derive(Default)]
pub(super) struct Outliner {
    /// The type of every variable the entry point declares (`None` where two declarations
    /// of one name disagree: such a variable is never passed).
    types: BTreeMap<String, Option<Ty>>,
    /// Whether the function being printed is larger than [`CAP`].
    splitting: bool,
    /// How many loops and `if`s of the function being printed enclose the statement being
    /// printed.
    level: usize,
    /// Set to print the next statement in place (it is the body of a split-off function).
    in_place: bool,
    /// The split-off functions printed so far, in an order where each comes after those it
    /// calls.
    functions: Vec<String>,
    /// The number of the next split-off function.
    next: usize,
    /// The C name of the entry point.
    entry: String,
}

/// The number of statements of `stms`, counting those printed twice (a parallel loop's body
/// has a sequential copy) twice.
pub fn size(stms: &[Stm]) -> usize {
    stms.iter().map(stm_size).sum()
}

fn stm_size(s: &Stm) -> usize {
    1 + match s {
        Stm::For { body, .. } | Stm::While { body, .. } => size(body),
        Stm::GroupTree(t) => size(&t.host),
        Stm::If { then, els, .. } => size(then) + size(els),
        Stm::ParFor {
            body, private_body, ..
        } => 2 * size(body) + size(private_body),
        _ => 0,
    }
}

/// The number of statements of `stms` as the `c` backend prints them: a parallel loop counted
/// once, by the larger of its bodies, and a reduction printed both in chunks and left to
/// right as the latter. Splitting the body of a loop puts a call into every iteration
/// (results passed through memory), so a split-off function splits further only where this
/// size, not the printed one, is larger than [`CAP`], and splits off only statements of at
/// least [`MIN`] by this size: otherwise a parallel loop whose body fits in one function on
/// `c` was split on `multicore` because it is printed twice (BA's objective 1.45× slower
/// on one thread), and the small sums of LSTM's layers became calls because they are
/// printed in two versions (its gradient 1.16×).
fn one_copy_size(stms: &[Stm]) -> usize {
    stms.iter().map(one_copy_stm_size).sum()
}

fn one_copy_stm_size(s: &Stm) -> usize {
    1 + match s {
        Stm::For { body, .. } | Stm::While { body, .. } => one_copy_size(body),
        // A reduction or histogram in chunks or left to right, chosen by size: `c` prints
        // only the second.
        Stm::If { cond, els, .. } if mentions(cond, crate::backend::lower::PAR_CHUNK_MIN_WORK) => {
            one_copy_size(els)
        }
        Stm::If { then, els, .. } => one_copy_size(then) + one_copy_size(els),
        Stm::ParFor {
            body, private_body, ..
        } => one_copy_size(body).max(one_copy_size(private_body)),
        _ => 0,
    }
}

/// Whether expression `e` reads variable `v`.
fn mentions(e: &Ex, v: &str) -> bool {
    match e {
        Ex::Var(x) => x == v,
        Ex::Const(_) => false,
        Ex::Prim(_, args) => args.iter().any(|a| mentions(a, v)),
        Ex::Idx(_, a, b) => mentions(a, v) || mentions(b, v),
        Ex::Load { arr, idx, .. } => arr == v || mentions(idx, v),
        Ex::Not(a) => mentions(a, v),
    }
}

/// Whether `s` holds statements of its own.
fn compound(s: &Stm) -> bool {
    matches!(
        s,
        Stm::For { .. }
            | Stm::ParFor { .. }
            | Stm::While { .. }
            | Stm::If { .. }
            | Stm::GroupTree(_)
    )
}

/// The statement lists directly inside `s`.
pub(super) fn bodies(s: &Stm) -> Vec<&[Stm]> {
    match s {
        Stm::For { body, .. } | Stm::While { body, .. } => vec![body],
        Stm::GroupTree(t) => vec![&t.host],
        Stm::If { then, els, .. } => vec![then, els],
        Stm::ParFor {
            body, private_body, ..
        } => vec![body, private_body],
        _ => Vec::new(),
    }
}

/// The variables a statement uses but does not declare, and which of them it changes.
#[derive(Default)]
struct Uses {
    used: BTreeSet<String>,
    changed: BTreeSet<String>,
    declared: BTreeSet<String>,
}

impl Uses {
    fn ex(&mut self, e: &Ex) {
        match e {
            Ex::Var(v) => {
                self.used.insert(v.clone());
            }
            Ex::Const(_) => {}
            Ex::Prim(_, args) => args.iter().for_each(|a| self.ex(a)),
            Ex::Idx(_, a, b) => {
                self.ex(a);
                self.ex(b);
            }
            Ex::Load { arr, idx, .. } => {
                self.used.insert(arr.clone());
                self.ex(idx);
            }
            Ex::Not(a) => self.ex(a),
        }
    }

    fn var(&mut self, v: &str, changed: bool) {
        self.used.insert(v.to_string());
        if changed {
            self.changed.insert(v.to_string());
        }
    }

    fn stms(&mut self, stms: &[Stm]) {
        stms.iter().for_each(|s| self.stm(s));
    }

    fn stm(&mut self, s: &Stm) {
        match s {
            Stm::Decl { name, init, .. } => {
                self.declared.insert(name.clone());
                init.iter().for_each(|i| self.ex(i));
            }
            Stm::Set { name, val } => {
                self.var(name, true);
                self.ex(val);
            }
            Stm::Store { arr, idx, val, .. } | Stm::AtomicAdd { arr, idx, val, .. } => {
                self.var(arr, false);
                self.ex(idx);
                self.ex(val);
            }
            Stm::Alloc { arr, count, .. } | Stm::MakeUnique { arr, count, .. } => {
                self.var(arr, true);
                self.ex(count);
            }
            Stm::AllocOrTake {
                arr, count, srcs, ..
            } => {
                self.var(arr, true);
                srcs.iter().for_each(|s| self.var(s, true));
                self.ex(count);
            }
            Stm::SetArr {
                dst, src, offset, ..
            } => {
                // A move clears the source's block; a reference counts on it.
                self.var(dst, true);
                self.var(src, true);
                self.ex(offset);
            }
            Stm::Decref(a) => self.var(a, true),
            Stm::Copy {
                dst,
                dst_off,
                src,
                src_off,
                count,
                ..
            } => {
                self.var(dst, false);
                self.var(src, false);
                [dst_off, src_off, count]
                    .into_iter()
                    .for_each(|e| self.ex(e));
            }
            Stm::For {
                var, bound, body, ..
            } => {
                self.declared.insert(var.clone());
                self.ex(bound);
                self.stms(body);
            }
            Stm::ParFor {
                var,
                bound,
                work,
                body,
                private,
                private_body,
                ..
            } => {
                self.declared.insert(var.clone());
                self.ex(bound);
                self.ex(work);
                for p in private {
                    self.var(&p.arr, false);
                    self.ex(&p.count);
                }
                self.stms(body);
                self.stms(private_body);
            }
            Stm::While { cond, body, .. } => {
                self.ex(cond);
                self.stms(body);
            }
            Stm::GroupTree(t) => self.stms(&t.host),
            Stm::If { cond, then, els } => {
                self.ex(cond);
                self.stms(then);
                self.stms(els);
            }
            Stm::Check { cond, args, .. } => {
                self.ex(cond);
                args.iter().for_each(|a| self.ex(a));
            }
            Stm::Comment(_) => {}
        }
    }
}

/// Records the type of every variable `stms` declares.
fn declare(types: &mut BTreeMap<String, Option<Ty>>, stms: &[Stm]) {
    for s in stms {
        let mut add = |name: &str, ty: Ty| {
            let entry = types.entry(name.to_string()).or_insert(Some(ty));
            if *entry != Some(ty) {
                *entry = None;
            }
        };
        match s {
            Stm::Decl { ty, name, .. } => add(name, *ty),
            Stm::For { var, .. } | Stm::ParFor { var, .. } => add(var, Ty::Prim(PrimType::I64)),
            _ => {}
        }
        for b in bodies(s) {
            declare(types, b);
        }
    }
}

/// How a split-off function receives one variable of its caller.
#[derive(Default)]
struct Param {
    /// The parameters' declarations.
    decl: Vec<String>,
    /// The arguments of the call.
    arg: Vec<String>,
    /// The body's first lines: the local copies of a variable passed by address.
    load: String,
    /// What stores the local copies back.
    store: String,
}

/// How a variable of type `ty` is passed; `changed`: whether the callee may change it. An
/// array is two C variables, its data pointer and its block.
fn param(name: &str, ty: Ty, changed: bool) -> Param {
    let c = super::c_type;
    let locals = match ty {
        Ty::Prim(t) => vec![(name.to_string(), format!("{} ", c(t)))],
        Ty::Ptr(t) => vec![(name.to_string(), format!("{} *", c(t)))],
        Ty::Array(t) => vec![
            (name.to_string(), format!("{} *", c(t))),
            (format!("{name}_m"), "gr_mem *".to_string()),
        ],
    };
    c_param(&locals, changed)
}

/// How the C variables `locals` (name and type, the type ending in a space or `*`) are
/// passed.
fn c_param(locals: &[(String, String)], changed: bool) -> Param {
    let mut p = Param::default();
    for (local, t) in locals {
        if changed {
            p.decl.push(format!("{t}*gr_at_{local}"));
            p.arg.push(format!("&{local}"));
            let _ = writeln!(p.load, "  {t}{local} GR_UNUSED = *gr_at_{local};");
            let _ = writeln!(p.store, "  *gr_at_{local} = {local};");
        } else {
            p.decl.push(format!("{t}{local}"));
            p.arg.push(local.clone());
            let _ = writeln!(p.load, "  (void){local};");
        }
    }
    p
}

impl Printer<'_> {
    /// Prepares the splitting of entry point `c_name`, whose body is `body`.
    pub(super) fn outline_start(&mut self, c_name: &str, inputs: &[(String, Ty)], body: &[Stm]) {
        let mut o = Outliner {
            entry: c_name.to_string(),
            splitting: size(body) > CAP,
            ..Outliner::default()
        };
        for (name, ty) in inputs {
            o.types.insert(name.clone(), Some(*ty));
        }
        declare(&mut o.types, body);
        self.outliner = o;
    }

    /// The split-off functions of the entry point printed last, in order (to go before it).
    pub(super) fn outline_finish(&mut self) -> String {
        let o = std::mem::take(&mut self.outliner);
        if o.functions.is_empty() {
            return String::new();
        }
        let mut text = String::from(
            "#ifndef GR_NT\n#ifdef _OPENMP\n#define GR_NT gr_nt\n#else\n#define GR_NT 1\n#endif\n#endif\n",
        );
        for f in o.functions {
            text.push_str(&f);
        }
        text
    }

    /// Prints `s` as a call of a function of its own when it is a statement to split off
    /// (see the module documentation), and returns whether it did. Otherwise, for a loop or
    /// an `if`, prints it in place and returns `true`; for any other statement, returns
    /// `false` for the caller to print it.
    pub(super) fn outline(&mut self, s: &Stm, d: usize) -> bool {
        if std::mem::take(&mut self.outliner.in_place) || !compound(s) {
            return false;
        }
        let o = &self.outliner;
        if o.splitting && o.level == 0 && one_copy_stm_size(s) >= MIN {
            let versions = matches!(s, Stm::ParFor { .. }) && self.gpu.is_none();
            if versions && self.split_versions(s, d) || !versions && self.split_off(s, d) {
                return true;
            }
        }
        self.outliner.level += 1;
        self.outliner.in_place = true;
        self.stm(s, d);
        self.outliner.level -= 1;
        true
    }

    /// Prints the parallel loop `s` with each of its two versions (`par_for.rs`) as a
    /// function of its own, called from the branch that chooses it; `false` (nothing
    /// printed) when a variable it uses is of unknown type.
    fn split_versions(&mut self, s: &Stm, d: usize) -> bool {
        let Stm::ParFor { work, .. } = s else {
            return false;
        };
        if self.split_params(s).is_none() {
            return false;
        }
        let w = self.ex(work);
        let outer = self.fail_label();
        self.line(d, "{");
        self.par_for_choice(s, &w, d + 1);
        for (version, branch) in [(Version::Threads, "} else {"), (Version::OneThread, "}")] {
            self.par_for_version = Some(version);
            self.split_off(s, d + 2);
            self.par_for_version = None;
            self.line(d + 1, branch);
        }
        let key = self.iter_key();
        self.line(d + 1, &format!("if (gr_stop(ctx, {key})) goto {outer};"));
        self.line(d, "}");
        true
    }

    /// The parameters of a function whose body is `s`: the variables `s` uses and does not
    /// declare; `None` when one of them is of unknown type.
    fn split_params(&self, s: &Stm) -> Option<Vec<Param>> {
        let mut uses = Uses::default();
        uses.stm(s);
        let globals = [crate::backend::lower::PAR_CHUNK_MIN_WORK];
        let free = uses.used.difference(&uses.declared);
        free.filter(|v| !globals.contains(&v.as_str()))
            .map(|v| match self.outliner.types.get(v) {
                Some(Some(ty)) => Some(param(v, *ty, uses.changed.contains(v))),
                _ => None,
            })
            .collect()
    }

    /// Prints `s` as a function of its own and a call of it; `false` (nothing printed) when
    /// a variable it uses is of unknown type.
    fn split_off(&mut self, s: &Stm, d: usize) -> bool {
        let Some(mut params) = self.split_params(s) else {
            return false;
        };
        let k = self.outliner.next;
        self.outliner.next += 1;
        let name = format!("GR_CAT({}, _part{k})", self.outliner.entry);
        // The callee's slots: in the caller's scope, counted as inside as many loops.
        let loops = self.slot_scopes.last().map_or(0, |sc| sc.loops);
        let caller_key = self.iter_key.clone();
        let saved = (
            std::mem::take(&mut self.out),
            std::mem::take(&mut self.fail_labels),
            self.iter_key.take(),
            self.outliner.splitting,
            self.outliner.level,
        );
        self.iter_key = caller_key.as_ref().map(|_| "gr_iter".to_string());
        self.outliner.splitting = one_copy_stm_size(s) > CAP;
        self.outliner.level = 0;
        self.slot_scopes.push(SlotScope {
            insert_at: 0,
            loops,
            slots: Vec::new(),
        });
        self.outliner.in_place = true;
        self.stm(s, 1);
        let slots = self
            .slot_scopes
            .pop()
            .map(|sc| sc.slots)
            .unwrap_or_default();
        let body = std::mem::replace(&mut self.out, saved.0);
        self.fail_labels = saved.1;
        self.iter_key = saved.2;
        self.outliner.splitting = saved.3;
        self.outliner.level = saved.4;
        params.extend(
            slots
                .iter()
                .map(|sl| c_param(&[(sl.clone(), "gr_mem *".to_string())], true)),
        );
        let text = function_text(&name, &params, &body);
        self.outliner.functions.push(text);
        // The slots are the caller's: declared and released in its scope.
        if let Some(scope) = self.slot_scopes.last_mut() {
            scope.slots.extend(slots);
        }
        let key = caller_key.unwrap_or_else(|| "INT64_MAX".into());
        let args: String = params
            .iter()
            .flat_map(|p| &p.arg)
            .map(|a| format!(", {a}"))
            .collect();
        let label = self.fail_label();
        self.line(
            d,
            &format!("if ({name}(ctx, gr_team, GR_NT, {key}{args})) goto {label};"),
        );
        true
    }
}

/// The text of a split-off function `name` taking `params`, whose statement printed in place
/// is `body`.
fn function_text(name: &str, params: &[Param], body: &str) -> String {
    let decls: String = params
        .iter()
        .flat_map(|p| &p.decl)
        .map(|d| format!(", {d}"))
        .collect();
    let load: String = params.iter().map(|p| p.load.as_str()).collect();
    let store: String = params.iter().map(|p| p.store.as_str()).collect();
    let mut t = format!(
        "static __attribute__((noinline, noclone)) int {name}(struct gr_ctx *ctx, int gr_team, int gr_nt, int64_t gr_iter{decls}) {{\n"
    );
    t.push_str("  (void)ctx; (void)gr_team; (void)gr_nt; (void)gr_iter;\n");
    t.push_str(&load);
    t.push_str(body);
    t.push_str(&store);
    t.push_str("  return 0;\ngr_error: GR_UNUSED;\n");
    t.push_str(&store);
    t.push_str("  return 1;\n}\n\n");
    t
}
