//! Sparsity patterns, colourings and recovery for sparse Jacobians and Hessians, on the host.
//!
//! A sparse Jacobian or Hessian is computed in three steps: find its sparsity pattern, group
//! the columns (or rows) that never meet in a row into colours, and take one directional
//! derivative per colour. Each product then holds several entries of the matrix at once, and
//! the pattern and the colouring say which entry is which. This module holds the parts of
//! that scheme that do not touch a program:
//!
//! - [`csr`]: the pattern as compressed sparse rows ([`csr::Pattern`]), with transposition
//!   and symmetrisation;
//! - [`colour`]: greedy distance-2 colourings of columns (Jacobians, by `jmp`; of the rows
//!   through the transposed pattern, by `mjp`) and star colourings of symmetric patterns
//!   (Hessians, by Hessian-vector products), their checkers, the seed matrices, and the
//!   decompression of the products into the pattern's values.
//!
//! Everything here is plain Rust over index arrays and runs in time close to linear in the
//! number of entries (each function states its cost); nothing depends on a backend.
//! docs/sparse-colouring.md describes the algorithms, what they achieve and what they cost.

pub mod colour;
pub mod csr;
