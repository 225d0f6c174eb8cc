//! [`Mat<T>`]: a dense row-major matrix that reversible bodies index as `m[(i, j)]`
//! (docs/reversible.md §Places and values). It is a place container like a slice: instructions read
//! and write its elements, `release!` compares it element by element, and `*_grad` wraps it into a
//! `Mat<GVar<S>>` and returns a `Mat<S>` of gradients.

use crate::grad::GradParam;
use crate::scalar::{GradScalar, Release, RevReal};
use std::ops::{Index, IndexMut};

/// A dense `rows × cols` matrix stored row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Mat<T> {
    rows: usize,
    cols: usize,
    data: Vec<T>,
}

impl<T> Mat<T> {
    /// A matrix from its row-major elements; `None` if `data.len() != rows · cols`.
    pub fn from_vec(rows: usize, cols: usize, data: Vec<T>) -> Option<Self> {
        (rows.checked_mul(cols) == Some(data.len())).then_some(Mat { rows, cols, data })
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The row-major elements.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    /// The row-major elements, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    /// The row-major elements, by value.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
    /// Element-wise map (e.g. wrapping into `GVar`s).
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> Mat<U> {
        Mat {
            rows: self.rows,
            cols: self.cols,
            data: self.data.iter().map(f).collect(),
        }
    }
}

impl<T: RevReal> Mat<T> {
    /// The `rows × cols` zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Mat {
            rows,
            cols,
            data: vec![T::zero(); rows * cols],
        }
    }
}

impl<T> Index<(usize, usize)> for Mat<T> {
    type Output = T;
    #[inline]
    fn index(&self, (i, j): (usize, usize)) -> &T {
        assert!(
            i < self.rows && j < self.cols,
            "Mat index ({i}, {j}) out of bounds for a {} x {} matrix",
            self.rows,
            self.cols
        );
        &self.data[i * self.cols + j]
    }
}

impl<T> IndexMut<(usize, usize)> for Mat<T> {
    #[inline]
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut T {
        assert!(
            i < self.rows && j < self.cols,
            "Mat index ({i}, {j}) out of bounds for a {} x {} matrix",
            self.rows,
            self.cols
        );
        &mut self.data[i * self.cols + j]
    }
}

impl<T: Release> Release for Mat<T> {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        self.rows == e.rows && self.cols == e.cols && self.data.release_matches(&e.data, atol)
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        self.data.release_tolerance(atol)
    }
}

impl<S: GradScalar, X: GradParam<S>> GradParam<S> for Mat<X> {
    type Wrapped = Mat<X::Wrapped>;
    type Grad = Mat<X::Grad>;
    fn wrap(&self) -> Self::Wrapped {
        self.map(X::wrap)
    }
    fn grad(w: &Self::Wrapped) -> Self::Grad {
        w.map(X::grad)
    }
}
