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
//!
//! Before that, [`Vjp::lower_loop`] rewrites two kinds of loops into `for` loops:
//!
//! * a `while` loop runs once first (a renamed copy, with an iteration counter) to count its
//!   iterations `c`, and is then differentiated as `for _ < c`;
//! * a loop marked `#[stripmine(k)]` (`k ≥ 2`) becomes `k` nested loops of about `n^(1/k)`
//!   iterations each (`i = o·s + j`), so that the checkpoints take about `k · n^(1/k)`
//!   memory at the price of `k + 1` executions of the body instead of two.

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
    /// Rewrites a `while` loop or a `#[stripmine(k)]` loop into `for` loops (emitting what
    /// that needs: the counting loop, the strip sizes); other statements are returned as
    /// they are.
    pub(super) fn lower_loop(&mut self, s: Stm) -> R<Stm> {
        let Exp::Loop { params, form, body } = &s.exp else {
            return Ok(s);
        };
        match form {
            LoopForm::While { cond } => {
                let mut subst = HashMap::new();
                let mut new_params = Vec::new();
                for (p, init) in params {
                    let t = self.e.names.ty(*p).clone();
                    let h = self.e.names.hint(*p).to_string();
                    let np = self.e.names.fresh(&h, t);
                    subst.insert(*p, np);
                    new_params.push((np, *init));
                }
                // Parameter types may mention other parameters (sizes).
                for (np, _) in &new_params {
                    let mut t = self.e.names.ty(*np).clone();
                    crate::core::renumber::map_vars_type(&mut t, &mut |v| {
                        subst.get(&v).copied().unwrap_or(v)
                    });
                    self.e.names.set_ty(*np, t);
                }
                let count = self.e.names.fresh("count", Type::Prim(PrimType::I64));
                new_params.push((count, SubExp::i64(0)));
                let (mut stms, mut result) = self.rename(&body.stms, &body.result, subst.clone());
                let (inc_stms, inc) =
                    self.nested(|v| Ok(v.i64_bin(BinOp::Add, SubExp::Var(count), SubExp::i64(1))))?;
                stms.extend(inc_stms);
                result.push(inc);
                let pat: Vec<Var> = new_params
                    .iter()
                    .map(|(p, _)| {
                        let t = self.e.names.ty(*p).clone();
                        self.e.names.fresh("counted", t)
                    })
                    .collect();
                let c = pat[pat.len() - 1];
                self.e.stms.push(Stm {
                    pat,
                    exp: Exp::Loop {
                        params: new_params,
                        form: LoopForm::While { cond: subst[cond] },
                        body: Body { stms, result },
                    },
                    aux: s.aux.clone(),
                });
                let i = self.e.names.fresh("i", Type::Prim(PrimType::I64));
                Ok(Stm {
                    pat: s.pat.clone(),
                    exp: Exp::Loop {
                        params: params.clone(),
                        form: LoopForm::For {
                            i,
                            bound: SubExp::Var(c),
                        },
                        body: body.clone(),
                    },
                    aux: s.aux.clone(),
                })
            }
            LoopForm::For { i, bound } => {
                let k = s
                    .aux
                    .attrs
                    .iter()
                    .find_map(|a| {
                        a.strip_prefix("stripmine(")
                            .and_then(|r| r.strip_suffix(')'))
                            .and_then(|r| r.trim().parse::<u32>().ok())
                    })
                    .unwrap_or(1);
                if k < 2 || self.ty(bound).elem() != PrimType::I64 {
                    return Ok(s);
                }
                Ok(self.stripmine(&s, params, *i, *bound, body, k))
            }
        }
    }

    /// `loop p for i < n do body` as `loop q for o < ⌈n/s⌉ do (loop p = q for j <
    /// min(s, n - o·s) do body[i = o·s + j])` with `s = ⌈n^(1/k)⌉`, the outer loop stripmined
    /// again with `k - 1`.
    fn stripmine(
        &mut self,
        s: &Stm,
        params: &[(Var, SubExp)],
        i: Var,
        n: SubExp,
        body: &Body,
        k: u32,
    ) -> Stm {
        let f64t = PrimType::F64;
        let nf = self.prim(PrimOp::Conv(PrimType::I64, f64t), vec![n]);
        let root = self.prim(
            PrimOp::Bin(BinOp::Pow, f64t),
            vec![nf, SubExp::Const(crate::value::Scalar::F64(1.0 / k as f64))],
        );
        let up = self.prim(PrimOp::Un(crate::core::prim::UnOp::Ceil, f64t), vec![root]);
        let si = self.prim(PrimOp::Conv(f64t, PrimType::I64), vec![up]);
        let strip = self.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![si, SubExp::i64(1)],
        );
        let sm1 = self.i64_bin(BinOp::Sub, strip, SubExp::i64(1));
        let num = self.i64_bin(BinOp::Add, n, sm1);
        let nb = self.prim(PrimOp::Bin(BinOp::Quot, PrimType::I64), vec![num, strip]);
        let o = self.e.names.fresh("strip", Type::Prim(PrimType::I64));
        let j = self.e.names.fresh("j", Type::Prim(PrimType::I64));
        let outer_params: Vec<(Var, SubExp)> = params
            .iter()
            .map(|(p, init)| {
                let t = self.e.names.ty(*p).clone();
                (self.e.names.fresh("strip_state", t), *init)
            })
            .collect();
        let aux = s.aux.clone();
        let mut inner_aux = aux.clone();
        inner_aux.attrs.retain(|a| !a.starts_with("stripmine"));
        let (outer_stms, outer_res) = self
            .nested(|v| {
                let base = v.i64_bin(BinOp::Mul, SubExp::Var(o), strip);
                let left = v.i64_bin(BinOp::Sub, n, base);
                let cnt = v.prim(PrimOp::Bin(BinOp::Min, PrimType::I64), vec![strip, left]);
                let (mut stms, ()) = v.nested(|v| {
                    let idx = v.i64_bin(BinOp::Add, base, SubExp::Var(j));
                    v.e.stms.push(Stm {
                        pat: vec![i],
                        exp: Exp::BasicOp(BasicOp::SubExp(idx)),
                        aux: aux.clone(),
                    });
                    Ok(())
                })?;
                stms.extend(body.stms.iter().cloned());
                let pat: Vec<Var> = params
                    .iter()
                    .map(|(p, _)| {
                        let t = v.e.names.ty(*p).clone();
                        v.e.names.fresh("strip_out", t)
                    })
                    .collect();
                v.e.stms.push(Stm {
                    pat: pat.clone(),
                    exp: Exp::Loop {
                        params: params
                            .iter()
                            .zip(&outer_params)
                            .map(|((p, _), (q, _))| (*p, SubExp::Var(*q)))
                            .collect(),
                        form: LoopForm::For { i: j, bound: cnt },
                        body: Body {
                            stms,
                            result: body.result.clone(),
                        },
                    },
                    aux: inner_aux.clone(),
                });
                Ok(pat.into_iter().map(SubExp::Var).collect::<Vec<_>>())
            })
            .unwrap_or_default();
        let outer_body = Body {
            stms: outer_stms,
            result: outer_res,
        };
        if k > 2 {
            return self.stripmine(s, &outer_params, o, nb, &outer_body, k - 1);
        }
        Stm {
            pat: s.pat.clone(),
            exp: Exp::Loop {
                params: outer_params,
                form: LoopForm::For { i: o, bound: nb },
                body: outer_body,
            },
            aux: inner_aux,
        }
    }

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
