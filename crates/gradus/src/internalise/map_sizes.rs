//! Maps whose function returns arrays of sizes it computes itself (`map (\xs -> filter p xs)
//! xss`): the size of the result's rows is not known before the map runs.
//!
//! **Takes** a map lambda, just built, whose result types name sizes that depend on its
//! parameters (sizes computed inside it from outer values alone are moved in front of the map
//! by `sizes.rs` instead). **Guarantees** a lambda whose result types name only sizes
//! bound before the map, as the IR requires: a *size map* first runs a copy of the lambda
//! (renamed; dead-code elimination later keeps only what the sizes need) that returns those
//! sizes, one `[w]i64` per size; the size of the result's rows is the largest of them (0 for
//! an empty map); and the lambda coerces each result to it, with the usual check, so a row of
//! another size stops the program with the same error the interpreter gives ("value of shape
//! … cannot match shape of type …").

use super::value::IVal;
use super::{Internaliser, i64c};
use crate::core::ir::{Body, Lambda, Soac, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::core::scalar::PrimType;
use std::collections::{HashMap, HashSet};

impl Internaliser<'_> {
    /// `body`'s results with the sizes that depend on the lambda's parameters (`params`,
    /// `body`) replaced by sizes bound before the map of width `w` over `arrays`; `res` rebuilt over
    /// the new results. Unchanged where no result type names such a size.
    pub(super) fn outer_result_sizes(
        &mut self,
        w: SubExp,
        arrays: &[Var],
        params: &[Var],
        body: Body,
        res: IVal,
    ) -> super::R<(IVal, Body)> {
        let inside = Self::row_dependent(params, &body);
        let mut sizes: Vec<Var> = Vec::new();
        for r in &body.result {
            for d in self.em.dims(r) {
                if let Some(k) = d.as_var().filter(|k| inside.contains(k))
                    && !sizes.contains(&k)
                {
                    sizes.push(k);
                }
            }
        }
        if sizes.is_empty() {
            return Ok((res, body));
        }
        let counts = self.size_map(w, arrays, params, &body, &sizes);
        let outer: HashMap<Var, SubExp> = sizes
            .iter()
            .zip(counts)
            .map(|(k, c)| (*k, self.largest(w, c)))
            .collect();
        let (res, coerced) = self.body_of(|s| {
            let leaves: Vec<SubExp> = body
                .result
                .iter()
                .map(|r| {
                    let dims = s.em.dims(r);
                    let shape: Vec<SubExp> = dims
                        .iter()
                        .map(|d| {
                            d.as_var()
                                .and_then(|k| outer.get(&k).copied())
                                .unwrap_or(*d)
                        })
                        .collect();
                    let SubExp::Var(v) = r else { return *r };
                    if shape == dims {
                        return *r;
                    }
                    s.checked_coerce(*v, shape)
                })
                .collect();
            Ok(res.rebuild(&mut leaves.into_iter()))
        })?;
        let mut stms = body.stms;
        stms.extend(coerced.stms);
        Ok((
            res,
            Body {
                stms,
                result: coerced.result,
            },
        ))
    }

    /// A map of a renamed copy of the lambda (`params`, `body`) that returns `sizes`: one
    /// `[w]i64` array per size.
    fn size_map(
        &mut self,
        w: SubExp,
        arrays: &[Var],
        params: &[Var],
        body: &Body,
        sizes: &[Var],
    ) -> Vec<SubExp> {
        let mut binders = params.to_vec();
        body_binders(body, &mut binders);
        // Fresh names first, then their types renamed: a type may name a size bound later in
        // printed order (a `jvp`'s pattern names the existential sizes bound inside it).
        let mut renaming: HashMap<Var, Var> = HashMap::new();
        for &v in &binders {
            let t = self.em.names.ty(v).clone();
            let hint = self.em.names.hint(v).to_string();
            let fresh = self.em.fresh(&hint, t);
            renaming.insert(v, fresh);
        }
        for &v in &binders {
            let mut t = self.em.names.ty(v).clone();
            map_vars_type(&mut t, &mut |x| renaming.get(&x).copied().unwrap_or(x));
            self.em.names.set_ty(renaming[&v], t);
        }
        let rename = |v: &Var| renaming.get(v).copied().unwrap_or(*v);
        let mut copy = body.clone();
        map_vars_body(&mut copy, &mut |x| rename(&x));
        copy.result = sizes.iter().map(|k| SubExp::Var(rename(k))).collect();
        let i64t = Type::Prim(PrimType::I64);
        let lam = Lambda {
            params: params.iter().map(rename).collect(),
            body: copy,
            ret: vec![i64t.clone(); sizes.len()],
        };
        let types = vec![i64t.array_of(w); sizes.len()];
        let arrays = arrays.to_vec();
        self.em.soac(Soac::Map { w, lam, arrays }, types, "sizes")
    }

    /// The variables of a lambda (`params`, `body`) whose values depend on its parameters: the
    /// parameters and the patterns of the top-level statements that read them, directly or
    /// through one another (with every binding nested in such a statement). Sizes computed from
    /// outer values alone are moved before the map later (`sizes.rs`) and are not among them.
    fn row_dependent(params: &[Var], body: &Body) -> HashSet<Var> {
        let mut dep: HashSet<Var> = params.iter().copied().collect();
        for stm in &body.stms {
            let reads = crate::core::visit::stm_free_vars(stm);
            if reads.iter().any(|v| dep.contains(v)) {
                dep.extend(stm.pat.iter().copied());
                let mut nested = Vec::new();
                crate::core::renumber::exp_binders(&stm.exp, &mut nested);
                dep.extend(nested);
            }
        }
        dep
    }

    /// The largest element of the `[w]i64` array `counts`, 0 when it is empty.
    fn largest(&mut self, w: SubExp, counts: SubExp) -> SubExp {
        let i64t = Type::Prim(PrimType::I64);
        let params = [("a", i64t.clone()), ("b", i64t.clone())];
        let lam = self.em.lambda(&params, |b, ps| {
            let max = PrimOp::Bin(BinOp::Max, PrimType::I64);
            vec![b.prim(max, vec![SubExp::Var(ps[0]), SubExp::Var(ps[1])])]
        });
        let arrays = vec![self.em.as_var(counts, "sizes")];
        let reduce = Soac::Reduce {
            w,
            lam,
            neutral: vec![i64c(0)],
            arrays,
            commutative: true,
        };
        self.em.soac(reduce, vec![i64t], "size")[0]
    }
}
