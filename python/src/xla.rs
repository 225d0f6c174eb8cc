//! gradus's handler for XLA's foreign function interface: a JAX computation calls an entry
//! point with no Python in the call (`gradus.jax` lowers its calls on the CPU to it).
//!
//! **Takes** XLA's call frame, in the C ABI of `xla/ffi/api/c_api.h` (its structs are mirrored
//! here, as far as the handler reads them): the argument buffers, the result buffers XLA
//! allocated from the shapes JAX computed when tracing, and the attribute `gradus_target`, an
//! index into the table of targets that `EntryPoint._xla_target` fills (an entry point of a
//! compiled program, and how many of its leading results the caller does not want).
//!
//! **Guarantees**: the entry point runs on XLA's argument buffers where they lie (the native
//! backend's generated code reads them; the interpreter copies them, as for any borrowed
//! call); its results, after the first `skip`, are copied once from the program's buffers
//! into XLA's. A wrong call (unknown target, argument or result count, element type or shape
//! that does not match) and a run-time error of the program come back to XLA as an error with
//! the message, which JAX raises; nothing panics across the C boundary. A target is never
//! removed (a compiled XLA executable may hold its index for the life of the process), so a
//! program called through XLA stays loaded until the process ends.

use gradus::program::{CallError, Program};
use gradus::value::{ArrayView, PrimType, Scalar, ValueRef, ViewData};
use std::ffi::{CString, c_char, c_int, c_void};
use std::mem::{offset_of, size_of};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;
use std::sync::{Arc, RwLock};

/// The version of the C API whose structs are mirrored here (`XLA_FFI_API_MAJOR`/`MINOR` of
/// the header shipped with jaxlib 0.10). The fields read have not moved since version 0.1.
const API_MAJOR: c_int = 0;
const API_MINOR: c_int = 3;

/// The name of the attribute holding the target's index.
const TARGET_ATTR: &[u8] = b"gradus_target";

/// An entry point called through XLA, and how many of its leading results to drop (a derived
/// `vjp` or `jvp` returns the entry's own results first).
struct Target {
    program: Arc<Program>,
    entry: String,
    skip: usize,
}

static TARGETS: RwLock<Vec<Arc<Target>>> = RwLock::new(Vec::new());

/// The index of the target (`program`, `entry`, `skip`), registered on first use.
pub(crate) fn register(program: &Arc<Program>, entry: &str, skip: usize) -> u64 {
    let mut targets = TARGETS.write().unwrap_or_else(|e| e.into_inner());
    let known = targets
        .iter()
        .position(|t| Arc::ptr_eq(&t.program, program) && t.entry == entry && t.skip == skip);
    let index = known.unwrap_or_else(|| {
        targets.push(Arc::new(Target {
            program: Arc::clone(program),
            entry: entry.to_string(),
            skip,
        }));
        targets.len() - 1
    });
    index as u64
}

/// The address of [`handler`], for `jax.ffi.pycapsule`.
pub(crate) fn handler_address() -> usize {
    let f: unsafe extern "C" fn(*mut CallFrame) -> *mut c_void = handler;
    f as usize
}

// The C API's structs (`XLA_FFI_*`), as far as they are read or written here. C enums are
// `int`s on the platforms XLA runs on.

#[repr(C)]
struct ExtensionBase {
    struct_size: usize,
    kind: c_int,
    next: *mut ExtensionBase,
}

#[repr(C)]
struct ApiVersion {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    major: c_int,
    minor: c_int,
}

#[repr(C)]
struct Metadata {
    struct_size: usize,
    api_version: ApiVersion,
    traits: u32,
    state_type_id: i64,
}

#[repr(C)]
struct MetadataExtension {
    base: ExtensionBase,
    metadata: *mut Metadata,
}

#[repr(C)]
struct ErrorCreateArgs {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    message: *const c_char,
    errc: c_int,
}

type ErrorCreate = unsafe extern "C" fn(*mut ErrorCreateArgs) -> *mut c_void;

/// The beginning of `XLA_FFI_Api`: the function table starts with `XLA_FFI_Error_Create`.
#[repr(C)]
struct Api {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    api_version: ApiVersion,
    internal_api: *const c_void,
    error_create: Option<ErrorCreate>,
}

#[repr(C)]
struct Buffer {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    dtype: c_int,
    data: *mut c_void,
    rank: i64,
    dims: *const i64,
}

/// `XLA_FFI_Args` and `XLA_FFI_Rets`, which have the same layout.
#[repr(C)]
struct List {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    size: i64,
    types: *const c_int,
    items: *const *mut c_void,
}

