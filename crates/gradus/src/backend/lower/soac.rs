//! What SOACs share: dispatch, rows of inputs, fused maps, cost estimates, parallel contexts
//! and the chunks of parallel loops.
//!
//! Takes SOACs whose inputs are arrays of the SOAC's width (checked by `Lw::width`, in
//! `runtime_checks.rs`) or accumulators. Guarantees that the rows of inputs are borrowed views or loaded elements (computed for a
//! virtual `iota`), never copies; that a fused map's values are scalars (see
//! [`super::unfuse`]); and that the chunks of a parallel loop depend on the width only,
//! never on the thread count.

use super::hist::HistSource;
use super::imp::{Ex, IdxOp, Share, Stm as I, Ty};
use super::{Lw, R};
use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, ScremaForm, Soac, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;
use std::collections::{HashMap, HashSet};

/// The `iota` arrays of `body` read only row by row as inputs of SOACs (`map`, `reduce`,
/// `scan`, fused SOACs): the lowering computes their rows instead of storing them.
pub(super) fn virtual_iotas(names: &crate::core::ir::NameTable, body: &Body) -> HashSet<Var> {
    fn walk(body: &Body, iotas: &mut HashSet<Var>, inputs: &mut HashMap<Var, usize>) {
        for s in &body.stms {
            if let (Exp::BasicOp(BasicOp::Iota { .. }), [v]) = (&s.exp, &s.pat[..]) {
                iotas.insert(*v);
            }
            let arrays = match &s.exp {
                Exp::Soac(
                    Soac::Map { arrays, .. }
                    | Soac::Reduce { arrays, .. }
                    | Soac::Scan { arrays, .. }
                    | Soac::Screma { arrays, .. },
                ) => arrays.as_slice(),
                _ => &[],
            };
            for a in arrays {
                *inputs.entry(*a).or_default() += 1;
            }
            let nested = s.exp.bodies();
            for b in nested {
                walk(b, iotas, inputs);
            }
        }
    }
    let (mut iotas, mut inputs) = (HashSet::new(), HashMap::new());
    walk(body, &mut iotas, &mut inputs);
    let uses = crate::core::visit::use_counts(names, body);
    iotas.retain(|v| uses.get(v).is_some_and(|n| inputs.get(v) == Some(n)));
    iotas
}

/// Element `i` of `iota(n, start, stride)` of `elem`s: `start + i * stride`.
pub(super) fn iota_elem(start: Ex, stride: Ex, elem: PrimType, i: Ex) -> Ex {
    let ci = Ex::Prim(PrimOp::Conv(PrimType::I64, elem), vec![i]);
    Ex::Prim(
        PrimOp::Bin(BinOp::Add, elem),
        vec![
            start,
            Ex::Prim(PrimOp::Bin(BinOp::Mul, elem), vec![ci, stride]),
        ],
    )
}

