//! The reference interpreter over core IR.
//!
//! # Contract
//!
//! **Takes** a core [`Prog`] (after internalisation, or after any pass), the [`SourceMap`] its
//! spans point into, a function of the program and argument values for the function's
//! parameters ([`FunDef::params`]). Size parameters ([`FunDef::size_params`]) are bound from the
//! shapes of the arguments: the first occurrence of a size variable in a parameter type binds
//! it, later occurrences (and constant dimensions, and dimensions naming earlier parameters)
//! are checked, failing with `value of shape [3] cannot match shape of type "[2]f64".` A call
//! ([`Exp::Apply`]) may also pass the size parameters explicitly, first.
//!
//! **Guarantees**
//!
//! * The semantics of docs/language.md §Evaluation and §Array combinators and of the doc
//!   comments in [`crate::core::ir`]: primitive operations as [`PrimOp::eval`](crate::core::prim::PrimOp) defines them; every
//!   index, slice, update and size checked; `reduce`, `scan` and `hist` combine left to right;
//!   `hist` and `scatter` ignore out-of-range indices and the last `scatter` write wins;
//!   accumulators add into their arrays and ignore out-of-range positions.
//! * Run-time errors carry the messages of docs/language.md §Run-time errors and the locations
//!   `PATH:LINE:COL-LINE:COL` of the failing statement's span and its inlined call sites
//!   ([`Aux::callers`]), followed by the spans of the enclosing (not inlined) calls, innermost
//!   first.
//! * It never panics on malformed IR (unbound variables, wrong types, wrong arities...): that is
//!   a [`RuntimeError`] whose message starts with `internal error:`.
//! * Arrays are flat typed buffers ([`crate::value::Array`]), never a value per element. An
//!   array that is consumed ([`BasicOp::Update`], `hist` and `scatter` destinations,
//!   `with_acc` arrays) is moved out of its variable, so it is updated in place when nothing
//!   else holds it (copy-on-write otherwise). Variables bound in a loop body, branch or lambda
//!   are dropped when the body ends, so loop-carried arrays stay uniquely owned.
//! * Calls nest up to [`MAX_CALL_DEPTH`] deep; [`run_function`] runs on a thread with a large
//!   stack so that this depth is reachable. [`Interpreter::with_fuel`] bounds the number of
//!   statements a call may execute.
//!
//! **Does not** check the uniqueness rules (a consumed variable that is used again is an
//! internal error), the sizes in the result types of statements, or the types of function
//! results; the verifier and the front end's size checks do that.
//!
//! # What [`OpCounter`] counts
//!
//! The counter measures work, deterministically, so tests can compare the cost of a derivative
//! with that of the primal:
//!
//! * **prim_ops**: one per primitive operation applied ([`BasicOp::Prim`], in any body,
//!   lambdas included), plus one per element added by [`BasicOp::UpdateAcc`];
//! * **element_reads**: one per scalar element read by [`BasicOp::Index`] (the number of
//!   elements of the result: 1 for a scalar, `k` for a slice or row of `k` elements), plus one
//!   per bin element read by `hist`;
//! * **element_writes**: one per scalar element written by [`BasicOp::Update`] (1 or the size
//!   of the written slice), by `scatter` (in-range writes only), by `hist` (in-range bins) and
//!   by [`BasicOp::UpdateAcc`] (in-range positions);
//! * **elements_built**: one per element of the result of the array constructors `iota`,
//!   `replicate`, array literals, `concat`, `copy`, `rearrange` (transpose; the identity
//!   permutation is free) and `rotate`.
//!
//! Free: binding and passing values, control flow (`if`, loop iterations, calls), passing rows
//! to SOAC lambdas and collecting their results, `reshape`, `coerce`, `scratch` (an
//! uninitialised allocation), `assert` (its condition is computed by counted operations).
//! Counts are added to the counter when a call returns, also when it fails.
//!
//! Apart from the work, [`OpCounter::copies_on_write`] counts consumed arrays that had to be
//! copied because they were still shared, so tests can check that updates happen in place, and
//! [`OpCounter::scratch_elements`] counts the elements of the arrays `scratch` allocates (the
//! checkpoints of reverse-mode loops are such arrays), so tests can compare memory use.
//!
//! [`BasicOp::Prim`]: crate::core::ir::BasicOp::Prim
//! [`BasicOp::Index`]: crate::core::ir::BasicOp::Index
//! [`BasicOp::Update`]: crate::core::ir::BasicOp::Update
//! [`BasicOp::UpdateAcc`]: crate::core::ir::BasicOp::UpdateAcc

