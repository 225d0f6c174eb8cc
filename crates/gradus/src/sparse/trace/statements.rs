//! The tracer's statements that write variables and memory, its loops, and both branches of
//! an `if` on a condition that depends on the point.

use super::memory::{self, ArrVar, Block};
use super::sets::{self, Deps};
use super::{
    R, Region, Stop, TraceError, Tracer, WriteMode, add, unions_float_operands, unsupported,
};
use crate::backend::lower::imp::{Ex, Share, Stm, Ty};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use rustc_hash::FxHashMap as HashMap;

impl Tracer {
    /// Points array variable `name` at `var`'s place, reusing the name's entry.
    fn bind_array(&mut self, name: &str, var: ArrVar) {
        match self.arrays.get_mut(name) {
            Some(v) => *v = var,
            None => {
                self.arrays.insert(name.to_string(), var);
            }
        }
    }

    pub(super) fn decl(&mut self, ty: Ty, name: &str, init: Option<&Ex>) -> R<()> {
        match ty {
            Ty::Prim(t) => {
                let (v, d) = match init {
                    Some(e) => self.ex(e)?,
                    None => (Scalar::zero(t), None),
                };
                self.declare(name, v, d);
            }
            Ty::Array(_) | Ty::Ptr(_) => {
                let var = match init {
                    Some(Ex::Var(src)) => ArrVar {
                        owns: false,
                        ..self.array(src)?.clone()
                    },
                    _ => ArrVar::default(),
                };
                self.bind_array(name, var);
            }
        }
        Ok(())
    }

    pub(super) fn set(&mut self, name: &str, val: &Ex) -> R<()> {
        if !self.scalars.contains_key(name) {
            // A pointer variable pointed elsewhere.
            let Ex::Var(src) = val else {
                return unsupported(format!("internal error: unknown variable `{name}`"));
            };
            let var = ArrVar {
                owns: false,
                ..self.array(src)?.clone()
            };
            self.bind_array(name, var);
            return Ok(());
        }
        let born = self.scalars[name].born;
        let mode = self.write_mode(born);
        let control = if mode == WriteMode::Normal {
            None
        } else {
            self.control(born)
        };
        // `acc = acc + e`: the accumulator's own set grows in place (a sum over many inputs
        // would otherwise copy its set at every step).
        if let Ex::Prim(op, args) = val
            && mode == WriteMode::Normal
            && unions_float_operands(*op)
            && args.iter().any(|a| matches!(a, Ex::Var(v) if v == name))
        {
            let mut vals = Vec::with_capacity(args.len());
            let mut others: Vec<Deps> = Vec::new();
            for (a, t) in args.iter().zip(op.operand_types()) {
                let (v, d) = self.ex(a)?;
                vals.push(v);
                if t.is_float() && !matches!(a, Ex::Var(x) if x == name) {
                    others.push(d);
                }
            }
            let v = op.eval(&vals).unwrap_or(Scalar::zero(op.result_type()));
            let slot = self.scalars.get_mut(name).expect("checked above");
            slot.val = v;
            for d in &others {
                sets::union_into(&mut slot.deps, d);
            }
            return Ok(());
        }
        let (v, d) = self.ex(val)?;
        let slot = self.scalars.get_mut(name).expect("checked above");
        slot.val = v;
        if mode == WriteMode::Normal {
            slot.deps = d;
        } else {
            sets::union_into(&mut slot.deps, &d);
            if !v.prim_type().is_float() {
                sets::union_into(&mut slot.deps, &control);
            }
        }
        Ok(())
    }

