//! Return sweep of SOACs: the dispatch from a SOAC statement to its rule, and what the rules
//! share.
//!
//! The rules, one file each with its derivation: `map.rs` (re-execute the lambda per row,
//! accumulators for free arrays), `reduce.rs` (`+`, `min`/`max`, any operator through two
//! exclusive scans), `scan.rs` (`+` as a reversed prefix sum, any scalar operator through a
//! linear-recurrence scan, any other operator by a loop from the right), `hist.rs` (`+`, `*`,
//! `min`/`max`, payload-carrying max/min; any other operator in `hist_general.rs`) and
//! `scatter.rs` (last write wins). Fused SOACs (`screma`) are split before reverse mode, so
//! none reaches the dispatch.
//!
//! Shared here: recognising operators ([`simple_op`], [`additive_components`]) and building
//! the pieces of adjoint code the rules have in common (on top of the builder's, see
//! [`crate::core::builder`]): a `map` over rows, a lambda of a binary operator, a lambda's body
//! on fresh names, reads and writes of single elements (also guarded by a range check, or of
//! the previous element of a scan), a reversed array.

use super::{Diagnostic, Extra, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, DimIndex, Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::core::type_of::map_param_type;
use std::collections::HashMap;

pub(super) use super::hist::hist_needs_bins;

/// The operator of a lambda `\a b -> op(a, b)` on scalars, if it is one.
pub(super) fn simple_op(lam: &Lambda) -> Option<(BinOp, PrimType)> {
    let [a, b] = lam.params.as_slice() else {
        return None;
    };
    let [stm] = lam.body.stms.as_slice() else {
        return None;
    };
    let Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(op, t), args)) = &stm.exp else {
        return None;
    };
    if lam.body.result != [SubExp::Var(stm.pat[0])] {
        return None;
    }
    let (x, y) = (SubExp::Var(*a), SubExp::Var(*b));
    let commutative = matches!(op, BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max);
    if args.as_slice() == [x, y]
        || (commutative && args.as_slice() == [y, x] && *op != BinOp::Min && *op != BinOp::Max)
    {
        Some((*op, *t))
    } else {
        None
    }
}

/// Whether a lambda on tuples of `m` values is `m` independent sums
/// `\(a1, .., am, b1, .., bm) -> (a1 + b1, .., am + bm)` (in either argument order), each
/// on scalars or element-wise on rows (`map2 (+)`, also several sums in one `map`, as `jvp`
/// makes them).
pub(super) fn additive_components(lam: &Lambda) -> bool {
    let m = lam.body.result.len();
    if m == 0 || lam.params.len() != 2 * m {
        return false;
    }
    lam.body.result.iter().enumerate().all(|(k, r)| {
        let SubExp::Var(r) = r else { return false };
        let (a, b) = (lam.params[k], lam.params[m + k]);
        matches!(elementwise_sum(&lam.body.stms, *r), Some(p) if p == (a, b) || p == (b, a))
    })
}

/// The two variables whose element-wise sum `v` is, if `stms` compute it as one (an addition,
/// or a `map` whose lambda adds two of its parameters for that result).
fn elementwise_sum(stms: &[Stm], v: Var) -> Option<(Var, Var)> {
    let st = stms.iter().find(|st| st.pat.contains(&v))?;
    match &st.exp {
        Exp::BasicOp(BasicOp::Prim(PrimOp::Bin(BinOp::Add, _), args)) => match args.as_slice() {
            [SubExp::Var(a), SubExp::Var(b)] => Some((*a, *b)),
            _ => None,
        },
        Exp::Soac(Soac::Map { lam, arrays, .. }) => {
            let j = st.pat.iter().position(|p| *p == v)?;
            let SubExp::Var(r) = lam.body.result.get(j)? else {
                return None;
            };
            let (x, y) = elementwise_sum(&lam.body.stms, *r)?;
            let ix = lam.params.iter().position(|p| *p == x)?;
            let iy = lam.params.iter().position(|p| *p == y)?;
            Some((*arrays.get(ix)?, *arrays.get(iy)?))
        }
        _ => None,
    }
}

pub(super) fn c(t: PrimType, x: f64) -> SubExp {
    SubExp::Const(Scalar::from_f64(t, x))
}

