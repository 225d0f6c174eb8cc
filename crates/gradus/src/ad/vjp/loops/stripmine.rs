//! Strip-mining: a `#[stripmine(k)]` loop as `k` nested loops, so that its checkpoints take
//! less memory.
//!
//! **Takes** an active `for` loop marked `#[stripmine(k)]` (`k ≥ 2`) with an `i64` counter,
//! whose arrays keep their size.
//!
//! **Does**: rewrites it into `k` nested loops of about `n^(1/k)` iterations each
//! (`i = o·s + j`, [`Vjp::stripmine`]), each then checkpointed per iteration of its own.
//!
//! **Cost**: the checkpoints take about `k · n^(1/k)` memory instead of `n`, at the price of
//! `k + 1` executions of the body instead of two. Such loops keep no values and nest no
//! forward sweeps (`kept.rs`, `nested.rs`), since they ask for less memory.

use super::super::{R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, Body, Exp, LoopForm, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;

/// The `k` of a `#[stripmine(k)]` attribute among `attrs` (1 without one).
pub(super) fn stripmine_factor(attrs: &[String]) -> u32 {
    attrs
        .iter()
        .find_map(|a| {
            a.strip_prefix("stripmine(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|r| r.trim().parse::<u32>().ok())
        })
        .unwrap_or(1)
}

impl Vjp<'_> {
    /// `loop p for i < n do body` as `loop q for o < ⌈n/s⌉ do (loop p = q for j <
    /// min(s, n - o·s) do body[i = o·s + j])` with `s = ⌈n^(1/k)⌉`, the outer loop stripmined
    /// again with `k - 1`.
    pub(super) fn stripmine(
        &mut self,
        s: &Stm,
        params: &[(Var, SubExp)],
        i: Var,
        n: SubExp,
        body: &Body,
        k: u32,
    ) -> Stm {
        let f64t = PrimType::F64;
        let nf = self.e.prim(PrimOp::Conv(PrimType::I64, f64t), vec![n]);
        let root = self.e.prim(
            PrimOp::Bin(BinOp::Pow, f64t),
            vec![
                nf,
                SubExp::Const(crate::core::scalar::Scalar::F64(1.0 / k as f64)),
            ],
        );
        let up = self
            .e
            .prim(PrimOp::Un(crate::core::prim::UnOp::Ceil, f64t), vec![root]);
        let si = self.e.prim(PrimOp::Conv(f64t, PrimType::I64), vec![up]);
        let strip = self.e.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![si, SubExp::i64(1)],
        );
        let sm1 = self.e.i64_bin(BinOp::Sub, strip, SubExp::i64(1));
        let num = self.e.i64_bin(BinOp::Add, n, sm1);
        let nb = self
            .e
            .prim(PrimOp::Bin(BinOp::Quot, PrimType::I64), vec![num, strip]);
        let o = self.e.fresh("strip", Type::Prim(PrimType::I64));
        let j = self.e.fresh("j", Type::Prim(PrimType::I64));
        let outer_params: Vec<(Var, SubExp)> = params
            .iter()
            .map(|(p, init)| {
                let t = self.e.names.ty(*p).clone();
                (self.e.fresh("strip_state", t), *init)
            })
            .collect();
        let aux = s.aux.clone();
        let mut inner_aux = aux.clone();
        inner_aux.attrs.retain(|a| !a.starts_with("stripmine"));
        let (outer_stms, outer_res) = self
            .nested(|v| -> R<_> {
                let base = v.e.i64_bin(BinOp::Mul, SubExp::Var(o), strip);
                let left = v.e.i64_bin(BinOp::Sub, n, base);
                let cnt =
                    v.e.prim(PrimOp::Bin(BinOp::Min, PrimType::I64), vec![strip, left]);
                let (mut stms, ()) = v.nested(|v| {
                    let idx = v.e.i64_bin(BinOp::Add, base, SubExp::Var(j));
                    v.e.add_stm(Stm {
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
                        v.e.fresh("strip_out", t)
                    })
                    .collect();
                v.e.add_stm(Stm {
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
}
