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
//! docs/sparse.md describes how these parts fit together.

pub mod colour;
pub mod csr;
pub(crate) mod trace;

use crate::backend::c::NativeOptions;
use crate::program::Program;
use crate::value::Value;
use trace::{Arg, TraceError, sets::Deps};

/// The index sets of every element of every result of entry point `entry` of `prog` at the
/// arguments `args`, the inputs being the elements of parameter `point` (see [`trace`]).
pub(crate) fn trace_entry(
    prog: &Program,
    entry: &str,
    args: &[Value],
    point: usize,
) -> Result<Vec<Vec<Deps>>, TraceError> {
    let unsupported = |m: String| TraceError::Unsupported(m);
    let prepared = crate::pipeline::prepare_for_lowering(&prog.prog).map_err(unsupported)?;
    let low = crate::backend::c::lower_prog(&prepared, &prog.sources, NativeOptions::sequential())
        .map_err(unsupported)?;
    let f = low
        .functions
        .iter()
        .find(|f| f.entry == entry)
        .ok_or_else(|| unsupported(format!("no entry point named `{entry}`")))?;
    let refs: Vec<_> = args.iter().map(Value::as_value_ref).collect();
    let sizes = crate::backend::c::size_arguments(&prepared, entry, &refs).map_err(unsupported)?;
    let mut inputs: Vec<Arg> = sizes
        .into_iter()
        .map(|n| Arg::Scalar(crate::value::Scalar::I64(n)))
        .collect();
    for a in args {
        inputs.push(match a {
            Value::Scalar(s) => Arg::Scalar(*s),
            Value::Array(arr) => {
                let b = arr.buffer();
                Arg::Array((0..b.len()).map(|i| b.get(i)).collect())
            }
        });
    }
    let first_param = inputs.len() - args.len();
    trace::trace(f, inputs, first_param + point)
}
