//! The Rust API: compile a program, list its entry points, call them.
//!
//! ```
//! use gradus::program::Program;
//! use gradus::value::{Value, Scalar};
//! let prog = Program::from_source("sq.fut", "entry sq (x: f64) = x * x").unwrap();
//! let out = prog.call("sq", vec![Value::Scalar(Scalar::F64(3.0))]).unwrap();
//! assert_eq!(out, vec![Value::Scalar(Scalar::F64(9.0))]);
//! ```

pub use crate::backend::c::NativeOptions;
pub use crate::core::external::{CallError, EntryPoint, ExternalType};
pub use crate::diag::RuntimeError;
use crate::diag::{Diagnostics, SourceMap};
use crate::value::{Value, ValueRef};
use std::fmt;
use std::path::Path;

/// Why a program could not be set up on a backend ([`Program::with_backend`]): no C compiler,
/// the C compiler failed, the library could not be loaded, or the program uses something the
/// native backend cannot lower yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendError {
    message: String,
}

impl BackendError {
    /// What went wrong, in words (as [`Display`](fmt::Display) prints it).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for BackendError {
    fn from(message: String) -> Self {
        BackendError { message }
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BackendError {}

/// Which backend runs a program's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter.
    Interpreter,
    /// Generated C, compiled and loaded (sequential or multicore, see the options).
    Native(NativeOptions),
}

/// A compiled program.
pub struct Program {
    pub(crate) sources: SourceMap,
    pub(crate) prog: crate::core::ir::Prog,
    /// Counts the primitive operations the interpreter executes.
    pub(crate) counter: crate::backend::interp::OpCounter,
    /// The loaded native code, when the program runs on the native backend.
    pub(crate) native: Option<crate::backend::c::Native>,
    /// The path and source text it was compiled from (what derivatives are derived from).
    pub(crate) origin: Option<(String, String)>,
    /// The optimiser options it was compiled with.
    pub(crate) opts: crate::opt::OptOptions,
    /// The backend its calls run on.
    pub(crate) backend: Backend,
    /// The programs derived from it ([`Program::derive`]), compiled on first use.
    pub(crate) derived: std::sync::Mutex<
        std::collections::HashMap<crate::derive::DeriveKey, (std::sync::Arc<Program>, String)>,
    >,
}

impl Program {
    /// Compiles a program from source text; `path` names it in diagnostics and is the base
    /// for relative paths.
    pub fn from_source(path: &str, source: &str) -> Result<Program, Diagnostics> {
        Program::from_source_with(path, source, &crate::opt::OptOptions::default())
    }

    /// Compiles a program from source text with the given optimiser options
    /// ([`crate::opt::OptOptions::off`] compiles without optimisation).
    pub fn from_source_with(
        path: &str,
        source: &str,
        opts: &crate::opt::OptOptions,
    ) -> Result<Program, Diagnostics> {
        let compiled = crate::pipeline::compile_with(path, source, opts)?;
        Ok(Program {
            sources: compiled.sources,
            prog: compiled.prog,
            counter: Default::default(),
            native: None,
            origin: Some((path.to_string(), source.to_string())),
            opts: opts.clone(),
            backend: Backend::Interpreter,
            derived: Default::default(),
        })
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
        crate::core::external::entry_points(&self.prog)
    }

