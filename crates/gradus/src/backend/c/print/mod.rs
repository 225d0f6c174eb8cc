//! Printing the imperative IR as C (C11 with GNU extensions, as gcc and clang accept it).
//!
//! The output is one translation unit: a small runtime (reference-counted buffers, error
//! recording), the primitive operations the program uses, and one exported function per
//! entry point:
//!
//! ```c
//! int gradus_entry_K(struct gr_ctx *ctx, void *const *in, void **out, int64_t *shapes);
//! ```
//!
//! `in` points to the inputs (size parameters and scalars by address, arrays by their first
//! element), in the order of [`imp::Function::inputs`]. For result `k`, `out[2k]` receives the
//! data pointer of an array (for a scalar, the caller stores the address where it is written)
//! and `out[2k+1]` the buffer that owns it, to be released with `gradus_release`; the
//! dimensions of all array results are written one after another to `shapes`. The function
//! returns 0, or 1 after recording an error site and its values in `ctx`.
//!
//! Parallel loops are OpenMP `parallel for` loops (without `-fopenmp` they are ordinary
//! loops). An error inside one is recorded in `ctx` with the iteration it happened in, unless
//! an earlier iteration's error is recorded already, and skips the rest of its iteration (a
//! `goto` to the end of the iteration body, since nothing may jump out of an OpenMP region);
//! later iterations then return at once, and the error is reported after the loop. So the
//! error reported is the sequentially first one, as on one thread and in the interpreter.

use super::prims::{c_type, definition, fn_name, inline};
use super::runtime::RUNTIME;
use crate::backend::lower::imp::{self, Ex, Share, SiteKind, Stm, Ty};
use crate::core::prim::PrimOp;
use crate::core::scalar::{PrimType, Scalar};
use std::collections::BTreeMap;
use std::fmt::Write;

mod function;
mod lanes;
mod outline;
mod par_for;

/// Number of values an error site can record.
pub const MAX_ARGS: usize = 32;

/// The functions of the runtime every generated library exports besides its entry points
/// (code that links several libraries into one program renames them apart).
pub const RUNTIME_EXPORTS: &[&str] = &[
    "gradus_release",
    "gradus_abi_version",
    "gradus_copied_bytes",
];

/// The start of the line that opens each entry point's code (the comment naming it): the
/// code from one such line to the next belongs to one entry point, which is how a library
/// is split into translation units compiled at the same time (`build::units`).
pub const ENTRY_MARK: &str = "/* entry point ";

/// The first line of a program printed for the `gpu` backend (which is compiled as one
/// translation unit).
pub const GPU_MARK: &str = "#define GR_GPU 1\n";

pub(super) struct Printer<'a> {
    pub(super) prog: &'a imp::Program,
    pub(super) out: String,
    /// Primitive operations used, by function name.
    pub(super) prims: BTreeMap<String, PrimOp>,
    /// Where an error jumps to: the innermost enclosing parallel iteration (with whether
    /// anything printed so far jumps there), or the function's error exit.
    pub(super) fail_labels: Vec<(String, bool)>,
    /// The counter of the outermost enclosing parallel loop: errors are ordered by it (see
    /// `gr_fail`).
    pub(super) iter_key: Option<String>,
    pub(super) labels: usize,
    /// Where allocations inside loops get their slots (see `gr_alloc_slot`): the function,
    /// and each thread's part of a parallel loop.
    slot_scopes: Vec<SlotScope>,
    /// For the `gpu` backend: the kernels and what printing them needs.
    pub(super) gpu: Option<super::gpu::GpuState>,
    /// Set to print only one version of the next parallel loop (its function, see
    /// `par_for.rs`).
    par_for_version: Option<par_for::Version>,
    /// Set while printing loops of sums without lanes (see `lanes.rs`).
    lanes_off: bool,
    /// What splits large entry points into several functions.
    outliner: outline::Outliner,
}

/// The slots of the allocation sites in a function or in one thread's part of a parallel
/// loop; their declarations go at `insert_at` once the scope has been printed.
struct SlotScope {
    insert_at: usize,
    /// How many loops of this scope enclose the statement being printed.
    loops: usize,
    slots: Vec<String>,
}

/// Prints the whole program as C.
pub fn print_program(prog: &imp::Program) -> String {
    print_program_for(prog, false)
}

