//! The build-script side: compile a program's generated C with the `cc` crate and write a
//! Rust module with one typed function per entry point.
//!
//! **Takes** a `.fut` file and the native backend's options. **Guarantees** that the module
//! it writes (`$OUT_DIR/NAME.rs`) calls the compiled C directly (no compiler at run time):
//! arguments as `ndarray` views (read where they lie when in standard layout, copied once
//! otherwise), owned arrays and plain numbers out, run-time errors as
//! [`crate::runtime::Error`] with the messages and locations of the `gradus` command. The C
//! symbols carry the module's name, so several programs link into one crate.

use gradus::backend::c::NativeOptions;
use gradus::backend::lower::imp;
use gradus::core::ir::{Prog, SubExp};
use gradus::value::PrimType;
use std::fmt::{self, Write};
use std::path::{Path, PathBuf};

/// Why a program could not be built: the rendered diagnostics, or what failed.
#[derive(Clone, PartialEq, Eq)]
pub struct BuildError(pub String);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

// `build.rs` files end in `.unwrap()`: show the diagnostics as they are, not escaped.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

/// A program to compile in a build script.
///
/// ```no_run
/// // build.rs
/// gradus_build::Program::new("src/gmm.fut").threads_default().compile().unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    path: PathBuf,
    multicore: bool,
    threads: Option<usize>,
    safe: bool,
    module: Option<String>,
    out_dir: Option<PathBuf>,
    native_cpu: bool,
    derivatives: Vec<(gradus::Derivative, String, Option<Vec<usize>>)>,
}

impl Program {
    /// The program in `path` (relative to the package's directory, where cargo runs build
    /// scripts), compiled for one thread with run-time checks.
    pub fn new(path: impl AsRef<Path>) -> Program {
        Program {
            path: path.as_ref().to_path_buf(),
            multicore: false,
            threads: None,
            safe: true,
            module: None,
            out_dir: None,
            native_cpu: false,
            derivatives: Vec::new(),
        }
    }

    /// Runs the outermost parallel loops on all cores (OpenMP); a `Context` can choose
    /// another thread count at run time.
    pub fn threads_default(mut self) -> Program {
        self.multicore = true;
        self.threads = None;
        self
    }

    /// Runs the outermost parallel loops on `n` threads by default (OpenMP).
    pub fn threads(mut self, n: usize) -> Program {
        self.multicore = true;
        self.threads = Some(n.max(1));
        self
    }

    /// One thread, no OpenMP (the default).
    pub fn sequential(mut self) -> Program {
        self.multicore = false;
        self.threads = None;
        self
    }

    /// Keeps (the default) or drops the run-time checks: bounds, sizes, division by zero,
    /// assertions.
    pub fn safe(mut self, checks: bool) -> Program {
        self.safe = checks;
        self
    }

    /// Names the generated module file `NAME.rs` (default: the program's file stem).
    pub fn module_name(mut self, name: &str) -> Program {
        self.module = Some(name.to_string());
        self
    }

    /// Writes the generated files to `dir` (default: `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Program {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Compiles the C for the building machine's processor (`-march=native`): faster, but the
    /// binary may not run on other processors. Off by default.
    pub fn native_cpu(mut self, on: bool) -> Program {
        self.native_cpu = on;
        self
    }

    /// Adds a derivative of the entry point `entry` as an entry point of its own, named
    /// `KIND_ENTRY` (`grad_objective`), with respect to the parameters at the positions
    /// `wrt` (`None`: every float parameter): its arguments and results are those of
    /// `gradus::Program::derive` (docs/python.md §What is derived), as one typed method.
    pub fn derivative(
        mut self,
        kind: gradus::Derivative,
        entry: &str,
        wrt: Option<&[usize]>,
    ) -> Program {
        self.derivatives
            .push((kind, entry.to_string(), wrt.map(<[usize]>::to_vec)));
        self
    }

    /// The program's source with the derived entry points appended.
    fn with_derivatives(&self, name: &str, source: String) -> Result<String, BuildError> {
        if self.derivatives.is_empty() {
            return Ok(source);
        }
        let program = gradus::program::Program::from_source(name, &source)
            .map_err(|d| BuildError(d.render()))?;
        let mut out = source;
        for (kind, entry, wrt) in &self.derivatives {
            let (_, text) = gradus::derive::entry_source(&program, *kind, entry, wrt.as_deref())
                .map_err(|e| BuildError(format!("{name}: {e}")))?;
            out.push('\n');
            out.push_str(&text);
        }
        Ok(out)
    }

