//! Reverse mode of custom derivatives (`with_vjp`, `with_jvp`; see [`crate::ad::custom`]).
//!
//! The forward sweep runs the wrapped function alone. In the return sweep, `with_vjp f f' x`
//! adds `f' (f x) ybar` to the adjoints of its arguments (`ybar` being its results'
//! adjoints, zero where they have none) and to nothing else: the values `f` captures get no
//! adjoint from it. `with_jvp` is differentiated as the function it wraps, re-executed like a
//! nested scope.

use super::{R, Vjp};
use crate::ad::custom::{as_custom, bind_results, coerce_like, instantiate, primal};
use crate::core::ir::{AdMode, Stm, SubExp};
use crate::diag::Diagnostic;
use std::collections::HashMap;

impl Vjp<'_> {
    /// The forward sweep of a custom derivative: the wrapped function's statements, bound to
    /// the statement's pattern.
    pub(super) fn fwd_custom(&mut self, s: &Stm) -> R<()> {
        let c = as_custom(&s.exp).ok_or_else(|| Diagnostic::bug("not a custom derivative"))?;
        let (stms, results) = primal(&mut self.e.names, &c, &s.aux);
        self.e.add_stms(stms);
        self.e.add_stms(bind_results(&s.pat, &results, &s.aux));
        Ok(())
    }

    /// The return sweep of a custom derivative, given its results' adjoints.
    pub(super) fn rev_custom(&mut self, s: &Stm, ybars: &[Option<(SubExp, bool)>]) -> R<()> {
        let c = as_custom(&s.exp).ok_or_else(|| Diagnostic::bug("not a custom derivative"))?;
        if c.mode == AdMode::WithJvp {
            let (stms, results) = primal(&mut self.e.names, &c, &s.aux);
            self.rev_reexec(&stms, &results, ybars, HashMap::new())?;
            return Ok(());
        }
        let mut inputs = c.args.to_vec();
        for (y, ybar) in s.pat.iter().zip(ybars) {
            inputs.push(match ybar {
                Some((a, _)) => *a,
                None => {
                    let t = self.e.names.ty(*y).clone();
                    self.zero(&t)
                }
            });
        }
        let (stms, results) = instantiate(&mut self.e.names, c.lam, &inputs, &s.aux);
        self.e.add_stms(stms);
        for (x, xbar) in c.args.iter().zip(&results[c.n_results..]) {
            // f' must return exactly the shape of x (a run-time size error otherwise).
            let xbar = match x {
                SubExp::Var(x) => coerce_like(&mut self.e, *xbar, *x),
                SubExp::Const(_) => *xbar,
            };
            self.add_adj_se(x, xbar, false)?;
        }
        Ok(())
    }
}
