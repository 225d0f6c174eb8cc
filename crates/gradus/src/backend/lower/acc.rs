//! Accumulators: `with_acc` and its privatisation in parallel loops.
//!
//! Takes a `with_acc` whose lambda takes one accumulator per input. Guarantees the arrays
//! behind the accumulators updated in place (copied first when shared) and moved into the
//! results; remembers the size of float accumulators so that a parallel `map` adding into
//! them can give each thread its own copy.

use super::imp::{self, Ex, Stm as I};
use super::{Lw, R};
use crate::core::ir::{Aux, Lambda, SubExp, Type, Var};

impl<'a> Lw<'a> {
    pub(super) fn with_acc(
        &mut self,
        pat: &[Var],
        inputs: &[(Vec<SubExp>, Vec<Var>)],
        lam: &Lambda,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        if lam.params.len() != inputs.len() {
            return Err("internal error: with_acc lambda does not fit its inputs".into());
        }
        let mut owned = Vec::new();
        for ((shape, arrays), p) in inputs.iter().zip(&lam.params) {
            self.declare(*p, out);
            let pn = self.name(*p);
            let sd = self.dims(shape);
            for (j, a) in arrays.iter().enumerate() {
                let dims = self.var_dims(*a);
                let elem = self.ty(*a).elem();
                if dims.len() >= sd.len() {
                    let mut want = sd.clone();
                    want.extend(dims[sd.len()..].iter().cloned());
                    self.size_check(out, &dims, &want, elem, String::new(), aux);
                }
                let n = self.consume_unique(*a, out);
                if elem.is_float() {
                    self.acc_sizes
                        .insert(format!("{pn}_{j}"), (elem, Ex::product(dims)));
                }
                out.push(I::Set {
                    name: format!("{pn}_{j}"),
                    val: Ex::var(&n),
                });
                owned.push(n);
            }
        }
        self.stms(&lam.body, out)?;
        let rest = &lam.body.result[inputs.len().min(lam.body.result.len())..];
        let extra = &pat[owned.len().min(pat.len())..];
        for (d, r) in extra.iter().zip(rest) {
            self.assign(*d, r, out);
        }
        self.end_scope(&lam.body, out);
        self.move_results(pat, &owned, out);
        Ok(())
    }

    /// Records that accumulator array `dst` is `src` under another name.
    pub(super) fn alias_acc(&mut self, dst: &str, src: &str) {
        if let Some(v) = self.acc_sizes.get(src).cloned() {
            self.acc_sizes.insert(dst.to_string(), v);
        }
    }

    /// The accumulator arrays a parallel `map` adds into, when they can all be privatised:
    /// every accumulator reaches the lambda as an input, and all accumulate floats of a known
    /// size. Accumulators created inside an iteration belong to it and need no atomics either.
    pub(super) fn privatisable(&self, lam: &Lambda, arrays: &[Var]) -> Vec<imp::Private> {
        let free_acc = crate::core::visit::free_in_body(&self.prog.names, &lam.body)
            .iter()
            .any(|v| !lam.params.contains(v) && matches!(self.ty(*v), Type::Acc { .. }));
        if free_acc {
            return Vec::new();
        }
        let mut private = Vec::new();
        for a in arrays {
            let Type::Acc { elems, .. } = self.ty(*a) else {
                continue;
            };
            for j in 0..elems.len() {
                let arr = format!("{}_{j}", self.name(*a));
                match self.acc_sizes.get(&arr) {
                    Some((elem, count)) => private.push(imp::Private {
                        arr,
                        elem: *elem,
                        count: count.clone(),
                    }),
                    None => return Vec::new(),
                }
            }
        }
        private
    }
}
