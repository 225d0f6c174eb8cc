//! Sub-histograms in local memory: a kernel whose work-items add atomically into small arrays
//! (a `hist`, the adjoint accumulators of reverse mode) adds into a copy of each in its
//! work-group's local memory first, and each work-group then adds its copies into the arrays
//! in global memory, one atomic addition per element it touched. Many work-items of a group
//! adding to the same few elements then contend in local memory, which is far faster, rather
//! than in global memory.
//!
//! **Takes** a parallel loop that runs as a kernel, and the [`Uses`] of its body.
//! **Guarantees**: where the body's atomic additions update at most [`MAX_TARGETS`] outer
//! arrays, each of one float type (`f64` or `f32`, the type of the array and of every view
//! of it they go through), and the body touches those arrays in no other way, a second
//! kernel is printed beside the plain one, and the host picks it at run time when every such array is
//! at most [`SUB_HIST`] elements long (from its view to the end of its buffer). In that
//! kernel every work-item reaches both barriers: the loop's body is guarded by the iteration
//! count instead of returning early, and an error jumps to the end of the body instead of
//! returning. An addition at a position outside the local copy (at or beyond [`SUB_HIST`])
//! goes to global memory as in the plain kernel, so the choice affects speed only. The
//! result is the same sum in another order, as the atomic additions of the plain kernel give
//! in an order of their own; a local copy's element that ends exactly `+0` is not added,
//! which leaves the array as it was.

use super::super::prims::c_type;
use super::super::print::Printer;
use super::{Uses, kernel_elem};
use crate::backend::lower::GPU_GROUP_SIZE;
use crate::backend::lower::imp::{Ex, Stm, Ty};
use crate::core::scalar::PrimType;
use std::collections::HashMap;

/// Elements of each local copy (8 KB of `f64`).
pub(super) const SUB_HIST: usize = 1024;

/// The most arrays one kernel keeps local copies of.
const MAX_TARGETS: usize = 2;

/// Where the kernel being printed adds into local copies: for each array the body's atomic
/// additions name, the copy's number and the outer array it views.
pub(super) type SubHistViews = HashMap<String, (usize, String)>;

/// The outer arrays of a kernel body, with their element types, whose atomic additions can
/// go through local copies (see the module's guarantees); empty where there are none or the
/// body does not qualify.
pub(super) fn targets(u: &Uses, types: &HashMap<String, Ty>) -> Vec<(String, PrimType)> {
    let of_type = |arr: &str, elem: PrimType| matches!(types.get(arr), Some(Ty::Array(t) | Ty::Ptr(t)) if *t == elem);
    let mut out = Vec::new();
    for (root, elems) in &u.atomic_roots {
        let mut elems = elems.iter();
        let (Some(&elem), None) = (elems.next(), elems.next()) else {
            return Vec::new();
        };
        let views_typed = u
            .atomic_views
            .iter()
            .all(|(arr, r)| r != root || of_type(arr, elem));
        if u.touched_otherwise.contains(root)
            || !has_local_add(elem)
            || !of_type(root, elem)
            || !views_typed
        {
            return Vec::new();
        }
        out.push((root.clone(), elem));
    }
    if out.len() > MAX_TARGETS {
        return Vec::new();
    }
    out
}

/// Whether elements of type `elem` have an atomic addition in local memory here: floats,
/// the only elements reverse mode's accumulators add (a `hist` of integers fills private
/// histograms or runs on the host, see `lower/hist.rs`).
fn has_local_add(elem: PrimType) -> bool {
    elem.is_float()
}

/// The atomic addition of `v` to the element at `slot`, in memory space `space` (`__global`
/// or `GR_LPTR`, the local one in either dialect); `None` for an element type without one.
pub(super) fn atomic_add(elem: PrimType, space: &str, slot: &str, v: &str) -> Option<String> {
    let kind = if space == "__global" {
        "atomic"
    } else {
        "local"
    };
    Some(match (elem, elem.bits()) {
        (PrimType::F64, _) => format!("gr_{kind}_add_f64({slot}, {v});"),
        (PrimType::F32, _) => format!("gr_{kind}_add_f32({slot}, {v});"),
        (PrimType::Bool, _) | (_, 8 | 16) => return None,
        (_, 32) => format!("atomic_add((volatile {space} uint *){slot}, (uint)({v}));"),
        _ => format!("atom_add((volatile {space} ulong *){slot}, (ulong)({v}));"),
    })
}