    /// Compiles the program, its C (into a static library linked into the crate) and writes
    /// the Rust module; returns the module's path. Call it from `build.rs`: it prints cargo's
    /// directives and the `cc` crate reads cargo's environment.
    pub fn compile(self) -> Result<PathBuf, BuildError> {
        let name = self.path.display().to_string();
        let source = std::fs::read_to_string(&self.path)
            .map_err(|e| BuildError(format!("cannot read {name}: {e}")))?;
        println!("cargo:rerun-if-changed={name}");
        let source = self.with_derivatives(&name, source)?;
        let module = match &self.module {
            Some(m) => m.clone(),
            None => self
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "program".into()),
        };
        let symbol_prefix = format!("gradus_{}__", identifier(&module));
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| {
                BuildError(
                    "OUT_DIR is not set: call compile() from build.rs, or set out_dir".into(),
                )
            })?),
        };
        let program = gradus::program::Program::from_source(&name, &source)
            .map_err(|d| BuildError(d.render()))?;
        let prepared =
            gradus::pipeline::prepare_for_lowering(program.core()).map_err(BuildError)?;
        let options = NativeOptions {
            multicore: self.multicore,
            threads: self.threads,
            safe: self.safe,
            gpu: false,
        };
        let low = gradus::backend::c::lower_prog(&prepared, program.sources(), options)
            .map_err(BuildError)?;
        let c_file = out_dir.join(format!("{module}.gradus.c"));
        std::fs::write(&c_file, gradus::backend::c::print::print_program(&low))
            .map_err(|e| BuildError(format!("cannot write {}: {e}", c_file.display())))?;
        self.compile_c(&c_file, &module, &symbol_prefix, &low)?;
        let rust = rust_module(
            &name,
            &prepared,
            program.sources(),
            &low,
            &symbol_prefix,
            self.threads,
        )?;
        let rs_file = out_dir.join(format!("{module}.rs"));
        std::fs::write(&rs_file, rust)
            .map_err(|e| BuildError(format!("cannot write {}: {e}", rs_file.display())))?;
        Ok(rs_file)
    }

    /// Compiles the generated C into a static library with the exported symbols prefixed.
    fn compile_c(
        &self,
        c_file: &Path,
        module: &str,
        prefix: &str,
        low: &imp::Program,
    ) -> Result<(), BuildError> {
        let mut build = cc::Build::new();
        build
            .file(c_file)
            .opt_level(3)
            .warnings(false)
            .flag("-std=gnu11")
            // Contracting `a * b + c` into a fused multiply-add would change results
            // (docs/language.md §Floating-point arithmetic).
            .flag("-ffp-contract=off");
        for exported in gradus::backend::c::print::RUNTIME_EXPORTS
            .iter()
            .map(|s| s.to_string())
            .chain(low.functions.iter().map(|f| f.c_name.clone()))
        {
            build.define(&exported, Some(format!("{prefix}{exported}").as_str()));
        }
        if self.native_cpu {
            build.flag("-march=native");
        }
        if self.multicore {
            build.flag("-fopenmp");
        }
        let compiler = build
            .try_get_compiler()
            .map_err(|e| BuildError(format!("no C compiler: {e}")))?;
        build
            .try_compile(&format!("gradus_{}", identifier(module)))
            .map_err(|e| {
                BuildError(format!(
                    "the C compiler failed on {}: {e}",
                    c_file.display()
                ))
            })?;
        if self.multicore {
            let runtime = if compiler.is_like_clang() {
                "omp"
            } else {
                "gomp"
            };
            println!("cargo:rustc-link-lib={runtime}");
        }
        println!("cargo:rustc-link-lib=m");
        Ok(())
    }
}

/// `name` as a Rust identifier: other characters become `_`, keywords get a `_` appended.
fn identifier(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
        "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
        "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box",
        "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
    ];
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// The Rust type of an element type.
fn rust_type(t: PrimType) -> &'static str {
    match t {
        PrimType::Bool => "bool",
        PrimType::I8 => "i8",
        PrimType::I16 => "i16",
        PrimType::I32 => "i32",
        PrimType::I64 => "i64",
        PrimType::U8 => "u8",
        PrimType::U16 => "u16",
        PrimType::U32 => "u32",
        PrimType::U64 => "u64",
        PrimType::F32 => "f32",
        PrimType::F64 => "f64",
    }
}

