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
//!   matrices), a constant for a given operator.
//! * **any operator on arrays or mixed types** (vectorised operators, matrix products, a
//!   segmented scan's (flag, value) pairs): the same recurrence run as a loop from the right,
//!   one `vjp` of the operator per element, `cᵢ = ȳᵢ + ā(i+1)` splitting into `x̄ᵢ` and the
//!   adjoint `āᵢ` of `y(i-1)`. Work: a constant times the primal's; memory: the adjoints
//!   only; sequential (`rev_scan_sequential`).

use super::soac::{additive_components, c, simple_op};
use super::{Diagnostic, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{Exp, Lambda, LoopForm, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use crate::core::scalar::{PrimType, Scalar};
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
            return self.rev_scan_sequential(w, lam, neutral, arrays, &s.pat[..k], ybars);
        }
        let t = ts[0];
        let ys: Vec<Var> = s.pat[..k].to_vec();
        if let (Some((BinOp::Mul, _)), [x], [ne], [Some((SubExp::Var(ybar), _))]) =
            (simple_op(lam), arrays, neutral, ybars)
            && t.is_float()
            && !self.is_active(ne)
        {
            if !self.active.contains(x) {
                return Ok(());
            }
            let xb = self.rev_scan_product(w, lam, neutral, *x, ys[0], *ybar, ybars, t)?;
            return self.add_adj(*x, SubExp::Var(xb), true);
        }
        let xb = self.scan_linear_adjoint(w, lam, neutral, arrays, &ys, ybars, t)?;
        for (x, b) in arrays.iter().zip(xb) {
            self.add_adj(*x, SubExp::Var(b), true)?;
        }
        Ok(())
    }

    /// The adjoint of `scan (*) ne xs` on floats with a constant `ne`, from its results `ys`:
    /// `x̄ᵢ = Σ_{j≥i} ȳⱼ ∂yⱼ/∂xᵢ = (Σ_{j≥i} ȳⱼ yⱼ) / xᵢ` when no element is zero, a reversed
    /// `+` scan and two maps (about 4 operations per element against the primal's one). A
    /// zero element makes every later result zero, so the last result tells: when it is zero
    /// (or NaN), the exact linear-recurrence rule runs instead.
    #[allow(clippy::too_many_arguments)]
    fn rev_scan_product(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        x: Var,
        y: Var,
        ybar: Var,
        ybars: &[Option<(SubExp, bool)>],
        t: PrimType,
    ) -> R<Var> {
        let nonempty = self.e.prim(
            PrimOp::Cmp(CmpOp::Lt, PrimType::I64),
            vec![SubExp::i64(0), w],
        );
        let risky = self.try_if(
            nonempty,
            |v| {
                let last = v.e.i64_bin(BinOp::Sub, w, SubExp::i64(1));
                let yl = v.read(y, last, "last");
                let zero = v.e.prim(PrimOp::Cmp(CmpOp::Eq, t), vec![yl, c(t, 0.0)]);
                let nan = v.e.prim(PrimOp::Un(UnOp::IsNan, t), vec![yl]);
                Ok(vec![v.e.prim(
                    PrimOp::Bin(BinOp::Or, PrimType::Bool),
                    vec![zero, nan],
                )])
            },
            |_| Ok(vec![SubExp::Const(Scalar::Bool(false))]),
            "has_zero",
        )?;
        let xb = self.try_if(
            risky[0].into(),
            |v| {
                let xb = v.scan_linear_adjoint(w, lam, neutral, &[x], &[y], ybars, t)?;
                Ok(vec![SubExp::Var(xb[0])])
            },
            |v| {
                let weighted = v.map_soac(w, vec![ybar, y], |v, ps| {
                    Ok(vec![v.e.prim(
                        PrimOp::Bin(BinOp::Mul, t),
                        vec![ps[0].into(), ps[1].into()],
                    )])
                })?[0];
                let rev = v.reversed(w, weighted);
                let add = v.bin_op_lambda(BinOp::Add, t)?;
                let sums = v.e.bind1(
                    Exp::Soac(Soac::Scan {
                        w,
                        lam: add,
                        neutral: vec![c(t, 0.0)],
                        arrays: vec![rev],
                    }),
                    "suffix_sums",
                );
                let suffix = v.reversed(w, sums);
                let xb = v.map_soac(w, vec![suffix, x], |v, ps| {
                    Ok(vec![v.e.prim(
                        PrimOp::Bin(BinOp::Div, t),
                        vec![ps[0].into(), ps[1].into()],
                    )])
                })?[0];
                Ok(vec![SubExp::Var(xb)])
            },
            "scan_adj",
        )?;
        Ok(xb[0])
    }

    /// The adjoint of a scan of `k` scalars by the linear recurrence (module documentation).
    #[allow(clippy::too_many_arguments)]
    fn scan_linear_adjoint(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ys: &[Var],
        ybars: &[Option<(SubExp, bool)>],
        t: PrimType,
    ) -> R<Vec<Var>> {
        let k = arrays.len();
        // Total adjoints: c(i) = ȳ(i) + M(i) c(i+1) with M(i)[r][q] = ∂⊕_q/∂a_r at
        // (y(i), x(i+1)); then x̄(i)[r] = Σ_q ∂⊕_q/∂b_r at (y(i-1), x(i)) · c(i)[q].
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
                    let yi = v.read_each(ys, i, "at");
                    let xn = v.read_each(arrays, next, "at");
                    Ok(v.op_jacobian(lam, &yi, &xn, 0)?.concat())
                },
                "adj",
            )?;
            let prev = v.previous_or(ys, neutral, i, "y")?;
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
        let comp = self.affine_compose_lambda(k, t)?;
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
        Ok(xb)
    }

    /// The operator of the scan of affine maps `c ↦ M c + b` on `k` values of type `t`, each
    /// given as `M` (row by row) then `b`: composition, `(M_g, b_g)` then `(M_f, b_f)` giving
    /// `c ↦ M_f (M_g c + b_g) + b_f`.
    fn affine_compose_lambda(&mut self, k: usize, t: PrimType) -> R<Lambda> {
        let n = k * k + k;
        let ptys: Vec<(&str, Type)> = (0..2 * n).map(|_| ("m", Type::Prim(t))).collect();
        self.try_lambda(&ptys, |v, ps| {
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
        })
    }

    /// The general rule, for operators on arrays or on tuples of mixed types, whose
    /// Jacobians a scan of affine maps cannot compose cheaply: one loop from the right, where
    /// the adjoint `cᵢ = ȳᵢ + āᵢ₊₁` of `yᵢ` splits, by one `vjp` of the operator at
    /// `(y(i-1), xᵢ)`, into `x̄ᵢ` and the part `āᵢ` that flows on to `y(i-1)` (to the
    /// neutral element after the first). Work: one application of the operator and of its
    /// `vjp` per element; memory: the adjoints only. Sequential.
    fn rev_scan_sequential(
        &mut self,
        w: SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        arrays: &[Var],
        ys: &[Var],
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        self.no_active_captures(lam)?;
        let k = arrays.len();
        let mut ybar = Vec::with_capacity(k);
        for (y, yb) in ys.iter().zip(ybars) {
            ybar.push(match yb {
                Some((SubExp::Var(a), _)) => *a,
                _ => {
                    let t = self.e.names.ty(*y).clone();
                    let z = self.zero(&t);
                    self.e.as_var(z, "adj")
                }
            });
        }
        let mut params = Vec::new();
        let mut carries = Vec::new();
        for y in ys {
            let row = self.e.names.ty(*y).row();
            let z = self.zero(&row);
            let p = self.e.fresh("carry_adj", row);
            carries.push(p);
            params.push((p, z));
        }
        let mut xbars = Vec::new();
        for x in arrays {
            let t = self.e.names.ty(*x).clone();
            let z = self.zero(&t);
            let p = self.e.fresh("scan_adj", t);
            xbars.push(p);
            params.push((p, z));
        }
        let q = self.e.fresh("q", Type::Prim(PrimType::I64));
        let body = self.try_body(|v| {
            let last = v.e.i64_bin(BinOp::Sub, w, SubExp::i64(1));
            let i = v.e.i64_bin(BinOp::Sub, last, q.into());
            let mut cs = Vec::with_capacity(k);
            for (yb, carry) in ybar.iter().zip(&carries) {
                let here = v.read(*yb, i, "yb");
                cs.push(v.add_values(here, SubExp::Var(*carry))?);
            }
            let prev = v.previous_or(ys, neutral, i, "y")?;
            let mut x = Vec::with_capacity(k);
            for a in arrays {
                let xi = v.read(*a, i, "x");
                x.push(v.e.as_var(xi, "x"));
            }
            let (stms, res) = v.nested(|v| {
                let mut args = prev.clone();
                args.extend(&x);
                let (stms, result) = v.renamed_body(lam, &args);
                v.e.add_stms(stms);
                Ok(result)
            })?;
            let mut wrt = prev.clone();
            wrt.extend(&x);
            let adj = v.adjoints_of(&stms, &res, &cs, &wrt)?;
            let mut out = adj[..k].to_vec();
            for (xb, a) in xbars.iter().zip(&adj[k..]) {
                out.push(v.write(*xb, i, *a, "scan_adj"));
            }
            Ok(out)
        })?;
        let tys: Vec<Type> = params
            .iter()
            .map(|(p, _)| self.e.names.ty(*p).clone())
            .collect();
        let out = self.e.bind(
            Exp::Loop {
                params,
                form: LoopForm::For { i: q, bound: w },
                body,
            },
            tys,
            "scan_adj",
        );
        for (ne, a) in neutral.iter().zip(&out[..k]) {
            self.add_adj_se(ne, SubExp::Var(*a), false)?;
        }
        for (x, a) in arrays.iter().zip(&out[k..]) {
            self.add_adj(*x, SubExp::Var(*a), true)?;
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