impl<'a> Lw<'a> {
    pub(super) fn soac(&mut self, pat: &[Var], soac: &Soac, aux: &Aux, out: &mut Vec<I>) -> R<()> {
        match soac {
            Soac::Map { w, lam, arrays } => self.map(pat, w, lam, arrays, aux, out),
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            } => self.reduce_or_scan(pat, w, lam, neutral, None, arrays, false, aux, out),
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => self.reduce_or_scan(pat, w, lam, neutral, None, arrays, true, aux, out),
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                let src = HistSource::Arrays {
                    indices: *indices,
                    values,
                };
                self.hist(pat, w, dests, lam, neutral, src, aux, out)
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => self.scatter(pat, w, dests, *indices, values, aux, out),
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => match &**form {
                ScremaForm::Reduce { lam, neutral, .. } => {
                    // The map's own results (past the reduced values) are arrays like a
                    // map's, each row stored as the traversal computes it.
                    let k = neutral.len().min(pat.len());
                    for &p in &pat[k..] {
                        self.alloc_map_output(p, out)?;
                    }
                    self.reduce_or_scan(pat, w, lam, neutral, Some(map), arrays, false, aux, out)
                }
                ScremaForm::Scan { lam, neutral } => {
                    self.reduce_or_scan(pat, w, lam, neutral, Some(map), arrays, true, aux, out)
                }
                ScremaForm::Hist {
                    dests,
                    lam,
                    neutral,
                } => {
                    let src = HistSource::Mapped { map, arrays };
                    self.hist(pat, w, dests, lam, neutral, src, aux, out)
                }
                ScremaForm::Scatter { dests } => {
                    self.scattermap(pat, w, dests, map, arrays, aux, out)
                }
            },
        }
    }

    /// A static estimate of the work of one application of a lambda.
    pub(super) fn cost(body: &Body) -> i64 {
        let mut c = 1i64;
        for s in &body.stms {
            c = c.saturating_add(match &s.exp {
                Exp::BasicOp(_) | Exp::Apply { .. } => 1,
                Exp::If {
                    then_body,
                    else_body,
                    ..
                } => Self::cost(then_body).max(Self::cost(else_body)),
                Exp::Loop { body, .. } => Self::cost(body).saturating_mul(16),
                Exp::Soac(soac) => soac
                    .lambdas()
                    .iter()
                    .map(|l| Self::cost(&l.body))
                    .fold(1, i64::saturating_add)
                    .saturating_mul(16),
                Exp::WithAcc { lam, .. } | Exp::Ad { lam, .. } => Self::cost(&lam.body),
            });
        }
        c
    }

    /// Runs `f` in a parallel context (or not): the variables it binds are local to the
    /// loop's iterations.
    pub(super) fn in_parallel<T>(&mut self, par: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        if !par {
            return f(self);
        }
        let saved = (self.in_par, std::mem::take(&mut self.par_local));
        self.in_par = true;
        let r = f(self);
        self.in_par = saved.0;
        self.par_local = saved.1;
        r
    }

    /// Runs `f` (the lowering of a map's lambda, run `par`allel or not) with the arrays of
    /// the enclosing scopes borrowed (see `Lw::in_lambda`).
    pub(super) fn in_map_lambda<T>(&mut self, par: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = (self.in_lambda, std::mem::take(&mut self.par_local));
        self.in_lambda = true;
        let r = self.in_parallel(par, f);
        self.in_lambda = saved.0;
        self.par_local = saved.1;
        r
    }

    /// Binds lambda parameter `p` to row `i` of input `a` (see [`Lw::read_input_row`]), or
    /// to the accumulator `a` itself.
    pub(super) fn bind_row(&mut self, p: Var, a: Var, i: &Ex, out: &mut Vec<I>) {
        self.declare(p, out);
        match self.ty(a) {
            Type::Array { .. } => self.read_input_row(&self.name(p), a, i, out),
            Type::Acc { .. } | Type::Prim(_) => self.assign(p, &SubExp::Var(a), out),
        }
    }

    /// Binds row `i` of each input to a fresh name (see [`Lw::read_input_row`]); returns the
    /// names with their row types.
    pub(super) fn rows(&mut self, arrays: &[Var], i: &Ex, out: &mut Vec<I>) -> Vec<(String, Type)> {
        let mut v = Vec::new();
        for a in arrays {
            let row = self.ty(*a).row();
            let n = self.fresh("row");
            self.decl_named(&n, &row, out);
            self.read_input_row(&n, *a, i, out);
            v.push((n, row));
        }
        v
    }

    /// Sets the declared `dst` to row `i` of input array `a`: computed for a virtual `iota`,
    /// otherwise as [`Lw::read_row`] reads it.
    fn read_input_row(&self, dst: &str, a: Var, i: &Ex, out: &mut Vec<I>) {
        match self.iota_rows.get(&a) {
            Some((start, stride, elem)) => out.push(I::Set {
                name: dst.to_string(),
                val: iota_elem(start.clone(), stride.clone(), *elem, i.clone()),
            }),
            None => self.read_row(dst, &self.name(a), &self.ty(a).row(), i, out),
        }
    }

    /// Sets the declared `dst`, of type `row`, to row `at` of array `arr`: the element itself
    /// for scalar rows, a borrowed view otherwise (rows are never copied).
    pub(super) fn read_row(&self, dst: &str, arr: &str, row: &Type, at: &Ex, out: &mut Vec<I>) {
        match row {
            Type::Prim(t) => out.push(I::Set {
                name: dst.to_string(),
                val: Ex::Load {
                    elem: *t,
                    arr: arr.to_string(),
                    idx: Box::new(at.clone()),
                },
            }),
            _ => out.push(I::SetArr {
                dst: dst.to_string(),
                src: arr.to_string(),
                offset: Ex::times(at.clone(), Ex::product(self.dims(row.dims()))),
                share: Share::Borrow,
            }),
        }
    }

    /// Writes value `r` (a lambda result) as row `i` of the declared array `dst`; checks its
    /// shape.
    pub(super) fn write_row(&mut self, dst: Var, r: &SubExp, i: &Ex, aux: &Aux, out: &mut Vec<I>) {
        let dty = self.ty(dst);
        let rdims = self.dims(&dty.dims()[1..]);
        self.store_row(&self.name(dst), dty.elem(), &rdims, r, i, aux, out);
    }

    /// Writes value `r` as row `i` of the array `arr` of `elem`s whose rows have dimensions
    /// `rdims`: stores a scalar, copies an array after checking its shape.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_row(
        &mut self,
        arr: &str,
        elem: PrimType,
        rdims: &[Ex],
        r: &SubExp,
        i: &Ex,
        aux: &Aux,
        out: &mut Vec<I>,
    ) {
        match r {
            SubExp::Var(v) if matches!(self.ty(*v), Type::Array { .. }) => {
                let vd = self.var_dims(*v);
                self.size_check(out, &vd, rdims, elem, String::new(), aux);
                let block = Ex::product(rdims.to_vec());
                out.push(I::Copy {
                    elem,
                    dst: arr.to_string(),
                    dst_off: Ex::times(i.clone(), block.clone()),
                    src: self.name(*v),
                    src_off: Ex::int(0),
                    count: block,
                });
            }
            _ => out.push(I::Store {
                elem,
                arr: arr.to_string(),
                idx: i.clone(),
                val: self.se(r),
            }),
        }
    }

    /// Binds the values row `i` contributes to a consumer: the rows of `arrays` or, with a
    /// fused map `pre`, its results on them (scalars: [`super::unfuse`] has split the
    /// other fused SOACs before lowering).
    pub(super) fn elems(
        &mut self,
        pre: Option<&Lambda>,
        arrays: &[Var],
        i: &Ex,
        out: &mut Vec<I>,
    ) -> R<Vec<(String, Type)>> {
        let Some(map) = pre else {
            return Ok(self.rows(arrays, i, out));
        };
        if map.params.len() != arrays.len() || map.body.result.len() != map.ret.len() {
            return Err("internal error: fused map lambda does not fit its inputs".into());
        }
        for (p, a) in map.params.iter().zip(arrays) {
            self.bind_row(*p, *a, i, out);
        }
        self.stms(&map.body, out)?;
        let mut vals = Vec::new();
        for (r, t) in map.body.result.iter().zip(&map.ret) {
            if !matches!(t, Type::Prim(_)) {
                return Err("internal error: fused map returns an array".into());
            }
            let n = self.fresh("mapped");
            self.decl_named(&n, t, out);
            self.assign_named(&n, t, r, out);
            vals.push((n, t.clone()));
        }
        self.end_scope(&map.body, out);
        Ok(vals)
    }

    /// The block of map output `p`: a view of its slice of the array a concatenation builds
    /// when it is placed there ([`super::place`]), otherwise a fresh block.
    pub(super) fn alloc_map_output(&mut self, p: Var, out: &mut Vec<I>) -> R<()> {
        if let Some((src, offset)) = self.placed.get(&p).cloned() {
            out.push(I::SetArr {
                dst: self.name(p),
                src,
                offset,
                share: super::imp::Share::Borrow,
            });
            return Ok(());
        }
        let Type::Array { elem, dims } = self.ty(p) else {
            return Err("internal error: map result is not an array".into());
        };
        let (elem, count) = (*elem, Ex::product(self.dims(dims)));
        out.push(I::Alloc {
            arr: self.name(p),
            elem,
            count,
        });
        Ok(())
    }

    /// Declares and allocates one array of `count` elements per type of `tys`, named after
    /// `hint`, for partial results (the caller releases them).
    pub(super) fn alloc_scratch(
        &mut self,
        hint: &str,
        tys: &[PrimType],
        count: &Ex,
        out: &mut Vec<I>,
    ) -> Vec<String> {
        let mut names = Vec::new();
        for t in tys {
            let n = self.fresh(hint);
            out.push(I::Decl {
                ty: Ty::Array(*t),
                name: n.clone(),
                init: None,
            });
            out.push(I::Alloc {
                arr: n.clone(),
                elem: *t,
                count: count.clone(),
            });
            names.push(n);
        }
        names
    }

    /// Declares `lo` and `hi`, the bounds of chunk `c` of the options' number of near-equal
    /// chunks of `n` items.
    pub(super) fn chunk_range(&mut self, c: &Ex, n: &Ex, out: &mut Vec<I>) -> (String, String) {
        let chunks = Ex::int(self.opts.chunks);
        self.chunk_range_of(c, n, &chunks, out)
    }

    /// Declares `lo` and `hi`, the bounds of chunk `c` of `chunks` near-equal chunks of `n`
    /// items (`c * n / chunks`: no overflow for any realistic `n`).
    pub(super) fn chunk_range_of(
        &mut self,
        c: &Ex,
        n: &Ex,
        chunks: &Ex,
        out: &mut Vec<I>,
    ) -> (String, String) {
        let bound = |c: Ex| {
            Ex::Prim(
                PrimOp::Bin(BinOp::Quot, PrimType::I64),
                vec![Ex::times(c, n.clone()), chunks.clone()],
            )
        };
        let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
        for (name, c) in [(&lo, c.clone()), (&hi, Ex::plus(c.clone(), Ex::int(1)))] {
            out.push(I::Decl {
                ty: Ty::Prim(PrimType::I64),
                name: name.clone(),
                init: Some(bound(c)),
            });
        }
        (lo, hi)
    }

    /// A loop over `0..bound` with a fresh counter named after `hint`, whose body is the one
    /// statement `body` makes of the counter.
    pub(super) fn counted_loop(&mut self, hint: &str, bound: Ex, body: impl FnOnce(Ex) -> I) -> I {
        let k = self.fresh(hint);
        let body = vec![body(Ex::var(&k))];
        I::For {
            down: false,
            independent: false,
            var: k,
            bound,
            body,
            at: None,
        }
    }

    /// A loop over the items `lo..hi`; `item` writes the body for item `i`.
    pub(super) fn chunk_for(
        &mut self,
        lo: &str,
        hi: &str,
        item: impl FnOnce(&mut Self, &Ex, &mut Vec<I>) -> R<()>,
    ) -> R<I> {
        let (n, i) = (self.fresh("n"), self.fresh("i"));
        let mut body = vec![I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: i.clone(),
            init: Some(Ex::plus(Ex::var(lo), Ex::var(&n))),
        }];
        item(self, &Ex::var(&i), &mut body)?;
        Ok(I::For {
            down: false,
            independent: false,
            var: n,
            bound: Ex::idx(IdxOp::Sub, Ex::var(hi), Ex::var(lo)),
            body,
            at: None,
        })
    }

    /// Declares one scalar per array of `arrays` (name and element type): its element `idx`.
    pub(super) fn load_scalars(
        &mut self,
        hint: &str,
        arrays: &[(String, PrimType)],
        idx: &Ex,
        out: &mut Vec<I>,
    ) -> Vec<(String, Type)> {
        let tys: Vec<PrimType> = arrays.iter().map(|(_, t)| *t).collect();
        let load = |j: usize| Ex::Load {
            elem: tys[j],
            arr: arrays[j].0.clone(),
            idx: Box::new(idx.clone()),
        };
        self.init_scalars(hint, &tys, &load, out)
    }

    /// Declares one scalar per type of `tys`, named after `hint`, the `j`-th initialised to
    /// `init(j)`.
    pub(super) fn init_scalars(
        &mut self,
        hint: &str,
        tys: &[PrimType],
        init: &dyn Fn(usize) -> Ex,
        out: &mut Vec<I>,
    ) -> Vec<(String, Type)> {
        let mut vars = Vec::new();
        for (j, t) in tys.iter().enumerate() {
            let v = self.fresh(hint);
            out.push(I::Decl {
                ty: Ty::Prim(*t),
                name: v.clone(),
                init: Some(init(j)),
            });
            vars.push((v, Type::Prim(*t)));
        }
        vars
    }

    /// A parallel loop over the options' number of chunks of work estimated at `work`: `chunk`
    /// writes the body for chunk `c` (named), in a parallel context.
    pub(super) fn par_chunks(
        &mut self,
        work: Ex,
        out: &mut Vec<I>,
        chunk: impl FnOnce(&mut Self, &str) -> R<Vec<I>>,
    ) -> R<()> {
        let chunks = Ex::int(self.opts.chunks);
        self.par_chunks_of(&chunks, work, out, chunk)
    }

    /// A parallel loop over `chunks` chunks of work estimated at `work`, as [`Lw::par_chunks`].
    pub(super) fn par_chunks_of(
        &mut self,
        chunks: &Ex,
        work: Ex,
        out: &mut Vec<I>,
        chunk: impl FnOnce(&mut Self, &str) -> R<Vec<I>>,
    ) -> R<()> {
        let c = self.fresh("c");
        let body = self.in_parallel(true, |s| chunk(s, &c))?;
        out.push(I::ParFor {
            var: c,
            bound: chunks.clone(),
            work,
            body,
            private: Vec::new(),
            private_body: Vec::new(),
            independent: false,
        });
        Ok(())
    }
}

/// Stores each declared scalar of `vals` as element `idx` of the matching array of `arrays`
/// (name and element type).
pub(super) fn store_scalars(
    arrays: &[(String, PrimType)],
    idx: &Ex,
    vals: &[(String, Type)],
    out: &mut Vec<I>,
) {
    for ((arr, t), (v, _)) in arrays.iter().zip(vals) {
        out.push(I::Store {
            elem: *t,
            arr: arr.clone(),
            idx: idx.clone(),
            val: Ex::var(v),
        });
    }
}
