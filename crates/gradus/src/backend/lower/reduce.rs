//! `reduce` and `scan`, with or without a fused map, and a map feeding only a reduction.
//!
//! Takes a reduction or scan whose operator fits its neutral elements and inputs. Guarantees
//! the interpreter's left-to-right results sequentially; with `parallel` and scalar operands,
//! when the work reaches [`PAR_CHUNK_MIN_WORK`], [`CHUNKS`] chunks are reduced in parallel
//! and combined in order (so results do not depend on the thread count); a scan with a fused
//! map runs the map once per element.

use super::imp::{Ex, IdxOp, Stm as I, Ty};
use super::{CHUNKS, Lw, PAR_CHUNK_MIN_WORK, R, lt};
use crate::core::ir::{Aux, Body, Exp, Lambda, Soac, SubExp, Type, Var};
use crate::opt::util::free_in_exp;
use crate::value::PrimType;

impl<'a> Lw<'a> {
    /// Lowers statements `j` and `j + 1` of `body` as one loop when they are a sequential
    /// `map` producing a scalar array that only the next statement, a `reduce` with a
    /// floating-point operator of basic operations, consumes: the map's values go straight
    /// into the accumulator instead of through an array allocated for them (the optimiser has
    /// no fused map-reduce form, and such pairs sit in the innermost loops, e.g. the dot
    /// products of a matrix-vector product). Floating-point operators cannot fail, so the
    /// interleaving reports the same errors as running the map first. Returns whether it did.
    pub(super) fn map_reduce(&mut self, body: &Body, j: usize, out: &mut Vec<I>) -> R<bool> {
        let (Some(s1), Some(s2)) = (body.stms.get(j), body.stms.get(j + 1)) else {
            return Ok(false);
        };
        if self.opts.parallel && !self.in_par {
            return Ok(false);
        }
        let (
            Exp::Soac(Soac::Map {
                w: w1,
                lam: ml,
                arrays: ma,
            }),
            Exp::Soac(Soac::Reduce {
                w: w2,
                lam: rl,
                neutral,
                arrays: ra,
                ..
            }),
        ) = (&s1.exp, &s2.exp)
        else {
            return Ok(false);
        };
        let ([y], [r], [ne], [ry], [t]) =
            (&s1.pat[..], &s2.pat[..], &neutral[..], &ra[..], &rl.ret[..])
        else {
            return Ok(false);
        };
        let fits = w1 == w2
            && ry == y
            && ml.body.result.len() == 1
            && ml.params.len() == ma.len()
            && rl.params.len() == 2
            && matches!(t, Type::Prim(PrimType::F32 | PrimType::F64))
            && matches!(self.ty(*y), Type::Array { elem, dims }
                if dims.len() == 1 && Type::Prim(*elem) == *t)
            && ma.iter().all(|a| matches!(self.ty(*a), Type::Array { .. }))
            && rl
                .body
                .stms
                .iter()
                .all(|s| matches!(s.exp, Exp::BasicOp(_)))
            && !body.result.contains(&SubExp::Var(*y))
            && !body.stms[j + 2..]
                .iter()
                .any(|s| free_in_exp(&self.prog.names, &s.exp).contains(y));
        if !fits {
            return Ok(false);
        }
        // `y` is declared (and released at the end of the scope) but never allocated.
        self.declare(*y, out);
        self.declare(*r, out);
        let w = self.width(w1, ma, &s1.aux, out);
        let acc = self.fresh("acc");
        self.decl_named(&acc, t, out);
        self.assign_named(&acc, t, ne, out);
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut b = Vec::new();
        for (p, a) in ml.params.iter().zip(ma) {
            self.bind_row(*p, *a, &iv, &mut b);
        }
        self.stms(&ml.body, &mut b)?;
        let v = self.fresh("row");
        self.decl_named(&v, t, &mut b);
        self.assign_named(&v, t, &ml.body.result[0], &mut b);
        self.end_scope(&ml.body, &mut b);
        let nx = self.fresh("nx");
        self.decl_named(&nx, t, &mut b);
        self.apply(
            rl,
            &[(acc.clone(), t.clone()), (v, t.clone())],
            &[(nx.clone(), t.clone())],
            &mut b,
        )?;
        self.move_into(&acc, &nx, t, &mut b);
        out.push(I::For {
            var: i,
            bound: w,
            body: b,
        });
        let rn = self.name(*r);
        self.move_into(&rn, &acc, t, out);
        Ok(true)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.width(w, arrays, aux, out);
        let k = neutral.len();
        let inputs = pre.map_or(arrays.len(), |m| m.ret.len());
        if inputs != k || lam.params.len() != 2 * k || lam.ret.len() != k {
            return Err("internal error: reduce/scan operator does not fit".into());
        }
        let acc_tys: Vec<Type> = lam.ret.clone();
        if scan {
            for &p in pat {
                let Type::Array { elem, dims } = self.ty(p) else {
                    return Err("internal error: scan result is not an array".into());
                };
                let count = Ex::product(self.dims(dims));
                out.push(I::Alloc {
                    arr: self.name(p),
                    elem: *elem,
                    count,
                });
            }
        }
        let all_scalar = acc_tys.iter().all(|t| matches!(t, Type::Prim(_)));
        if self.opts.parallel && !self.in_par && all_scalar {
            // Small inputs run sequentially: splitting them into chunks costs more than it
            // saves. The choice depends on the width only, so results do not depend on the
            // number of threads.
            let cost = Self::cost(&lam.body) + pre.map_or(0, |m| Self::cost(&m.body));
            let mut par = Vec::new();
            self.par_reduce_or_scan(pat, &w, lam, neutral, pre, arrays, scan, &mut par)?;
            let mut seq = Vec::new();
            self.seq_reduce_or_scan(pat, &w, lam, neutral, pre, arrays, scan, &acc_tys, &mut seq)?;
            out.push(I::If {
                cond: Ex::Idx(
                    IdxOp::Le,
                    Box::new(Ex::var(PAR_CHUNK_MIN_WORK)),
                    Box::new(Ex::times(w.clone(), Ex::int(cost))),
                ),
                then: par,
                els: seq,
            });
            return Ok(());
        }
        self.seq_reduce_or_scan(pat, &w, lam, neutral, pre, arrays, scan, &acc_tys, out)
    }

