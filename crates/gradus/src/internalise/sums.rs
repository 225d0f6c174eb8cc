//! Sum types: constructor applications, `match`, and equality of sums.
//!
//! Takes constructor expressions and `match` expressions whose types the checker has made
//! concrete (after substituting the type parameters of the function being inlined). A value
//! of a sum type is internalised as a *record* of a particular shape, so that everything that
//! works for records works for sums unchanged: branches and loops, arrays of sums (a record
//! of arrays), `map` results, entry-point parameters (opaque), and the AD pass, which only
//! sees the record's leaves:
//!
//! * field [`TAG`] (`#`) holds the tag, an `i8`: the constructor's position in name order;
//! * field `#c` for each constructor `c` holds its payload, a record with fields `0`, `1`, ...
//!
//! Payloads of the constructors other than the tag's are *blanks*: zeros of their type,
//! arrays of zeros whose sizes come from the type where it tells them and are 0 otherwise.
//! Field names starting with `#` cannot be written in source records, so a record with a
//! [`TAG`] field is always a sum.
//!
//! `match` becomes a chain of `if`s: each case but the last tests its pattern (the tag for a
//! constructor, `==` for a literal, recursively for payloads, tuples and records); the last
//! case needs no test, because the checker has proved the `match` exhaustive.

use super::value::{Env, IVal};
use super::{Internaliser, R, bug, limitation};
use crate::core::ir::{BasicOp, SubExp};
use crate::core::prim::{BinOp, CmpOp, PrimOp};
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use crate::syntax::ast::{self, Case, Pat, PatKind, PatLit};
use crate::types::ty::{Size, Ty};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// The field of a sum's record that holds the tag.
pub const TAG: &str = "#";

/// The field of a sum's record that holds the payload of constructor `c`.
fn payload_field(c: &str) -> String {
    format!("#{c}")
}

/// The tag of constructor `c` in a sum value's record: its position among the payload fields.
fn tag_of(fields: &BTreeMap<String, IVal>, c: &str) -> Option<usize> {
    let key = payload_field(c);
    fields.keys().filter(|k| *k != TAG).position(|k| *k == key)
}

fn and(s: &mut Internaliser<'_>, a: SubExp, b: SubExp) -> SubExp {
    match (a, b) {
        (SubExp::Const(Scalar::Bool(true)), x) | (x, SubExp::Const(Scalar::Bool(true))) => x,
        _ => {
            s.em.prim(PrimOp::Bin(BinOp::And, PrimType::Bool), vec![a, b])
        }
    }
}

const TRUE: SubExp = SubExp::Const(Scalar::Bool(true));

impl<'a> Internaliser<'a> {
    /// `t` with the type parameters of the functions being inlined replaced by their
    /// instantiations.
    pub(super) fn concrete(&self, t: &Ty) -> Ty {
        concrete_in(t, &self.tenv)
    }

    /// The type-parameter environment for the body of a call of a declaration referenced at
    /// `node` (its instantiation there, made concrete in the current environment).
    pub(super) fn callee_tenv(&self, node: Option<ast::NodeId>) -> Rc<HashMap<String, Ty>> {
        let Some(inst) = node.and_then(|n| self.typed.instances.get(&n)) else {
            return Rc::new(HashMap::new());
        };
        Rc::new(
            inst.types
                .iter()
                .map(|(name, t)| (name.clone(), self.concrete(t)))
                .collect(),
        )
    }

