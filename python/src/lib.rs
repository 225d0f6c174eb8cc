//! The extension module `gradus._gradus`: compiles gradus programs and calls their entry
//! points on numpy arrays and Python numbers.
//!
//! **Takes** a program (a file or source text) and the backend options of the command line
//! (`backend`, `threads`, `safe`); compiles it with [`gradus::program::Program`], whose native
//! backend keeps compiled libraries in the cache the `gradus` command uses
//! (`$GRADUS_CACHE_DIR`), so a program compiled once is loaded, not compiled, by later
//! processes.
//!
//! **Guarantees** for a call: every argument is checked against its parameter (count, element
//! type, rank) before anything runs, and a mismatch is a `TypeError` or `ValueError` naming the
//! parameter; a numpy array of the parameter's dtype that is C-contiguous, aligned and in
//! native byte order is read where it lies (the generated code gets its data pointer), any
//! other array or a list is converted once; the GIL is released while the program runs; each
//! result array is the buffer the call's results were copied into (handed to numpy without
//! another copy). So a call costs what [`gradus::program::Program::call`] costs with values
//! already in memory, as `gradus bench` times it, plus the checks.
//!
//! It also holds the handler that XLA's FFI calls when a JAX computation calls an entry point
//! through `gradus.jax` ([`xla`]).

mod convert;
mod derive;
mod program;
mod sparse;
mod xla;

use gradus::program::{Backend, Program};
use program::{Loaded, PyEntryPoint, PyProgram, panic_message, signatures};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyOSError, PyRuntimeError, PyRuntimeWarning, PyValueError,
};
use pyo3::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

create_exception!(
    gradus,
    CompileError,
    PyException,
    "A program that does not compile. The message starts with `path:line:col: ` and is \
     followed by the full diagnostic; `location` holds `path:line:col` (or None)."
);
create_exception!(
    gradus,
    ProgramError,
    PyException,
    "A run-time error of a program (an index out of bounds, sizes that differ, a failed \
     assertion). `message` is the program's message and `locations` the source locations \
     `path:line:col-line:col`, innermost first."
);

/// Which backend a `backend=` argument names, and the name the program reports.
fn resolve_backend(
    py: Python<'_>,
    backend: Option<&str>,
    threads: Option<usize>,
    safe: bool,
) -> PyResult<(Backend, &'static str)> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let native = |multicore| {
        Backend::Native(gradus::backend::c::NativeOptions {
            multicore,
            threads,
            safe,
            gpu: false,
        })
    };
    match backend {
        None => {
            if gradus::backend::c::build::find_compiler().is_some() {
                Ok((native(true), "multicore"))
            } else {
                PyErr::warn(
                    py,
                    &py.get_type::<PyRuntimeWarning>(),
                    c"gradus: no C compiler found (set CC); using the interpreter",
                    1,
                )?;
                Ok((Backend::Interpreter, "interp"))
            }
        }
        Some("interp" | "interpreter") => Ok((Backend::Interpreter, "interp")),
        Some("c") => Ok((native(false), "c")),
        Some("gpu") => Ok((
            Backend::Native(gradus::backend::c::NativeOptions {
                threads,
                safe,
                ..gradus::backend::c::NativeOptions::gpu()
            }),
            "gpu",
        )),
        Some("multicore" | "native") => Ok((native(true), "multicore")),
        Some(other) => Err(PyValueError::new_err(format!(
            "unknown backend `{other}` (expected \"interp\", \"c\", \"multicore\" or \"gpu\")"
        ))),
    }
}

/// Compiles `source`, named `path` in messages, for `backend`, with the GIL released.
fn compile_program(
    py: Python<'_>,
    path: String,
    source: String,
    backend: Option<&str>,
    threads: Option<usize>,
    safe: bool,
) -> PyResult<PyProgram> {
    let (chosen, backend_name) = resolve_backend(py, backend, threads, safe)?;
    let outcome = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let program = Program::from_source(&path, &source).map_err(|d| {
                let location = d
                    .items
                    .first()
                    .and_then(|i| i.primary.as_ref())
                    .map(|(span, _)| d.sources.short_location(*span));
                let message = format!("{}\n\n{}", d.one_line(), d.render().trim_end());
                (message, location)
            })?;
            program
                .with_backend(chosen)
                .map_err(|e| (e.to_string(), None))
        }))
        .map_err(|p| panic_message(p.as_ref()))
    });
    let program = match outcome {
        Ok(Ok(p)) => p,
        Ok(Err((message, location))) => {
            let err = CompileError::new_err(message);
            err.value(py).setattr("location", location)?;
            return Err(err);
        }
        Err(p) => {
            return Err(PyRuntimeError::new_err(format!(
                "internal error: gradus panicked while compiling {path}: {p}"
            )));
        }
    };
    let entries = signatures(&program);
    Ok(PyProgram {
        loaded: Arc::new(Loaded {
            program: Arc::new(program),
            path,
            backend: backend_name,
            threads,
            safe,
            entries,
        }),
    })
}

