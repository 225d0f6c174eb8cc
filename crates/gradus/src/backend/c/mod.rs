//! The native backend: lowered programs printed as C, compiled into a shared library, loaded
//! and called.
//!
//! # Contract
//!
//! **Takes** a core [`Prog`] after the pre-lowering passes
//! (`crate::pipeline::prepare_for_lowering`) and its [`SourceMap`]; [`Native::compile`] lowers
//! it ([`crate::backend::lower`]), prints C ([`print`](crate::backend::c::print)), compiles and loads it ([`build`], through
//! the `libloading` crate). [`Native::call`] takes argument values that fit the entry point's
//! parameters in element type and rank (the caller checks that); [`Native::call_ref`] takes
//! them borrowed ([`ValueRef`]) and hands the generated code the arrays' elements where they
//! lie.
//!
//! **Guarantees** the interpreter's results (up to the reassociation of parallel `reduce` and
//! `scan`, docs/language.md §Evaluation order, and, unless exact floats are asked for, the C
//! compiler's
//! reassociation of float sums and products: see [`build`]) and, with checks on, its
//! run-time errors: the same messages and locations. Size parameters are bound from the argument shapes here, as the interpreter does.
//!
//! # Multicore: OpenMP
//!
//! Parallel loops are OpenMP `parallel for` loops, compiled with `-fopenmp`. Why OpenMP rather
//! than a thread pool provided from Rust: the loop bodies stay ordinary C in the function that
//! owns their variables, so the compiler optimises them like any loop (no closure per
//! iteration, no marshalling of free variables into a callback, no indirect call per chunk);
//! gcc ships libgomp and clang libomp, whose thread pools persist between calls; and the thread
//! count is one clause (`num_threads`) fed from `--threads`. Errors inside a parallel loop are
//! recorded in the call's context and reported after the loop, since nothing may jump out of
//! an OpenMP region; the context keeps the error of the lowest failing iteration, so the
//! error reported does not depend on which thread failed first.
//!
//! On a run-time error the buffers the failed call had allocated are not freed (the call is
//! abandoned where it failed); the results of successful calls are always released.

pub mod build;
pub mod gpu;
pub mod prims;
pub mod print;
pub mod runtime;

use crate::backend::lower::{self, imp};
use crate::core::ir::{FunDef, Prog, SubExp, Type};
use crate::diag::RuntimeError;
use crate::diag::SourceMap;
use crate::value::{ArrayView, PrimType, Scalar, Value, ValueRef};
use std::ffi::c_void;

/// A call's per-argument and per-result buffers: on the stack up to eight entries.
type Small<T> = smallvec::SmallVec<[T; 8]>;

/// Options of the native backend.
///
/// The default is what the `gradus` command uses when a C compiler is found: multicore on
/// all cores (OpenMP's default thread count), with run-time checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NativeOptions {
    /// Run the outermost SOACs on several threads (OpenMP).
    pub multicore: bool,
    /// Number of threads (`None`: OpenMP's default, all cores).
    pub threads: Option<usize>,
    /// Keep the run-time checks (bounds, sizes, division by zero, assertions).
    pub safe: bool,
    /// Run the outermost parallel loops as kernels on an OpenCL device (the `gpu` backend,
    /// see [`gpu::host`]); `multicore` and `threads` are then ignored.
    pub gpu: bool,
}

impl Default for NativeOptions {
    fn default() -> Self {
        NativeOptions {
            multicore: true,
            threads: None,
            safe: true,
            gpu: false,
        }
    }
}

impl NativeOptions {
    /// One thread, without OpenMP (the `c` backend of the command).
    pub fn sequential() -> NativeOptions {
        NativeOptions {
            multicore: false,
            ..NativeOptions::default()
        }
    }

    /// The `gpu` backend: kernels on an OpenCL device, the rest on the calling thread.
    pub fn gpu() -> NativeOptions {
        NativeOptions {
            multicore: false,
            gpu: true,
            ..NativeOptions::default()
        }
    }
}

/// The call context shared with the generated code (`struct gr_ctx`).
#[repr(C)]
struct Ctx {
    failed: i32,
    site: i32,
    nthreads: i32,
    nargs: i32,
    args: [i64; print::MAX_ARGS],
    fail_iter: i64,
    lock: i32,
}

