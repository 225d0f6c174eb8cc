//! Printing for the `gpu` backend: the outermost parallel loops of the lowered program become
//! OpenCL kernels, and the rest of each entry point host code that launches them.
//!
//! **Takes** a lowered program whose parallel loops are [`Stm::ParFor`] (lowered with
//! `parallel`). **Guarantees**:
//! * a `ParFor` reached by host code becomes a kernel (one work-item per iteration, nested
//!   parallel loops run sequentially inside it) when its body allocates nothing, makes
//!   nothing unique and assigns no variable of the enclosing code ([`kernel_blocker`] says
//!   what stops one); otherwise it runs on the host, one iteration after another, and its own
//!   parallel loops may become kernels;
//! * host code makes the host copy of an array current before it reads or writes it
//!   ([`Printer::host_sync`]): per statement where the statement launches kernels, once
//!   before it otherwise;
//! * kernels read and write arrays through their buffers' device copies, which the launch
//!   makes current (see [`host`]), and report errors as the other backends do: the
//!   first failing iteration in sequential order;
//! * the kernels are one text for both device runtimes ([`prelude`]): OpenCL C, which NVRTC
//!   compiles as CUDA after the CUDA prelude.

pub mod cuda;
mod group_tree;
mod hoist;
pub mod host;
pub mod opencl;
pub mod prelude;
mod sub_hist;

use super::prims::{c_type, definition};
use super::print::Printer;
use crate::backend::lower::imp::{self, Ex, Stm, Ty};
use crate::core::prim::PrimOp;
use crate::core::scalar::PrimType;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

/// What the printer keeps for the `gpu` backend.
#[derive(Default)]
pub(super) struct GpuState {
    /// The types of the variables of the function being printed.
    pub types: HashMap<String, Ty>,
    /// The kernels printed so far, in order (kernel `k` is `gr_k{k}`).
    pub kernels: Vec<String>,
    /// Primitive operations the kernels use.
    pub prims: BTreeMap<String, PrimOp>,
    /// Whether the statement being printed is inside a kernel.
    pub in_kernel: bool,
    /// The entry point being printed.
    pub entry: String,
    /// The parallel loops that run on the host, and why.
    pub host_loops: Vec<String>,
    /// The most parameters of any kernel.
    pub max_params: usize,
    /// In a kernel with sub-histograms, the arrays whose atomic additions go to local copies.
    pub sub_hist: sub_hist::SubHistViews,
}

/// The kernels' dialect: the OpenCL C they are written in, or the CUDA C++ that NVRTC
/// compiles after [`prelude::CUDA`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// OpenCL C 1.2, for the OpenCL runtime.
    OpenCl,
    /// CUDA C++, for NVRTC.
    Cuda,
}

/// Where an error inside a kernel goes: the kernel returns.
pub(super) const KERNEL_EXIT: &str = "return";

/// How a statement list uses the variables declared outside it.
#[derive(Default, Debug)]
pub(super) struct Uses {
    /// Scalars read.
    pub scalars: BTreeSet<String>,
    /// Arrays whose pointer the code mentions, with whether their elements are read and
    /// whether they are written (directly or through a view declared inside).
    pub arrays: BTreeMap<String, (bool, bool)>,
    /// What keeps the code from running as a kernel, if anything.
    pub blocker: Option<&'static str>,
    /// The outer arrays that atomic additions update, with their element types.
    pub atomic_roots: BTreeMap<String, BTreeSet<PrimType>>,
    /// The outer array each array that atomic additions update views, where it views one.
    pub atomic_views: HashMap<String, String>,
    /// Outer arrays touched otherwise: read, stored into, copied, added to without an atomic
    /// operation, or updated through a view of more than one outer array.
    pub touched_otherwise: BTreeSet<String>,
}

/// Collects [`Uses`] (see [`uses`]).
struct UseWalk<'t> {
    types: &'t HashMap<String, Ty>,
    declared: BTreeSet<String>,
    /// Arrays declared inside, and the outer arrays they may view.
    views: HashMap<String, BTreeSet<String>>,
    out: Uses,
}

