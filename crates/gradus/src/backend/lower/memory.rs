//! Variables and buffers: declarations, assignments, moves and releases.
//!
//! Takes core variables and their types. Guarantees the reference-count discipline of
//! [`super::imp`]: an array assigned from another shares its buffer (borrowed inside a parallel
//! loop when the buffer belongs to the enclosing scope), a move hands its reference over,
//! every array bound in a scope is released at its end, and an array about to be consumed
//! inside a parallel loop is first rebound to a borrowed local so that it is copied rather
//! than updated under other threads.

use super::Lw;
use super::imp::{Ex, Share, Stm as I, Ty};
use crate::core::ir::{BasicOp, Body, Exp, SubExp, Type, Var};
use crate::core::renumber::map_vars_body;
use crate::core::visit::consumed_in_stm;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Where a body's arrays are released, and which of its views are copies.
///
/// * `releases`: the arrays of the scope (as [`Lw::end_scope`] releases them) that are dead
///   before the end of the body, by the index of the first statement after their last use.
///   Releasing one there drops its reference early: a view of an array (a row read once, an
///   adjoint's element) then no longer holds the array's buffer when a later statement
///   updates it in place, which would otherwise copy all of it. Releasing twice is harmless
///   (the handle is cleared), so the end of the scope still releases every array.
/// * `copied_views`: rows or slices read from an array that a later statement updates in
///   place while the row is still in use (reverse mode reads an adjoint's row, zeroes it in
///   the adjoint, then uses the row). A view would keep the whole buffer shared and make the
///   update copy all of it; copying the row instead costs only the row.
/// * `last_used_once`: per statement, the arrays of the scope it uses for the last time, and
///   only once. A loop may take such an array as a parameter's initial value without sharing
///   it, so its first in-place update does not copy it.
#[derive(Default)]
pub(super) struct ScopePlan {
    pub(super) releases: BTreeMap<usize, Vec<String>>,
    pub(super) copied_views: HashSet<Var>,
    pub(super) last_used_once: HashMap<usize, HashSet<Var>>,
}

impl<'a> Lw<'a> {
    /// Declares the C variable(s) of a core variable.
    pub(super) fn declare(&mut self, v: Var, out: &mut Vec<I>) {
        let ty = self.ty(v);
        self.decl_named(&self.name(v), ty, out);
        if (self.in_par || self.in_lambda) && matches!(ty, Type::Array { .. }) {
            self.par_local.insert(v);
        }
    }

    /// Declares the C variable(s) of a value of type `ty` named `name` (one pointer per array
    /// of an accumulator, `{name}_{j}`).
    pub(super) fn decl_named(&mut self, name: &str, ty: &Type, out: &mut Vec<I>) {
        match ty {
            Type::Prim(t) => out.push(I::Decl {
                ty: Ty::Prim(*t),
                name: name.to_string(),
                init: None,
            }),
            Type::Array { elem, .. } => out.push(I::Decl {
                ty: Ty::Array(*elem),
                name: name.to_string(),
                init: None,
            }),
            Type::Acc { elems, .. } => {
                for (j, e) in elems.iter().enumerate() {
                    out.push(I::Decl {
                        ty: Ty::Ptr(*e),
                        name: format!("{name}_{j}"),
                        init: None,
                    });
                }
            }
        }
    }

    /// Declares a fresh variable, named after `hint`, per type of `tys` (all named first);
    /// returns the names with their types.
    pub(super) fn decl_fresh(
        &mut self,
        hint: &str,
        tys: impl IntoIterator<Item = Type>,
        out: &mut Vec<I>,
    ) -> Vec<(String, Type)> {
        let vars: Vec<(String, Type)> = tys.into_iter().map(|t| (self.fresh(hint), t)).collect();
        for (v, t) in &vars {
            self.decl_named(v, t, out);
        }
        vars
    }

    /// How an array variable's buffer may be shared from here.
    pub(super) fn share_of(&self, src: Var) -> Share {
        if (self.in_par || self.in_lambda) && !self.par_local.contains(&src) {
            Share::Borrow
        } else {
            Share::Ref
        }
    }