type EntryFn =
    unsafe extern "C" fn(*mut Ctx, *const *const c_void, *mut *mut c_void, *mut i64) -> i32;
type ReleaseFn = unsafe extern "C" fn(*mut c_void);
type CopiedFn = unsafe extern "C" fn() -> i64;

struct Entry {
    name: String,
    fun: usize,
    func: EntryFn,
    /// Per result: element type and rank.
    results: Vec<(PrimType, usize)>,
}

/// A compiled program, loaded.
pub struct Native {
    /// Never unloaded: unloading the last library that uses the OpenMP runtime would unload
    /// the runtime under its idle worker threads.
    _lib: std::mem::ManuallyDrop<libloading::Library>,
    release: ReleaseFn,
    copied: CopiedFn,
    entries: Vec<Entry>,
    sites: Vec<imp::Site>,
    options: NativeOptions,
}

/// The generated C of a program (for `gradus dev --stage c` and `gradus c`).
pub fn generate(prog: &Prog, sources: &SourceMap, opts: NativeOptions) -> Result<String, String> {
    let low = lower_prog(prog, sources, opts)?;
    Ok(print::print_program_for(&low, opts.gpu))
}

/// The lowered program.
pub fn lower_prog(
    prog: &Prog,
    sources: &SourceMap,
    opts: NativeOptions,
) -> Result<imp::Program, String> {
    lower::lower(
        prog,
        sources,
        lower::Options {
            parallel: opts.multicore || opts.gpu,
            safe: opts.safe,
            reorder_floats: !build::exact_floats_from_env(),
            chunks: if opts.gpu {
                lower::GPU_CHUNKS
            } else {
                lower::CHUNKS
            },
            combine: if opts.gpu {
                lower::Combine::TwoLevel
            } else {
                lower::Combine::InOrder
            },
        },
    )
}

impl Native {
    /// Lowers, prints, compiles (or finds in the cache) and loads `prog`.
    pub fn compile(
        prog: &Prog,
        sources: &SourceMap,
        opts: NativeOptions,
    ) -> Result<Native, String> {
        let low = lower_prog(prog, sources, opts)?;
        let code = print::print_program_for(&low, opts.gpu);
        let tc = build::Toolchain::from_env()?;
        let path = build::build(&code, &tc, opts.multicore && !opts.gpu)?;
        // SAFETY: the library is one we generated; loading runs no initialisers of ours.
        let lib = unsafe { libloading::Library::new(&path) }
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        // SAFETY: the symbol has this signature in the generated code.
        let release: ReleaseFn = unsafe {
            *lib.get::<ReleaseFn>(b"gradus_release\0")
                .map_err(|e| format!("internal error: {e}"))?
        };
        // SAFETY: the symbol has this signature in the generated code.
        let copied: CopiedFn = unsafe {
            *lib.get::<CopiedFn>(b"gradus_copied_bytes\0")
                .map_err(|e| format!("internal error: {e}"))?
        };
        let mut entries = Vec::new();
        for f in &low.functions {
            let Some((fi, fd)) = prog
                .funs
                .iter()
                .enumerate()
                .find(|(_, d)| d.entry.as_ref().is_some_and(|e| e.name == f.entry))
            else {
                continue;
            };
            let sym = format!("{}\0", f.c_name);
            // SAFETY: every entry function has the `EntryFn` signature.
            let func: EntryFn = unsafe {
                *lib.get::<EntryFn>(sym.as_bytes())
                    .map_err(|e| format!("internal error: {e}"))?
            };
            let results = fd
                .body
                .result
                .iter()
                .map(|r| match r {
                    SubExp::Const(c) => (c.prim_type(), 0),
                    SubExp::Var(v) => {
                        let t = prog.names.ty(*v);
                        (t.elem(), t.rank())
                    }
                })
                .collect();
            entries.push(Entry {
                name: f.entry.clone(),
                fun: fi,
                func,
                results,
            });
        }
        Ok(Native {
            _lib: std::mem::ManuallyDrop::new(lib),
            release,
            copied,
            entries,
            sites: low.sites,
            options: opts,
        })
    }

