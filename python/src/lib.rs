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

use gradus::program::{Backend, CallError, ExternalType, Program};
use gradus::value::{ArrayView, Buffer, PrimType, Scalar, Value, ValueRef};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{
    IntoPyArray, PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::IntoPyObjectExt;
use pyo3::create_exception;
use pyo3::exceptions::{
    PyAttributeError, PyException, PyFileNotFoundError, PyKeyError, PyOSError, PyRuntimeError,
    PyRuntimeWarning, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
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

/// A compiled program and what the Python side needs to know about it.
struct Loaded {
    program: Program,
    path: String,
    backend: &'static str,
    threads: Option<usize>,
    safe: bool,
    entries: Vec<Signature>,
}

/// An entry point's signature with the names of its parameters.
struct Signature {
    name: String,
    params: Vec<(String, ExternalType)>,
    results: Vec<ExternalType>,
}

impl Signature {
    fn text(&self) -> String {
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
fn signatures(program: &Program) -> Vec<Signature> {
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

/// The numpy dtype name of an element type.
fn dtype_name(t: PrimType) -> &'static str {
    match t {
        PrimType::Bool => "bool",
        PrimType::I8 => "int8",
        PrimType::I16 => "int16",
        PrimType::I32 => "int32",
        PrimType::I64 => "int64",
        PrimType::U8 => "uint8",
        PrimType::U16 => "uint16",
        PrimType::U32 => "uint32",
        PrimType::U64 => "uint64",
        PrimType::F32 => "float32",
        PrimType::F64 => "float64",
    }
}

/// The numpy dtype of an element type.
fn dtype_of(py: Python<'_>, t: PrimType) -> Bound<'_, PyArrayDescr> {
    match t {
        PrimType::Bool => numpy::dtype::<bool>(py),
        PrimType::I8 => numpy::dtype::<i8>(py),
        PrimType::I16 => numpy::dtype::<i16>(py),
        PrimType::I32 => numpy::dtype::<i32>(py),
        PrimType::I64 => numpy::dtype::<i64>(py),
        PrimType::U8 => numpy::dtype::<u8>(py),
        PrimType::U16 => numpy::dtype::<u16>(py),
        PrimType::U32 => numpy::dtype::<u32>(py),
        PrimType::U64 => numpy::dtype::<u64>(py),
        PrimType::F32 => numpy::dtype::<f32>(py),
        PrimType::F64 => numpy::dtype::<f64>(py),
    }
}

/// An argument ready to be lent to a call: a scalar, or an array whose elements lie
/// C-contiguous, aligned and in native byte order in the array `array` keeps alive.
enum Prepared<'py> {
    Scalar(Scalar),
    Array {
        array: Bound<'py, PyUntypedArray>,
        elem: PrimType,
        shape: Vec<usize>,
    },
}

impl Prepared<'_> {
    /// The argument as the library's borrowed value.
    fn value_ref(&self) -> ValueRef<'_> {
        match self {
            Prepared::Scalar(s) => ValueRef::Scalar(*s),
            Prepared::Array { array, elem, shape } => {
                let len: usize = shape.iter().product();
                // SAFETY: `prepare` made sure the array holds `len` elements of `elem` in
                // native byte order, C-contiguous and aligned; `array` keeps them alive for
                // as long as `self` is borrowed.
                let data = unsafe { (*array.as_array_ptr()).fields.data } as *const u8;
                macro_rules! view {
                    ($t:ty) => {{
                        let slice: &[$t] = if len == 0 {
                            &[]
                        } else {
                            // SAFETY: see above.
                            unsafe { std::slice::from_raw_parts(data as *const $t, len) }
                        };
                        ArrayView::new(shape, slice)
                    }};
                }
                let view = match elem {
                    PrimType::Bool => view!(bool),
                    PrimType::I8 => view!(i8),
                    PrimType::I16 => view!(i16),
                    PrimType::I32 => view!(i32),
                    PrimType::I64 => view!(i64),
                    PrimType::U8 => view!(u8),
                    PrimType::U16 => view!(u16),
                    PrimType::U32 => view!(u32),
                    PrimType::U64 => view!(u64),
                    PrimType::F32 => view!(f32),
                    PrimType::F64 => view!(f64),
                };
                // The element count matches the shape by construction.
                ValueRef::Array(view.expect("an array's element count matches its shape"))
            }
        }
    }
}

/// Describes a parameter in error messages: ``parameter `x` ([n]f64) of `f` ``.
fn describe(entry: &str, name: &str, ty: &ExternalType) -> String {
    format!("parameter `{name}` ({ty}) of `{entry}`")
}

/// A shape as Python prints it: `(3,)`, `(2, 2)`.
fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The Python type name of `obj`.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Converts a Python number (or numpy scalar, or 0-d array) to a scalar of type `elem`.
fn prepare_scalar(what: &str, elem: PrimType, obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    let obj = if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        if arr.ndim() != 0 {
            return Err(PyValueError::new_err(format!(
                "{what} takes a scalar, but an array of shape {} was given",
                shape_text(arr.shape())
            )));
        }
        obj.call_method0("item")?
    } else {
        obj.clone()
    };
    let is_bool = obj.is_instance_of::<PyBool>() || type_name(&obj) == "bool";
    let wrong = || {
        PyTypeError::new_err(format!(
            "{what} takes {}, but a value of type {} was given",
            elem.name(),
            type_name(&obj)
        ))
    };
    if elem == PrimType::Bool {
        return if is_bool {
            Ok(Scalar::Bool(obj.extract::<bool>()?))
        } else {
            Err(wrong())
        };
    }
    if is_bool || obj.is_instance_of::<PyString>() {
        return Err(wrong());
    }
    if elem.is_float() {
        let x: f64 = obj.extract().map_err(|_| wrong())?;
        return Ok(if elem == PrimType::F32 {
            Scalar::F32(x as f32)
        } else {
            Scalar::F64(x)
        });
    }
    // Integers: anything with `__index__` (Python and numpy integers), never a float.
    if obj.is_instance_of::<PyFloat>() || !obj.hasattr("__index__")? {
        return Err(wrong());
    }
    let out_of_range = || {
        PyValueError::new_err(format!(
            "{what}: the value {obj} does not fit in {}",
            elem.name()
        ))
    };
    let v: i128 = obj.extract().map_err(|_| out_of_range())?;
    let fits = |lo: i128, hi: i128| (lo..=hi).contains(&v);
    let ok = match elem {
        PrimType::I8 => fits(i8::MIN.into(), i8::MAX.into()),
        PrimType::I16 => fits(i16::MIN.into(), i16::MAX.into()),
        PrimType::I32 => fits(i32::MIN.into(), i32::MAX.into()),
        PrimType::I64 => fits(i64::MIN.into(), i64::MAX.into()),
        PrimType::U8 => fits(0, u8::MAX.into()),
        PrimType::U16 => fits(0, u16::MAX.into()),
        PrimType::U32 => fits(0, u32::MAX.into()),
        PrimType::U64 => fits(0, u64::MAX.into()),
        _ => false,
    };
    if !ok {
        return Err(out_of_range());
    }
    Ok(Scalar::from_i128(elem, v))
}

/// Converts an argument for an array parameter: a numpy array of the parameter's dtype, or a
/// list (or other sequence) whose elements convert to it without loss.
fn prepare_array<'py>(
    numpy: &Bound<'py, PyModule>,
    what: &str,
    elem: PrimType,
    rank: usize,
    obj: &Bound<'py, PyAny>,
) -> PyResult<Prepared<'py>> {
    let py = obj.py();
    let target = dtype_of(py, elem);
    let given_array = obj.cast::<PyUntypedArray>().ok().cloned();
    let from_sequence = given_array.is_none();
    let array = match given_array {
        Some(a) => a,
        None => {
            if obj.is_instance_of::<PyInt>()
                || obj.is_instance_of::<PyFloat>()
                || obj.is_instance_of::<PyBool>()
            {
                return Err(PyValueError::new_err(format!(
                    "{what} takes an array of rank {rank}, but a scalar was given"
                )));
            }
            let converted = numpy.call_method1("asarray", (obj,)).map_err(|e| {
                PyValueError::new_err(format!(
                    "{what}: the {} given does not convert to a regular array: {}",
                    type_name(obj),
                    e.value(py)
                ))
            })?;
            converted.cast_into::<PyUntypedArray>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what}: the {} given does not convert to a numpy array",
                    type_name(obj)
                ))
            })?
        }
    };
    if array.ndim() != rank {
        return Err(PyValueError::new_err(format!(
            "{what} takes an array of rank {rank}, but an array of shape {} (rank {}) was given",
            shape_text(array.shape()),
            array.ndim()
        )));
    }
    let dtype = array.dtype();
    let same_type = dtype.kind() == target.kind() && dtype.itemsize() == target.itemsize();
    let acceptable =
        same_type || (from_sequence && (array.is_empty() || lossless(&array, elem, &target)?));
    if !acceptable {
        return Err(PyTypeError::new_err(format!(
            "{what} takes an array of dtype {}, but an array of dtype {} was given",
            dtype_name(elem),
            dtype.str().map(|s| s.to_string()).unwrap_or_default()
        )));
    }
    let ready = dtype.is_equiv_to(&target) && array.is_c_contiguous() && array.is_aligned();
    let array = if ready {
        array
    } else {
        // One copy, into a fresh C-contiguous array of the parameter's dtype.
        let kwargs = PyDict::new(py);
        kwargs.set_item("dtype", &target)?;
        numpy
            .call_method("ascontiguousarray", (&array,), Some(&kwargs))?
            .cast_into::<PyUntypedArray>()
            .map_err(|_| PyRuntimeError::new_err("internal error: numpy returned no array"))?
    };
    let shape = array.shape().to_vec();
    Ok(Prepared::Array { array, elem, shape })
}

