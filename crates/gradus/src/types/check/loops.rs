//! Loops: parameters whose sizes may change between iterations, the three loop forms, and
//! consumption of the initial values.

use super::uniqueness::consumed_init_parts;
use super::{Anon, Checker, R};
use crate::core::scalar::PrimType;
use crate::syntax::ast::*;
use crate::types::infer::PrimSet;
use crate::types::ty::{Size, SizeVar, Ty};
use std::collections::{BTreeMap, HashSet};

impl Checker {
    pub(super) fn check_loop(
        &mut self,
        e: &Exp,
        pat: &Pat,
        init: Option<&Exp>,
        form: &LoopForm,
        body: &Exp,
    ) -> R<Ty> {
        let init_ty = match init {
            Some(i) => self.check_exp(i)?,
            None => self.shorthand_init(pat)?,
        };
        // Loop parameters start with the initial sizes replaced by fresh variables; see
        // Note [Sizes of loop parameters].
        let init_res = self.u.resolve(&init_ty);
        let mut fresh = Vec::new();
        let freshened = self.freshen_sizes(&init_res, &mut fresh);
        let mark = self.scope.len();
        self.barrier += 1;
        let r = (|| -> R<(Ty, Vec<&Exp>)> {
            let mut bs = Vec::new();
            let pt = self.check_pat(pat, Anon::Fresh, &mut bs)?;
            let what = "the initial value does not match the loop parameters";
            self.expect(init.map_or(pat.span, |i| i.span), what, &pt, &freshened)?;
            let lifted = self.lifted.clone();
            if let Err(x) = self.u.require_no_fun(&pt, &lifted) {
                return Err(self.mismatch(
                    pat.span,
                    "loop parameters cannot be functions",
                    &pt,
                    &pt,
                    x,
                ));
            }
            self.push_binders(bs);
            match form {
                LoopForm::For { var, bound } => {
                    let bt = self.check_exp(bound)?;
                    let it = self.fresh_constrained(PrimSet::integral());
                    self.expect(
                        bound.span,
                        "the bound of a `for` loop must be an integer",
                        &it,
                        &bt,
                    )?;
                    let mut vb = Vec::new();
                    let vt = self.check_pat(var, Anon::Fresh, &mut vb)?;
                    self.expect(var.span, "loop counter", &it, &vt)?;
                    self.push_binders(vb);
                }
                LoopForm::ForIn { pat: xp, array } => {
                    let at = self.check_exp(array)?;
                    let elem = self.fresh();
                    let s = self.fresh_size();
                    let want = self.u.resolve(&elem).array_of(s);
                    self.expect(array.span, "`for ... in` needs an array", &want, &at)?;
                    let mut vb = Vec::new();
                    let xt = self.check_pat(xp, Anon::Fresh, &mut vb)?;
                    self.expect(
                        xp.span,
                        "the element pattern does not match the array's elements",
                        &xt,
                        &elem,
                    )?;
                    self.push_binders(vb);
                }
                LoopForm::While(c) => {
                    self.check_exp_as(
                        c,
                        "the condition of a `while` loop must be a `bool`",
                        &Ty::Prim(PrimType::Bool),
                    )?;
                }
            }
            let bt = self.check_exp(body)?;
            self.expect_ignoring_sizes(
                body.span,
                "the loop body must return the type of the loop parameters",
                &pt,
                &bt,
            )?;
            // Which fresh sizes does the body preserve?
            let mut varying = HashSet::new();
            self.varying_sizes(&self.u.resolve(&pt), &self.u.resolve(&bt), &mut varying);
            for (v, orig) in &fresh {
                if self.u.size_is_bound(*v) {
                    continue;
                }
                // The initial size may itself have been unified with `v` in the body (an
                // inner loop whose body returns the outer loop's parameter): binding `v` to a
                // size that mentions `v` would make a cycle.
                let orig = self.u.resolve_size(orig);
                if orig == Size::Var(*v) {
                    continue;
                }
                if varying.contains(v) || mentions(&orig, *v) {
                    self.u.set_size(*v, Size::Unknown);
                } else {
                    self.u.set_size(*v, orig);
                }
            }
            // The initial value of a parameter the body consumes is consumed (docs/language.md
            // §Uniqueness).
            let mut consumed_inits = Vec::new();
            if let Some(i) = init {
                consumed_init_parts(pat, i, &self.consumed, &mut consumed_inits);
            }
            Ok((self.u.resolve(&pt), consumed_inits))
        })();
        self.barrier -= 1;
        self.scope.truncate(mark);
        let (r, consumed_inits) = r?;
        for i in consumed_inits {
            self.consume(i)?;
        }
        let r = Ok(r);
        let _ = e;
        r
    }

    fn varying_sizes(&self, p: &Ty, b: &Ty, out: &mut HashSet<SizeVar>) {
        match (p, b) {
            (Ty::Array(d1, e1), Ty::Array(d2, e2)) => {
                for (x, y) in d1.iter().zip(d2) {
                    if let Size::Var(v) = x
                        && x != y
                    {
                        out.insert(*v);
                    }
                }
                self.varying_sizes(e1, e2, out);
            }
            (Ty::Record(f1), Ty::Record(f2)) => {
                for (k, v) in f1 {
                    if let Some(w) = f2.get(k) {
                        self.varying_sizes(v, w, out);
                    }
                }
            }
            (Ty::Sum(c1), Ty::Sum(c2)) => {
                for (k, ts) in c1 {
                    for (v, w) in ts.iter().zip(c2.get(k).into_iter().flatten()) {
                        self.varying_sizes(v, w, out);
                    }
                }
            }
            _ => {}
        }
    }

    fn freshen_sizes(&mut self, t: &Ty, out: &mut Vec<(SizeVar, Size)>) -> Ty {
        match t {
            Ty::Array(dims, e) => {
                let mut nd = Vec::new();
                for d in dims {
                    let s = self.fresh_size();
                    if let Size::Var(v) = s {
                        out.push((v, d.clone()));
                    }
                    nd.push(s);
                }
                Ty::Array(nd, Box::new(self.freshen_sizes(e, out)))
            }
            Ty::Record(fs) => {
                let mut m = BTreeMap::new();
                for (k, v) in fs {
                    m.insert(k.clone(), self.freshen_sizes(v, out));
                }
                Ty::Record(m)
            }
            Ty::Sum(cs) => {
                let mut m = BTreeMap::new();
                for (k, ts) in cs {
                    let payload = ts.iter().map(|v| self.freshen_sizes(v, out)).collect();
                    m.insert(k.clone(), payload);
                }
                Ty::Sum(m)
            }
            _ => t.clone(),
        }
    }
}

/// Whether size `s` mentions the size variable `v`.
fn mentions(s: &Size, v: SizeVar) -> bool {
    match s {
        Size::Var(w) => *w == v,
        Size::Op(_, a, b) => mentions(a, v) || mentions(b, v),
        _ => false,
    }
}

// Note [Sizes of loop parameters]
//
// A loop parameter's sizes may change from one iteration to the next (`loop xs = [] for i < n
// do xs ++ [i]`). The parameters are therefore checked with fresh size variables in place of
// the initial sizes, and the body's result is unified with them with size unification turned
// off. Afterwards, a fresh size that the body returned unchanged (the same variable, or one a
// size annotation or another unification fixed) takes the initial value's size; one that the
// body changed becomes unknown. So `loop ys = copy xs for i < n do ys with [i] = 0` keeps the
// size of `xs`, and the growing loop above has an unknown size.