mod basic;
mod soac;
mod val;

#[cfg(test)]
mod tests;

use crate::core::ir::{Aux, Body, Exp, FunDef, LoopForm, Prog, Stm, SubExp, Type, Var};
use crate::diag::RuntimeError;
use crate::diag::SourceMap;
use crate::value::{Scalar, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use val::{Val, int_scalar, int_value};

/// How deep calls ([`Exp::Apply`]) may nest before the interpreter gives up with an error.
pub const MAX_CALL_DEPTH: usize = 20_000;

/// The stack size of the thread [`run_function`] runs on.
const STACK_BYTES: usize = 1 << 30;

/// Counts the work done by the interpreter; see the module doc for exactly what. Shared by
/// reference; the interpreter adds its counts when a call returns (also on error).
#[derive(Debug, Default)]
pub struct OpCounter {
    prim_ops: AtomicU64,
    element_reads: AtomicU64,
    element_writes: AtomicU64,
    elements_built: AtomicU64,
    copies_on_write: AtomicU64,
    scratch_elements: AtomicU64,
}

impl OpCounter {
    /// A counter at zero.
    pub fn new() -> Self {
        Self::default()
    }
    /// Primitive operations applied (and accumulator additions).
    pub fn prim_ops(&self) -> u64 {
        self.prim_ops.load(Ordering::Relaxed)
    }
    /// Scalar elements read by indexing and by `hist`.
    pub fn element_reads(&self) -> u64 {
        self.element_reads.load(Ordering::Relaxed)
    }
    /// Scalar elements written by updates, `scatter`, `hist` and accumulator updates.
    pub fn element_writes(&self) -> u64 {
        self.element_writes.load(Ordering::Relaxed)
    }
    /// Elements produced by array constructors.
    pub fn elements_built(&self) -> u64 {
        self.elements_built.load(Ordering::Relaxed)
    }
    /// Consumed arrays that had to be copied before an in-place write because something else
    /// still held them (a diagnostic of in-place updates; not part of [`OpCounter::total`]).
    pub fn copies_on_write(&self) -> u64 {
        self.copies_on_write.load(Ordering::Relaxed)
    }
    /// Elements of the arrays allocated by `scratch` (not part of [`OpCounter::total`]).
    pub fn scratch_elements(&self) -> u64 {
        self.scratch_elements.load(Ordering::Relaxed)
    }
    /// The sum of the four counts of work.
    pub fn total(&self) -> u64 {
        self.prim_ops() + self.element_reads() + self.element_writes() + self.elements_built()
    }
    /// Sets every count back to zero.
    pub fn reset(&self) {
        for c in [
            &self.prim_ops,
            &self.element_reads,
            &self.element_writes,
            &self.elements_built,
            &self.copies_on_write,
            &self.scratch_elements,
        ] {
            c.store(0, Ordering::Relaxed);
        }
    }
    fn add(&self, c: &Counts) {
        self.prim_ops.fetch_add(c.prim_ops, Ordering::Relaxed);
        self.element_reads
            .fetch_add(c.element_reads, Ordering::Relaxed);
        self.element_writes
            .fetch_add(c.element_writes, Ordering::Relaxed);
        self.elements_built
            .fetch_add(c.elements_built, Ordering::Relaxed);
        self.copies_on_write
            .fetch_add(c.copies_on_write, Ordering::Relaxed);
        self.scratch_elements
            .fetch_add(c.scratch_elements, Ordering::Relaxed);
    }
}

/// Counts of one run, kept in plain integers and added to the [`OpCounter`] at the end.
#[derive(Debug, Default)]
struct Counts {
    prim_ops: u64,
    element_reads: u64,
    element_writes: u64,
    elements_built: u64,
    copies_on_write: u64,
    scratch_elements: u64,
}

/// Runs `fun` of `prog` on `args` (one value per parameter of `fun`) and returns its results.
/// Runs on a fresh thread with a large stack (deep recursion), or on the calling thread if no
/// thread can be started. Adds the work done to `counter`.
pub fn run_function(
    prog: &Prog,
    sources: &SourceMap,
    fun: &FunDef,
    args: Vec<Value>,
    counter: &OpCounter,
) -> Result<Vec<Value>, RuntimeError> {
    Interpreter::new(prog, sources).call(&fun.name, args, counter)
}

/// A program prepared for interpretation: functions by name and the frame layout of each.
/// Prepare once, call many times.
pub struct Interpreter<'a> {
    prog: &'a Prog,
    sources: &'a SourceMap,
    layout: Layout,
    fuel: Option<u64>,
}

