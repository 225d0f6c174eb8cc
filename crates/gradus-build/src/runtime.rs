//! What the generated bindings call at run time: the call context shared with the generated C,
//! binding size parameters from argument shapes, reading results, and the messages of
//! run-time errors.
//!
//! **Takes** the tables the generator writes (error sites, parameter dimensions) and the
//! values the generated C reports. **Guarantees** the messages and locations of the `gradus`
//! command and the library's native backend (docs/language.md §Run-time errors): the formatting
//! here mirrors `gradus::backend::c::site_message` and the size checks of its calls, and a test
//! compares them on every kind of error site. Nothing here needs a compiler.
//!
//! These items are public for the generated code; they are not meant to be called by hand.

use std::ffi::c_void;
use std::fmt;

/// Number of values an error site can record (the generated C's `GR_MAX_ARGS`).
pub const MAX_ARGS: usize = 32;

/// A run-time error of a program: its message and source locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The message, e.g. `Index [5] out of bounds for array of shape [4].`
    pub message: String,
    /// Locations `PATH:LINE:COL-LINE:COL`, innermost first.
    pub locations: Vec<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error: {}", self.message)?;
        for l in &self.locations {
            write!(f, "\n  at {l}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The call context of the generated C (`struct gr_ctx`).
#[repr(C)]
#[derive(Debug)]
pub struct Ctx {
    failed: i32,
    site: i32,
    nthreads: i32,
    nargs: i32,
    args: [i64; MAX_ARGS],
    fail_iter: i64,
    lock: i32,
}

impl Ctx {
    /// A fresh context for one call on `threads` threads (0: all cores).
    pub fn new(threads: i32) -> Ctx {
        Ctx {
            failed: 0,
            site: 0,
            nthreads: threads,
            nargs: 0,
            args: [0; MAX_ARGS],
            fail_iter: 0,
            lock: 0,
        }
    }

    /// The error a failed call recorded; `fallback` locates an out-of-memory error.
    pub fn error(&self, sites: &[Site], fallback: &str) -> Error {
        let args = &self.args[..(self.nargs.max(0) as usize).min(MAX_ARGS)];
        if self.site < 0 {
            return Error {
                message: format!(
                    "cannot allocate {} bytes",
                    args.first().copied().unwrap_or(0)
                ),
                locations: vec![fallback.to_string()],
            };
        }
        match sites.get(self.site as usize) {
            Some(site) => Error {
                message: site_message(&site.kind, args),
                locations: site.locations.iter().map(|l| l.to_string()).collect(),
            },
            None => Error {
                message: format!("internal error: unknown error site {}", self.site),
                locations: vec![],
            },
        }
    }
}

/// An element type of the language, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Prim {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

impl Prim {
    /// The name in source code.
    pub fn name(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "i8",
            Prim::I16 => "i16",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::F32 => "f32",
            Prim::F64 => "f64",
        }
    }
}

/// What an error site reports (the library's `SiteKind`, in static data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SiteKind {
    /// `division by zero`.
    DivZero,
    /// An index out of bounds: per index entry whether it is a position (one value) or a
    /// slice (start, count, stride), then the array's `rank` dimensions.
    Index {
        /// Per entry: `true` for a position.
        fixes: &'static [bool],
        /// Rank of the indexed array.
        rank: usize,
    },
    /// A shape that does not match a type: `actual` dimensions, then `required` dimensions
    /// (when `text` is empty) of element type `elem`.
    Size {
        /// Number of actual dimensions recorded.
        actual: usize,
        /// Number of required dimensions recorded.
        required: usize,
        /// Element type for the printed type.
        elem: Prim,
        /// The required type as written in the source, if known.
        text: &'static str,
    },
    /// A template whose `{}` are filled with the recorded values of these types.
    Template {
        /// The template.
        template: &'static str,
        /// Types of the recorded values.
        types: &'static [Prim],
    },
    /// An invalid `iota` range: start, stride, count.
    IotaRange,
    /// `cannot allocate N bytes`.
    Alloc,
}

/// An error site: what it reports and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Site {
    /// What it reports.
    pub kind: SiteKind,
    /// `PATH:LINE:COL-LINE:COL` locations, innermost first.
    pub locations: &'static [&'static str],
}