/// Prints the whole program as C; with `gpu`, its outermost parallel loops as OpenCL
/// kernels launched by the host code (see [`super::gpu`]).
pub fn print_program_for(prog: &imp::Program, gpu: bool) -> String {
    let mut p = Printer::new(prog, gpu);
    for f in &prog.functions {
        p.function(f);
    }
    // The lowering omits the sequential version of reductions whose elements cost the
    // default threshold each.
    let mut head = if gpu {
        GPU_MARK.to_string()
    } else {
        String::new()
    };
    let _ = writeln!(
        head,
        "#define GR_PAR_CHUNK_MIN_WORK_DEFAULT {}",
        crate::backend::lower::PAR_CHUNK_MIN_WORK_DEFAULT
    );
    if gpu {
        for (name, value) in [
            (
                crate::backend::lower::GPU_REDUCE_CHUNKS,
                crate::backend::lower::GPU_REDUCE_CHUNKS_DEFAULT,
            ),
            (
                crate::backend::lower::GPU_COMBINE_GROUPS,
                crate::backend::lower::GPU_COMBINE_GROUPS_DEFAULT,
            ),
            (
                crate::backend::lower::GPU_GROUP_SIZE,
                crate::backend::lower::GPU_GROUP_SIZE_DEFAULT,
            ),
        ] {
            let _ = writeln!(head, "#ifndef {name}\n#define {name} {value}\n#endif");
        }
    }
    head.push_str(RUNTIME);
    for op in p.prims.values() {
        if let Some(d) = definition(*op) {
            head.push_str(&d);
        }
    }
    head.push('\n');
    if let Some(g) = &p.gpu {
        use super::gpu::{c_string, cuda, host, opencl, prelude};
        let _ = writeln!(head, "#define GR_GPU_KERNELS {}", g.kernels.len());
        let _ = writeln!(head, "#define GR_GPU_MAXARGS {}", g.max_params);
        // The kernels see the host's group size (a number, stringified).
        let size = crate::backend::lower::GPU_GROUP_SIZE;
        let _ = writeln!(
            head,
            "#define GR_GPU_STR_(x) #x\n#define GR_GPU_STR(x) GR_GPU_STR_(x)"
        );
        for (name, pre, text) in [
            ("gr_gpu_prelude_opencl", "", prelude::OPENCL.to_string()),
            ("gr_gpu_prelude_cuda", "", prelude::CUDA.to_string()),
            (
                "gr_gpu_kernels",
                &*format!("\"#define {size} \" GR_GPU_STR({size}) \"\\n\" "),
                p.kernel_text_common(),
            ),
        ] {
            let _ = writeln!(
                head,
                "static const char {name}[] = {pre}{};",
                c_string(&text)
            );
        }
        for runtime in [
            host::DEVICE_INTERFACE,
            cuda::RUNTIME,
            opencl::RUNTIME,
            host::HOST_RUNTIME,
        ] {
            head.push_str(runtime);
        }
    }
    head.push_str(&p.out);
    head
}