impl<'a> Interpreter<'a> {
    /// Prepares `prog` (whose spans point into `sources`); costs one walk over the program.
    pub fn new(prog: &'a Prog, sources: &'a SourceMap) -> Self {
        Interpreter {
            prog,
            sources,
            layout: Layout::new(prog),
            fuel: None,
        }
    }

    /// Limits each call to `fuel` executed statements (for fuzzers and tests that may loop
    /// forever); a call that runs out fails with `out of fuel: the statement limit of this call
    /// was reached`.
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = Some(fuel);
        self
    }

    /// Calls the function named `fun` on a thread with a large stack (see [`run_function`]).
    pub fn call(
        &self,
        fun: &str,
        args: Vec<Value>,
        counter: &OpCounter,
    ) -> Result<Vec<Value>, RuntimeError> {
        let slot = std::sync::Mutex::new(Some(args));
        let take = || {
            slot.lock()
                .ok()
                .and_then(|mut g| g.take())
                .unwrap_or_default()
        };
        let outcome = std::thread::scope(|s| {
            let handle = std::thread::Builder::new()
                .name("gradus-interp".into())
                .stack_size(STACK_BYTES)
                .spawn_scoped(s, || self.call_here(fun, take(), counter));
            handle.ok().map(|h| h.join())
        });
        match outcome {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(RuntimeError {
                message: "internal error: the interpreter thread panicked".into(),
                locations: Vec::new(),
            }),
            None => self.call_here(fun, take(), counter),
        }
    }

    /// Calls the function named `fun` on the current thread. Deep recursion in the program
    /// needs a deep stack: a thread with a small stack (a test thread has 2 MiB) can
    /// overflow long before [`MAX_CALL_DEPTH`]; [`Interpreter::call`] avoids that.
    pub fn call_here(
        &self,
        fun: &str,
        args: Vec<Value>,
        counter: &OpCounter,
    ) -> Result<Vec<Value>, RuntimeError> {
        let mut m = Machine {
            prog: self.prog,
            sources: self.sources,
            layout: &self.layout,
            counts: Counts::default(),
            depth: 0,
            fuel: self.fuel,
        };
        let result = match self.layout.funs.get(fun) {
            None => Err(Fail::Here(format!(
                "internal error: no function named \"{fun}\""
            ))),
            Some(&idx) => m.call_fun(idx, args.into_iter().map(Val::from).collect()),
        };
        counter.add(&m.counts);
        let fun_span = self.prog.fun(fun).map(|f| f.span);
        match result {
            Ok(vals) => vals
                .into_iter()
                .map(|v| v.into_value())
                .collect::<Result<_, _>>()
                .map_err(|m| RuntimeError {
                    message: m,
                    locations: fun_span
                        .map(|s| self.sources.location(s))
                        .into_iter()
                        .collect(),
                }),
            Err(Fail::Located(e)) => Err(*e),
            Err(Fail::Here(message)) => Err(RuntimeError {
                message,
                locations: fun_span
                    .map(|s| self.sources.location(s))
                    .into_iter()
                    .collect(),
            }),
        }
    }
}

/// Where each variable lives: a slot in the frame of the one function that binds it.
struct Layout {
    funs: HashMap<String, usize>,
    /// Per variable: its slot, or `u32::MAX` if no function binds it.
    slot_of: Vec<u32>,
    /// Per function: the number of slots of its frame.
    frame_size: Vec<usize>,
    /// Per function: a variable it binds that another function binds too (malformed IR).
    conflict: Vec<Option<Var>>,
}

