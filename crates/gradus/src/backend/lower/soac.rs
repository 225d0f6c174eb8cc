//! What SOACs share: dispatch, rows of inputs, fused maps, cost estimates, parallel contexts
//! and the chunks of parallel loops.
//!
//! Takes SOACs whose inputs are arrays of the SOAC's width (checked here) or accumulators.
//! Guarantees that the rows of inputs are borrowed views or loaded elements (computed for a
//! virtual `iota`), never copies; that a fused map's values are scalars (see
//! [`super::unfuse`]); and that the chunks of a parallel loop depend on the width only,
//! never on the thread count.

use super::hist::HistSource;
use super::imp::{Ex, IdxOp, Share, Stm as I, Ty};
use super::{CHUNKS, Lw, R};
use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, ScremaForm, Soac, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::value::PrimType;
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
    let uses = crate::opt::util::use_counts(names, body);
    iotas.retain(|v| uses.get(v).is_some_and(|n| inputs.get(v) == Some(n)));
    iotas
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
                Exp::WithAcc { lam, .. } => Self::cost(&lam.body),
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

    /// Binds lambda parameter `p` to row `i` of input `a` (a borrowed view or an element), or
    /// to the accumulator `a` itself.
    pub(super) fn bind_row(&mut self, p: Var, a: Var, i: &Ex, out: &mut Vec<I>) {
        self.declare(p, out);
        let pn = self.name(p);
        if let Some(val) = self.iota_row(a, i) {
            out.push(I::Set { name: pn, val });
            return;
        }
        let an = self.name(a);
        match self.ty(a) {
            Type::Acc { .. } => self.assign(p, &SubExp::Var(a), out),
            Type::Array { elem, dims } => {
                if dims.len() == 1 {
                    out.push(I::Set {
                        name: pn,
                        val: Ex::Load {
                            elem: *elem,
                            arr: an,
                            idx: Box::new(i.clone()),
                        },
                    });
                } else {
                    let row = Ex::product(self.dims(&dims[1..]));
                    out.push(I::SetArr {
                        dst: pn,
                        src: an,
                        offset: Ex::times(i.clone(), row),
                        share: Share::Borrow,
                    });
                }
            }
            Type::Prim(_) => self.assign(p, &SubExp::Var(a), out),
        }
    }

    /// Element `i` of `a` when `a` is a virtual `iota`: `start + i * stride`.
    fn iota_row(&self, a: Var, i: &Ex) -> Option<Ex> {
        let (start, stride, elem) = self.iota_rows.get(&a)?.clone();
        let ci = Ex::Prim(PrimOp::Conv(PrimType::I64, elem), vec![i.clone()]);
        Some(Ex::Prim(
            PrimOp::Bin(BinOp::Add, elem),
            vec![
                start,
                Ex::Prim(PrimOp::Bin(BinOp::Mul, elem), vec![ci, stride]),
            ],
        ))
    }

    /// Writes value `r` (a lambda result) as row `i` of the declared array `dst` whose type
    /// is `dty`; checks its shape.
    pub(super) fn write_row(&mut self, dst: Var, r: &SubExp, i: &Ex, aux: &Aux, out: &mut Vec<I>) {
        let dn = self.name(dst);
        let dty = self.ty(dst).clone();
        let elem = dty.elem();
        let rdims = self.dims(&dty.dims()[1..]);
        match r {
            SubExp::Var(v) if matches!(self.ty(*v), Type::Array { .. }) => {
                let vd = self.var_dims(*v);
                self.size_check(out, &vd, &rdims, elem, String::new(), aux);
                let block = Ex::product(rdims);
                out.push(I::Copy {
                    elem,
                    dst: dn,
                    dst_off: Ex::times(i.clone(), block.clone()),
                    src: self.name(*v),
                    src_off: Ex::int(0),
                    count: block,
                });
            }
            _ => out.push(I::Store {
                elem,
                arr: dn,
                idx: i.clone(),
                val: self.se(r),
            }),
        }
    }

    /// Binds row `i` of each input to a fresh name (element or borrowed view); returns the
    /// names with their row types.
    pub(super) fn rows(&mut self, arrays: &[Var], i: &Ex, out: &mut Vec<I>) -> Vec<(String, Type)> {
        let mut v = Vec::new();
        for a in arrays {
            let ty = self.ty(*a).clone();
            let row = ty.row();
            let n = self.fresh("row");
            self.decl_named(&n, &row, out);
            if let Some(val) = self.iota_row(*a, i) {
                out.push(I::Set {
                    name: n.clone(),
                    val,
                });
                v.push((n, row));
                continue;
            }
            let an = self.name(*a);
            match &row {
                Type::Prim(t) => out.push(I::Set {
                    name: n.clone(),
                    val: Ex::Load {
                        elem: *t,
                        arr: an,
                        idx: Box::new(i.clone()),
                    },
                }),
                _ => {
                    let block = Ex::product(self.dims(row.dims()));
                    out.push(I::SetArr {
                        dst: n.clone(),
                        src: an,
                        offset: Ex::times(i.clone(), block),
                        share: Share::Borrow,
                    });
                }
            }
            v.push((n, row));
        }
        v
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

    /// Declares `lo` and `hi`, the bounds of chunk `c` of [`CHUNKS`] near-equal chunks of `n`
    /// items (`c * n / CHUNKS`: no overflow for any realistic `n`).
    pub(super) fn chunk_range(&mut self, c: &Ex, n: &Ex, out: &mut Vec<I>) -> (String, String) {
        let bound = |c: Ex| {
            Ex::Prim(
                PrimOp::Bin(BinOp::Quot, PrimType::I64),
                vec![Ex::times(c, n.clone()), Ex::int(CHUNKS)],
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
            var: n,
            bound: Ex::idx(IdxOp::Sub, Ex::var(hi), Ex::var(lo)),
            body,
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
        let mut vars = Vec::new();
        for (arr, t) in arrays {
            let v = self.fresh(hint);
            out.push(I::Decl {
                ty: Ty::Prim(*t),
                name: v.clone(),
                init: Some(Ex::Load {
                    elem: *t,
                    arr: arr.clone(),
                    idx: Box::new(idx.clone()),
                }),
            });
            vars.push((v, Type::Prim(*t)));
        }
        vars
    }
}