    /// `#c args` at type `exp_type(e)`.
    pub(super) fn construct(
        &mut self,
        e: &'a ast::Exp,
        name: &str,
        args: &'a [ast::Exp],
        env: &Env,
    ) -> R<IVal> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.exp(a, env)?);
        }
        let t = self
            .exp_type(e)
            .map(|t| self.concrete(t))
            .ok_or_else(|| bug(e.span, "constructor without a type"))?;
        let Ty::Sum(cs) = &t else {
            return Err(bug(e.span, format!("constructor of type {t}")));
        };
        let Some(tag) = cs.keys().position(|c| c == name) else {
            return Err(bug(e.span, format!("no constructor #{name} in {t}")));
        };
        let mut fields = BTreeMap::new();
        fields.insert(TAG.to_string(), tag_leaf(tag));
        for (c, payload) in cs {
            let mut p = BTreeMap::new();
            if c == name {
                for (i, v) in vals.drain(..).enumerate() {
                    p.insert(i.to_string(), v);
                }
            } else {
                for (i, pt) in payload.iter().enumerate() {
                    p.insert(i.to_string(), self.blank(pt, &[], env, e.span)?);
                }
            }
            fields.insert(payload_field(c), IVal::Record(p));
        }
        Ok(IVal::Record(fields))
    }

    /// A blank value of type `t`, or an array of them of shape `outer` (all zeros).
    fn blank(&mut self, t: &Ty, outer: &[SubExp], env: &Env, span: Span) -> R<IVal> {
        match self.concrete(t) {
            Ty::Prim(p) => {
                let zero = SubExp::Const(Scalar::zero(p));
                if outer.is_empty() {
                    return Ok(IVal::Leaf(zero));
                }
                let v = self.em.basic(
                    BasicOp::Replicate {
                        shape: outer.to_vec(),
                        value: zero,
                    },
                    "blank",
                );
                Ok(IVal::Leaf(SubExp::Var(v)))
            }
            Ty::Array(dims, elem) => {
                let mut all = outer.to_vec();
                for d in &dims {
                    all.push(self.blank_size(d, env));
                }
                self.blank(&elem, &all, env, span)
            }
            Ty::Record(fs) => {
                let mut out = BTreeMap::new();
                for (k, ft) in &fs {
                    out.insert(k.clone(), self.blank(ft, outer, env, span)?);
                }
                Ok(IVal::Record(out))
            }
            Ty::Sum(cs) => {
                let mut out = BTreeMap::new();
                let tag = self.blank(&Ty::Prim(PrimType::I8), outer, env, span)?;
                out.insert(TAG.to_string(), tag);
                for (c, payload) in &cs {
                    let mut p = BTreeMap::new();
                    for (i, pt) in payload.iter().enumerate() {
                        p.insert(i.to_string(), self.blank(pt, outer, env, span)?);
                    }
                    out.insert(payload_field(c), IVal::Record(p));
                }
                Ok(IVal::Record(out))
            }
            other => Err(limitation(
                span,
                format!("a sum type whose constructors carry a value of type `{other}`"),
            )),
        }
    }

    /// A size for a blank array: the type's size where it can be computed here, else 0.
    fn blank_size(&mut self, d: &Size, env: &Env) -> SubExp {
        self.eval_size(d, env).unwrap_or(SubExp::i64(0))
    }

    /// `match scrutinee case ...`, as nested `if`s.
    pub(super) fn match_exp(
        &mut self,
        e: &'a ast::Exp,
        scrutinee: &'a ast::Exp,
        cases: &'a [Case],
        env: &Env,
    ) -> R<IVal> {
        let v = self.exp(scrutinee, env)?;
        self.cases_from(&v, cases, env, e.span)
    }

    fn cases_from(&mut self, v: &IVal, cases: &'a [Case], env: &Env, span: Span) -> R<IVal> {
        let Some((first, rest)) = cases.split_first() else {
            return Err(bug(span, "`match` without cases"));
        };
        if rest.is_empty() {
            return self.case_body(first, v, env);
        }
        let cond = self.pat_cond(&first.pat, v)?;
        self.if_then_else(
            cond,
            first.span,
            |s| s.case_body(first, v, env),
            |s| s.cases_from(v, rest, env, span),
        )
    }

    fn case_body(&mut self, case: &'a Case, v: &IVal, env: &Env) -> R<IVal> {
        let mut env = env.clone();
        self.bind_pat(&case.pat, v.clone(), &mut env)?;
        self.exp(&case.body, &env)
    }

    /// A `bool` that is true when `v` matches `p`.
    fn pat_cond(&mut self, p: &Pat, v: &IVal) -> R<SubExp> {
        match &p.kind {
            PatKind::Name(_) | PatKind::Wildcard => Ok(TRUE),
            PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => self.pat_cond(pat, v),
            PatKind::Tuple(ps) if ps.len() == 1 => self.pat_cond(&ps[0], v),
            PatKind::Tuple(ps) => {
                let mut acc = TRUE;
                for (i, q) in ps.iter().enumerate() {
                    let f = super::pattern::project(v, &i.to_string(), q.span)?;
                    let c = self.pat_cond(q, &f)?;
                    acc = and(self, acc, c);
                }
                Ok(acc)
            }
            PatKind::Record(fps) => {
                let mut acc = TRUE;
                for fp in fps {
                    let f = super::pattern::project(v, &fp.name, fp.name_span)?;
                    let c = self.pat_cond(&fp.pat, &f)?;
                    acc = and(self, acc, c);
                }
                Ok(acc)
            }
            PatKind::Constructor { name, args } => {
                let IVal::Record(fields) = v else {
                    return Err(bug(
                        p.span,
                        "constructor pattern on a value that is not a sum",
                    ));
                };
                let (Some(tag), Some(IVal::Leaf(actual))) = (tag_of(fields, name), fields.get(TAG))
                else {
                    return Err(bug(p.span, format!("no constructor #{name} in this value")));
                };
                let mut acc = self.em.prim(
                    PrimOp::Cmp(CmpOp::Eq, PrimType::I8),
                    vec![*actual, tag_const(tag)],
                );
                let payload = super::pattern::project(v, &payload_field(name), p.span)?;
                for (i, q) in args.iter().enumerate() {
                    let f = super::pattern::project(&payload, &i.to_string(), q.span)?;
                    let c = self.pat_cond(q, &f)?;
                    acc = and(self, acc, c);
                }
                Ok(acc)
            }
            PatKind::Literal(lit) => {
                let x = self.leaf(v, p.span)?;
                let t = self.em.ty(&x).elem();
                let c = match lit {
                    PatLit::Bool(b) => Scalar::Bool(*b),
                    PatLit::Int { negative, lit } if t.is_float() => {
                        let m = lit.value as f64;
                        Scalar::from_f64(t, if *negative { -m } else { m })
                    }
                    PatLit::Int { negative, lit } => {
                        let m = lit.value as i128;
                        Scalar::from_i128(t, if *negative { m.wrapping_neg() } else { m })
                    }
                    PatLit::Float { negative, lit } => {
                        Scalar::from_f64(t, if *negative { -lit.value } else { lit.value })
                    }
                    PatLit::Char(_) => {
                        return Err(limitation(p.span, "character literals in patterns"));
                    }
                };
                Ok(self
                    .em
                    .prim(PrimOp::Cmp(CmpOp::Eq, t), vec![x, SubExp::Const(c)]))
            }
        }
    }

    /// `a == b` for two values of the same sum type (not arrays of sums): equal tags, and
    /// equal payloads of that tag's constructor. Payloads of other constructors are not
    /// compared: their blanks may differ in shape.
    pub(super) fn sum_equal(
        &mut self,
        a: &BTreeMap<String, IVal>,
        b: &BTreeMap<String, IVal>,
        span: Span,
    ) -> R<SubExp> {
        let (Some(IVal::Leaf(ta)), Some(IVal::Leaf(tb))) = (a.get(TAG), b.get(TAG)) else {
            return Err(bug(span, "sum value without a tag"));
        };
        let (ta, tb) = (*ta, *tb);
        let same = self
            .em
            .prim(PrimOp::Cmp(CmpOp::Eq, PrimType::I8), vec![ta, tb]);
        let payloads: Vec<(&IVal, &IVal)> = a
            .iter()
            .filter(|(k, _)| *k != TAG)
            .filter_map(|(k, x)| b.get(k).map(|y| (x, y)))
            .collect();
        let r = self.if_then_else(
            same,
            span,
            |s| s.payload_equal(ta, &payloads, 0, span).map(IVal::Leaf),
            |_| Ok(IVal::Leaf(SubExp::Const(Scalar::Bool(false)))),
        )?;
        self.leaf(&r, span)
    }

    /// Equality of the payloads at tag `ta`, trying tags from `from` on.
    fn payload_equal(
        &mut self,
        ta: SubExp,
        payloads: &[(&IVal, &IVal)],
        from: usize,
        span: Span,
    ) -> R<SubExp> {
        let Some(((x, y), rest)) = payloads.split_first() else {
            return Ok(TRUE);
        };
        if rest.is_empty() {
            return self.equal(x, y, span);
        }
        let is_this = self.em.prim(
            PrimOp::Cmp(CmpOp::Eq, PrimType::I8),
            vec![ta, tag_const(from)],
        );
        let r = self.if_then_else(
            is_this,
            span,
            |s| s.equal(x, y, span).map(IVal::Leaf),
            |s| s.payload_equal(ta, rest, from + 1, span).map(IVal::Leaf),
        )?;
        self.leaf(&r, span)
    }
}

