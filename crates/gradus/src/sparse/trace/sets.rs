//! Index sets: which inputs a value depends on.
//!
//! A set is shared (`Rc`) because most operations pass one operand's set on unchanged, and
//! sorted so that a union is a merge. The empty set is `None` and allocates nothing.

use std::rc::Rc;

/// The inputs a value depends on: sorted, without repeats; `None` for none.
pub(crate) type Deps = Option<Rc<Vec<u32>>>;

/// The set of one input.
pub(crate) fn single(j: u32) -> Deps {
    Some(Rc::new(vec![j]))
}

/// The union of two sets, sharing an operand's allocation where the union is that operand.
pub(crate) fn union(a: &Deps, b: &Deps) -> Deps {
    match (a, b) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(x), Some(y)) => {
            if Rc::ptr_eq(x, y) {
                return a.clone();
            }
            if y.len() == 1 && x.binary_search(&y[0]).is_ok() {
                return a.clone();
            }
            if x.len() == 1 && y.binary_search(&x[0]).is_ok() {
                return b.clone();
            }
            let merged = merge(x, y);
            if merged.len() == x.len() {
                a.clone()
            } else if merged.len() == y.len() {
                b.clone()
            } else {
                Some(Rc::new(merged))
            }
        }
    }
}

/// `into ∪= other`, in place when `into`'s allocation is not shared and `other` only adds
/// elements above its largest (the accumulator of a sum over inputs in order).
pub(crate) fn union_into(into: &mut Deps, other: &Deps) {
    let Some(y) = other else { return };
    let Some(x) = into else {
        *into = other.clone();
        return;
    };
    if Rc::ptr_eq(x, y) {
        return;
    }
    if let Some(v) = Rc::get_mut(x) {
        let last = *v.last().expect("a set is not empty");
        if y[0] > last {
            v.extend_from_slice(y);
            return;
        }
    }
    *into = union(into, other);
}

/// The merge of two sorted lists without repeats.
fn merge(x: &[u32], y: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => {
                out.push(x[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(y[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(x[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&x[i..]);
    out.extend_from_slice(&y[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(xs: &[u32]) -> Deps {
        Some(Rc::new(xs.to_vec()))
    }

    #[test]
    fn unions_merge_and_share() {
        let a = set(&[1, 4, 7]);
        let b = set(&[2, 4, 9]);
        assert_eq!(union(&a, &b), set(&[1, 2, 4, 7, 9]));
        let sub = set(&[4]);
        let u = union(&a, &sub);
        assert!(Rc::ptr_eq(u.as_ref().unwrap(), a.as_ref().unwrap()));
        assert_eq!(union(&None, &b), b);
        assert_eq!(union(&a, &None), a);
    }

    #[test]
    fn union_into_appends_in_place_or_merges() {
        let mut acc = set(&[0, 1]);
        union_into(&mut acc, &set(&[2]));
        union_into(&mut acc, &set(&[3, 5]));
        assert_eq!(acc, set(&[0, 1, 2, 3, 5]));
        union_into(&mut acc, &set(&[4]));
        assert_eq!(acc, set(&[0, 1, 2, 3, 4, 5]));
        let shared = acc.clone();
        union_into(&mut acc, &set(&[9]));
        assert_eq!(shared, set(&[0, 1, 2, 3, 4, 5]));
        assert_eq!(acc, set(&[0, 1, 2, 3, 4, 5, 9]));
    }
}