impl<'a> Printer<'a> {
    /// A printer of `prog`, for the `gpu` backend with `gpu`.
    pub(super) fn new(prog: &'a imp::Program, gpu: bool) -> Printer<'a> {
        Printer {
            prog,
            out: String::new(),
            prims: BTreeMap::new(),
            fail_labels: Vec::new(),
            iter_key: None,
            labels: 0,
            slot_scopes: Vec::new(),
            gpu: gpu.then(Default::default),
            outliner: Default::default(),
            par_for_version: None,
            lanes_off: false,
        }
    }
}

/// A constant as C.
fn constant(c: Scalar) -> String {
    match c {
        Scalar::Bool(b) => b.to_string(),
        Scalar::F64(x) => {
            if x.is_nan() {
                "((double)NAN)".into()
            } else if x.is_infinite() {
                if x > 0.0 {
                    "((double)INFINITY)"
                } else {
                    "(-(double)INFINITY)"
                }
                .into()
            } else {
                format!("({x:?})")
            }
        }
        Scalar::F32(x) => {
            if x.is_nan() {
                "((float)NAN)".into()
            } else if x.is_infinite() {
                if x > 0.0 {
                    "((float)INFINITY)"
                } else {
                    "(-(float)INFINITY)"
                }
                .into()
            } else {
                let s = format!("{x:?}");
                format!("({s}f)")
            }
        }
        Scalar::I64(v) => {
            if v == i64::MIN {
                "INT64_MIN".into()
            } else if (i32::MIN as i64..=i32::MAX as i64).contains(&v) {
                if v < 0 {
                    format!("({v})")
                } else {
                    v.to_string()
                }
            } else {
                format!("INT64_C({v})")
            }
        }
        Scalar::U64(v) => format!("UINT64_C({v})"),
        other => {
            let v = other.as_i64().unwrap_or(0);
            format!("(({}){v})", c_type(other.prim_type()))
        }
    }
}

impl Printer<'_> {
    pub(super) fn ex(&mut self, e: &Ex) -> String {
        match e {
            Ex::Var(v) => v.clone(),
            Ex::Const(c) => constant(*c),
            Ex::Prim(op, args) => {
                let a: Vec<String> = args.iter().map(|x| self.ex(x)).collect();
                if let Some(s) = inline(*op, &a) {
                    return s;
                }
                let name = fn_name(*op);
                self.prims.insert(name.clone(), *op);
                format!("{name}({})", a.join(", "))
            }
            Ex::Idx(op, a, b) => format!("({} {} {})", self.ex(a), op.c(), self.ex(b)),
            Ex::Load { arr, idx, .. } => format!("{arr}[{}]", self.ex(idx)),
            Ex::Not(a) => format!("(!{})", self.ex(a)),
        }
    }

    /// Puts `GR_SIMD_SUM(accumulators)` in place of the text between `start` and `head_at`
    /// (a `GR_INDEPENDENT` mark, or nothing) before the loop just printed from `head_at`
    /// when its `body` is marked as a loop of float sums (`lower::SIMD_SUM`) and its text
    /// leaves the loop only at its end (no `goto`, `return` or `break`, which a vectorised
    /// loop may not hold) and holds no loop of sums in lanes (`lanes.rs`): the C compiler
    /// may then reassociate those sums, and only them. (Around a loop in lanes, GCC would
    /// vectorise the outer loop, reading the inner loop's rows across lanes with gathers.)
    fn mark_simd_sums(&mut self, body: &[Stm], (start, head_at): (usize, usize), d: usize) {
        let accs = body.iter().find_map(|s| match s {
            Stm::Comment(c) => c.strip_prefix(crate::backend::lower::SIMD_SUM),
            _ => None,
        });
        let Some(accs) = accs else { return };
        let text = &self.out[head_at..];
        if ["goto ", "return", "break;", lanes::OPENING]
            .iter()
            .any(|w| text.contains(w))
        {
            return;
        }
        let mark = format!(
            "{}GR_SIMD_SUM({})\n",
            "  ".repeat(d),
            accs.replace(' ', ", ")
        );
        self.out.replace_range(start..head_at, &mark);
    }

    /// The sequential loop `s` (a [`Stm::For`]) as a C `for`, marked for vectorisation where
    /// its iterations are independent or it is a loop of float sums.
    pub(super) fn plain_for(&mut self, s: &Stm, d: usize) {
        let Stm::For {
            var,
            bound,
            down,
            body,
            independent,
            ..
        } = s
        else {
            return;
        };
        let b = self.ex(bound);
        let start = self.out.len();
        if *independent && !fails_at_once(body) && !at_most_once(bound) {
            self.line(d, "GR_INDEPENDENT");
        }
        let head_at = self.out.len();
        let head = if *down {
            format!("for (int64_t {var} = ({b}) - 1; {var} >= 0; {var}--) {{")
        } else {
            format!("for (int64_t {var} = 0; {var} < {b}; {var}++) {{")
        };
        self.line(d, &head);
        self.in_loop(|p| p.stms(body, d + 1));
        self.line(d, "}");
        self.mark_simd_sums(body, (start, head_at), d);
    }

    pub(super) fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// The position of the code being printed in the order of errors (see `gr_fail`).
    pub(super) fn iter_key(&self) -> String {
        self.iter_key.clone().unwrap_or_else(|| "INT64_MAX".into())
    }

    /// Opens a scope for slots whose declarations go at the current end of the output.
    fn open_slots(&mut self, loops: usize) {
        self.slot_scopes.push(SlotScope {
            insert_at: self.out.len(),
            loops,
            slots: Vec::new(),
        });
    }