#[repr(C)]
struct ByteSpan {
    ptr: *const c_char,
    len: usize,
}

#[repr(C)]
struct ScalarAttr {
    dtype: c_int,
    value: *const c_void,
}

#[repr(C)]
struct Attrs {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    size: i64,
    types: *const c_int,
    names: *const *const ByteSpan,
    attrs: *const *const c_void,
}

/// `XLA_FFI_CallFrame`.
#[repr(C)]
pub(crate) struct CallFrame {
    struct_size: usize,
    extension_start: *mut ExtensionBase,
    api: *const Api,
    ctx: *mut c_void,
    stage: c_int,
    args: List,
    rets: List,
    attrs: Attrs,
    future: *mut c_void,
}

/// `XLA_FFI_CallFrame_STRUCT_SIZE`: the frame up to its attributes.
const CALL_FRAME_SIZE: usize = offset_of!(CallFrame, attrs) + size_of::<Attrs>();
/// `XLA_FFI_Buffer_STRUCT_SIZE`.
const BUFFER_SIZE: usize = size_of::<Buffer>();
/// `XLA_FFI_Metadata_STRUCT_SIZE`: up to `traits`.
const METADATA_SIZE: usize = offset_of!(Metadata, traits) + size_of::<u32>();
const EXTENSION_METADATA: c_int = 1;
const STAGE_EXECUTE: c_int = 3;
const ARG_BUFFER: c_int = 1;
const ATTR_SCALAR: c_int = 3;
const ERROR_INVALID_ARGUMENT: c_int = 3;
const ERROR_INTERNAL: c_int = 13;

/// An `XLA_FFI_DataType` as a primitive type of the language.
fn prim(dtype: c_int) -> Option<PrimType> {
    Some(match dtype {
        1 => PrimType::Bool,
        2 => PrimType::I8,
        3 => PrimType::I16,
        4 => PrimType::I32,
        5 => PrimType::I64,
        6 => PrimType::U8,
        7 => PrimType::U16,
        8 => PrimType::U32,
        9 => PrimType::U64,
        11 => PrimType::F32,
        12 => PrimType::F64,
        _ => return None,
    })
}

/// The handler XLA calls (`XLA_FFI_Handler`): answers the metadata query, and at the execute
/// stage runs the target named by the `gradus_target` attribute.
///
/// # Safety
///
/// `frame` is a call frame XLA built for this call.
pub(crate) unsafe extern "C" fn handler(frame: *mut CallFrame) -> *mut c_void {
    // SAFETY: XLA hands a valid frame, live for the call.
    let frame = unsafe { &*frame };
    let api = frame.api;
    if frame.struct_size < CALL_FRAME_SIZE {
        let m = format!(
            "gradus: XLA's call frame has {} bytes, the handler reads {CALL_FRAME_SIZE}",
            frame.struct_size
        );
        return error(api, ERROR_INVALID_ARGUMENT, &m);
    }
    // SAFETY: the extension chain comes from XLA.
    if let Some(ext) = unsafe { frame.extension_start.as_ref() }
        && ext.kind == EXTENSION_METADATA
    {
        // SAFETY: an extension of this kind is an `XLA_FFI_Metadata_Extension`.
        return unsafe { metadata(api, frame.extension_start as *mut MetadataExtension) };
    }
    if frame.stage != STAGE_EXECUTE {
        return null_mut();
    }
    // SAFETY: the frame's lists and buffers are XLA's, live for the call.
    match catch_unwind(AssertUnwindSafe(|| unsafe { execute(frame) })) {
        Ok(Ok(())) => null_mut(),
        Ok(Err(m)) => error(api, ERROR_INVALID_ARGUMENT, &m),
        Err(p) => {
            let m = format!(
                "internal error: gradus panicked in a call from XLA: {}",
                crate::program::panic_message(p.as_ref())
            );
            error(api, ERROR_INTERNAL, &m)
        }
    }
}