/// The message of an error site from its recorded values.
pub fn site_message(kind: &SiteKind, args: &[i64]) -> String {
    let get = |i: usize| args.get(i).copied().unwrap_or(0);
    match kind {
        SiteKind::DivZero => "division by zero".into(),
        SiteKind::Index { fixes, rank } => {
            let mut k = 0;
            let mut parts = Vec::new();
            for &fix in fixes.iter() {
                if fix {
                    parts.push(get(k).to_string());
                    k += 1;
                } else {
                    let (start, count, stride) = (get(k), get(k + 1), get(k + 2));
                    k += 3;
                    let end = start as i128 + count as i128 * stride as i128;
                    parts.push(if stride == 1 {
                        format!("{start}:{end}")
                    } else {
                        format!("{start}:{end}:{stride}")
                    });
                }
            }
            let shape: String = (0..*rank).map(|j| format!("[{}]", get(k + j))).collect();
            format!(
                "Index [{}] out of bounds for array of shape {shape}.",
                parts.join(", ")
            )
        }
        SiteKind::Size {
            actual,
            required,
            elem,
            text,
        } => {
            let have: String = (0..*actual).map(|j| format!("[{}]", get(j))).collect();
            let want = if text.is_empty() {
                let d: String = (0..*required)
                    .map(|j| format!("[{}]", get(actual + j)))
                    .collect();
                format!("{d}{}", elem.name())
            } else {
                text.to_string()
            };
            format!("value of shape {have} cannot match shape of type \"{want}\".")
        }
        SiteKind::Template { template, types } => {
            let mut vals = types.iter().enumerate().map(|(j, t)| plain(*t, get(j)));
            let mut out = String::new();
            let mut rest = *template;
            while let Some(p) = rest.find("{}") {
                out.push_str(&rest[..p]);
                match vals.next() {
                    Some(v) => out.push_str(&v),
                    None => out.push_str("{}"),
                }
                rest = &rest[p + 2..];
            }
            out.push_str(rest);
            out
        }
        SiteKind::IotaRange => {
            let (s, st, n) = (get(0) as i128, get(1) as i128, get(2) as i128);
            format!("Range {s}..{}..<{} is invalid.", s + st, s + n * st)
        }
        SiteKind::Alloc => format!("cannot allocate {} bytes", get(0)),
    }
}

/// A recorded value of type `t` as run-time messages print it (no type suffix).
fn plain(t: Prim, bits: i64) -> String {
    let float = |x: f64| {
        if x.is_nan() {
            "nan".to_string()
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.to_string()
        } else {
            format!("{x:?}")
        }
    };
    match t {
        Prim::Bool => (bits != 0).to_string(),
        Prim::F64 => float(f64::from_bits(bits as u64)),
        Prim::F32 => {
            let x = f64::from_bits(bits as u64) as f32;
            if x.is_finite() {
                format!("{x:?}")
            } else {
                float(x as f64)
            }
        }
        Prim::U64 => (bits as u64).to_string(),
        Prim::U32 => (bits as u32).to_string(),
        Prim::U16 => (bits as u16).to_string(),
        Prim::U8 => (bits as u8).to_string(),
        Prim::I8 => (bits as i8).to_string(),
        Prim::I16 => (bits as i16).to_string(),
        Prim::I32 => (bits as i32).to_string(),
        Prim::I64 => bits.to_string(),
    }
}

/// One dimension of an array parameter's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// The entry point's size parameter with this index.
    Size(usize),
    /// A constant.
    Const(i64),
    /// The value of the scalar parameter with this index.
    Param(usize),
    /// A size the arguments do not determine, printed as given.
    Other(&'static str),
}

/// An array parameter: its dimensions and element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayParam {
    /// Index among the entry point's parameters.
    pub index: usize,
    /// The dimensions of its type.
    pub dims: &'static [Dim],
    /// Its element type.
    pub elem: Prim,
}

