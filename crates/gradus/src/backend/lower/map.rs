//! `map`.
//!
//! Takes a `map` whose results are arrays or accumulators passed through. Guarantees one
//! loop over the width writing each result row straight into freshly allocated outputs (a
//! row the lambda builds as an array literal of scalars, also nested, is never built: its
//! elements are stored into the output, saving an allocation and a copy per row); with
//! `parallel`, the outermost map is a parallel loop whose accumulator updates are atomic or go
//! to per-thread copies (see [`imp::Stm::ParFor`]); a map of column reductions is lowered by
//! [`super::columns`].

use super::columns::column_reduction;
use super::imp::{self, Ex, Stm as I};
use super::{Lw, R};
use crate::core::ir::{Aux, BasicOp, Body, Exp, Lambda, NameTable, SubExp, Type, Var};
use crate::core::visit::use_counts;
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
        for &p in pat {
            match self.ty(p) {
                Type::Acc { .. } => {
                    if let Some(a) = accs_in.next() {
                        self.assign(p, &SubExp::Var(a), out);
                    }
                }
                // An output a concatenation consumes is a view of its slice ([`super::place`]).
                Type::Array { .. } if self.placed.contains_key(&p) => {
                    let (src, offset) = self.placed[&p].clone();
                    out.push(I::SetArr {
                        dst: self.name(p),
                        src,
                        offset,
                        share: imp::Share::Borrow,
                    });
                }
                Type::Array { elem, dims } => {
                    let count = Ex::product(self.dims(dims));
                    out.push(I::Alloc {
                        arr: self.name(p),
                        elem: *elem,
                        count,
                    });
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
        let (lam_body, literals) = literal_results(&self.prog.names, &lam.body);
        let body = self.in_parallel(par, |s| -> R<Vec<I>> {
            let mut b = Vec::new();
            for (p, a) in lam.params.iter().zip(arrays) {
                s.bind_row(*p, *a, &iv, &mut b);
            }
            s.stms(&lam_body, &mut b)?;
            for (k, (d, r)) in pat.iter().zip(&lam_body.result).enumerate() {
                if matches!(s.ty(*d), Type::Acc { .. }) {
                    continue;
                }
                match (literals.get(&k), r) {
                    (Some(elems), SubExp::Var(v)) => {
                        s.write_literal_row(*d, *v, elems, &iv, aux, &mut b)
                    }
                    _ => s.write_row(*d, r, &iv, aux, &mut b),
                }
            }
            s.end_scope(&lam_body, &mut b);
            Ok(b)
        })?;
        if par {
            let work = Ex::times(w.clone(), Ex::int(Self::cost(&lam.body)));
            let private = self.privatisable(lam, arrays);
            let private_body = if private.is_empty() {
                Vec::new()
            } else {
                imp::without_atomics(&body)
            };
            out.push(I::ParFor {
                var: i,
                bound: w,
                work,
                body,
                private,
                private_body,
            });
        } else {
            out.push(I::For {
                var: i,
                bound: w,
                body,
            });
        }
        Ok(())
    }

    /// Stores the scalars `elems` of the literal `v` (the lambda's result) as row `i` of
    /// `dst`, after the shape check [`Lw::write_row`] makes.
    fn write_literal_row(
        &mut self,
        dst: Var,
        v: Var,
        elems: &[SubExp],
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
        for (j, e) in elems.iter().enumerate() {
            out.push(I::Store {
                elem,
                arr: arr.clone(),
                idx: Ex::plus(Ex::times(i.clone(), block.clone()), Ex::int(j as i64)),
                val: self.se(e),
            });
        }
    }
}

/// The lambda body without the statements that build its results as array literals of
/// scalars (directly or through literals of such rows, each used once), and those results'
/// scalars in row-major order, by result position.
fn literal_results(names: &NameTable, body: &Body) -> (Body, HashMap<usize, Vec<SubExp>>) {
    let uses = use_counts(names, body);
    let mut literals = HashMap::new();
    let mut skip: HashSet<Var> = HashSet::new();
    for (k, r) in body.result.iter().enumerate() {
        let SubExp::Var(v) = r else { continue };
        if uses.get(v) != Some(&1) {
            continue;
        }
        let mut vars = Vec::new();
        if let Some(elems) = flat_literal(body, *v, &uses, &mut vars) {
            skip.extend(vars);
            literals.insert(k, elems);
        }
    }
    if skip.is_empty() {
        return (body.clone(), literals);
    }
    let stms = body
        .stms
        .iter()
        .filter(|s| !s.pat.iter().any(|p| skip.contains(p)))
        .cloned()
        .collect();
    (
        Body {
            stms,
            result: body.result.clone(),
        },
        literals,
    )
}

/// The scalars of the literal bound to `v` in `body`, row-major, if it is one of scalars or
/// of such literals used once; `vars` collects the literals' variables.
fn flat_literal(
    body: &Body,
    v: Var,
    uses: &HashMap<Var, usize>,
    vars: &mut Vec<Var>,
) -> Option<Vec<SubExp>> {
    let stm = body.stms.iter().find(|s| s.pat == [v])?;
    let Exp::BasicOp(BasicOp::ArrayLit { elems, row }) = &stm.exp else {
        return None;
    };
    vars.push(v);
    if matches!(row, Type::Prim(_)) {
        return Some(elems.clone());
    }
    let mut out = Vec::new();
    for e in elems {
        let SubExp::Var(r) = e else { return None };
        if uses.get(r) != Some(&1) {
            return None;
        }
        out.extend(flat_literal(body, *r, uses, vars)?);
    }
    Some(out)
}