fn tag_const(tag: usize) -> SubExp {
    SubExp::Const(Scalar::I8(tag as i8))
}

fn tag_leaf(tag: usize) -> IVal {
    IVal::Leaf(tag_const(tag))
}

/// `t` with type parameters replaced as `tenv` says.
fn concrete_in(t: &Ty, tenv: &HashMap<String, Ty>) -> Ty {
    if tenv.is_empty() {
        return t.clone();
    }
    match t {
        Ty::Param(p) => tenv.get(p).cloned().unwrap_or_else(|| t.clone()),
        Ty::Prim(_) | Ty::Var(_) => t.clone(),
        Ty::Array(dims, e) => match concrete_in(e, tenv) {
            Ty::Array(inner, e2) => {
                let mut all = dims.clone();
                all.extend(inner);
                Ty::Array(all, e2)
            }
            e2 => Ty::Array(dims.clone(), Box::new(e2)),
        },
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), concrete_in(v, tenv)))
                .collect(),
        ),
        Ty::Sum(cs) => Ty::Sum(
            cs.iter()
                .map(|(k, ts)| (k.clone(), ts.iter().map(|v| concrete_in(v, tenv)).collect()))
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(
            Box::new(concrete_in(a, tenv)),
            Box::new(concrete_in(b, tenv)),
        ),
    }
}