/// How `stms` uses the variables declared outside them (`types`: every variable's type).
pub(super) fn uses(stms: &[Stm], types: &HashMap<String, Ty>) -> Uses {
    let mut w = UseWalk {
        types,
        declared: BTreeSet::new(),
        views: HashMap::new(),
        out: Uses::default(),
    };
    w.stms(stms);
    w.out
}

/// Why `body`, a parallel loop's body, cannot be a kernel (`None`: it can).
pub(super) fn kernel_blocker(body: &[Stm], types: &HashMap<String, Ty>) -> Option<&'static str> {
    uses(body, types).blocker
}

impl UseWalk<'_> {
    fn block(&mut self, why: &'static str) {
        self.out.blocker.get_or_insert(why);
    }

    /// The outer arrays `arr` may view.
    fn roots(&self, arr: &str) -> BTreeSet<String> {
        if self.declared.contains(arr) {
            self.views.get(arr).cloned().unwrap_or_default()
        } else {
            BTreeSet::from([arr.to_string()])
        }
    }

    fn mention(&mut self, arr: &str) {
        if !self.declared.contains(arr) {
            self.out.arrays.entry(arr.to_string()).or_default();
        }
    }

    fn touch(&mut self, arr: &str, write: bool) {
        self.mention(arr);
        for r in self.roots(arr) {
            self.out.touched_otherwise.insert(r.clone());
            let e = self.out.arrays.entry(r).or_default();
            if write {
                e.1 = true;
            } else {
                e.0 = true;
            }
        }
    }

    fn var(&mut self, v: &str) {
        if self.declared.contains(v) {
            return;
        }
        match self.types.get(v) {
            Some(Ty::Prim(_)) => {
                self.out.scalars.insert(v.to_string());
            }
            Some(Ty::Array(_) | Ty::Ptr(_)) => self.mention(v),
            None => self.block("a variable of unknown type"),
        }
    }

    fn ex(&mut self, e: &Ex) {
        match e {
            Ex::Var(v) => self.var(v),
            Ex::Const(_) => {}
            Ex::Prim(_, args) => args.iter().for_each(|a| self.ex(a)),
            Ex::Idx(_, a, b) => {
                self.ex(a);
                self.ex(b);
            }
            Ex::Load { arr, idx, .. } => {
                self.touch(arr, false);
                self.ex(idx);
            }
            Ex::Not(a) => self.ex(a),
        }
    }

    /// An atomic addition of `elem`s into `arr`: a write, recorded with the outer array it
    /// updates where `arr` views exactly one.
    fn atomic_add(&mut self, arr: &str, elem: PrimType) {
        let roots = self.roots(arr);
        let (Some(root), 1) = (roots.first(), roots.len()) else {
            self.touch(arr, true);
            return;
        };
        self.mention(arr);
        self.out.arrays.entry(root.clone()).or_default().1 = true;
        let elems = self.out.atomic_roots.entry(root.clone()).or_default();
        elems.insert(elem);
        self.out.atomic_views.insert(arr.to_string(), root.clone());
    }

    /// `dst` (an array or pointer) now views what `src` views.
    fn view(&mut self, dst: &str, src: &str) {
        self.mention(src);
        if self.declared.contains(dst) {
            let roots = self.roots(src);
            self.views.entry(dst.to_string()).or_default().extend(roots);
        } else {
            self.block("it assigns an array of the enclosing code");
        }
    }

    fn stms(&mut self, stms: &[Stm]) {
        stms.iter().for_each(|s| self.stm(s));
    }

    fn stm(&mut self, s: &Stm) {
        match s {
            Stm::Decl { name, init, .. } => {
                if let Some(i) = init {
                    self.ex(i);
                }
                self.declared.insert(name.clone());
                if let Some(Ex::Var(src)) = init
                    && matches!(self.types.get(src), Some(Ty::Array(_) | Ty::Ptr(_)))
                {
                    self.view(name, src);
                }
            }
            Stm::Set { name, val } => {
                self.ex(val);
                match val {
                    Ex::Var(src)
                        if matches!(self.types.get(src), Some(Ty::Array(_) | Ty::Ptr(_))) =>
                    {
                        self.view(name, src)
                    }
                    _ if !self.declared.contains(name) => {
                        self.block("it assigns a variable of the enclosing code")
                    }
                    _ => {}
                }
            }
            Stm::AtomicAdd {
                elem,
                arr,
                idx,
                val,
                atomic: true,
            } => {
                self.ex(idx);
                self.ex(val);
                self.atomic_add(arr, *elem);
            }
            Stm::Store { arr, idx, val, .. } | Stm::AtomicAdd { arr, idx, val, .. } => {
                self.ex(idx);
                self.ex(val);
                self.touch(arr, true);
            }
            Stm::Alloc { .. } | Stm::AllocOrTake { .. } => {
                self.block("it allocates an array per iteration")
            }
            Stm::MakeUnique { arr, count, .. } => {
                self.ex(count);
                self.touch(arr, false);
                self.touch(arr, true);
                self.block("it copies an array per iteration");
            }
            Stm::SetArr {
                dst, src, offset, ..
            } => {
                self.ex(offset);
                self.view(dst, src);
            }
            Stm::Decref(_) | Stm::Comment(_) => {}
            Stm::Copy {
                dst,
                dst_off,
                src,
                src_off,
                count,
                ..
            } => {
                self.ex(dst_off);
                self.ex(src_off);
                self.ex(count);
                self.touch(src, false);
                self.touch(dst, true);
            }
            Stm::For {
                var, bound, body, ..
            } => {
                self.ex(bound);
                self.declared.insert(var.clone());
                self.stms(body);
            }
            Stm::ParFor {
                var,
                bound,
                work,
                body,
                ..
            } => {
                self.ex(bound);
                self.ex(work);
                self.declared.insert(var.clone());
                self.stms(body);
            }
            Stm::While { cond, body, .. } => {
                self.ex(cond);
                self.stms(body);
            }
            Stm::GroupTree(t) => self.stms(&t.host),
            Stm::If { cond, then, els } => {
                self.ex(cond);
                self.stms(then);
                self.stms(els);
            }
            Stm::Check { cond, args, .. } => {
                self.ex(cond);
                args.iter().for_each(|a| self.ex(a));
            }
        }
    }
}