impl Layout {
    fn new(prog: &Prog) -> Layout {
        let mut layout = Layout {
            funs: HashMap::new(),
            slot_of: vec![u32::MAX; prog.names.len()],
            frame_size: Vec::new(),
            conflict: Vec::new(),
        };
        let mut owner: Vec<u32> = vec![u32::MAX; prog.names.len()];
        for (fi, f) in prog.funs.iter().enumerate() {
            layout.funs.entry(f.name.clone()).or_insert(fi);
            let mut bound = Vec::new();
            bound.extend_from_slice(&f.size_params);
            bound.extend_from_slice(&f.params);
            collect_body(&f.body, &mut bound);
            let mut size = 0u32;
            let mut conflict = None;
            for v in bound {
                let i = v.0 as usize;
                if i >= owner.len() {
                    conflict.get_or_insert(v);
                    continue;
                }
                if owner[i] == u32::MAX {
                    owner[i] = fi as u32;
                    layout.slot_of[i] = size;
                    size += 1;
                } else if owner[i] != fi as u32 {
                    conflict.get_or_insert(v);
                }
            }
            layout.frame_size.push(size as usize);
            layout.conflict.push(conflict);
        }
        layout
    }
}

/// Every variable bound in `body`, nested bodies and lambdas included.
fn collect_body(body: &Body, out: &mut Vec<Var>) {
    for stm in &body.stms {
        out.extend_from_slice(&stm.pat);
        match &stm.exp {
            Exp::BasicOp(_) | Exp::Apply { .. } => {}
            Exp::Ad { lam, .. } => {
                out.extend_from_slice(&lam.params);
                collect_body(&lam.body, out);
            }
            Exp::If {
                then_body,
                else_body,
                ..
            } => {
                collect_body(then_body, out);
                collect_body(else_body, out);
            }
            Exp::Loop { params, form, body } => {
                out.extend(params.iter().map(|(p, _)| *p));
                if let LoopForm::For { i, .. } = form {
                    out.push(*i);
                }
                collect_body(body, out);
            }
            Exp::Soac(soac) => {
                for lam in soac.lambdas() {
                    out.extend_from_slice(&lam.params);
                    collect_body(&lam.body, out);
                }
            }
            Exp::WithAcc { lam, .. } => {
                out.extend_from_slice(&lam.params);
                collect_body(&lam.body, out);
            }
        }
    }
}

/// A failure on its way out: not yet located (the statement that catches it adds its
/// location), or complete.
enum Fail {
    Here(String),
    Located(Box<RuntimeError>),
}

impl From<String> for Fail {
    fn from(m: String) -> Fail {
        Fail::Here(m)
    }
}

type R<T> = Result<T, Fail>;

/// An internal error: malformed IR.
fn internal<T>(msg: impl std::fmt::Display) -> R<T> {
    Err(Fail::Here(format!("internal error: {msg}")))
}

/// The values of one function activation, one slot per variable the function binds.
struct Frame {
    slots: Vec<Option<Val>>,
}

/// The state of one run.
struct Machine<'a> {
    prog: &'a Prog,
    sources: &'a SourceMap,
    layout: &'a Layout,
    counts: Counts,
    depth: usize,
    /// Statements that may still be executed, if limited.
    fuel: Option<u64>,
}

