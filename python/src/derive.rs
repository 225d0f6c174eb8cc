//! Derivatives on demand from Python: `prog.grad("f", wrt=...)` and its relatives.
//!
//! **Takes** a program, an entry point's name, a kind (`grad`, `vjp`, `jvp`, `jacobian`,
//! `hessian`) and `wrt`: None (every float parameter), a parameter's position or name, or a
//! sequence of them. **Guarantees** a `Derivative`: a callable whose entry point
//! [`gradus::Program::derive`] compiled on first use (with the GIL released) and cached in the
//! program, that takes the entry point's arguments (then the seeds, for `vjp` and `jvp`) and
//! returns one array for one position and a tuple for several; `vjp` and `jvp` return
//! `(y, derivative)`, each part grouped the same way. A request that cannot be derived is a
//! `ValueError` saying why.

use crate::program::{Loaded, PyEntryPoint, signatures};
use gradus::Derivative;
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;

/// A derivative of an entry point, compiled on first use; call it like the entry point (then
/// the seeds, for `vjp` and `jvp`).
#[pyclass(frozen, module = "gradus", name = "Derivative")]
pub(crate) struct PyDerivative {
    entry: Py<PyEntryPoint>,
    kind: Derivative,
    of: String,
    wrt: Vec<usize>,
    primal_results: usize,
}

#[pymethods]
impl PyDerivative {
    /// The kind: `"grad"`, `"vjp"`, `"jvp"`, `"jacobian"` or `"hessian"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind.name()
    }

    /// The positions of the parameters differentiated.
    #[getter]
    fn wrt(&self) -> Vec<usize> {
        self.wrt.clone()
    }

    /// The derived entry point (its results not grouped).
    #[getter]
    fn entry_point(&self, py: Python<'_>) -> Py<PyEntryPoint> {
        self.entry.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let sig = self.entry.get().signature_text();
        let _ = py;
        format!(
            "<gradus.Derivative {}({}, wrt={:?}) {sig}>",
            self.kind.name(),
            self.of,
            self.wrt
        )
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let flat = self.entry.get().call_flat(py, args, kwargs)?;
        let group = |mut vs: Vec<Py<PyAny>>| -> PyResult<Py<PyAny>> {
            if vs.len() == 1 {
                Ok(vs.pop().unwrap_or_else(|| py.None()))
            } else {
                PyTuple::new(py, vs)?.into_py_any(py)
            }
        };
        match self.kind {
            Derivative::Vjp | Derivative::Jvp => {
                let mut primal = flat;
                let derivative = primal.split_off(self.primal_results);
                PyTuple::new(py, [group(primal)?, group(derivative)?])?.into_py_any(py)
            }
            _ => group(flat),
        }
    }
}

/// The positions `wrt` names: None, a position or name, or a sequence of them.
fn positions(
    loaded: &Loaded,
    index: usize,
    wrt: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<Vec<usize>>> {
    let Some(wrt) = wrt else { return Ok(None) };
    if wrt.is_none() {
        return Ok(None);
    }
    let sig = &loaded.entries[index];
    let one = |o: &Bound<'_, PyAny>| -> PyResult<usize> {
        if let Ok(name) = o.extract::<String>() {
            return sig
                .params
                .iter()
                .position(|(n, _)| *n == name)
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "`{}` has no parameter named `{name}` {}",
                        sig.name,
                        sig.text()
                    ))
                });
        }
        let k: i64 = o.extract().map_err(|_| {
            PyTypeError::new_err(
                "wrt takes None, a parameter's position or name, or a sequence of them",
            )
        })?;
        let n = sig.params.len() as i64;
        let k = if k < 0 { k + n } else { k };
        usize::try_from(k).map_err(|_| {
            PyValueError::new_err(format!(
                "`{}` has {n} parameter(s): no position {k}",
                sig.name
            ))
        })
    };
    if wrt.extract::<String>().is_ok() || wrt.extract::<i64>().is_ok() {
        return Ok(Some(vec![one(wrt)?]));
    }
    let mut out = Vec::new();
    for item in wrt.try_iter()? {
        out.push(one(&item?)?);
    }
    Ok(Some(out))
}

/// Derives `kind` of the entry point `index` of `loaded`.
pub(crate) fn derive(
    py: Python<'_>,
    loaded: &Arc<Loaded>,
    index: usize,
    kind: Derivative,
    wrt: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyDerivative> {
    let wrt = positions(loaded, index, wrt)?;
    let entry = loaded.entries[index].name.clone();
    let program = &loaded.program;
    let derived = py
        .detach(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                program.derive(kind, &entry, wrt.as_deref())
            }))
        })
        .map_err(|p| {
            pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error: gradus panicked while deriving the {kind} of `{entry}`: {}",
                crate::program::panic_message(p.as_ref())
            ))
        })?
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let dp = Arc::clone(derived.program());
    let entries = signatures(&dp);
    let index = entries
        .iter()
        .position(|s| s.name == derived.entry())
        .ok_or_else(|| {
            PyValueError::new_err("internal error: the derived entry point is missing")
        })?;
    let sub = Arc::new(Loaded {
        program: dp,
        path: loaded.path.clone(),
        backend: loaded.backend,
        threads: loaded.threads,
        safe: loaded.safe,
        entries,
    });
    Ok(PyDerivative {
        entry: Py::new(py, PyEntryPoint::new(sub, index))?,
        kind,
        of: entry,
        wrt: derived.wrt().to_vec(),
        primal_results: derived.primal_results(),
    })
}
