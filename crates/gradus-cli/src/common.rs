//! Things shared by the subcommands: the backend option, panic capture, input checking.

use gradus::program::{EntryPoint, ExternalType};
use gradus::value::Value;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};

/// The backends `--backend` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter.
    Interpreter,
    /// Generated C, sequential.
    C,
    /// Generated C, outermost SOACs on all cores (OpenMP).
    Multicore,
    /// Generated C on the host, outermost parallel loops as OpenCL kernels.
    Gpu,
}

impl Backend {
    /// The name used in tags (`no_interpreter`, `no_c`, `no_multicore`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interpreter => "interpreter",
            Backend::C => "c",
            Backend::Multicore => "multicore",
            Backend::Gpu => "gpu",
        }
    }
}

/// Parses a `--backend` value.
pub fn parse_backend(s: &str) -> Result<Backend, String> {
    match s {
        "interpreter" | "interp" => Ok(Backend::Interpreter),
        "c" => Ok(Backend::C),
        "multicore" | "native" => Ok(Backend::Multicore),
        "gpu" => Ok(Backend::Gpu),
        _ => Err(format!(
            "unknown backend `{s}` (expected `interp`, `c`, `multicore` or `gpu`)"
        )),
    }
}

/// The backend options shared by `run`, `test`, `bench` and `check`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct BackendArgs {
    /// Backend: `interp` (the reference interpreter), `c` (generated C, one thread),
    /// `multicore` (generated C on all cores) or `gpu` (parallel loops as OpenCL kernels). Default: `multicore` when a C compiler is found
    /// (`CC`, `cc`, `gcc`, `clang`), otherwise `interp`.
    #[arg(long, value_parser = parse_backend, value_name = "BACKEND")]
    pub backend: Option<Backend>,
    /// Number of threads of the multicore backend (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Compile without run-time checks (bounds, sizes, division by zero, assertions).
    #[arg(long = "unsafe")]
    pub no_checks: bool,
}

impl BackendArgs {
    /// The chosen backend; the default says on standard error when it falls back to the
    /// interpreter.
    pub fn resolve(&self) -> Backend {
        if let Some(b) = self.backend {
            return b;
        }
        if gradus::backend::c::build::find_compiler().is_some() {
            Backend::Multicore
        } else {
            static NOTICE: std::sync::Once = std::sync::Once::new();
            NOTICE.call_once(|| {
                eprintln!("gradus: no C compiler found (set CC); using the interpreter");
            });
            Backend::Interpreter
        }
    }

    /// The library's backend for `b`.
    pub fn library_backend(&self, b: Backend) -> gradus::program::Backend {
        let native = |multicore, gpu| {
            gradus::program::Backend::Native(gradus::NativeOptions {
                multicore,
                threads: self.threads,
                safe: !self.no_checks,
                gpu,
            })
        };
        match b {
            Backend::Interpreter => gradus::program::Backend::Interpreter,
            Backend::C => native(false, false),
            Backend::Multicore => native(true, false),
            Backend::Gpu => native(false, true),
        }
    }

    /// `program` set up to run on backend `b` (compiling its C); the error message otherwise.
    pub fn prepare(
        &self,
        b: Backend,
        program: gradus::program::Program,
    ) -> Result<gradus::program::Program, String> {
        match catch_panic(|| program.with_backend(self.library_backend(b))) {
            Ok(r) => r.map_err(|e| e.to_string()),
            Err(p) => Err(format!(
                "internal error: gradus panicked while compiling C: {p}"
            )),
        }
    }
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Replaces the panic hook by one that records the message and location for
/// [`catch_panic`] instead of printing it.
pub fn install_quiet_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let msg = payload_message(info.payload());
        let loc = info
            .location()
            .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let text = format!("{msg}{loc}");
        if CATCHING.with(|c| c.get()) {
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
        } else {
            // A panic outside `catch_panic` is a bug in gradus: report it as an internal
            // error with exit code 4 instead of a raw panic message.
            eprintln!("internal error: gradus panicked: {text}");
            std::process::exit(4);
        }
    }));
}