impl Machine<'_> {
    // ---- variables ----------------------------------------------------------------------

    fn name(&self, v: Var) -> String {
        self.prog.names.display(v)
    }

    fn slot(&self, frame: &Frame, v: Var) -> R<usize> {
        match self.layout.slot_of.get(v.0 as usize) {
            Some(&s) if (s as usize) < frame.slots.len() => Ok(s as usize),
            _ => internal(format!("variable {} is not in scope", self.name(v))),
        }
    }

    fn get<'f>(&self, frame: &'f Frame, v: Var) -> R<&'f Val> {
        let s = self.slot(frame, v)?;
        match &frame.slots[s] {
            Some(val) => Ok(val),
            None => internal(format!(
                "variable {} is not bound here, or was consumed",
                self.name(v)
            )),
        }
    }

    /// Moves the value out of `v` (which is consumed).
    fn take(&self, frame: &mut Frame, v: Var) -> R<Val> {
        let s = self.slot(frame, v)?;
        match frame.slots[s].take() {
            Some(val) => Ok(val),
            None => internal(format!(
                "variable {} is not bound here, or was consumed",
                self.name(v)
            )),
        }
    }

    fn bind(&self, frame: &mut Frame, v: Var, val: Val) -> R<()> {
        let s = self.slot(frame, v)?;
        let ok = match (self.prog.names.ty(v), &val) {
            (Type::Prim(t), Val::Scalar(x)) => x.prim_type() == *t,
            (Type::Array { elem, dims }, Val::Array(a)) => {
                a.elem_type() == *elem && a.rank() == dims.len()
            }
            (Type::Acc { .. }, Val::Acc(_)) => true,
            _ => false,
        };
        if !ok {
            return internal(format!(
                "{} of type {} bound to a value of type {}",
                self.name(v),
                self.type_text(self.prog.names.ty(v), None),
                val.type_name()
            ));
        }
        frame.slots[s] = Some(val);
        Ok(())
    }

    fn subexp(&self, frame: &Frame, se: &SubExp) -> R<Val> {
        match se {
            SubExp::Const(c) => Ok(Val::Scalar(*c)),
            SubExp::Var(v) => Ok(self.get(frame, *v)?.clone()),
        }
    }

    fn scalar(&self, frame: &Frame, se: &SubExp) -> R<Scalar> {
        match se {
            SubExp::Const(c) => Ok(*c),
            SubExp::Var(v) => match self.get(frame, *v)? {
                Val::Scalar(s) => Ok(*s),
                other => internal(format!(
                    "{} is a {}, expected a scalar",
                    self.name(*v),
                    other.type_name()
                )),
            },
        }
    }

    /// An integer operand (a size, index or count) as an `i64`.
    fn int(&self, frame: &Frame, se: &SubExp) -> R<i64> {
        let s = self.scalar(frame, se)?;
        match int_value(s) {
            Some(v) => Ok(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64),
            None => internal(format!("expected an integer, found {}", s.prim_type())),
        }
    }

    /// A size operand: a non-negative `i64`.
    fn size(&self, frame: &Frame, se: &SubExp) -> R<usize> {
        let n = self.int(frame, se)?;
        usize::try_from(n).or_else(|_| internal(format!("negative size {n}")))
    }

    /// The dimensions `dims` with the values of their variables, if all are bound to
    /// non-negative integers.
    fn resolve_dims(&self, frame: &Frame, dims: &[SubExp]) -> Option<Vec<usize>> {
        dims.iter()
            .map(|d| {
                self.int(frame, d)
                    .ok()
                    .and_then(|n| usize::try_from(n).ok())
            })
            .collect()
    }

    /// A type as source text with the sizes known in `frame`, e.g. `[2]f64`.
    fn type_text(&self, ty: &Type, frame: Option<&Frame>) -> String {
        match ty {
            Type::Prim(t) => t.name().to_string(),
            Type::Array { elem, dims } => {
                let mut s = String::new();
                for d in dims {
                    let known = frame.and_then(|f| self.int(f, d).ok());
                    match (known, d) {
                        (Some(n), _) => s.push_str(&format!("[{n}]")),
                        (None, SubExp::Var(v)) => {
                            s.push_str(&format!("[{}]", self.prog.names.hint(*v)))
                        }
                        (None, SubExp::Const(c)) => s.push_str(&format!("[{}]", val::plain(*c))),
                    }
                }
                s.push_str(elem.name());
                s
            }
            Type::Acc { elems, .. } => format!(
                "acc({})",
                elems
                    .iter()
                    .map(|t| t.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn locations(&self, aux: &Aux) -> Vec<String> {
        std::iter::once(&aux.span)
            .chain(&aux.callers)
            .map(|s| self.sources.location(*s))
            .collect()
    }

    // ---- functions, bodies, statements ---------------------------------------------------

    fn call_fun(&mut self, idx: usize, args: Vec<Val>) -> R<Vec<Val>> {
        let prog = self.prog;
        let Some(f) = prog.funs.get(idx) else {
            return internal(format!("no function number {idx}"));
        };
        if let Some(Some(v)) = self.layout.conflict.get(idx) {
            return internal(format!(
                "variable {} of function {} is bound in another function too",
                self.name(*v),
                f.name
            ));
        }
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Fail::Here(format!(
                "call depth limit exceeded: more than {MAX_CALL_DEPTH} nested calls"
            )));
        }
        let size = self.layout.frame_size.get(idx).copied().unwrap_or(0);
        let mut frame = Frame {
            slots: std::iter::repeat_with(|| None).take(size).collect(),
        };
        let explicit_sizes =
            !f.size_params.is_empty() && args.len() == f.size_params.len() + f.params.len();
        if !explicit_sizes && args.len() != f.params.len() {
            return internal(format!(
                "function {} takes {} arguments, given {}",
                f.name,
                f.params.len(),
                args.len()
            ));
        }
        let mut args = args.into_iter();
        if explicit_sizes {
            for &p in &f.size_params {
                if let Some(a) = args.next() {
                    self.bind(&mut frame, p, a)?;
                }
            }
        }
        for (&p, a) in f.params.iter().zip(args) {
            self.bind(&mut frame, p, a)?;
        }
        // Bind size parameters from the shapes, then check every dimension.
        for &p in &f.params {
            let ty = prog.names.ty(p);
            let shape = match self.get(&frame, p)? {
                Val::Array(a) => a.shape().to_vec(),
                _ => continue,
            };
            for (&d, dim) in shape.iter().zip(ty.dims()) {
                let want = match dim {
                    SubExp::Var(v) if f.size_params.contains(v) => {
                        let s = self.slot(&frame, *v)?;
                        if frame.slots[s].is_none() {
                            frame.slots[s] = Some(Val::Scalar(Scalar::I64(d as i64)));
                            continue;
                        }
                        self.int(&frame, dim)?
                    }
                    _ => self.int(&frame, dim)?,
                };
                if want != d as i64 {
                    return Err(Fail::Here(val::size_error(
                        &shape,
                        &self.type_text(ty, Some(&frame)),
                    )));
                }
            }
        }
        for &p in &f.size_params {
            let s = self.slot(&frame, p)?;
            if frame.slots[s].is_none() {
                return internal(format!(
                    "size parameter {} of {} is not determined by the arguments",
                    self.name(p),
                    f.name
                ));
            }
        }
        self.depth += 1;
        let r = self.eval_stms_and_result(&mut frame, &f.body);
        self.depth -= 1;
        r
    }

    /// Runs a body and returns its results, without clearing its variables (for function
    /// bodies, whose frame is dropped anyway).
    fn eval_stms_and_result(&mut self, frame: &mut Frame, body: &Body) -> R<Vec<Val>> {
        for stm in &body.stms {
            self.eval_stm(frame, stm)?;
        }
        let mut out = Vec::with_capacity(body.result.len());
        for se in &body.result {
            out.push(self.subexp(frame, se)?);
        }
        Ok(out)
    }

    /// Runs a body and returns its results; the variables its statements bound are dropped
    /// afterwards, so that values they held are uniquely owned by whoever takes the results.
    fn eval_body(&mut self, frame: &mut Frame, body: &Body) -> R<Vec<Val>> {
        let r = self.eval_stms_and_result(frame, body);
        for stm in &body.stms {
            for &v in &stm.pat {
                if let Some(&s) = self.layout.slot_of.get(v.0 as usize)
                    && let Some(slot) = frame.slots.get_mut(s as usize)
                {
                    *slot = None;
                }
            }
        }
        r
    }

    fn eval_stm(&mut self, frame: &mut Frame, stm: &Stm) -> R<()> {
        if let Some(fuel) = &mut self.fuel {
            if *fuel == 0 {
                return Err(Fail::Located(Box::new(RuntimeError {
                    message: "out of fuel: the statement limit of this call was reached".into(),
                    locations: self.locations(&stm.aux),
                })));
            }
            *fuel -= 1;
        }
        match self.eval_exp(frame, stm) {
            Ok(()) => Ok(()),
            Err(Fail::Here(message)) => Err(Fail::Located(Box::new(RuntimeError {
                message,
                locations: self.locations(&stm.aux),
            }))),
            Err(e) => Err(e),
        }
    }

    fn bind_all(&self, frame: &mut Frame, pat: &[Var], vals: Vec<Val>) -> R<()> {
        if pat.len() != vals.len() {
            return internal(format!(
                "pattern of {} variables bound to {} values",
                pat.len(),
                vals.len()
            ));
        }
        for (&v, val) in pat.iter().zip(vals) {
            self.bind(frame, v, val)?;
        }
        Ok(())
    }

    fn eval_exp(&mut self, frame: &mut Frame, stm: &Stm) -> R<()> {
        match &stm.exp {
            Exp::BasicOp(op) => {
                let r = self.eval_basic(frame, op)?;
                match (r, stm.pat.as_slice()) {
                    (Some(v), [p]) => self.bind(frame, *p, v),
                    (None, []) => Ok(()),
                    (r, pat) => internal(format!(
                        "pattern of {} variables bound to {} values",
                        pat.len(),
                        r.is_some() as usize
                    )),
                }
            }
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => {
                let body = match self.scalar(frame, cond)? {
                    Scalar::Bool(true) => then_body,
                    Scalar::Bool(false) => else_body,
                    other => {
                        return internal(format!("if condition of type {}", other.prim_type()));
                    }
                };
                let vals = self.eval_body(frame, body)?;
                self.bind_all(frame, &stm.pat, vals)
            }
            Exp::Loop { params, form, body } => {
                let vals = self.eval_loop(frame, params, form, body)?;
                self.bind_all(frame, &stm.pat, vals)
            }
            Exp::Apply { fun, args, .. } => {
                let Some(&idx) = self.layout.funs.get(fun.as_str()) else {
                    return internal(format!("call of unknown function \"{fun}\""));
                };
                let args = args
                    .iter()
                    .map(|a| self.subexp(frame, a))
                    .collect::<R<Vec<_>>>()?;
                let vals = match self.call_fun(idx, args) {
                    Ok(v) => v,
                    Err(Fail::Located(mut e)) => {
                        e.locations.extend(self.locations(&stm.aux));
                        return Err(Fail::Located(e));
                    }
                    Err(e) => return Err(e),
                };
                self.bind_all(frame, &stm.pat, vals)
            }
            Exp::Soac(soac) => {
                let vals = self.eval_soac(frame, &stm.pat, soac)?;
                self.bind_all(frame, &stm.pat, vals)
            }
            Exp::WithAcc { inputs, lam } => {
                let vals = self.eval_with_acc(frame, inputs, lam)?;
                self.bind_all(frame, &stm.pat, vals)
            }
            Exp::Ad { mode, .. } => internal(format!(
                "an unexpanded {} (the AD pass did not run)",
                mode.name()
            )),
        }
    }

    fn eval_loop(
        &mut self,
        frame: &mut Frame,
        params: &[(Var, SubExp)],
        form: &LoopForm,
        body: &Body,
    ) -> R<Vec<Val>> {
        let inits = params
            .iter()
            .map(|(_, init)| self.subexp(frame, init))
            .collect::<R<Vec<_>>>()?;
        for ((p, _), v) in params.iter().zip(inits) {
            self.bind(frame, *p, v)?;
        }
        let step = |m: &mut Self, frame: &mut Frame| -> R<()> {
            let next = m.eval_body(frame, body)?;
            if next.len() != params.len() {
                return internal(format!(
                    "loop body returns {} values for {} parameters",
                    next.len(),
                    params.len()
                ));
            }
            for ((p, _), v) in params.iter().zip(next) {
                m.bind(frame, *p, v)?;
            }
            Ok(())
        };
        match form {
            LoopForm::For { i, bound } => {
                let b = self.scalar(frame, bound)?;
                let Some(n) = int_value(b) else {
                    return internal(format!("loop bound of type {}", b.prim_type()));
                };
                let mut k: i128 = 0;
                while k < n {
                    self.bind(frame, *i, Val::Scalar(int_scalar(b.prim_type(), k)))?;
                    step(self, frame)?;
                    k += 1;
                }
            }
            LoopForm::While { cond } => loop {
                match self.get(frame, *cond)? {
                    Val::Scalar(Scalar::Bool(true)) => step(self, frame)?,
                    Val::Scalar(Scalar::Bool(false)) => break,
                    other => {
                        return internal(format!(
                            "while condition {} is a {}",
                            self.name(*cond),
                            other.type_name()
                        ));
                    }
                }
            },
        }
        params.iter().map(|(p, _)| self.take(frame, *p)).collect()
    }
}

/// Re-exported for other backends that report the same errors.
pub use val::size_error;