    /// What the `gpu` backend's run time last reported (why it has no device, what failed).
    fn gpu_message(&self) -> String {
        type MessageFn = unsafe extern "C" fn() -> *const std::ffi::c_char;
        // SAFETY: the symbol has this signature in code generated for the gpu backend.
        let Ok(f) = (unsafe { self._lib.get::<MessageFn>(b"gradus_gpu_message\0") }) else {
            return "internal error: the library has no gpu run time".into();
        };
        // SAFETY: the function returns a NUL-terminated buffer of the library's.
        unsafe { std::ffi::CStr::from_ptr(f()) }
            .to_string_lossy()
            .into_owned()
    }

    /// Calls entry point `entry` of `prog` (the program this was compiled from).
    pub fn call(
        &self,
        prog: &Prog,
        sources: &SourceMap,
        entry: &str,
        args: Vec<Value>,
    ) -> Result<Vec<Value>, RuntimeError> {
        let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
        self.call_ref(prog, sources, entry, &refs)
    }

    /// Bytes copied so far by calls into this library (by every [`Native`] that loaded the
    /// same code) to make an array's buffer its own before updating it in place: zero when
    /// every update happened in place.
    pub fn copied_bytes(&self) -> u64 {
        // SAFETY: the function only reads a counter.
        unsafe { (self.copied)() }.max(0) as u64
    }

    /// Calls entry point `entry` of `prog` with borrowed arguments: the generated code reads
    /// the arrays' elements where they lie. The results are the only copies made (out of the
    /// buffers the generated code allocated).
    pub fn call_ref(
        &self,
        prog: &Prog,
        sources: &SourceMap,
        entry: &str,
        args: &[ValueRef],
    ) -> Result<Vec<Value>, RuntimeError> {
        self.call_with(prog, sources, entry, args, |results| {
            results.iter().map(ValueRef::to_value).collect()
        })
    }

