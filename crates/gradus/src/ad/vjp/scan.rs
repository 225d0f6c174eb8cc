//! Return sweep of `scan` `yᵢ = y(i-1) ⊕ xᵢ` (`y(-1) = ne`) (SC'22, rule for `scan`).
//!
//! Forward sweep: the `scan` is emitted as it is; the rule reads its results `ys`, which are in
//! scope.
//!
//! Return sweep, with `ȳ` the adjoint of the results:
//! * **`+`** (also independent sums on tuples or rows): `yᵢ = ne + Σ_{j≤i} xⱼ`, so
//!   `x̄ⱼ = Σ_{i≥j} ȳᵢ`, the reversed prefix sum of `ȳ` (a `+` scan of the reversed array,
//!   reversed back), and the neutral element gets `Σ ȳ`. `O(w)`.
//! * **any other operator on `k` scalars**: `yᵢ` feeds `y(i+1)` and the result `i`, so the total
//!   adjoints satisfy `cᵢ = ȳᵢ + Mᵢ c(i+1)` with `Mᵢ = (∂⊕/∂a)ᵀ` at `(yᵢ, x(i+1))` (a `k×k`
//!   matrix). That linear recurrence is solved in parallel by a scan, from the right, over the
//!   affine maps `c ↦ Mᵢ c + ȳᵢ`, whose composition is associative; then
//!   `x̄ᵢ = (∂⊕/∂b)ᵀ cᵢ` at `(y(i-1), xᵢ)`. The Jacobians come from the forward-mode rules
//!   (`jvp.rs`), so integers stay exact. Work `O(w·k³)` (composing two maps multiplies `k×k`
//!   matrices), a constant for a given operator. Operators on arrays or mixed types are reported
//!   as a limitation.

