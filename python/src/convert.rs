//! Python values to the library's borrowed values, and results back to Python.
//!
//! **Takes** the Python objects given for an entry point's parameters. **Guarantees** that a
//! numpy array of the parameter's dtype that is C-contiguous, aligned and in native byte
//! order is lent as it is (the call reads its elements where they lie), that anything else is
//! converted at most once (lists only where the conversion loses nothing), and that a value
//! that does not fit its parameter is a `TypeError` (type) or `ValueError` (rank, range) whose
//! message names the parameter. Results become Python numbers, or numpy arrays that own the
//! buffers the library filled (no further copy).

use gradus::program::ExternalType;
use gradus::value::{ArrayView, Buffer, PrimType, Scalar, Value, ValueRef};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{
    IntoPyArray, PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

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
pub(crate) enum Prepared<'py> {
    Scalar(Scalar),
    Array {
        array: Bound<'py, PyUntypedArray>,
        elem: PrimType,
        shape: Vec<usize>,
    },
}

impl Prepared<'_> {
    /// The argument as the library's borrowed value.
    pub(crate) fn value_ref(&self) -> ValueRef<'_> {
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
pub(crate) fn describe(entry: &str, name: &str, ty: &ExternalType) -> String {
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
pub(crate) fn prepare_scalar(
    what: &str,
    elem: PrimType,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Scalar> {
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
pub(crate) fn prepare_array<'py>(
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
    let array = if elem == PrimType::Bool && !bytes_are_booleans(&array) {
        // A bool array whose bytes are not all 0 or 1 (a reinterpreted integer array): such
        // bytes are not booleans to Rust or C, so the array is converted (non-zero is true).
        array
            .call_method1("view", ("u1",))?
            .call_method1("astype", ("?",))?
            .cast_into::<PyUntypedArray>()
            .map_err(|_| PyRuntimeError::new_err("internal error: numpy returned no array"))?
    } else {
        array
    };
    let shape = array.shape().to_vec();
    Ok(Prepared::Array { array, elem, shape })
}

/// Whether every byte of a C-contiguous one-byte array is 0 or 1.
fn bytes_are_booleans(array: &Bound<'_, PyUntypedArray>) -> bool {
    let len: usize = array.shape().iter().product();
    if len == 0 {
        return true;
    }
    // SAFETY: the array is C-contiguous with `len` elements of one byte, kept alive by
    // `array`; they are read as bytes, which any value is.
    let bytes = unsafe {
        std::slice::from_raw_parts((*array.as_array_ptr()).fields.data as *const u8, len)
    };
    bytes.iter().all(|&b| b <= 1)
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
pub(crate) fn to_python(py: Python<'_>, value: Value) -> PyResult<Py<PyAny>> {
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
