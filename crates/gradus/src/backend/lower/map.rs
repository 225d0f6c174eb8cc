//! `map`.
//!
//! Takes a `map` whose results are arrays or accumulators passed through. Guarantees one
//! loop over the width writing each result row straight into freshly allocated outputs (a
//! row the lambda builds as an array literal of scalars, also nested, is never built: its
//! elements are stored into the output, saving an allocation and a copy per row, and a row
//! an inner `map` computes is written by that map into the output directly); with
//! `parallel`, the outermost map is a parallel loop whose accumulator updates are atomic or go
//! to per-thread copies (see [`imp::Stm::ParFor`]), or are plain where no two iterations add
//! at the same position ([`Lw::exclusive_accs`]); a map of column reductions is lowered by
//! [`super::columns`]. A sequential map adding into accumulators whose inner loops grow
//! with its index runs from its last iteration to its first where floats may be reordered
//! ([`Lw::shortening_order`]).

use super::columns::column_reduction;
use super::imp::{self, Ex, Stm as I};
use super::peel::Peel;
use super::{Lw, R};
use crate::core::ir::{
    Aux, BasicOp, Body, Exp, Lambda, LoopForm, NameTable, ScremaForm, Soac, SubExp, Type, Var,
};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::visit::{consumed_in_body, use_counts};
use std::collections::{HashMap, HashSet};

impl<'a> Lw<'a> {
    pub(super) fn map(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        lam: &Lambda,
        arrays: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.width(w, arrays, aux, out);
        // Outputs: fresh arrays, or the accumulators passed through.
        let mut accs_in = arrays
            .iter()
            .filter(|a| matches!(self.ty(**a), Type::Acc { .. }))
            .copied()
            .collect::<Vec<_>>()
            .into_iter();
        let mut taken: Vec<Var> = Vec::new();
        for &p in pat {
            match self.ty(p) {
                Type::Acc { .. } => {
                    if let Some(a) = accs_in.next() {
                        self.assign(p, &SubExp::Var(a), out);
                    }
                }
                // An output a concatenation consumes is a view of its slice ([`super::place`]).
                Type::Array { .. } if self.placed.contains_key(&p) => {
                    self.alloc_map_output(p, out)?;
                }
                Type::Array { elem, dims } => {
                    let count = Ex::product(self.dims(dims));
                    // A vector of scalars may go into the block of a loop parameter of the
                    // same type that this map reads for the last time: each iteration reads
                    // its element of the input before writing the output's. (Only loop
                    // parameters: the block of a temporary belongs to its allocation site's
                    // slot, which would then allocate anew in every iteration.)
                    let dying: Vec<Var> = arrays
                        .iter()
                        .zip(&lam.params)
                        .filter(|(a, q)| {
                            dims.len() == 1
                                && self.loop_params.contains(*a)
                                && self.last_used_once.contains(*a)
                                && !taken.contains(*a)
                                && self.ty(**a) == self.ty(p)
                                && matches!(self.ty(**q), Type::Prim(_))
                                && !self.iota_rows.contains_key(*a)
                                && !self.virtual_iotas.contains(*a)
                        })
                        .map(|(a, _)| *a)
                        .collect();
                    if dying.is_empty() {
                        self.alloc_map_output(p, out)?;
                    } else {
                        // Two outputs never take the same input.
                        taken.extend(&dying);
                        out.push(I::AllocOrTake {
                            arr: self.name(p),
                            elem: *elem,
                            count,
                            srcs: dying.iter().map(|a| self.name(*a)).collect(),
                        });
                    }
                }
                Type::Prim(_) => return Err("internal error: map result is a scalar".into()),
            }
        }
        if lam.params.len() != arrays.len() || lam.body.result.len() != pat.len() {
            return Err("internal error: map lambda does not fit its inputs".into());
        }
        let par = self.opts.parallel && !self.in_par;
        if let Some(red) = column_reduction(lam, arrays, pat, |v| self.ty(v)) {
            return self.column_reduction(pat, &w, lam, arrays, red, par, out);
        }
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let rewritten = literal_results(&self.prog.names, &lam.body);
        let (lam_body, literals) = match &rewritten {
            Some((body, literals)) => (body, literals),
            None => (&lam.body, &HashMap::new()),
        };
        let in_place = self.rows_in_place(pat, lam_body, literals);
        let exclusive = if par {
            self.exclusive_accs(lam, arrays)
        } else {
            HashSet::new()
        };
        self.exclusive_accs.extend(exclusive.iter().copied());
        let body = self.in_map_lambda(par, |s| -> R<Vec<I>> {
            let mut b = Vec::new();
            for (p, a) in lam.params.iter().zip(arrays) {
                s.bind_row(*p, *a, &iv, &mut b);
            }
            for (k, v) in &in_place {
                let d = pat[*k];
                let block = Ex::product(s.dims(&s.ty(d).dims()[1..]));
                s.placed
                    .insert(*v, (s.name(d), Ex::times(iv.clone(), block)));
            }
            s.stms(lam_body, &mut b)?;
            for (k, (d, r)) in pat.iter().zip(&lam_body.result).enumerate() {
                if matches!(s.ty(*d), Type::Acc { .. }) || in_place.contains_key(&k) {
                    continue;
                }
                match (literals.get(&k), r) {
                    (Some(elems), SubExp::Var(v)) => {
                        s.write_literal_row(*d, *v, elems, &iv, aux, &mut b)
                    }
                    _ => s.write_row(*d, r, &iv, aux, &mut b),
                }
            }
            s.end_scope(lam_body, &mut b);
            Ok(b)
        })?;
        let independent = self.independent_map(lam, arrays, &body);
        if par {
            let work = Ex::times(w.clone(), Ex::int(Self::cost(&lam.body)));
            let private = self.privatisable(lam, arrays, &exclusive);
            let private_body = if private.is_empty() {
                Vec::new()
            } else {
                imp::without_atomics(&body)
            };
            match Peel::find(&i, &body, || self.fresh("rest")) {
                Some(peel) => {
                    out.push(peel.first(&w, &body));
                    let private_body = if private_body.is_empty() {
                        private_body
                    } else {
                        peel.rest_body(&private_body)
                    };
                    out.push(I::ParFor {
                        independent,
                        var: peel.rest_var.clone(),
                        bound: peel.rest_bound(&w),
                        work,
                        body: peel.rest_body(&body),
                        private,
                        private_body,
                    });
                }
                None => out.push(I::ParFor {
                    independent,
                    var: i,
                    bound: w,
                    work,
                    body,
                    private,
                    private_body,
                }),
            }
        } else if let Some(peel) = Peel::find(&i, &body, || self.fresh("rest")) {
            out.push(peel.first(&w, &body));
            out.push(I::For {
                down: false,
                independent,
                var: peel.rest_var.clone(),
                bound: peel.rest_bound(&w),
                body: peel.rest_body(&body),
                at: None,
            });
        } else if self.opts.reorder_floats && self.shortening_order(pat, lam, arrays) {
            out.push(I::For {
                down: true,
                independent,
                var: i,
                bound: w,
                body,
                at: None,
            });
        } else {
            out.push(I::For {
                down: false,
                independent,
                var: i,
                bound: w,
                body,
                at: None,
            });
        }
        Ok(())
    }