/// The runtime's name of an element type.
fn prim(t: PrimType) -> String {
    let name = match t {
        PrimType::Bool => "Bool",
        PrimType::I8 => "I8",
        PrimType::I16 => "I16",
        PrimType::I32 => "I32",
        PrimType::I64 => "I64",
        PrimType::U8 => "U8",
        PrimType::U16 => "U16",
        PrimType::U32 => "U32",
        PrimType::U64 => "U64",
        PrimType::F32 => "F32",
        PrimType::F64 => "F64",
    };
    format!("__rt::Prim::{name}")
}

/// The `ndarray` dimension type of a rank.
fn dimension(rank: usize) -> String {
    if (1..=6).contains(&rank) {
        format!("__nd::Ix{rank}")
    } else {
        "__nd::IxDyn".into()
    }
}

/// A site's kind as a runtime constant.
fn site_kind(kind: &imp::SiteKind) -> String {
    use imp::SiteKind as K;
    match kind {
        K::DivZero => "__rt::SiteKind::DivZero".into(),
        K::Index { fixes, rank } => {
            format!("__rt::SiteKind::Index {{ fixes: &{fixes:?}, rank: {rank} }}")
        }
        K::Size {
            actual,
            required,
            elem,
            text,
        } => format!(
            "__rt::SiteKind::Size {{ actual: {actual}, required: {required}, elem: {}, text: {text:?} }}",
            prim(*elem)
        ),
        K::Template { template, types } => format!(
            "__rt::SiteKind::Template {{ template: {template:?}, types: &[{}] }}",
            types
                .iter()
                .map(|t| prim(*t))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        K::IotaRange => "__rt::SiteKind::IotaRange".into(),
        K::Alloc => "__rt::SiteKind::Alloc".into(),
    }
}

/// The Rust module for the lowered program `low` of `prog`.
fn rust_module(
    path: &str,
    prog: &Prog,
    sources: &gradus::diag::SourceMap,
    low: &imp::Program,
    prefix: &str,
    threads: Option<usize>,
) -> Result<String, BuildError> {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "// The entry points of {path}, generated by gradus-build. Do not edit.\n\
         #[allow(unused_imports)]\n\
         use ::gradus_build::runtime as __rt;\n\
         #[allow(unused_imports)]\n\
         use ::gradus_build::ndarray as __nd;\n\
         pub use ::gradus_build::runtime::Error;\n\
         pub use ::gradus_build::ndarray;\n"
    );
    let _ = writeln!(w, "#[allow(dead_code)]\nunsafe extern \"C\" {{");
    let _ = writeln!(
        w,
        "    fn {prefix}gradus_release(m: *mut ::core::ffi::c_void);"
    );
    for f in &low.functions {
        let _ = writeln!(
            w,
            "    fn {prefix}{}(ctx: *mut __rt::Ctx, ins: *const *const ::core::ffi::c_void, \
             outs: *mut *mut ::core::ffi::c_void, shapes: *mut i64) -> i32;",
            f.c_name
        );
    }
    let _ = writeln!(w, "}}\n");
    let _ = writeln!(w, "static SITES: &[__rt::Site] = &[");
    for s in &low.sites {
        let _ = writeln!(
            w,
            "    __rt::Site {{ kind: {}, locations: &{:?} }},",
            site_kind(&s.kind),
            s.locations
        );
    }
    let _ = writeln!(w, "];\n");
    let _ = writeln!(
        w,
        "/// Calls the entry points of `{path}`; holds the number of threads they run on.\n\
         #[derive(Clone, Copy, Debug)]\n\
         pub struct Context {{\n    threads: i32,\n}}\n\n\
         #[allow(dead_code)]\n\
         impl Context {{\n\
         \x20   /// A context with the thread count chosen at build time (all cores by default).\n\
         \x20   pub fn new() -> ::core::result::Result<Context, Error> {{\n\
         \x20       Ok(Context {{ threads: __rt::thread_count({threads:?}) }})\n\
         \x20   }}\n\n\
         \x20   /// A context whose calls run on `threads` threads (programs built with threads).\n\
         \x20   pub fn with_threads(threads: usize) -> ::core::result::Result<Context, Error> {{\n\
         \x20       Ok(Context {{ threads: __rt::thread_count(Some(threads)) }})\n\
         \x20   }}"
    );
    for f in &low.functions {
        entry_function(w, prog, sources, f, prefix)?;
    }
    let _ = writeln!(w, "}}");
    Ok(out)
}