/// The types of every variable of an entry point (its inputs, declarations and counters).
pub(super) fn variable_types(f: &imp::Function) -> HashMap<String, Ty> {
    fn walk(stms: &[Stm], out: &mut HashMap<String, Ty>) {
        for s in stms {
            match s {
                Stm::Decl { ty, name, .. } => {
                    out.insert(name.clone(), *ty);
                }
                Stm::For { var, body, .. } | Stm::ParFor { var, body, .. } => {
                    out.insert(var.clone(), Ty::Prim(PrimType::I64));
                    walk(body, out);
                }
                Stm::While { body, .. } => walk(body, out),
                Stm::GroupTree(t) => walk(&t.host, out),
                Stm::If { then, els, .. } => {
                    walk(then, out);
                    walk(els, out);
                }
                _ => {}
            }
        }
    }
    let mut out: HashMap<String, Ty> = f.inputs.iter().cloned().collect();
    walk(&f.body, &mut out);
    walk(&f.cleanup, &mut out);
    out
}

/// The element type of an array as kernels see it (`bool` is not allowed in buffers).
fn kernel_elem(t: PrimType) -> &'static str {
    if t == PrimType::Bool {
        "uchar"
    } else {
        c_type(t)
    }
}

/// `stms`, the body of a parallel loop about to run on the host, with its outermost loops
/// whose iterations are independent as parallel loops where they can be kernels: they touch
/// no memory another iteration writes ([`Stm::For`]'s `independent`) and assign nothing
/// outside themselves ([`kernel_blocker`]), so one work-item per iteration computes what the
/// loop did.
pub(super) fn inner_kernels(stms: &[Stm], types: &HashMap<String, Ty>) -> Vec<Stm> {
    stms.iter()
        .map(|s| match s {
            Stm::For {
                var,
                bound,
                down: false,
                body,
                independent: true,
                ..
            } if kernel_blocker(body, types).is_none() => Stm::ParFor {
                var: var.clone(),
                bound: bound.clone(),
                work: bound.clone(),
                body: body.clone(),
                private: Vec::new(),
                private_body: Vec::new(),
                independent: true,
            },
            // Loops inside a `while` keep running on the host.
            Stm::While { .. } => s.clone(),
            other => other.map_sequential_bodies(|b| inner_kernels(b, types)),
        })
        .collect()
}