    /// Closes the innermost slot scope: prints its releases at depth `d` and inserts its
    /// declarations where it was opened. Returns its slots.
    fn close_slots(&mut self, d: usize) -> Vec<String> {
        let Some(scope) = self.slot_scopes.pop() else {
            return Vec::new();
        };
        for slot in &scope.slots {
            self.line(d, &format!("gr_slot_release(&{slot});"));
        }
        let indent = "  ".repeat(d);
        let decls: String = scope
            .slots
            .iter()
            .map(|slot| format!("{indent}gr_mem *{slot} GR_UNUSED = NULL;\n"))
            .collect();
        self.out.insert_str(scope.insert_at, &decls);
        scope.slots
    }

    /// Runs `f` one loop deeper in the current slot scope.
    pub(super) fn in_loop(&mut self, f: impl FnOnce(&mut Self)) {
        if let Some(s) = self.slot_scopes.last_mut() {
            s.loops += 1;
        }
        f(self);
        if let Some(s) = self.slot_scopes.last_mut() {
            s.loops -= 1;
        }
    }

    /// A new slot for an allocation site, if the site is inside a loop of a scope that has
    /// slots.
    fn new_slot(&mut self) -> Option<String> {
        let scope = self.slot_scopes.last_mut()?;
        if scope.loops == 0 {
            return None;
        }
        self.labels += 1;
        let name = format!("gr_slot_{}", self.labels);
        scope.slots.push(name.clone());
        Some(name)
    }

    /// A fresh block of `count` elements for `arr` (from the site's slot inside loops).
    fn alloc(&mut self, d: usize, arr: &str, elem: PrimType, count: &Ex) {
        let ct = c_type(elem);
        let bytes = format!(
            "gr_size_mul({}, (int64_t)sizeof({ct}))",
            self.size_ex(count)
        );
        let call = match self.new_slot() {
            Some(slot) => format!("gr_alloc_slot(&{slot}, "),
            None => "gr_alloc(".into(),
        };
        self.line(d, &format!("{arr} = ({ct} *){call}&{arr}_m, {bytes});"));
        self.line(d, &format!("if (!{arr})"));
        self.fail(d + 1, -1, vec![bytes]);
    }

    /// The element count `e` of an allocation, its sums and products saturating at
    /// `INT64_MAX` (`gr_size_add`, `gr_size_mul`): a size too large for 64 bits then fails
    /// to allocate, where wrapped around it could give a small block that the code filling
    /// the array would overrun.
    fn size_ex(&mut self, e: &Ex) -> String {
        match e {
            Ex::Idx(op @ (imp::IdxOp::Add | imp::IdxOp::Mul), a, b) => {
                let f = if *op == imp::IdxOp::Add { "add" } else { "mul" };
                format!("gr_size_{f}({}, {})", self.size_ex(a), self.size_ex(b))
            }
            _ => self.ex(e),
        }
    }

    /// The label an error jumps to, marked as jumped to.
    pub(super) fn fail_label(&mut self) -> String {
        match self.fail_labels.last_mut() {
            Some((label, used)) => {
                *used = true;
                label.clone()
            }
            None => "gr_error".into(),
        }
    }

    /// The values of an error site as `int64_t` initialisers.
    fn site_args(&mut self, site: usize, args: &[Ex]) -> Vec<String> {
        let types: Option<Vec<PrimType>> = match self.prog.sites.get(site).map(|s| &s.kind) {
            Some(SiteKind::Template { types, .. }) => Some(types.clone()),
            _ => None,
        };
        args.iter()
            .take(MAX_ARGS)
            .enumerate()
            .map(|(k, a)| {
                let s = self.ex(a);
                match types.as_ref().and_then(|t| t.get(k)) {
                    Some(t) if t.is_float() => format!("gr_bits_f64((double){s})"),
                    _ => format!("(int64_t){s}"),
                }
            })
            .collect()
    }

    fn fail(&mut self, depth: usize, site: i64, args: Vec<String>) {
        let n = args.len();
        let arr = if args.is_empty() {
            "0".to_string()
        } else {
            args.join(", ")
        };
        let label = self.fail_label();
        let exit = if label == super::gpu::KERNEL_EXIT {
            "return;".to_string()
        } else {
            format!("goto {label};")
        };
        let key = self.iter_key();
        self.line(
            depth,
            &format!(
                "{{ const int64_t gr_a[{}] = {{{arr}}}; gr_fail(ctx, {key}, {site}, {n}, gr_a); {exit} }}",
                n.max(1)
            ),
        );
    }

