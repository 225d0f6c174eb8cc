//! Functions on types that need no checker state: substitution, forgetting sizes that go out
//! of scope, size queries, free variables, the final clean-up of recorded types, and the
//! renaming of unification variables for messages.

use crate::types::ty::{BindingId, Size, SizeVar, Ty, TyVar};
use std::collections::{HashMap, HashSet};

pub(super) fn arrows(params: Vec<Ty>, ret: Ty) -> Ty {
    params
        .into_iter()
        .rev()
        .fold(ret, |r, p| Ty::Arrow(Box::new(p), Box::new(r)))
}

pub(super) fn subst(t: &Ty, tm: &HashMap<String, Ty>, sm: &HashMap<BindingId, Size>) -> Ty {
    match t {
        Ty::Param(p) => tm.get(p).cloned().unwrap_or_else(|| t.clone()),
        Ty::Prim(_) | Ty::Var(_) => t.clone(),
        Ty::Array(dims, e) => {
            let dims: Vec<Size> = dims.iter().map(|d| subst_size(d, sm)).collect();
            let e = subst(e, tm, sm);
            let mut r = e;
            for d in dims.into_iter().rev() {
                r = r.array_of(d);
            }
            r
        }
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), subst(v, tm, sm)))
                .collect(),
        ),
        Ty::Sum(cs) => Ty::Sum(
            cs.iter()
                .map(|(k, ts)| (k.clone(), ts.iter().map(|t| subst(t, tm, sm)).collect()))
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(Box::new(subst(a, tm, sm)), Box::new(subst(b, tm, sm))),
    }
}

fn subst_size(s: &Size, sm: &HashMap<BindingId, Size>) -> Size {
    match s {
        Size::Named(b, _) => sm.get(b).cloned().unwrap_or_else(|| s.clone()),
        Size::Op(o, a, b) => Size::Op(*o, Box::new(subst_size(a, sm)), Box::new(subst_size(b, sm))),
        _ => s.clone(),
    }
}

/// Replaces sizes naming the given bindings (going out of scope) by `Unknown`.
pub(super) fn forget(t: &Ty, ids: &HashSet<BindingId>) -> Ty {
    if ids.is_empty() {
        return t.clone();
    }
    let mut sm = HashMap::new();
    for b in ids {
        sm.insert(*b, Size::Unknown);
    }
    let t = subst(t, &HashMap::new(), &sm);
    unknown_ops(&t)
}

/// `a o b`, or unknown where a part is unknown.
fn size_op(o: char, a: Size, b: Size) -> Size {
    if a == Size::Unknown || b == Size::Unknown {
        Size::Unknown
    } else {
        Size::Op(o, Box::new(a), Box::new(b))
    }
}

/// An `Op` size with an unknown part is unknown.
pub(super) fn unknown_ops(t: &Ty) -> Ty {
    fn size(s: &Size) -> Size {
        match s {
            Size::Op(o, a, b) => size_op(*o, size(a), size(b)),
            _ => s.clone(),
        }
    }
    map_sizes(t, &size)
}

/// `t` with each array dimension `d` replaced by `f(d)`.
fn map_sizes(t: &Ty, f: &impl Fn(&Size) -> Size) -> Ty {
    match t {
        Ty::Array(dims, e) => Ty::Array(dims.iter().map(f).collect(), Box::new(map_sizes(e, f))),
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), map_sizes(v, f)))
                .collect(),
        ),
        Ty::Sum(cs) => Ty::Sum(
            cs.iter()
                .map(|(k, ts)| (k.clone(), ts.iter().map(|t| map_sizes(t, f)).collect()))
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(Box::new(map_sizes(a, f)), Box::new(map_sizes(b, f))),
        _ => t.clone(),
    }
}

pub(super) fn size_mentions(s: &Size, b: BindingId) -> bool {
    match s {
        Size::Named(x, _) => *x == b,
        Size::Op(_, l, r) => size_mentions(l, b) || size_mentions(r, b),
        _ => false,
    }
}

pub(super) fn ty_mentions(t: &Ty, b: BindingId) -> bool {
    match t {
        Ty::Array(dims, e) => dims.iter().any(|d| size_mentions(d, b)) || ty_mentions(e, b),
        Ty::Record(fs) => fs.values().any(|f| ty_mentions(f, b)),
        Ty::Sum(cs) => cs.values().flatten().any(|f| ty_mentions(f, b)),
        Ty::Arrow(a, r) => ty_mentions(a, b) || ty_mentions(r, b),
        _ => false,
    }
}

/// Whether `b` appears as a whole dimension of an array in `t` outside function types: a
/// value of type `t` then tells `b` (the dimensions of a function's parameters or result do
/// not, since a function value has no dimensions to read).
pub(super) fn bare_in_value(t: &Ty, b: BindingId) -> bool {
    match t {
        Ty::Array(dims, e) => {
            dims.iter()
                .any(|d| matches!(d, Size::Named(x, _) if *x == b))
                || bare_in_value(e, b)
        }
        Ty::Record(fs) => fs.values().any(|f| bare_in_value(f, b)),
        Ty::Sum(cs) => cs.values().flatten().any(|f| bare_in_value(f, b)),
        _ => false,
    }
}

