//! Which expressions cannot fail and have no effect, given range facts about integer
//! variables: such a statement may be removed when unused, and moved where it runs more
//! often (the optimiser), or run speculatively (the backends).

use crate::core::ir::{
    BasicOp, Body, DimIndex, Exp, LoopForm, NameTable, ScremaForm, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::recognise::is_int_const;
use crate::core::scalar::{PrimType, Scalar};
use std::collections::HashMap;

/// Whether a primitive operation can fail at run time (integer division by zero).
pub fn prim_can_fail(op: PrimOp) -> bool {
    match op {
        PrimOp::Bin(b, t) => {
            t.is_int()
                && matches!(
                    b,
                    BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem | BinOp::Pow
                )
        }
        _ => false,
    }
}

/// Facts `lo <= v < hi` about integer variables, from `iota` rows, loop counters and
/// branch conditions.
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    facts: HashMap<Var, (i64, SubExp)>,
    /// Facts `v <= n` (`v = x + 1` with `x < n`: the bound of a triangular loop).
    at_most: HashMap<Var, SubExp>,
    /// Variables bound to `h - 1`, with their `h`: the last position of a loop over `0..h`.
    last_of: HashMap<Var, SubExp>,
    /// Variables bound to `max(h, 0)`, with their `h`: a position below `h` is below them
    /// too (the trip count of a loop over `0..h`, the size of what reverse mode saves per
    /// iteration).
    max_zero_of: HashMap<Var, SubExp>,
    /// Variables bound to `iota(n, 0, 1)`, with their `n`.
    pub iotas: HashMap<Var, SubExp>,
}

