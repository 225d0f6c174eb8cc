//! Differential runs: one program, its cases, every backend configuration, compared with the
//! reference interpreter on the unoptimised program (the oracle, [`Config::ORACLE`]).
//!
//! The configurations ([`Config::ALL`]) are the optimised interpreter, and `c` and
//! `multicore` on one and two threads, each on the optimised and the unoptimised program;
//! [`pass_configs`] adds the interpreter on the program optimised by one optimiser pass
//! alone. A case agrees when
//!
//! * both return values of the same types and shapes, integers and booleans identical and
//!   floats equal ([`values_agree`]): a NaN equals any NaN; the interpreter's results, and
//!   every backend's under exact floats ([`set_exact_floats`], `GRADUS_EXACT_FLOATS=1`) but
//!   multicore on several threads (parallel reductions reassociate),
//!   must be bit for bit those of the oracle (the sign of a zero included), and the native
//!   backends' otherwise within [`FLOAT_TOLERANCE`] times the largest finite magnitude of the
//!   expected value (they may reassociate float sums, README), or
//! * both fail at run time with the same message and the same locations.
//!
//! The derivative entry points of [`crate::adcheck`] follow the float policy of derivative
//! code (docs/float-rules.md): unless floats are exact, an optimised configuration may give a
//! zero where the oracle has a zero of the other sign, an infinity or a NaN (a strong zero
//! tangent or adjoint times anything).
//!
//! The unoptimised native configurations are compared with the oracle exactly (values and
//! errors). The optimised configurations must return the oracle's values where it returns
//! values: the optimiser may remove an unused computation that fails, or report another of
//! several failures, but not make a working program fail or change a value. Where the oracle
//! fails, the optimised native configurations must fail as the optimised interpreter does.
//!
//! Besides disagreements, a run reports the front end rejecting a generated program (a
//! generator bug, or a type checker that is too strict), internal compiler errors, C that does
//! not compile (with `-Wall -Wextra -Werror`, see [`configure_c_compiler`]), and panics.

use gradus::backend::c::NativeOptions;
use gradus::opt::OptOptions;
use gradus::pipeline::passes::Run;
use gradus::program::{Backend, CallError, Program};
use gradus::value::{Scalar, Value};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

/// The relative float tolerance of comparisons between native backends without exact floats.
pub const FLOAT_TOLERANCE: f64 = 1e-9;

static EXACT_FLOATS: AtomicBool = AtomicBool::new(false);

/// Compares every configuration's floats bit for bit, and has the native backends keep the
/// interpreter's order of float operations (`gradus --exact-floats`). Call before any
/// program is compiled.
pub fn set_exact_floats() {
    EXACT_FLOATS.store(true, Ordering::Relaxed);
    gradus::backend::c::build::force_exact_floats();
}

/// Whether floats are compared bit for bit everywhere ([`set_exact_floats`] or
/// `$GRADUS_EXACT_FLOATS`).
pub fn exact_floats() -> bool {
    EXACT_FLOATS.load(Ordering::Relaxed) || gradus::backend::c::build::exact_floats_from_env()
}

/// One call of an entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The entry point.
    pub entry: String,
    /// Its arguments.
    pub args: Vec<Value>,
}

/// A program and the calls to make.
#[derive(Clone, Debug)]
pub struct Subject {
    /// The file name used in diagnostics and run-time error locations.
    pub name: String,
    /// The source text.
    pub source: String,
    /// The calls.
    pub cases: Vec<Case>,
}

/// A backend configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Config {
    /// The reference interpreter.
    Interp {
        /// Whether the program is optimised.
        opt: bool,
    },
    /// The reference interpreter on the program optimised by one optimiser pass alone (and
    /// the pass it runs inside, for a group of rules).
    Pass(&'static str),
    /// Sequential C.
    C {
        /// Whether the program is optimised.
        opt: bool,
    },
    /// Multicore C.
    Multicore {
        /// Whether the program is optimised.
        opt: bool,
        /// Number of threads.
        threads: usize,
    },
    /// The `gpu` backend (OpenCL), optimised.
    Gpu,
}

impl Config {
    /// The oracle: the unoptimised interpreter.
    pub const ORACLE: Config = Config::Interp { opt: false };

    /// Every configuration compared with the oracle (besides [`pass_configs`]).
    pub const ALL: [Config; 7] = [
        Config::Interp { opt: true },
        Config::C { opt: true },
        Config::C { opt: false },
        Config::Multicore {
            opt: true,
            threads: 1,
        },
        Config::Multicore {
            opt: true,
            threads: 2,
        },
        Config::Multicore {
            opt: false,
            threads: 1,
        },
        Config::Multicore {
            opt: false,
            threads: 2,
        },
    ];

