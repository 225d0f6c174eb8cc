//! Maps that write straight into the concatenation consuming them.
//!
//! `concat(reshape(map ..), map ..)` (the CSR assembly of a Jacobian: flattened blocks, then
//! more entries) built each map's output and then copied it into the concatenation. When
//! every operand of a `concat` is the output of a `map` earlier in the same body (directly
//! or through a `reshape`), used nowhere else, the concatenation's buffer is allocated
//! before the first of those maps and each map writes its rows into its slice of it: one
//! buffer and no copies.
//!
//! Takes a body about to be lowered. Guarantees that the buffer is as long as the operands
//! together (whatever the concatenation's declared size: its size checks stay where they
//! were, so a mismatch reports the same error, after the maps wrote in bounds), that the
//! operands' sizes are known where it is allocated, and that the operands are borrowed views
//! of it (their release frees nothing).

use super::Lw;
use super::imp::{Ex, Stm as I};
use crate::core::ir::{BasicOp, Body, Exp, Soac, Type, Var};
use crate::core::visit::{type_vars, use_counts};
use std::collections::HashMap;

/// A concatenation whose operands its producers write in place.
pub(super) struct Placement {
    /// Index of the first producing statement: the buffer is allocated before it.
    pub(super) first: usize,
    /// The concatenation's variable.
    pub(super) concat: Var,
    /// Element type and length in elements of the buffer.
    pub(super) elem: crate::core::scalar::PrimType,
    pub(super) total: Ex,
    /// The producers' outputs with their offsets in the buffer.
    pub(super) slices: Vec<(Var, Ex)>,
    /// The concatenation's operands (the outputs or their reshapes), not copied.
    pub(super) operands: Vec<Var>,
}

impl<'a> Lw<'a> {
    /// The concatenations of `body` that can be written in place.
    pub(super) fn placements(&self, body: &Body) -> Vec<Placement> {
        let concat = |e: &Exp| matches!(e, Exp::BasicOp(BasicOp::Concat { .. }));
        if !body.stms.iter().any(|s| concat(&s.exp)) {
            return Vec::new();
        }
        let names = &self.prog.names;
        let uses = use_counts(names, body);
        let mut bound_at: HashMap<Var, usize> = HashMap::new();
        for (k, s) in body.stms.iter().enumerate() {
            for v in &s.pat {
                bound_at.insert(*v, k);
            }
        }
        let once = |v: &Var| uses.get(v) == Some(&1);
        let mut out = Vec::new();
        for (c, stm) in body.stms.iter().enumerate() {
            let (Exp::BasicOp(BasicOp::Concat { arrays, .. }), [concat]) =
                (&stm.exp, stm.pat.as_slice())
            else {
                continue;
            };
            let elem = self.ty(*concat).elem();
            let mut producers = Vec::new();
            for a in arrays {
                if !once(a) || arrays.iter().filter(|b| *b == a).count() != 1 {
                    break;
                }
                // Through reshapes (a flattening may be several), each read only there.
                let mut x = *a;
                while let Some(&k) = bound_at.get(&x)
                    && let Exp::BasicOp(BasicOp::Reshape { array, .. }) = &body.stms[k].exp
                    && once(array)
                {
                    x = *array;
                }
                let Some(&m) = bound_at.get(&x) else { break };
                let by_map = matches!(body.stms[m].exp, Exp::Soac(Soac::Map { .. }));
                if m >= c
                    || !by_map
                    || !matches!(self.ty(x), Type::Array { elem: e, .. } if *e == elem)
                {
                    break;
                }
                producers.push((x, m));
            }
            if producers.len() != arrays.len() || producers.is_empty() {
                continue;
            }
            let first = producers.iter().map(|(_, m)| *m).min().unwrap_or(0);
            // Every operand's size must be known before the first producer runs.
            let known = producers.iter().all(|(x, _)| {
                type_vars(self.ty(*x))
                    .iter()
                    .all(|d| bound_at.get(d).is_none_or(|k| *k < first))
            });
            if !known {
                continue;
            }
            let mut off = Ex::int(0);
            let mut slices = Vec::new();
            for (x, _) in &producers {
                slices.push((*x, off.clone()));
                off = Ex::plus(off, Ex::product(self.var_dims(*x)));
            }
            out.push(Placement {
                first,
                concat: *concat,
                elem,
                total: off,
                slices,
                operands: arrays.clone(),
            });
        }
        out
    }

    /// Allocates the buffers of the placements whose first producer is statement `j`, and
    /// makes their producers' outputs views of it.
    pub(super) fn place_before(&mut self, placements: &[Placement], j: usize, out: &mut Vec<I>) {
        for p in placements.iter().filter(|p| p.first == j) {
            self.declare(p.concat, out);
            out.push(I::Alloc {
                arr: self.name(p.concat),
                elem: p.elem,
                count: p.total.clone(),
            });
            let cname = self.name(p.concat);
            for (x, off) in &p.slices {
                self.placed.insert(*x, (cname.clone(), off.clone()));
            }
            self.preallocated
                .insert(p.concat, p.operands.iter().copied().collect());
        }
    }
}