impl Ranges {
    /// Records `lo <= v < hi`.
    pub fn insert(&mut self, v: Var, lo: i64, hi: SubExp) {
        self.facts.insert(v, (lo, hi));
    }
    /// Records `v <= n`.
    pub fn insert_at_most(&mut self, v: Var, n: SubExp) {
        self.at_most.insert(v, n);
    }
    /// The fact about `v`.
    pub fn get(&self, v: Var) -> Option<(i64, SubExp)> {
        self.facts.get(&v).copied()
    }
    /// Whether `0 <= i < n` is known.
    pub fn in_bounds(&self, i: &SubExp, n: &SubExp) -> bool {
        match i {
            SubExp::Const(Scalar::I64(c)) => match n {
                SubExp::Const(Scalar::I64(m)) => *c >= 0 && c < m,
                _ => false,
            },
            SubExp::Var(v) => match self.facts.get(v) {
                Some((lo, hi)) => {
                    *lo >= 0
                        && (hi == n
                            || hi.as_var().and_then(|h| self.at_most.get(&h)) == Some(n)
                            || n.as_var().and_then(|m| self.max_zero_of.get(&m)) == Some(hi))
                }
                None => false,
            },
            _ => false,
        }
    }
    /// Whether every entry of `slice` is a position known to lie in its dimension of `dims`
    /// (and there are no more entries than dimensions).
    pub fn fixed_in_bounds(&self, slice: &[DimIndex], dims: &[SubExp]) -> bool {
        slice.len() <= dims.len()
            && slice.iter().zip(dims).all(|(d, n)| match d {
                DimIndex::Fix(i) => self.in_bounds(i, n),
                DimIndex::Slice { .. } => false,
            })
    }
    /// Records what integer arithmetic tells about positions:
    /// * `h = x + 1` (or `1 + x`) with `0 <= x < n` known: `h <= n` (and `n > 0`), the bound of a loop over
    ///   `0..=x`, whose counter is then in bounds of `n` too;
    /// * `h = max(a, 0)` (or `max(0, a)`): `i < a` implies `i < h`; with `a <= n` known,
    ///   `h <= n` (sizes are never negative), the trip count reverse mode gives the return
    ///   sweep of such a loop;
    /// * `p = h - 1`, and then `s = p - i` with `0 <= i < h` known: `0 <= s < h`, the
    ///   position a loop running backwards over `0..h` visits;
    /// * `p = i - 1` with `1 <= i < n` known: `0 <= p < n`.
    pub fn note_arithmetic(&mut self, stm: &Stm) {
        let (Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op, PrimType::I64), args)), [v]) =
            (&stm.exp, stm.pat.as_slice())
        else {
            return;
        };
        let [a, b] = args.as_slice() else {
            return;
        };
        match op {
            BinOp::Add => {
                if let Some((x, _)) = [(a, b), (b, a)]
                    .into_iter()
                    .find(|(_, one)| is_int_const(one, 1))
                    && let Some(x) = x.as_var()
                    && let Some((lo, n)) = self.get(x)
                    && lo >= 0
                {
                    self.insert_at_most(*v, n);
                }
            }
            BinOp::Max => {
                if let Some((x, _)) = [(a, b), (b, a)]
                    .into_iter()
                    .find(|(_, zero)| is_int_const(zero, 0))
                    && let Some(x) = x.as_var()
                {
                    self.max_zero_of.insert(*v, SubExp::Var(x));
                    if let Some(n) = self.at_most.get(&x).copied() {
                        self.insert_at_most(*v, n);
                    }
                }
            }
            BinOp::Sub => {
                if is_int_const(b, 1)
                    && let SubExp::Var(h) = a
                {
                    self.last_of.insert(*v, SubExp::Var(*h));
                    // `i - 1` with `1 <= i < n` known (in the else branch of `i == 0`): the
                    // previous position is in bounds too.
                    if let Some((lo, n)) = self.get(*h)
                        && lo >= 1
                    {
                        self.insert(*v, lo - 1, n);
                    }
                } else if let (SubExp::Var(p), SubExp::Var(i)) = (a, b)
                    && let Some(h) = self.last_of.get(p).copied()
                    && let Some((0, hi)) = self.get(*i)
                    && hi == h
                {
                    self.insert(*v, 0, h);
                }
            }
            _ => {}
        }
    }
    /// Records `v = iota(n, 0, 1)` when `stm` binds one, so that rows of `v` are known to lie
    /// in `[0, n)`.
    pub fn note_iota(&mut self, stm: &Stm) {
        if let (
            Exp::BasicOp(BasicOp::Iota {
                n, start, stride, ..
            }),
            [v],
        ) = (&stm.exp, stm.pat.as_slice())
            && is_int_const(start, 0)
            && is_int_const(stride, 1)
        {
            self.iotas.insert(*v, *n);
        }
    }
    /// Records the facts a lambda's parameters get from the SOAC's inputs: a parameter bound
    /// to the rows of `iota(w, 0, 1)` lies in `[0, w)`.
    pub fn from_inputs(&mut self, params: &[Var], arrays: &[Var]) {
        for (p, a) in params.iter().zip(arrays) {
            if let Some(n) = self.iotas.get(a).copied() {
                self.insert(*p, 0, n);
            }
        }
    }
}

/// The attribute of an index or an in-place update whose positions the optimiser has proved
/// to lie in the array's dimensions (rule `index-in-bounds`): the backends emit no bounds
/// check for it. It says nothing about other places: a statement carrying it is no safer to
/// move than without it.
pub const IN_BOUNDS: &str = "in_bounds";

/// The attribute of a read whose bounds an earlier statement has checked: forward mode's
/// read of a tangent, which has the primal array's shape, right after the same read of the
/// primal. Such a read fails only if an earlier statement failed first, so it never decides
/// which error a program reports; but it is not safe to run earlier than that statement.
pub const CHECKED_BEFORE: &str = "checked_before";

/// Whether `stm` can fail only where a statement that runs before it fails first (it is
/// [`is_safe`], except for reads marked [`CHECKED_BEFORE`]). Moving a statement that may
/// fail ahead of such statements reports the same first error.
pub fn fails_only_after_earlier(stm: &Stm, ranges: &Ranges, names: &NameTable) -> bool {
    checked_before(stm) || exp_safe(&stm.exp, ranges, names, true)
}

fn checked_before(stm: &Stm) -> bool {
    matches!(stm.exp, Exp::BasicOp(BasicOp::Index { .. }))
        && stm.aux.attrs.iter().any(|a| a == CHECKED_BEFORE)
}

/// Whether evaluating `exp` can neither fail nor have an effect, given the range facts: such
/// a statement may be removed when unused, and moved where it runs more often.
pub fn is_safe(exp: &Exp, ranges: &Ranges, names: &NameTable) -> bool {
    exp_safe(exp, ranges, names, false)
}