use super::soac::{additive_components, c};
use super::{Diagnostic, R, Vjp, limitation};
use crate::core::builder::HasBuilder;
use crate::core::ir::{Exp, Lambda, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::value::PrimType;
use std::collections::HashMap;

impl Vjp<'_> {
    pub(super) fn rev_scan(
        &mut self,
        s: &Stm,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        // `+`, also independent sums on tuples or rows (a scalar `+` is one such sum): a
        // reversed `+` scan of each result's adjoint.
        if additive_components(lam) {
            for ((x, ne), ybar) in arrays.iter().zip(neutral).zip(ybars) {
                let Some((SubExp::Var(ybar), _)) = ybar else {
                    continue;
                };
                let row = self.e.names.ty(*ybar).row();
                let rv = self.reversed(w, *ybar);
                let l = self.try_lambda(&[("a", row.clone()), ("b", row.clone())], |v, ps| {
                    Ok(vec![v.add_values(ps[0].into(), ps[1].into())?])
                })?;
                let zero = self.zero(&row);
                let sc = self.e.bind1(
                    Exp::Soac(Soac::Scan {
                        w,
                        lam: l,
                        neutral: vec![zero],
                        arrays: vec![rv],
                    }),
                    "scan_adj",
                );
                let xb = self.reversed(w, sc);
                if self.is_active(ne) {
                    let sum = self.sum_outer(*ybar)?;
                    self.add_adj_se(ne, sum, false)?;
                }
                self.add_adj(*x, SubExp::Var(xb), true)?;
            }
            return Ok(());
        }
        let k = arrays.len();
        let ts: Vec<PrimType> = arrays.iter().map(|a| self.e.names.ty(*a).elem()).collect();
        if arrays.iter().any(|a| self.e.names.ty(*a).rank() != 1)
            || ts.iter().any(|t| *t != ts[0] || *t == PrimType::Bool)
        {
            return Err(limitation(
                s.aux.span,
                "reverse-mode AD of a scan whose operator combines arrays or mixed types",
            ));
        }
        let t = ts[0];
        // Total adjoints: c(i) = ȳ(i) + M(i) c(i+1) with M(i)[r][q] = ∂⊕_q/∂a_r at
        // (y(i), x(i+1)); then x̄(i)[r] = Σ_q ∂⊕_q/∂b_r at (y(i-1), x(i)) · c(i)[q].
        let ys: Vec<Var> = s.pat[..k].to_vec();
        let i = self.e.iota(w, "iota");
        let last = self.e.i64_bin(BinOp::Sub, w, SubExp::i64(1));
        let mut inputs = vec![i];
        inputs.extend_from_slice(arrays);
        let parts = self.map_soac(w, inputs, |v, ps| {
            let i = SubExp::Var(ps[0]);
            let xi: Vec<SubExp> = ps[1..].iter().map(|x| SubExp::Var(*x)).collect();
            let is_last =
                v.e.prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I64), vec![i, last]);
            let m = v.try_if(
                is_last,
                |_| Ok(vec![c(t, 0.0); k * k]),
                |v| {
                    let next = v.e.i64_bin(BinOp::Add, i, SubExp::i64(1));
                    let yi = v.read_each(&ys, i, "at");
                    let xn = v.read_each(arrays, next, "at");
                    Ok(v.op_jacobian(lam, &yi, &xn, 0)?.concat())
                },
                "adj",
            )?;
            let prev = v.previous_or(&ys, neutral, i, "y")?;
            let prev: Vec<SubExp> = prev.into_iter().map(SubExp::Var).collect();
            let d = v.op_jacobian(lam, &prev, &xi, 1)?.concat();
            let mut out: Vec<SubExp> = m.into_iter().map(SubExp::Var).collect();
            out.extend(d);
            Ok(out)
        })?;
        let (ms, ds) = parts.split_at(k * k);
        let mut scan_in: Vec<Var> = ms.iter().map(|m| self.reversed(w, *m)).collect();
        for yb in ybars.iter().take(k) {
            let y = match yb {
                Some((SubExp::Var(y), _)) => *y,
                _ => {
                    let z = self.zero(&Type::array(t, vec![w]));
                    match z {
                        SubExp::Var(z) => z,
                        _ => return Err(Diagnostic::bug("zero array that is a constant")),
                    }
                }
            };
            scan_in.push(self.reversed(w, y));
        }
        let n = k * k + k;
        let ptys: Vec<(&str, Type)> = (0..2 * n).map(|_| ("m", Type::Prim(t))).collect();
        // (M_g, b_g) then (M_f, b_f): c ↦ M_f (M_g c + b_g) + b_f.
        let comp = self.try_lambda(&ptys, |v, ps| {
            let (g, f) = ps.split_at(n);
            let mul = |v: &mut Self, a: Var, b: Var| -> SubExp {
                v.e.prim(PrimOp::Bin(BinOp::Mul, t), vec![a.into(), b.into()])
            };
            let mut out = Vec::new();
            for r in 0..k {
                for q in 0..k {
                    let mut acc = mul(v, f[r * k], g[q]);
                    for l in 1..k {
                        let m = mul(v, f[r * k + l], g[l * k + q]);
                        acc = v.e.prim(PrimOp::Bin(BinOp::Add, t), vec![acc, m]);
                    }
                    out.push(acc);
                }
            }
            for r in 0..k {
                let mut acc = SubExp::Var(f[k * k + r]);
                for l in 0..k {
                    let m = mul(v, f[r * k + l], g[k * k + l]);
                    acc = v.e.prim(PrimOp::Bin(BinOp::Add, t), vec![acc, m]);
                }
                out.push(acc);
            }
            Ok(out)
        })?;
        let mut ne = Vec::new();
        for r in 0..k {
            for q in 0..k {
                ne.push(c(t, if r == q { 1.0 } else { 0.0 }));
            }
        }
        ne.extend(std::iter::repeat_n(c(t, 0.0), k));
        let sc = self.e.bind_exp(
            Exp::Soac(Soac::Scan {
                w,
                lam: comp,
                neutral: ne,
                arrays: scan_in,
            }),
            "lin_scan",
        );
        let cs: Vec<Var> = sc[k * k..].iter().map(|a| self.reversed(w, *a)).collect();
        let mut inputs = ds.to_vec();
        inputs.extend(cs);
        let xb = self.map_soac(w, inputs, |v, ps| {
            let (d, cc) = ps.split_at(k * k);
            let mut out = Vec::new();
            for r in 0..k {
                let mut acc = c(t, 0.0);
                for q in 0..k {
                    let m = v.e.prim(
                        PrimOp::Bin(BinOp::Mul, t),
                        vec![d[r * k + q].into(), cc[q].into()],
                    );
                    acc = v.e.prim(PrimOp::Bin(BinOp::Add, t), vec![acc, m]);
                }
                out.push(acc);
            }
            Ok(out)
        })?;
        for (x, b) in arrays.iter().zip(xb) {
            self.add_adj(*x, SubExp::Var(b), true)?;
        }
        Ok(())
    }

    /// The Jacobian of the operator `lam` at `(a, b)` with respect to `a` (`which = 0`) or
    /// `b`: `jac[r][q] = ∂⊕_q/∂(operand)_r`, by forward mode (one tangent per `r`).
    fn op_jacobian(
        &mut self,
        lam: &Lambda,
        a: &[SubExp],
        b: &[SubExp],
        which: usize,
    ) -> R<Vec<Vec<SubExp>>> {
        let mut args = Vec::new();
        for se in a.iter().chain(b) {
            args.push(self.e.as_var(*se, "arg"));
        }
        let k = a.len();
        let mut jac = Vec::new();
        for r in 0..k {
            let (stms, res) = self.renamed_body(lam, &args);
            let input = args[which * k + r];
            let t = self.e.names.ty(input).elem();
            let seeds: HashMap<Var, SubExp> = [(input, c(t, 1.0))].into_iter().collect();
            let d = crate::ad::jvp::differentiate(&mut self.e.names, &stms, seeds)?;
            self.e.add_stms(d.stms);
            jac.push(
                res.iter()
                    .map(|r| match r {
                        SubExp::Var(r) => d.tangents.get(r).copied().unwrap_or(c(t, 0.0)),
                        SubExp::Const(_) => c(t, 0.0),
                    })
                    .collect(),
            );
        }
        Ok(jac)
    }
}