    /// Calls an entry point with values; returns its results (a top-level tuple as its
    /// components).
    pub fn call(&self, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, CallError> {
        let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
        let fun = crate::core::external::check_args(self.prog.entry(entry), entry, &refs)?;
        match &self.native {
            None => {
                drop(refs);
                crate::backend::interp::run_function(
                    &self.prog,
                    &self.sources,
                    fun,
                    args,
                    &self.counter,
                )
            }
            Some(n) => n.call_ref(&self.prog, &self.sources, entry, &refs),
        }
        .map_err(CallError::Runtime)
    }

    /// Calls an entry point with borrowed arguments and hands its results to `with_results`
    /// without copying them out of the native backend's buffers (which are released when it
    /// returns); the interpreter's results are handed over as borrowed values.
    pub fn call_with<T>(
        &self,
        entry: &str,
        args: &[ValueRef],
        with_results: impl FnOnce(&[ValueRef]) -> T,
    ) -> Result<T, CallError> {
        let fun = crate::core::external::check_args(self.prog.entry(entry), entry, args)?;
        match &self.native {
            None => self.interpret(fun, args).map(|vs| {
                let refs: Vec<ValueRef> = vs.iter().map(Value::as_value_ref).collect();
                with_results(&refs)
            }),
            Some(n) => n.call_with(&self.prog, &self.sources, entry, args, with_results),
        }
        .map_err(CallError::Runtime)
    }

    /// With the native backend, the bytes its calls have copied so far to update arrays
    /// whose buffers were shared (see [`crate::backend::c::Native::copied_bytes`]); `None`
    /// with the interpreter.
    pub fn copied_bytes(&self) -> Option<u64> {
        self.native.as_ref().map(|n| n.copied_bytes())
    }

    /// Runs `fun` on the interpreter, on copies of the borrowed arguments (it owns its values).
    fn interpret(
        &self,
        fun: &crate::core::ir::FunDef,
        args: &[ValueRef],
    ) -> Result<Vec<Value>, RuntimeError> {
        crate::backend::interp::run_function(
            &self.prog,
            &self.sources,
            fun,
            args.iter().map(ValueRef::to_value).collect(),
            &self.counter,
        )
    }

    /// Calls an entry point with borrowed arguments. The native backend reads the arrays
    /// where they lie (no copy); the interpreter, which owns its values, copies them first.
    pub fn call_ref(&self, entry: &str, args: &[ValueRef]) -> Result<Vec<Value>, CallError> {
        let fun = crate::core::external::check_args(self.prog.entry(entry), entry, args)?;
        match &self.native {
            None => self.interpret(fun, args),
            Some(n) => n.call_ref(&self.prog, &self.sources, entry, args),
        }
        .map_err(CallError::Runtime)
    }

    /// The backend this program's calls run on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// This program, running its calls on `backend`: for the native backend, generates C,
    /// compiles it (or finds it in the cache) and loads it. Fails when there is no C compiler,
    /// when the compiler fails, or when the program uses something the backend cannot lower.
    pub fn with_backend(mut self, backend: Backend) -> Result<Program, BackendError> {
        self.backend = backend;
        self.derived = Default::default();
        self.native = match backend {
            Backend::Interpreter => None,
            Backend::Native(opts) => Some(crate::backend::c::Native::compile(
                &crate::pipeline::prepare_for_lowering(&self.prog).map_err(BackendError::from)?,
                &self.sources,
                opts,
            )?),
        };
        Ok(self)
    }

    /// Derives `kind` of the entry point `entry` with respect to the parameters at the
    /// positions `wrt` (`None`: every `f32` or `f64` parameter and array of them), as an entry
    /// point of a program compiled on first use with this program's options and backend, and
    /// kept: asking again returns the same. The arguments and results of each kind are in
    /// [`crate::derive`]; the parameters not in `wrt` are constants, as `vjp` treats values
    /// it captures.
    ///
    /// ```
    /// use gradus::{Derivative, Program};
    /// use gradus::value::{Scalar, Value};
    /// let prog = Program::from_source("f.fut", "entry f (x: f64) (k: i64) = x ** f64.i64 k")?;
    /// let grad = prog.derive(Derivative::Grad, "f", None)?;
    /// let g = grad.call(vec![Value::Scalar(Scalar::F64(2.0)), Value::Scalar(Scalar::I64(3))])?;
    /// assert_eq!(g, vec![Value::Scalar(Scalar::F64(12.0))]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn derive(
        &self,
        kind: crate::derive::Derivative,
        entry: &str,
        wrt: Option<&[usize]>,
    ) -> Result<crate::derive::Derived, crate::derive::DeriveError> {
        crate::derive::derive(self, kind, entry, wrt)
    }

    /// The sparse Jacobian (`kind` [`crate::sparse::SparseKind::Jacobian`]) or Hessian of
    /// `entry` with respect to its rank-1 float parameter `wrt` (default: the only float
    /// parameter), as compressed sparse rows; see [`crate::sparse::derived`].
    pub fn sparse(
        &self,
        kind: crate::sparse::SparseKind,
        entry: &str,
        wrt: Option<usize>,
    ) -> Result<crate::sparse::SparseDerived, crate::derive::DeriveError> {
        crate::sparse::derived::derive_sparse(self, kind, entry, wrt)
    }

    /// The gradient of `entry` ([`Program::derive`] with [`crate::derive::Derivative::Grad`]).
    pub fn grad(
        &self,
        entry: &str,
        wrt: Option<&[usize]>,
    ) -> Result<crate::derive::Derived, crate::derive::DeriveError> {
        self.derive(crate::derive::Derivative::Grad, entry, wrt)
    }

    /// Whether calls run natively.
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// The interpreter's count of the work done by calls so far (programs run by the reference
    /// interpreter). Tests use it to check the cost of derivatives.
    pub fn counter(&self) -> &crate::backend::interp::OpCounter {
        &self.counter
    }

    /// This program with entry point `entry` replaced by its per-process version, the
    /// parameters named in `shard` split by rows ([`crate::shard::derive`], docs/mpi.md):
    /// it takes two more arguments, the process's rank and the global index of its first
    /// row. The plan says how to combine the processes' results. Runs on the interpreter
    /// until [`Program::with_backend`].
    pub fn sharded(
        &self,
        entry: &str,
        shard: &[String],
    ) -> Result<(Program, crate::shard::ShardPlan), Diagnostics> {
        let fail = |d| Diagnostics {
            items: vec![d],
            sources: self.sources.clone(),
        };
        let plan = crate::shard::derive(&self.prog, entry, shard).map_err(fail)?;
        crate::pipeline::passes::after_pass(&plan.prog, "shard")
            .map_err(|m| fail(crate::diag::Diagnostic::bug(m)))?;
        // Not derived from source text: it has no origin to derive derivatives from.
        let prog = Program {
            sources: self.sources.clone(),
            prog: plan.prog.clone(),
            counter: Default::default(),
            native: None,
            origin: None,
            opts: self.opts.clone(),
            backend: Backend::Interpreter,
            derived: Default::default(),
        };
        Ok((prog, plan))
    }

    /// The core IR the program was compiled to.
    pub fn core(&self) -> &crate::core::ir::Prog {
        &self.prog
    }

    /// The sources this program was compiled from.
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }
}
