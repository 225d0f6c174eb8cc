//! Reverse-mode AD (vjp) on core IR, by redundant execution instead of a tape (Schenck,
//! Rønning, Henriksen and Oancea, SC'22; DESIGN.md "Automatic differentiation").
//!
//! [`differentiate`] takes statements in which AD operators are already expanded (the body of
//! the differentiated function, built on fresh parameters), the parameters, the body's
//! results and one adjoint seed per result. It returns the statements followed by the return
//! sweep, and the adjoint of every parameter (`∂⟨seeds, results⟩/∂param`).
//!
//! # Structure
//!
//! A scope (a body) is differentiated in two sweeps:
//!
//! * the **forward sweep** emits the scope's statements. Most are emitted as they are; a
//!   `for` loop also stores its loop-carried values once per iteration (checkpoints, see
//!   `loops/`), and a `hist` whose adjoint needs the original bins keeps a copy of them. A
//!   statement that consumes an array which another statement of the scope will need in the
//!   return sweep consumes a copy instead. Each emitted statement is recorded on a list
//!   (the "tape" of the scope: statements and the names of what they saved, never values).
//! * the **return sweep** walks that list backwards and, for each statement, adds the
//!   adjoints of its operands from the adjoints of its results (`basic.rs`, `loops/`,
//!   `soac.rs`). Adjoints of variables used several times are summed.
//!
//! A nested scope (an `if` branch, a loop iteration, a `map` lambda) is differentiated when the
//! return sweep reaches its statement: its forward sweep is **re-executed** (on a copy of its
//! statements with fresh names, since every variable is bound once) right before its return
//! sweep, so every value the adjoint code needs is in scope without storing it. Perfectly
//! nested scopes therefore cost no extra re-execution; a statement at loop depth `d` runs at
//! most `d + 1` extra times, a constant for a given program, and only sequential loops store
//! anything. A `for` loop directly inside another is the exception that saves one of those
//! runs: the outer loop's forward sweep runs the inner loop's forward sweep and keeps its
//! checkpoints per outer iteration (`loops/nested.rs`), so the inner body runs twice in
//! all.
//!
//! # Adjoints
//!
//! Only *active* variables (those that depend on a parameter, found while sweeping forward)
//! get adjoints; an absent adjoint is zero. An adjoint is a value of the variable's type, or,
//! inside a `map` lambda for an array bound outside the lambda, an accumulator (`with_acc`,
//! `update_acc`) that the lambda adds into (so `map (\i -> xs[i] * 2) is` costs `O(w)` for its
//! adjoint, not `O(w · n)`). Array adjoints are updated in place (`xs_adj with [i] = ..`) when
//! the adjoint is owned, i.e. no other adjoint or primal value shares it. Integer leaves get
//! integer adjoints and booleans boolean ones (LANGUAGE.md 10.3); `iota n` gives `n` the sum of
//! the result's adjoint.
//!
//! Code that itself uses accumulators (the output of an inner `vjp`, differentiated again)
//! is handled in `accs.rs`: accumulators get no adjoints of their own; each reads the adjoint
//! of the arrays its `with_acc` returns.
//!
//! Naming scheme (STYLE.md item 10): the adjoint of `x` is named `x_adj`; Rust code says
//! `adjoint_of`/`add_adj`.

mod accs;
mod basic;
mod custom;
mod hist;
mod hist_general;
mod loops;
mod map;
mod reduce;
mod scan;
mod scatter;
mod soac;

use super::jvp::zero_of;
use crate::core::builder::{Builder, CseScope, HasBuilder};
use crate::core::ir::{Aux, BasicOp, Body, DimIndex, Exp, NameTable, Soac, Stm, SubExp, Type, Var};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::renumber::{body_binders, map_vars_body, map_vars_type};
use crate::core::screma::{is_fused, unfuse_stms};
use crate::core::subst::rename_in_stm;
use crate::core::visit::{stm_consumed_vars, stm_free_vars};
use crate::diag::{Diagnostic, Span};
use crate::value::PrimType;
use std::collections::{HashMap, HashSet};