/// Whether a statement list holds a parallel loop that becomes a kernel.
pub(super) fn launches(stms: &[Stm], types: &HashMap<String, Ty>) -> bool {
    stms.iter().any(|s| match s {
        Stm::ParFor {
            var, bound, body, ..
        } => {
            kernel_blocker(body, types).is_none()
                || hoist::expand(var, bound, body, types, &mut 0).is_some()
                || launches(body, types)
        }
        Stm::For { body, .. } | Stm::While { body, .. } => launches(body, types),
        Stm::GroupTree(_) => true,
        Stm::If { then, els, .. } => launches(then, types) || launches(els, types),
        _ => false,
    })
}

impl Printer<'_> {
    fn gpu_types(&self) -> &HashMap<String, Ty> {
        &self
            .gpu
            .as_ref()
            .expect("gpu printing without gpu state")
            .types
    }

    /// Before host statement `s`: the host copies of the arrays it reads or writes made
    /// current, unless it launches kernels (then its parts sync themselves).
    pub(super) fn host_sync(&mut self, s: &Stm, d: usize) {
        let types = self.gpu_types();
        if launches(std::slice::from_ref(s), types) {
            return;
        }
        let u = match s {
            // Only what their counts and offsets read: their arrays are not accessed here.
            Stm::SetArr { offset, .. } => uses(
                &[Stm::Check {
                    cond: offset.clone(),
                    site: 0,
                    args: vec![],
                }],
                types,
            ),
            Stm::Alloc { count, .. } | Stm::AllocOrTake { count, .. } => uses(
                &[Stm::Check {
                    cond: count.clone(),
                    site: 0,
                    args: vec![],
                }],
                types,
            ),
            Stm::Decref(_) | Stm::Comment(_) => return,
            _ => uses(std::slice::from_ref(s), types),
        };
        for (arr, (read, write)) in &u.arrays {
            if *read || *write {
                let w = i32::from(*write);
                self.line(
                    d,
                    &format!("if (gr_gpu_sync(ctx, {arr}, {w})) goto gr_error;"),
                );
            }
        }
    }

    /// A parallel loop run as kernel `gr_k{id}`: the kernel's source is kept, its launch
    /// printed here.
    pub(super) fn launch_kernel(&mut self, var: &str, bound: &Ex, body: &[Stm], d: usize) {
        let mut u = uses(body, self.gpu_types());
        u.scalars.remove(var);
        let id = self.gpu.as_ref().map_or(0, |g| g.kernels.len());
        let (params, views, launch) = self.kernel_params(&u, id);
        let text = self.kernel_text(id, var, &params, &views, body);
        self.add_kernel(text, params.len());
        let b = self.ex(bound);
        let targets = sub_hist::targets(&u, self.gpu_types());
        if !targets.is_empty() {
            let (_, _, sub_launch) = self.kernel_params(&u, id + 1);
            let text = self.sub_hist_kernel_text(
                id + 1,
                (var, body),
                (&params, &views),
                &targets,
                &u.atomic_views,
            );
            self.add_kernel(text, params.len() + targets.len());
            let sizes = (id, b.as_str(), params.len());
            self.launch_sub_hist_choice(&targets, (&launch, &sub_launch), sizes, d);
            return;
        }
        self.line(d, &format!("/* kernel gr_k{id} */"));
        self.launch_line(
            &launch,
            &format!("gr_gpu_run(ctx, {id}, (int64_t)({b}))"),
            d,
        );
    }

    /// Keeps a kernel's source (with `nparams` parameters).
    fn add_kernel(&mut self, text: String, nparams: usize) {
        if let Some(g) = self.gpu.as_mut() {
            g.kernels.push(text);
            g.max_params = g.max_params.max(nparams);
        }
    }

    /// The host's line setting a kernel's arguments (`launch`) and then calling `run`.
    fn launch_line(&mut self, launch: &[String], run: &str, d: usize) {
        let mut cond = launch.join(" || ");
        if !cond.is_empty() {
            cond.push_str(" || ");
        }
        self.line(d, &format!("if ({cond}{run}) goto gr_error;"));
    }

    /// Kernel `id`'s parameters for the variables `u` it uses (the error record, the launch's
    /// number, the iteration count, then the arrays, as buffer and byte offset, and the
    /// scalars), the declarations of its arrays' views, and the host's calls setting them.
    fn kernel_params(&self, u: &Uses, id: usize) -> (Vec<String>, String, Vec<String>) {
        let mut params = vec![
            "volatile __global struct gr_kerr *ctx".to_string(),
            "long gr_seq".to_string(),
            "long gr_n".to_string(),
        ];
        let mut views = String::new();
        let mut launch = Vec::new();
        let mut arg = 3;
        for (arr, (_, write)) in &u.arrays {
            let elem = match self.gpu_types().get(arr) {
                Some(Ty::Array(t) | Ty::Ptr(t)) => kernel_elem(*t),
                _ => "uchar",
            };
            params.push(format!("__global uchar *{arr}_gb"));
            params.push(format!("long {arr}_go"));
            let _ = writeln!(
                views,
                "  __global {elem} *{arr} GR_UNUSED = (__global {elem} *)({arr}_gb + {arr}_go);"
            );
            launch.push(format!(
                "gr_gpu_arr(ctx, {id}, {arg}, {arr}, {})",
                i32::from(*write)
            ));
            arg += 2;
        }
        for s in &u.scalars {
            let t = match self.gpu_types().get(s) {
                Some(Ty::Prim(t)) => *t,
                _ => PrimType::I64,
            };
            params.push(format!("{} {s}", kernel_elem(t)));
            launch.push(format!("gr_gpu_val(ctx, {id}, {arg}, &{s}, sizeof {s})"));
            arg += 1;
        }
        (params, views, launch)
    }

    /// The source of kernel `gr_k{id}` running `body` for iteration `var`.
    fn kernel_text(
        &mut self,
        id: usize,
        var: &str,
        params: &[String],
        views: &str,
        body: &[Stm],
    ) -> String {
        let (kernel_body, _) =
            self.kernel_body(var.to_string(), KERNEL_EXIT, |p| p.kernel_stms(body, 1));
        format!(
            "__kernel void gr_k{id}({}) {{\n  int64_t {var} = (int64_t)get_global_id(0);\n  if ({var} >= gr_n) return;\n{views}{kernel_body}}}\n",
            params.join(", ")
        )
    }

    /// What `print` prints as kernel code, with `iter_key` as the position of its errors in
    /// the order of errors and `exit` where they leave to (see [`KERNEL_EXIT`]); the printer's
    /// host state is kept aside meanwhile, and the primitive operations used go to the
    /// kernels'. Returns the text and whether an error may leave to `exit`.
    pub(super) fn kernel_body(
        &mut self,
        iter_key: String,
        exit: &str,
        print: impl FnOnce(&mut Self),
    ) -> (String, bool) {
        let host_out = std::mem::take(&mut self.out);
        let host_prims = std::mem::take(&mut self.prims);
        let saved_labels = std::mem::take(&mut self.fail_labels);
        let saved_key = self.iter_key.replace(iter_key);
        if let Some(g) = self.gpu.as_mut() {
            g.in_kernel = true;
        }
        self.fail_labels.push((exit.into(), false));
        print(self);
        let exit_used = self.fail_labels.pop().is_some_and(|(_, used)| used);
        self.fail_labels = saved_labels;
        self.iter_key = saved_key;
        if let Some(g) = self.gpu.as_mut() {
            g.in_kernel = false;
        }
        let text = std::mem::replace(&mut self.out, host_out);
        let kernel_prims = std::mem::replace(&mut self.prims, host_prims);
        if let Some(g) = self.gpu.as_mut() {
            g.prims.extend(kernel_prims);
        }
        (text, exit_used)
    }

    fn kernel_stms(&mut self, stms: &[Stm], d: usize) {
        for s in stms {
            self.kernel_stm(s, d);
        }
    }

    /// One statement of a kernel body (which [`kernel_blocker`] accepted).
    fn kernel_stm(&mut self, s: &Stm, d: usize) {
        match s {
            Stm::Decl { ty, name, init } => {
                let init = init.as_ref().map(|i| format!(" = {}", self.ex(i)));
                let init = init.unwrap_or_default();
                match ty {
                    Ty::Prim(t) => self.line(d, &format!("{} {name} GR_UNUSED{init};", c_type(*t))),
                    Ty::Array(t) | Ty::Ptr(t) => {
                        let init = if init.is_empty() { " = 0".into() } else { init };
                        self.line(
                            d,
                            &format!("__global {} *{name} GR_UNUSED{init};", kernel_elem(*t)),
                        )
                    }
                }
            }
            Stm::AtomicAdd {
                elem,
                arr,
                idx,
                val,
                atomic: true,
            } => {
                if let Some(line) = self.sub_hist_add(*elem, arr, idx, val) {
                    self.line(d, &line);
                    return;
                }
                let (i, v) = (self.ex(idx), self.ex(val));
                let slot = format!("&{arr}[{i}]");
                let line =
                    sub_hist::atomic_add(*elem, "__global", &slot, &v).unwrap_or_else(|| {
                        // Booleans (an or) and bytes and halves: the aligned word that holds them.
                        let small = "gr_atomic_op_small((volatile __global uchar *)";
                        match elem.bits() {
                            _ if *elem == PrimType::Bool => {
                                format!("{small}{slot}, (uint)({v}), 1, 1);")
                            }
                            8 => format!("{small}{slot}, (uint)(uchar){v}, 1, 0);"),
                            _ => format!("{small}{slot}, (uint)(ushort){v}, 2, 0);"),
                        }
                    });
                self.line(d, &line);
            }
            Stm::SetArr {
                dst, src, offset, ..
            } => {
                let off = self.ex(offset);
                self.line(d, &format!("{dst} = {src} + {off};"));
            }
            Stm::Decref(_) => {}
            Stm::Copy {
                dst,
                dst_off,
                src,
                src_off,
                count,
                ..
            } => {
                let (a, b, n) = (self.ex(dst_off), self.ex(src_off), self.ex(count));
                self.line(
                    d,
                    &format!("for (int64_t gr_c = 0; gr_c < {n}; gr_c++) {dst}[{a} + gr_c] = {src}[{b} + gr_c];"),
                );
            }
            Stm::For {
                var,
                bound,
                down,
                body,
                ..
            } => {
                let b = self.ex(bound);
                let head = if *down {
                    format!("for (int64_t {var} = ({b}) - 1; {var} >= 0; {var}--) {{")
                } else {
                    format!("for (int64_t {var} = 0; {var} < {b}; {var}++) {{")
                };
                self.line(d, &head);
                self.kernel_stms(body, d + 1);
                self.line(d, "}");
            }
            Stm::ParFor {
                var, bound, body, ..
            } => {
                let b = self.ex(bound);
                self.line(
                    d,
                    &format!("for (int64_t {var} = 0; {var} < {b}; {var}++) {{"),
                );
                self.kernel_stms(body, d + 1);
                self.line(d, "}");
            }
            Stm::While { cond, body, .. } => {
                let c = self.ex(cond);
                self.line(d, &format!("while ({c}) {{"));
                self.kernel_stms(body, d + 1);
                self.line(d, "}");
            }
            Stm::If { cond, then, els } => {
                let c = self.ex(cond);
                self.line(d, &format!("if ({c}) {{"));
                self.kernel_stms(then, d + 1);
                if !els.is_empty() {
                    self.line(d, "} else {");
                    self.kernel_stms(els, d + 1);
                }
                self.line(d, "}");
            }
            // Scalar statements, stores, checks and plain additions print as on the host.
            other => self.stm(other, d),
        }
    }

    /// The kernels' program in `dialect`: its prelude, then [`Printer::kernel_text_common`].
    pub(super) fn kernel_program(&self, dialect: Dialect) -> String {
        let mut src = match dialect {
            Dialect::OpenCl => prelude::OPENCL,
            Dialect::Cuda => prelude::CUDA,
        }
        .to_string();
        src.push_str(&self.kernel_text_common());
        src
    }

    /// The kernels' program after a dialect's prelude: the common prelude, the primitive
    /// operations the kernels use, the kernels.
    pub(super) fn kernel_text_common(&self) -> String {
        let Some(g) = self.gpu.as_ref() else {
            return String::new();
        };
        let size = crate::backend::lower::GPU_GROUP_SIZE;
        let mut src = format!(
            "#ifndef {size}\n#define {size} {}\n#endif\n",
            crate::backend::lower::GPU_GROUP_SIZE_DEFAULT
        );
        src.push_str(prelude::COMMON);
        for op in g.prims.values() {
            if let Some(def) = definition(*op) {
                src.push_str(&def);
            }
        }
        for k in &g.kernels {
            src.push_str(k);
        }
        src
    }
}

