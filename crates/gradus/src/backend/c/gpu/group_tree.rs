//! A reduction's group tree ([`GroupTree`]) as a kernel: one work-item per partial result,
//! one work-group of `GR_GPU_GROUP_SIZE` work-items per group, the tree in local memory.
//!
//! **Takes** a [`GroupTree`] reached by host code (its operator cannot fail: the lowering
//! makes no other). **Guarantees** the combinations of [`GroupTree::host`], in the same order
//! (so the same results, bit for bit): each work-item loads its partial result into local
//! memory; at level `s = 1, 2, 4, ..` (a barrier before each) the work-items at offsets that
//! are multiples of `2s` combine their value with the one `s` further on, when that one is in
//! the group; work-item 0 stores the group's result. A level writes only offsets that are
//! multiples of `2s` and reads offsets that are odd multiples of `s` besides its own, so no
//! two work-items of a level touch the same value, and every work-item reaches every barrier
//! (the loop's bound is the group size, the same for all). The launch's work-groups are the
//! groups, the last one padded with idle work-items.

use super::super::prims::c_type;
use super::super::print::Printer;
use super::{KERNEL_EXIT, kernel_elem, uses};
use crate::backend::lower::GPU_GROUP_SIZE;
use crate::backend::lower::imp::GroupTree;

impl Printer<'_> {
    /// Group tree `t` as kernel `gr_k{id}`: the kernel's source kept, its launch printed here.
    pub(super) fn launch_group_tree(&mut self, t: &GroupTree, d: usize) {
        let u = uses(&t.host, self.gpu_types());
        let id = self.gpu.as_ref().map_or(0, |g| g.kernels.len());
        let (params, views, launch) = self.kernel_params(&u, id);
        let text = self.group_tree_text(id, &params, &views, t);
        self.add_kernel(text, params.len());
        let n = self.ex(&t.count);
        self.line(d, &format!("/* kernel gr_k{id}: trees of work-groups */"));
        let run = format!("gr_gpu_run_in(ctx, {id}, (int64_t)({n}), {GPU_GROUP_SIZE})");
        self.launch_line(&launch, &run, d);
    }

    /// The source of kernel `gr_k{id}` running group tree `t`.
    fn group_tree_text(
        &mut self,
        id: usize,
        params: &[String],
        views: &str,
        t: &GroupTree,
    ) -> String {
        let g = GPU_GROUP_SIZE;
        let key = "(gr_base + gr_lid)".to_string();
        let (body, _) = self.kernel_body(key, KERNEL_EXIT, |p| {
            for (j, (_, elem)) in t.parts.iter().enumerate() {
                p.line(1, &format!("__local {} gr_t{j}[{g}];", kernel_elem(*elem)));
            }
            p.out.push_str(views);
            p.line(1, "if (gr_lid < gr_cnt) {");
            for (j, (arr, _)) in t.parts.iter().enumerate() {
                p.line(2, &format!("gr_t{j}[gr_lid] = {arr}[gr_base + gr_lid];"));
            }
            p.line(1, "}");
            p.line(
                1,
                &format!("for (int64_t gr_s = 1; gr_s < {g}; gr_s *= 2) {{"),
            );
            p.line(2, "barrier(CLK_LOCAL_MEM_FENCE);");
            p.line(
                2,
                "if (gr_lid % (2 * gr_s) == 0 && gr_lid + gr_s < gr_cnt) {",
            );
            for (j, (_, elem)) in t.parts.iter().enumerate() {
                let ct = c_type(*elem);
                let (l, r) = (&t.left[j], &t.right[j]);
                p.line(3, &format!("{ct} {l} GR_UNUSED = gr_t{j}[gr_lid];"));
                p.line(3, &format!("{ct} {r} GR_UNUSED = gr_t{j}[gr_lid + gr_s];"));
            }
            p.kernel_stms(&t.op, 3);
            for (j, r) in t.res.iter().enumerate() {
                p.line(3, &format!("gr_t{j}[gr_lid] = {r};"));
            }
            p.line(2, "}");
            p.line(1, "}");
            p.line(1, "if (gr_lid == 0) {");
            for (j, (arr, _)) in t.out.iter().enumerate() {
                p.line(2, &format!("{arr}[gr_grp] = gr_t{j}[0];"));
            }
            p.line(1, "}");
        });
        format!(
            "__kernel void gr_k{id}({}) {{\n  const int64_t gr_lid = (int64_t)get_local_id(0);\n  const int64_t gr_grp = (int64_t)get_group_id(0);\n  const int64_t gr_base = gr_grp * {g};\n  const int64_t gr_cnt = gr_n - gr_base < {g} ? gr_n - gr_base : {g};\n{body}}}\n",
            params.join(", ")
        )
    }
}