/// Whether `b` appears as a whole dimension somewhere in `t`.
pub(super) fn bare_in(t: &Ty, b: BindingId) -> bool {
    match t {
        Ty::Array(dims, e) => {
            dims.iter()
                .any(|d| matches!(d, Size::Named(x, _) if *x == b))
                || bare_in(e, b)
        }
        Ty::Record(fs) => fs.values().any(|f| bare_in(f, b)),
        Ty::Sum(cs) => cs.values().flatten().any(|f| bare_in(f, b)),
        Ty::Arrow(a, r) => bare_in(a, b) || bare_in(r, b),
        _ => false,
    }
}

pub(super) fn size_is_known(s: &Size) -> bool {
    match s {
        Size::Var(_) | Size::Unknown => false,
        Size::Op(_, a, b) => size_is_known(a) && size_is_known(b),
        _ => true,
    }
}

/// Where two types' sizes differ, the result has an unknown size.
pub(super) fn merge_sizes(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Array(d1, e1), Ty::Array(d2, e2)) if d1.len() == d2.len() => Ty::Array(
            d1.iter()
                .zip(d2)
                .map(|(x, y)| if x == y { x.clone() } else { Size::Unknown })
                .collect(),
            Box::new(merge_sizes(e1, e2)),
        ),
        (Ty::Record(f1), Ty::Record(f2)) => Ty::Record(
            f1.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        f2.get(k).map_or(v.clone(), |w| merge_sizes(v, w)),
                    )
                })
                .collect(),
        ),
        (Ty::Sum(c1), Ty::Sum(c2)) => Ty::Sum(
            c1.iter()
                .map(|(k, ts)| {
                    let merged = match c2.get(k) {
                        Some(us) if us.len() == ts.len() => {
                            ts.iter().zip(us).map(|(t, u)| merge_sizes(t, u)).collect()
                        }
                        _ => ts.clone(),
                    };
                    (k.clone(), merged)
                })
                .collect(),
        ),
        _ => a.clone(),
    }
}

pub(super) fn final_size(s: &Size) -> Size {
    match s {
        Size::Var(_) => Size::Unknown,
        Size::Op(o, a, b) => size_op(*o, final_size(a), final_size(b)),
        _ => s.clone(),
    }
}

/// Unbound size variables become unknown sizes.
pub(super) fn final_ty(t: &Ty) -> Ty {
    map_sizes(t, &final_size)
}

pub(super) fn free_vars(t: &Ty, out: &mut Vec<TyVar>) {
    match t {
        Ty::Var(v) if !out.contains(v) => out.push(*v),
        Ty::Array(_, e) => free_vars(e, out),
        Ty::Record(fs) => fs.values().for_each(|f| free_vars(f, out)),
        Ty::Sum(cs) => cs.values().flatten().for_each(|f| free_vars(f, out)),
        Ty::Arrow(a, b) => {
            free_vars(a, out);
            free_vars(b, out);
        }
        _ => {}
    }
}

pub(super) fn free_size_vars(t: &Ty, out: &mut Vec<SizeVar>) {
    fn size(s: &Size, out: &mut Vec<SizeVar>) {
        match s {
            Size::Var(v) if !out.contains(v) => out.push(*v),
            Size::Op(_, a, b) => {
                size(a, out);
                size(b, out);
            }
            _ => {}
        }
    }
    match t {
        Ty::Array(dims, e) => {
            dims.iter().for_each(|d| size(d, out));
            free_size_vars(e, out);
        }
        Ty::Record(fs) => fs.values().for_each(|f| free_size_vars(f, out)),
        Ty::Sum(cs) => cs.values().flatten().for_each(|f| free_size_vars(f, out)),
        Ty::Arrow(a, b) => {
            free_size_vars(a, out);
            free_size_vars(b, out);
        }
        _ => {}
    }
}

pub(super) fn rename_vars(t: &Ty, names: &mut Vec<TyVar>) -> Ty {
    match t {
        Ty::Var(v) => {
            let i = names.iter().position(|x| x == v).unwrap_or_else(|| {
                names.push(*v);
                names.len() - 1
            });
            let letter = (b'a' + (i % 26) as u8) as char;
            Ty::Param(if i < 26 {
                format!("?{letter}")
            } else {
                format!("?{letter}{}", i / 26)
            })
        }
        Ty::Array(dims, e) => Ty::Array(dims.clone(), Box::new(rename_vars(e, names))),
        Ty::Record(fs) => Ty::Record(
            fs.iter()
                .map(|(k, v)| (k.clone(), rename_vars(v, names)))
                .collect(),
        ),
        Ty::Sum(cs) => Ty::Sum(
            cs.iter()
                .map(|(k, ts)| {
                    (
                        k.clone(),
                        ts.iter().map(|t| rename_vars(t, names)).collect(),
                    )
                })
                .collect(),
        ),
        Ty::Arrow(a, b) => Ty::Arrow(
            Box::new(rename_vars(a, names)),
            Box::new(rename_vars(b, names)),
        ),
        _ => t.clone(),
    }
}
