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

    pub(super) fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A parallel loop whose accumulators may be privatised (see [`Stm::ParFor`]): when the
    /// accumulators are small next to the loop's work and their copies can be allocated,
    /// each chunk of iterations (four per thread, taken by whichever thread is free) zeroes
    /// its own copy and adds into it without atomics, and the copies are summed into the
    /// accumulators in chunk order (deterministic for a given thread count); otherwise the
    /// loop runs with atomic additions.
    #[allow(clippy::too_many_arguments)]
    fn privatised_par_for(
        &mut self,
        var: &str,
        bound: &Ex,
        work: &Ex,
        body: &[Stm],
        private: &[imp::Private],
        private_body: &[Stm],
        d: usize,
    ) {
        let (b, w) = (self.ex(bound), self.ex(work));
        let outer = self.fail_label();
        self.labels += 1;
        let id = self.labels;
        let counts: Vec<String> = private.iter().map(|p| self.ex(&p.count)).collect();
        let parts: Vec<String> = (0..private.len())
            .map(|k| format!("gr_pv{id}_{k}"))
            .collect();
        self.line(d, "{");
        self.line(d + 1, &format!("int64_t gr_n GR_UNUSED = {b};"));
        // One thread: no copies and no atomics needed. The same test as a plain parallel
        // loop's, whatever the call's team: the choice of the team then never changes how
        // sums are split.
        self.big_loop_test(&w, d + 1);
        self.line(d + 1, "if (!gr_big) {");
        self.sequential_par_for(var, private_body, false, d + 2);
        self.line(d + 1, "} else {");
        let d = d + 1;
        // Copies per chunk of iterations, four chunks per thread, taken by threads as they
        // become free; summed in chunk order, so the result depends on the thread count
        // but not on which thread ran which chunk.
        self.line(d + 1, "int64_t gr_nc = 4 * (int64_t)gr_nt;");
        self.line(d + 1, "int gr_priv = 0;");
        for (p, part) in private.iter().zip(&parts) {
            let t = c_type(p.elem);
            self.line(d + 1, &format!("{t} *{part} = NULL;"));
        }
        let total = counts
            .iter()
            .map(|c| format!("({c})"))
            .collect::<Vec<_>>()
            .join(" + ");
        self.line(d + 1, &format!("if (({total}) * gr_nc <= ({w})) {{"));
        // Not zeroed here: each chunk zeroes its own copy (below).
        for ((p, part), c) in private.iter().zip(&parts).zip(&counts) {
            let t = c_type(p.elem);
            self.line(
                d + 2,
                &format!(
                    "{part} = ({t} *)malloc(((size_t)gr_nc * (size_t)({c}) + 1) * sizeof({t}));"
                ),
            );
        }
        let all = parts
            .iter()
            .map(|p| format!("{p} != NULL"))
            .collect::<Vec<_>>()
            .join(" && ");
        self.line(d + 2, &format!("gr_priv = {all};"));
        self.line(d + 1, "}");
        self.line(d + 1, "if (gr_priv) {");
        self.line(d + 2, "#ifdef _OPENMP");
        // On a call that runs on one thread (see `gr_par_pick`) the chunks are the same, so
        // the sums are.
        self.line(
            d + 2,
            "#pragma omp parallel num_threads(gr_team) if (gr_team > 1)",
        );
        self.line(d + 2, "#endif");
        self.line(d + 2, "{");
        // Each thread runs its chunks one after another, so its slots serve all of them.
        self.open_slots(1);
        self.line(d + 3, "#ifdef _OPENMP");
        self.line(d + 3, "#pragma omp for schedule(dynamic, 1)");
        self.line(d + 3, "#endif");
        self.line(d + 3, "for (int64_t gr_c = 0; gr_c < gr_nc; gr_c++) {");
        for ((p, part), c) in private.iter().zip(&parts).zip(&counts) {
            let t = c_type(p.elem);
            // Shadows the shared accumulator inside this block. Zeroed by the thread that
            // runs the chunk, just before it adds into it: zeroed on the calling thread
            // before the loop, the other threads' copies sat in that thread's cache, to be
            // fetched from there line by line.
            self.line(
                d + 4,
                &format!("{t} *{} GR_UNUSED = {part} + gr_c * ({c});", p.arr),
            );
            self.line(
                d + 4,
                &format!("memset({}, 0, (size_t)({c}) * sizeof({t}));", p.arr),
            );
        }
        self.line(d + 4, "int64_t gr_lo = gr_c * gr_n / gr_nc;");
        self.line(d + 4, "int64_t gr_hi = (gr_c + 1) * gr_n / gr_nc;");
        self.par_for_range(var, "gr_lo", "gr_hi", private_body, d + 4);
        self.line(d + 3, "}");
        self.close_slots(d + 3);
        for ((p, part), c) in private.iter().zip(&parts).zip(&counts) {
            let t = c_type(p.elem);
            self.line(d + 3, "#ifdef _OPENMP");
            self.line(d + 3, "#pragma omp for schedule(static)");
            self.line(d + 3, "#endif");
            self.line(
                d + 3,
                &format!("for (int64_t gr_e = 0; gr_e < ({c}); gr_e++) {{"),
            );
            self.line(d + 4, &format!("{t} gr_s = 0;"));
            self.line(
                d + 4,
                &format!(
                    "for (int64_t gr_u = 0; gr_u < gr_nc; gr_u++) gr_s += {part}[gr_u * ({c}) + gr_e];"
                ),
            );
            self.line(d + 4, &format!("{}[gr_e] += gr_s;", p.arr));
            self.line(d + 3, "}");
        }
        self.line(d + 2, "}");
        for part in &parts {
            self.line(d + 2, &format!("free({part});"));
        }
        self.line(d + 1, "} else {");
        for part in &parts {
            self.line(d + 2, &format!("free({part});"));
        }
        self.omp_par_for(var, body, d + 2);
        self.line(d + 1, "}");
        let d = d - 1;
        self.line(d + 1, "}");
        let key = self.iter_key();
        self.line(d + 1, &format!("if (gr_stop(ctx, {key})) goto {outer};"));
        self.line(d, "}");
    }

    /// The loop of a [`Stm::ParFor`] run by one thread. Its allocation sites take slots of
    /// the enclosing scope, which outlives the loop, so a loop that runs many times (inside
    /// a sequential loop) allocates once; or of a scope of its own where the enclosing one
    /// has none.
    /// With `independent`, the loop is marked for vectorisation without overlap checks (see
    /// [`Stm::For`]).
    pub(super) fn sequential_par_for(
        &mut self,
        var: &str,
        body: &[Stm],
        independent: bool,
        d: usize,
    ) {
        let mark = |p: &mut Self| {
            if independent && !fails_at_once(body) {
                p.line(d, "GR_INDEPENDENT");
            }
            p.one_thread_loop(var, body, d);
        };
        if !self.slot_scopes.is_empty() {
            self.in_loop(mark);
        } else {
            self.open_slots(1);
            mark(self);
            self.close_slots(d);
        }
    }

    /// Declares `gr_big`: whether a parallel loop of estimated work `w` is large enough for
    /// threads, on a call that has them. Such loops count their work for the call's choice of
    /// team (`gr_par_pick`), whatever the choice.
    fn big_loop_test(&mut self, w: &str, d: usize) {
        self.line(
            d,
            &format!("int gr_big = gr_nt > 1 && ({w}) >= GR_PAR_MIN_WORK;"),
        );
        self.line(
            d,
            &format!("if (gr_big) {{ gr_par_work += {w}; gr_par_loops++; }}"),
        );
    }

    /// The loop of a [`Stm::ParFor`] over `gr_n` iterations shared among `gr_nt` threads.
    /// Threads take chunks of about an eighth of their share as they become free: when
    /// another process holds a core, the thread that runs does most of the work instead of
    /// waiting at the loop's end for the one that was descheduled with half of it. Each
    /// iteration writes its own results, so the schedule does not change them.
    fn omp_par_for(&mut self, var: &str, body: &[Stm], d: usize) {
        self.line(
            d,
            "int64_t gr_ch GR_UNUSED = gr_n / (8 * (int64_t)gr_team) + 1;",
        );
        self.line(d, "#ifdef _OPENMP");
        self.line(d, "#pragma omp parallel num_threads(gr_team)");
        self.line(d, "#endif");
        self.line(d, "{");
        self.open_slots(1);
        self.line(d + 1, "#ifdef _OPENMP");
        self.line(d + 1, "#pragma omp for schedule(dynamic, gr_ch)");
        self.line(d + 1, "#endif");
        self.par_for_loop(var, body, d + 1);
        self.close_slots(d + 1);
        self.line(d, "}");
    }

    /// The loop of a [`Stm::ParFor`] over `gr_n` iterations (the pragma, if any, is printed
    /// before it).
    fn par_for_loop(&mut self, var: &str, body: &[Stm], d: usize) {
        self.par_for_range(var, "0", "gr_n", body, d)
    }

    /// The loop of a [`Stm::ParFor`] over `gr_n` iterations run in order by one thread. An
    /// error leaves the loop at once, since every later iteration would be skipped: so no
    /// iteration checks whether an earlier one failed (`gr_stop`, see [`Self::par_for_range`]),
    /// and the loop is the one the `c` backend prints (the check made BA's objective, about
    /// 20 ns an iteration, 2 % slower on one thread).
    fn one_thread_loop(&mut self, var: &str, body: &[Stm], d: usize) {
        self.labels += 1;
        let label = format!("gr_loop_end_{}", self.labels);
        self.line(
            d,
            &format!("for (int64_t {var} = 0; {var} < gr_n; {var}++) {{"),
        );
        // Errors are still ordered by the outermost parallel loop's counter (see
        // `par_for_range`): this loop may run inside an iteration of one.
        let outermost = self.iter_key.is_none();
        if outermost {
            self.iter_key = Some(var.to_string());
        }
        self.fail_labels.push((label.clone(), false));
        self.stms(body, d + 1);
        self.fail_labels.pop();
        if outermost {
            self.iter_key = None;
        }
        self.line(d, "}");
        self.line(d, &format!("{label}: GR_UNUSED;"));
    }

    /// The loop of a [`Stm::ParFor`] over the iterations `from..to`.
    fn par_for_range(&mut self, var: &str, from: &str, to: &str, body: &[Stm], d: usize) {
        self.labels += 1;
        let label = format!("gr_iter_end_{}", self.labels);
        self.line(
            d,
            &format!("for (int64_t {var} = {from}; {var} < {to}; {var}++) {{"),
        );
        // The outermost parallel loop orders errors by its own counter; a nested one by the
        // enclosing iteration of the outermost (only that loop's iterations run concurrently).
        let outermost = self.iter_key.is_none();
        if outermost {
            self.iter_key = Some(var.to_string());
        }
        let key = self.iter_key();
        let stop_at = self.out.len();
        self.fail_labels.push((label.clone(), false));
        self.stms(body, d + 1);
        let can_fail = self.fail_labels.pop().is_some_and(|(_, used)| used);
        // An iteration skips its work once another has failed (its error would be reported
        // instead). A body with no way to fail (nothing in it jumps to `label`) needs no such
        // check, and without it a loop of arithmetic stays vectorisable: GCC does not
        // vectorise a loop with the check's branch in it.
        if can_fail {
            let check = format!("{}if (gr_stop(ctx, {key})) continue;\n", "  ".repeat(d + 1));
            self.out.insert_str(stop_at, &check);
        }
        if outermost {
            self.iter_key = None;
        }
        self.line(d + 1, &format!("{label}: GR_UNUSED;"));
        self.line(d, "}");
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
                independent,
            } => {
                if !*down && self.sums_in_lanes(var, bound, body, d) {
                    return;
                }
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
            Stm::ParFor {
                var,
                bound,
                work,
                body,
                private,
                private_body,
                ..
            } if !private.is_empty() => {
                self.privatised_par_for(var, bound, work, body, private, private_body, d);
            }
            Stm::ParFor {
                var,
                bound,
                work,
                body,
                independent,
                ..
            } => {
                let (b, w) = (self.ex(bound), self.ex(work));
                let outer = self.fail_label();
                self.line(d, "{");
                self.line(d + 1, &format!("int64_t gr_n GR_UNUSED = {b};"));
                // Starting a team costs allocations and wake-ups even for one thread, which
                // dominates a small loop run many times (inside a sequential loop): small
                // loops and single-threaded calls take a plain loop instead. The loops that
                // could use threads count their work for the choice of the call's team
                // (`gr_par_pick`).
                self.big_loop_test(&w, d + 1);
                self.line(d + 1, "if (gr_big && gr_team > 1) {");
                self.omp_par_for(var, body, d + 2);
                self.line(d + 1, "} else {");
                // On one thread no addition needs to be atomic (an atomic addition of floats
                // is a compare-and-swap loop, and keeps the loop from being vectorised).
                let independent = *independent && !at_most_once(bound);
                self.sequential_par_for(var, &imp::without_atomics(body), independent, d + 2);
                self.line(d + 1, "}");
                let key = self.iter_key();
                self.line(d + 1, &format!("if (gr_stop(ctx, {key})) goto {outer};"));
                self.line(d, "}");
            }
            Stm::While { cond, body } => {
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