impl Vjp<'_> {
    /// `map(w, \rows -> f rows, arrays)`.
    pub(super) fn map_soac(
        &mut self,
        w: SubExp,
        arrays: Vec<Var>,
        f: impl FnOnce(&mut Self, &[Var]) -> R<Vec<SubExp>>,
    ) -> R<Vec<Var>> {
        let tys: Vec<(&str, Type)> = arrays
            .iter()
            .map(|a| ("row", map_param_type(self.e.names.ty(*a))))
            .collect();
        let lam = self.try_lambda(&tys, f)?;
        Ok(self
            .e
            .bind_exp(Exp::Soac(Soac::Map { w, lam, arrays }), "map_adj"))
    }

    /// `\a b -> a op b` on scalars of type `t`.
    pub(super) fn bin_op_lambda(&mut self, op: BinOp, t: PrimType) -> R<Lambda> {
        self.try_lambda(&[("a", Type::Prim(t)), ("b", Type::Prim(t))], |v, ps| {
            Ok(vec![v.e.prim(
                PrimOp::Bin(op, t),
                vec![ps[0].into(), ps[1].into()],
            )])
        })
    }

    /// `0 <= i < n`, as one unsigned comparison (`n` is never negative).
    pub(super) fn in_range(&mut self, i: SubExp, n: SubExp) -> SubExp {
        let iu = self
            .e
            .prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![i]);
        let nu = self
            .e
            .prim(PrimOp::Conv(PrimType::I64, PrimType::U64), vec![n]);
        self.e
            .prim(PrimOp::Cmp(CmpOp::Lt, PrimType::U64), vec![iu, nu])
    }

    /// `arr[i]`, bound to a fresh variable.
    pub(super) fn read(&mut self, arr: Var, i: SubExp, hint: &str) -> SubExp {
        SubExp::Var(self.e.index(arr, vec![DimIndex::Fix(i)], hint))
    }

    /// `arr with [i] = value`, bound to a fresh variable.
    pub(super) fn write(&mut self, arr: Var, i: SubExp, value: SubExp, hint: &str) -> SubExp {
        SubExp::Var(self.e.basic(
            BasicOp::Update {
                array: arr,
                slice: vec![DimIndex::Fix(i)],
                value,
            },
            hint,
        ))
    }

    /// Element `i` of each of `arrays`.
    pub(super) fn read_each(&mut self, arrays: &[Var], i: SubExp, hint: &str) -> Vec<SubExp> {
        arrays.iter().map(|a| self.read(*a, i, hint)).collect()
    }

    /// Element `i - 1` of each of `arrays`, or `neutral` where `i = 0`: the exclusive view of
    /// the inclusive scans `arrays`.
    pub(super) fn previous_or(
        &mut self,
        arrays: &[Var],
        neutral: &[SubExp],
        i: SubExp,
        hint: &str,
    ) -> R<Vec<Var>> {
        let first = self.e.prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I64),
            vec![i, SubExp::i64(0)],
        );
        self.try_if(
            first,
            |_| Ok(neutral.to_vec()),
            |v| {
                let prev = v.e.i64_bin(BinOp::Sub, i, SubExp::i64(1));
                Ok(v.read_each(arrays, prev, hint))
            },
            "adj",
        )
    }

    /// The body of `lam` applied to `args`, with fresh names; not emitted.
    pub(super) fn renamed_body(&mut self, lam: &Lambda, args: &[Var]) -> (Vec<Stm>, Vec<SubExp>) {
        let subst: HashMap<Var, Var> = lam
            .params
            .iter()
            .copied()
            .zip(args.iter().copied())
            .collect();
        self.rename(&lam.body.stms, &lam.body.result, subst)
    }

    /// `arr[i]` if `0 <= i < len arr`, else zero.
    pub(super) fn guarded_read(&mut self, arr: Var, i: SubExp) -> R<SubExp> {
        let t = self.e.names.ty(arr).clone();
        let n = t.dims()[0];
        let ok = self.in_range(i, n);
        let r = self.try_if(
            ok,
            |v| Ok(vec![v.read(arr, i, "read")]),
            |v| Ok(vec![v.zero(&t.row())]),
            "adj",
        )?;
        Ok(SubExp::Var(r[0]))
    }

    pub(super) fn rev_soac(
        &mut self,
        s: &Stm,
        soac: &Soac,
        extra: Extra,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        match soac {
            Soac::Map { w, lam, arrays } => {
                let kept = match extra {
                    Extra::Kept(rows) => rows,
                    _ => Vec::new(),
                };
                self.rev_map(*w, lam, arrays, &kept, ybars)
            }
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            } => self.rev_reduce(s, *w, lam, neutral, arrays, ybars),
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => self.rev_scan(s, *w, lam, neutral, arrays, ybars),
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => self.rev_hist(s, *w, dests, lam, neutral, *indices, values, extra, ybars),
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => self.rev_scatter(*w, dests, *indices, values, ybars),
            Soac::Screma { .. } => {
                Err(Diagnostic::bug("a fused SOAC reached reverse mode unsplit"))
            }
        }
    }

    /// A copy of `lam` with fresh names.
    pub(super) fn renamed_lambda(&mut self, lam: &Lambda) -> Lambda {
        let tys: Vec<Type> = lam
            .params
            .iter()
            .map(|p| self.e.names.ty(*p).clone())
            .collect();
        let params: Vec<Var> = lam
            .params
            .iter()
            .zip(tys)
            .map(|(p, t)| {
                let h = self.e.names.hint(*p).to_string();
                self.e.fresh(&h, t)
            })
            .collect();
        let (stms, result) = self.renamed_body(lam, &params);
        Lambda {
            params,
            body: crate::core::ir::Body { stms, result },
            ret: lam.ret.clone(),
        }
    }

    /// `xs` in reverse order.
    pub(super) fn reversed(&mut self, w: SubExp, x: Var) -> Var {
        let last = self.e.i64_bin(BinOp::Sub, w, SubExp::i64(1));
        let start = self.e.prim(
            PrimOp::Bin(BinOp::Max, PrimType::I64),
            vec![last, SubExp::i64(0)],
        );
        self.e.index(
            x,
            vec![DimIndex::Slice {
                start,
                count: w,
                stride: SubExp::i64(-1),
            }],
            "rev",
        )
    }
}