    /// Calls entry point `entry` of `prog` with borrowed arguments and hands its results to
    /// `with_results` where the generated code left them, without copying; the buffers are
    /// released when it returns.
    pub fn call_with<T>(
        &self,
        prog: &Prog,
        sources: &SourceMap,
        entry: &str,
        args: &[ValueRef],
        with_results: impl FnOnce(&[ValueRef]) -> T,
    ) -> Result<T, RuntimeError> {
        let internal = |m: String| RuntimeError {
            message: format!("internal error: {m}"),
            locations: vec![],
        };
        let e = self
            .entries
            .iter()
            .find(|e| e.name == entry)
            .ok_or_else(|| internal(format!("no entry point {entry} in the library")))?;
        let f = &prog.funs[e.fun];
        let here = |message: String| RuntimeError {
            message,
            locations: vec![sources.location(f.span)],
        };
        // The buffers of a call live on the stack up to a few parameters and results (heap
        // allocations were most of the cost of calling a small entry point).
        let sizes = bind_sizes(prog, f, args).map_err(here)?;
        // Inputs: sizes, then scalars by address and arrays by data pointer.
        let mut scalars: Small<u64> = sizes.iter().map(|s| *s as u64).collect();
        scalars.extend(args.iter().filter_map(|a| match a {
            ValueRef::Scalar(s) => Some(scalar_bits(*s)),
            ValueRef::Array(_) => None,
        }));
        let mut next_scalar = scalars.iter();
        let mut ins: Small<*const c_void> = Small::with_capacity(scalars.len() + args.len());
        for _ in &sizes {
            ins.push(next_scalar.next().expect("one per size") as *const u64 as *const c_void);
        }
        for a in args {
            ins.push(match a {
                ValueRef::Scalar(_) => {
                    next_scalar.next().expect("one per scalar") as *const u64 as *const c_void
                }
                ValueRef::Array(arr) => arr.as_ptr(),
            });
        }
        let nres = e.results.len();
        let mut slots: Small<u64> = smallvec::smallvec![0; nres];
        let mut outs: Small<*mut c_void> = smallvec::smallvec![std::ptr::null_mut(); 2 * nres];
        for (k, (_, rank)) in e.results.iter().enumerate() {
            if *rank == 0 {
                outs[2 * k] = &mut slots[k] as *mut u64 as *mut c_void;
            }
        }
        let total_rank: usize = e.results.iter().map(|r| r.1).sum();
        let mut shapes: Small<i64> = smallvec::smallvec![0; total_rank.max(1)];
        let mut ctx = Ctx {
            failed: 0,
            site: 0,
            nthreads: self.options.threads.map_or(0, |t| t.min(4096) as i32),
            nargs: 0,
            args: [0; print::MAX_ARGS],
            fail_iter: 0,
            lock: 0,
        };
        // SAFETY: the pointers follow the calling convention of `print`: `ins` holds one
        // valid pointer per input (the scalar storage and the argument buffers outlive the
        // call), `outs` has two slots per result with storage for scalar results, `shapes`
        // has room for every dimension of the array results.
        let rc = unsafe {
            (e.func)(
                &mut ctx,
                ins.as_ptr(),
                outs.as_mut_ptr(),
                shapes.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err(self.error(&ctx, sources, f));
        }
        // The results' buffers go back to the generated code's allocator however this
        // function is left (also when `with_results` panics).
        struct Release<'n> {
            native: &'n Native,
            refs: Small<*mut c_void>,
        }
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                for r in &self.refs {
                    // SAFETY: each is a buffer reference handed to us by the call (or null).
                    unsafe { (self.native.release)(*r) };
                }
            }
        }
        let _release = Release {
            native: self,
            refs: (0..nres)
                .filter(|k| e.results[*k].1 > 0)
                .map(|k| outs[2 * k + 1])
                .collect(),
        };
        // Every array result's dimensions, one result after another.
        let dims: Small<usize> = shapes.iter().map(|&d| d.max(0) as usize).collect();
        let mut dims_left = &dims[..];
        // Booleans are bytes in C: read into owned vectors rather than reinterpreted.
        let mut bools: Vec<Vec<bool>> = Vec::new();
        for (k, (elem, rank)) in e.results.iter().enumerate() {
            let (own, rest) = dims_left.split_at(*rank);
            dims_left = rest;
            if *elem == PrimType::Bool && *rank > 0 {
                // SAFETY: the generated code returned a buffer of this many booleans.
                bools.push(unsafe { read_bools(outs[2 * k], own.iter().product()) });
            }
        }
        let mut bools = bools.iter();
        let mut dims_left = &dims[..];
        let mut results: Small<ValueRef> = Small::with_capacity(nres);
        for (k, (elem, rank)) in e.results.iter().enumerate() {
            if *rank == 0 {
                results.push(ValueRef::Scalar(scalar_from_bits(*elem, slots[k])));
                continue;
            }
            let (own, rest) = dims_left.split_at(*rank);
            dims_left = rest;
            let view = if *elem == PrimType::Bool {
                bools.next().and_then(|v| ArrayView::new(own, v.as_slice()))
            } else {
                // SAFETY: the generated code returned a buffer of as many elements of `elem`
                // as the shape holds, which stays alive until `_release` drops.
                unsafe { view_buffer(*elem, outs[2 * k], own.iter().product(), own) }
            };
            results.push(ValueRef::Array(view.ok_or_else(|| {
                internal("a result does not fill its shape".into())
            })?));
        }
        Ok(with_results(&results))
    }

    fn error(&self, ctx: &Ctx, sources: &SourceMap, f: &FunDef) -> RuntimeError {
        let args = &ctx.args[..(ctx.nargs.max(0) as usize).min(print::MAX_ARGS)];
        if ctx.site == -2 {
            return RuntimeError {
                message: format!("gpu backend: {}", self.gpu_message()),
                locations: vec![sources.location(f.span)],
            };
        }
        if ctx.site < 0 {
            return RuntimeError {
                message: format!(
                    "cannot allocate {} bytes",
                    args.first().copied().unwrap_or(0)
                ),
                locations: vec![sources.location(f.span)],
            };
        }
        let Some(site) = self.sites.get(ctx.site as usize) else {
            return RuntimeError {
                message: format!("internal error: unknown error site {}", ctx.site),
                locations: vec![],
            };
        };
        RuntimeError {
            message: site_message(&site.kind, args),
            locations: site.locations.clone(),
        }
    }
}

