//! The work-group level of a GPU reduction ([`Stm::GroupTree`](super::imp::Stm::GroupTree)):
//! the partial results of a reduction's chunks combined by groups of
//! [`GPU_GROUP_SIZE`] consecutive ones, each by a tree in local memory.
//!
//! Takes a reduction's operator and the arrays of its chunks' partial results. Guarantees,
//! where the operator fits (scalar components, at most [`MAX_COMPONENT_BYTES`] bytes of them,
//! and statements that cannot fail: no checks, no arrays, no parallel loops), a
//! [`GroupTree`] whose groups' results are the ordered combinations of their partial results
//! (the operator is only assumed associative), in an order fixed by the count and the group
//! size, so results do not vary from run to run; otherwise nothing, and the caller keeps the
//! plain two-level combination of [`super::combine`].

use super::imp::{Ex, GroupTree, IdxOp, Stm as I, Ty};
use super::{GPU_GROUP_SIZE, Lw, R, lt};
use crate::core::ir::{Lambda, Type};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;

/// The most bytes of one partial result a group tree keeps in local memory per work-item
/// (times the group size: 16 KiB at 256 work-items, well within the 48 KiB a CUDA block and
/// the 32 KiB an OpenCL device at least have).
pub const MAX_COMPONENT_BYTES: usize = 64;

/// The arrays of a group tree's results (name and element type) and their length.
type GroupResults = (Vec<(String, PrimType)>, Ex);

