//! Expressions: the type of each expression form, recorded for every node.
//!
//! Local functions and loops, which need more than a few lines, are in [`super::decl`] and
//! [`super::loops`].

use super::typeops::{arrows, bare_in_value, forget, merge_sizes};
use super::{Anon, Callee, Checker, MAX_DEPTH, PendingMatch, R, add_field, err, strip};
use crate::core::scalar::PrimType;
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::*;
use crate::types::Resolved;
use crate::types::infer::PrimSet;
use crate::types::ty::{Size, Ty};
use std::collections::{BTreeMap, HashMap, HashSet};

impl Checker {
    pub(super) fn check_exp(&mut self, e: &Exp) -> R<Ty> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(err(e.span, "expression nested too deeply"));
        }
        let t = self.infer_exp(e);
        self.depth -= 1;
        let t = t?;
        self.record_exp(e, &t);
        Ok(t)
    }

    fn infer_exp(&mut self, e: &Exp) -> R<Ty> {
        let bool_t = Ty::Prim(PrimType::Bool);
        match &e.kind {
            ExpKind::Int(l) => {
                self.pending_lits.push((e.span, e.id, l.value));
                Ok(match l.suffix {
                    Some(p) => Ty::Prim(p),
                    None => self.fresh_constrained(PrimSet::numeric()),
                })
            }
            ExpKind::Float(l) => Ok(match l.suffix {
                Some(p) => Ty::Prim(p),
                None => self.fresh_constrained(PrimSet::float()),
            }),
            ExpKind::Bool(_) => Ok(bool_t),
            ExpKind::Char(_) => Ok(self.fresh_constrained(PrimSet::integral())),
            ExpKind::String(s) => Ok(Ty::Array(
                vec![Size::Const(s.len() as i64)],
                Box::new(Ty::Prim(PrimType::U8)),
            )),
            ExpKind::Var(q) => Ok(self.check_var(e, q)?.0),
            ExpKind::Parens(i) => self.check_exp(i),
            ExpKind::Tuple(es) => {
                let mut v = Vec::new();
                for x in es {
                    v.push(self.check_exp(x)?);
                }
                Ok(Ty::tuple(v))
            }
            ExpKind::Array(es) => {
                let elem = self.fresh();
                for x in es {
                    self.check_exp_as(x, "array elements must all have the same type", &elem)?;
                }
                let lifted = self.lifted.clone();
                if self.u.require_no_fun(&elem, &lifted).is_err() {
                    return Err(Box::new(
                        Diagnostic::error(e.span, "arrays of functions are not allowed")
                            .with_label(format!("the elements have type {}", self.show(&elem))),
                    ));
                }
                let elem = self.u.resolve(&elem);
                Ok(elem.array_of(Size::Const(es.len() as i64)))
            }
            ExpKind::Record(fs) => {
                let mut m = BTreeMap::new();
                for f in fs {
                    let t = self.check_exp(&f.value)?;
                    add_field(&mut m, &f.name, f.name_span, t)?;
                }
                Ok(Ty::Record(m))
            }
            ExpKind::Project {
                target,
                field,
                field_span,
            } => {
                let t = self.check_exp(target)?;
                self.project(&t, field, *field_span)
            }
            ExpKind::Index { target, indices } => {
                let t = self.check_exp(target)?;
                self.index_type(&t, indices, e.span)
            }
            ExpKind::Apply { func, args } => {
                let (ft, callee) = match &strip(func).kind {
                    ExpKind::Var(q) => {
                        let f = strip(func);
                        let (t, c) = self.check_var(f, q)?;
                        self.record_exp(f, &t);
                        if f.id != func.id {
                            self.check_exp(func)?;
                        }
                        (t, c)
                    }
                    _ => (
                        self.check_exp(func)?,
                        Callee {
                            name: "function".into(),
                            ..Default::default()
                        },
                    ),
                };
                let args: Vec<&Exp> = args.iter().collect();
                self.apply_args(ft, &callee, func.span, &args)
            }
            ExpKind::BinOp {
                op,
                op_span,
                backtick,
                lhs,
                rhs,
            } => {
                let (ft, callee) = self.check_op(e.id, op, *op_span, *backtick)?;
                let r = self.apply_args(ft, &callee, *op_span, &[lhs, rhs])?;
                if let Some(Resolved::Builtin { operand, .. }) = self.out.resolved.get(&e.id) {
                    let operand = operand.clone();
                    if let Err(x) = self.u.require_no_fun(&operand, &self.lifted.clone()) {
                        return Err(self.mismatch(
                            lhs.span,
                            &format!("`{op}` cannot compare functions"),
                            &operand,
                            &operand,
                            x,
                        ));
                    }
                }
                Ok(r)
            }
            ExpKind::Neg(x) => {
                if let ExpKind::Int(_) = strip(x).kind {
                    self.negated_lits.insert(strip(x).id);
                }
                self.prefix_op(e, x, "-", PrimSet::numeric())
            }
            ExpKind::Not(x) => self.prefix_op(e, x, "!", PrimSet::bool_or_int()),
            ExpKind::OpSection {
                op,
                op_span,
                backtick,
            } => Ok(self.check_op(e.id, op, *op_span, *backtick)?.0),
            ExpKind::LeftSection {
                op,
                op_span,
                backtick,
                left,
            } => {
                let (ft, callee) = self.check_op(e.id, op, *op_span, *backtick)?;
                self.apply_args(ft, &callee, *op_span, &[left])
            }
            ExpKind::RightSection {
                op,
                op_span,
                backtick,
                right,
            } => {
                let (ft, callee) = self.check_op(e.id, op, *op_span, *backtick)?;
                let a = self.fresh();
                let b = self.fresh();
                let c = self.fresh();
                let want = arrows(vec![a.clone(), b.clone()], c.clone());
                self.expect(
                    *op_span,
                    &format!("`{op}` must take two arguments to be used in a section"),
                    &want,
                    &ft,
                )?;
                let rt = self.check_exp(right)?;
                let what = if callee.operator {
                    format!("the right operand of `{}` has the wrong type", callee.name)
                } else {
                    format!("argument 2 of `{}` has the wrong type", callee.name)
                };
                self.expect(right.span, &what, &b, &rt)?;
                Ok(Ty::Arrow(Box::new(a), Box::new(c)))
            }
            ExpKind::ProjectSection { fields } => {
                let a = self.fresh();
                let mut t = a.clone();
                for (f, sp) in fields {
                    t = self.project(&t, f, *sp)?;
                }
                Ok(Ty::Arrow(Box::new(a), Box::new(t)))
            }
            ExpKind::IndexSection { indices } => {
                let a = self.fresh();
                let t = self.index_type(&a, indices, e.span)?;
                Ok(Ty::Arrow(Box::new(a), Box::new(t)))
            }
            ExpKind::Lambda { params, ret, body } => {
                let mark = self.scope.len();
                self.barrier += 1;
                let r = (|| -> R<Ty> {
                    let mut ptys = Vec::new();
                    let mut ids = HashSet::new();
                    for p in params {
                        let mut bs = Vec::new();
                        ptys.push(self.check_pat(p, Anon::Fresh, &mut bs)?);
                        ids.extend(bs.iter().map(|b| b.id));
                        self.push_binders(bs);
                    }
                    let bt = self.check_exp(body)?;
                    let rt = match ret {
                        Some(te) => {
                            let rt = self.resolve_type(te, Anon::Fresh)?;
                            self.expect(
                                body.span,
                                "the body does not have the declared return type",
                                &rt,
                                &bt,
                            )?;
                            rt
                        }
                        None => bt,
                    };
                    let rt = forget(&self.u.resolve(&rt), &ids);
                    Ok(arrows(ptys, rt))
                })();
                self.barrier -= 1;
                self.scope.truncate(mark);
                r
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                let vt = self.check_exp(value)?;
                let mark = self.scope.len();
                let r = (|| -> R<Ty> {
                    let mut ids = HashSet::new();
                    let mut sps = Vec::new();
                    for s in sizes {
                        let b = self.bind_size(&s.name);
                        ids.insert(b);
                        sps.push((s.name.clone(), b));
                    }
                    if !sps.is_empty() {
                        self.out.size_params.insert(pat.id, sps.clone());
                    }
                    let mut bs = Vec::new();
                    let pt = self.check_pat(pat, Anon::Fresh, &mut bs)?;
                    self.expect(
                        value.span,
                        "the bound value does not match the pattern",
                        &pt,
                        &vt,
                    )?;
                    // `let [n] p = e` reads `n` from the value: it must be the size of an
                    // array the pattern's type annotations name.
                    let resolved = self.u.resolve(&pt);
                    for (s, (_, b)) in sizes.iter().zip(&sps) {
                        if !bare_in_value(&resolved, *b) {
                            return Err(Box::new(
                                Diagnostic::error(
                                    s.span,
                                    format!(
                                        "the size `{}` is not the size of an array in the pattern",
                                        s.name
                                    ),
                                )
                                .with_label(format!("`{}` is never bound", s.name))
                                .with_note(format!(
                                    "annotate an array in the pattern with it, as in `let [{0}] (xs: [{0}]t) = ...`",
                                    s.name
                                )),
                            ));
                        }
                    }
                    ids.extend(bs.iter().map(|b| b.id));
                    if let [b] = bs.as_slice() {
                        let roots = self.alias_roots(value);
                        if !roots.is_empty() {
                            self.aliases.insert(b.id, roots);
                        }
                    }
                    self.push_binders(bs);
                    let bt = self.check_exp(body)?;
                    Ok(forget(&self.u.resolve(&bt), &ids))
                })();
                self.scope.truncate(mark);
                r
            }
            ExpKind::LetFun {
                name,
                name_span,
                type_params,
                params,
                ret,
                value,
                body,
            } => self.check_let_fun(
                e,
                name,
                *name_span,
                type_params,
                params,
                ret.as_ref(),
                value,
                body,
            ),
            ExpKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.check_exp_as(cond, "the condition of `if` must be a `bool`", &bool_t)?;
                let saved = self.consumed.clone();
                let tt = self.check_exp(then_branch)?;
                let after_then = std::mem::replace(&mut self.consumed, saved);
                let et = self.check_exp(else_branch)?;
                self.consumed.extend(after_then);
                if let Err(x) = self.u.unify(&tt, &et) {
                    let (a, b) = self.show2(&tt, &et);
                    let mut d =
                        Diagnostic::error(else_branch.span, "`if` and `else` have different types")
                            .with_label(format!("expected {a}, found {b}"))
                            .with_secondary(then_branch.span, format!("this has type {a}"))
                            .with_note(format!("expected type {a}\n   found type {b}"));
                    if let Some(n) = x.detail() {
                        d = d.with_note(n);
                    }
                    return Err(Box::new(d));
                }
                let r = merge_sizes(&self.u.resolve(&tt), &self.u.resolve(&et));
                let lifted = self.lifted.clone();
                if self.u.require_no_fun(&r, &lifted).is_err() {
                    return Err(Box::new(
                        Diagnostic::error(e.span, "an `if` cannot return a function")
                            .with_label(format!("this has type {}", self.show(&r))),
                    ));
                }
                Ok(r)
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.check_loop(e, pat, init.as_deref(), form, body),
            ExpKind::Update {
                target,
                indices,
                value,
            } => {
                let tt = self.check_exp(target)?;
                let elem = self.index_type(&tt, indices, target.span)?;
                self.check_exp_as(
                    value,
                    "the new value does not have the type of the updated part",
                    &elem,
                )?;
                self.consume(target)?;
                Ok(self.u.resolve(&tt))
            }
            ExpKind::RecordUpdate {
                target,
                fields,
                value,
            } => {
                let tt = self.check_exp(target)?;
                let mut t = tt.clone();
                for (f, sp) in fields {
                    if let Ty::Var(_) = self.u.shallow(&t) {
                        return Err(Box::new(
                            Diagnostic::error(
                                target.span,
                                "the type of this record must be known to update it",
                            )
                            .with_label("type not known here")
                            .with_note("add a type annotation"),
                        ));
                    }
                    t = self.project(&t, f, *sp)?;
                }
                self.check_exp_as(value, "the new field value has the wrong type", &t)?;
                Ok(tt)
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => {
                let a = self.fresh_constrained(PrimSet::integral());
                self.check_exp_as(start, "range bounds must be integers of one type", &a)?;
                if let Some(s) = second {
                    self.check_exp_as(s, "range bounds must be integers of one type", &a)?;
                }
                self.check_exp_as(end, "range bounds must be integers of one type", &a)?;
                let zero = matches!(&strip(start).kind, ExpKind::Int(l) if l.value == 0);
                let unit = second
                    .as_ref()
                    .is_none_or(|s| matches!(&strip(s).kind, ExpKind::Int(l) if l.value == 1));
                let size = if zero && unit && *kind == RangeKind::UpToExclusive {
                    match self.exp_to_size(end) {
                        Some(s @ (Size::Named(..) | Size::Const(_))) => s,
                        _ => Size::Unknown,
                    }
                } else {
                    Size::Unknown
                };
                Ok(self.u.resolve(&a).array_of(size))
            }
            ExpKind::Ascribe { exp, ty } => {
                let xt = self.check_exp(exp)?;
                let t = self.resolve_type(ty, Anon::Fresh)?;
                self.expect(
                    exp.span,
                    "the expression does not have the ascribed type",
                    &t,
                    &xt,
                )?;
                Ok(self.u.resolve(&t))
            }
            ExpKind::Coerce { exp, ty } => {
                let xt = self.check_exp(exp)?;
                let t = self.resolve_type(ty, Anon::Fresh)?;
                let what = "a size coercion may change only sizes";
                self.expect_ignoring_sizes(exp.span, what, &t, &xt)?;
                Ok(self.u.resolve(&t))
            }
            ExpKind::LocalOpen {
                module,
                module_span,
                body,
            } => {
                let mut path = module.qualifiers.clone();
                path.push(module.name.clone());
                let m = self.lookup_mod_path(&path, *module_span)?;
                let mark = self.scope.len();
                self.open_module(&m, false);
                let r = self.check_exp(body);
                self.scope.truncate(mark);
                r
            }
            ExpKind::Attr { exp, .. } => self.check_exp(exp),
            ExpKind::Assert { cond, body } => {
                self.check_exp_as(cond, "the condition of `assert` must be a `bool`", &bool_t)?;
                self.check_exp(body)
            }
            ExpKind::Match { scrutinee, cases } => self.check_match(e, scrutinee, cases),
            ExpKind::Constructor { name, args } => {
                let mut payload = Vec::new();
                for a in args {
                    payload.push(self.check_exp(a)?);
                }
                // The whole sum type is known only from the context (as in Futhark): for
                // now the type is a variable that must have this constructor.
                let t = self.fresh();
                match self.u.require_constr(t.clone(), name, &payload) {
                    Ok(()) => Ok(t),
                    Err(x) => Err(self.mismatch(
                        e.span,
                        "the payload of this constructor has the wrong type",
                        &t,
                        &t,
                        x,
                    )),
                }
            }
            ExpKind::Hole => Ok(self.fresh()),
        }
    }

    /// `match scrutinee case p -> e ...`: every pattern has the scrutinee's type, every body
    /// the result type. Exhaustiveness and unreachable cases are checked when the
    /// declaration is finished ([`super::exhaustive`]), once the scrutinee's type is known.
    fn check_match(&mut self, e: &Exp, scrutinee: &Exp, cases: &[Case]) -> R<Ty> {
        let st = self.check_exp(scrutinee)?;
        let saved = self.consumed.clone();
        let mut after_all = HashMap::new();
        let mut result: Option<(Ty, Span)> = None;
        for case in cases {
            self.consumed = saved.clone();
            let mut bs = Vec::new();
            self.in_case = true;
            let pt = self.check_pat(&case.pat, Anon::Fresh, &mut bs);
            self.in_case = false;
            let pt = pt?;
            self.expect(
                case.pat.span,
                "this pattern does not match the type of the value being matched",
                &st,
                &pt,
            )?;
            let ids: HashSet<_> = bs.iter().map(|b| b.id).collect();
            let mark = self.scope.len();
            self.push_binders(bs);
            let bt = self.check_exp(&case.body);
            self.scope.truncate(mark);
            let bt = forget(&self.u.resolve(&bt?), &ids);
            after_all.extend(self.consumed.drain());
            result = match result {
                None => Some((bt, case.body.span)),
                Some((rt, first)) => {
                    if let Err(x) = self.u.unify(&rt, &bt) {
                        let (a, b) = self.show2(&rt, &bt);
                        let mut d = Diagnostic::error(
                            case.body.span,
                            "the cases of this `match` have different types",
                        )
                        .with_label(format!("expected {a}, found {b}"))
                        .with_secondary(first, format!("the first case has type {a}"))
                        .with_note(format!("expected type {a}\n   found type {b}"));
                        if let Some(n) = x.detail() {
                            d = d.with_note(n);
                        }
                        return Err(Box::new(d));
                    }
                    let merged = merge_sizes(&self.u.resolve(&rt), &self.u.resolve(&bt));
                    Some((merged, first))
                }
            };
        }
        self.consumed = saved;
        self.consumed.extend(after_all);
        let Some((r, _)) = result else {
            return Err(err(e.span, "a `match` needs at least one `case`"));
        };
        let lifted = self.lifted.clone();
        if self.u.require_no_fun(&r, &lifted).is_err() {
            return Err(Box::new(
                Diagnostic::error(e.span, "a `match` cannot return a function")
                    .with_label(format!("this has type {}", self.show(&r))),
            ));
        }
        self.pending_matches.push(PendingMatch {
            span: e.span,
            scrutinee: st,
            cases: cases.iter().map(|c| c.pat.clone()).collect(),
        });
        Ok(r)
    }

    /// `-x` or `!x` (the built-in `op`, whose operand is in `set`) at `e`.
    fn prefix_op(&mut self, e: &Exp, x: &Exp, op: &str, set: PrimSet) -> R<Ty> {
        let t = self.check_exp(x)?;
        let a = self.fresh_constrained(set);
        let what = format!("the operand of `{op}` has the wrong type");
        self.expect(x.span, &what, &a, &t)?;
        self.out.resolved.insert(
            e.id,
            Resolved::Builtin {
                op: op.into(),
                operand: a.clone(),
            },
        );
        Ok(a)
    }
}
