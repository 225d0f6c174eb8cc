//! The checks on patterns that wait until a top-level declaration is inferred: every `match`
//! is exhaustive and has no unreachable case, and a constructor pattern outside `case`
//! (`let #p x = ...`) belongs to a type with only that constructor (docs/language.md §Patterns).
//!
//! They wait because the scrutinee's type may only become known later in the declaration
//! (`\x -> match x case #a -> ... ` applied further down), and because a type that only
//! constructors determine is closed (made the sum of exactly those constructors) when the
//! declaration is finished.
//!
//! The algorithm is Maranget's usefulness check ("Warnings for pattern matching", JFP 2007)
//! in its witness-producing form: a case is unreachable when it is not useful after the cases
//! before it, and a `match` is exhaustive when a wildcard is not useful after all its cases;
//! when it is, the witness is the example of an unmatched value in the error. Sum types,
//! records (one constructor) and `bool` (two) have finitely many constructors; other
//! primitive types have infinitely many literals, so only a variable or `_` covers them.

use super::{Checker, PendingMatch, R};
use crate::core::scalar::PrimType;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Pat, PatKind, PatLit};
use crate::types::ty::Ty;

/// A constructor in the sense of the algorithm.
#[derive(Clone, Debug, PartialEq)]
enum Con {
    /// A sum-type constructor.
    Constr(String),
    /// The only constructor of a record (or tuple) type: its field names in leaf order.
    Record(Vec<String>),
    Bool(bool),
    /// An integer literal (chars too).
    Int(i128),
    /// A float literal, by the bits of its `f64` value.
    Float(u64),
}

/// A pattern reduced to what matters for matching.
#[derive(Clone, Debug)]
enum SPat {
    Wild,
    Con(Con, Vec<SPat>),
}

/// Record fields in leaf order: tuple fields numerically, others by name.
fn field_order(fields: &std::collections::BTreeMap<String, Ty>) -> Vec<String> {
    let mut keys: Vec<String> = fields.keys().cloned().collect();
    keys.sort_by(|a, b| match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    });
    keys
}

/// `p` (of type `t`) as an [`SPat`].
fn simplify(p: &Pat, t: &Ty) -> SPat {
    match &p.kind {
        PatKind::Name(_) | PatKind::Wildcard => SPat::Wild,
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => simplify(pat, t),
        PatKind::Tuple(ps) => {
            let names: Vec<String> = (0..ps.len()).map(|i| i.to_string()).collect();
            let args = ps
                .iter()
                .zip(&names)
                .map(|(q, n)| simplify(q, &field_type(t, n)))
                .collect();
            SPat::Con(Con::Record(names), args)
        }
        PatKind::Record(fps) => {
            let names = match t {
                Ty::Record(fs) => field_order(fs),
                _ => fps.iter().map(|f| f.name.clone()).collect(),
            };
            let args = names
                .iter()
                .map(|n| match fps.iter().find(|f| f.name == *n) {
                    Some(f) => simplify(&f.pat, &field_type(t, n)),
                    None => SPat::Wild,
                })
                .collect();
            SPat::Con(Con::Record(names), args)
        }
        PatKind::Constructor { name, args } => {
            let payload = match t {
                Ty::Sum(cs) => cs.get(name).cloned().unwrap_or_default(),
                _ => Vec::new(),
            };
            let args = args
                .iter()
                .enumerate()
                .map(|(i, q)| simplify(q, payload.get(i).unwrap_or(&Ty::unit())))
                .collect();
            SPat::Con(Con::Constr(name.clone()), args)
        }
        PatKind::Literal(lit) => {
            let is_float = matches!(t, Ty::Prim(p) if p.is_float());
            let con = match lit {
                PatLit::Bool(b) => Con::Bool(*b),
                PatLit::Char(c) => Con::Int(i128::from(u32::from(*c))),
                PatLit::Int { negative, lit } if is_float => {
                    let v = lit.value as f64;
                    Con::Float(if *negative { -v } else { v }.to_bits())
                }
                PatLit::Int { negative, lit } => {
                    let v = i128::try_from(lit.value).unwrap_or(i128::MAX);
                    Con::Int(if *negative { -v } else { v })
                }
                PatLit::Float { negative, lit } => {
                    let v = if *negative { -lit.value } else { lit.value };
                    // `0.0` and `-0.0` are equal values.
                    Con::Float(if v == 0.0 {
                        0f64.to_bits()
                    } else {
                        v.to_bits()
                    })
                }
            };
            SPat::Con(con, Vec::new())
        }
    }
}

fn field_type(t: &Ty, f: &str) -> Ty {
    match t {
        Ty::Record(fs) => fs.get(f).cloned().unwrap_or_else(Ty::unit),
        _ => Ty::unit(),
    }
}

/// The types of a constructor's arguments at type `t`.
fn arg_types(t: &Ty, c: &Con) -> Vec<Ty> {
    match (t, c) {
        (Ty::Sum(cs), Con::Constr(n)) => cs.get(n).cloned().unwrap_or_default(),
        (Ty::Record(_), Con::Record(names)) => names.iter().map(|n| field_type(t, n)).collect(),
        (_, Con::Record(names)) => names.iter().map(|_| Ty::unit()).collect(),
        _ => Vec::new(),
    }
}