/// The message of an error site from its recorded values (docs/language.md §Run-time errors, as the
/// interpreter words it).
pub fn site_message(kind: &imp::SiteKind, args: &[i64]) -> String {
    use imp::SiteKind as K;
    let get = |i: usize| args.get(i).copied().unwrap_or(0);
    match kind {
        K::DivZero => "division by zero".into(),
        K::Index { fixes, rank } => {
            let mut k = 0;
            let mut parts = Vec::new();
            for &fix in fixes {
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
        K::Size {
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
                text.clone()
            };
            format!("value of shape {have} cannot match shape of type \"{want}\".")
        }
        K::Template { template, types } => {
            let vals: Vec<String> = types
                .iter()
                .enumerate()
                .map(|(j, t)| plain(*t, get(j)))
                .collect();
            let mut out = String::new();
            let mut vals = vals.iter();
            let mut rest = template.as_str();
            while let Some(p) = rest.find("{}") {
                out.push_str(&rest[..p]);
                match vals.next() {
                    Some(v) => out.push_str(v),
                    None => out.push_str("{}"),
                }
                rest = &rest[p + 2..];
            }
            out.push_str(rest);
            out
        }
        K::IotaRange => {
            let (s, st, n) = (get(0) as i128, get(1) as i128, get(2) as i128);
            format!("Range {s}..{}..<{} is invalid.", s + st, s + n * st)
        }
        K::Alloc => format!("cannot allocate {} bytes", get(0)),
    }
}

/// A recorded value of type `t` printed as in run-time error messages (no type suffix).
fn plain(t: PrimType, bits: i64) -> String {
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
        PrimType::Bool => (bits != 0).to_string(),
        PrimType::F64 => float(f64::from_bits(bits as u64)),
        PrimType::F32 => {
            let x = f64::from_bits(bits as u64) as f32;
            if x.is_finite() {
                format!("{x:?}")
            } else {
                float(x as f64)
            }
        }
        PrimType::U64 => (bits as u64).to_string(),
        PrimType::U32 => (bits as u32).to_string(),
        PrimType::U16 => (bits as u16).to_string(),
        PrimType::U8 => (bits as u8).to_string(),
        PrimType::I8 => (bits as i8).to_string(),
        PrimType::I16 => (bits as i16).to_string(),
        PrimType::I32 => (bits as i32).to_string(),
        PrimType::I64 => bits.to_string(),
    }
}

/// The values of the size parameters of entry point `entry` of `prog` for the arguments
/// `args` (which must fit its parameters in element type and rank), in the order in which the
/// generated C takes them, before the parameters: what a caller of the C library passes. The
/// message of a shape mismatch otherwise.
pub fn size_arguments(prog: &Prog, entry: &str, args: &[ValueRef]) -> Result<Vec<i64>, String> {
    let f = prog
        .entry(entry)
        .ok_or_else(|| format!("no entry point named \"{entry}\""))?;
    bind_sizes(prog, f, args).map(|s| s.to_vec())
}

/// Binds the size parameters of `f` from the shapes of `args` (first occurrence binds, later
/// ones are checked), as the interpreter does; the message of a mismatch.
fn bind_sizes(prog: &Prog, f: &FunDef, args: &[ValueRef]) -> Result<Small<i64>, String> {
    let mut sizes: Small<Option<i64>> = smallvec::smallvec![None; f.size_params.len()];
    let scalar_of = |v: crate::core::ir::Var| -> Option<i64> {
        let k = f.params.iter().position(|p| *p == v)?;
        match args.get(k)? {
            ValueRef::Scalar(s) => s.as_i64(),
            ValueRef::Array(_) => None,
        }
    };
    for (p, a) in f.params.iter().zip(args) {
        let ValueRef::Array(arr) = a else { continue };
        let ty = prog.names.ty(*p);
        let shape = arr.shape();
        for (d, dim) in shape.iter().zip(ty.dims()) {
            let want = match dim {
                SubExp::Const(c) => c.as_i64(),
                SubExp::Var(v) => match f.size_params.iter().position(|s| s == v) {
                    Some(k) => match sizes[k] {
                        None => {
                            sizes[k] = Some(*d as i64);
                            continue;
                        }
                        Some(n) => Some(n),
                    },
                    None => scalar_of(*v),
                },
            };
            if want != Some(*d as i64) {
                let text = type_text_known(ty, f, &sizes, &scalar_of);
                return Err(crate::backend::interp::size_error(shape, &text));
            }
        }
    }
    sizes
        .into_iter()
        .enumerate()
        .map(|(k, s)| {
            s.ok_or_else(|| {
                format!(
                    "internal error: size parameter {} of {} is not determined by the arguments",
                    prog.names.display(f.size_params[k]),
                    f.name
                )
            })
        })
        .collect()
}

