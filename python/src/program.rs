//! The `Program` and `EntryPoint` classes: a compiled program, its entry points' signatures
//! with their parameters' names, and calls.
//!
//! **Takes** a compiled [`gradus::program::Program`]. **Guarantees** that a call checks and
//! converts every argument first ([`crate::convert`]), runs with the GIL released, and
//! reports run-time errors as `ProgramError` with the message and locations, and panics of
//! the library as a `RuntimeError` saying it is an internal error.

use crate::ProgramError;
use crate::convert::{Prepared, describe, prepare_array, prepare_scalar, to_python};
use crate::derive::PyDerivative;
use gradus::Derivative;
use gradus::program::{CallError, ExternalType, Program};
use gradus::sparse::SparseKind;
use gradus::value::{Value, ValueRef};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyAttributeError, PyKeyError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// A compiled program and what the Python side needs to know about it.
pub(crate) struct Loaded {
    pub(crate) program: Arc<Program>,
    pub(crate) path: String,
    pub(crate) backend: &'static str,
    pub(crate) threads: Option<usize>,
    pub(crate) safe: bool,
    pub(crate) entries: Vec<Signature>,
}

/// An entry point's signature with the names of its parameters.
pub(crate) struct Signature {
    pub(crate) name: String,
    pub(crate) params: Vec<(String, ExternalType)>,
    pub(crate) results: Vec<ExternalType>,
}