/// All constructors of `t`, when there are finitely many.
fn all_cons(t: &Ty) -> Option<Vec<Con>> {
    match t {
        Ty::Sum(cs) => Some(cs.keys().map(|c| Con::Constr(c.clone())).collect()),
        Ty::Record(fs) => Some(vec![Con::Record(field_order(fs))]),
        Ty::Prim(PrimType::Bool) => Some(vec![Con::Bool(false), Con::Bool(true)]),
        _ => None,
    }
}

/// The row without its first pattern, specialised to constructor `c` of `arity` arguments:
/// `None` if the first pattern cannot match `c`.
fn specialise(row: &[SPat], c: &Con, arity: usize) -> Option<Vec<SPat>> {
    let (head, rest) = row.split_first()?;
    let mut out = match head {
        SPat::Wild => vec![SPat::Wild; arity],
        SPat::Con(d, args) if d == c => args.clone(),
        SPat::Con(..) => return None,
    };
    out.extend_from_slice(rest);
    Some(out)
}

/// Puts the first `arity` witnesses back under constructor `c`.
fn rebuild(c: &Con, arity: usize, mut w: Vec<SPat>) -> Vec<SPat> {
    let rest = w.split_off(arity.min(w.len()));
    let mut out = vec![SPat::Con(c.clone(), w)];
    out.extend(rest);
    out
}

/// A value (of type `t`) matched by none of the constructors `heads`, which do not cover
/// the type.
fn missing(t: &Ty, heads: &[Con]) -> SPat {
    if heads.is_empty() {
        return SPat::Wild;
    }
    if let Some(all) = all_cons(t)
        && let Some(c) = all.into_iter().find(|c| !heads.contains(c))
    {
        let arity = arg_types(t, &c).len();
        return SPat::Con(c, vec![SPat::Wild; arity]);
    }
    let is_float = matches!(t, Ty::Prim(p) if p.is_float());
    (0..)
        .map(|i: i64| if i % 2 == 1 { (i + 1) / 2 } else { -(i / 2) })
        .map(|v| {
            if is_float {
                Con::Float((v as f64).to_bits())
            } else {
                Con::Int(i128::from(v))
            }
        })
        .find(|c| !heads.contains(c))
        .map_or(SPat::Wild, |c| SPat::Con(c, Vec::new()))
}

/// A vector of values matched by `q` and by no row of `rows` (Maranget's algorithm `I`), or
/// `None` if there is none. `tys` are the types of the columns.
fn useful(rows: &[Vec<SPat>], q: &[SPat], tys: &[Ty]) -> Option<Vec<SPat>> {
    let Some((head, rest)) = q.split_first() else {
        return rows.is_empty().then(Vec::new);
    };
    let t = tys.first().cloned().unwrap_or_else(Ty::unit);
    let tys_rest = tys.get(1..).unwrap_or(&[]);
    let try_con = |c: &Con, args: Vec<SPat>| {
        let arity = args.len();
        let rows2: Vec<Vec<SPat>> = rows
            .iter()
            .filter_map(|r| specialise(r, c, arity))
            .collect();
        let mut q2 = args;
        q2.extend_from_slice(rest);
        let mut tys2 = arg_types(&t, c);
        tys2.resize(arity, Ty::unit());
        tys2.extend_from_slice(tys_rest);
        useful(&rows2, &q2, &tys2).map(|w| rebuild(c, arity, w))
    };
    match head {
        SPat::Con(c, args) => try_con(c, args.clone()),
        SPat::Wild => {
            let mut heads: Vec<Con> = Vec::new();
            for r in rows {
                if let Some(SPat::Con(c, _)) = r.first()
                    && !heads.contains(c)
                {
                    heads.push(c.clone());
                }
            }
            match all_cons(&t) {
                Some(all) if !heads.is_empty() && all.iter().all(|c| heads.contains(c)) => {
                    all.iter().find_map(|c| {
                        let arity = arg_types(&t, c).len();
                        try_con(c, vec![SPat::Wild; arity])
                    })
                }
                _ => {
                    let rows2: Vec<Vec<SPat>> = rows
                        .iter()
                        .filter(|r| matches!(r.first(), Some(SPat::Wild)))
                        .map(|r| r[1..].to_vec())
                        .collect();
                    let w = useful(&rows2, rest, tys_rest)?;
                    let mut out = vec![missing(&t, &heads)];
                    out.extend(w);
                    Some(out)
                }
            }
        }
    }
}