    /// Whether a sequential map runs from its last iteration to its first: when it adds into
    /// accumulators and an inner loop's trip count grows with the map's index (an `iota`
    /// row), as in the adjoint of a triangular matrix-vector product, which adds row `r` of
    /// the matrix, `r + 1` elements long, into the same vector for every `r`. In decreasing
    /// order the inner loops get shorter, so each one's vector loads of that vector lie
    /// within what the longer loop before it stored, and the processor forwards them from
    /// its store buffer; in increasing order a wide load spans several narrower stores and
    /// waits for them to reach the cache (GMM's gradient at d = 10: 7 % of its time). The
    /// accumulators then receive their terms in another order: only where floats may be
    /// reordered.
    fn shortening_order(&self, pat: &[Var], lam: &Lambda, arrays: &[Var]) -> bool {
        if !pat.iter().any(|p| matches!(self.ty(*p), Type::Acc { .. })) {
            return false;
        }
        lam.params.iter().zip(arrays).any(|(p, a)| {
            matches!(
                self.iota_rows.get(a),
                Some((_, Ex::Const(Scalar::I64(step)), _)) if *step > 0
            ) && inner_trips_grow_with(&lam.body, *p)
        })
    }

    /// The results of the lambda `body` (by position) that an inner `map` of the body
    /// computes, returned once and consumed nowhere, with exactly the shape of a row of the
    /// output: that map
    /// writes straight into the output's row (its output is a view of the row, see
    /// [`super::place`]) instead of into an array of its own copied there afterwards. Rows
    /// of the lanes of vector forward mode, of tangent matrices, of nested `tabulate`s.
    fn rows_in_place(
        &self,
        pat: &[Var],
        body: &Body,
        literals: &HashMap<usize, Vec<Piece>>,
    ) -> HashMap<usize, Var> {
        // Made by a map, or a map result of a `redomap` (past its reduced values).
        let by_map = |v: Var| {
            body.stms.iter().any(|s| match &s.exp {
                Exp::Soac(Soac::Map { .. }) => s.pat.contains(&v),
                Exp::Soac(Soac::Screma { form, .. }) => match &**form {
                    ScremaForm::Reduce { neutral, .. } => {
                        s.pat.iter().skip(neutral.len()).any(|p| *p == v)
                    }
                    _ => false,
                },
                _ => false,
            })
        };
        let candidates: Vec<(usize, Var)> = pat
            .iter()
            .zip(&body.result)
            .enumerate()
            .filter_map(|(k, (d, r))| {
                let v = r.as_var()?;
                let (Type::Array { elem, dims }, Type::Array { elem: ve, dims: vd }) =
                    (self.ty(*d), self.ty(v))
                else {
                    return None;
                };
                let fits = !literals.contains_key(&k)
                    && elem == ve
                    && dims[1..] == vd[..]
                    && !self.placed.contains_key(&v)
                    && by_map(v);
                fits.then_some((k, v))
            })
            .collect();
        if candidates.is_empty() {
            return HashMap::new();
        }
        // Other statements may read the row (it is a view of the output's row), but none may
        // consume it, and it is returned once.
        let mut consumed = HashSet::new();
        consumed_in_body(body, &mut consumed);
        let returned = |v: Var| body.result.iter().filter(|r| **r == SubExp::Var(v)).count();
        candidates
            .into_iter()
            .filter(|(_, v)| !consumed.contains(v) && returned(*v) == 1)
            .collect()
    }