/// `text` as a C string literal.
pub(super) fn c_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n\"\n\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Printer<'_> {
    /// Host statement `s` for the `gpu` backend: its arrays' host copies made current first,
    /// and a parallel loop launched as a kernel or run on the host. Returns whether `s` was
    /// printed here (otherwise it prints as on the other backends).
    pub(super) fn gpu_host_stm(&mut self, s: &Stm, d: usize) -> bool {
        self.host_sync(s, d);
        match s {
            Stm::GroupTree(t) => {
                self.launch_group_tree(t, d);
                true
            }
            Stm::ParFor {
                var,
                bound,
                body,
                independent,
                ..
            } => {
                let kernel = if kernel_blocker(body, self.gpu_types()).is_none() {
                    Some(None)
                } else {
                    self.hoist_allocations(var, bound, body).map(Some)
                };
                let Some(hoisted) = kernel else {
                    let why = kernel_blocker(body, self.gpu_types()).unwrap_or("");
                    if let Some(g) = self.gpu.as_mut() {
                        g.host_loops
                            .push(format!("{}: the parallel loop over {var}: {why}", g.entry));
                    }
                    self.line(d, &format!("/* runs on the host: {why} */"));
                    self.host_par_for(var, bound, body, *independent, d);
                    return true;
                };
                // With parallel loops inside, the run time chooses: the outer loop as one
                // kernel, or (fewer iterations than GRADUS_GPU_MIN_OUTER) its iterations on
                // the host, each launching the inner loops as kernels.
                let inner = launches(&inner_kernels(body, self.gpu_types()), self.gpu_types());
                let k = d + usize::from(inner);
                if inner {
                    let b = self.ex(bound);
                    self.line(d, &format!("if (({b}) >= gr_gpu_min_outer()) {{"));
                }
                match hoisted {
                    None => self.launch_kernel(var, bound, body, k),
                    Some(h) => {
                        self.stms(&h.before, k);
                        self.launch_kernel(var, bound, &h.body, k);
                        self.stms(&h.after, k);
                    }
                }
                if inner {
                    self.line(d, "} else {");
                    let body = inner_kernels(body, self.gpu_types());
                    self.host_par_for(var, bound, &body, *independent, d + 1);
                    self.line(d, "}");
                }
                true
            }
            Stm::While { cond, body, .. } if launches(body, self.gpu_types()) => {
                let reads = uses(
                    &[Stm::Check {
                        cond: cond.clone(),
                        site: 0,
                        args: vec![],
                    }],
                    self.gpu_types(),
                );
                self.line(d, "while (1) {");
                for arr in reads.arrays.keys() {
                    self.line(
                        d + 1,
                        &format!("if (gr_gpu_sync(ctx, {arr}, 0)) goto gr_error;"),
                    );
                }
                let c = self.ex(cond);
                self.line(d + 1, &format!("if (!({c})) break;"));
                self.in_loop(|p| p.stms(body, d + 1));
                self.line(d, "}");
                true
            }
            Stm::If { cond, .. } | Stm::For { bound: cond, .. }
                if launches(std::slice::from_ref(s), self.gpu_types()) =>
            {
                let reads = uses(
                    &[Stm::Check {
                        cond: cond.clone(),
                        site: 0,
                        args: vec![],
                    }],
                    self.gpu_types(),
                );
                for arr in reads.arrays.keys() {
                    self.line(
                        d,
                        &format!("if (gr_gpu_sync(ctx, {arr}, 0)) goto gr_error;"),
                    );
                }
                false
            }
            _ => false,
        }
    }
}

