//! `while` loops in reverse mode: counted first, then differentiated as `for` loops.
//!
//! **Takes** `loop (p = init) while c do body`, active.
//!
//! **Does**: a renamed copy of the loop runs first, with an iteration counter, to count its
//! iterations `c` ([`Vjp::count_while`]); the loop is then differentiated as
//! `loop (p = init) for _ < c do body` (checkpointed, reverse computed or resized like any
//! `for` loop).
//!
//! **Guarantees**: the copy consumes fresh copies of the initial values the loop consumes,
//! so the loop itself still has them.
//!
//! **Cost**: one more run of the loop (the count), so the body runs three times per
//! iteration instead of two.

use super::super::{R, Vjp};
use super::LoopParam;
use crate::core::builder::HasBuilder;
use crate::core::ir::{Body, Exp, LoopForm, Stm, SubExp, Type, Var};
use crate::core::prim::BinOp;
use crate::core::scalar::PrimType;
use std::collections::HashMap;

impl Vjp<'_> {
    /// Emits the loop that counts the iterations of `while` loop `s` (parameters `params`,
    /// condition `cond`, body `body`) and returns `s` as a `for` loop over that count.
    pub(super) fn count_while(
        &mut self,
        s: &Stm,
        params: &[LoopParam],
        cond: Var,
        body: &Body,
    ) -> R<Stm> {
        let mut subst = HashMap::new();
        let mut fresh_params = Vec::new();
        for (p, init) in params {
            let t = self.e.names.ty(*p).clone();
            let h = self.e.names.hint(*p).to_string();
            let np = self.e.fresh(&h, t);
            subst.insert(*p, np);
            fresh_params.push((np, *init));
        }
        let mut new_params = self.copy_consumed_inits(s, fresh_params);
        // Parameter types may mention other parameters (sizes).
        for (np, _) in &new_params {
            let mut t = self.e.names.ty(*np).clone();
            crate::core::renumber::map_vars_type(&mut t, &mut |v| {
                subst.get(&v).copied().unwrap_or(v)
            });
            self.e.names.set_ty(*np, t);
        }
        let count = self.e.fresh("count", Type::Prim(PrimType::I64));
        new_params.push((count, SubExp::i64(0)));
        let (mut stms, mut result) = self.rename(&body.stms, &body.result, subst.clone());
        let (inc_stms, inc) =
            self.nested(|v| Ok(v.e.i64_bin(BinOp::Add, SubExp::Var(count), SubExp::i64(1))))?;
        stms.extend(inc_stms);
        result.push(inc);
        // The results' types refer to the results (sizes), not to the parameters.
        let mut to_pat: HashMap<Var, Var> = HashMap::new();
        let mut pat = Vec::with_capacity(new_params.len());
        for (p, _) in &new_params {
            let mut t = self.e.names.ty(*p).clone();
            crate::core::renumber::map_vars_type(&mut t, &mut |v| {
                to_pat.get(&v).copied().unwrap_or(v)
            });
            let r = self.e.fresh("counted", t);
            to_pat.insert(*p, r);
            pat.push(r);
        }
        let c = pat[pat.len() - 1];
        self.e.add_stm(Stm {
            pat,
            exp: Exp::Loop {
                params: new_params,
                form: LoopForm::While { cond: subst[&cond] },
                body: Body { stms, result },
            },
            aux: s.aux.clone(),
        });
        let i = self.e.fresh("i", Type::Prim(PrimType::I64));
        Ok(Stm {
            pat: s.pat.clone(),
            exp: Exp::Loop {
                params: params.to_vec(),
                form: LoopForm::For {
                    i,
                    bound: SubExp::Var(c),
                },
                body: body.clone(),
            },
            aux: s.aux.clone(),
        })
    }
}