/// Fills XLA's metadata query: the API version the handler was written against (no newer
/// than XLA's own), no traits, no state.
///
/// # Safety
///
/// `ext` is XLA's metadata extension and `api` its API table.
unsafe fn metadata(api: *const Api, ext: *mut MetadataExtension) -> *mut c_void {
    // SAFETY: as the caller promises.
    let (ext, api_ref) = unsafe { (&mut *ext, api.as_ref()) };
    let Some(meta) = (unsafe { ext.metadata.as_mut() }) else {
        return error(api, ERROR_INVALID_ARGUMENT, "gradus: no metadata to fill");
    };
    if meta.struct_size < METADATA_SIZE {
        return error(
            api,
            ERROR_INVALID_ARGUMENT,
            "gradus: XLA's metadata is too small",
        );
    }
    let theirs = api_ref.map_or((API_MAJOR, API_MINOR), |a| {
        (a.api_version.major, a.api_version.minor)
    });
    meta.api_version = ApiVersion {
        struct_size: size_of::<ApiVersion>(),
        extension_start: null_mut(),
        major: API_MAJOR,
        minor: if theirs.0 == API_MAJOR {
            API_MINOR.min(theirs.1)
        } else {
            API_MINOR
        },
    };
    meta.traits = 0;
    if meta.struct_size >= size_of::<Metadata>() {
        meta.state_type_id = 0;
    }
    null_mut()
}

/// An `XLA_FFI_Error` carrying `message` (XLA copies it and owns the error).
fn error(api: *const Api, code: c_int, message: &str) -> *mut c_void {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `api` is XLA's API table (or null, checked).
    let Some(create) = (unsafe { api.as_ref() }).and_then(|a| a.error_create) else {
        // No way to report it: say so where a person can read it, and fail loudly rather
        // than hand back results that were never written.
        eprintln!("gradus: XLA's FFI gave no API to report an error: {message}");
        std::process::abort();
    };
    let mut args = ErrorCreateArgs {
        // `XLA_FFI_Error_Create_Args_STRUCT_SIZE`: up to `errc`, without the padding after it.
        struct_size: offset_of!(ErrorCreateArgs, errc) + size_of::<c_int>(),
        extension_start: null_mut(),
        message: text.as_ptr(),
        errc: code,
    };
    // SAFETY: the arguments are valid for the call; XLA copies the message.
    unsafe { create(&mut args) }
}

/// The `gradus_target` attribute's value.
///
/// # Safety
///
/// `attrs` is XLA's attribute list.
unsafe fn target_index(attrs: &Attrs) -> Result<u64, String> {
    for k in 0..attrs.size.max(0) as usize {
        // SAFETY: the list has `size` entries of each.
        let (ty, name, attr) = unsafe {
            (
                *attrs.types.add(k),
                &**attrs.names.add(k),
                *attrs.attrs.add(k),
            )
        };
        // SAFETY: a byte span of XLA's.
        let name = unsafe { std::slice::from_raw_parts(name.ptr as *const u8, name.len) };
        if name != TARGET_ATTR || ty != ATTR_SCALAR {
            continue;
        }
        // SAFETY: a scalar attribute is an `XLA_FFI_Scalar`.
        let s = unsafe { &*(attr as *const ScalarAttr) };
        return match prim(s.dtype) {
            // SAFETY: the value has the attribute's type.
            Some(PrimType::U64) => Ok(unsafe { *(s.value as *const u64) }),
            Some(PrimType::I64) => u64::try_from(unsafe { *(s.value as *const i64) })
                .map_err(|_| "gradus: the attribute gradus_target is negative".into()),
            _ => Err("gradus: the attribute gradus_target is not a 64-bit integer".into()),
        };
    }
    Err("gradus: the call has no gradus_target attribute".into())
}

/// The buffers of an argument or result list.
///
/// # Safety
///
/// `list` is XLA's.
unsafe fn buffers<'a>(list: &'a List, what: &str) -> Result<Vec<&'a Buffer>, String> {
    (0..list.size.max(0) as usize)
        .map(|k| {
            // SAFETY: the list has `size` entries; each buffer entry is an `XLA_FFI_Buffer`.
            let (ty, item) = unsafe { (*list.types.add(k), *list.items.add(k)) };
            let b = unsafe { &*(item as *const Buffer) };
            if ty != ARG_BUFFER || b.struct_size < BUFFER_SIZE {
                return Err(format!("gradus: {what} {k} is not an array buffer"));
            }
            Ok(b)
        })
        .collect()
}

/// A buffer's element type and shape.
///
/// # Safety
///
/// `b` is XLA's.
unsafe fn describe(b: &Buffer, what: &str) -> Result<(PrimType, Vec<usize>), String> {
    let elem =
        prim(b.dtype).ok_or_else(|| format!("gradus: {what} has an XLA type gradus lacks"))?;
    let rank = b.rank.max(0) as usize;
    // SAFETY: `dims` has `rank` entries.
    let dims = (0..rank)
        .map(|d| unsafe { *b.dims.add(d) }.max(0) as usize)
        .collect();
    Ok((elem, dims))
}