    /// Whether the program is optimised.
    pub fn opt(self) -> bool {
        match self {
            Config::Interp { opt } | Config::C { opt } | Config::Multicore { opt, .. } => opt,
            Config::Pass(_) | Config::Gpu => true,
        }
    }

    /// Whether this is a native (C) backend.
    pub fn native(self) -> bool {
        matches!(
            self,
            Config::C { .. } | Config::Multicore { .. } | Config::Gpu
        )
    }

    /// Whether its floats must equal the oracle's bit for bit: the interpreter's always, a
    /// native backend's under exact floats, except on several threads, where parallel
    /// reductions and scans combine per-thread partial results in another association.
    pub fn exact(self) -> bool {
        match self {
            Config::Multicore { threads, .. } if threads > 1 => false,
            // Reductions and scans combine per-chunk results.
            Config::Gpu => false,
            _ => !self.native() || exact_floats(),
        }
    }

    /// The optimiser's options.
    pub fn opt_options(self) -> OptOptions {
        match self {
            Config::Pass(name) => {
                let mut opts = OptOptions::default();
                let host = gradus::pipeline::passes::optimiser_passes()
                    .find(|p| p.name == name)
                    .and_then(|p| match p.run {
                        Run::RulesIn(host) => Some(host),
                        _ => None,
                    });
                for p in gradus::pipeline::passes::optimiser_passes() {
                    if p.name != name && Some(p.name) != host {
                        opts.disabled.insert(p.name.to_string());
                    }
                }
                opts
            }
            _ if self.opt() => OptOptions::default(),
            _ => OptOptions::off(),
        }
    }

    /// The backend.
    pub fn backend(self) -> Backend {
        match self {
            Config::Interp { .. } | Config::Pass(_) => Backend::Interpreter,
            Config::C { .. } => Backend::Native(NativeOptions {
                multicore: false,
                threads: Some(1),
                safe: true,
                gpu: false,
            }),
            Config::Multicore { threads, .. } => Backend::Native(NativeOptions {
                multicore: true,
                threads: Some(threads),
                safe: true,
                gpu: false,
            }),
            Config::Gpu => Backend::Native(NativeOptions::gpu()),
        }
    }
}

/// Whether the `gpu` backend can run here (an OpenCL device is found): asked once.
pub fn gpu_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let probe = "entry main (xs: []f64) = map (+ 1) xs";
        let Ok(args) = gradus::data::read_values(b"[1.0, 2.0]") else {
            return false;
        };
        let program = gradus::program::Program::from_source("gpu-probe.fut", probe)
            .map_err(|d| d.one_line())
            .and_then(|p| {
                p.with_backend(Config::Gpu.backend())
                    .map_err(|e| e.to_string())
            });
        let outcome = program.and_then(|p| p.call("main", args).map_err(|e| e.to_string()));
        if let Err(e) = &outcome {
            eprintln!("gradus-fuzz: the gpu backend does not run here: {e}");
        }
        outcome.is_ok()
    })
}

/// The interpreter after each optimiser pass alone, one configuration per pass.
pub fn pass_configs() -> Vec<Config> {
    gradus::pipeline::passes::optimiser_passes()
        .map(|p| Config::Pass(p.name))
        .collect()
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = if self.opt() { "" } else { " --no-opt" };
        match self {
            Config::Interp { .. } => write!(f, "interp{opt}"),
            Config::Pass(name) => write!(f, "interp, only pass {name}"),
            Config::C { .. } => write!(f, "c{opt}"),
            Config::Multicore { threads, .. } => write!(f, "multicore{opt} --threads {threads}"),
            Config::Gpu => write!(f, "gpu{opt}"),
        }
    }
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The front end rejected a generated program.
    Rejected,
    /// An internal compiler error, at compile time or at run time.
    InternalError,
    /// The C compiler failed (or warned) on generated code.
    CCompile,
    /// The native backend could not compile the program for another reason.
    NativeUnsupported,
    /// A panic.
    Panic,
    /// A backend disagrees with the oracle.
    Mismatch,
    /// A derivative fails one of the AD checks.
    Derivative,
    /// A result differs from the one the language defines ([`crate::spec`]).
    Wrong,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Kind::Rejected => "front end rejected a generated program",
            Kind::InternalError => "internal compiler error",
            Kind::CCompile => "generated C does not compile cleanly",
            Kind::NativeUnsupported => "native backend cannot compile",
            Kind::Panic => "panic",
            Kind::Mismatch => "backend disagrees with the interpreter",
            Kind::Derivative => "derivative check failed",
            Kind::Wrong => "result differs from the language's definition",
        };
        f.write_str(s)
    }
}