impl Lw<'_> {
    /// The group tree of the `count` partial results in `parts` with `lam`, pushed to `out`
    /// after the declarations it needs; returns the arrays of the groups' results and their
    /// number, or `None` (nothing pushed) where the operator does not fit.
    pub(super) fn group_tree(
        &mut self,
        lam: &Lambda,
        parts: &[(String, PrimType)],
        count: &Ex,
        out: &mut Vec<I>,
    ) -> R<Option<GroupResults>> {
        let tys: Vec<PrimType> = parts.iter().map(|(_, t)| *t).collect();
        let bytes: usize = tys.iter().map(|t| t.bits().div_ceil(8) as usize).sum();
        if bytes > MAX_COMPONENT_BYTES {
            return Ok(None);
        }
        let left: Vec<String> = tys.iter().map(|_| self.fresh("left")).collect();
        let right: Vec<String> = tys.iter().map(|_| self.fresh("right")).collect();
        let typed = |names: &[String]| -> Vec<(String, Type)> {
            names
                .iter()
                .zip(&tys)
                .map(|(n, t)| (n.clone(), Type::Prim(*t)))
                .collect()
        };
        let mut op = Vec::new();
        let res = self.decl_fresh("comb", tys.iter().map(|t| Type::Prim(*t)), &mut op);
        let mut args = typed(&left);
        args.extend(typed(&right));
        self.in_parallel(true, |s| s.apply(lam, &args, &res, &mut op))?;
        if !cannot_fail(&op) {
            return Ok(None);
        }
        let size = self.fresh("gsize");
        out.push(I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: size.clone(),
            init: Some(Ex::var(GPU_GROUP_SIZE)),
        });
        let size = Ex::var(&size);
        let ngroups = self.fresh("ngroups");
        let rounded = Ex::idx(
            IdxOp::Add,
            count.clone(),
            Ex::idx(IdxOp::Sub, size.clone(), Ex::int(1)),
        );
        out.push(I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: ngroups.clone(),
            init: Some(quot(rounded, size.clone())),
        });
        let ngroups = Ex::var(&ngroups);
        let names = self.alloc_scratch("gpart", &tys, &ngroups, out);
        let gparts: Vec<(String, PrimType)> = names.into_iter().zip(tys.iter().copied()).collect();
        let mut t = GroupTree {
            count: count.clone(),
            size,
            parts: parts.to_vec(),
            out: gparts.clone(),
            left,
            right,
            op,
            res: res.into_iter().map(|(n, _)| n).collect(),
            host: Vec::new(),
        };
        t.host = self.group_tree_host(&t, &ngroups);
        out.push(I::GroupTree(Box::new(t)));
        Ok(Some((gparts, ngroups)))
    }

    /// [`GroupTree::host`]: for each of the `ngroups` groups, the tree's levels one after
    /// another, each combining its pairs in place in `parts`.
    fn group_tree_host(&mut self, t: &GroupTree, ngroups: &Ex) -> Vec<I> {
        let [g, base, cnt, s, k, i] = ["g", "base", "cnt", "s", "k", "i"].map(|h| self.fresh(h));
        let decl = |name: &str, init: Ex| I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: name.to_string(),
            init: Some(init),
        };
        let load = |arr: &(String, PrimType), idx: Ex| Ex::Load {
            elem: arr.1,
            arr: arr.0.clone(),
            idx: Box::new(idx),
        };
        let (sv, iv) = (Ex::var(&s), Ex::var(&i));
        let stride = Ex::times(sv.clone(), Ex::int(2));
        // Pair `k` of a level: offsets `2sk` and `2sk + s` of the group.
        let mut pair = vec![decl(
            &i,
            Ex::plus(Ex::var(&base), Ex::times(Ex::var(&k), stride.clone())),
        )];
        for (arr, (l, r)) in t.parts.iter().zip(t.left.iter().zip(&t.right)) {
            for (name, idx) in [(l, iv.clone()), (r, Ex::plus(iv.clone(), sv.clone()))] {
                pair.push(I::Decl {
                    ty: Ty::Prim(arr.1),
                    name: name.clone(),
                    init: Some(load(arr, idx)),
                });
            }
        }
        pair.extend(t.op.iter().cloned());
        for (arr, r) in t.parts.iter().zip(&t.res) {
            pair.push(I::Store {
                elem: arr.1,
                arr: arr.0.clone(),
                idx: iv.clone(),
                val: Ex::var(r),
            });
        }
        // Pairs with `2sk + s < cnt`: ceil((cnt - s) / 2s) of them.
        let above = Ex::idx(IdxOp::Sub, Ex::var(&cnt), sv.clone());
        let pairs = quot(
            Ex::idx(
                IdxOp::Add,
                above,
                Ex::idx(IdxOp::Sub, stride.clone(), Ex::int(1)),
            ),
            stride,
        );
        let level = vec![
            I::For {
                down: false,
                independent: false,
                var: k,
                bound: pairs,
                body: pair,
                at: None,
            },
            I::Set {
                name: s.clone(),
                val: Ex::times(sv.clone(), Ex::int(2)),
            },
        ];
        let rest = Ex::idx(IdxOp::Sub, t.count.clone(), Ex::var(&base));
        let mut group = vec![
            decl(&base, Ex::times(Ex::var(&g), t.size.clone())),
            decl(
                &cnt,
                Ex::Prim(
                    PrimOp::Bin(BinOp::Min, PrimType::I64),
                    vec![rest, t.size.clone()],
                ),
            ),
            decl(&s, Ex::int(1)),
            I::While {
                cond: lt(sv, Ex::var(&cnt)),
                body: level,
                at: None,
            },
        ];
        for (o, p) in t.out.iter().zip(&t.parts) {
            group.push(I::Store {
                elem: o.1,
                arr: o.0.clone(),
                idx: Ex::var(&g),
                val: load(p, Ex::var(&base)),
            });
        }
        vec![I::For {
            down: false,
            independent: false,
            var: g,
            bound: ngroups.clone(),
            body: group,
            at: None,
        }]
    }
}

/// `a / b` on `i64` (non-negative operands).
fn quot(a: Ex, b: Ex) -> Ex {
    Ex::Prim(PrimOp::Bin(BinOp::Quot, PrimType::I64), vec![a, b])
}

/// Whether `stms` only compute scalars: declarations of scalars, assignments, conditionals
/// and sequential loops of those; nothing that can fail, allocate or write memory.
fn cannot_fail(stms: &[I]) -> bool {
    stms.iter().all(|s| match s {
        I::Decl {
            ty: Ty::Prim(_), ..
        }
        | I::Set { .. }
        | I::Comment(_) => true,
        I::If { then, els, .. } => cannot_fail(then) && cannot_fail(els),
        I::For { body, .. } => cannot_fail(body),
        _ => false,
    })
}