/// Binds the size parameters of an entry point (named `sizes`) from the shapes of its array
/// arguments (the first occurrence binds, later ones are checked), as the library's calls
/// do; `integers` holds the values of integer scalar parameters by parameter index,
/// `location` the entry point's location for the message of a mismatch, which names the
/// sizes not bound yet as the interpreter does.
pub fn bind_sizes(
    sizes: &[&str],
    params: &[ArrayParam],
    shapes: &[&[usize]],
    integers: &[Option<i64>],
    location: &str,
) -> Result<Vec<i64>, Error> {
    let mut bound: Vec<Option<i64>> = vec![None; sizes.len()];
    for (p, shape) in params.iter().zip(shapes) {
        for (&d, dim) in shape.iter().zip(p.dims) {
            let want = match *dim {
                Dim::Const(c) => Some(c),
                Dim::Size(k) => match bound[k] {
                    None => {
                        bound[k] = Some(d as i64);
                        continue;
                    }
                    Some(n) => Some(n),
                },
                Dim::Param(i) => integers.get(i).copied().flatten(),
                Dim::Other(_) => None,
            };
            if want != Some(d as i64) {
                let have: String = shape.iter().map(|d| format!("[{d}]")).collect();
                let mut text = String::new();
                for dim in p.dims {
                    let known = match *dim {
                        Dim::Const(c) => Some(c),
                        Dim::Size(k) => bound[k],
                        Dim::Param(i) => integers.get(i).copied().flatten(),
                        Dim::Other(_) => None,
                    };
                    match (known, dim) {
                        (Some(n), _) => text.push_str(&format!("[{n}]")),
                        (None, Dim::Other(t)) => text.push_str(&format!("[{t}]")),
                        (None, Dim::Size(k)) => text.push_str(&format!("[{}]", sizes[*k])),
                        (None, _) => text.push_str("[?]"),
                    }
                }
                text.push_str(p.elem.name());
                return Err(Error {
                    message: format!(
                        "value of shape {have} cannot match shape of type \"{text}\"."
                    ),
                    locations: vec![location.to_string()],
                });
            }
        }
    }
    bound
        .into_iter()
        .map(|s| {
            s.ok_or_else(|| Error {
                message: "internal error: a size parameter is not determined by the arguments"
                    .into(),
                locations: vec![location.to_string()],
            })
        })
        .collect()
}

/// Element types the generated C exchanges.
pub trait Element: Copy + 'static {
    /// The value of the C representation's bits (`bool` is one byte, 0 or 1).
    fn from_bits(bits: u64) -> Self;
    /// Copies `n` elements out of a buffer of the generated C.
    ///
    /// # Safety
    /// `p` must point to `n` initialised elements in the C representation (any pointer when
    /// `n` is 0).
    unsafe fn read(p: *const c_void, n: usize) -> Vec<Self>;
}

macro_rules! element {
    ($($t:ty => $from:expr),* $(,)?) => {$(
        impl Element for $t {
            fn from_bits(bits: u64) -> Self {
                let f: fn(u64) -> $t = $from;
                f(bits)
            }
            unsafe fn read(p: *const c_void, n: usize) -> Vec<Self> {
                if n == 0 || p.is_null() {
                    return Vec::new();
                }
                // SAFETY: guaranteed by the caller.
                unsafe { std::slice::from_raw_parts(p as *const $t, n).to_vec() }
            }
        }
    )*};
}

element! {
    i8 => |b| b as u8 as i8,
    i16 => |b| b as u16 as i16,
    i32 => |b| b as u32 as i32,
    i64 => |b| b as i64,
    u8 => |b| b as u8,
    u16 => |b| b as u16,
    u32 => |b| b as u32,
    u64 => |b| b,
    f32 => |b| f32::from_bits(b as u32),
    f64 => f64::from_bits,
}

impl Element for bool {
    fn from_bits(bits: u64) -> Self {
        bits as u8 != 0
    }
    unsafe fn read(p: *const c_void, n: usize) -> Vec<Self> {
        if n == 0 || p.is_null() {
            return Vec::new();
        }
        // SAFETY: guaranteed by the caller; read as bytes, since C may store any non-zero.
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, n) };
        bytes.iter().map(|&b| b != 0).collect()
    }
}

/// Takes an array result of the generated C: copies its elements into an owned array of
/// shape `dims`, then releases the C buffer `owner` with `release`.
///
/// # Safety
/// `data` must point to `dims.iter().product()` elements of `T` that `owner` keeps alive,
/// and `release` must be the program's release function.
pub unsafe fn take_array<T: Element, D: ndarray::Dimension>(
    data: *mut c_void,
    owner: *mut c_void,
    dims: &[i64],
    release: unsafe extern "C" fn(*mut c_void),
) -> Result<ndarray::Array<T, D>, Error> {
    let shape: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    let n: usize = shape.iter().product();
    // SAFETY: guaranteed by the caller.
    let elems = unsafe { T::read(data, n) };
    // SAFETY: `owner` is a buffer reference handed out by the generated C (or null).
    unsafe { release(owner) };
    ndarray::ArrayD::from_shape_vec(shape, elems)
        .and_then(|a| a.into_dimensionality::<D>())
        .map_err(|e| Error {
            message: format!("internal error: a result does not fill its shape: {e}"),
            locations: vec![],
        })
}

/// The thread count to give the generated C (0: all cores).
pub fn thread_count(threads: Option<usize>) -> i32 {
    threads.map_or(0, |t| t.clamp(1, 4096) as i32)
}