/// One problem found.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What went wrong.
    pub kind: Kind,
    /// The configuration it went wrong in.
    pub config: Option<Config>,
    /// The case, when a call went wrong.
    pub case: Option<usize>,
    /// A description.
    pub detail: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(c) = self.config {
            write!(f, " [{c}]")?;
        }
        if let Some(c) = self.case {
            write!(f, " (case {c})")?;
        }
        write!(f, ": {}", self.detail)
    }
}

/// Sets the C compiler's flags for the differential runs: optimisation level `level`
/// (`-O0` compiles four times faster; `-O1` also enables the warnings that need data-flow
/// analysis, such as `-Wmaybe-uninitialized`), warnings as errors (`STRICT_WARNINGS`), and the multicore
/// backend's parallel paths taken even for tiny inputs. Call before any program is compiled.
pub fn configure_c_compiler(level: &str) {
    // SAFETY: called at start-up, before threads that read the environment are started.
    unsafe {
        std::env::set_var(
            "CFLAGS",
            format!(
                "{level} {} -DGR_PAR_MIN_WORK=0 -DGR_PAR_CHUNK_MIN_WORK=0",
                gradus::backend::c::build::STRICT_WARNINGS
            ),
        );
    }
}

pub(crate) fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "non-string panic".into())
}

/// A call's outcome, for comparing and reporting.
pub type Outcome = Result<Vec<Value>, CallError>;

/// Compiles `subject` for `config` (front end, optimiser, backend).
pub fn compile(subject: &Subject, config: Config) -> Result<Program, Failure> {
    let fail = |kind, detail: String| Failure {
        kind,
        config: Some(config),
        case: None,
        detail,
    };
    let opts = config.opt_options();
    let front = catch_unwind(|| Program::from_source_with(&subject.name, &subject.source, &opts))
        .map_err(|p| fail(Kind::Panic, panic_text(p)))?;
    let prog = front.map_err(|d| {
        let line = d.one_line();
        let kind = if line.contains("internal compiler error") {
            Kind::InternalError
        } else {
            Kind::Rejected
        };
        fail(kind, line)
    })?;
    catch_unwind(AssertUnwindSafe(|| prog.with_backend(config.backend())))
        .map_err(|p| fail(Kind::Panic, panic_text(p)))?
        .map_err(|e| {
            let e = e.message();
            let kind = if e.contains("C compiler") {
                Kind::CCompile
            } else if e.contains("internal") {
                Kind::InternalError
            } else {
                Kind::NativeUnsupported
            };
            fail(kind, e.chars().take(3000).collect())
        })
}

/// Calls one case, catching panics.
pub fn call(prog: &Program, case: &Case) -> Result<Outcome, String> {
    catch_unwind(AssertUnwindSafe(|| {
        prog.call(&case.entry, case.args.clone())
    }))
    .map_err(panic_text)
}

/// A short description of an outcome.
pub fn describe(r: &Outcome) -> String {
    match r {
        Ok(v) => v
            .iter()
            .map(gradus::data::write_text)
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(300)
            .collect(),
        Err(e) => e.to_string(),
    }
}

/// The elements of a value, flattened.
fn elements(v: &Value) -> Vec<Scalar> {
    match v {
        Value::Scalar(s) => vec![*s],
        Value::Array(a) => (0..a.len()).map(|i| a.buffer().get(i)).collect(),
    }
}

fn shape(v: &Value) -> &[usize] {
    match v {
        Value::Scalar(_) => &[],
        Value::Array(a) => a.shape(),
    }
}

fn elem_type(v: &Value) -> gradus::value::PrimType {
    match v {
        Value::Scalar(s) => s.prim_type(),
        Value::Array(a) => a.elem_type(),
    }
}