/// Whether the elements of `array` (converted from a list) take the dtype `target` without
/// loss: floats from integers or floats, integers from integers whose values fit, booleans
/// only from booleans.
fn lossless(
    array: &Bound<'_, PyUntypedArray>,
    elem: PrimType,
    target: &Bound<'_, PyArrayDescr>,
) -> PyResult<bool> {
    let kind = array.dtype().kind();
    Ok(match elem {
        PrimType::Bool => kind == b'b',
        PrimType::F32 | PrimType::F64 => matches!(kind, b'i' | b'u' | b'f'),
        _ if matches!(kind, b'i' | b'u') => {
            // Integers fit when converting there and back gives the same values.
            let there = array.call_method1("astype", (target,))?;
            let back = there.call_method1("astype", (array.dtype(),))?;
            back.call_method1("__eq__", (array,))?
                .call_method0("all")?
                .is_truthy()?
        }
        _ => false,
    })
}

/// Converts a result to Python: a number, or a numpy array owning the result's buffer.
fn to_python(py: Python<'_>, value: Value) -> PyResult<Py<PyAny>> {
    match value {
        Value::Scalar(s) => match s {
            Scalar::Bool(b) => b.into_py_any(py),
            Scalar::I8(v) => v.into_py_any(py),
            Scalar::I16(v) => v.into_py_any(py),
            Scalar::I32(v) => v.into_py_any(py),
            Scalar::I64(v) => v.into_py_any(py),
            Scalar::U8(v) => v.into_py_any(py),
            Scalar::U16(v) => v.into_py_any(py),
            Scalar::U32(v) => v.into_py_any(py),
            Scalar::U64(v) => v.into_py_any(py),
            Scalar::F32(v) => (v as f64).into_py_any(py),
            Scalar::F64(v) => v.into_py_any(py),
        },
        Value::Array(a) => {
            let shape = IxDyn(a.shape());
            let bad = |e: numpy::ndarray::ShapeError| {
                PyRuntimeError::new_err(format!("internal error: a result's shape: {e}"))
            };
            macro_rules! numpy_array {
                ($v:expr) => {
                    ArrayD::from_shape_vec(shape, $v)
                        .map_err(bad)?
                        .into_pyarray(py)
                        .into_any()
                        .unbind()
                };
            }
            Ok(match a.into_buffer() {
                Buffer::Bool(v) => numpy_array!(v),
                Buffer::I8(v) => numpy_array!(v),
                Buffer::I16(v) => numpy_array!(v),
                Buffer::I32(v) => numpy_array!(v),
                Buffer::I64(v) => numpy_array!(v),
                Buffer::U8(v) => numpy_array!(v),
                Buffer::U16(v) => numpy_array!(v),
                Buffer::U32(v) => numpy_array!(v),
                Buffer::U64(v) => numpy_array!(v),
                Buffer::F32(v) => numpy_array!(v),
                Buffer::F64(v) => numpy_array!(v),
            })
        }
    }
}

