//! Basic operations: scalars, array construction, reshaping, permutation, assertions and
//! accumulator updates (indexing, slicing and in-place updates are in [`super::slice`]).
//!
//! Takes a [`BasicOp`] with its pattern. Guarantees what the interpreter computes:
//! `reshape` and `coerce` are views sharing the buffer; `rearrange`, `rotate`, `concat`,
//! `replicate`, `iota` and literals are fresh buffers (except an `iota` the lowering never
//! stores, see [`super::soac::virtual_iotas`]); accumulator updates are atomic inside
//! parallel loops, except those no two iterations share ([`Lw::exclusive_accs`]); every
//! check the interpreter makes is made first.

use super::imp::{Ex, IdxOp, SiteKind, Stm as I, Ty};
use super::slice::strides;
use super::soac::iota_elem;
use super::{Lw, R, and, bool_ex, eq, in_range, le, lt};
use crate::core::ir::{Aux, BasicOp, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};

impl<'a> Lw<'a> {
    pub(super) fn basic(
        &mut self,
        pat: &[Var],
        op: &BasicOp,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let dst = pat.first().copied();
        let dname = dst.map(|v| self.name(v)).unwrap_or_default();
        match op {
            BasicOp::SubExp(se) => {
                if let Some(d) = dst {
                    self.assign(d, se, out);
                }
            }
            BasicOp::Prim(p, args) => {
                let xs: Vec<Ex> = args.iter().map(|a| self.se(a)).collect();
                if let PrimOp::Bin(BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem, t) = p
                    && t.is_int()
                    && xs.len() == 2
                {
                    let nz = Ex::Prim(
                        PrimOp::Cmp(CmpOp::Ne, *t),
                        vec![xs[1].clone(), Ex::Const(Scalar::zero(*t))],
                    );
                    if !matches!(&xs[1], Ex::Const(c) if c.as_i64() != Some(0)) {
                        self.check(out, nz, SiteKind::DivZero, vec![], aux);
                    }
                }
                out.push(I::Set {
                    name: dname,
                    val: Ex::Prim(*p, xs),
                });
            }
            BasicOp::Index { array, slice } => {
                let copy = dst.is_some_and(|d| self.copied_views.contains(&d));
                self.index(dname, *array, slice, copy, aux, out)?
            }
            BasicOp::Update {
                array,
                slice,
                value,
            } => self.update(dname, *array, slice, value, aux, out)?,
            BasicOp::Iota {
                n,
                start,
                stride,
                elem,
            } => {
                let nn = self.ix(n);
                let site = self.site(SiteKind::IotaRange, aux);
                out.push(I::Check {
                    cond: le(Ex::int(0), nn.clone()),
                    site,
                    args: vec![self.ix(start), self.ix(stride), nn.clone()],
                });
                let nonzero = |s: &SubExp| match s {
                    SubExp::Const(Scalar::I64(k)) => *k != 0,
                    _ => false,
                };
                if let [v] = pat
                    && *elem == PrimType::I64
                    && nonzero(stride)
                {
                    self.injective_iotas.insert(*v);
                }
                if let [v] = pat
                    && self.virtual_iotas.contains(v)
                {
                    let row = (self.se(start), self.se(stride), *elem);
                    self.iota_rows.insert(*v, row);
                    return Ok(());
                }
                out.push(I::Alloc {
                    arr: dname.clone(),
                    elem: *elem,
                    count: nn.clone(),
                });
                let (start, stride) = (self.se(start), self.se(stride));
                out.push(self.counted_loop("i", nn, |i| I::Store {
                    elem: *elem,
                    arr: dname,
                    idx: i.clone(),
                    val: iota_elem(start, stride, *elem, i),
                }));
            }
            BasicOp::Replicate { shape, value } => {
                let sd = self.dims(shape);
                for d in &sd {
                    let site = self.site(
                        SiteKind::Template {
                            template: "Range 0..1..<{} is invalid.".into(),
                            types: vec![PrimType::I64],
                        },
                        aux,
                    );
                    out.push(I::Check {
                        cond: le(Ex::int(0), d.clone()),
                        site,
                        args: vec![d.clone()],
                    });
                }
                let Some(d) = dst else { return Ok(()) };
                if sd.is_empty() {
                    self.assign(d, value, out);
                    return Ok(());
                }
                let elem = self.ty(d).elem();
                let times = Ex::product(sd);
                let (vdims, vname) = match value {
                    SubExp::Var(v) if matches!(self.ty(*v), Type::Array { .. }) => {
                        (self.var_dims(*v), Some(self.name(*v)))
                    }
                    _ => (vec![], None),
                };
                let block = Ex::product(vdims);
                out.push(I::Alloc {
                    arr: dname.clone(),
                    elem,
                    count: Ex::times(times.clone(), block.clone()),
                });
                let val = self.se(value);
                out.push(self.counted_loop("i", times, |i| match vname {
                    None => I::Store {
                        elem,
                        arr: dname,
                        idx: i,
                        val,
                    },
                    Some(vn) => I::Copy {
                        elem,
                        dst: dname,
                        dst_off: Ex::times(i, block.clone()),
                        src: vn,
                        src_off: Ex::int(0),
                        count: block,
                    },
                }));
            }
            BasicOp::Scratch { elem, shape } => {
                if shape.is_empty() {
                    out.push(I::Set {
                        name: dname,
                        val: Ex::Const(Scalar::zero(*elem)),
                    });
                } else {
                    let count = Ex::product(self.dims(shape));
                    out.push(I::Alloc {
                        arr: dname,
                        elem: *elem,
                        count,
                    });
                }
            }
            BasicOp::ArrayLit { elems, row } => {
                let elem = row.elem();
                let rdims = self.dims(row.dims());
                let block = Ex::product(rdims.clone());
                out.push(I::Alloc {
                    arr: dname.clone(),
                    elem,
                    count: Ex::times(Ex::int(elems.len() as i64), block.clone()),
                });
                for (k, e) in elems.iter().enumerate() {
                    self.store_row(&dname, elem, &rdims, e, &Ex::int(k as i64), aux, out);
                }
            }
            BasicOp::Concat { arrays, size } => {
                let Some(first) = arrays.first() else {
                    return Err("internal error: concatenation of no arrays".into());
                };
                let elem = self.ty(*first).elem();
                let fd = self.var_dims(*first);
                let inner_dims = fd[1..].to_vec();
                let inner = Ex::product(inner_dims.clone());
                let mut total = Ex::int(0);
                for a in arrays {
                    let ad = self.var_dims(*a);
                    let mut want = vec![ad[0].clone()];
                    want.extend(inner_dims.iter().cloned());
                    self.size_check(out, &ad, &want, elem, String::new(), aux);
                    total = Ex::plus(total, ad[0].clone());
                }
                let sz = self.ix(size);
                let mut have = vec![total.clone()];
                have.extend(inner_dims.iter().cloned());
                let mut want = vec![sz.clone()];
                want.extend(inner_dims.iter().cloned());
                self.size_check(out, &have, &want, elem, String::new(), aux);
                // Operands their producers wrote in place ([`super::place`]) are not copied.
                let in_place = dst
                    .and_then(|d| self.preallocated.get(&d).cloned())
                    .unwrap_or_default();
                if in_place.is_empty() {
                    out.push(I::Alloc {
                        arr: dname.clone(),
                        elem,
                        count: Ex::times(sz, inner.clone()),
                    });
                }
                let mut off = Ex::int(0);
                for a in arrays {
                    let n = Ex::times(self.var_dims(*a)[0].clone(), inner.clone());
                    if in_place.contains(a) {
                        off = Ex::plus(off, n);
                        continue;
                    }
                    out.push(I::Copy {
                        elem,
                        dst: dname.clone(),
                        dst_off: off.clone(),
                        src: self.name(*a),
                        src_off: Ex::int(0),
                        count: n.clone(),
                    });
                    off = Ex::plus(off, n);
                }
            }
            BasicOp::Copy(v) => match self.ty(*v) {
                // The source's last use: its reference moves to the copy, which copies the
                // elements only when the buffer is shared or borrowed (a checkpointed
                // state copied before a loop updates it in place, every time step).
                Type::Array { elem, .. } if self.last_used_once.contains(v) => {
                    let (elem, ty) = (*elem, self.ty(*v).clone());
                    let src = self.name(*v);
                    self.move_into(&dname, &src, &ty, out);
                    out.push(I::MakeUnique {
                        arr: dname,
                        elem,
                        count: Ex::product(self.var_dims(*v)),
                        counted: false,
                    });
                }
                Type::Array { elem, .. } => {
                    let n = Ex::product(self.var_dims(*v));
                    out.push(I::Alloc {
                        arr: dname.clone(),
                        elem: *elem,
                        count: n.clone(),
                    });
                    out.push(I::Copy {
                        elem: *elem,
                        dst: dname,
                        dst_off: Ex::int(0),
                        src: self.name(*v),
                        src_off: Ex::int(0),
                        count: n,
                    });
                }
                _ => {
                    if let Some(d) = dst {
                        self.assign(d, &SubExp::Var(*v), out);
                    }
                }
            },
            BasicOp::Reshape { array, shape } => {
                let old = self.var_dims(*array);
                let new = self.dims(shape);
                let elem = self.ty(*array).elem();
                let nonneg = new
                    .iter()
                    .fold(bool_ex(true), |c, d| and(c, le(Ex::int(0), d.clone())));
                let cond = and(
                    nonneg,
                    eq(Ex::product(old.clone()), Ex::product(new.clone())),
                );
                let text_dims = new.clone();
                let mut args = old.clone();
                args.extend(text_dims);
                self.check(
                    out,
                    cond,
                    SiteKind::Size {
                        actual: old.len(),
                        required: new.len(),
                        elem,
                        text: String::new(),
                    },
                    args,
                    aux,
                );
                self.view_or_load(dst, *array, out);
            }
            BasicOp::Rearrange { array, perm } => {
                let dims = self.var_dims(*array);
                let elem = self.ty(*array).elem();
                if perm.iter().enumerate().all(|(i, &p)| i == p) {
                    if let Some(d) = dst {
                        self.assign(d, &SubExp::Var(*array), out);
                    }
                    return Ok(());
                }
                let an = self.name(*array);
                out.push(I::Alloc {
                    arr: dname.clone(),
                    elem,
                    count: Ex::product(dims.clone()),
                });
                let in_st = strides(&dims);
                let out_dims: Vec<Ex> = perm.iter().map(|&p| dims[p].clone()).collect();
                let counters: Vec<String> = perm.iter().map(|_| self.fresh("r")).collect();
                let mut src = Ex::int(0);
                let mut dsto = Ex::int(0);
                for (j, &p) in perm.iter().enumerate() {
                    src = Ex::plus(src, Ex::times(Ex::var(&counters[j]), in_st[p].clone()));
                    dsto = Ex::plus(Ex::times(dsto, out_dims[j].clone()), Ex::var(&counters[j]));
                }
                let mut body = vec![I::Store {
                    elem,
                    arr: dname,
                    idx: dsto,
                    val: Ex::Load {
                        elem,
                        arr: an,
                        idx: Box::new(src),
                    },
                }];
                for (j, c) in counters.into_iter().enumerate().rev() {
                    body = vec![I::For {
                        down: false,
                        independent: false,
                        var: c,
                        bound: out_dims[j].clone(),
                        body,
                        at: None,
                    }];
                }
                out.extend(body);
            }
            BasicOp::Rotate { array, amount } => {
                let dims = self.var_dims(*array);
                let elem = self.ty(*array).elem();
                let an = self.name(*array);
                let n = dims[0].clone();
                let inner = Ex::product(dims[1..].iter().cloned());
                out.push(I::Alloc {
                    arr: dname.clone(),
                    elem,
                    count: Ex::times(n.clone(), inner.clone()),
                });
                if n == Ex::int(0) {
                    // Nothing to copy; the amount modulo a constant zero would be a division
                    // by zero that C compilers reject even where it is never executed.
                    return Ok(());
                }
                let r = self.fresh("rot");
                let amt = self.ix(amount);
                // r = amount mod n (Euclidean), for n > 0.
                let m = Ex::idx(IdxOp::Rem, amt, n.clone());
                let m = Ex::idx(IdxOp::Rem, Ex::plus(m, n.clone()), n.clone());
                out.push(I::If {
                    cond: lt(Ex::int(0), n.clone()),
                    then: vec![
                        I::Decl {
                            ty: Ty::Prim(PrimType::I64),
                            name: r.clone(),
                            init: Some(m),
                        },
                        I::Copy {
                            elem,
                            dst: dname.clone(),
                            dst_off: Ex::int(0),
                            src: an.clone(),
                            src_off: Ex::times(Ex::var(&r), inner.clone()),
                            count: Ex::times(
                                Ex::idx(IdxOp::Sub, n.clone(), Ex::var(&r)),
                                inner.clone(),
                            ),
                        },
                        I::Copy {
                            elem,
                            dst: dname,
                            dst_off: Ex::times(
                                Ex::idx(IdxOp::Sub, n.clone(), Ex::var(&r)),
                                inner.clone(),
                            ),
                            src: an,
                            src_off: Ex::int(0),
                            count: Ex::times(Ex::var(&r), inner),
                        },
                    ],
                    els: vec![],
                });
            }
            BasicOp::Coerce {
                array,
                shape,
                type_text,
            } => {
                let have = self.var_dims(*array);
                let want = self.dims(shape);
                let elem = self.ty(*array).elem();
                if have.len() == want.len() {
                    self.size_check(out, &have, &want, elem, type_text.clone(), aux);
                }
                if let Some(d) = dst {
                    self.assign(d, &SubExp::Var(*array), out);
                }
            }
            BasicOp::Assert {
                cond,
                message,
                args,
            } => {
                let types = args
                    .iter()
                    .map(|a| match a {
                        SubExp::Const(c) => c.prim_type(),
                        SubExp::Var(v) => self.ty(*v).elem(),
                    })
                    .collect();
                let args = args.iter().map(|a| self.se(a)).collect();
                let cond = self.se(cond);
                self.check(
                    out,
                    cond,
                    SiteKind::Template {
                        template: message.clone(),
                        types,
                    },
                    args,
                    aux,
                );
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => {
                let Type::Acc { shape, elems } = self.ty(*acc).clone() else {
                    return Err("internal error: update_acc on a non-accumulator".into());
                };
                let accn = self.name(*acc);
                let atomic = self.in_par && !self.exclusive_accs.contains(acc);
                let sd = self.dims(&shape);
                let idx: Vec<Ex> = indices.iter().map(|i| self.ix(i)).collect();
                let cond = idx.iter().zip(&sd).fold(bool_ex(true), |c, (i, d)| {
                    and(c, in_range(i.clone(), d.clone()))
                });
                let mut pos = Ex::int(0);
                for (i, d) in idx.iter().zip(&sd) {
                    pos = Ex::plus(Ex::times(pos, d.clone()), i.clone());
                }
                let mut then = Vec::new();
                for (j, (v, e)) in values.iter().zip(&elems).enumerate() {
                    let arr = format!("{accn}_{j}");
                    match v {
                        SubExp::Var(vv) if matches!(self.ty(*vv), Type::Array { .. }) => {
                            let block = Ex::product(self.var_dims(*vv));
                            let (src, atomic) = (self.name(*vv), atomic);
                            let add = |k: Ex| I::AtomicAdd {
                                elem: *e,
                                arr,
                                idx: Ex::plus(Ex::times(pos.clone(), block.clone()), k.clone()),
                                val: Ex::Load {
                                    elem: *e,
                                    arr: src,
                                    idx: Box::new(k),
                                },
                                atomic,
                            };
                            then.push(self.counted_loop("k", block.clone(), add));
                        }
                        _ => then.push(I::AtomicAdd {
                            elem: *e,
                            arr,
                            idx: pos.clone(),
                            val: self.se(v),
                            atomic,
                        }),
                    }
                }
                // The optimiser proved the position inside the accumulator (`index-in-bounds`).
                if aux
                    .attrs
                    .iter()
                    .any(|a| a == crate::core::safety::IN_BOUNDS)
                {
                    out.extend(then);
                } else {
                    out.push(I::If {
                        cond,
                        then,
                        els: vec![],
                    });
                }
                if let Some(d) = dst {
                    self.assign(d, &SubExp::Var(*acc), out);
                }
            }
        }
        Ok(())
    }
}