impl Signature {
    pub(crate) fn text(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        let results = match self.results.as_slice() {
            [one] => one.to_string(),
            many => format!(
                "({})",
                many.iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!("({}) -> {results}", params.join(", "))
    }
}

/// The signatures of `program`'s entry points, parameters named as in the source where a
/// parameter is a plain name (`arg0`, `arg1`, ... otherwise).
pub(crate) fn signatures(program: &Program) -> Vec<Signature> {
    let core = program.core();
    program
        .entry_points()
        .into_iter()
        .map(|ep| {
            let vars = core
                .entry(&ep.name)
                .and_then(|f| f.entry.as_ref())
                .map(|e| {
                    e.params
                        .iter()
                        .map(|(_, vs)| vs.clone())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let params = ep
                .params
                .into_iter()
                .enumerate()
                .map(|(k, t)| {
                    let hint = match vars.get(k).map(Vec::as_slice) {
                        Some([v]) => core.names.hint(*v).to_string(),
                        _ => String::new(),
                    };
                    let plain = !hint.is_empty()
                        && hint
                            .chars()
                            .all(|c| c.is_alphanumeric() || c == '_' || c == '\'');
                    (if plain { hint } else { format!("arg{k}") }, t)
                })
                .collect();
            Signature {
                name: ep.name,
                params,
                results: ep.results,
            }
        })
        .collect()
}

/// The message of a panic payload.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// A `ProgramError` with `message` and `locations` set.
fn program_error(py: Python<'_>, e: gradus::program::RuntimeError) -> PyErr {
    let err = ProgramError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("message", &e.message);
    let _ = value.setattr("locations", PyList::new(py, &e.locations).ok());
    err
}

/// A compiled gradus program. Its entry points are attributes (`prog.gradient(...)`) and
/// items (`prog["gradient"]`); `entry_points` maps their names to their signatures.
#[pyclass(frozen, module = "gradus", name = "Program")]
pub(crate) struct PyProgram {
    pub(crate) loaded: Arc<Loaded>,
}

#[pymethods]
impl PyProgram {
    /// The entry points: a dict from name to signature, e.g.
    /// `{"sq": "(x: f64) -> f64"}`, in declaration order.
    #[getter]
    fn entry_points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for s in &self.loaded.entries {
            d.set_item(&s.name, s.text())?;
        }
        Ok(d)
    }

    /// The path (or name) the program was compiled from.
    #[getter]
    fn path(&self) -> &str {
        &self.loaded.path
    }

    /// The backend running the calls: `"interp"`, `"c"` or `"multicore"`.
    #[getter]
    fn backend(&self) -> &str {
        self.loaded.backend
    }

    /// The number of threads of the multicore backend (None: all cores).
    #[getter]
    fn threads(&self) -> Option<usize> {
        self.loaded.threads
    }

    /// Whether the run-time checks (bounds, sizes, division by zero, assertions) are on.
    #[getter]
    fn safe(&self) -> bool {
        self.loaded.safe
    }

    /// The gradient of the entry point `entry` (one float scalar result) with respect to the
    /// parameters `wrt` (None: every float parameter; a position or name, or a sequence of
    /// them): a callable taking the entry's arguments and returning one array for one
    /// position, a tuple for several. Compiled on first use, then cached.
    #[pyo3(signature = (entry, wrt=None))]
    fn grad(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDerivative> {
        self.derivative(py, Derivative::Grad, entry, wrt)
    }

    /// A vector–Jacobian product: a callable taking the entry's arguments, then one cotangent
    /// `ybar` per result, and returning `(y, xbar)`.
    #[pyo3(signature = (entry, wrt=None))]
    fn vjp(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDerivative> {
        self.derivative(py, Derivative::Vjp, entry, wrt)
    }

    /// A Jacobian–vector product: a callable taking the entry's arguments, then one tangent
    /// `xdot` per position in `wrt`, and returning `(y, ydot)`.
    #[pyo3(signature = (entry, wrt=None))]
    fn jvp(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDerivative> {
        self.derivative(py, Derivative::Jvp, entry, wrt)
    }

    /// The Jacobian of the entry's one result (rank 0 or 1): for each position, an array of
    /// shape `result.shape + param.shape`.
    #[pyo3(signature = (entry, wrt=None))]
    fn jacobian(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDerivative> {
        self.derivative(py, Derivative::Jacobian, entry, wrt)
    }

    /// The Hessian of the entry's float scalar result with respect to one parameter of rank
    /// 0 or 1.
    #[pyo3(signature = (entry, wrt=None))]
    fn hessian(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDerivative> {
        self.derivative(py, Derivative::Hessian, entry, wrt)
    }

    /// The sparse Jacobian of the entry's one float result (rank 0 or 1) with respect to the
    /// one-dimensional float parameter `wrt` (None: the only float parameter; a position or
    /// name): a callable taking the entry's arguments and returning a
    /// `scipy.sparse.csr_matrix` (or `(values, columns, offsets)` without scipy).
    #[pyo3(signature = (entry, wrt=None))]
    fn sparse_jacobian(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::sparse::PySparse> {
        let index = self.index_of(entry)?;
        crate::sparse::derive(py, &self.loaded, index, SparseKind::Jacobian, wrt)
    }

    /// The sparse Hessian of the entry's float scalar result, as `sparse_jacobian`.
    #[pyo3(signature = (entry, wrt=None))]
    fn sparse_hessian(
        &self,
        py: Python<'_>,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::sparse::PySparse> {
        let index = self.index_of(entry)?;
        crate::sparse::derive(py, &self.loaded, index, SparseKind::Hessian, wrt)
    }

    /// The per-process version of the entry point `entry` with the parameters named in
    /// `shard` split by rows (docs/mpi.md; `gradus.mpi` calls it): returns the derived entry
    /// point, which takes the entry's arguments (the sharded ones holding this process's
    /// rows), then the process's rank and the global index of its first row; how each result
    /// combines across processes (`"sum"`, `"rows"` or `"same"`); and the sharded
    /// parameters' positions. Raises `ValueError` (with the location) where the entry point
    /// does not shard.
    fn _sharded(
        &self,
        py: Python<'_>,
        entry: &str,
        shard: Vec<String>,
    ) -> PyResult<(PyEntryPoint, Vec<&'static str>, Vec<usize>)> {
        let program = &self.loaded.program;
        let derived = py
            .detach(|| {
                catch_unwind(AssertUnwindSafe(|| -> Result<_, String> {
                    let (sharded, plan) =
                        program.sharded(entry, &shard).map_err(|d| d.to_string())?;
                    let native = sharded
                        .with_backend(program.backend())
                        .map_err(|e| e.to_string())?;
                    Ok((native, plan))
                }))
            })
            .map_err(|p| {
                PyRuntimeError::new_err(format!(
                    "internal error: gradus panicked while sharding `{entry}`: {}",
                    panic_message(p.as_ref())
                ))
            })?
            .map_err(pyo3::exceptions::PyValueError::new_err)?;
        let (sharded, plan) = derived;
        let sharded = Arc::new(sharded);
        let entries = signatures(&sharded);
        let index = entries
            .iter()
            .position(|s| s.name == entry)
            .ok_or_else(|| {
                PyRuntimeError::new_err("internal error: the sharded entry is missing")
            })?;
        let loaded = Arc::new(Loaded {
            program: sharded,
            path: self.loaded.path.clone(),
            backend: self.loaded.backend,
            threads: self.loaded.threads,
            safe: self.loaded.safe,
            entries,
        });
        let combine = plan
            .combine
            .iter()
            .map(|c| match c {
                gradus::shard::Combine::Sum => "sum",
                gradus::shard::Combine::Concat => "rows",
                gradus::shard::Combine::Replicated => "same",
                gradus::shard::Combine::Max => "max",
                gradus::shard::Combine::Min => "min",
            })
            .collect();
        Ok((PyEntryPoint::new(loaded, index), combine, plan.sharded))
    }

    fn __getattr__(&self, name: &str) -> PyResult<PyEntryPoint> {
        self.entry(name).ok_or_else(|| {
            PyAttributeError::new_err(format!(
                "program {} has no entry point or attribute `{name}`{}",
                self.loaded.path,
                self.known()
            ))
        })
    }

    fn __getitem__(&self, name: &str) -> PyResult<PyEntryPoint> {
        self.entry(name).ok_or_else(|| {
            PyKeyError::new_err(format!(
                "program {} has no entry point `{name}`{}",
                self.loaded.path,
                self.known()
            ))
        })
    }

    fn __contains__(&self, name: &str) -> bool {
        self.entry(name).is_some()
    }

    fn __dir__(slf: &Bound<'_, Self>) -> PyResult<Vec<String>> {
        let py = slf.py();
        let mut names: Vec<String> = py
            .import("builtins")?
            .getattr("object")?
            .getattr("__dir__")?
            .call1((slf,))?
            .extract()?;
        names.extend(slf.get().loaded.entries.iter().map(|s| s.name.clone()));
        Ok(names)
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self
            .loaded
            .entries
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        format!(
            "<gradus.Program {} on {}: {}>",
            self.loaded.path,
            self.loaded.backend,
            names.join(", ")
        )
    }
}

impl PyProgram {
    fn derivative(
        &self,
        py: Python<'_>,
        kind: Derivative,
        entry: &str,
        wrt: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyDerivative> {
        let index = self.index_of(entry)?;
        crate::derive::derive(py, &self.loaded, index, kind, wrt)
    }

    /// The index of the entry point `entry`, or a `KeyError` naming the known ones.
    fn index_of(&self, entry: &str) -> PyResult<usize> {
        self.loaded
            .entries
            .iter()
            .position(|s| s.name == entry)
            .ok_or_else(|| {
                PyKeyError::new_err(format!(
                    "program {} has no entry point `{entry}`{}",
                    self.loaded.path,
                    self.known()
                ))
            })
    }

    fn entry(&self, name: &str) -> Option<PyEntryPoint> {
        let index = self.loaded.entries.iter().position(|s| s.name == name)?;
        Some(PyEntryPoint {
            loaded: Arc::clone(&self.loaded),
            index,
        })
    }

    fn known(&self) -> String {
        let names: Vec<&str> = self
            .loaded
            .entries
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        if names.is_empty() {
            " (it has none)".into()
        } else {
            format!(" (entry points: {})", names.join(", "))
        }
    }
}

/// An entry point of a compiled program; call it with one argument per parameter
/// (positionally or by name). Scalars come back as Python numbers, arrays as numpy arrays,
/// several results as a tuple.
#[pyclass(frozen, module = "gradus", name = "EntryPoint")]
pub(crate) struct PyEntryPoint {
    loaded: Arc<Loaded>,
    index: usize,
}

#[pymethods]
impl PyEntryPoint {
    /// The entry point's name.
    #[getter]
    fn name(&self) -> &str {
        &self.signature_ref().name
    }

    /// The signature, e.g. `"(x: [n]f64) -> f64"`.
    #[getter]
    fn signature(&self) -> String {
        self.signature_ref().text()
    }

    /// The parameters as `(name, type)` pairs.
    #[getter]
    fn parameters(&self) -> Vec<(String, String)> {
        self.signature_ref()
            .params
            .iter()
            .map(|(n, t)| (n.clone(), t.to_string()))
            .collect()
    }

    /// The types of the results.
    #[getter]
    fn results(&self) -> Vec<String> {
        self.signature_ref()
            .results
            .iter()
            .map(|t| t.to_string())
            .collect()
    }

    /// The program the entry point belongs to: for a derived entry point, the derived
    /// program, from which derivatives of the derivative can be asked.
    #[getter]
    fn program(&self) -> PyProgram {
        PyProgram {
            loaded: self.loaded.clone(),
        }
    }

    fn __repr__(&self) -> String {
        let s = self.signature_ref();
        format!("<gradus.EntryPoint {}{}>", s.name, s.text())
    }

    /// This entry point as a target of gradus's XLA FFI handler (`gradus.jax` calls it): the
    /// index its calls pass as the attribute `gradus_target`. `skip`: how many leading results
    /// the call does not want. Raises `ValueError` for an entry point whose parameters or
    /// results are not primitives or regular arrays of them.
    #[pyo3(signature = (skip = 0))]
    fn _xla_target(&self, skip: usize) -> PyResult<u64> {
        let sig = self.signature_ref();
        let types = sig.params.iter().map(|(_, t)| t).chain(&sig.results);
        if let Some(t) = types
            .into_iter()
            .find(|t| matches!(t, ExternalType::Opaque(_)))
        {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "`{}` has the type {t}, which XLA cannot pass",
                sig.name
            )));
        }
        if skip > sig.results.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "`{}` has {} result(s), fewer than {skip} to skip",
                sig.name,
                sig.results.len()
            )));
        }
        Ok(crate::xla::register(&self.loaded.program, &sig.name, skip))
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut out = self.call_flat(py, args, kwargs)?;
        match out.len() {
            0 => Ok(py.None()),
            1 => Ok(out.pop().unwrap_or_else(|| py.None())),
            _ => PyTuple::new(py, out)?.into_py_any(py),
        }
    }
}

impl PyEntryPoint {
    pub(crate) fn new(loaded: Arc<Loaded>, index: usize) -> PyEntryPoint {
        PyEntryPoint { loaded, index }
    }

    pub(crate) fn signature_text(&self) -> String {
        self.signature_ref().text()
    }

    /// Calls the entry point; its results, one Python object each.
    pub(crate) fn call_flat<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let program = &self.loaded.program;
        let entry = self.signature_ref().name.as_str();
        self.call_with(py, args, kwargs, |refs| program.call_ref(entry, refs))
    }

    /// Checks and converts the arguments for this entry point's parameters and hands them to
    /// `run` (with the GIL released); its results, one Python object each.
    pub(crate) fn call_with<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
        run: impl FnOnce(&[ValueRef]) -> Result<Vec<Value>, CallError> + Send,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let sig = self.signature_ref();
        let objs = self.bind_arguments(args, kwargs)?;
        let numpy = py.import("numpy")?;
        let mut prepared = Vec::with_capacity(objs.len());
        for ((name, ty), obj) in sig.params.iter().zip(&objs) {
            let what = describe(&sig.name, name, ty);
            prepared.push(match ty {
                ExternalType::Value { elem, rank: 0, .. } => {
                    Prepared::Scalar(prepare_scalar(&what, *elem, obj)?)
                }
                ExternalType::Value { elem, rank, .. } => {
                    prepare_array(&numpy, &what, *elem, *rank, obj)?
                }
                ExternalType::Opaque(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "{what} has a type that cannot be given from Python (only primitives \
                         and regular arrays of primitives can)"
                    )));
                }
            });
        }
        let refs: Vec<ValueRef> = prepared.iter().map(Prepared::value_ref).collect();
        let entry = sig.name.as_str();
        let outcome = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| run(&refs))).map_err(|p| panic_message(p.as_ref()))
        });
        drop(refs);
        drop(prepared);
        let results = match outcome {
            Ok(Ok(r)) => r,
            Ok(Err(CallError::Runtime(e))) => return Err(program_error(py, e)),
            Ok(Err(e)) => return Err(PyTypeError::new_err(e.to_string())),
            Err(p) => {
                return Err(PyRuntimeError::new_err(format!(
                    "internal error: gradus panicked while running `{entry}`: {p}"
                )));
            }
        };
        let mut out = Vec::with_capacity(results.len());
        for r in results {
            out.push(to_python(py, r)?);
        }
        Ok(out)
    }

    fn signature_ref(&self) -> &Signature {
        &self.loaded.entries[self.index]
    }

    /// The arguments in parameter order, from positional and keyword arguments.
    fn bind_arguments<'py>(
        &self,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let sig = self.signature_ref();
        let n = sig.params.len();
        let given = args.len() + kwargs.map_or(0, |k| k.len());
        if args.len() > n || given != n {
            return Err(PyTypeError::new_err(format!(
                "{}() takes {n} argument(s) {}, but {given} were given",
                sig.name,
                sig.text()
            )));
        }
        let mut slots: Vec<Option<Bound<'py, PyAny>>> = args.iter().map(Some).collect();
        slots.resize(n, None);
        if let Some(kwargs) = kwargs {
            for (key, value) in kwargs.iter() {
                let key: String = key.extract()?;
                let Some(k) = sig.params.iter().position(|(p, _)| *p == key) else {
                    return Err(PyTypeError::new_err(format!(
                        "{}() has no parameter named `{key}` {}",
                        sig.name,
                        sig.text()
                    )));
                };
                if slots[k].is_some() {
                    return Err(PyTypeError::new_err(format!(
                        "{}() got parameter `{key}` twice",
                        sig.name
                    )));
                }
                slots[k] = Some(value);
            }
        }
        slots
            .into_iter()
            .zip(&sig.params)
            .map(|(s, (name, _))| {
                s.ok_or_else(|| {
                    PyTypeError::new_err(format!("{}() is missing parameter `{name}`", sig.name))
                })
            })
            .collect()
    }
}