fn payload_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `f`, turning a panic into `Err(description)`.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    LAST_PANIC.with(|p| *p.borrow_mut() = None);
    let outer = CATCHING.with(|c| c.replace(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(outer));
    r.map_err(|payload| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| payload_message(payload.as_ref()))
    })
}

/// Checks values against an entry point's parameters (count, element type, rank: docs/language.md
/// §Entry-point arguments).
pub fn check_inputs(ep: &EntryPoint, values: &[Value]) -> Result<(), String> {
    if values.len() != ep.params.len() {
        return Err(format!(
            "entry point \"{}\" takes {} argument(s) ({}), but {} value(s) were given{}",
            ep.name,
            ep.params.len(),
            ep.params
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            values.len(),
            if values.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    values
                        .iter()
                        .map(|v| v.type_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ));
    }
    for (k, (t, v)) in ep.params.iter().zip(values).enumerate() {
        match t {
            ExternalType::Value { elem, rank, text } => {
                if v.elem_type() != *elem || v.rank() != *rank {
                    return Err(format!(
                        "argument #{k} of entry point \"{}\": expected type {text}, but the value given has type {}",
                        ep.name,
                        v.type_name()
                    ));
                }
            }
            ExternalType::Opaque(text) => {
                return Err(format!(
                    "argument #{k} of entry point \"{}\" has the opaque type {text}, which cannot be given as a value",
                    ep.name
                ));
            }
        }
    }
    Ok(())
}

/// Reads and compiles a program for a command; on failure prints the diagnostic and returns
/// the exit code (1 for an unreadable file or a compile error, 4 for a compiler bug or panic).
pub fn load_program(
    file: &std::path::Path,
    opts: &gradus::opt::OptOptions,
) -> Result<(String, String, gradus::program::Program), u8> {
    let path = file.display().to_string();
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            clear_progress();
            eprintln!("Error: cannot read {path}: {e}");
            return Err(1);
        }
    };
    match catch_panic(|| gradus::program::Program::from_source_with(&path, &source, opts)) {
        Ok(Ok(p)) => Ok((path, source, p)),
        Ok(Err(d)) => {
            clear_progress();
            eprint!("{}", d.render());
            Err(crate::run::compile_failure_code(&d))
        }
        Err(p) => {
            clear_progress();
            eprintln!("internal error: gradus panicked while compiling {path}: {p}");
            Err(4)
        }
    }
}

/// A one-line progress display on standard error, redrawn in place. It is shown only when
/// standard error is a terminal: redirected to a file or a pipe, the carriage returns and
/// erase-line codes would end up in the log as garbage, and a log has no use for a line that
/// is overwritten anyway.
pub struct Progress {
    tty: bool,
}

/// Whether a progress line is on the screen now. One flag for the process, since there is
/// one standard error: [`load_program`] erases the line before printing a diagnostic.
static PROGRESS_SHOWN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Erases the progress line if one is shown, so that a message starts on a clean line.
pub fn clear_progress() {
    use std::io::Write;
    if PROGRESS_SHOWN.swap(false, std::sync::atomic::Ordering::Relaxed) {
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K");
        let _ = e.flush();
    }
}

impl Progress {
    /// A display that is active when standard error is a terminal.
    pub fn new() -> Progress {
        use std::io::IsTerminal;
        Progress {
            tty: std::io::stderr().is_terminal(),
        }
    }

    /// Replaces the progress line by `line` (nothing when standard error is not a terminal).
    pub fn show(&mut self, line: &str) {
        if !self.tty {
            return;
        }
        use std::io::Write;
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r\x1b[2K{line}");
        let _ = e.flush();
        PROGRESS_SHOWN.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Erases the progress line, so that what is printed next starts on a clean line.
    pub fn clear(&mut self) {
        clear_progress();
    }

    /// Prints a message on standard error, on a line of its own.
    pub fn message(&mut self, line: &str) {
        self.clear();
        eprintln!("{line}");
    }
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}