/// One entry point's method.
fn entry_function(
    w: &mut String,
    prog: &Prog,
    sources: &gradus::diag::SourceMap,
    f: &imp::Function,
    prefix: &str,
) -> Result<(), BuildError> {
    let fd = prog
        .entry(&f.entry)
        .ok_or_else(|| BuildError(format!("internal error: no entry point {}", f.entry)))?;
    let location = sources.location(fd.span);
    // Parameter names: the source's where they are plain names, unique.
    let mut names: Vec<String> = Vec::new();
    for (k, v) in fd.params.iter().enumerate() {
        let hint = identifier(prog.names.hint(*v));
        let name = if hint.starts_with('_') || names.contains(&hint) || hint == "self" {
            format!("arg{k}")
        } else {
            hint
        };
        names.push(name);
    }
    let mut params = Vec::new();
    let mut arrays = Vec::new();
    let mut integers = Vec::new();
    let mut inputs = Vec::new();
    for (j, (v, name)) in fd.params.iter().zip(&names).enumerate() {
        let ty = prog.names.ty(*v);
        let (elem, rank) = (ty.elem(), ty.rank());
        let rt = rust_type(elem);
        if rank == 0 {
            params.push(format!("{name}: {rt}"));
            integers.push(if elem.is_float() {
                "None".to_string()
            } else {
                format!("Some({name} as i64)")
            });
            inputs.push(format!(
                "&{name} as *const {rt} as *const ::core::ffi::c_void"
            ));
            continue;
        }
        integers.push("None".into());
        params.push(format!(
            "{name}: __nd::ArrayView<'_, {rt}, {}>",
            dimension(rank)
        ));
        let dims: Vec<String> = ty
            .dims()
            .iter()
            .map(|d| match d {
                SubExp::Const(c) => format!("__rt::Dim::Const({})", c.as_i64().unwrap_or(-1)),
                SubExp::Var(x) => {
                    if let Some(k) = fd.size_params.iter().position(|s| s == x) {
                        format!("__rt::Dim::Size({k})")
                    } else if let Some(k) = fd.params.iter().position(|p| p == x) {
                        format!("__rt::Dim::Param({k})")
                    } else {
                        format!("__rt::Dim::Other({:?})", prog.names.hint(*x))
                    }
                }
            })
            .collect();
        arrays.push((j, name.clone(), dims, elem));
        inputs.push(format!("{name}.as_ptr() as *const ::core::ffi::c_void"));
    }
    let results: Vec<(PrimType, usize)> =
        f.results.iter().map(|r| (r.elem, r.dims.len())).collect();
    let result_type = |(elem, rank): &(PrimType, usize)| {
        if *rank == 0 {
            rust_type(*elem).to_string()
        } else {
            format!("__nd::Array<{}, {}>", rust_type(*elem), dimension(*rank))
        }
    };
    let returns = match results.as_slice() {
        [one] => result_type(one),
        many => format!(
            "({})",
            many.iter()
                .map(result_type)
                .map(|t| t + ",")
                .collect::<String>()
        ),
    };
    let method = identifier(&f.entry);
    let signature: Vec<String> = fd
        .entry
        .as_ref()
        .map(|e| e.params.iter().map(|(t, _)| t.to_string()).collect())
        .unwrap_or_default();
    let _ = writeln!(
        w,
        "\n    /// Entry point `{}` ({}), defined at {location}.\n\
         \x20   #[allow(clippy::too_many_arguments, clippy::type_complexity, clippy::unnecessary_cast, unused_mut, unused_variables)]\n\
         \x20   pub fn {method}(&self, {}) -> ::core::result::Result<{returns}, Error> {{",
        f.entry,
        signature.join(", "),
        params.join(", ")
    );
    for (_, name, _, _) in &arrays {
        // Borrowed when already in standard layout; one copy otherwise.
        let _ = writeln!(w, "        let {name} = {name}.as_standard_layout();");
    }
    let _ = writeln!(w, "        const ARRAYS: &[__rt::ArrayParam] = &[");
    for (j, _, dims, elem) in &arrays {
        let _ = writeln!(
            w,
            "            __rt::ArrayParam {{ index: {j}, dims: &[{}], elem: {} }},",
            dims.join(", "),
            prim(*elem)
        );
    }
    let _ = writeln!(w, "        ];");
    let shapes: Vec<String> = arrays
        .iter()
        .map(|(_, n, _, _)| format!("{n}.shape()"))
        .collect();
    let _ = writeln!(
        w,
        "        let integers: [Option<i64>; {}] = [{}];\n\
         \x20       let sizes = __rt::bind_sizes(&{:?}, ARRAYS, &[{}], &integers, {location:?})?;",
        integers.len(),
        integers.join(", "),
        fd.size_params
            .iter()
            .map(|v| prog.names.hint(*v))
            .collect::<Vec<_>>(),
        shapes.join(", ")
    );
    let mut all_inputs: Vec<String> = (0..fd.size_params.len())
        .map(|k| format!("&sizes[{k}] as *const i64 as *const ::core::ffi::c_void"))
        .collect();
    all_inputs.extend(inputs);
    let nres = results.len();
    let total_rank: usize = results.iter().map(|r| r.1).sum();
    let _ = writeln!(
        w,
        "        let ins: [*const ::core::ffi::c_void; {}] = [{}];\n\
         \x20       let mut slots = [0u64; {nres}];\n\
         \x20       let mut outs = [::core::ptr::null_mut::<::core::ffi::c_void>(); {}];",
        all_inputs.len(),
        all_inputs.join(", "),
        2 * nres
    );
    for (k, (_, rank)) in results.iter().enumerate() {
        if *rank == 0 {
            let _ = writeln!(
                w,
                "        outs[{}] = &mut slots[{k}] as *mut u64 as *mut ::core::ffi::c_void;",
                2 * k
            );
        }
    }
    let _ = writeln!(
        w,
        "        let mut shapes = [0i64; {}];\n\
         \x20       let mut ctx = __rt::Ctx::new(self.threads);\n\
         \x20       // SAFETY: `ins` holds one valid pointer per input of the generated function\n\
         \x20       // (sizes and scalars by address, arrays by their first element, in standard\n\
         \x20       // layout, with the shapes the sizes were bound from); `outs` has two slots per\n\
         \x20       // result, with storage for the scalars; `shapes` has room for every dimension.\n\
         \x20       let rc = unsafe {{ {prefix}{}(&mut ctx, ins.as_ptr(), outs.as_mut_ptr(), shapes.as_mut_ptr()) }};\n\
         \x20       if rc != 0 {{\n\
         \x20           return Err(ctx.error(SITES, {location:?}));\n\
         \x20       }}",
        total_rank.max(1),
        f.c_name
    );
    let mut offset = 0;
    let mut values = Vec::new();
    for (k, (elem, rank)) in results.iter().enumerate() {
        let rt = rust_type(*elem);
        if *rank == 0 {
            values.push(format!("<{rt} as __rt::Element>::from_bits(slots[{k}])"));
        } else {
            let _ = writeln!(
                w,
                "        // SAFETY: the generated function handed out this buffer of the shape\n\
                 \x20       // it wrote, and its owner, which is released here.\n\
                 \x20       let r{k} = unsafe {{ __rt::take_array::<{rt}, {}>(outs[{}], outs[{}], &shapes[{offset}..{}], {prefix}gradus_release)? }};",
                dimension(*rank),
                2 * k,
                2 * k + 1,
                offset + rank
            );
            offset += rank;
            values.push(format!("r{k}"));
        }
    }
    let value = match values.as_slice() {
        [one] => one.clone(),
        many => format!(
            "({})",
            many.iter().map(|v| format!("{v},")).collect::<String>()
        ),
    };
    let _ = writeln!(w, "        Ok({value})\n    }}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::identifier;

    #[test]
    fn identifiers() {
        assert_eq!(identifier("gmm"), "gmm");
        assert_eq!(identifier("my-prog.v2"), "my_prog_v2");
        assert_eq!(identifier("type"), "type_");
        assert_eq!(identifier("2d"), "_2d");
        assert_eq!(identifier("x'"), "x_");
    }
}