type R<T> = Result<T, Diagnostic>;

/// The result of [`differentiate`].
pub struct Differentiated {
    /// The primal statements (forward sweep) followed by the return sweep.
    pub stms: Vec<Stm>,
    /// The adjoint of each parameter, in order.
    pub adjoints: Vec<SubExp>,
}

/// Differentiates `stms` in reverse mode: `params` are the variables to differentiate with
/// respect to, `results` the values whose adjoints are `seeds` (one per result; a seed whose
/// shape differs from its result's is checked at run time).
pub fn differentiate(
    names: &mut NameTable,
    stms: &[Stm],
    params: &[Var],
    results: &[SubExp],
    seeds: &[SubExp],
) -> R<Differentiated> {
    let stms = &unfuse_stms(names, stms, &is_fused);
    let mut v = Vjp::new(names);
    v.active.extend(params.iter().copied());
    let tape = v.fwd_scope(stms, false)?;
    v.e.set_aux(Aux::default());
    for (r, s) in results.iter().zip(seeds) {
        if let SubExp::Var(r) = r {
            let s = v.coerce_to(*s, *r);
            v.add_adj(*r, s, false)?;
        }
    }
    v.rev_scope(tape)?;
    v.e.set_aux(Aux::default());
    let adjoints = params.iter().map(|p| v.adj_out(*p)).collect::<R<_>>()?;
    Ok(Differentiated {
        stms: v.e.take_stms(),
        adjoints,
    })
}

/// The adjoint of a variable.
#[derive(Clone, Copy, Debug)]
enum Adj {
    /// A value of the variable's type; `owned` when nothing else refers to it, so it may be
    /// updated in place.
    Val(SubExp, bool),
    /// An accumulator into the adjoint array (inside a `map` lambda, for arrays bound outside
    /// it).
    Acc(Var),
}

/// What the forward sweep saved for a statement's return sweep.
enum Extra {
    None,
    /// A `for` loop's checkpoints (see `loops/checkpoint.rs`).
    Loop(loops::Saved),
    /// A reverse-computed `for` loop's flag and remaining checkpoints (see `loops/revcomp/`).
    RevComp(loops::revcomp::Saved),
    /// Copies of arrays the statement consumed (the bins of a `hist`).
    Copies(Vec<Var>),
    /// For a `map`, the rows of values of its lambda that an enclosing loop's forward sweep
    /// kept: positions in the lambda's body, and the rows (see `loops/kept.rs`).
    Kept(Vec<(usize, Var)>),
}

/// A statement of the forward sweep and what it saved.
struct Entry {
    stm: Stm,
    extra: Extra,
}

struct Vjp<'a> {
    e: Builder<'a>,
    adjs: HashMap<Var, Adj>,
    active: HashSet<Var>,
    /// Variables bound outside a re-executed scope that it may consume nevertheless (the
    /// restored in-place arrays of a loop iteration, which belong to that iteration).
    consumable: HashSet<Var>,
    /// For the next re-executed scope: the statements (by position) that are loops whose
    /// results and checkpoints the enclosing loop's forward sweep kept (`loops/nested.rs`, `loops/kept.rs`).
    preset: HashMap<usize, loops::Preset>,
    /// Accumulators that exist only in the primal code being differentiated (see `accs.rs`).
    virt: HashSet<Var>,
    /// For a virtual accumulator, the one it derives from.
    acc_link: HashMap<Var, Var>,
    /// For a virtual `with_acc` parameter, the adjoints of the arrays it accumulates into.
    acc_bars: HashMap<Var, Vec<Var>>,
}

impl<'a> HasBuilder<'a> for Vjp<'a> {
    fn builder(&mut self) -> &mut Builder<'a> {
        &mut self.e
    }
}

fn limitation(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::limitation(span, msg.into())
}

