//! `gradus c prog.fut -o DIR`: the program as a C library.
//!
//! Writes `DIR/NAME.c` (the generated code, then the C API over it), `DIR/NAME.h` (the C API:
//! contexts, error messages, one typed function per entry point, and the low-level interface
//! gradus's own bindings use), `DIR/libNAME.so` (compiled with `CC`/`CFLAGS` like the native
//! backend, with OpenMP unless `--sequential`), and `DIR/example.c`, a program that calls an
//! entry point through the C API and prints the results, compiled to `DIR/example` against
//! the library. The example's arguments are the entry point's first test input when it has
//! one, otherwise made-up arguments whose sizes the interpreter accepted (sizes can be
//! constrained by the program in ways a signature does not show, like GMM's
//! `s = d(d+1)/2`), so that the example runs.

use crate::common::{catch_panic, check_inputs};
use clap::Args;
use gradus::backend::c::{NativeOptions, build, lower_prog, print};
use gradus::backend::lower::imp::{self, SiteKind, Ty};
use gradus::core::ir::SubExp;
use gradus::program::{ExternalType, Program};
use gradus::testspec::{Expected, Input, parse_test_file};
use gradus::value::{Array, Buffer, PrimType, Scalar, Value, ValueRef};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Arguments of `gradus c`.
#[derive(Args, Debug)]
pub struct CArgs {
    /// The program.
    program: PathBuf,
    /// Output directory (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    out: PathBuf,
    /// One thread: compile without OpenMP.
    #[arg(long)]
    sequential: bool,
    /// The backend whose code the library holds: `multicore` (the default), `c` (the same
    /// as `--sequential`) or `gpu` (parallel loops as OpenCL kernels, see docs/gpu.md).
    #[arg(long, value_parser = crate::common::parse_backend, value_name = "BACKEND")]
    backend: Option<crate::common::Backend>,
    /// Compile without run-time checks.
    #[arg(long = "unsafe")]
    no_checks: bool,
    #[command(flatten)]
    opt: crate::optargs::OptArgs,
}

fn c_type(t: PrimType) -> &'static str {
    gradus::backend::c::prims::c_type(t)
}

/// Words C reserves, and the names the typed wrappers use themselves: an input named so
/// gets the prefix `in_`.
const RESERVED: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "ctx", "main",
];

/// An entry point as the C API presents it.
struct ApiEntry<'a> {
    f: &'a imp::Function,
    /// The typed function's name, `gradus_entry_NAME`.
    name: String,
    /// A C name per input (the source name where it is a valid, unused identifier).
    params: Vec<String>,
    /// The number of leading inputs that are size parameters.
    sizes: usize,
    /// The source type per input after the sizes, and per result, where known.
    param_types: Vec<Option<String>>,
    result_types: Vec<Option<String>>,
}

/// The source name of a lowered variable: its C name without the `_NUMBER` suffix.
fn source_name(c_name: &str) -> &str {
    match c_name.rsplit_once('_') {
        Some((base, n)) if !base.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => base,
        _ => c_name,
    }
}

fn api_entries<'a>(
    low: &'a imp::Program,
    program: &Program,
    eps: &[gradus::program::EntryPoint],
) -> Vec<ApiEntry<'a>> {
    let mut used_names: Vec<String> = Vec::new();
    low.functions
        .iter()
        .map(|f| {
            let base: String = f
                .entry
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let mut name = format!("gradus_entry_{base}");
            if used_names.contains(&name) {
                name = format!("{name}_{}", used_names.len());
            }
            used_names.push(name.clone());
            let mut params: Vec<String> = Vec::new();
            for (n, _) in &f.inputs {
                let s = source_name(n).to_string();
                let bad = RESERVED.contains(&s.as_str())
                    || s.starts_with("gr_")
                    || s.starts_with("out")
                    || params.contains(&s);
                params.push(if bad { format!("in_{n}") } else { s });
            }
            let ep = eps.iter().find(|e| e.name == f.entry);
            let text = |t: &ExternalType| match t {
                ExternalType::Value { text, .. } => Some(text.clone()),
                ExternalType::Opaque(_) => None,
            };
            let sizes = program
                .core()
                .entry(&f.entry)
                .map_or(0, |d| d.size_params.len())
                .min(f.inputs.len());
            // A tuple or record parameter is several inputs: no source type per input then.
            let param_types = match ep {
                Some(ep) if ep.params.len() == f.inputs.len() - sizes => {
                    ep.params.iter().map(text).collect()
                }
                _ => vec![None; f.inputs.len() - sizes],
            };
            let result_types = match ep {
                Some(ep) if ep.results.len() == f.results.len() => {
                    ep.results.iter().map(text).collect()
                }
                _ => vec![None; f.results.len()],
            };
            ApiEntry {
                f,
                name,
                params,
                sizes,
                param_types,
                result_types,
            }
        })
        .collect()
}

