//! SOACs and fused SOACs for the verifier: input widths, lambda parameters (rows, or whole
//! accumulators for `map`), neutral elements and operators, indices and destinations; returns
//! what each SOAC consumes.

use super::{R, Subst, Verifier, type_matches};
use crate::core::ir::{Lambda, ScremaForm, Soac, SubExp, Type, Var};
use crate::core::scalar::PrimType;
use crate::core::type_of::map_param_type;

impl<'a> Verifier<'a> {
    pub(super) fn expect_width(&self, arrays: &[Var], w: &SubExp, what: &str) -> R<Vec<Type>> {
        let mut tys = Vec::new();
        for a in arrays {
            let t = self.use_var(*a)?;
            if let Type::Acc { .. } = t {
                tys.push(t);
                continue;
            }
            if t.dims().first() != Some(w) {
                return self.fail(format!(
                    "{what} {} has type {}, expected outer size {}",
                    self.show(*a),
                    self.show_ty(&t),
                    self.show_se(w)
                ));
            }
            tys.push(t);
        }
        Ok(tys)
    }

    pub(super) fn soac(&mut self, soac: &'a Soac) -> R<Vec<Var>> {
        let (w, what) = match soac {
            Soac::Map { w, .. } => (w, "map"),
            Soac::Reduce { w, .. } => (w, "reduce"),
            Soac::Scan { w, .. } => (w, "scan"),
            Soac::Hist { w, .. } => (w, "hist"),
            Soac::Scatter { w, .. } => (w, "scatter"),
            Soac::Screma { w, form, .. } => (
                w,
                match &**form {
                    ScremaForm::Reduce { .. } => "redomap",
                    ScremaForm::Scan { .. } => "scanomap",
                    ScremaForm::Hist { .. } => "histomap",
                    ScremaForm::Scatter { .. } => "scattermap",
                },
            ),
        };
        self.expect_se(w, PrimType::I64, &format!("the width of {what}"))?;
        match soac {
            Soac::Map { w, lam, arrays } => {
                let tys = self.expect_width(arrays, w, "map input")?;
                let rows: Vec<Type> = tys.iter().map(map_param_type).collect();
                self.lambda(lam, &rows, "the map lambda")?;
                Ok(arrays
                    .iter()
                    .zip(&tys)
                    .filter(|(_, t)| matches!(t, Type::Acc { .. }))
                    .map(|(a, _)| *a)
                    .collect())
            }
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            }
            | Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => {
                let tys = self.expect_width(arrays, w, &format!("{what} input"))?;
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.operator(lam, neutral, &rows, what)?;
                Ok(vec![])
            }
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                self.indices(*indices, w, what)?;
                let tys = self.expect_width(values, w, "hist values")?;
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.dests(dests, &rows, what)?;
                self.operator(lam, neutral, &rows, what)?;
                Ok(dests.clone())
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => {
                self.indices(*indices, w, what)?;
                let tys = self.expect_width(values, w, "scatter values")?;
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.dests(dests, &rows, what)?;
                Ok(dests.clone())
            }
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => {
                let tys = self.expect_width(arrays, w, &format!("{what} input"))?;
                if tys.iter().any(|t| matches!(t, Type::Acc { .. })) {
                    return self.fail(format!("{what} takes an accumulator as input"));
                }
                let rows: Vec<Type> = tys.iter().map(Type::row).collect();
                self.lambda(map, &rows, &format!("the map lambda of {what}"))?;
                let values: &'a [Type] = match &**form {
                    // The values past the neutral elements are the map's own results.
                    ScremaForm::Reduce { neutral, .. } if map.ret.len() > neutral.len() => {
                        let mapped = &map.ret[neutral.len()..];
                        if mapped.iter().any(|t| matches!(t, Type::Acc { .. })) {
                            return self.fail(format!("{what} maps to an accumulator"));
                        }
                        &map.ret[..neutral.len()]
                    }
                    ScremaForm::Reduce { .. } | ScremaForm::Scan { .. } => &map.ret,
                    ScremaForm::Hist { .. } | ScremaForm::Scatter { .. } => {
                        if map.ret.first() != Some(&Type::Prim(PrimType::I64)) {
                            return self.fail(format!(
                                "the map lambda of {what} must return an i64 index first"
                            ));
                        }
                        &map.ret[1..]
                    }
                };
                if matches!(**form, ScremaForm::Hist { .. } | ScremaForm::Scatter { .. }) {
                    self.dests(form.dests(), values, what)?;
                }
                if let (
                    Some(op),
                    ScremaForm::Reduce { neutral, .. }
                    | ScremaForm::Scan { neutral, .. }
                    | ScremaForm::Hist { neutral, .. },
                ) = (form.op(), &**form)
                {
                    self.operator(op, neutral, values, what)?;
                }
                Ok(form.dests().to_vec())
            }
        }
    }

    pub(super) fn indices(&self, indices: Var, w: &SubExp, what: &str) -> R {
        let t = self.use_var(indices)?;
        let expected = Type::array(PrimType::I64, vec![*w]);
        self.expect_type(
            &expected,
            &t,
            &Subst::new(),
            &format!("the indices of {what}"),
        )
    }

    pub(super) fn dests(&self, dests: &[Var], rows: &[Type], what: &str) -> R {
        if dests.len() != rows.len() {
            return self.fail(format!(
                "{what} has {} destinations and {} value arrays",
                dests.len(),
                rows.len()
            ));
        }
        for (d, row) in dests.iter().zip(rows) {
            let t = self.use_var(*d)?;
            if t.rank() == 0 || !type_matches(row, &t.row(), &Subst::new()) {
                return self.fail(format!(
                    "{what} destination {} has type {}, expected rows of type {}",
                    self.show(*d),
                    self.show_ty(&t),
                    self.show_ty(row)
                ));
            }
        }
        Ok(())
    }

    /// An associative operator with `k` neutral elements over rows of types `rows`.
    pub(super) fn operator(
        &mut self,
        lam: &'a Lambda,
        neutral: &[SubExp],
        rows: &[Type],
        what: &str,
    ) -> R {
        let k = rows.len();
        if neutral.len() != k || lam.ret.len() != k {
            return self.fail(format!(
                "{what} has {} neutral elements and {} lambda results for {k} inputs",
                neutral.len(),
                lam.ret.len()
            ));
        }
        let ne_tys = self.use_ses(neutral)?;
        for (i, (t, r)) in ne_tys.iter().zip(rows).enumerate() {
            self.expect_type(
                r,
                t,
                &Subst::new(),
                &format!("neutral element {i} of {what}"),
            )?;
        }
        for (i, (t, r)) in lam.ret.iter().zip(rows).enumerate() {
            self.expect_type(
                r,
                t,
                &Subst::new(),
                &format!("result type {i} of the {what} lambda"),
            )?;
        }
        let params: Vec<Type> = rows.iter().chain(rows).cloned().collect();
        self.lambda(lam, &params, &format!("the {what} lambda"))
    }
}
