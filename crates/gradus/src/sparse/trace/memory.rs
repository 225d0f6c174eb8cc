//! The tracer's memory: blocks of elements, each with its value and its index set, and the
//! array variables that point into them, with the reference counts that the generated C
//! keeps (they decide when an update copies).

use super::sets::{self, Deps};
use crate::core::scalar::{PrimType, Scalar};
use std::cell::RefCell;
use std::rc::Rc;

/// A buffer: values, their index sets, the references held on it, and when it was made
/// (the tracer's sequence number; a copy made to update an array in place keeps its
/// original's, since it is the same array).
pub(super) struct Block {
    pub vals: Vec<Scalar>,
    pub deps: Vec<Deps>,
    pub refs: usize,
    pub born: u64,
}

pub(super) type BlockRef = Rc<RefCell<Block>>;

impl Block {
    /// A fresh block of `count` zeros of type `elem`, with one reference.
    pub fn fresh(elem: PrimType, count: usize, born: u64) -> BlockRef {
        Rc::new(RefCell::new(Block {
            vals: vec![Scalar::zero(elem); count],
            deps: vec![None; count],
            refs: 1,
            born,
        }))
    }

    /// A block holding `vals`, with no index sets and no reference (an argument: the
    /// caller's memory, borrowed).
    pub fn borrowed(vals: Vec<Scalar>) -> BlockRef {
        let n = vals.len();
        Rc::new(RefCell::new(Block {
            vals,
            deps: vec![None; n],
            refs: 0,
            born: 0,
        }))
    }

    /// The union of the index sets of every element (what an element read at an index that
    /// depends on the point may depend on).
    pub fn all_deps(&self) -> Deps {
        let mut out: Deps = None;
        for d in &self.deps {
            out = sets::union(&out, d);
        }
        out
    }
}

/// An array or pointer variable: where it points, and whether it holds a reference on that
/// block (the C code's `x_m` is not null).
#[derive(Clone, Default)]
pub(super) struct ArrVar {
    pub block: Option<BlockRef>,
    pub off: usize,
    pub owns: bool,
}

impl ArrVar {
    /// Whether both point to the same element of the same block.
    pub fn same_place(&self, other: &ArrVar) -> bool {
        self.off == other.off
            && match (&self.block, &other.block) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// `to[k] ∪= from[k]` for the elements both arrays have, by position from where each
/// points.
pub(super) fn union_elements(to: &ArrVar, from: &ArrVar) {
    let (Some(tb), Some(fb)) = (&to.block, &from.block) else {
        return;
    };
    if Rc::ptr_eq(tb, fb) && to.off == from.off {
        return;
    }
    let src: Vec<Deps> = fb.borrow().deps.get(from.off..).unwrap_or(&[]).to_vec();
    let mut t = tb.borrow_mut();
    let dst = t.deps.get_mut(to.off..).unwrap_or(&mut []);
    for (d, s) in dst.iter_mut().zip(&src) {
        sets::union_into(d, s);
    }
}

/// `to[k] ∪= extra` for every element from where `to` points, when they are integers or
/// `bool`s (what a branch on the point left there depends on the branch).
pub(super) fn add_to_integers(to: &ArrVar, extra: &Deps) {
    let Some(b) = &to.block else { return };
    let mut b = b.borrow_mut();
    if b.vals.first().is_none_or(|v| v.prim_type().is_float()) {
        return;
    }
    for d in b.deps.get_mut(to.off..).unwrap_or(&mut []) {
        sets::union_into(d, extra);
    }
}