    /// `dst = value` for a declared variable `dst` of any type (arrays share the buffer).
    pub(super) fn assign(&mut self, dst: Var, value: &SubExp, out: &mut Vec<I>) {
        self.assign_named(&self.name(dst), self.ty(dst), value, out);
    }

    /// Like [`Lw::assign`] for a destination given by name and type.
    pub(super) fn assign_named(&mut self, d: &str, t: &Type, value: &SubExp, out: &mut Vec<I>) {
        match (t, value) {
            (Type::Array { .. }, SubExp::Var(src)) => {
                let share = self.share_of(*src);
                out.push(I::SetArr {
                    dst: d.to_string(),
                    src: self.name(*src),
                    offset: Ex::int(0),
                    share,
                });
            }
            // Accumulators hold no reference: sharing one is moving it.
            (Type::Acc { .. }, SubExp::Var(src)) => self.move_into(d, &self.name(*src), t, out),
            _ => out.push(I::Set {
                name: d.to_string(),
                val: self.se(value),
            }),
        }
    }

    /// Moves a declared variable's value into another (arrays hand over their reference).
    pub(super) fn move_into(&mut self, dst: &str, src: &str, ty: &Type, out: &mut Vec<I>) {
        match ty {
            Type::Array { .. } => out.push(I::SetArr {
                dst: dst.to_string(),
                src: src.to_string(),
                offset: Ex::int(0),
                share: Share::Move,
            }),
            Type::Acc { elems, .. } => {
                for j in 0..elems.len() {
                    self.alias_acc(&format!("{dst}_{j}"), &format!("{src}_{j}"));
                    out.push(I::Set {
                        name: format!("{dst}_{j}"),
                        val: Ex::Var(format!("{src}_{j}")),
                    });
                }
            }
            Type::Prim(_) => out.push(I::Set {
                name: dst.to_string(),
                val: Ex::var(src),
            }),
        }
    }

    /// Array variables bound by the statements of `body` (not nested bodies).
    fn scope_arrays(&self, body: &Body) -> Vec<String> {
        body.stms
            .iter()
            .flat_map(|s| s.pat.iter())
            .filter(|v| {
                matches!(self.ty(**v), Type::Array { .. }) && !self.virtual_iotas.contains(v)
            })
            .map(|v| self.name(*v))
            .collect()
    }

    /// How the array variables of `body`'s scope are released and which of its views are
    /// copied; see [`ScopePlan`].
    pub(super) fn scope_plan(&mut self, body: &Body) -> ScopePlan {
        let mut plan = ScopePlan::default();
        let owned_params = std::mem::take(&mut self.owned_params);
        self.loop_params.extend(owned_params.iter().copied());
        let in_result: HashSet<Var> = body
            .result
            .iter()
            .filter_map(|r| match r {
                SubExp::Var(v) => Some(*v),
                SubExp::Const(_) => None,
            })
            .collect();
        let is_scope_array =
            |v: &Var| matches!(self.ty(*v), Type::Array { .. }) && !self.virtual_iotas.contains(v);
        if owned_params.is_empty() && !body.stms.iter().flat_map(|s| &s.pat).any(is_scope_array) {
            return plan;
        }
        let mut last_use: HashMap<Var, usize> = HashMap::new();
        // Occurrences of each variable in the statement of its last use.
        let mut uses_there: HashMap<Var, usize> = HashMap::new();
        for (j, stm) in body.stms.iter().enumerate() {
            let mut one = Body {
                stms: vec![stm.clone()],
                result: Vec::new(),
            };
            map_vars_body(&mut one, &mut |v| {
                if last_use.insert(v, j) == Some(j) {
                    *uses_there.entry(v).or_default() += 1;
                } else {
                    uses_there.insert(v, 1);
                }
                v
            });
        }
        for r in &in_result {
            last_use.insert(*r, body.stms.len());
        }
        // Statement positions that consume each variable.
        let mut consumed_at: HashMap<Var, Vec<usize>> = HashMap::new();
        for (k, stm) in body.stms.iter().enumerate() {
            for v in consumed_in_stm(stm) {
                consumed_at.entry(v).or_default().push(k);
            }
        }
        // The loop's own array parameters are the body's to release, like its arrays.
        for p in owned_params.iter().filter(|p| is_scope_array(p)) {
            if let Some(&last) = last_use.get(p)
                && last < body.stms.len()
            {
                if last + 1 < body.stms.len() {
                    plan.releases
                        .entry(last + 1)
                        .or_default()
                        .push(self.name(*p));
                }
                if uses_there.get(p) == Some(&1) {
                    plan.last_used_once.entry(last).or_default().insert(*p);
                }
            }
        }
        for (j, stm) in body.stms.iter().enumerate() {
            for v in stm.pat.iter().filter(|v| is_scope_array(v)) {
                let last = last_use.get(v).copied().unwrap_or(j);
                if last + 1 < body.stms.len() {
                    plan.releases
                        .entry(last + 1)
                        .or_default()
                        .push(self.name(*v));
                }
                if last > j && last < body.stms.len() && uses_there.get(v) == Some(&1) {
                    plan.last_used_once.entry(last).or_default().insert(*v);
                }
            }
            if let (Exp::BasicOp(BasicOp::Index { array, .. }), [v]) = (&stm.exp, &stm.pat[..])
                && is_scope_array(v)
                && let Some(k) = consumed_at
                    .get(array)
                    .and_then(|ks| ks.iter().find(|k| **k > j))
                && last_use.get(v).is_some_and(|l| l > k)
            {
                plan.copied_views.insert(*v);
            }
        }
        plan
    }