/// Source text for a witness.
fn show(p: &SPat, nested: bool) -> String {
    match p {
        SPat::Wild => "_".into(),
        SPat::Con(Con::Constr(c), args) if args.is_empty() => format!("#{c}"),
        SPat::Con(Con::Constr(c), args) => {
            let parts: Vec<String> = args.iter().map(|a| show(a, true)).collect();
            let s = format!("#{c} {}", parts.join(" "));
            if nested { format!("({s})") } else { s }
        }
        SPat::Con(Con::Record(names), args) => {
            let tuple =
                names.len() != 1 && names.iter().enumerate().all(|(i, n)| *n == i.to_string());
            if tuple {
                let parts: Vec<String> = args.iter().map(|a| show(a, false)).collect();
                format!("({})", parts.join(", "))
            } else {
                let parts: Vec<String> = names
                    .iter()
                    .zip(args)
                    .map(|(n, a)| format!("{n} = {}", show(a, false)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
        SPat::Con(Con::Bool(b), _) => b.to_string(),
        SPat::Con(Con::Int(v), _) => v.to_string(),
        SPat::Con(Con::Float(bits), _) => {
            let v = f64::from_bits(*bits);
            if v.fract() == 0.0 {
                format!("{v:.1}")
            } else {
                v.to_string()
            }
        }
    }
}

impl Checker {
    /// Runs the checks of this module on the patterns recorded since the last call.
    pub(super) fn check_pending_patterns(&mut self) -> R<()> {
        let constr_pats = std::mem::take(&mut self.pending_constr_pats);
        for (id, span, name) in constr_pats {
            let t = self
                .out
                .pat_types
                .get(&id)
                .map(|t| self.u.resolve(t))
                .unwrap_or_else(Ty::unit);
            if let Ty::Sum(cs) = &t
                && cs.len() > 1
            {
                return Err(Box::new(
                    Diagnostic::error(
                        span,
                        format!(
                            "refutable pattern: `#{name}` is not the only constructor of `{t}`"
                        ),
                    )
                    .with_label("this pattern may fail to match")
                    .with_note("take values of this type apart with `match`"),
                ));
            }
        }
        let matches = std::mem::take(&mut self.pending_matches);
        for PendingMatch {
            span,
            scrutinee,
            cases,
        } in matches
        {
            let t = self.u.resolve(&scrutinee);
            let mut rows: Vec<Vec<SPat>> = Vec::new();
            for p in &cases {
                let row = vec![simplify(p, &t)];
                if useful(&rows, &row, std::slice::from_ref(&t)).is_none() {
                    return Err(Box::new(
                        Diagnostic::error(p.span, "unreachable case in `match`")
                            .with_label("the cases before this one match every value it matches"),
                    ));
                }
                rows.push(row);
            }
            if let Some(w) = useful(&rows, &[SPat::Wild], std::slice::from_ref(&t)) {
                let example = w
                    .first()
                    .map_or_else(|| "_".to_string(), |p| show(p, false));
                return Err(Box::new(
                    Diagnostic::error(
                        span,
                        format!(
                            "the cases of this `match` are not exhaustive: `{example}` is not matched"
                        ),
                    )
                    .with_label("no case matches some values")
                        .with_note(format!(
                            "the value matched has type `{t}`; add a case for `{example}` or a case `_`"
                        )),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(cs: &[(&str, Vec<Ty>)]) -> Ty {
        Ty::Sum(
            cs.iter()
                .map(|(c, ts)| (c.to_string(), ts.clone()))
                .collect(),
        )
    }
    fn con(c: &str, args: Vec<SPat>) -> SPat {
        SPat::Con(Con::Constr(c.into()), args)
    }

    #[test]
    fn missing_constructor_is_the_witness() {
        let t = sum(&[("none", vec![]), ("some", vec![Ty::Prim(PrimType::I32)])]);
        let rows = vec![vec![con("some", vec![SPat::Wild])]];
        let w = useful(&rows, &[SPat::Wild], &[t]).expect("not exhaustive");
        assert_eq!(show(&w[0], false), "#none");
    }

    #[test]
    fn nested_literal_witness() {
        let t = sum(&[("none", vec![]), ("some", vec![Ty::Prim(PrimType::I32)])]);
        let rows = vec![
            vec![con("none", vec![])],
            vec![con("some", vec![SPat::Con(Con::Int(0), vec![])])],
        ];
        let w = useful(&rows, &[SPat::Wild], std::slice::from_ref(&t)).expect("not exhaustive");
        assert_eq!(show(&w[0], false), "#some 1");
        let all = vec![
            rows[0].clone(),
            rows[1].clone(),
            vec![con("some", vec![SPat::Wild])],
        ];
        assert!(useful(&all, &[SPat::Wild], &[t]).is_none());
    }

    #[test]
    fn bool_pairs() {
        let b = Ty::Prim(PrimType::Bool);
        let t = Ty::tuple(vec![b.clone(), b]);
        let pair = |x: bool, y: bool| {
            SPat::Con(
                Con::Record(vec!["0".into(), "1".into()]),
                vec![
                    SPat::Con(Con::Bool(x), vec![]),
                    SPat::Con(Con::Bool(y), vec![]),
                ],
            )
        };
        let rows = vec![vec![pair(true, true)], vec![pair(false, false)]];
        let w = useful(&rows, &[SPat::Wild], &[t]).expect("not exhaustive");
        let shown = show(&w[0], false);
        assert!(
            shown == "(false, true)" || shown == "(true, false)",
            "{shown}"
        );
    }
}