impl Printer<'_> {
    /// The source of kernel `gr_k{id}`: the loop's `body` for iteration `var`, adding into
    /// local copies of `targets` (see the module's guarantees).
    pub(super) fn sub_hist_kernel_text(
        &mut self,
        id: usize,
        (var, body): (&str, &[Stm]),
        (params, views): (&[String], &str),
        targets: &[(String, PrimType)],
        atomic_views: &HashMap<String, String>,
    ) -> String {
        let g = GPU_GROUP_SIZE;
        let copies: SubHistViews = atomic_views
            .iter()
            .filter_map(|(arr, root)| {
                let j = targets.iter().position(|(t, _)| t == root)?;
                Some((arr.clone(), (j, root.clone())))
            })
            .collect();
        if let Some(gs) = self.gpu.as_mut() {
            gs.sub_hist = copies;
        }
        let (text, exit_used) = self.kernel_body(var.to_string(), "gr_sub_end", |p| {
            p.line(2, &format!("if ({var} < gr_n) {{"));
            p.kernel_stms(body, 3);
            p.line(2, "}");
        });
        if let Some(gs) = self.gpu.as_mut() {
            gs.sub_hist.clear();
        }
        let mut params = params.to_vec();
        params.extend((0..targets.len()).map(|j| format!("long gr_sublen{j}")));
        let mut src = format!("__kernel void gr_k{id}({}) {{\n", params.join(", "));
        for (j, (_, elem)) in targets.iter().enumerate() {
            let t = kernel_elem(*elem);
            src += &format!("  __local {t} gr_sub{j}[{SUB_HIST}];\n");
        }
        src += "  const int64_t gr_lid = (int64_t)get_local_id(0);\n";
        src += &format!("  int64_t {var} = (int64_t)get_global_id(0);\n");
        src += views;
        for j in 0..targets.len() {
            src += &format!(
                "  for (int64_t gr_h = gr_lid; gr_h < gr_sublen{j}; gr_h += {g}) gr_sub{j}[gr_h] = 0;\n"
            );
        }
        src += "  barrier(CLK_LOCAL_MEM_FENCE);\n  {\n";
        src += &text;
        src += "  }\n";
        if exit_used {
            src += "  gr_sub_end:\n";
        }
        src += "  barrier(CLK_LOCAL_MEM_FENCE);\n";
        for (j, (root, elem)) in targets.iter().enumerate() {
            let (ct, slot) = (c_type(*elem), format!("&{root}[gr_h]"));
            // Touched: any bits but those of `+0`.
            let bits = if *elem == PrimType::F64 {
                "as_ulong"
            } else {
                "as_uint"
            };
            let touched = format!("{bits}(gr_v{j}) != 0");
            let add = atomic_add(*elem, "__global", &slot, &format!("gr_v{j}"))
                .expect("the targets have atomic additions");
            src += &format!("  for (int64_t gr_h = gr_lid; gr_h < gr_sublen{j}; gr_h += {g}) {{\n");
            src += &format!("    {ct} gr_v{j} = gr_sub{j}[gr_h];\n");
            src += &format!("    if ({touched}) {add}\n  }}\n");
        }
        src += "}\n";
        src
    }

    /// The atomic addition of `val` at `idx` of `arr` in a kernel with local copies: into
    /// the copy where the position falls inside it, into global memory otherwise. `None`
    /// where `arr` has no local copy.
    pub(super) fn sub_hist_add(
        &mut self,
        elem: PrimType,
        arr: &str,
        idx: &Ex,
        val: &Ex,
    ) -> Option<String> {
        let (j, root) = self.gpu.as_ref()?.sub_hist.get(arr)?.clone();
        let (i, v) = (self.ex(idx), self.ex(val));
        let local = atomic_add(elem, "GR_LPTR", &format!("&gr_sub{j}[gr_h]"), &v)?;
        let global = atomic_add(elem, "__global", &format!("&{arr}[{i}]"), &v)?;
        Some(format!(
            "{{ int64_t gr_h = ({arr} - {root}) + ({i}); if ((uint64_t)gr_h < (uint64_t)gr_sublen{j}) {{ {local} }} else {{ {global} }} }}"
        ))
    }

    /// Launches kernel `gr_k{id}` (plain, `plain` its launch) or `gr_k{id + 1}` (with local
    /// copies of `targets`, `sub` its launch, which sets every argument but the copies'
    /// lengths, its last ones after the `nparams` of the plain kernel): the latter when every
    /// target is at most [`SUB_HIST`] elements long (or as many as `GRADUS_GPU_SUB_HIST`
    /// says, if fewer), from its view to the end of its buffer (the copy's length).
    pub(super) fn launch_sub_hist_choice(
        &mut self,
        targets: &[(String, PrimType)],
        (plain, sub): (&[String], &[String]),
        (id, n, nparams): (usize, &str, usize),
        d: usize,
    ) {
        let sub_id = id + 1;
        self.line(
            d,
            &format!("/* kernel gr_k{id}, or gr_k{sub_id} with sub-histograms in local memory */"),
        );
        self.line(d, "{");
        let mut small = Vec::new();
        let mut sub = sub.to_vec();
        for (j, (root, elem)) in targets.iter().enumerate() {
            let width = elem.bits() / 8;
            self.line(
                d + 1,
                &format!("int64_t gr_sublen{j} = gr_gpu_span({root}) / {width};"),
            );
            small.push(format!("gr_sublen{j} <= gr_gpu_sub_hist({SUB_HIST})"));
            sub.push(format!(
                "gr_gpu_val(ctx, {sub_id}, {}, &gr_sublen{j}, sizeof gr_sublen{j})",
                nparams + j
            ));
        }
        self.line(d + 1, &format!("if ({}) {{", small.join(" && ")));
        let run = format!("gr_gpu_run_in(ctx, {sub_id}, (int64_t)({n}), {GPU_GROUP_SIZE})");
        self.launch_line(&sub, &run, d + 2);
        self.line(d + 1, "} else {");
        self.launch_line(
            plain,
            &format!("gr_gpu_run(ctx, {id}, (int64_t)({n}))"),
            d + 2,
        );
        self.line(d + 1, "}");
        self.line(d, "}");
    }
}