    fn decref_all(names: &[String], out: &mut Vec<I>) {
        for n in names {
            out.push(I::Decref(n.clone()));
        }
    }

    pub(super) fn end_scope(&self, body: &Body, out: &mut Vec<I>) {
        Self::decref_all(&self.scope_arrays(body), out);
    }

    /// `dst` becomes a view of `array` (same elements), or its only element when `dst` is a
    /// scalar.
    pub(super) fn view_or_load(&mut self, dst: Option<Var>, array: Var, out: &mut Vec<I>) {
        let Some(d) = dst else { return };
        let dn = self.name(d);
        match self.ty(d) {
            Type::Prim(t) => out.push(I::Set {
                name: dn,
                val: Ex::Load {
                    elem: *t,
                    arr: self.name(array),
                    idx: Box::new(Ex::int(0)),
                },
            }),
            _ => self.assign(d, &SubExp::Var(array), out),
        }
    }

    /// The C name of an array that is about to be consumed. Inside a parallel loop an array
    /// of the enclosing scope is first rebound to a borrowed local, so that it is copied
    /// rather than updated under other threads' feet.
    pub(super) fn consume(&mut self, v: Var, out: &mut Vec<I>) -> String {
        let n = self.name(v);
        if (self.in_par || self.in_lambda) && !self.par_local.contains(&v) {
            let t = self.fresh("own");
            out.push(I::Decl {
                ty: Ty::Array(self.ty(v).elem()),
                name: t.clone(),
                init: None,
            });
            out.push(I::SetArr {
                dst: t.clone(),
                src: n,
                offset: Ex::int(0),
                share: Share::Borrow,
            });
            return t;
        }
        n
    }

    /// [`Lw::consume`], then the array made unique (copied when its buffer is shared): the
    /// C name of a buffer to update in place.
    pub(super) fn consume_unique(&mut self, v: Var, out: &mut Vec<I>) -> String {
        let n = self.consume(v, out);
        out.push(I::MakeUnique {
            arr: n.clone(),
            elem: self.ty(v).elem(),
            count: Ex::product(self.var_dims(v)),
            counted: true,
        });
        n
    }

    /// Moves the arrays `names` (updated in place) into the results `pat`.
    pub(super) fn move_results(&self, pat: &[Var], names: &[String], out: &mut Vec<I>) {
        for (p, n) in pat.iter().zip(names) {
            out.push(I::SetArr {
                dst: self.name(*p),
                src: n.clone(),
                offset: Ex::int(0),
                share: Share::Move,
            });
        }
    }
}
