//! The Rust API: compile a program, list its entry points, call them.
//!
//! ```no_run
//! use gradus::program::Program;
//! use gradus::value::{Value, Scalar};
//! let prog = Program::from_source("sq.fut", "entry sq (x: f64) = x * x").unwrap();
//! let out = prog.call("sq", vec![Value::Scalar(Scalar::F64(3.0))]).unwrap();
//! assert_eq!(out, vec![Value::Scalar(Scalar::F64(9.0))]);
//! ```

use crate::diag::{Diagnostics, SourceMap};
use crate::value::{PrimType, Value};
use std::fmt;
use std::path::Path;

/// The type of an entry-point parameter or result as seen from outside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternalType {
    /// A primitive or a regular array of primitives: exchangeable in the value formats.
    Value {
        /// Element type.
        elem: PrimType,
        /// Number of dimensions (0 for a scalar).
        rank: usize,
        /// The type as written in source, with sizes, e.g. `[n][3]f64`.
        text: String,
    },
    /// Anything else (tuples, records, arrays of tuples): cannot be given in the value formats.
    Opaque(String),
}

impl fmt::Display for ExternalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalType::Value { text, .. } | ExternalType::Opaque(text) => f.write_str(text),
        }
    }
}

/// The signature of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// Its name.
    pub name: String,
    /// Parameter types, in order.
    pub params: Vec<ExternalType>,
    /// Result types: the components of a top-level tuple, in order; empty for `()`.
    pub results: Vec<ExternalType>,
}

/// A run-time error in a user program (LANGUAGE.md 8.5).
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// The message, e.g. `Index [5] out of bounds for array of shape [4].`
    pub message: String,
    /// Locations `PATH:LINE:COL-LINE:COL`, innermost first.
    pub locations: Vec<String>,
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error: {}", self.message)?;
        for l in &self.locations {
            write!(f, "\n  at {l}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// No entry point of this name.
    UnknownEntry(String),
    /// The arguments do not fit the parameters (count, element type or rank); the message
    /// names the expected and the given types.
    BadInput(String),
    /// The program failed while running.
    Runtime(RuntimeError),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownEntry(n) => write!(f, "no entry point named \"{n}\""),
            CallError::BadInput(m) => f.write_str(m),
            CallError::Runtime(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CallError {}

/// Which backend runs a program's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter.
    Interpreter,
    /// Generated C, compiled and loaded (sequential or multicore, see the options).
    Native(crate::backend::c::NativeOptions),
}

/// A compiled program.
pub struct Program {
    pub(crate) sources: SourceMap,
    pub(crate) compiled: crate::pipeline::Compiled,
    /// The loaded native code, when the program runs on the native backend.
    pub(crate) native: Option<crate::backend::c::Native>,
}

impl Program {
    /// Compiles a program from source text; `path` names it in diagnostics and is the base
    /// for relative paths.
    pub fn from_source(path: &str, source: &str) -> Result<Program, Diagnostics> {
        crate::pipeline::compile(path, source)
    }

    /// Compiles a program from source text with the given optimiser options
    /// ([`crate::opt::OptOptions::off`] compiles without optimisation).
    pub fn from_source_with(
        path: &str,
        source: &str,
        opts: &crate::opt::OptOptions,
    ) -> Result<Program, Diagnostics> {
        crate::pipeline::compile_with(path, source, opts)
    }

    /// Reads and compiles a program file with the given optimiser options.
    pub fn from_file_with(
        path: &Path,
        opts: &crate::opt::OptOptions,
    ) -> Result<Program, Diagnostics> {
        let name = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Program::from_source_with(&name, &text, opts),
            Err(e) => Err(Diagnostics {
                items: vec![
                    crate::diag::Diagnostic::bug(format!("cannot read {name}: {e}"))
                        .with_note("the file could not be read"),
                ],
                sources: SourceMap::new(),
            }),
        }
    }

    /// Reads and compiles a program file.
    pub fn from_file(path: &Path) -> Result<Program, Diagnostics> {
        let name = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Program::from_source(&name, &text),
            Err(e) => Err(Diagnostics {
                items: vec![
                    crate::diag::Diagnostic::bug(format!("cannot read {name}: {e}"))
                        .with_note("the file could not be read"),
                ],
                sources: SourceMap::new(),
            }),
        }
    }

    /// The entry points, in declaration order.
    pub fn entry_points(&self) -> Vec<EntryPoint> {
        self.compiled.entry_points()
    }

    /// Calls an entry point with values; returns its results (a top-level tuple as its
    /// components).
    pub fn call(&self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, CallError> {
        match &self.native {
            None => self.compiled.call(&self.sources, entry, args),
            Some(n) => {
                self.compiled.check_args(entry, &args)?;
                n.call(&self.compiled.prog, &self.sources, entry, args)
                    .map_err(CallError::Runtime)
            }
        }
    }

    /// This program, running its calls on `backend`: for the native backend, generates C,
    /// compiles it (or finds it in the cache) and loads it. Fails when there is no C compiler,
    /// when the compiler fails, or when the program uses something the backend cannot lower.
    pub fn with_backend(mut self, backend: Backend) -> Result<Program, String> {
        self.native = match backend {
            Backend::Interpreter => None,
            Backend::Native(opts) => Some(crate::backend::c::Native::compile(
                &self.compiled.prog,
                &self.sources,
                opts,
            )?),
        };
        Ok(self)
    }

    /// Whether calls run natively.
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// The interpreter's count of the work done by calls so far (LANGUAGE.md's programs are
    /// run by the reference interpreter). Tests use it to check the cost of derivatives.
    pub fn counter(&self) -> &crate::backend::interp::OpCounter {
        &self.compiled.counter
    }

    /// The core IR the program was compiled to.
    pub fn core(&self) -> &crate::core::ir::Prog {
        &self.compiled.prog
    }

    /// The sources this program was compiled from.
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }
}