/// Whether `got` equals `want`: the same types and shapes, the same integers and booleans,
/// and floats equal bit for bit when `exact` (a NaN equals any NaN, `-0.0` does not equal
/// `0.0`), or else within [`FLOAT_TOLERANCE`] times the largest finite magnitude of `want`
/// (infinities of the same sign equal, a NaN equals only a NaN). The first difference on
/// error.
pub fn values_agree(want: &[Value], got: &[Value], exact: bool) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!("{} values, got {}", want.len(), got.len()));
    }
    for (k, (w, g)) in want.iter().zip(got).enumerate() {
        if elem_type(w) != elem_type(g) || shape(w) != shape(g) {
            return Err(format!("value #{k}: type or shape differs"));
        }
        let (we, ge) = (elements(w), elements(g));
        let max_finite = we
            .iter()
            .filter_map(|s| match *s {
                Scalar::F32(x) if x.is_finite() => Some((x as f64).abs()),
                Scalar::F64(x) if x.is_finite() => Some(x.abs()),
                _ => None,
            })
            .fold(1.0f64, f64::max);
        let tol = FLOAT_TOLERANCE * max_finite;
        let same = |x: f64, y: f64, bits_equal: bool| {
            if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if exact {
                bits_equal
            } else {
                x == y || (x.is_finite() && y.is_finite() && (x - y).abs() <= tol)
            }
        };
        for (i, (x, y)) in we.iter().zip(&ge).enumerate() {
            let ok = match (*x, *y) {
                (Scalar::F32(x), Scalar::F32(y)) => {
                    same(x as f64, y as f64, x.to_bits() == y.to_bits())
                }
                (Scalar::F64(x), Scalar::F64(y)) => same(x, y, x.to_bits() == y.to_bits()),
                (x, y) => x == y,
            };
            if !ok {
                let (xs, ys) = (
                    gradus::data::format_scalar(*x),
                    gradus::data::format_scalar(*y),
                );
                return Err(format!("value #{k}, element {i}: {xs} / {ys}"));
            }
        }
    }
    Ok(())
}

/// Whether `got` agrees with `want` exactly: the same values ([`values_agree`]) or the same
/// run-time error.
pub fn agree(want: &Outcome, got: &Outcome, exact: bool) -> bool {
    match (want, got) {
        (Ok(w), Ok(g)) => values_agree(w, g, exact).is_ok(),
        (Err(CallError::Runtime(w)), Err(CallError::Runtime(g))) => w == g,
        (Err(w), Err(g)) => w.to_string() == g.to_string(),
        _ => false,
    }
}

fn is_internal(r: &Outcome) -> bool {
    matches!(r, Err(CallError::Runtime(e)) if e.message.starts_with("internal error"))
}

/// The oracle's outcomes of every case, or the failure that prevents having them.
pub fn oracle(subject: &Subject) -> Result<Vec<Outcome>, Failure> {
    outcomes(subject, Config::ORACLE)
}

/// The outcomes of every case in `config`.
pub fn outcomes(subject: &Subject, config: Config) -> Result<Vec<Outcome>, Failure> {
    let prog = compile(subject, config)?;
    subject
        .cases
        .iter()
        .enumerate()
        .map(|(k, case)| {
            let fail = |kind, detail| Failure {
                kind,
                config: Some(config),
                case: Some(k),
                detail,
            };
            let r = call(&prog, case).map_err(|p| fail(Kind::Panic, p))?;
            if is_internal(&r) {
                return Err(fail(Kind::InternalError, describe(&r)));
            }
            Ok(r)
        })
        .collect()
}

/// Whether `config`'s outcome `got` of one case is right, given the oracle's `want` and the
/// optimised interpreter's `want_opt` (when computed): the comparison rules of the module
/// doc. The reference it was compared with on error.
pub fn judge(
    config: Config,
    want: &Outcome,
    want_opt: Option<&Outcome>,
    got: &Outcome,
) -> Result<(), &'static str> {
    let exact = config.exact();
    if !config.opt() {
        return if agree(want, got, exact) {
            Ok(())
        } else {
            Err("interp --no-opt")
        };
    }
    match (want, got) {
        (Ok(_), _) if agree(want, got, exact) => Ok(()),
        (Ok(_), _) => Err("interp --no-opt"),
        // Where the oracle fails, an optimised program may succeed or fail otherwise; the
        // optimised native backends must do what the optimised interpreter does.
        (Err(_), _) if !config.native() => Ok(()),
        (Err(_), _) => match want_opt {
            Some(w) if !agree(w, got, exact) => Err("interp"),
            _ => Ok(()),
        },
    }
}

/// Whether `case` calls a derivative entry point of [`crate::adcheck`] (`jvp1`, `mjp2`, ...),
/// whose results are derivative code.
fn derivative_case(case: &Case) -> bool {
    let digits = case
        .entry
        .trim_start_matches(|c: char| c.is_ascii_lowercase());
    let kind = &case.entry[..case.entry.len() - digits.len()];
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && ["jvp", "vjp", "jmp", "mjp", "hvp"].contains(&kind)
}