/// Compiles the program in the file `path`.
///
/// `backend` is `"multicore"` (generated C on several threads), `"c"` (generated C on one
/// thread), `"gpu"` (parallel loops as OpenCL kernels) or `"interp"` (the reference
/// interpreter); the default is `"multicore"` when a C
/// compiler is found (`$CC`, `cc`, `gcc`, `clang`) and the interpreter otherwise. `threads`
/// is the multicore backend's number of threads (default: all cores). `safe=False` drops the
/// run-time checks (bounds, sizes, division by zero, assertions) from the generated C.
/// Compiled C is cached across processes (in `$GRADUS_CACHE_DIR`, by default `gradus` in the
/// user's cache directory), as the `gradus` command does.
///
/// Raises `CompileError` when the program does not compile, `FileNotFoundError` or `OSError`
/// when the file cannot be read.
#[pyfunction]
#[pyo3(signature = (path, *, backend = None, threads = None, safe = true))]
fn compile(
    py: Python<'_>,
    path: std::path::PathBuf,
    backend: Option<&str>,
    threads: Option<usize>,
    safe: bool,
) -> PyResult<PyProgram> {
    let name = path.display().to_string();
    let source = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(format!("{name}: no such file"))
        }
        _ => PyOSError::new_err(format!("cannot read {name}: {e}")),
    })?;
    compile_program(py, name, source, backend, threads, safe)
}

/// Compiles a program given as text; `name` names it in error messages and run-time error
/// locations. The options are those of `compile`.
#[pyfunction]
#[pyo3(signature = (source, name = "<string>", *, backend = None, threads = None, safe = true))]
fn compile_source(
    py: Python<'_>,
    source: String,
    name: &str,
    backend: Option<&str>,
    threads: Option<usize>,
    safe: bool,
) -> PyResult<PyProgram> {
    compile_program(py, name.to_string(), source, backend, threads, safe)
}

/// The directory where compiled programs are cached (`$GRADUS_CACHE_DIR`, by default `gradus`
/// in the user's cache directory).
#[pyfunction]
fn cache_dir() -> String {
    gradus::backend::c::build::cache_dir().display().to_string()
}

/// The address of gradus's handler for XLA's FFI (`XLA_FFI_Handler`), which `gradus.jax`
/// registers with `jax.ffi.register_ffi_target` (docs/python.md).
#[pyfunction]
fn _xla_handler() -> usize {
    xla::handler_address()
}

/// Keeps memory that a call freed for the next call, as the `gradus` command does: glibc
/// serves large blocks with fresh pages and returns them on `free`, so without this every call
/// faults in its large arrays (and the copies of its results) again, which cost a third of the
/// time of a call with 8 MB results. Blocks up to 32 MB come from the heap, and up to 1 GB of
/// free heap stays with the process. Set `GRADUS_DEFAULT_MALLOC=1` to leave malloc alone.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    if std::env::var_os("GRADUS_DEFAULT_MALLOC").is_some_and(|v| v == "1") {
        return;
    }
    // SAFETY: `mallopt` only sets allocator parameters and takes the allocator's lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

/// Compiles gradus programs and calls their entry points on numpy arrays.
#[pymodule]
fn _gradus(m: &Bound<'_, PyModule>) -> PyResult<()> {
    keep_freed_memory();
    let py = m.py();
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(compile_source, m)?)?;
    m.add_function(wrap_pyfunction!(cache_dir, m)?)?;
    m.add_function(wrap_pyfunction!(_xla_handler, m)?)?;
    m.add_class::<PyProgram>()?;
    m.add_class::<PyEntryPoint>()?;
    m.add_class::<derive::PyDerivative>()?;
    m.add_class::<sparse::PySparse>()?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("ProgramError", py.get_type::<ProgramError>())?;
    Ok(())
}
