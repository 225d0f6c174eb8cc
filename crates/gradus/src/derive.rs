//! Derivatives on demand: `grad`, `vjp`, `jvp`, `jacobian` and `hessian` of an entry point,
//! with respect to chosen parameters, as entry points of a derived program.
//!
//! **Takes** a compiled [`Program`] that remembers its source, an entry point of it whose
//! parameters and results are primitives or regular arrays of primitives, a [`Derivative`]
//! kind and the positions of the parameters to differentiate (default: every float
//! parameter). **Guarantees** either a clear [`DeriveError`] (unknown entry point, a position
//! out of range or not a float parameter, a result the kind cannot take, a derived program
//! that does not compile) or a [`Derived`] entry point: the source of the program with one
//! entry point appended, written from the entry's signature with the language's own operators
//! (`vjp2`, `jvp2`, `mjp`, `jmp`), compiled with the program's optimiser options and run on
//! its backend (the native backend's libraries land in the shared compile cache). The
//! parameters not differentiated are captured by the lambda given to the operator, so they
//! are constants for it, as `vjp` treats any captured value. A program caches what it
//! derived: asking twice compiles once.
//!
//! Why source and not IR: the derived entry point goes through every stage an entry point
//! written by hand goes through (type checking of the seeds, AD, the optimiser, lowering), so
//! it is exactly as fast as the hand-written one and needs no second code path.
//!
//! The meaning and order of arguments follow docs/vocabulary.md: the point (the entry's
//! arguments) first, then the seed. Results:
//!
//! | kind | arguments | results |
//! | --- | --- | --- |
//! | `grad` | the entry's | `xbar` for each position (the entry must return one float scalar) |
//! | `vjp` | the entry's, then one `ybar` per result | the entry's results, then `xbar` for each position |
//! | `jvp` | the entry's, then one `xdot` per position | the entry's results, then one `ydot` per result |
//! | `jacobian` | the entry's | for each position, an array of shape `result.shape ++ param.shape` (one result of rank 0 or 1) |
//! | `hessian` | the entry's | `H`, of shape `param.shape ++ param.shape` (one position of rank 0 or 1, one float scalar result) |

use crate::core::external::{EntryPoint, ExternalType};
use crate::program::{CallError, Program};
use crate::value::{PrimType, Value, ValueRef};
use std::fmt;
use std::sync::Arc;

/// Which derivative of an entry point to derive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Derivative {
    /// The gradient of a scalar result.
    Grad,
    /// A vector–Jacobian product: the results and `ybarᵀ Df(x)`.
    Vjp,
    /// A Jacobian–vector product: the results and `Df(x) · xdot`.
    Jvp,
    /// The Jacobian, by reverse mode (one pullback per element of the result).
    Jacobian,
    /// The Hessian of a scalar result, by forward over reverse mode.
    Hessian,
}

impl Derivative {
    /// Every kind, in the order of the vocabulary.
    pub const ALL: [Derivative; 5] = [
        Derivative::Grad,
        Derivative::Vjp,
        Derivative::Jvp,
        Derivative::Jacobian,
        Derivative::Hessian,
    ];