    /// `arr[i] = v` (or `+= v`), with `di` the index's set.
    pub(super) fn store(
        &mut self,
        arr: &str,
        i: usize,
        di: Deps,
        v: Scalar,
        dv: Deps,
        adding: bool,
    ) -> R<()> {
        let a = self.array(arr)?.clone();
        let Some(block) = &a.block else {
            return unsupported(format!(
                "internal error: `{arr}` is written before it is set"
            ));
        };
        let born = block.borrow().born;
        let mode = self.write_mode(born);
        // An integer written to older memory in a branch on the point depends on the branch.
        let dv = if mode != WriteMode::Normal && !v.prim_type().is_float() {
            sets::union(&dv, &self.control(born))
        } else {
            dv
        };
        let mut b = block.borrow_mut();
        let pos = a.off + i;
        let in_range = pos < b.vals.len();
        if !in_range && !self.in_shadow() && di.is_none() {
            return unsupported(format!("internal error: `{arr}` written out of range"));
        }
        if di.is_some() {
            // The element written may be any, at another point even where the index is out
            // of range at this one: every element may now depend on `dv`.
            let extra = if v.prim_type().is_float() {
                dv.clone()
            } else {
                sets::union(&dv, &di)
            };
            for d in b.deps.iter_mut() {
                sets::union_into(d, &extra);
            }
        }
        if !in_range {
            return Ok(());
        }
        if mode != WriteMode::UnionOnly {
            b.vals[pos] = if adding { add(b.vals[pos], v) } else { v };
        }
        if mode == WriteMode::Normal && !adding && di.is_none() {
            b.deps[pos] = dv;
        } else {
            sets::union_into(&mut b.deps[pos], &dv);
        }
        Ok(())
    }

    pub(super) fn alloc(&mut self, arr: &str, elem: PrimType, count: &Ex) -> R<()> {
        let (n, _) = self.index(count)?;
        if n > 1 << 31 {
            return unsupported(format!("an array of {n} elements is too large to trace"));
        }
        let born = self.next_seq();
        let var = ArrVar {
            block: Some(Block::fresh(elem, n, born)),
            off: 0,
            owns: true,
        };
        self.bind_array(arr, var);
        Ok(())
    }

    pub(super) fn alloc_or_take(
        &mut self,
        arr: &str,
        elem: PrimType,
        count: &Ex,
        srcs: &[String],
    ) -> R<()> {
        if !self.in_shadow() {
            for src in srcs {
                let s = self.array(src)?.clone();
                if s.owns
                    && let Some(b) = &s.block
                    && b.borrow().refs == 1
                {
                    self.bind_array(arr, s.clone());
                    self.arrays.get_mut(src).expect("found above").owns = false;
                    return Ok(());
                }
            }
        }
        self.alloc(arr, elem, count)
    }

    pub(super) fn set_arr(&mut self, dst: &str, src: &str, offset: &Ex, share: Share) -> R<()> {
        if share == Share::Move && dst == src {
            return Ok(());
        }
        let (off, _) = self.index(offset)?;
        let s = self.array(src)?.clone();
        let shadow = self.in_shadow();
        let owns = match share {
            Share::Ref => {
                if s.owns
                    && !shadow
                    && let Some(b) = &s.block
                {
                    b.borrow_mut().refs += 1;
                }
                s.owns
            }
            Share::Borrow => false,
            Share::Move => {
                self.arrays.get_mut(src).expect("found above").owns = false;
                s.owns
            }
        };
        let var = ArrVar {
            block: s.block,
            off: s.off + off,
            owns,
        };
        self.bind_array(dst, var);
        Ok(())
    }

    /// Copies the array's elements into a block of its own when its block is shared or
    /// borrowed. The copy keeps the original's time of making: it is the same array, so a
    /// branch writing it adds to the sets that the other branch left there. In a shadow branch
    /// nothing is copied: its writes to older memory only add sets anyway.
    pub(super) fn make_unique(&mut self, arr: &str, count: &Ex) -> R<()> {
        if self.in_shadow() {
            return Ok(());
        }
        let (n, _) = self.index(count)?;
        let a = self.array(arr)?.clone();
        let Some(block) = &a.block else {
            return Ok(());
        };
        if a.owns && block.borrow().refs == 1 {
            return Ok(());
        }
        let copy = {
            let b = block.borrow();
            let end = (a.off + n).min(b.vals.len());
            let c = Block::fresh(PrimType::Bool, 0, b.born);
            {
                let mut cm = c.borrow_mut();
                cm.vals = b.vals[a.off.min(end)..end].to_vec();
                cm.deps = b.deps[a.off.min(end)..end].to_vec();
            }
            c
        };
        if a.owns {
            let mut b = block.borrow_mut();
            b.refs = b.refs.saturating_sub(1);
        }
        self.bind_array(
            arr,
            ArrVar {
                block: Some(copy),
                off: 0,
                owns: true,
            },
        );
        Ok(())
    }