/// An argument buffer as a borrowed value: a scalar read from it, or a view of its elements.
///
/// # Safety
///
/// `data` holds the product of `shape` elements of type `elem` and outlives the view.
unsafe fn value_ref(elem: PrimType, data: *const c_void, shape: &[usize]) -> Option<ValueRef<'_>> {
    macro_rules! read {
        ($($t:ident: $ty:ty),*) => {
            match elem { $(PrimType::$t => {
                if shape.is_empty() {
                    // SAFETY: a scalar buffer holds one element.
                    return Some(ValueRef::Scalar(Scalar::$t(unsafe { *(data as *const $ty) })));
                }
                let n: usize = shape.iter().product();
                let s: &[$ty] = if n == 0 {
                    &[]
                } else {
                    // SAFETY: as the caller promises.
                    unsafe { std::slice::from_raw_parts(data as *const $ty, n) }
                };
                ArrayView::new(shape, s).map(ValueRef::Array)
            })* }
        };
    }
    read!(Bool: bool, I8: i8, I16: i16, I32: i32, I64: i64, U8: u8, U16: u16, U32: u32,
        U64: u64, F32: f32, F64: f64)
}

/// Copies `value` into the result buffer `out`, which was checked to have its type and shape.
///
/// # Safety
///
/// `out` has room for the value's elements.
unsafe fn write(value: &ValueRef, out: *mut c_void) {
    macro_rules! copy {
        ($($t:ident: $ty:ty),*) => {
            match value {
                $(ValueRef::Scalar(Scalar::$t(x)) => unsafe { *(out as *mut $ty) = *x },)*
                ValueRef::Array(a) => match a.data() {
                    // SAFETY: as the caller promises.
                    $(ViewData::$t(s) => unsafe {
                        std::ptr::copy_nonoverlapping(s.as_ptr(), out as *mut $ty, s.len())
                    },)*
                },
            }
        };
    }
    copy!(Bool: bool, I8: i8, I16: i16, I32: i32, I64: i64, U8: u8, U16: u16, U32: u32,
        U64: u64, F32: f32, F64: f64)
}

/// Runs the call: the target's entry point on the argument buffers, its results into the
/// result buffers.
///
/// # Safety
///
/// `frame` is XLA's, at the execute stage.
unsafe fn execute(frame: &CallFrame) -> Result<(), String> {
    // SAFETY: the frame's lists are XLA's.
    let index = unsafe { target_index(&frame.attrs) }?;
    let target = TARGETS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(index as usize)
        .cloned()
        .ok_or_else(|| format!("gradus: no target {index}"))?;
    let (ins, outs) = unsafe {
        (
            buffers(&frame.args, "argument")?,
            buffers(&frame.rets, "result")?,
        )
    };
    let mut described = Vec::with_capacity(ins.len());
    for (k, b) in ins.iter().enumerate() {
        // SAFETY: XLA's buffer.
        described.push(unsafe { describe(b, &format!("argument {k}")) }?);
    }
    let args: Vec<ValueRef> = described
        .iter()
        .zip(&ins)
        .enumerate()
        .map(|(k, ((elem, shape), b))| {
            // SAFETY: each buffer holds its shape's elements and lives through the call.
            unsafe { value_ref(*elem, b.data, shape) }
                .ok_or_else(|| format!("gradus: argument {k} has too many elements"))
        })
        .collect::<Result<_, _>>()?;
    let entry = &target.entry;
    let outcome = target.program.call_with(entry, &args, |results| {
        let wanted = results.get(target.skip..).unwrap_or(&[]);
        if wanted.len() != outs.len() {
            return Err(format!(
                "gradus: `{entry}` gives {} result(s) here, XLA expects {}",
                wanted.len(),
                outs.len()
            ));
        }
        for (k, (r, b)) in wanted.iter().zip(&outs).enumerate() {
            // SAFETY: XLA's buffer.
            let (elem, shape) = unsafe { describe(b, &format!("result {k}")) }?;
            if elem != r.elem_type() || shape != r.shape() {
                let want: String = shape.iter().map(|d| format!("[{d}]")).collect();
                return Err(format!(
                    "gradus: result {k} of `{entry}` is {}, but JAX expects {want}{} (see \
                     result_shapes= of gradus.jax.function)",
                    r.type_name(),
                    elem.name()
                ));
            }
            // SAFETY: the buffer has the result's type and shape.
            unsafe { write(r, b.data) };
        }
        Ok(())
    });
    match outcome {
        Ok(done) => done,
        Err(CallError::Runtime(e)) => Err(format!("gradus: `{entry}`: {e}")),
        Err(e) => Err(format!("gradus: `{entry}`: {e}")),
    }
}