    /// Stores the pieces of the literal `v` (the lambda's result) as row `i` of `dst`, after
    /// the shape check [`Lw::write_row`] makes: scalars one by one, whole rows by a copy
    /// (after the check the literal itself would have made of them).
    fn write_literal_row(
        &mut self,
        dst: Var,
        v: Var,
        pieces: &[Piece],
        i: &Ex,
        aux: &Aux,
        out: &mut Vec<I>,
    ) {
        let dty = self.ty(dst);
        let elem = dty.elem();
        let rdims = self.dims(&dty.dims()[1..]);
        let vd = self.var_dims(v);
        self.size_check(out, &vd, &rdims, elem, String::new(), aux);
        let block = Ex::product(rdims);
        let arr = self.name(dst);
        let mut off = Ex::times(i.clone(), block);
        for piece in pieces {
            match piece {
                Piece::Scalar(e) => {
                    out.push(I::Store {
                        elem,
                        arr: arr.clone(),
                        idx: off.clone(),
                        val: self.se(e),
                    });
                    off = Ex::plus(off, Ex::int(1));
                }
                Piece::Row(r, row_dims) => {
                    let want = self.dims(row_dims);
                    let have = self.var_dims(*r);
                    self.size_check(out, &have, &want, elem, String::new(), aux);
                    let count = Ex::product(want);
                    out.push(I::Copy {
                        elem,
                        dst: arr.clone(),
                        dst_off: off.clone(),
                        src: self.name(*r),
                        src_off: Ex::int(0),
                        count: count.clone(),
                    });
                    off = Ex::plus(off, count);
                }
            }
        }
    }
}

/// A piece of a literal row written in place: a scalar, or a whole row (an array of the
/// given dimensions) that is not itself a literal built for this row.
#[derive(Clone)]
enum Piece {
    Scalar(SubExp),
    Row(Var, Vec<SubExp>),
}

/// Whether a loop or SOAC directly in `body` has a trip count that grows with `k` (`k`,
/// `k + c`, `max(k + c, 0)`, ... with `c` bound outside `body`).
fn inner_trips_grow_with(body: &Body, k: Var) -> bool {
    let defs: HashMap<Var, &Exp> = body
        .stms
        .iter()
        .filter(|s| s.pat.len() == 1)
        .map(|s| (s.pat[0], &s.exp))
        .collect();
    body.stms.iter().any(|s| match &s.exp {
        Exp::Loop {
            form: LoopForm::For { bound, .. },
            ..
        } => grows_with(&defs, bound, k, 0),
        Exp::Soac(soac) => grows_with(&defs, soac.width(), k, 0),
        _ => false,
    })
}