/// [`is_safe`]; with `trust_checked`, reads marked [`CHECKED_BEFORE`] in nested bodies count
/// as safe.
fn exp_safe(exp: &Exp, ranges: &Ranges, names: &NameTable, trust_checked: bool) -> bool {
    let body_is_safe = |body: &Body, ranges: &Ranges, names: &NameTable| {
        body_safe(body, ranges, names, trust_checked)
    };
    match exp {
        Exp::BasicOp(op) => match op {
            BasicOp::SubExp(_)
            | BasicOp::Rearrange { .. }
            | BasicOp::Copy(_)
            | BasicOp::Rotate { .. } => true,
            BasicOp::Prim(p, _) => !prim_can_fail(*p),
            BasicOp::Iota { n, .. } => nonneg(n),
            // Rows whose types are the row type have its sizes (a mismatch is the only
            // failure).
            BasicOp::ArrayLit { elems, row } => elems.iter().all(|e| match e {
                SubExp::Var(v) => names.ty(*v) == row,
                SubExp::Const(c) => *row == Type::Prim(c.prim_type()),
            }),
            BasicOp::Replicate { shape, .. } | BasicOp::Scratch { shape, .. } => {
                shape.iter().all(nonneg)
            }
            BasicOp::Index { array, slice } => {
                ranges.fixed_in_bounds(slice, names.ty(*array).dims())
            }
            // A write of a row of the array's row type at indices in range.
            BasicOp::Update {
                array,
                slice,
                value,
            } => {
                let ty = names.ty(*array);
                let dims = ty.dims().to_vec();
                ranges.fixed_in_bounds(slice, &dims)
                    && names.subexp_ty(value)
                        == Type::array(ty.elem(), dims[slice.len()..].to_vec())
            }
            _ => false,
        },
        Exp::Soac(Soac::Map { lam, arrays, .. }) => {
            let mut r = ranges.clone();
            r.from_inputs(&lam.params, arrays);
            body_is_safe(&lam.body, &r, names)
        }
        Exp::Soac(Soac::Reduce { lam, .. }) | Exp::Soac(Soac::Scan { lam, .. }) => {
            body_is_safe(&lam.body, ranges, names)
        }
        Exp::Soac(Soac::Screma {
            map, arrays, form, ..
        }) if matches!(**form, ScremaForm::Reduce { .. } | ScremaForm::Scan { .. }) => {
            let mut r = ranges.clone();
            r.from_inputs(&map.params, arrays);
            body_is_safe(&map.body, &r, names)
                && form
                    .op()
                    .is_some_and(|op| body_is_safe(&op.body, ranges, names))
        }
        Exp::If {
            then_body,
            else_body,
            ..
        } => body_is_safe(then_body, ranges, names) && body_is_safe(else_body, ranges, names),
        Exp::Loop {
            form: LoopForm::For { i, bound },
            body,
            ..
        } => {
            let mut r = ranges.clone();
            if names.ty(*i) == &Type::Prim(crate::core::scalar::PrimType::I64) {
                r.insert(*i, 0, *bound);
            }
            body_is_safe(body, &r, names)
        }
        _ => false,
    }
}

/// Whether every statement of `body` is [`is_safe`]; lambda parameters of nested maps over
/// `iota` rows count as in range.
pub fn body_is_safe(body: &Body, ranges: &Ranges, names: &NameTable) -> bool {
    body_safe(body, ranges, names, false)
}

fn body_safe(body: &Body, ranges: &Ranges, names: &NameTable, trust_checked: bool) -> bool {
    let mut ranges = ranges.clone();
    for stm in &body.stms {
        if let Exp::Soac(Soac::Map { lam, arrays, .. }) = &stm.exp {
            ranges.from_inputs(&lam.params, arrays);
        }
        let trusted = trust_checked && checked_before(stm);
        if !trusted && !exp_safe(&stm.exp, &ranges, names, trust_checked) {
            return false;
        }
        ranges.note_iota(stm);
    }
    true
}

fn nonneg(se: &SubExp) -> bool {
    // Sizes in types are non-negative by construction; constants are checked.
    match se {
        SubExp::Const(c) => c.to_f64() >= 0.0,
        SubExp::Var(_) => true,
    }
}