impl<'a> Vjp<'a> {
    fn new(names: &'a mut NameTable) -> Self {
        Vjp {
            e: Builder::new(names)
                .with_cse(CseScope::Fresh)
                .marking_derivatives(),
            adjs: HashMap::new(),
            active: HashSet::new(),
            consumable: HashSet::new(),
            preset: HashMap::new(),
            virt: HashSet::new(),
            acc_link: HashMap::new(),
            acc_bars: HashMap::new(),
        }
    }

    fn is_active(&self, se: &SubExp) -> bool {
        matches!(se, SubExp::Var(v) if self.active.contains(v))
    }

    /// `seed` checked to have the shape of `r` (a run-time size error otherwise).
    fn coerce_to(&mut self, seed: SubExp, r: Var) -> SubExp {
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

    // ------------------------------------------------------------------ adjoints

    /// The zero of `x`'s type, materialised.
    fn zero(&mut self, t: &Type) -> SubExp {
        zero_of(&mut self.e, t)
    }

    /// The number of elements of an array type, as an `i64` sub-expression.
    fn num_elems(&mut self, t: &Type) -> SubExp {
        let mut n = SubExp::i64(1);
        for d in t.dims().to_vec() {
            n = self.e.i64_bin(BinOp::Mul, n, d);
        }
        n
    }

    /// `a + b` for values of the same type (element-wise for arrays, `||` for booleans).
    fn add_values(&mut self, a: SubExp, b: SubExp) -> R<SubExp> {
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
    fn add_adj(&mut self, x: Var, c: SubExp, owned: bool) -> R<()> {
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
    fn add_adj_se(&mut self, x: &SubExp, c: SubExp, owned: bool) -> R<()> {
        match x {
            SubExp::Var(x) => self.add_adj(*x, c, owned),
            SubExp::Const(_) => Ok(()),
        }
    }

    /// The adjoint of array `x` as an owned value (zeros if it has none, a copy if shared).
    fn owned_adj(&mut self, x: Var, a: Option<Adj>) -> R<Var> {
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
    fn add_adj_at(&mut self, x: Var, slice: &[DimIndex], c: SubExp) -> R<()> {
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
    fn acc_add(&mut self, acc: Var, slice: &[DimIndex], c: SubExp) -> R<Var> {
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

    fn acc_add_whole(&mut self, acc: Var, prefix: Vec<SubExp>, c: SubExp) -> R<Var> {
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
    fn adj_out(&mut self, x: Var) -> R<SubExp> {
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
    fn adj_type(&self, x: Var) -> Type {
        match self.adjs.get(&x) {
            Some(Adj::Acc(a)) => self.e.names.ty(*a).clone(),
            _ => self.e.names.ty(x).clone(),
        }
    }

    // ------------------------------------------------------------------ sweeps

    /// The forward sweep of a scope. `reexec`: the scope is a re-execution (a copy of a
    /// nested body), so it must not consume anything bound outside it.
    fn fwd_scope(&mut self, stms: &[Stm], reexec: bool) -> R<Vec<Entry>> {
        // Which statements need which primal values in the return sweep: the free variables
        // of statements with bodies (they are re-executed or their rules read their inputs),
        // and loop results (restored from in the return sweep). Basic operations need no
        // primal arrays.
        let mut needs: Vec<HashSet<Var>> = Vec::with_capacity(stms.len());
        let mut bound = HashSet::new();
        for s in stms {
            bound.extend(s.pat.iter().copied());
            let mut n = HashSet::new();
            if !matches!(s.exp, Exp::BasicOp(_)) {
                n.extend(stm_free_vars(s));
            }
            if matches!(s.exp, Exp::Loop { .. }) {
                n.extend(s.pat.iter().copied());
            }
            needs.push(n);
        }
        let mut preset = std::mem::take(&mut self.preset);
        let consumed_here: HashSet<Var> = if preset.is_empty() {
            HashSet::new()
        } else {
            stms.iter().flat_map(stm_consumed_vars).collect()
        };
        let mut tape = Vec::new();
        for (k, s0) in stms.iter().enumerate() {
            self.e.set_aux(s0.aux.clone());
            if let Some(p) = preset.remove(&k) {
                // What the enclosing loop's forward sweep kept: emitted from there, and on
                // the tape as it was.
                let extra = self.fwd_preset(s0, p, &consumed_here);
                let active = stm_free_vars(s0).iter().any(|v| self.active.contains(v));
                let extra = if active {
                    self.active.extend(s0.pat.iter().copied());
                    extra
                } else {
                    Extra::None
                };
                tape.push(Entry {
                    stm: s0.clone(),
                    extra,
                });
                continue;
            }
            let mut s = s0.clone();
            // The return sweep of an active `if` re-executes a branch, which reads what the
            // branches consume: the forward sweep's `if` consumes copies, the one on the tape
            // the originals.
            let reexecuted_if = matches!(s0.exp, Exp::If { .. })
                && stm_free_vars(s0).iter().any(|v| self.active.contains(v));
            let mut tape_s = None;
            for x in stm_consumed_vars(&s) {
                let needed = needs
                    .iter()
                    .enumerate()
                    .any(|(j, n)| j != k && n.contains(&x));
                if needed
                    || reexecuted_if
                    || (reexec && !bound.contains(&x) && !self.consumable.contains(&x))
                {
                    let t = self.e.names.ty(x).clone();
                    if matches!(t, Type::Acc { .. }) {
                        continue;
                    }
                    let h = format!("{}_copy", self.e.names.hint(x));
                    let c = self.e.fresh(&h, t);
                    let copy = Stm {
                        pat: vec![c],
                        exp: Exp::BasicOp(BasicOp::Copy(x)),
                        aux: s.aux.clone(),
                    };
                    self.e.add_stm(copy.clone());
                    if self.active.contains(&x) {
                        self.active.insert(c);
                    }
                    tape.push(Entry {
                        stm: copy,
                        extra: Extra::None,
                    });
                    if reexecuted_if && tape_s.is_none() {
                        tape_s = Some(s0.clone());
                    }
                    rename_in_stm(&mut s, x, c);
                }
            }
            if matches!(s.exp, Exp::Loop { .. }) && self.touches_virtual(&s) {
                // Checkpointed like any loop, without the accumulators it passes on.
                s = self.drop_acc_params(&s);
            }
            let active = stm_free_vars(&s).iter().any(|v| self.active.contains(v));
            if self.touches_virtual(&s) && !matches!(s.exp, Exp::Loop { .. }) {
                // Only the primal part runs; the return sweep sees the whole statement.
                if let Some(stripped) = self.strip_virtual(&s)? {
                    self.e.add_stm(stripped);
                }
                if active {
                    self.active.extend(s.pat.iter().copied());
                }
                tape.push(Entry {
                    stm: tape_s.unwrap_or(s),
                    extra: Extra::None,
                });
                continue;
            }
            if active {
                s = self.lower_loop(s)?;
            }
            let extra = if active {
                self.active.extend(s.pat.iter().copied());
                self.fwd_stm(&s)?
            } else {
                self.push_primal(&s)?;
                Extra::None
            };
            tape.push(Entry {
                stm: tape_s.unwrap_or(s),
                extra,
            });
        }
        Ok(tape)
    }

    /// The forward sweep of one active statement.
    fn fwd_stm(&mut self, s: &Stm) -> R<Extra> {
        match &s.exp {
            Exp::Loop { .. } => self.fwd_loop(s),
            Exp::Soac(Soac::Hist { dests, lam, .. }) if soac::hist_needs_bins(lam) => {
                // The bins' original values decide which contribution wins (min, max) or
                // enter the product; the hist consumes them, so keep a copy.
                let copies = dests
                    .iter()
                    .map(|d| self.e.basic(BasicOp::Copy(*d), "bins"))
                    .collect();
                self.e.add_stm(s.clone());
                Ok(Extra::Copies(copies))
            }
            Exp::Apply { .. } => Err(limitation(
                s.aux.span,
                "reverse-mode AD of function calls (functions are inlined before AD)",
            )),
            Exp::Ad { mode, .. } if mode.is_custom() => {
                self.fwd_custom(s)?;
                Ok(Extra::None)
            }
            _ => {
                self.push_primal(s)?;
                Ok(Extra::None)
            }
        }
    }

    /// The return sweep of a scope.
    fn rev_scope(&mut self, tape: Vec<Entry>) -> R<()> {
        for entry in tape.into_iter().rev() {
            self.e.set_aux(entry.stm.aux.clone());
            self.rev_stm(entry)?;
        }
        Ok(())
    }

    fn rev_stm(&mut self, entry: Entry) -> R<()> {
        let s = &entry.stm;
        let ybars: Vec<Option<Adj>> = s.pat.iter().map(|v| self.adjs.remove(v)).collect();
        if (ybars.iter().all(Option::is_none) && !self.touches_virtual(s))
            || !s.pat.iter().any(|v| self.active.contains(v))
        {
            return Ok(());
        }
        let mut vals = Vec::new();
        for a in ybars {
            vals.push(match a {
                None => None,
                Some(Adj::Val(se, owned)) => Some((se, owned)),
                Some(Adj::Acc(_)) => {
                    return Err(limitation(
                        s.aux.span,
                        "reverse-mode AD of code that uses accumulators",
                    ));
                }
            });
        }
        match &s.exp {
            Exp::BasicOp(BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            }) => self.rev_update_acc(*acc, indices, values),
            Exp::WithAcc { inputs, lam } => self.rev_with_acc(s, inputs, lam, &vals),
            Exp::Ad { mode, .. } if mode.is_custom() => self.rev_custom(s, &vals),
            Exp::Ad { mode, .. } => Err(Diagnostic::bug(format!(
                "vjp reached an unexpanded {} (the AD pass expands innermost first)",
                mode.name()
            ))),
            Exp::BasicOp(op) => self.rev_basic(s, op, &vals),
            Exp::If {
                cond,
                then_body,
                else_body,
                ..
            } => self.rev_if(s, *cond, then_body, else_body, &vals),
            Exp::Loop { .. } => self.rev_loop(s, entry.extra, &vals),
            Exp::Soac(soac) => self.rev_soac(s, soac, entry.extra, &vals),
            Exp::Apply { .. } => Err(limitation(s.aux.span, "reverse-mode AD of this statement")),
        }
    }

    /// A copy of `stms` and `result` with fresh names for everything they bind, and `subst`
    /// applied to their free variables.
    fn rename(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        mut subst: HashMap<Var, Var>,
    ) -> (Vec<Stm>, Vec<SubExp>) {
        let mut body = Body {
            stms: stms.to_vec(),
            result: result.to_vec(),
        };
        let mut binders = Vec::new();
        body_binders(&body, &mut binders);
        for b in &binders {
            let t = self.e.names.ty(*b).clone();
            let h = self.e.names.hint(*b).to_string();
            let nb = self.e.fresh(&h, t);
            subst.insert(*b, nb);
        }
        for b in &binders {
            let nb = subst[b];
            let mut t = self.e.names.ty(nb).clone();
            map_vars_type(&mut t, &mut |v| subst.get(&v).copied().unwrap_or(v));
            self.e.names.set_ty(nb, t);
        }
        map_vars_body(&mut body, &mut |v| subst.get(&v).copied().unwrap_or(v));
        (body.stms, body.result)
    }

    /// Re-executes `stms` (renamed with `subst`) and runs their return sweep with `res_adjs`
    /// as the adjoints of `result`. The caller has set up the adjoints of free variables;
    /// returns the renamed results.
    fn rev_reexec(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        res_adjs: &[Option<(SubExp, bool)>],
        subst: HashMap<Var, Var>,
    ) -> R<Vec<SubExp>> {
        self.rev_reexec_with(stms, result, res_adjs, subst, false)
    }

    /// [`Self::rev_reexec`]; with `coerce`, an array adjoint whose type names other sizes
    /// than its result's (equal at run time: the sizes a loop's return sweep carries) is
    /// first coerced to the result's shape.
    fn rev_reexec_with(
        &mut self,
        stms: &[Stm],
        result: &[SubExp],
        res_adjs: &[Option<(SubExp, bool)>],
        subst: HashMap<Var, Var>,
        coerce: bool,
    ) -> R<Vec<SubExp>> {
        let (stms, result) = self.rename(stms, result, subst);
        let tape = self.fwd_scope(&stms, true)?;
        self.consumable.clear();
        let aux = self.e.aux().clone();
        for (r, a) in result.iter().zip(res_adjs) {
            if let (SubExp::Var(r), Some((a, owned))) = (r, a) {
                let a = if coerce { self.coerce_to(*a, *r) } else { *a };
                self.add_adj(*r, a, *owned)?;
            }
        }
        self.rev_scope(tape)?;
        self.e.set_aux(aux);
        Ok(result)
    }

    /// The active free variables of a statement, except accumulators.
    fn active_free(&self, s: &Stm) -> Vec<Var> {
        stm_free_vars(s)
            .into_iter()
            .filter(|v| self.active.contains(v) && !matches!(self.e.names.ty(*v), Type::Acc { .. }))
            .collect()
    }

    fn rev_if(
        &mut self,
        s: &Stm,
        cond: SubExp,
        then_body: &Body,
        else_body: &Body,
        ybars: &[Option<(SubExp, bool)>],
    ) -> R<()> {
        // Pattern adjoints are shared by both branches: neither may update them in place.
        let ybars: Vec<Option<(SubExp, bool)>> =
            ybars.iter().map(|y| y.map(|(se, _)| (se, false))).collect();
        self.branch_adjoints(s, cond, |v, then| {
            let b = if then { then_body } else { else_body };
            v.rev_reexec(&b.stms, &b.result, &ybars, HashMap::new())
                .map(|_| ())
        })
    }

    /// A return sweep that branches on `cond`: `sweep(v, true)` emits the then-branch's and
    /// `sweep(v, false)` the else-branch's, each starting from the current adjoints of the
    /// statement's active free variables; the `if` returns their updated adjoints, which
    /// become the adjoints after it.
    fn branch_adjoints(
        &mut self,
        s: &Stm,
        cond: SubExp,
        mut sweep: impl FnMut(&mut Self, bool) -> R<()>,
    ) -> R<()> {
        let threaded = self.active_free(s);
        let inits: Vec<Option<Adj>> = threaded.iter().map(|x| self.adjs.remove(x)).collect();
        let mut bodies = Vec::new();
        let mut ret = Vec::new();
        for then in [true, false] {
            let (stms, result) = self.nested(|v| {
                let saved = std::mem::take(&mut v.adjs);
                for (x, a) in threaded.iter().zip(&inits) {
                    if let Some(a) = a {
                        v.adjs.insert(*x, *a);
                    }
                }
                sweep(v, then)?;
                let mut out = Vec::new();
                for x in &threaded {
                    out.push(v.adj_out(*x)?);
                }
                if ret.is_empty() {
                    ret = threaded.iter().map(|x| v.adj_type(*x)).collect();
                }
                v.adjs = saved;
                Ok(out)
            })?;
            bodies.push(Body { stms, result });
        }
        let else_b = bodies.pop().unwrap_or_default();
        let then_b = bodies.pop().unwrap_or_default();
        let pat: Vec<Var> = threaded
            .iter()
            .zip(&ret)
            .map(|(x, t)| {
                let h = format!("{}_adj", self.e.names.hint(*x));
                self.e.fresh(&h, t.clone())
            })
            .collect();
        self.e.add_stm(Stm {
            pat: pat.clone(),
            exp: Exp::If {
                cond,
                then_body: then_b,
                else_body: else_b,
                ret: ret.clone(),
            },
            aux: s.aux.clone(),
        });
        for ((x, p), t) in threaded.iter().zip(pat).zip(&ret) {
            let a = if matches!(t, Type::Acc { .. }) {
                Adj::Acc(p)
            } else {
                Adj::Val(SubExp::Var(p), true)
            };
            self.adjs.insert(*x, a);
        }
        Ok(())
    }
}