/// Whether `se` is `k`, or a sum, maximum or minimum of a value growing with `k` and one
/// bound outside the body whose definitions are `defs`.
fn grows_with(defs: &HashMap<Var, &Exp>, se: &SubExp, k: Var, depth: usize) -> bool {
    let SubExp::Var(v) = se else {
        return false;
    };
    if *v == k {
        return true;
    }
    let outside = |x: &SubExp| match x {
        SubExp::Const(_) => true,
        SubExp::Var(x) => *x != k && !defs.contains_key(x),
    };
    match defs.get(v) {
        Some(Exp::BasicOp(BasicOp::Prim(
            PrimOp::Bin(BinOp::Add | BinOp::Max | BinOp::Min, PrimType::I64),
            args,
        ))) if depth < 8 && args.len() == 2 => {
            (grows_with(defs, &args[0], k, depth + 1) && outside(&args[1]))
                || (grows_with(defs, &args[1], k, depth + 1) && outside(&args[0]))
        }
        Some(Exp::BasicOp(BasicOp::SubExp(x))) if depth < 8 => grows_with(defs, x, k, depth + 1),
        _ => false,
    }
}

/// The lambda body without the statements that build its results as array literals
/// (directly or through literals of rows, each used once), and those results' pieces in
/// row-major order, by result position; `None` when no result is such a literal.
fn literal_results(names: &NameTable, body: &Body) -> Option<(Body, HashMap<usize, Vec<Piece>>)> {
    // Most lambdas return no literal: skip counting uses for them.
    let built_here = |r: &SubExp| {
        body.stms.iter().any(|s| {
            r.as_var().is_some_and(|v| s.pat == [v])
                && matches!(
                    s.exp,
                    Exp::BasicOp(BasicOp::ArrayLit { .. } | BasicOp::Replicate { .. })
                )
        })
    };
    if !body.result.iter().any(built_here) {
        return None;
    }
    let uses = use_counts(names, body);
    let mut literals = HashMap::new();
    let mut skip: HashSet<Var> = HashSet::new();
    for (k, r) in body.result.iter().enumerate() {
        let SubExp::Var(v) = r else { continue };
        if uses.get(v) != Some(&1) {
            continue;
        }
        let mut vars = Vec::new();
        if let Some(pieces) = flat_literal(names, body, *v, &uses, &mut vars) {
            skip.extend(vars);
            literals.insert(k, pieces);
        }
    }
    if skip.is_empty() {
        return None;
    }
    let stms = body
        .stms
        .iter()
        .filter(|s| !s.pat.iter().any(|p| skip.contains(p)))
        .cloned()
        .collect();
    Some((
        Body {
            stms,
            result: body.result.clone(),
        },
        literals,
    ))
}

/// The pieces of the literal (or small `replicate`) bound to `v` in `body`, row-major, if it
/// is one: its scalars,
/// or its rows (taken apart in turn when they are literals of the row type used once);
/// `vars` collects the literals' variables.
fn flat_literal(
    names: &NameTable,
    body: &Body,
    v: Var,
    uses: &HashMap<Var, usize>,
    vars: &mut Vec<Var>,
) -> Option<Vec<Piece>> {
    let stm = body.stms.iter().find(|s| s.pat == [v])?;
    // A few copies of one row or scalar (`[cs, cs]` after the optimiser) are pieces too.
    if let Exp::BasicOp(BasicOp::Replicate { shape, value }) = &stm.exp
        && let [SubExp::Const(n)] = shape.as_slice()
        && let Some(n @ 1..=16) = n.as_i64()
    {
        vars.push(v);
        let row: Vec<Piece> = match value {
            SubExp::Var(r) if !matches!(names.ty(*r), Type::Prim(_)) => {
                let mut inner = Vec::new();
                match (uses.get(r) == Some(&1))
                    .then(|| flat_literal(names, body, *r, uses, &mut inner))
                    .flatten()
                {
                    Some(pieces) => {
                        vars.extend(inner);
                        pieces
                    }
                    None => vec![Piece::Row(*r, names.ty(*r).dims().to_vec())],
                }
            }
            _ => vec![Piece::Scalar(*value)],
        };
        return Some((0..n).flat_map(|_| row.iter().cloned()).collect());
    }
    let Exp::BasicOp(BasicOp::ArrayLit { elems, row }) = &stm.exp else {
        return None;
    };
    vars.push(v);
    if matches!(row, Type::Prim(_)) {
        return Some(elems.iter().map(|e| Piece::Scalar(*e)).collect());
    }
    let mut out = Vec::new();
    for e in elems {
        let SubExp::Var(r) = e else { return None };
        let mut inner = Vec::new();
        // A literal row of exactly the row type needs no shape check of its own.
        match (uses.get(r) == Some(&1) && names.ty(*r) == row)
            .then(|| flat_literal(names, body, *r, uses, &mut inner))
            .flatten()
        {
            Some(pieces) => {
                vars.extend(inner);
                out.extend(pieces);
            }
            None => out.push(Piece::Row(*r, row.dims().to_vec())),
        }
    }
    Some(out)
}