/// The message of a panic payload.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
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
struct PyProgram {
    loaded: Arc<Loaded>,
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
struct PyEntryPoint {
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

    fn __repr__(&self) -> String {
        let s = self.signature_ref();
        format!("<gradus.EntryPoint {}{}>", s.name, s.text())
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
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
        let program = &self.loaded.program;
        let entry = sig.name.as_str();
        let outcome = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| program.call_ref(entry, &refs)))
                .map_err(|p| panic_message(p.as_ref()))
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
        match out.len() {
            0 => Ok(py.None()),
            1 => Ok(out.pop().unwrap_or_else(|| py.None())),
            _ => PyTuple::new(py, out)?.into_py_any(py),
        }
    }
}

impl PyEntryPoint {
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
        Some("multicore" | "native") => Ok((native(true), "multicore")),
        Some(other) => Err(PyValueError::new_err(format!(
            "unknown backend `{other}` (expected \"interp\", \"c\" or \"multicore\")"
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
            program.with_backend(chosen).map_err(|m| (m, None))
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
            program,
            path,
            backend: backend_name,
            threads,
            safe,
            entries,
        }),
    })
}

/// compile(path, *, backend=None, threads=None, safe=True)
/// --
///
/// Compiles the program in the file `path`.
///
/// `backend` is `"multicore"` (generated C on several threads), `"c"` (generated C on one
/// thread) or `"interp"` (the reference interpreter); the default is `"multicore"` when a C
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

/// compile_source(source, name="<string>", *, backend=None, threads=None, safe=True)
/// --
///
/// Compiles a program given as text; `name` names it in messages and is the base of its
/// relative imports. The options are those of `compile`.
#[pyfunction]
#[pyo3(signature = (source, name = "<string>".to_string(), *, backend = None, threads = None, safe = true))]
fn compile_source(
    py: Python<'_>,
    source: String,
    name: String,
    backend: Option<&str>,
    threads: Option<usize>,
    safe: bool,
) -> PyResult<PyProgram> {
    compile_program(py, name, source, backend, threads, safe)
}

/// The directory where compiled programs are cached (`$GRADUS_CACHE_DIR`, by default `gradus`
/// in the user's cache directory).
#[pyfunction]
fn cache_dir() -> String {
    gradus::backend::c::build::cache_dir().display().to_string()
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
    m.add_class::<PyProgram>()?;
    m.add_class::<PyEntryPoint>()?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("ProgramError", py.get_type::<ProgramError>())?;
    Ok(())
}
