//! Accumulators and AD statements for the verifier: `with_acc` (accumulator types built from
//! its inputs, its lambda run once inside an accumulator scope), `update_acc` (indices and
//! values against the accumulator's shape and element types) and `jvp`/`vjp` (seeds against
//! the parameters or results).

use super::{R, Verifier};
use crate::core::ir::{AdMode, Lambda, Stm, SubExp, Type, Var};
use crate::core::scalar::PrimType;

impl<'a> Verifier<'a> {
    /// Checks a `with_acc`; returns its input arrays, which it consumes.
    pub(super) fn with_acc(
        &mut self,
        stm: &'a Stm,
        inputs: &'a [(Vec<SubExp>, Vec<Var>)],
        lam: &'a Lambda,
    ) -> R<Vec<Var>> {
        let mut consumed = Vec::new();
        let mut acc_tys = Vec::new();
        for (shape, arrays) in inputs {
            for d in shape {
                self.check_dim(d, "a with_acc shape")?;
            }
            let mut elems = Vec::new();
            for a in arrays {
                let t = self.use_var(*a)?;
                if !t.dims().starts_with(shape) {
                    return self.fail(format!(
                        "with_acc input {} of type {} does not have shape [{}]",
                        self.show(*a),
                        self.show_ty(&t),
                        shape
                            .iter()
                            .map(|d| self.show_se(d))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                elems.push(t.elem());
                consumed.push(*a);
            }
            acc_tys.push(Type::Acc {
                shape: shape.clone(),
                elems,
            });
        }
        if lam.params.len() != inputs.len() {
            return self.fail(format!(
                "the with_acc lambda takes {} parameters, expected one accumulator per input ({})",
                lam.params.len(),
                inputs.len()
            ));
        }
        self.acc_depth += 1;
        self.lambda_runs_once = true;
        let r = self.lambda(lam, &acc_tys, "the with_acc lambda");
        self.acc_depth -= 1;
        r?;
        if lam.ret.len() < inputs.len() || !lam.ret.iter().zip(&acc_tys).all(|(a, b)| a == b) {
            return self
                .fail("the with_acc lambda must return its accumulators first, with their types");
        }
        self.expect_pattern(stm)?;
        Ok(consumed)
    }

    /// Checks a `jvp` or `vjp` statement; it consumes nothing.
    pub(super) fn ad(
        &mut self,
        stm: &'a Stm,
        mode: AdMode,
        lam: &'a Lambda,
        args: &[SubExp],
        seeds: &[SubExp],
    ) -> R<Vec<Var>> {
        let what = format!("the lambda of {}", mode.name());
        let arg_tys = self.use_ses(args)?;
        // The differentiated function runs once, in place of the statement.
        self.lambda_runs_once = true;
        if mode.is_custom() {
            return self.custom_derivative(stm, mode, lam, arg_tys, seeds);
        }
        self.lambda_sizes_inside = true;
        self.lambda(lam, &arg_tys, &what)?;
        // The existential sizes of the results: variables of the lambda its result types
        // mention, which the statement binds with its pattern.
        let inside: std::collections::HashSet<Var> = lam
            .params
            .iter()
            .chain(lam.body.stms.iter().flat_map(|s| &s.pat))
            .copied()
            .collect();
        self.statement_sizes = lam
            .ret
            .iter()
            .flat_map(|t| t.dims().iter().filter_map(|d| d.as_var()))
            .filter(|v| inside.contains(v))
            .collect();
        let seed_tys = self.use_ses(seeds)?;
        let (expected, of) = match mode {
            AdMode::Jvp => (arg_tys, "parameter"),
            _ => (lam.ret.clone(), "result"),
        };
        if seed_tys.len() != expected.len() {
            return self.fail(format!(
                "{} has {} seeds, expected one per {of} ({})",
                mode.name(),
                seed_tys.len(),
                expected.len()
            ));
        }
        // Sizes of seeds are checked when the AD pass expands the statement.
        for (k, (s, e)) in seed_tys.iter().zip(&expected).enumerate() {
            if s.elem() != e.elem() || s.rank() != e.rank() {
                return self.fail(format!(
                    "seed #{k} of {} has type {}, expected the type of its {of}, {}",
                    mode.name(),
                    self.show_ty(s),
                    self.show_ty(e)
                ));
            }
        }
        self.expect_pattern(stm)?;
        Ok(Vec::new())
    }

    /// Checks a `with_vjp` or `with_jvp` statement (see [`crate::core::ir::Exp::Ad`]): the
    /// lambda takes the arguments, then one derivative input per result (`with_vjp`) or per
    /// argument (`with_jvp`) of the same types, and returns the results followed by one
    /// derivative per argument (`with_vjp`) or per result (`with_jvp`).
    fn custom_derivative(
        &mut self,
        stm: &'a Stm,
        mode: AdMode,
        lam: &'a Lambda,
        arg_tys: Vec<Type>,
        seeds: &[SubExp],
    ) -> R<Vec<Var>> {
        let n = arg_tys.len();
        let n_results = mode.primal_results(lam, n);
        let (inputs, outputs) = match mode {
            AdMode::WithVjp => (lam.ret[..n_results].to_vec(), arg_tys.clone()),
            _ => (arg_tys.clone(), lam.ret[..n_results].to_vec()),
        };
        if !seeds.is_empty()
            || lam.params.len() != n + inputs.len()
            || lam.ret.len() != n_results + outputs.len()
        {
            return self.fail(format!(
                "{} takes {} parameters and returns {} results, expected {} and {}, and no seeds",
                mode.name(),
                lam.params.len(),
                lam.ret.len(),
                n + inputs.len(),
                n_results + outputs.len()
            ));
        }
        for (k, (d, e)) in lam.ret[n_results..].iter().zip(&outputs).enumerate() {
            if d.elem() != e.elem() || d.rank() != e.rank() {
                return self.fail(format!(
                    "derivative #{k} of {} has type {}, expected {}",
                    mode.name(),
                    self.show_ty(d),
                    self.show_ty(e)
                ));
            }
        }
        let mut param_tys = arg_tys;
        param_tys.extend(inputs);
        let what = format!("the lambda of {}", mode.name());
        self.lambda(lam, &param_tys, &what)?;
        self.expect_pattern(stm)?;
        Ok(Vec::new())
    }

    /// Checks an `update_acc` of `acc` (which it consumes).
    pub(super) fn update_acc(&self, acc: Var, indices: &[SubExp], values: &[SubExp]) -> R {
        let t = self.use_var(acc)?;
        let Type::Acc { shape, elems } = &t else {
            return self.fail(format!(
                "update_acc of {}, of type {}, which is not an accumulator",
                self.show(acc),
                self.show_ty(&t)
            ));
        };
        if indices.len() != shape.len() {
            return self.fail(format!(
                "update_acc with {} indices into an accumulator of rank {}",
                indices.len(),
                shape.len()
            ));
        }
        for i in indices {
            self.expect_se(i, PrimType::I64, "the update_acc index")?;
        }
        if values.len() != elems.len() {
            return self.fail(format!(
                "update_acc with {} values into {} arrays",
                values.len(),
                elems.len()
            ));
        }
        for (v, e) in values.iter().zip(elems) {
            let vt = self.use_se(v)?;
            if vt.elem() != *e || matches!(vt, Type::Acc { .. }) {
                return self.fail(format!(
                    "update_acc value {} has type {}, expected element type {e}",
                    self.show_se(v),
                    self.show_ty(&vt)
                ));
            }
        }
        Ok(())
    }
}
