//! Loops in reverse mode.
//!
//! **Forward sweep** of `loop (p = init) for i < n do body`: the same loop, which also writes
//! the loop-carried values at the start of every iteration into checkpoint arrays `[n]`
//! (`ck_p with [i] = p`), so iteration `i` can be re-executed later.
//!
//! **Return sweep**: a loop over `i = n-1 .. 0` whose parameters are the adjoints of the loop
//! parameters (starting with the adjoints of the loop's results) and of the active free
//! variables of the body. Each iteration reads its checkpoint, re-executes the body (its own
//! forward sweep, so loops nested inside are checkpointed per outer iteration) and runs the
//! body's return sweep with the parameters' adjoints as the adjoints of the body's results.
//! Afterwards the adjoints of the loop parameters are those of the initial values.
//!
//! Work: the body runs twice per iteration (plus its own nested re-executions), memory is one
//! checkpoint per iteration.

use super::{Adj, Diagnostic, Extra, R, Vjp, lambda_free_vars, limitation};
use crate::core::ir::{BasicOp, Body, DimIndex, Exp, Lambda, LoopForm, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::value::PrimType;
use std::collections::{HashMap, HashSet};

/// What the forward sweep of a `for` loop saved.
pub(super) struct Saved {
    /// The number of iterations, as a non-negative `i64`.
    n: SubExp,
    /// One checkpoint array per loop parameter: its value at the start of each iteration.
    checkpoints: Vec<Var>,
}

impl Vjp<'_> {
    pub(super) fn fwd_loop(&mut self, s: &Stm) -> R<Extra> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("fwd_loop of a non-loop"));
        };
        let LoopForm::For { i, bound } = form else {
            return Err(limitation(s.aux.span, "reverse-mode AD of while loops"));
        };
        let param_set: HashSet<Var> = params.iter().map(|(p, _)| *p).collect();
        for (p, _) in params {
            let t = self.e.names.ty(*p).clone();
            if matches!(t, Type::Acc { .. })
                || t.dims()
                    .iter()
                    .any(|d| matches!(d, SubExp::Var(v) if param_set.contains(v)))
            {
                return Err(limitation(
                    s.aux.span,
                    "reverse-mode AD of a loop whose arrays change size",
                ));
            }
        }
        let bt = self.ty(bound).elem();
        let n64 = if bt == PrimType::I64 {
            *bound
        } else {
            self.prim(PrimOp::Conv(bt, PrimType::I64), vec![*bound])
        };
        let n = self.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![n64, SubExp::i64(0)],
        );
        let mut new_params = params.clone();
        let mut ck_params = Vec::new();
        for (p, _) in params {
            let t = self.e.names.ty(*p).clone();
            let mut shape = vec![n];
            shape.extend_from_slice(t.dims());
            let scratch = self.basic(
                "checkpoints",
                BasicOp::Scratch {
                    elem: t.elem(),
                    shape,
                },
            );
            let cp = self
                .e
                .names
                .fresh("checkpoints", self.e.names.ty(scratch).clone());
            new_params.push((cp, SubExp::Var(scratch)));
            ck_params.push(cp);
        }
        let (stms, result) = self.nested(|v| {
            let i64i = if bt == PrimType::I64 {
                SubExp::Var(*i)
            } else {
                v.prim(PrimOp::Conv(bt, PrimType::I64), vec![SubExp::Var(*i)])
            };
            let mut saved = Vec::new();
            for ((p, _), cp) in params.iter().zip(&ck_params) {
                saved.push(SubExp::Var(v.basic(
                    "checkpoints",
                    BasicOp::Update {
                        array: *cp,
                        slice: vec![DimIndex::Fix(i64i)],
                        value: SubExp::Var(*p),
                    },
                )));
            }
            v.e.stms.extend(body.stms.iter().cloned());
            let mut result = body.result.clone();
            result.extend(saved);
            Ok(result)
        })?;
        let mut pat = s.pat.clone();
        let mut checkpoints = Vec::new();
        for cp in &ck_params {
            let t = self.e.names.ty(*cp).clone();
            let v = self.e.names.fresh("checkpoints", t);
            pat.push(v);
            checkpoints.push(v);
        }
        self.e.stms.push(Stm {
            pat,
            exp: Exp::Loop {
                params: new_params,
                form: form.clone(),
                body: Body { stms, result },
            },
            aux: s.aux.clone(),
        });
        Ok(Extra::Loop(Saved { n, checkpoints }))
    }

    pub(super) fn rev_loop(
        &mut self,
        s: &Stm,
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Err(Diagnostic::bug("rev_loop of a non-loop"));
        };
        let (LoopForm::For { i, bound }, Extra::Loop(saved)) = (form, extra) else {
            return Err(limitation(s.aux.span, "reverse-mode AD of while loops"));
        };
        let bt = self.ty(bound).elem();
        // Active free variables of the body.
        let mut binders: Vec<Var> = params.iter().map(|(p, _)| *p).collect();
        binders.push(*i);
        let as_lambda = Lambda {
            params: binders,
            body: body.clone(),
            ret: vec![],
        };
        let threaded: Vec<Var> = lambda_free_vars(&as_lambda)
            .into_iter()
            .filter(|v| self.active.contains(v) && !matches!(self.e.names.ty(*v), Type::Acc { .. }))
            .collect();
        // Loop parameters of the return sweep: adjoints of the loop parameters, then of the
        // free variables.
        let mut rparams = Vec::new();
        for ((p, _), yb) in params.iter().zip(ybars) {
            let t = self.e.names.ty(*p).clone();
            let init = match yb {
                Some((se, owned)) if t.rank() > 0 => {
                    let a = self.owned_adj(*p, Some(Adj::Val(*se, *owned)))?;
                    SubExp::Var(a)
                }
                Some((se, _)) => *se,
                None => self.zero(&t),
            };
            let h = format!("{}_adj", self.e.names.hint(*p));
            rparams.push((self.e.names.fresh(&h, t), init));
        }
        let mut thread_kinds = Vec::new();
        for x in &threaded {
            let a = self.adjs.remove(x);
            let (t, init, is_acc) = match a {
                Some(Adj::Acc(acc)) => (self.e.names.ty(acc).clone(), SubExp::Var(acc), true),
                other => {
                    let t = self.e.names.ty(*x).clone();
                    let init = if t.rank() > 0 {
                        SubExp::Var(self.owned_adj(*x, other)?)
                    } else {
                        match other {
                            Some(Adj::Val(se, _)) => se,
                            _ => self.zero(&t),
                        }
                    };
                    (t, init, false)
                }
            };
            let h = format!("{}_adj", self.e.names.hint(*x));
            rparams.push((self.e.names.fresh(&h, t), init));
            thread_kinds.push(is_acc);
        }
        let ii = self.e.names.fresh("i_rev", Type::Prim(PrimType::I64));
        let k = params.len();
        let (stms, result) = self.nested(|v| {
            let last = v.i64_bin(BinOp::Sub, saved.n, SubExp::i64(1));
            let i64i = v.i64_bin(BinOp::Sub, last, SubExp::Var(ii));
            let iv = if bt == PrimType::I64 {
                match i64i {
                    SubExp::Var(x) => x,
                    c => v.basic("i", BasicOp::SubExp(c)),
                }
            } else {
                let c = v.prim(PrimOp::Conv(PrimType::I64, bt), vec![i64i]);
                v.basic("i", BasicOp::SubExp(c))
            };
            let mut subst = HashMap::new();
            subst.insert(*i, iv);
            let mut pvars = Vec::new();
            for ((p, _), ck) in params.iter().zip(&saved.checkpoints) {
                let pv = v.basic(
                    v.e.names.hint(*p).to_string().as_str(),
                    BasicOp::Index {
                        array: *ck,
                        slice: vec![DimIndex::Fix(i64i)],
                    },
                );
                v.active.insert(pv);
                subst.insert(*p, pv);
                pvars.push(pv);
            }
            let saved_adjs = std::mem::take(&mut v.adjs);
            for ((x, is_acc), (rp, _)) in threaded.iter().zip(&thread_kinds).zip(&rparams[k..]) {
                let a = if *is_acc {
                    Adj::Acc(*rp)
                } else {
                    Adj::Val(SubExp::Var(*rp), true)
                };
                v.adjs.insert(*x, a);
            }
            let res_adjs: Vec<Option<(SubExp, bool)>> = rparams[..k]
                .iter()
                .map(|(rp, _)| Some((SubExp::Var(*rp), true)))
                .collect();
            v.rev_reexec(&body.stms, &body.result, &res_adjs, subst)?;
            let mut out = Vec::new();
            for pv in &pvars {
                out.push(v.adj_out(*pv)?);
            }
            for x in &threaded {
                out.push(v.adj_out(*x)?);
            }
            v.adjs = saved_adjs;
            Ok(out)
        })?;
        let out = self.e.bind(
            "loop_adj",
            Exp::Loop {
                params: rparams,
                form: LoopForm::For {
                    i: ii,
                    bound: saved.n,
                },
                body: Body { stms, result },
            },
        );
        for ((x, is_acc), a) in threaded.iter().zip(&thread_kinds).zip(&out[k..]) {
            let adj = if *is_acc {
                Adj::Acc(*a)
            } else {
                Adj::Val(SubExp::Var(*a), true)
            };
            self.adjs.insert(*x, adj);
        }
        for ((_, init), a) in params.iter().zip(&out[..k]) {
            self.add_adj_se(init, SubExp::Var(*a), true)?;
        }
        Ok(())
    }
}