/// The parameter list of a typed entry point, after the context.
fn signature(e: &ApiEntry) -> String {
    let mut ps = vec!["struct gradus_context *ctx".to_string()];
    for (k, r) in e.f.results.iter().enumerate() {
        let ct = c_type(r.elem);
        if r.dims.is_empty() {
            ps.push(format!("{ct} *out{k}"));
        } else {
            ps.push(format!("{ct} **out{k}"));
            ps.push(format!("int64_t *out{k}_shape"));
        }
    }
    for ((_, t), n) in e.f.inputs.iter().zip(&e.params) {
        ps.push(match t {
            Ty::Prim(p) => format!("{} {n}", c_type(*p)),
            Ty::Array(p) | Ty::Ptr(p) => format!("const {} *{n}", c_type(*p)),
        });
    }
    ps.join(", ")
}

/// Text for a C comment.
fn comment(s: &str) -> String {
    s.replace("*/", "* /")
}

/// A C string literal of `s`.
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            b'\n' => out.push_str("\\n"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// A short description of an error site for the header.
fn site_summary(kind: &SiteKind) -> String {
    match kind {
        SiteKind::DivZero => "division by zero".into(),
        SiteKind::Index { .. } => "index out of bounds".into(),
        SiteKind::Size { text, .. } if !text.is_empty() => {
            format!("a value does not have the shape of type {text}")
        }
        SiteKind::Size { .. } => "a value does not have the required shape".into(),
        SiteKind::Template { template, .. } => template.replace("{}", "_"),
        SiteKind::IotaRange => "invalid range".into(),
        SiteKind::Alloc => "out of memory".into(),
    }
}

fn header(name: &str, low: &imp::Program, api: &[ApiEntry]) -> String {
    let mut h = String::new();
    let guard = format!("GRADUS_{}_H", name.to_uppercase().replace(['-', '.'], "_"));
    let _ = writeln!(
        h,
        "/* {name}.h: the C interface of lib{name}, generated by gradus.\n\
         *\n\
         * Make a context, call entry points with it, read its error message when a call\n\
         * fails, free it:\n\
         *\n\
         *   struct gradus_context *ctx = gradus_context_new();\n\
         *   if (gradus_entry_NAME(ctx, &result, ..., arguments) != 0)\n\
         *     fprintf(stderr, \"%s\\n\", gradus_context_get_error(ctx));\n\
         *   gradus_context_free(ctx);\n\
         *\n\
         * Each entry point's function takes the context, then where to put each result, then\n\
         * the arguments: first the values of the entry point's size parameters (int64_t, in\n\
         * the order listed), then its parameters. An array argument is a pointer to its first\n\
         * element, the elements in row-major (C) order; it is only read. Its dimensions are\n\
         * the size parameters its type names: the caller must pass sizes that agree with the\n\
         * arrays (nothing here can check the length of an array behind a pointer). A scalar\n\
         * result is written to *outK; an array result's elements to a new buffer, stored in\n\
         * *outK, which the caller frees with gradus_free, and its dimensions to outK_shape,\n\
         * which has room for one int64_t per dimension. Functions return 0 on success, or 1\n\
         * when the program failed (an index out of bounds, a failed assertion, ...) or memory\n\
         * ran out; then no result was stored.\n\
         *\n\
         * A context must not be used by two threads at once; separate contexts may.\n\
         */\n#ifndef {guard}\n#define {guard}\n#include <stdint.h>\n#include <stdbool.h>\n\n\
         #ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n\
         /* The state of calls: the thread count and the last error. */\n\
         struct gradus_context;\n\n\
         /* A new context (all cores, no error), or NULL when out of memory. */\n\
         struct gradus_context *gradus_context_new(void);\n\n\
         /* Frees a context (NULL is allowed). */\n\
         void gradus_context_free(struct gradus_context *ctx);\n\n\
         /* Sets the number of threads of later calls (0: all cores, the default). No effect\n\
         * when the library was made with `gradus c --sequential`. */\n\
         void gradus_context_set_threads(struct gradus_context *ctx, int nthreads);\n\n\
         /* The message of the last call's error, with its source locations (\"Index [5] out\n\
         * of bounds for array of shape [4].\\n  at prog.fut:3:5-9\"), or NULL when the last\n\
         * call succeeded. The text belongs to the context and stays valid until its next\n\
         * call. */\n\
         const char *gradus_context_get_error(struct gradus_context *ctx);\n\n\
         /* Frees an array result (NULL is allowed). */\n\
         void gradus_free(void *p);\n"
    );
    for e in api {
        let f = e.f;
        let _ = writeln!(h, "/* Entry point {}.", comment(&f.entry));
        for (k, (r, t)) in f.results.iter().zip(&e.result_types).enumerate() {
            let ty = t
                .clone()
                .unwrap_or_else(|| format!("{}{}", "[]".repeat(r.dims.len()), r.elem.name()));
            if r.dims.is_empty() {
                let _ = writeln!(h, " *   out{k}: result {k}, {}", comment(&ty));
            } else {
                let _ = writeln!(
                    h,
                    " *   out{k}, out{k}_shape: result {k}, {} ({} dimension(s))",
                    comment(&ty),
                    r.dims.len()
                );
            }
        }
        for (k, n) in e.params.iter().enumerate() {
            if k < e.sizes {
                let _ = writeln!(h, " *   {n}: size parameter");
            } else {
                let ty = e.param_types.get(k - e.sizes).cloned().flatten();
                let _ = writeln!(
                    h,
                    " *   {n}: parameter{}",
                    ty.map(|t| format!(" of type {}", comment(&t)))
                        .unwrap_or_default()
                );
            }
        }
        let _ = writeln!(h, " */\nint {}({});\n", e.name, signature(e));
    }
    let _ = writeln!(
        h,
        "/* The low-level interface, which gradus's Rust and Python bindings use: every entry\n\
         * point K (in the order above) is also\n\
         *   int gradus_entry_K(struct gr_ctx *ctx, void *const *in, void **out, int64_t *shapes);\n\
         * in[i]: the address of input i (size parameters and scalars: the value; arrays: their\n\
         * first element). Result k: out[2k] receives an array's data pointer (for a scalar\n\
         * result, set out[2k] to where it is to be written) and out[2k+1] the buffer to pass\n\
         * to gradus_release when done; the dimensions of all array results are written one\n\
         * after another to shapes. Returns 0, or 1 on a run-time error: then ctx->site names\n\
         * the error site below (-1: out of memory) and ctx->args[0..nargs] hold the values its\n\
         * message mentions. Set ctx->nthreads (0: all cores) and zero the rest of *ctx before\n\
         * each call.\n\
         */\n\
         struct gr_ctx {{\n  int32_t failed;\n  int32_t site;\n  int32_t nthreads;\n  int32_t nargs;\n  int64_t args[32];\n  int64_t fail_iter;\n  int32_t lock;\n}};\n\n\
         void gradus_release(void *m);"
    );
    for (k, f) in low.functions.iter().enumerate() {
        let _ = writeln!(
            h,
            "int {}(struct gr_ctx *ctx, void *const *in, void **out, int64_t *shapes); /* {} */",
            f.c_name,
            api.get(k).map_or(String::new(), |e| e.name.clone())
        );
    }
    let _ = writeln!(h, "\n/* Error sites of the low-level interface:");
    for (i, s) in low.sites.iter().enumerate() {
        let _ = writeln!(
            h,
            " *   {i}: {} at {}",
            comment(&site_summary(&s.kind)),
            comment(&s.locations.join(", "))
        );
    }
    let _ = writeln!(h, " */\n\n#ifdef __cplusplus\n}}\n#endif\n#endif");
    // The string continuations above drop the space before each comment line's `*`.
    h.replace("\n*", "\n *")
}

/// The C expression of recorded value `j` of an error site.
fn site_arg(j: usize) -> String {
    if j < print::MAX_ARGS {
        format!("a[{j}]")
    } else {
        "0".into()
    }
}

/// C statements appending the message of an error site of `kind` to the context's text, as
/// `gradus::backend::c::site_message` words it.
fn site_message_code(kind: &SiteKind) -> String {
    let mut c = String::new();
    let lit = |c: &mut String, s: &str| {
        if !s.is_empty() {
            let _ = write!(c, " gr_api_printf(ctx, \"%s\", {});", c_string(s));
        }
    };
    let int = |c: &mut String, j: usize| {
        let _ = write!(
            c,
            " gr_api_printf(ctx, \"%lld\", (long long){});",
            site_arg(j)
        );
    };
    match kind {
        SiteKind::DivZero => lit(&mut c, "division by zero"),
        SiteKind::Alloc => {
            lit(&mut c, "cannot allocate ");
            int(&mut c, 0);
            lit(&mut c, " bytes");
        }
        SiteKind::IotaRange => {
            let (s, st, n) = (site_arg(0), site_arg(1), site_arg(2));
            let _ = write!(
                c,
                " gr_api_printf(ctx, \"Range %lld..%lld..<%lld is invalid.\", (long long){s}, \
                 (long long)((uint64_t){s} + (uint64_t){st}), \
                 (long long)((uint64_t){s} + (uint64_t){n} * (uint64_t){st}));"
            );
        }
        SiteKind::Index { fixes, rank } => {
            lit(&mut c, "Index [");
            let mut k = 0;
            for (i, &fix) in fixes.iter().enumerate() {
                if i > 0 {
                    lit(&mut c, ", ");
                }
                if fix {
                    int(&mut c, k);
                    k += 1;
                } else {
                    let (start, count, stride) = (site_arg(k), site_arg(k + 1), site_arg(k + 2));
                    k += 3;
                    let _ = write!(
                        c,
                        " gr_api_printf(ctx, \"%lld:%lld\", (long long){start}, \
                         (long long)((uint64_t){start} + (uint64_t){count} * (uint64_t){stride})); \
                         if ({stride} != 1) gr_api_printf(ctx, \":%lld\", (long long){stride});"
                    );
                }
            }
            lit(&mut c, "] out of bounds for array of shape ");
            for j in 0..*rank {
                let _ = write!(
                    c,
                    " gr_api_printf(ctx, \"[%lld]\", (long long){});",
                    site_arg(k + j)
                );
            }
            lit(&mut c, ".");
        }
        SiteKind::Size {
            actual,
            required,
            elem,
            text,
        } => {
            lit(&mut c, "value of shape ");
            for j in 0..*actual {
                let _ = write!(
                    c,
                    " gr_api_printf(ctx, \"[%lld]\", (long long){});",
                    site_arg(j)
                );
            }
            lit(&mut c, " cannot match shape of type \"");
            if text.is_empty() {
                for j in 0..*required {
                    let _ = write!(
                        c,
                        " gr_api_printf(ctx, \"[%lld]\", (long long){});",
                        site_arg(actual + j)
                    );
                }
                lit(&mut c, elem.name());
            } else {
                lit(&mut c, text);
            }
            lit(&mut c, "\".");
        }
        SiteKind::Template { template, types } => {
            let mut rest = template.as_str();
            let mut j = 0;
            while let Some(p) = rest.find("{}") {
                lit(&mut c, &rest[..p]);
                match types.get(j) {
                    Some(t) => c.push_str(&value_code(*t, &site_arg(j))),
                    None => lit(&mut c, "{}"),
                }
                j += 1;
                rest = &rest[p + 2..];
            }
            lit(&mut c, rest);
        }
    }
    c
}

/// C statements appending a recorded value (`bits`, an `int64_t` expression) of type `t`.
fn value_code(t: PrimType, bits: &str) -> String {
    match t {
        PrimType::Bool => format!(" gr_api_printf(ctx, \"%s\", {bits} ? \"true\" : \"false\");"),
        PrimType::F64 => format!(" gr_api_float(ctx, {bits}, 0);"),
        PrimType::F32 => format!(" gr_api_float(ctx, {bits}, 1);"),
        PrimType::U8 | PrimType::U16 | PrimType::U32 | PrimType::U64 => format!(
            " gr_api_printf(ctx, \"%llu\", (unsigned long long)({})({bits}));",
            c_type(t)
        ),
        _ => format!(
            " gr_api_printf(ctx, \"%lld\", (long long)({})({bits}));",
            c_type(t)
        ),
    }
}

/// The C API's definitions, appended to the generated program: contexts, messages and one
/// typed function per entry point over the low-level one.
fn api_source(low: &imp::Program, api: &[ApiEntry]) -> String {
    let mut c = String::from(
        r#"
/* The C API of `gradus c` (see the header): contexts, error messages, typed entry points. */
#include <stdio.h>
#include <stdarg.h>

struct gradus_context {
  int32_t nthreads;
  int32_t failed;
  size_t len;
  char error[4096];
};

struct gradus_context *gradus_context_new(void);
struct gradus_context *gradus_context_new(void) { return calloc(1, sizeof(struct gradus_context)); }
void gradus_context_free(struct gradus_context *ctx);
void gradus_context_free(struct gradus_context *ctx) { free(ctx); }
void gradus_context_set_threads(struct gradus_context *ctx, int nthreads);
void gradus_context_set_threads(struct gradus_context *ctx, int nthreads) { ctx->nthreads = nthreads < 0 ? 0 : nthreads; }
const char *gradus_context_get_error(struct gradus_context *ctx);
const char *gradus_context_get_error(struct gradus_context *ctx) { return ctx->failed ? ctx->error : NULL; }
void gradus_free(void *p);
void gradus_free(void *p) { free(p); }

/* Appends to the error message (cut at the buffer's end). */
static GR_UNUSED __attribute__((format(printf, 2, 3))) void gr_api_printf(struct gradus_context *ctx, const char *fmt, ...) {
  if (ctx->len + 1 >= sizeof ctx->error) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(ctx->error + ctx->len, sizeof ctx->error - ctx->len, fmt, ap);
  va_end(ap);
  if (n > 0) ctx->len = ctx->len + (size_t)n < sizeof ctx->error ? ctx->len + (size_t)n : sizeof ctx->error - 1;
}

/* A recorded float (the bits of a double) in the fewest digits that read back the same. */
static GR_UNUSED void gr_api_float(struct gradus_context *ctx, int64_t bits, int single) {
  double x;
  memcpy(&x, &bits, sizeof x);
  if (single) x = (float)x;
  if (isnan(x)) { gr_api_printf(ctx, "nan"); return; }
  if (isinf(x)) { gr_api_printf(ctx, "%s", x > 0 ? "inf" : "-inf"); return; }
  char b[48];
  for (int p = single ? 6 : 15; p <= 17; p++) {
    snprintf(b, sizeof b, "%.*g", p, x);
    double back = strtod(b, NULL);
    if (single ? (float)back == (float)x : back == x) break;
  }
  gr_api_printf(ctx, "%s%s", b, strpbrk(b, ".eni") ? "" : ".0");
}

/* The message of a failed call of the low-level interface, and where it happened. */
static void gr_api_describe(struct gradus_context *ctx, const struct gr_ctx *r) {
  const int64_t *a = r->args;
  (void)a;
  ctx->failed = 1;
  ctx->len = 0;
  ctx->error[0] = 0;
  switch (r->site) {
  case -1: gr_api_printf(ctx, "cannot allocate %lld bytes", (long long)a[0]); break;
#ifdef GR_GPU
  case -2: gr_api_printf(ctx, "gpu backend: %s", gr_gpu.why); break;
#endif
"#,
    );
    for (i, s) in low.sites.iter().enumerate() {
        let _ = write!(c, "  case {i}:{}", site_message_code(&s.kind));
        for l in &s.locations {
            let _ = write!(c, " gr_api_printf(ctx, \"\\n  at %s\", {});", c_string(l));
        }
        c.push_str(" break;\n");
    }
    c.push_str(
        "  default: gr_api_printf(ctx, \"internal error: unknown error site %d\", (int)r->site); break;\n  }\n}\n",
    );
    for e in api {
        let f = e.f;
        let nres = f.results.len();
        let total: usize = f.results.iter().map(|r| r.dims.len()).sum();
        let _ = writeln!(c, "\nint {}({});", e.name, signature(e));
        let _ = writeln!(c, "int {}({}) {{", e.name, signature(e));
        let _ = writeln!(
            c,
            "  void *gr_in[{}];\n  void *gr_out[{}];\n  int64_t gr_shapes[{}];\n  memset(gr_out, 0, sizeof gr_out);",
            f.inputs.len().max(1),
            (2 * nres).max(1),
            total.max(1)
        );
        for (k, ((_, t), n)) in f.inputs.iter().zip(&e.params).enumerate() {
            match t {
                Ty::Prim(_) => {
                    let _ = writeln!(c, "  gr_in[{k}] = &{n};");
                }
                Ty::Array(_) | Ty::Ptr(_) => {
                    let _ = writeln!(c, "  gr_in[{k}] = (void *){n};");
                }
            }
        }
        for (k, r) in f.results.iter().enumerate() {
            if r.dims.is_empty() {
                let _ = writeln!(
                    c,
                    "  {} gr_r{k};\n  gr_out[{}] = &gr_r{k};",
                    c_type(r.elem),
                    2 * k
                );
            }
        }
        let _ = writeln!(
            c,
            "  struct gr_ctx gr_c;\n  memset(&gr_c, 0, sizeof gr_c);\n  gr_c.nthreads = ctx->nthreads;\n  ctx->failed = 0;\n  ctx->len = 0;\n  ctx->error[0] = 0;\n  if ({}(&gr_c, gr_in, gr_out, gr_shapes) != 0) {{\n    gr_api_describe(ctx, &gr_c);\n    return 1;\n  }}\n  int gr_oom = 0;",
            f.c_name
        );
        // Arrays are copied into buffers of their own, which the caller frees with
        // `gradus_free`: the generated code's buffers are reference counted and may be
        // shared with other results or be an argument itself.
        let mut off = 0;
        for (k, r) in f.results.iter().enumerate() {
            let ct = c_type(r.elem);
            if r.dims.is_empty() {
                continue;
            }
            let rank = r.dims.len();
            let _ = writeln!(
                c,
                "  {{\n    int64_t gr_n = 1;\n    for (int j = 0; j < {rank}; j++) {{ out{k}_shape[j] = gr_shapes[{off} + j]; gr_n *= gr_shapes[{off} + j]; }}\n    {ct} *gr_p = malloc(gr_n > 0 ? (size_t)gr_n * sizeof({ct}) : 1);\n    if (!gr_p) gr_oom = 1;\n    else if (gr_n > 0) memcpy(gr_p, gr_out[{}], (size_t)gr_n * sizeof({ct}));\n    gr_out[{}] = gr_p;\n    gradus_release(gr_out[{}]);\n  }}",
                2 * k,
                2 * k,
                2 * k + 1
            );
            off += rank;
        }
        let _ = writeln!(c, "  if (gr_oom) {{");
        for (k, r) in f.results.iter().enumerate() {
            if !r.dims.is_empty() {
                let _ = writeln!(c, "    free(gr_out[{}]);", 2 * k);
            }
        }
        let _ = writeln!(
            c,
            "    ctx->failed = 1;\n    gr_api_printf(ctx, \"cannot allocate memory for the results of {}\");\n    return 1;\n  }}",
            f.entry
                .replace(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_', "_")
        );
        for (k, r) in f.results.iter().enumerate() {
            if r.dims.is_empty() {
                let _ = writeln!(c, "  *out{k} = gr_r{k};");
            } else {
                let _ = writeln!(c, "  *out{k} = gr_out[{}];", 2 * k);
            }
        }
        let _ = writeln!(c, "  return 0;\n}}");
    }
    c
}

/// A C literal of a scalar.
fn c_literal(s: Scalar) -> String {
    let float = |x: f64, suffix: &str| {
        if x.is_nan() {
            "NAN".to_string()
        } else if x.is_infinite() {
            if x > 0.0 { "INFINITY" } else { "-INFINITY" }.to_string()
        } else {
            format!("{x:?}{suffix}")
        }
    };
    match s {
        Scalar::Bool(b) => (if b { "true" } else { "false" }).into(),
        Scalar::I8(v) => v.to_string(),
        Scalar::I16(v) => v.to_string(),
        Scalar::I32(v) if v == i32::MIN => "(-2147483647 - 1)".into(),
        Scalar::I32(v) => v.to_string(),
        Scalar::I64(v) if v == i64::MIN => "(-9223372036854775807LL - 1)".into(),
        Scalar::I64(v) => format!("{v}LL"),
        Scalar::U8(v) => v.to_string(),
        Scalar::U16(v) => v.to_string(),
        Scalar::U32(v) => format!("{v}U"),
        Scalar::U64(v) => format!("{v}ULL"),
        Scalar::F32(v) => {
            if v.is_finite() {
                format!("{v:?}f")
            } else {
                float(v as f64, "")
            }
        }
        Scalar::F64(v) => float(v, ""),
    }
}

/// Arguments for the example: the sizes (values of the size parameters) and the values of
/// the parameters, and where they come from.
struct ExampleInput {
    sizes: Vec<i64>,
    values: Vec<Value>,
    origin: String,
}

/// The most elements the example embeds: test inputs larger than this are not copied into
/// C source.
const MAX_EMBEDDED: usize = 1 << 20;

/// The first input of `entry`'s test blocks that its parameters accept, if any.
fn test_input(
    file: &Path,
    source: &str,
    ep: &gradus::program::EntryPoint,
) -> Option<(Vec<Value>, String)> {
    let spec = parse_test_file(source).ok()?;
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    for b in spec.blocks.iter().filter(|b| b.entries.contains(&ep.name)) {
        for c in &b.cases {
            if matches!(c.expected, Expected::Error(_)) {
                continue;
            }
            let (values, origin) = match &c.input {
                Input::Values(vs, _) => (vs.clone(), "the first input of its test block".into()),
                Input::File(f) => match gradus::data::read_file(&dir.join(f)) {
                    Ok(vs) => (vs, format!("the test input {f}")),
                    Err(_) => continue,
                },
                _ => continue,
            };
            let elements: usize = values
                .iter()
                .map(|v| match v {
                    Value::Scalar(_) => 1,
                    Value::Array(a) => a.len(),
                })
                .sum();
            if elements <= MAX_EMBEDDED && check_inputs(ep, &values).is_ok() {
                return Some((values, origin));
            }
        }
    }
    None
}

/// Made-up arguments for entry point `entry` where every size is `n` and every integer
/// scalar `int`; `None` when a parameter is not a value of the value formats.
fn made_up(program: &Program, entry: &str, n: i64, int: i64) -> Option<Vec<Value>> {
    let prog = program.core();
    let f = prog.entry(entry)?;
    let mut values = Vec::new();
    for &p in &f.params {
        let ty = prog.names.ty(p);
        let elem = ty.elem();
        let scalar = |i: usize| {
            if elem.is_int() {
                Scalar::from_f64(elem, (i % 7 / 2) as f64)
            } else {
                Scalar::from_f64(elem, (i % 7) as f64 / 2.0)
            }
        };
        if ty.rank() == 0 {
            values.push(Value::Scalar(if elem.is_int() {
                Scalar::from_f64(elem, int as f64)
            } else {
                Scalar::from_f64(elem, 1.0)
            }));
            continue;
        }
        let mut shape = Vec::new();
        for d in ty.dims() {
            let len = match d {
                SubExp::Const(c) => c.as_i64()?,
                SubExp::Var(_) => n,
            };
            shape.push(usize::try_from(len).ok()?);
        }
        let count: usize = shape.iter().product();
        if count > MAX_EMBEDDED {
            return None;
        }
        let mut buf = Buffer::with_capacity(elem, count);
        for i in 0..count {
            buf.push(scalar(i));
        }
        values.push(Value::Array(Array::new(shape, buf)?));
    }
    Some(values)
}

/// Arguments for the example caller of `ep`: its first test input if it has one, else
/// made-up arguments with every size the same, the first of a few sizes that the
/// interpreter runs without error (a program's sizes may be constrained, like GMM's
/// `s = d(d+1)/2`, which all sizes 1 satisfy). `None` when no candidate runs.
fn example_input(
    file: &Path,
    source: &str,
    program: &Program,
    ep: &gradus::program::EntryPoint,
) -> Option<ExampleInput> {
    let mut candidates: Vec<(Vec<Value>, String)> = Vec::new();
    if let Some(t) = test_input(file, source, ep) {
        candidates.push(t);
    }
    // Integer scalars are tried equal to the sizes (a scalar can be a size: `iota n`) and
    // as 0 (an index).
    for n in [3, 2, 1, 4] {
        for int in [n, 0] {
            if let Some(vs) = made_up(program, &ep.name, n, int) {
                candidates.push((
                    vs,
                    format!("made-up arguments (every size {n}, every integer {int})"),
                ));
            }
        }
    }
    for (values, origin) in candidates {
        let refs: Vec<ValueRef> = values.iter().map(Value::as_value_ref).collect();
        let Ok(sizes) = gradus::backend::c::size_arguments(program.core(), &ep.name, &refs) else {
            continue;
        };
        drop(refs);
        if let Ok(Ok(_)) = catch_panic(|| program.call(&ep.name, values.clone())) {
            return Some(ExampleInput {
                sizes,
                values,
                origin,
            });
        }
    }
    None
}

/// The example caller: calls `e` on `input` through the typed C API and prints the results.
fn example(name: &str, e: &ApiEntry, input: &ExampleInput) -> String {
    let f = e.f;
    let mut c = String::new();
    let _ = writeln!(
        c,
        "/* Calls entry point {} of lib{name}.so on {} and prints\n\
         * the results (the first elements of arrays).\n\
         * Build: cc example.c -o example -L. -l{name} -Wl,-rpath,'$ORIGIN' -lm */\n\
         #include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n#include \"{name}.h\"\n",
        comment(&f.entry),
        comment(&input.origin)
    );
    let mut args: Vec<String> = input.sizes.iter().map(|s| format!("{s}LL")).collect();
    for (k, v) in input.values.iter().enumerate() {
        match v {
            Value::Scalar(s) => args.push(c_literal(*s)),
            Value::Array(a) => {
                let ct = c_type(a.elem_type());
                let b = a.buffer();
                let mut elems = String::new();
                for i in 0..b.len() {
                    if i % 8 == 0 {
                        elems.push_str("\n  ");
                    }
                    elems.push_str(&c_literal(b.get(i)));
                    elems.push_str(", ");
                }
                if b.is_empty() {
                    elems.push('0');
                }
                let _ = writeln!(c, "static const {ct} arg{k}[] = {{{elems}\n}};\n");
                args.push(format!("arg{k}"));
            }
        }
    }
    let _ = writeln!(
        c,
        "int main(void) {{\n  struct gradus_context *ctx = gradus_context_new();\n  if (!ctx) {{\n    fprintf(stderr, \"out of memory\\n\");\n    return 1;\n  }}"
    );
    let mut outs = Vec::new();
    for (k, r) in f.results.iter().enumerate() {
        let ct = c_type(r.elem);
        if r.dims.is_empty() {
            let _ = writeln!(c, "  {ct} r{k};");
            outs.push(format!("&r{k}"));
        } else {
            let _ = writeln!(c, "  {ct} *r{k};\n  int64_t r{k}_shape[{}];", r.dims.len());
            outs.push(format!("&r{k}"));
            outs.push(format!("r{k}_shape"));
        }
    }
    let all: Vec<String> = std::iter::once("ctx".to_string())
        .chain(outs)
        .chain(args)
        .collect();
    let _ = writeln!(
        c,
        "  if ({}({}) != 0) {{\n    fprintf(stderr, \"%s\\n\", gradus_context_get_error(ctx));\n    gradus_context_free(ctx);\n    return 1;\n  }}",
        e.name,
        all.join(", ")
    );
    for (k, r) in f.results.iter().enumerate() {
        if r.dims.is_empty() {
            let _ = writeln!(c, "  printf(\"result {k}: %.17g\\n\", (double)r{k});");
        } else {
            let rank = r.dims.len();
            let _ = writeln!(
                c,
                "  {{\n    int64_t n = 1;\n    printf(\"result {k}: shape\");\n    for (int j = 0; j < {rank}; j++) {{ printf(\" %lld\", (long long)r{k}_shape[j]); n *= r{k}_shape[j]; }}\n    printf(\", first elements:\");\n    for (int64_t i = 0; i < n && i < 8; i++) printf(\" %.17g\", (double)r{k}[i]);\n    printf(\"\\n\");\n    gradus_free(r{k});\n  }}"
            );
        }
    }
    let _ = writeln!(c, "  gradus_context_free(ctx);\n  return 0;\n}}");
    c.replace("\n*", "\n *")
}

/// Runs `gradus c`; returns the exit code.
pub fn c(a: CArgs) -> u8 {
    let (_, source, program) = match crate::common::load_program(&a.program, &a.opt.options()) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let name: String = a
        .program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prog".into())
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    use crate::common::Backend;
    if a.backend == Some(Backend::Interpreter) {
        eprintln!("Error: gradus c makes a library of generated C: --backend interp has none");
        return 2;
    }
    let gpu = a.backend == Some(Backend::Gpu);
    let sequential = a.sequential || a.backend == Some(Backend::C);
    let opts = NativeOptions {
        multicore: !sequential && !gpu,
        threads: None,
        safe: !a.no_checks,
        gpu,
    };
    let lowered = || {
        gradus::pipeline::prepare_for_lowering(program.core())
            .and_then(|prog| lower_prog(&prog, program.sources(), opts))
    };
    let low = match catch_panic(lowered) {
        Ok(Ok(l)) => l,
        Ok(Err(m)) => {
            eprintln!("Error: {m}");
            return 1;
        }
        Err(p) => {
            eprintln!("internal error: gradus panicked: {p}");
            return 4;
        }
    };
    let eps = program.entry_points();
    let api = api_entries(&low, &program, &eps);
    let code = print::print_program_for(&low, gpu) + &api_source(&low, &api);
    // The example calls the first entry point that has arguments it can run on.
    let chosen = api.iter().find_map(|e| {
        let ep = eps.iter().find(|ep| ep.name == e.f.entry)?;
        example_input(&a.program, &source, &program, ep).map(|input| (e, input))
    });
    if chosen.is_none() && !api.is_empty() {
        eprintln!(
            "gradus c: no example caller: no entry point has a test input or made-up arguments it runs on"
        );
    }
    if let Err(e) = std::fs::create_dir_all(&a.out) {
        eprintln!("Error: cannot create {}: {e}", a.out.display());
        return 1;
    }
    let src = a.out.join(format!("{name}.c"));
    let hdr = a.out.join(format!("{name}.h"));
    let lib = a.out.join(format!("lib{name}.so"));
    let ex = a.out.join("example.c");
    let mut files = vec![(&src, code), (&hdr, header(&name, &low, &api))];
    if let Some((e, input)) = &chosen {
        files.push((&ex, example(&name, e, input)));
    }
    for (p, text) in files {
        if let Err(e) = std::fs::write(p, text) {
            eprintln!("Error: cannot write {}: {e}", p.display());
            return 1;
        }
    }
    let tc = match build::Toolchain::from_env() {
        Ok(t) => t,
        Err(m) => {
            eprintln!("Error: {m}");
            return 1;
        }
    };
    if let Err(m) = build::compile(&src, &lib, &tc, &tc.flags(opts.multicore)) {
        eprintln!("Error: {m}");
        return 4;
    }
    if chosen.is_some() {
        let out = std::process::Command::new(&tc.cc)
            .arg("example.c")
            .args(["-o", "example", "-L.", &format!("-l{name}")])
            .arg("-Wl,-rpath,$ORIGIN")
            .arg("-lm")
            .current_dir(&a.out)
            .output();
        match out {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                eprintln!(
                    "Error: the example did not compile:\n{}",
                    String::from_utf8_lossy(&o.stderr)
                );
                return 4;
            }
            Err(e) => {
                eprintln!("Error: cannot run {}: {e}", tc.cc);
                return 1;
            }
        }
        println!(
            "wrote {}, {}, {} and {} (built as {})",
            src.display(),
            hdr.display(),
            lib.display(),
            ex.display(),
            a.out.join("example").display()
        );
    } else {
        println!(
            "wrote {}, {} and {}",
            src.display(),
            hdr.display(),
            lib.display()
        );
    }
    0
}