/// A parameter type as text with the sizes known so far (`[2]f64`, `[n]f64`).
fn type_text_known(
    ty: &Type,
    f: &FunDef,
    sizes: &[Option<i64>],
    scalar_of: &dyn Fn(crate::core::ir::Var) -> Option<i64>,
) -> String {
    let _ = f;
    let mut s = String::new();
    for d in ty.dims() {
        let known = match d {
            SubExp::Const(c) => c.as_i64(),
            SubExp::Var(v) => f
                .size_params
                .iter()
                .position(|p| p == v)
                .and_then(|k| sizes[k])
                .or_else(|| scalar_of(*v)),
        };
        match (known, d) {
            (Some(n), _) => s.push_str(&format!("[{n}]")),
            (None, SubExp::Var(v)) => s.push_str(&format!("[v{}]", v.0)),
            (None, SubExp::Const(_)) => s.push_str("[?]"),
        }
    }
    s.push_str(ty.elem().name());
    s
}

fn scalar_bits(s: Scalar) -> u64 {
    match s {
        Scalar::Bool(b) => b as u64,
        Scalar::I8(v) => v as u8 as u64,
        Scalar::I16(v) => v as u16 as u64,
        Scalar::I32(v) => v as u32 as u64,
        Scalar::I64(v) => v as u64,
        Scalar::U8(v) => v as u64,
        Scalar::U16(v) => v as u64,
        Scalar::U32(v) => v as u64,
        Scalar::U64(v) => v,
        Scalar::F32(v) => v.to_bits() as u64,
        Scalar::F64(v) => v.to_bits(),
    }
}

fn scalar_from_bits(t: PrimType, b: u64) -> Scalar {
    match t {
        PrimType::Bool => Scalar::Bool(b as u8 != 0),
        PrimType::I8 => Scalar::I8(b as u8 as i8),
        PrimType::I16 => Scalar::I16(b as u16 as i16),
        PrimType::I32 => Scalar::I32(b as u32 as i32),
        PrimType::I64 => Scalar::I64(b as i64),
        PrimType::U8 => Scalar::U8(b as u8),
        PrimType::U16 => Scalar::U16(b as u16),
        PrimType::U32 => Scalar::U32(b as u32),
        PrimType::U64 => Scalar::U64(b),
        PrimType::F32 => Scalar::F32(f32::from_bits(b as u32)),
        PrimType::F64 => Scalar::F64(f64::from_bits(b)),
    }
}

/// A view of `n` elements of type `t` (not `bool`) at `p` under the shape `dims`.
///
/// # Safety
/// `p` must point to `n` initialised elements of type `t` (any pointer when `n` is 0) that
/// outlive `'a`.
unsafe fn view_buffer<'a>(
    t: PrimType,
    p: *const c_void,
    n: usize,
    dims: &'a [usize],
) -> Option<ArrayView<'a>> {
    unsafe fn slice<'a, T>(p: *const c_void, n: usize) -> &'a [T] {
        if n == 0 || p.is_null() {
            return &[];
        }
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(p as *const T, n) }
    }
    // SAFETY: guaranteed by the caller.
    unsafe {
        match t {
            PrimType::Bool => None,
            PrimType::I8 => ArrayView::new(dims, slice::<i8>(p, n)),
            PrimType::I16 => ArrayView::new(dims, slice::<i16>(p, n)),
            PrimType::I32 => ArrayView::new(dims, slice::<i32>(p, n)),
            PrimType::I64 => ArrayView::new(dims, slice::<i64>(p, n)),
            PrimType::U8 => ArrayView::new(dims, slice::<u8>(p, n)),
            PrimType::U16 => ArrayView::new(dims, slice::<u16>(p, n)),
            PrimType::U32 => ArrayView::new(dims, slice::<u32>(p, n)),
            PrimType::U64 => ArrayView::new(dims, slice::<u64>(p, n)),
            PrimType::F32 => ArrayView::new(dims, slice::<f32>(p, n)),
            PrimType::F64 => ArrayView::new(dims, slice::<f64>(p, n)),
        }
    }
}

/// Reads `n` booleans, stored as bytes, from `p`.
///
/// # Safety
/// `p` must point to `n` initialised bytes (any pointer when `n` is 0).
unsafe fn read_bools(p: *const c_void, n: usize) -> Vec<bool> {
    if n == 0 || p.is_null() {
        return Vec::new();
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::slice::from_raw_parts(p as *const u8, n) }
        .iter()
        .map(|b| *b != 0)
        .collect()
}