/// The oracle's outcome `want` as the float policy lets an optimised `config` give it for
/// `case` (docs/float-rules.md): in derivative code, with strong zeros on (no exact floats),
/// a zero tangent or adjoint times anything is a zero of either sign, so where `got` has a
/// zero and the oracle a zero of the other sign, an infinity or a NaN, `got`'s zero is taken.
/// Otherwise `want` unchanged.
fn strong_zero_reference(config: Config, case: &Case, want: &Outcome, got: &Outcome) -> Outcome {
    let (Ok(w), Ok(g)) = (want, got) else {
        return want.clone();
    };
    if !config.opt() || exact_floats() || !derivative_case(case) || w.len() != g.len() {
        return want.clone();
    }
    let relaxed = w
        .iter()
        .zip(g)
        .map(|(wv, gv)| {
            let (Value::Array(wa), Value::Array(ga)) = (wv, gv) else {
                return match (wv, gv) {
                    (Value::Scalar(x), Value::Scalar(y)) if takes_zero(*x, *y) => Value::Scalar(*y),
                    _ => wv.clone(),
                };
            };
            let mut out = wa.clone();
            if wa.shape() == ga.shape() && wa.elem_type() == ga.elem_type() {
                for i in 0..wa.len() {
                    let (x, y) = (wa.buffer().get(i), ga.buffer().get(i));
                    if takes_zero(x, y) {
                        out.buffer_mut().set(i, y);
                    }
                }
            }
            Value::Array(out)
        })
        .collect();
    Ok(relaxed)
}

/// Whether the oracle's `want` may come out as `got` under strong zeros: `got` a float zero,
/// `want` a zero or not finite.
fn takes_zero(want: Scalar, got: Scalar) -> bool {
    let (w, g) = match (want, got) {
        (Scalar::F32(w), Scalar::F32(g)) => (w as f64, g as f64),
        (Scalar::F64(w), Scalar::F64(g)) => (w, g),
        _ => return false,
    };
    g == 0.0 && (w == 0.0 || !w.is_finite())
}

/// Runs `subject` in every configuration of `configs` and compares each with the oracle
/// ([`judge`]). The problems found (at most one per configuration).
pub fn run(subject: &Subject, configs: &[Config]) -> Vec<Failure> {
    let want = match oracle(subject) {
        Ok(w) => w,
        Err(f) => return vec![f],
    };
    check_against(subject, &want, configs)
}

/// [`run`] with the oracle's outcomes already computed.
pub fn check_against(subject: &Subject, want: &[Outcome], configs: &[Config]) -> Vec<Failure> {
    let mut failures = Vec::new();
    let optimised = Config::Interp { opt: true };
    let want_opt = if configs
        .iter()
        .any(|c| *c == optimised || (c.native() && c.opt()))
    {
        match outcomes(subject, optimised) {
            Ok(w) => Some(w),
            Err(f) => {
                if configs.contains(&optimised) {
                    failures.push(f);
                }
                None
            }
        }
    } else {
        None
    };
    for &config in configs {
        let got = if config == optimised {
            match &want_opt {
                Some(w) => w.clone(),
                None => continue,
            }
        } else {
            match outcomes(subject, config) {
                Ok(g) => g,
                Err(f) => {
                    failures.push(f);
                    continue;
                }
            }
        };
        for (k, case) in subject.cases.iter().enumerate() {
            let opt_k = want_opt.as_ref().map(|w| &w[k]);
            let want_k = strong_zero_reference(config, case, &want[k], &got[k]);
            if let Err(against) = judge(config, &want_k, opt_k, &got[k]) {
                let reference = if against == "interp" {
                    opt_k.unwrap_or(&want_k)
                } else {
                    &want_k
                };
                let why = match (reference, &got[k]) {
                    (Ok(w), Ok(g)) => values_agree(w, g, config.exact())
                        .err()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                failures.push(Failure {
                    kind: Kind::Mismatch,
                    config: Some(config),
                    case: Some(k),
                    detail: format!(
                        "{}: {against}: {} / {config}: {}{why}",
                        case.entry,
                        describe(reference),
                        describe(&got[k])
                    ),
                });
                break;
            }
        }
    }
    failures
}

/// Whether `subject` still fails with `kind` in `config` (for the shrinker): `config` `None`
/// means the oracle itself.
pub fn still_fails(subject: &Subject, kind: Kind, config: Option<Config>) -> bool {
    match config {
        None | Some(Config::ORACLE) => {
            matches!(oracle(subject), Err(f) if f.kind == kind)
        }
        Some(c) => run(subject, &[c])
            .iter()
            .any(|f| f.kind == kind && f.config == Some(c)),
    }
}