impl Printer<'_> {
    /// [`hoist::expand`] with the printer's types and labels; the buffers' types recorded.
    fn hoist_allocations(&mut self, var: &str, bound: &Ex, body: &[Stm]) -> Option<hoist::Hoisted> {
        let g = self.gpu.as_mut()?;
        let h = hoist::expand(var, bound, body, &g.types, &mut self.labels)?;
        for (name, elem) in &h.buffers {
            g.types.insert(name.clone(), Ty::Array(*elem));
        }
        Some(h)
    }

    /// A parallel loop run on the host, one iteration after another (its own parallel loops
    /// may launch kernels).
    fn host_par_for(&mut self, var: &str, bound: &Ex, body: &[Stm], independent: bool, d: usize) {
        let b = self.ex(bound);
        let outer = self.fail_label();
        self.line(d, "{");
        self.line(d + 1, &format!("int64_t gr_n GR_UNUSED = {b};"));
        let body = imp::without_atomics(body);
        let independent = independent && !super::print::at_most_once(bound);
        self.sequential_par_for(var, &body, independent, d + 1);
        let key = self.iter_key();
        self.line(d + 1, &format!("if (gr_stop(ctx, {key})) goto {outer};"));
        self.line(d, "}");
    }
}

/// The `gpu` backend's code of a lowered program for reading: which parallel loops run on the
/// host and why, the kernels (OpenCL C), then the host code (for `gradus dev --stage gpu`).
pub fn listing(prog: &imp::Program) -> String {
    let mut p = Printer::new(prog, true);
    for f in &prog.functions {
        p.function(f);
    }
    let mut out = String::from("/* Parallel loops run on the host:\n");
    let host_loops = p
        .gpu
        .as_ref()
        .map(|g| g.host_loops.clone())
        .unwrap_or_default();
    if host_loops.is_empty() {
        out.push_str("   none\n");
    }
    for l in &host_loops {
        let _ = writeln!(out, "   {}", l.replace("*/", "* /"));
    }
    out.push_str("*/\n\n/* Kernels (OpenCL C) */\n\n");
    out.push_str(&p.kernel_program(Dialect::OpenCl));
    out.push_str("\n/* Host code */\n\n");
    out.push_str(&p.out);
    out
}

/// The kernels of a lowered program as one compilation unit in `dialect` (for `gradus dev
/// --stage cuda`, and for compiling them with NVRTC where no GPU is present).
pub fn kernel_source(prog: &imp::Program, dialect: Dialect) -> String {
    let mut p = Printer::new(prog, true);
    for f in &prog.functions {
        p.function(f);
    }
    p.kernel_program(dialect)
}
