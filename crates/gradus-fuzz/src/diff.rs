//! Differential runs: one program, its cases, every backend configuration, compared with the
//! reference interpreter on the optimised program (the oracle).
//!
//! The configurations ([`Config::ALL`]) are the interpreter, `c` and `multicore` on one and
//! two threads, each on the optimised and the unoptimised program. A case agrees when
//!
//! * both return values of the same types and shapes, integers and booleans bit-identical and
//!   floats within [`FLOAT_TOLERANCE`] times the largest finite magnitude of the expected value
//!   (parallel `reduce`, `scan` and `hist` may reassociate floating-point sums, LANGUAGE.md
//!   8.1; everything else is exact in practice, but one tolerance keeps the rule simple), or
//! * both fail at run time with the same message and the same locations.
//!
//! Native configurations are compared with the interpreter at their own optimisation level.
//! The unoptimised interpreter is compared with the oracle more loosely: the optimiser may
//! remove an unused computation that fails, or report another of several failures
//! (LANGUAGE.md 8.1), but not make a working program fail or change a value.
//!
//! Besides disagreements, a run reports the front end rejecting a generated program (a
//! generator bug, or a type checker that is too strict), internal compiler errors, C that does
//! not compile (with `-Wall -Wextra -Werror`, see [`configure_c_compiler`]), and panics.

use gradus::backend::c::NativeOptions;
use gradus::opt::OptOptions;
use gradus::program::{Backend, CallError, Program};
use gradus::value::Value;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The relative float tolerance of comparisons between backends.
pub const FLOAT_TOLERANCE: f64 = 1e-9;

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
}

impl Config {
    /// The oracle.
    pub const ORACLE: Config = Config::Interp { opt: true };

    /// Every configuration compared with the oracle.
    pub const ALL: [Config; 7] = [
        Config::Interp { opt: false },
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
        }
    }

    /// The backend.
    pub fn backend(self) -> Backend {
        match self {
            Config::Interp { .. } => Backend::Interpreter,
            Config::C { .. } => Backend::Native(NativeOptions {
                multicore: false,
                threads: Some(1),
                safe: true,
            }),
            Config::Multicore { threads, .. } => Backend::Native(NativeOptions {
                multicore: true,
                threads: Some(threads),
                safe: true,
            }),
        }
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = if self.opt() { "" } else { " --no-opt" };
        match self {
            Config::Interp { .. } => write!(f, "interp{opt}"),
            Config::C { .. } => write!(f, "c{opt}"),
            Config::Multicore { threads, .. } => write!(f, "multicore{opt} --threads {threads}"),
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
/// analysis, such as `-Wmaybe-uninitialized`), `-Wall -Wextra -Werror`, and the multicore
/// backend's parallel paths taken even for tiny inputs. Call before any program is compiled.
pub fn configure_c_compiler(level: &str) {
    // SAFETY: called at start-up, before threads that read the environment are started.
    unsafe {
        std::env::set_var(
            "CFLAGS",
            format!("{level} -Wall -Wextra -Werror -DGR_PAR_MIN_WORK=0 -DGR_PAR_CHUNK_MIN_WORK=0"),
        );
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
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
    let opts = if config.opt() {
        OptOptions::default()
    } else {
        OptOptions::off()
    };
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

/// Whether `got` agrees with the oracle's `want`.
pub fn agree(want: &Outcome, got: &Outcome) -> bool {
    match (want, got) {
        (Ok(w), Ok(g)) => gradus::testspec::compare_values(w, g, FLOAT_TOLERANCE).is_ok(),
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
fn outcomes(subject: &Subject, config: Config) -> Result<Vec<Outcome>, Failure> {
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

/// Whether the unoptimised interpreter's outcome is consistent with the optimised one's.
/// The optimiser may remove a computation whose result is unused, and with it a run-time
/// error, and may reorder computations, so that another of several failures is reported
/// (LANGUAGE.md 8.1); it may not make a program fail that succeeds unoptimised, nor change a
/// value.
fn consistent_across_optimisation(optimised: &Outcome, unoptimised: &Outcome) -> bool {
    match (optimised, unoptimised) {
        (Ok(_), Ok(_)) => agree(optimised, unoptimised),
        (Ok(_), Err(_)) | (Err(_), Err(_)) => true,
        (Err(_), Ok(_)) => false,
    }
}

/// Runs `subject` in every configuration of `configs` and compares: each native
/// configuration with the interpreter at the same optimisation level, exactly (same values,
/// same errors), and the unoptimised interpreter with the oracle under
/// [`consistent_across_optimisation`]. The problems found (at most one per configuration).
pub fn run(subject: &Subject, configs: &[Config]) -> Vec<Failure> {
    let want = match oracle(subject) {
        Ok(w) => w,
        Err(f) => return vec![f],
    };
    let mut failures = Vec::new();
    let unoptimised = Config::Interp { opt: false };
    let want_unoptimised = if configs.iter().any(|c| !c.opt()) {
        match outcomes(subject, unoptimised) {
            Ok(w) => Some(w),
            Err(f) => {
                failures.push(f);
                None
            }
        }
    } else {
        None
    };
    for &config in configs {
        let (reference, strict) = match config {
            Config::Interp { opt: true } => continue,
            Config::Interp { opt: false } => (&want, false),
            _ if config.opt() => (&want, true),
            _ => match &want_unoptimised {
                Some(w) => (w, true),
                None => continue,
            },
        };
        let got = if config == unoptimised {
            match &want_unoptimised {
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
            let ok = if strict {
                agree(&reference[k], &got[k])
            } else {
                consistent_across_optimisation(&reference[k], &got[k])
            };
            if !ok {
                let against = if strict && !config.opt() {
                    "interp --no-opt"
                } else {
                    "interp"
                };
                failures.push(Failure {
                    kind: Kind::Mismatch,
                    config: Some(config),
                    case: Some(k),
                    detail: format!(
                        "{}: {against}: {} / {config}: {}",
                        case.entry,
                        describe(&reference[k]),
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
        None | Some(Config::Interp { opt: true }) => {
            matches!(oracle(subject), Err(f) if f.kind == kind)
        }
        Some(c) => {
            // The unoptimised native backends are compared with the unoptimised interpreter.
            let mut configs = vec![c];
            if !c.opt() && c != (Config::Interp { opt: false }) {
                configs.insert(0, Config::Interp { opt: false });
            }
            run(subject, &configs)
                .iter()
                .any(|f| f.kind == kind && f.config == Some(c))
        }
    }
}