    /// `reduce`/`scan` left to right.
    #[allow(clippy::too_many_arguments)]
    fn seq_reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &Ex,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        acc_tys: &[Type],
        out: &mut Vec<I>,
    ) -> R<()> {
        let accs: Vec<(String, Type)> = acc_tys
            .iter()
            .map(|t| (self.fresh("acc"), t.clone()))
            .collect();
        for ((a, t), ne) in accs.iter().zip(neutral) {
            self.decl_named(a, t, out);
            self.assign_named(a, t, ne, out);
        }
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut body = Vec::new();
        let mut args = accs.clone();
        args.extend(self.elems(pre, arrays, &iv, &mut body)?);
        let nexts: Vec<(String, Type)> = acc_tys
            .iter()
            .map(|t| (self.fresh("nx"), t.clone()))
            .collect();
        for (n, t) in &nexts {
            self.decl_named(n, t, &mut body);
        }
        self.apply(lam, &args, &nexts, &mut body)?;
        for ((a, t), (n, _)) in accs.iter().zip(&nexts) {
            if matches!(t, Type::Array { .. }) {
                body.push(I::Decref(a.clone()));
            }
            self.move_into(a, n, t, &mut body);
        }
        if scan {
            for (p, (a, _)) in pat.iter().zip(&accs) {
                let pn = self.name(*p);
                let pty = self.ty(*p).clone();
                let elem = pty.elem();
                let rdims = self.dims(&pty.dims()[1..]);
                if rdims.is_empty() {
                    body.push(I::Store {
                        elem,
                        arr: pn,
                        idx: iv.clone(),
                        val: Ex::var(a),
                    });
                } else {
                    let block = Ex::product(rdims);
                    body.push(I::Copy {
                        elem,
                        dst: pn,
                        dst_off: Ex::times(iv.clone(), block.clone()),
                        src: a.clone(),
                        src_off: Ex::int(0),
                        count: block,
                    });
                }
            }
        }
        out.push(I::For {
            var: i,
            bound: w.clone(),
            body,
        });
        if scan {
            for (a, t) in &accs {
                if matches!(t, Type::Array { .. }) {
                    out.push(I::Decref(a.clone()));
                }
            }
        } else {
            for (p, (a, t)) in pat.iter().zip(&accs) {
                let pn = self.name(*p);
                self.move_into(&pn, a, t, out);
                if let Type::Array { elem, dims } = t {
                    let count = Ex::product(self.dims(dims));
                    out.push(I::MakeUnique {
                        arr: pn,
                        elem: *elem,
                        count,
                    });
                }
            }
        }
        Ok(())
    }

    /// `reduce`/`scan` over [`CHUNKS`] chunks in parallel, scalar operands only.
    #[allow(clippy::too_many_arguments)]
    fn par_reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &Ex,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        out: &mut Vec<I>,
    ) -> R<()> {
        let tys: Vec<PrimType> = lam.ret.iter().map(|t| t.elem()).collect();
        let parts = self.alloc_scratch("part", &tys, &Ex::int(CHUNKS), out);
        let cost = Self::cost(&lam.body) + pre.map_or(0, |m| Self::cost(&m.body));
        // Phase 1: each chunk reduced from the neutral element into its partial result.
        let chunk_loop = |s: &mut Self,
                          c: &str,
                          init: &dyn Fn(&mut Self, usize) -> Ex,
                          write: bool,
                          write_part: bool|
         -> R<Vec<I>> {
            let mut b = Vec::new();
            let (lo, hi) = s.chunk_range(&Ex::var(c), w, &mut b);
            let accs: Vec<(String, Type)> = tys
                .iter()
                .map(|t| (s.fresh("acc"), Type::Prim(*t)))
                .collect();
            for (j, (a, t)) in accs.iter().enumerate() {
                b.push(I::Decl {
                    ty: Ty::Prim(t.elem()),
                    name: a.clone(),
                    init: Some(init(s, j)),
                });
            }
            let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                let mut args = accs.clone();
                args.extend(s.elems(pre, arrays, i, inner)?);
                s.apply(lam, &args, &accs, inner)?;
                if write {
                    for (p, (a, _)) in pat.iter().zip(&accs) {
                        inner.push(I::Store {
                            elem: s.ty(*p).elem(),
                            arr: s.name(*p),
                            idx: i.clone(),
                            val: Ex::var(a),
                        });
                    }
                }
                Ok(())
            })?;
            b.push(items);
            if write_part {
                for (p, (a, t)) in parts.iter().zip(&accs) {
                    b.push(I::Store {
                        elem: t.elem(),
                        arr: p.clone(),
                        idx: Ex::var(c),
                        val: Ex::var(a),
                    });
                }
            }
            Ok(b)
        };
        let neutral_ex: Vec<Ex> = neutral.iter().map(|n| self.se(n)).collect();
        // A scan with a fused map scans each chunk in phase 1 already (storing its results)
        // and adds the chunk's prefix to them in phase 3, so the map runs once per element;
        // a plain scan reads its input twice instead of writing its output twice.
        let propagate = scan && pre.is_some();
        let c1 = self.fresh("c");
        let body1 = self.in_parallel(true, |s| {
            chunk_loop(s, &c1, &|_, j| neutral_ex[j].clone(), propagate, true)
        })?;
        out.push(I::ParFor {
            var: c1,
            bound: Ex::int(CHUNKS),
            work: Ex::times(w.clone(), Ex::int(cost)),
            body: body1,
            private: Vec::new(),
            private_body: Vec::new(),
        });
        // Phase 2: combine the partial results in order (for scan: exclusive prefixes).
        let accs: Vec<(String, Type)> = tys
            .iter()
            .map(|t| (self.fresh("tot"), Type::Prim(*t)))
            .collect();
        for ((a, t), ne) in accs.iter().zip(&neutral_ex) {
            out.push(I::Decl {
                ty: Ty::Prim(t.elem()),
                name: a.clone(),
                init: Some(ne.clone()),
            });
        }
        let c2 = self.fresh("c");
        let mut body2 = Vec::new();
        let mut args = accs.clone();
        let part_arrays: Vec<(String, PrimType)> = parts.iter().cloned().zip(tys.clone()).collect();
        args.extend(self.load_scalars("pv", &part_arrays, &Ex::var(&c2), &mut body2));
        if scan {
            for ((p, t), (a, _)) in parts.iter().zip(&tys).zip(&accs) {
                body2.push(I::Store {
                    elem: *t,
                    arr: p.clone(),
                    idx: Ex::var(&c2),
                    val: Ex::var(a),
                });
            }
        }
        self.apply(lam, &args, &accs, &mut body2)?;
        out.push(I::For {
            var: c2,
            bound: Ex::int(CHUNKS),
            body: body2,
        });
        if propagate {
            // Phase 3: each chunk but the first combines its prefix with its results.
            let c3 = self.fresh("c");
            let body3 = self.in_parallel(true, |s| -> R<Vec<I>> {
                let mut b = Vec::new();
                let (lo, hi) = s.chunk_range(&Ex::var(&c3), w, &mut b);
                let prefix = s.load_scalars("pre", &part_arrays, &Ex::var(&c3), &mut b);
                let results: Vec<(String, PrimType)> =
                    pat.iter().map(|p| (s.name(*p), s.ty(*p).elem())).collect();
                let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                    let mut args = prefix.clone();
                    args.extend(s.load_scalars("x", &results, i, inner));
                    let combined: Vec<(String, Type)> = results
                        .iter()
                        .map(|(_, t)| (s.fresh("r"), Type::Prim(*t)))
                        .collect();
                    for (r, t) in &combined {
                        s.decl_named(r, t, inner);
                    }
                    s.apply(lam, &args, &combined, inner)?;
                    for ((arr, t), (r, _)) in results.iter().zip(&combined) {
                        inner.push(I::Store {
                            elem: *t,
                            arr: arr.clone(),
                            idx: i.clone(),
                            val: Ex::var(r),
                        });
                    }
                    Ok(())
                })?;
                b.push(items);
                Ok(vec![I::If {
                    cond: lt(Ex::int(0), Ex::var(&c3)),
                    then: b,
                    els: vec![],
                }])
            })?;
            out.push(I::ParFor {
                var: c3,
                bound: Ex::int(CHUNKS),
                work: Ex::times(w.clone(), Ex::int(Self::cost(&lam.body))),
                body: body3,
                private: Vec::new(),
                private_body: Vec::new(),
            });
        } else if scan {
            // Phase 3: each chunk scanned from its prefix.
            let c3 = self.fresh("c");
            let parts3 = parts.clone();
            let tys3 = tys.clone();
            let c3n = c3.clone();
            let body3 = self.in_parallel(true, |s| {
                chunk_loop(
                    s,
                    &c3,
                    &|_, j| Ex::Load {
                        elem: tys3[j],
                        arr: parts3[j].clone(),
                        idx: Box::new(Ex::var(&c3n)),
                    },
                    true,
                    false,
                )
            })?;
            out.push(I::ParFor {
                var: c3,
                bound: Ex::int(CHUNKS),
                work: Ex::times(w.clone(), Ex::int(cost)),
                body: body3,
                private: Vec::new(),
                private_body: Vec::new(),
            });
        } else {
            for (p, (a, _)) in pat.iter().zip(&accs) {
                out.push(I::Set {
                    name: self.name(*p),
                    val: Ex::var(a),
                });
            }
        }
        for p in parts {
            out.push(I::Decref(p));
        }
        Ok(())
    }
}
