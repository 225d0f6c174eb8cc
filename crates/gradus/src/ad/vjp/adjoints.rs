//! The arithmetic of adjoints: zeros, sums, owned copies for updates in place, additions
//! into slices and accumulators, and the adjoints a scope returns.
//!
//! **Guarantees**: an adjoint that is updated in place is owned (no other adjoint or primal
//! value shares it: [`Vjp::owned_adj`] copies one that is shared); adding to the adjoint of
//! an inactive variable does nothing; an adjoint that is an accumulator is added into, never
//! read.

use super::{Adj, R, Vjp};
use crate::ad::jvp::zero_of;
use crate::core::builder::HasBuilder;
use crate::core::ir::{BasicOp, DimIndex, Exp, Soac, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;
use crate::diag::Diagnostic;

impl Vjp<'_> {
    /// `seed` checked to have the shape of `r` (a run-time size error otherwise).
    pub(super) fn coerce_to(&mut self, seed: SubExp, r: Var) -> SubExp {
        let rt = self.e.names.ty(r).clone();
        let SubExp::Var(s) = seed else { return seed };
        let st = self.e.names.ty(s).clone();
        if st.dims() == rt.dims() || rt.rank() == 0 {
            return seed;
        }
        let type_text = format!("{}{}", "[]".repeat(rt.rank()), rt.elem().name());
        SubExp::Var(self.e.basic(
            BasicOp::Coerce {
                array: s,
                shape: rt.dims().to_vec(),
                type_text,
            },
            "seed",
        ))
    }

    /// The zero of `x`'s type, materialised.
    pub(super) fn zero(&mut self, t: &Type) -> SubExp {
        zero_of(&mut self.e, t)
    }

    /// The number of elements of an array type, as an `i64` sub-expression.
    pub(super) fn num_elems(&mut self, t: &Type) -> SubExp {
        let mut n = SubExp::i64(1);
        for d in t.dims().to_vec() {
            n = self.e.i64_bin(BinOp::Mul, n, d);
        }
        n
    }

    /// `a + b` for values of the same type (element-wise for arrays, `||` for booleans).
    pub(super) fn add_values(&mut self, a: SubExp, b: SubExp) -> R<SubExp> {
        let t = self.e.ty(&a);
        let p = t.elem();
        let op = if p == PrimType::Bool {
            PrimOp::Bin(BinOp::Or, p)
        } else {
            PrimOp::Bin(BinOp::Add, p)
        };
        if t.rank() == 0 {
            return Ok(self.e.prim(op, vec![a, b]));
        }
        let (SubExp::Var(av), SubExp::Var(bv)) = (a, b) else {
            return Err(Diagnostic::bug("array adjoint that is a constant"));
        };
        let n = self.num_elems(&t);
        let flat = |v: &mut Self, x: Var| -> Var {
            if t.rank() == 1 {
                x
            } else {
                v.e.reshape(x.into(), vec![n], "flat_adj")
            }
        };
        let fa = flat(self, av);
        let fb = flat(self, bv);
        let lam = self.try_lambda(&[("a", Type::Prim(p)), ("b", Type::Prim(p))], |v, ps| {
            Ok(vec![v.e.prim(op, vec![ps[0].into(), ps[1].into()])])
        })?;
        let s = self.e.bind1(
            Exp::Soac(Soac::Map {
                w: n,
                lam,
                arrays: vec![fa, fb],
            }),
            "sum_adj",
        );
        if t.rank() == 1 {
            return Ok(SubExp::Var(s));
        }
        Ok(SubExp::Var(self.e.reshape(
            s.into(),
            t.dims().to_vec(),
            "sum_adj",
        )))
    }

    /// Adds `c` to the adjoint of `x` (if `x` is active). `owned`: `c` may be updated in
    /// place.
    pub(super) fn add_adj(&mut self, x: Var, c: SubExp, owned: bool) -> R<()> {
        if !self.active.contains(&x) {
            return Ok(());
        }
        let new = match self.adjs.remove(&x) {
            None => Adj::Val(c, owned),
            Some(Adj::Val(a, _)) => Adj::Val(self.add_values(a, c)?, true),
            Some(Adj::Acc(acc)) => Adj::Acc(self.acc_add(acc, &[], c)?),
        };
        self.adjs.insert(x, new);
        Ok(())
    }

    /// Adds a sub-expression's adjoint contribution (constants have none).
    pub(super) fn add_adj_se(&mut self, x: &SubExp, c: SubExp, owned: bool) -> R<()> {
        match x {
            SubExp::Var(x) => self.add_adj(*x, c, owned),
            SubExp::Const(_) => Ok(()),
        }
    }

    /// The adjoint of array `x` as an owned value (zeros if it has none, a copy if shared).
    pub(super) fn owned_adj(&mut self, x: Var, a: Option<Adj>) -> R<Var> {
        Ok(match a {
            Some(Adj::Val(SubExp::Var(a), true)) => a,
            Some(Adj::Val(SubExp::Var(a), false)) => self.e.basic(BasicOp::Copy(a), "adj"),
            None => {
                let t = self.e.names.ty(x).clone();
                let z = self.zero(&t);
                self.e.as_var(z, "adj")
            }
            _ => return Err(Diagnostic::bug("owned_adj of an accumulator or constant")),
        })
    }

    /// Adds `c` to the adjoint of `x[slice]`.
    pub(super) fn add_adj_at(&mut self, x: Var, slice: &[DimIndex], c: SubExp) -> R<()> {
        if !self.active.contains(&x) {
            return Ok(());
        }
        let cur = self.adjs.remove(&x);
        let new = match cur {
            Some(Adj::Acc(acc)) => Adj::Acc(self.acc_add(acc, slice, c)?),
            other => {
                let a = self.owned_adj(x, other)?;
                let old = self.e.index(a, slice.to_vec(), "adj_elem");
                let new = self.add_values(SubExp::Var(old), c)?;
                let a2 = self.e.basic(
                    BasicOp::Update {
                        array: a,
                        slice: slice.to_vec(),
                        value: new,
                    },
                    "adj",
                );
                Adj::Val(SubExp::Var(a2), true)
            }
        };
        self.adjs.insert(x, new);
        Ok(())
    }

    /// Adds `c` into positions `slice` of accumulator `acc`; returns the updated accumulator.
    pub(super) fn acc_add(&mut self, acc: Var, slice: &[DimIndex], c: SubExp) -> R<Var> {
        let mut prefix = Vec::new();
        for (k, d) in slice.iter().enumerate() {
            match *d {
                DimIndex::Fix(i) => prefix.push(i),
                DimIndex::Slice {
                    start,
                    count,
                    stride,
                } => {
                    let rest = slice[k + 1..].to_vec();
                    let SubExp::Var(cv) = c else {
                        return Err(Diagnostic::bug("slice adjoint that is a constant"));
                    };
                    let row_t = self.e.names.ty(cv).row();
                    let acc_t = self.e.names.ty(acc).clone();
                    let iota = self.e.iota(count, "iota");
                    let lam = self.try_lambda(
                        &[
                            ("j", Type::Prim(PrimType::I64)),
                            ("row", row_t),
                            ("acc", acc_t),
                        ],
                        |v, ps| {
                            let off = v.e.i64_bin(BinOp::Mul, ps[0].into(), stride);
                            let idx = v.e.i64_bin(BinOp::Add, start, off);
                            let mut s: Vec<DimIndex> =
                                prefix.iter().map(|i| DimIndex::Fix(*i)).collect();
                            s.push(DimIndex::Fix(idx));
                            s.extend(rest);
                            Ok(vec![SubExp::Var(v.acc_add(ps[2], &s, ps[1].into())?)])
                        },
                    )?;
                    return Ok(self.e.bind1(
                        Exp::Soac(Soac::Map {
                            w: count,
                            lam,
                            arrays: vec![iota, cv, acc],
                        }),
                        "acc",
                    ));
                }
            }
        }
        self.acc_add_whole(acc, prefix, c)
    }

    /// Adds `c` (a scalar, or an array whose rows are added one by one) into accumulator
    /// `acc` at index `prefix`; returns the updated accumulator.
    pub(super) fn acc_add_whole(&mut self, acc: Var, prefix: Vec<SubExp>, c: SubExp) -> R<Var> {
        let ct = self.e.ty(&c);
        if ct.rank() == 0 {
            return Ok(self.e.basic(
                BasicOp::UpdateAcc {
                    acc,
                    indices: prefix,
                    values: vec![c],
                },
                "acc",
            ));
        }
        let SubExp::Var(cv) = c else {
            return Err(Diagnostic::bug("array adjoint that is a constant"));
        };
        let n = ct.dims()[0];
        let acc_t = self.e.names.ty(acc).clone();
        let iota = self.e.iota(n, "iota");
        let lam = self.try_lambda(
            &[
                ("j", Type::Prim(PrimType::I64)),
                ("row", ct.row()),
                ("acc", acc_t),
            ],
            |v, ps| {
                let mut p = prefix.clone();
                p.push(ps[0].into());
                Ok(vec![SubExp::Var(v.acc_add_whole(
                    ps[2],
                    p,
                    ps[1].into(),
                )?)])
            },
        )?;
        Ok(self.e.bind1(
            Exp::Soac(Soac::Map {
                w: n,
                lam,
                arrays: vec![iota, cv, acc],
            }),
            "acc",
        ))
    }

    /// The final adjoint of `x` as a value (zero if none; the accumulator itself if it is
    /// one), for a scope's results.
    pub(super) fn adj_out(&mut self, x: Var) -> R<SubExp> {
        Ok(match self.adjs.get(&x).copied() {
            Some(Adj::Val(se, _)) => se,
            Some(Adj::Acc(a)) => SubExp::Var(a),
            None => {
                let t = self.e.names.ty(x).clone();
                self.zero(&t)
            }
        })
    }

    /// The type a scope returns for `x`'s adjoint.
    pub(super) fn adj_type(&self, x: Var) -> Type {
        match self.adjs.get(&x) {
            Some(Adj::Acc(a)) => self.e.names.ty(*a).clone(),
            _ => self.e.names.ty(x).clone(),
        }
    }
}
