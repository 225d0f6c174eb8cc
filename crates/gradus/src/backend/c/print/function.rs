//! Printing a lowered function as C: the entry point's body (`GR_BODY`), its wrapper choosing
//! the call's team of threads (`c`, `multicore`) or entering the device (`gpu`), and the split
//! of large bodies into several C functions ([`super::outline`]).

use super::{ENTRY_MARK, Printer};
use crate::backend::c::prims::c_type;
use crate::backend::lower::imp::{self, Ex, Ty};
use std::fmt::Write;

impl Printer<'_> {
    /// The body of the function the host calls on the `c` and `multicore` backends: the
    /// choice of the call's team (see `gr_par_pick`) and the call of the entry's body.
    fn entry_wrapper(&mut self, name: &str) {
        self.line(1, "#ifdef _OPENMP");
        self.line(
            1,
            "int gr_nt = ctx->nthreads > 0 ? ctx->nthreads : omp_get_max_threads();",
        );
        self.line(1, "if (gr_nt > 1) {");
        self.line(2, "static gr_par_site gr_site;");
        self.line(2, "int gr_pick = gr_par_pick(&gr_site);");
        self.line(
            2,
            "int64_t gr_w0 = gr_par_work, gr_l0 = gr_par_loops, gr_t0 = gr_now();",
        );
        self.line(
            2,
            &format!("int gr_r = GR_BODY({name})(ctx, in, out, shapes, gr_pick & 1 ? gr_nt : 1);"),
        );
        self.line(
            2,
            "int64_t gr_w = gr_par_work - gr_w0, gr_l = gr_par_loops - gr_l0;",
        );
        self.line(
            2,
            "if (gr_w > 0 && gr_l > 0 && gr_r == 0) gr_par_note(&gr_site, gr_pick, gr_now() - gr_t0, gr_w, gr_l);",
        );
        self.line(2, "return gr_r;");
        self.line(1, "}");
        self.line(1, "#endif");
        self.line(
            1,
            &format!("return GR_BODY({name})(ctx, in, out, shapes, 1);"),
        );
        self.line(0, "}\n");
    }

    /// An entry point: the function the host calls, which chooses the call's team (see
    /// `gr_par_pick` in the runtime) and times the call, and the body it runs. The body is
    /// an exported function, as the entry point was before it had a wrapper: as a `static`
    /// function called once, GCC compiled the LSTM gradient's body into code 10–20 % slower.
    /// Its name is derived from the entry point's by a macro (`GR_BODY`), so that a build
    /// renaming the entry points with `-D` (several programs in one library) renames it too.
    pub(in crate::backend::c) fn function(&mut self, f: &imp::Function) {
        let name = &f.c_name;
        let params = "struct gr_ctx *ctx, void *const *in, void **out, int64_t *shapes";
        let body = format!("int GR_BODY({name})({params}, int gr_team)");
        let _ = writeln!(
            self.out,
            "{ENTRY_MARK}{} */\nint {name}({params});\n{body};",
            f.entry.replace("*/", ""),
        );
        let split_at = self.out.len();
        self.outline_start(name, &f.inputs, &f.body);
        let _ = writeln!(self.out, "int {name}({params}) {{");
        if let Some(g) = self.gpu.as_mut() {
            g.types = crate::backend::c::gpu::variable_types(f);
            g.entry = f.entry.clone();
            self.line(1, "if (gr_gpu_begin(ctx)) return 1;");
            self.line(
                1,
                &format!("return gr_gpu_end(ctx, GR_BODY({name})(ctx, in, out, shapes, 1));"),
            );
            self.line(0, "}\n");
        } else {
            self.entry_wrapper(name);
        }
        let _ = writeln!(self.out, "{body} {{");
        self.line(
            1,
            "(void)ctx; (void)in; (void)out; (void)shapes; (void)gr_team;",
        );
        self.line(1, "#ifdef _OPENMP");
        self.line(
            1,
            "int gr_nt GR_UNUSED = ctx->nthreads > 0 ? ctx->nthreads : omp_get_max_threads();",
        );
        self.line(1, "#endif");
        for (k, (name, ty)) in f.inputs.iter().enumerate() {
            match ty {
                Ty::Prim(t) => {
                    let ct = c_type(*t);
                    self.line(
                        1,
                        &format!("{ct} {name} GR_UNUSED = *(const {ct} *)in[{k}];"),
                    );
                }
                Ty::Array(t) | Ty::Ptr(t) => {
                    let ct = c_type(*t);
                    self.line(
                        1,
                        &format!(
                            "{ct} *{name} GR_UNUSED = ({ct} *)in[{k}]; gr_mem *{name}_m GR_UNUSED = NULL;"
                        ),
                    );
                    if self.gpu.is_some() {
                        let dims = f.input_dims.get(k).cloned().unwrap_or_default();
                        let n = self.ex(&Ex::product(dims));
                        self.line(
                            1,
                            &format!(
                                "if (gr_gpu_input(ctx, {name}, (int64_t)({n}) * (int64_t)sizeof({ct}))) goto gr_error;"
                            ),
                        );
                    }
                }
            }
        }
        self.open_slots(0);
        self.stms(&f.body, 1);
        let mut shape_off = 0;
        for (k, r) in f.results.iter().enumerate() {
            let v = self.ex(&r.value);
            if r.dims.is_empty() {
                let ct = c_type(r.elem);
                self.line(1, &format!("*({ct} *)out[{}] = {v};", 2 * k));
            } else {
                if self.gpu.is_some() {
                    self.line(1, &format!("if (gr_gpu_sync(ctx, {v}, 0)) goto gr_error;"));
                }
                self.line(
                    1,
                    &format!(
                        "out[{}] = (void *){v}; out[{}] = (void *){v}_m; gr_incref({v}_m);",
                        2 * k,
                        2 * k + 1
                    ),
                );
                for dim in &r.dims {
                    let dv = self.ex(dim);
                    self.line(1, &format!("shapes[{shape_off}] = {dv};"));
                    shape_off += 1;
                }
            }
        }
        self.stms(&f.cleanup, 1);
        let slots = self.close_slots(1);
        self.line(1, "return 0;");
        self.line(0, "gr_error: GR_UNUSED;");
        for slot in &slots {
            self.line(1, &format!("gr_slot_release(&{slot});"));
        }
        self.line(1, "return 1;");
        self.line(0, "}\n");
        let split = self.outline_finish();
        self.out.insert_str(split_at, &split);
    }
}