    pub(super) fn stms(&mut self, stms: &[Stm], d: usize) {
        for s in stms {
            self.stm(s, d);
        }
    }

    pub(super) fn stm(&mut self, s: &Stm, d: usize) {
        // The gpu backend's code is one unit, and its host code is not split.
        if self.gpu.is_none() && self.outline(s, d) {
            return;
        }
        if self.gpu.as_ref().is_some_and(|g| !g.in_kernel) && self.gpu_host_stm(s, d) {
            return;
        }
        match s {
            Stm::Decl { ty, name, init } => match ty {
                Ty::Prim(t) => {
                    // Zero without an initial value: a variable assigned on some paths only is
                    // still copied whole into and out of split-off functions (`outline`), and
                    // an indeterminate `bool` may not even be loaded.
                    let init = match init {
                        Some(i) => format!(" = {}", self.ex(i)),
                        None => " = 0".into(),
                    };
                    self.line(d, &format!("{} {name} GR_UNUSED{init};", c_type(*t)));
                }
                Ty::Array(t) => self.line(
                    d,
                    &format!(
                        "{} *{name} GR_UNUSED = NULL; gr_mem *{name}_m GR_UNUSED = NULL;",
                        c_type(*t)
                    ),
                ),
                Ty::Ptr(t) => self.line(d, &format!("{} *{name} GR_UNUSED = NULL;", c_type(*t))),
            },
            Stm::Set { name, val } => {
                let v = self.ex(val);
                self.line(d, &format!("{name} = {v};"));
            }
            Stm::Store { arr, idx, val, .. } => {
                let (i, v) = (self.ex(idx), self.ex(val));
                self.line(d, &format!("{arr}[{i}] = {v};"));
            }
            Stm::AtomicAdd {
                elem,
                arr,
                idx,
                val,
                atomic,
            } => {
                let (i, v) = (self.ex(idx), self.ex(val));
                let slot = format!("{arr}[{i}]");
                if *elem == PrimType::Bool {
                    if *atomic {
                        self.line(
                            d,
                            &format!("__atomic_fetch_or((uint8_t *)&{slot}, (uint8_t){v}, __ATOMIC_RELAXED);"),
                        );
                    } else {
                        self.line(d, &format!("{slot} = {slot} | {v};"));
                    }
                } else if elem.is_float() {
                    if *atomic {
                        self.line(d, "#ifdef _OPENMP");
                        self.line(d, "#pragma omp atomic update");
                        self.line(d, "#endif");
                    }
                    self.line(d, &format!("{slot} += {v};"));
                } else {
                    let add = Ex::Prim(
                        PrimOp::Bin(crate::core::prim::BinOp::Add, *elem),
                        vec![Ex::Var(slot.clone()), Ex::Var(v.clone())],
                    );
                    if *atomic {
                        let ut = match elem.bits() {
                            8 => "uint8_t",
                            16 => "uint16_t",
                            32 => "uint32_t",
                            _ => "uint64_t",
                        };
                        self.line(
                            d,
                            &format!(
                                "__atomic_fetch_add(({ut} *)&{slot}, ({ut}){v}, __ATOMIC_RELAXED);"
                            ),
                        );
                    } else {
                        let a = self.ex(&add);
                        self.line(d, &format!("{slot} = {a};"));
                    }
                }
            }
            Stm::Alloc { arr, elem, count } => self.alloc(d, arr, *elem, count),
            Stm::AllocOrTake {
                arr,
                elem,
                count,
                srcs,
            } => {
                let ct = c_type(*elem);
                for (k, src) in srcs.iter().enumerate() {
                    let (open, cond) = (
                        if k == 0 { "if" } else { "} else if" },
                        format!("{src}_m && {src}_m->rc == 1"),
                    );
                    self.line(d, &format!("{open} ({cond}) {{"));
                    self.line(
                        d + 1,
                        &format!("{arr} = ({ct} *){src}; {arr}_m = {src}_m; {src}_m = NULL;"),
                    );
                }
                self.line(d, "} else {");
                self.alloc(d + 1, arr, *elem, count);
                self.line(d, "}");
            }
            Stm::SetArr {
                dst,
                src,
                offset,
                share,
            } => {
                let off = self.ex(offset);
                let ptr = if off == "0" {
                    src.clone()
                } else {
                    format!("{src} + {off}")
                };
                match share {
                    Share::Ref => self.line(
                        d,
                        &format!("{dst} = {ptr}; {dst}_m = {src}_m; gr_incref({dst}_m);"),
                    ),
                    Share::Borrow => self.line(d, &format!("{dst} = {ptr}; {dst}_m = NULL;")),
                    Share::Move => {
                        if dst == src {
                            return;
                        }
                        self.line(
                            d,
                            &format!("{dst} = {ptr}; {dst}_m = {src}_m; {src}_m = NULL;"),
                        )
                    }
                }
            }
            Stm::Decref(a) => self.line(d, &format!("gr_decref({a}_m); {a}_m = NULL;")),
            Stm::MakeUnique {
                arr,
                elem,
                count,
                counted,
            } => {
                let n = self.ex(count);
                let ct = c_type(*elem);
                let f = if *counted { "gr_unique" } else { "gr_own" };
                self.line(
                    d,
                    &format!(
                        "if ({f}((void **)&{arr}, &{arr}_m, (int64_t)({n}) * (int64_t)sizeof({ct})))"
                    ),
                );
                self.fail(
                    d + 1,
                    -1,
                    vec![format!("(int64_t)({n}) * (int64_t)sizeof({ct})")],
                );
            }
            Stm::Copy {
                elem,
                dst,
                dst_off,
                src,
                src_off,
                count,
            } => {
                let (a, b, n) = (self.ex(dst_off), self.ex(src_off), self.ex(count));
                let ct = c_type(*elem);
                if n == "1" {
                    self.line(d, &format!("{dst}[{a}] = {src}[{b}];"));
                } else {
                    self.line(
                        d,
                        &format!(
                            "gr_copy({dst} + {a}, {src} + {b}, (int64_t)({n}) * (int64_t)sizeof({ct}));"
                        ),
                    );
                }
            }
            Stm::For {
                var,
                bound,
                down,
                body,
                ..
            } => {
                if !*down && self.sums_in_lanes(var, bound, body, d) {
                    return;
                }
                if !*down && self.short_rows_choice(s, d) {
                    return;
                }
                self.plain_for(s, d);
            }
            Stm::ParFor { .. } => self.par_for(s, d),
            Stm::While { cond, body, .. } => {
                let c = self.ex(cond);
                self.line(d, &format!("while ({c}) {{"));
                self.in_loop(|p| p.stms(body, d + 1));
                self.line(d, "}");
            }
            Stm::If { cond, then, els } => {
                let c = self.ex(cond);
                self.line(d, &format!("if ({c}) {{"));
                self.stms(then, d + 1);
                if !els.is_empty() {
                    self.line(d, "} else {");
                    self.stms(els, d + 1);
                }
                self.line(d, "}");
            }
            Stm::Check { cond, site, args } => {
                let c = self.ex(cond);
                let a = self.site_args(*site, args);
                self.line(d, &format!("if (__builtin_expect(!({c}), 0))"));
                self.fail(d + 1, *site as i64, a);
            }
            Stm::Comment(c) => {
                let c = c.replace("*/", "* /");
                self.line(d, &format!("/* {c} */"));
            }
            // A kernel on the gpu backend (`gpu_host_stm`); the same order on one thread here.
            Stm::GroupTree(t) => {
                self.line(d, "{");
                self.stms(&t.host, d + 1);
                self.line(d, "}");
            }
        }
    }
}

/// Whether a loop body fails in its first iteration whatever the data (a check of a constant
/// index out of bounds): C compilers turn such a loop into straight-line code and drop its
/// vectorisation annotation with a warning, so it gets none.
pub(super) fn fails_at_once(body: &[Stm]) -> bool {
    body.iter()
        .any(|s| matches!(s, Stm::Check { cond, .. } if cond.is_false()))
}

/// Whether a loop of `bound` iterations runs at most once whatever the data: C compilers turn
/// it into straight-line code (or nothing) and drop its vectorisation annotation with a
/// warning, so it gets none.
pub(super) fn at_most_once(bound: &Ex) -> bool {
    bound.as_int().is_some_and(|n| n <= 1)
}
