//! Sparse Jacobians and Hessians from Python: `prog.sparse_jacobian("f", wrt=...)` and
//! `prog.sparse_hessian("f", wrt=...)`.
//!
//! **Takes** a program, an entry point's name and `wrt` (None: the only float parameter; or a
//! position or name). **Guarantees** a `SparseDerivative`: a callable made by
//! [`gradus::Program::sparse`] (with the GIL released) that takes the entry point's arguments
//! and returns the matrix as a `scipy.sparse.csr_matrix` when scipy can be imported, else as
//! the arrays `(values, columns, offsets)` of its compressed sparse rows. The pattern is found
//! on the first call and kept for later calls with the same arguments other than the point
//! (docs/sparse.md). A request that cannot be derived is a `ValueError` saying why.

use crate::program::{Loaded, PyEntryPoint};
use gradus::sparse::{SparseDerived, SparseKind};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;

/// A sparse Jacobian or Hessian of an entry point; call it like the entry point.
#[pyclass(frozen, module = "gradus", name = "SparseDerivative")]
pub(crate) struct PySparse {
    entry: Py<PyEntryPoint>,
    sparse: Arc<SparseDerived>,
}

#[pymethods]
impl PySparse {
    /// The kind: `"sparse_jacobian"` or `"sparse_hessian"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.sparse.kind().name()
    }

    /// The position of the parameter differentiated.
    #[getter]
    fn wrt(&self) -> usize {
        self.sparse.point()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gradus.SparseDerivative {}({}, wrt={}) {}>",
            self.kind(),
            self.sparse.entry_point().name,
            self.wrt(),
            self.entry.get().signature_text()
        )
    }

    /// The matrix at the arguments: a `scipy.sparse.csr_matrix`, or `(values, columns,
    /// offsets)` where scipy is not installed.
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let sparse = &self.sparse;
        let point = sparse.point();
        let ncols = std::sync::atomic::AtomicUsize::new(0);
        let parts = self.entry.get().call_with(py, args, kwargs, |refs| {
            let n = refs.get(point).map_or(0, |r| r.shape().iter().product());
            ncols.store(n, std::sync::atomic::Ordering::Relaxed);
            sparse.call_ref(refs)
        })?;
        let tuple = PyTuple::new(py, &parts)?;
        let rows = parts.get(2).map_or(Ok(0), |o| o.bind(py).len())?;
        match py.import("scipy.sparse") {
            Ok(scipy) => {
                let shape = (rows.saturating_sub(1), ncols.into_inner());
                scipy
                    .call_method1("csr_matrix", (tuple, shape))?
                    .into_py_any(py)
            }
            Err(_) => tuple.into_py_any(py),
        }
    }

    /// What the first call at these arguments found: a dict with `nnz`, `colours`,
    /// `products` (`"columns"`, `"rows"` or `"star"`), `lower_bound` (the longest row) and the
    /// seconds taken by the trace and the colouring.
    #[pyo3(signature = (*args, **kwargs))]
    fn plan<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let sparse = &self.sparse;
        let found = std::sync::Mutex::new(None);
        self.entry.get().call_with(py, args, kwargs, |refs| {
            let plan = sparse.plan_ref(refs)?;
            *found.lock().unwrap_or_else(|p| p.into_inner()) = Some(plan);
            Ok(vec![])
        })?;
        let Some(plan) = found.into_inner().unwrap_or_else(|p| p.into_inner()) else {
            return Err(PyValueError::new_err("internal error: no plan"));
        };
        let d = PyDict::new(py);
        d.set_item("nnz", plan.pattern.nnz())?;
        d.set_item("colours", plan.colouring.count)?;
        d.set_item("products", format!("{:?}", plan.products).to_lowercase())?;
        d.set_item("lower_bound", plan.pattern.max_row_len())?;
        d.set_item("trace_seconds", plan.trace_seconds)?;
        d.set_item("colour_seconds", plan.colour_seconds)?;
        d.into_py_any(py)
    }
}

/// The sparse derivative `kind` of the entry point `index` of `loaded`.
pub(crate) fn derive(
    py: Python<'_>,
    loaded: &Arc<Loaded>,
    index: usize,
    kind: SparseKind,
    wrt: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySparse> {
    let sig = &loaded.entries[index];
    let wrt = match wrt {
        None => None,
        Some(w) => Some(match w.extract::<usize>() {
            Ok(k) => k,
            Err(_) => {
                let name: String = w.extract()?;
                sig.params
                    .iter()
                    .position(|(n, _)| *n == name)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "`{}` has no parameter named `{name}`",
                            sig.name
                        ))
                    })?
            }
        }),
    };
    let entry = sig.name.clone();
    let program = &loaded.program;
    let sparse = py
        .detach(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                program.sparse(kind, &entry, wrt)
            }))
        })
        .map_err(|p| {
            pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error: gradus panicked while deriving the {} of `{entry}`: {}",
                kind.name(),
                crate::program::panic_message(p.as_ref())
            ))
        })?
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PySparse {
        entry: Py::new(py, PyEntryPoint::new(Arc::clone(loaded), index))?,
        sparse: Arc::new(sparse),
    })
}