    /// The kind's name: `grad`, `vjp`, `jvp`, `jacobian`, `hessian`.
    pub fn name(self) -> &'static str {
        match self {
            Derivative::Grad => "grad",
            Derivative::Vjp => "vjp",
            Derivative::Jvp => "jvp",
            Derivative::Jacobian => "jacobian",
            Derivative::Hessian => "hessian",
        }
    }

    /// The kind of this name.
    pub fn from_name(name: &str) -> Option<Derivative> {
        Derivative::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for Derivative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a derivative could not be derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeriveError {
    message: String,
}

impl DeriveError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        DeriveError {
            message: message.into(),
        }
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for DeriveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeriveError {}

/// A derived entry point: call it like any entry point of its program.
#[derive(Clone)]
pub struct Derived {
    program: Arc<Program>,
    entry: String,
    kind: Derivative,
    wrt: Vec<usize>,
    primal_results: usize,
}

impl Derived {
    /// The derived program (the original source and the derived entry point).
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The derived entry point's name in [`Derived::program`].
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// The derived entry point's signature.
    pub fn entry_point(&self) -> EntryPoint {
        self.program
            .entry_points()
            .into_iter()
            .find(|e| e.name == self.entry)
            .expect("a derived program has its derived entry point")
    }

    /// The kind of derivative.
    pub fn kind(&self) -> Derivative {
        self.kind
    }

    /// The positions of the parameters differentiated, in increasing order.
    pub fn wrt(&self) -> &[usize] {
        &self.wrt
    }

    /// How many of the results are the entry point's own results (`vjp` and `jvp` return
    /// them first); the rest are derivatives.
    pub fn primal_results(&self) -> usize {
        self.primal_results
    }

    /// Calls the derived entry point (see the table of the module's documentation for its
    /// arguments and results).
    pub fn call(&self, args: Vec<Value>) -> Result<Vec<Value>, CallError> {
        self.program.call(&self.entry, args)
    }

    /// Calls the derived entry point with borrowed arguments.
    pub fn call_ref(&self, args: &[ValueRef]) -> Result<Vec<Value>, CallError> {
        self.program.call_ref(&self.entry, args)
    }
}

/// The key of a derived program in its parent's cache.
pub(crate) type DeriveKey = (Derivative, String, Vec<usize>);

/// Derives `kind` of `entry` with respect to `wrt` (default: every float parameter), or
/// returns the one derived before.
pub(crate) fn derive(
    prog: &Program,
    kind: Derivative,
    entry: &str,
    wrt: Option<&[usize]>,
) -> Result<Derived, DeriveError> {
    let ep = prog
        .entry_points()
        .into_iter()
        .find(|e| e.name == entry)
        .ok_or_else(|| {
            let names: Vec<String> = prog.entry_points().into_iter().map(|e| e.name).collect();
            DeriveError::new(format!(
                "no entry point named `{entry}` (entry points: {})",
                names.join(", ")
            ))
        })?;
    let wrt = positions(&ep, wrt)?;
    let plan = plan(kind, &ep, &wrt)?;
    let key: DeriveKey = (kind, entry.to_string(), wrt.clone());
    let mut cache = prog.derived.lock().unwrap_or_else(|p| p.into_inner());
    let (program, name) = match cache.get(&key) {
        Some(found) => found.clone(),
        None => {
            let (p, name) = compile(prog, &plan, kind, entry)?;
            let found = (Arc::new(p), name);
            cache.insert(key, found.clone());
            found
        }
    };
    Ok(Derived {
        program,
        entry: name,
        kind,
        wrt,
        primal_results: plan.primal_results,
    })
}

/// The source of the entry point that derives `kind` of `entry` with respect to `wrt`
/// (default: every float parameter), to be appended to the program's source: its name
/// (`KIND_ENTRY`, with `_` appended while an entry point of the program has it) and its text.
/// What [`crate::program::Program::derive`] compiles; build tools that compile a program's
/// source themselves (typed bindings) append it to have the derivative as an entry point.
pub fn entry_source(
    prog: &Program,
    kind: Derivative,
    entry: &str,
    wrt: Option<&[usize]>,
) -> Result<(String, String), DeriveError> {
    let entries = prog.entry_points();
    let ep = entries.iter().find(|e| e.name == entry).ok_or_else(|| {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        DeriveError::new(format!(
            "no entry point named `{entry}` (entry points: {})",
            names.join(", ")
        ))
    })?;
    let wrt = positions(ep, wrt)?;
    let plan = plan(kind, ep, &wrt)?;
    Ok(unique(prog, &plan))
}

/// The plan's name and source, the name made unique among the program's entry points.
fn unique(prog: &Program, plan: &Plan) -> (String, String) {
    let mut name = plan.name.clone();
    let existing: Vec<String> = prog.entry_points().into_iter().map(|e| e.name).collect();
    while existing.contains(&name) {
        name.push('_');
    }
    let source = plan.source.replacen(&plan.name, &name, 1);
    (name, source)
}

/// The positions to differentiate: checked, sorted and without repeats.
fn positions(ep: &EntryPoint, wrt: Option<&[usize]>) -> Result<Vec<usize>, DeriveError> {
    let is_float =
        |t: &ExternalType| matches!(t, ExternalType::Value { elem, .. } if elem.is_float());
    let mut out: Vec<usize> = match wrt {
        None => (0..ep.params.len())
            .filter(|&k| is_float(&ep.params[k]))
            .collect(),
        Some(w) => w.to_vec(),
    };
    out.sort_unstable();
    out.dedup();
    if out.is_empty() {
        return Err(DeriveError::new(format!(
            "`{}` has no parameter to differentiate (no float parameter, or an empty `wrt`)",
            ep.name
        )));
    }
    for &k in &out {
        let Some(t) = ep.params.get(k) else {
            return Err(DeriveError::new(format!(
                "`{}` has {} parameter(s): there is no position {k}",
                ep.name,
                ep.params.len()
            )));
        };
        if !is_float(t) {
            return Err(DeriveError::new(format!(
                "parameter {k} of `{}` has type {t}: only f32 and f64 parameters and arrays of \
                 them can be differentiated",
                ep.name
            )));
        }
    }
    Ok(out)
}

/// A derived entry point to be written: its name, its source, and how many of its results
/// are the original's.
struct Plan {
    name: String,
    source: String,
    primal_results: usize,
}

/// The type of a parameter or result as the derived entry point declares it: the element
/// type with anonymous sizes (checked at run time against the original's).
pub(crate) fn param_type(t: &ExternalType, what: &str) -> Result<String, DeriveError> {
    match t {
        ExternalType::Value { elem, rank, .. } => {
            Ok(format!("{}{}", "[]".repeat(*rank), elem.name()))
        }
        ExternalType::Opaque(text) => Err(DeriveError::new(format!(
            "{what} has type {text}: derivatives on demand take entry points whose parameters \
             and results are primitives or regular arrays of them"
        ))),
    }
}

/// `(a, b)` for several names, `a` for one.
pub(crate) fn tuple(names: &[String]) -> String {
    match names {
        [one] => one.clone(),
        _ => format!("({})", names.join(", ")),
    }
}

/// The scalar float result that `grad` and `hessian` need, or an error.
fn scalar_float_result(kind: Derivative, ep: &EntryPoint) -> Result<PrimType, DeriveError> {
    match ep.results.as_slice() {
        [ExternalType::Value { elem, rank: 0, .. }] if elem.is_float() => Ok(*elem),
        _ => Err(DeriveError::new(format!(
            "{kind} of `{}` needs one f32 or f64 scalar result, but it returns {}",
            ep.name,
            results_text(ep)
        ))),
    }
}

pub(crate) fn results_text(ep: &EntryPoint) -> String {
    let r: Vec<String> = ep.results.iter().map(|t| t.to_string()).collect();
    format!("({})", r.join(", "))
}

/// Writes the derived entry point.
fn plan(kind: Derivative, ep: &EntryPoint, wrt: &[usize]) -> Result<Plan, DeriveError> {
    let mut params = Vec::new();
    for (k, t) in ep.params.iter().enumerate() {
        params.push(format!(
            "(x{k}: {})",
            param_type(t, &format!("parameter {k}"))?
        ));
    }
    for (k, t) in ep.results.iter().enumerate() {
        param_type(t, &format!("result {k}"))?;
    }
    if ep.results.is_empty() {
        return Err(DeriveError::new(format!("`{}` has no result", ep.name)));
    }
    // `\(w0, w1) -> f x0 w0 x2 w1`: the differentiated parameters as the lambda's.
    let ws: Vec<String> = wrt.iter().map(|k| format!("w{k}")).collect();
    let call_args: Vec<String> = (0..ep.params.len())
        .map(|k| {
            if wrt.contains(&k) {
                format!("w{k}")
            } else {
                format!("x{k}")
            }
        })
        .collect();
    let lam = format!("(\\{} -> {} {})", tuple(&ws), ep.name, call_args.join(" "));
    let point = tuple(&wrt.iter().map(|k| format!("x{k}")).collect::<Vec<_>>());
    let bars: Vec<String> = wrt.iter().map(|k| format!("b{k}")).collect();
    let ys: Vec<String> = (0..ep.results.len()).map(|j| format!("y{j}")).collect();
    let mut primal_results = 0;
    let body = match kind {
        Derivative::Grad => {
            scalar_float_result(kind, ep)?;
            format!("vjp {lam} {point} 1")
        }
        Derivative::Vjp => {
            let seeds: Vec<String> = (0..ep.results.len()).map(|j| format!("ybar{j}")).collect();
            for (j, t) in ep.results.iter().enumerate() {
                params.push(format!("(ybar{j}: {})", param_type(t, "")?));
            }
            primal_results = ep.results.len();
            format!(
                "let ({}, {}) = vjp2 {lam} {point} {} in ({}, {})",
                tuple(&ys),
                tuple(&bars),
                tuple(&seeds),
                ys.join(", "),
                bars.join(", ")
            )
        }
        Derivative::Jvp => {
            let dots: Vec<String> = wrt.iter().map(|k| format!("xdot{k}")).collect();
            for &k in wrt {
                params.push(format!("(xdot{k}: {})", param_type(&ep.params[k], "")?));
            }
            let ydots: Vec<String> = (0..ep.results.len()).map(|j| format!("ydot{j}")).collect();
            primal_results = ep.results.len();
            format!(
                "let ({}, {}) = jvp2 {lam} {point} {} in ({}, {})",
                tuple(&ys),
                tuple(&ydots),
                tuple(&dots),
                ys.join(", "),
                ydots.join(", ")
            )
        }
        Derivative::Jacobian => jacobian_body(ep, wrt, &lam, &point, &ys, &bars)?,
        Derivative::Hessian => hessian_body(ep, wrt, &lam)?,
    };
    let name = format!("{}_{}", kind.name(), ep.name);
    let source = format!("entry {name} {} =\n  {body}\n", params.join(" "));
    Ok(Plan {
        name,
        source,
        primal_results,
    })
}

/// The body of a Jacobian: the gradient for a scalar result, the rows by `mjp` with unit
/// seeds for a rank-1 result.
fn jacobian_body(
    ep: &EntryPoint,
    wrt: &[usize],
    lam: &str,
    point: &str,
    ys: &[String],
    bars: &[String],
) -> Result<String, DeriveError> {
    let (elem, rank) = match ep.results.as_slice() {
        [ExternalType::Value { elem, rank, .. }] if elem.is_float() && *rank <= 1 => (*elem, *rank),
        _ => {
            return Err(DeriveError::new(format!(
                "jacobian of `{}` needs one f32 or f64 result of rank 0 or 1, but it returns {}",
                ep.name,
                results_text(ep)
            )));
        }
    };
    if rank == 0 {
        return Ok(format!("vjp {lam} {point} 1"));
    }
    let t = elem.name();
    let x_args: Vec<String> = (0..ep.params.len()).map(|k| format!("x{k}")).collect();
    let rows = format!(
        "let {y} = {} {}\n  let m = length {y}\n  \
         let rows = mjp {lam} {point} (tabulate m (\\i -> tabulate m (\\j -> if i == j then 1 else 0: {t})))\n  in ",
        ep.name,
        x_args.join(" "),
        y = ys[0]
    );
    let projections: Vec<String> = if wrt.len() == 1 {
        vec!["rows".into()]
    } else {
        (0..bars.len())
            .map(|i| format!("map (\\r -> r.{i}) rows"))
            .collect()
    };
    Ok(format!("{rows}({})", projections.join(", ")))
}

/// The body of a Hessian: `jvp` of the gradient for a scalar parameter, `jmp` of it with unit
/// directions for a rank-1 one.
fn hessian_body(ep: &EntryPoint, wrt: &[usize], lam: &str) -> Result<String, DeriveError> {
    let elem = scalar_float_result(Derivative::Hessian, ep)?;
    let &[k] = wrt else {
        return Err(DeriveError::new(format!(
            "hessian of `{}` takes one parameter position, not {} (name one with `wrt`)",
            ep.name,
            wrt.len()
        )));
    };
    let grad = format!("(\\w -> vjp {lam} w 1)");
    match &ep.params[k] {
        ExternalType::Value { rank: 0, .. } => Ok(format!("jvp {grad} x{k} 1")),
        ExternalType::Value { rank: 1, .. } => {
            let t = elem.name();
            Ok(format!(
                "let n = length x{k} in jmp {grad} x{k} \
                 (tabulate n (\\i -> tabulate n (\\j -> if i == j then 1 else 0: {t})))"
            ))
        }
        t => Err(DeriveError::new(format!(
            "hessian of `{}` takes a parameter of rank 0 or 1, but parameter {k} has type {t}",
            ep.name
        ))),
    }
}

/// Compiles the program's source with the derived entry point appended, on the program's
/// backend.
fn compile(
    prog: &Program,
    plan: &Plan,
    kind: Derivative,
    entry: &str,
) -> Result<(Program, String), DeriveError> {
    let (name, entry_source) = unique(prog, plan);
    let derived = compile_entries(
        prog,
        &entry_source,
        &[&name],
        &format!("the {kind} of `{entry}`"),
    )?;
    Ok((derived, name))
}

/// Compiles the program's source with `entry_source` (entry points written from the
/// program's) appended, keeping the entry points named in `keep`, on the program's backend.
/// `what` names the result in errors (`the grad of `f``).
pub(crate) fn compile_entries(
    prog: &Program,
    entry_source: &str,
    keep: &[&str],
    what: &str,
) -> Result<Program, DeriveError> {
    let Some((path, text)) = &prog.origin else {
        return Err(DeriveError::new(
            "this program was not compiled from source, so nothing can be derived from it",
        ));
    };
    let source = format!("{text}\n\n-- derived by gradus\n{entry_source}");
    let mut derived = Program::from_source_with(path, &source, &prog.opts).map_err(|d| {
        DeriveError::new(format!(
            "{what} does not compile:\n{}\nthe derived entry point:\n{entry_source}",
            d.render()
        ))
    })?;
    // Only the entry points asked for are kept: the others need not be compiled again.
    derived.prog.funs.retain(|f| {
        f.entry
            .as_ref()
            .is_none_or(|e| keep.contains(&e.name.as_str()))
    });
    derived
        .with_backend(prog.backend)
        .map_err(|e| DeriveError::new(format!("{what}: {e}")))
}