    pub(super) fn copy(
        &mut self,
        dst: &str,
        dst_off: &Ex,
        src: &str,
        src_off: &Ex,
        count: &Ex,
    ) -> R<()> {
        let (n, _) = self.index(count)?;
        let (a, _) = self.index(dst_off)?;
        let (b, _) = self.index(src_off)?;
        let d = self.array(dst)?.clone();
        let s = self.array(src)?.clone();
        let (Some(db), Some(sb)) = (&d.block, &s.block) else {
            return unsupported("internal error: a copy between unset arrays");
        };
        let (vals, deps) = {
            let sb = sb.borrow();
            let from = s.off + b;
            match (sb.vals.get(from..from + n), sb.deps.get(from..from + n)) {
                (Some(v), Some(d)) => (v.to_vec(), d.to_vec()),
                _ if self.in_shadow() => return Ok(()),
                _ => return unsupported("internal error: a copy reads out of range"),
            }
        };
        let born = db.borrow().born;
        let mode = self.write_mode(born);
        let control = if mode == WriteMode::Normal {
            None
        } else {
            self.control(born)
        };
        let mut dbm = db.borrow_mut();
        let to = d.off + a;
        if to + n > dbm.vals.len() {
            if self.in_shadow() {
                return Ok(());
            }
            return unsupported("internal error: a copy writes out of range");
        }
        for k in 0..n {
            if mode != WriteMode::UnionOnly {
                dbm.vals[to + k] = vals[k];
            }
            if mode == WriteMode::Normal {
                dbm.deps[to + k] = deps[k].clone();
            } else {
                sets::union_into(&mut dbm.deps[to + k], &deps[k]);
                if !vals[k].prim_type().is_float() {
                    sets::union_into(&mut dbm.deps[to + k], &control);
                }
            }
        }
        Ok(())
    }

    pub(super) fn for_loop(
        &mut self,
        var: &str,
        bound: &Ex,
        down: bool,
        body: &[Stm],
        at: Option<Span>,
    ) -> R<()> {
        let (n, dn) = self.index(bound)?;
        if dn.is_some() {
            return Err(Stop::Error(TraceError::LoopCount { what: "a loop", at }));
        }
        self.declare(var, Scalar::I64(0), None);
        for k in 0..n {
            let i = if down { n - 1 - k } else { k };
            self.scalars.get_mut(var).expect("declared above").val = Scalar::I64(i as i64);
            self.stms(body)?;
        }
        Ok(())
    }

    /// Both branches of an `if` whose condition (of set `cond`) depends on the point: `no`
    /// (not taken at this point) in shadow, then `yes` adding to what is older than the `if`,
    /// then the arrays that `no` left in older variables added to what `yes` left there. The
    /// integers and `bool`s of the arrays that either branch left in older variables depend on
    /// the condition.
    pub(super) fn both_branches(&mut self, yes: &[Stm], no: &[Stm], cond: Deps) -> R<()> {
        let start = self.next_seq();
        let scalar_vals: Vec<(String, Scalar)> = self
            .scalars
            .iter()
            .filter(|(_, s)| s.born < start)
            .map(|(k, s)| (k.clone(), s.val))
            .collect();
        let arrays_before: HashMap<String, ArrVar> = self.arrays.clone();
        self.regions.push(Region {
            start,
            shadow: true,
            cond: cond.clone(),
        });
        let shadow = self.stms(no);
        self.regions.pop();
        match shadow {
            Ok(()) | Err(Stop::Abandon) => {}
            Err(e) => return Err(e),
        }
        let left_by_no: Vec<(String, ArrVar)> = arrays_before
            .iter()
            .filter_map(|(name, before)| {
                let now = self.arrays.get(name)?;
                (!now.same_place(before)).then(|| (name.clone(), now.clone()))
            })
            .collect();
        self.arrays = arrays_before.clone();
        for (name, v) in scalar_vals {
            if let Some(s) = self.scalars.get_mut(&name) {
                s.val = v;
            }
        }
        self.regions.push(Region {
            start,
            shadow: false,
            cond: cond.clone(),
        });
        let taken = self.stms(yes);
        self.regions.pop();
        taken?;
        let left_by_yes: Vec<ArrVar> = arrays_before
            .iter()
            .filter_map(|(name, before)| {
                let now = self.arrays.get(name)?;
                (!now.same_place(before)).then(|| now.clone())
            })
            .collect();
        for (name, from) in &left_by_no {
            if let Some(to) = self.arrays.get(name) {
                memory::union_elements(to, from);
                memory::add_to_integers(to, &cond);
            }
        }
        for to in &left_by_yes {
            memory::add_to_integers(to, &cond);
        }
        Ok(())
    }
}
