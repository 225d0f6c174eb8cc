//! Sparse Jacobians and Hessians of entry points, on the host.
//!
//! A sparse Jacobian or Hessian is computed in three steps: find its sparsity pattern, group
//! the columns (or rows) that never meet in a row into colours, and take one directional
//! derivative per colour. Each product then holds several entries of the matrix at once, and
//! the pattern and the colouring say which entry is which.
//!
//! - `trace`: the pattern, by running the lowered entry point with a set of inputs beside
//!   every value ([`Traced`]);
//! - [`csr`]: the pattern as compressed sparse rows ([`csr::Pattern`]), with transposition
//!   and symmetrisation;
//! - [`colour`]: greedy distance-2 colourings of columns (Jacobians, by `jmp`; of the rows
//!   through the transposed pattern, by `mjp`) and star colourings of symmetric patterns
//!   (Hessians, by Hessian-vector products), their checkers, the seed matrices, and the
//!   decompression of the products into the pattern's values (plain Rust over index arrays,
//!   in time close to linear in the number of entries; each function states its cost);
//! - [`derived`]: the three steps for an entry point ([`crate::Program::sparse`]), the
//!   products run on the program's backend, the patterns kept per value of the arguments that
//!   steer them.
//!
//! docs/sparse.md describes how these parts fit together, and how they relate to the
//! language's own `sparse_jacobian` and `sparse_hessian`; docs/sparse-colouring.md describes
//! the colourings: the algorithms, what they achieve and what they cost.

pub mod colour;
pub mod csr;
pub mod derived;
pub(crate) mod trace;

pub use derived::{Products, SparseDerived, SparseKind, SparsePlan};

use crate::backend::c::NativeOptions;
use crate::backend::lower::imp;
use crate::program::Program;
#[cfg(test)]
use crate::value::Value;
use crate::value::ValueRef;
use trace::{Arg, TraceError, sets::Deps};

/// An entry point lowered for tracing, with the program its sizes are bound by.
pub(crate) struct Traced {
    prog: crate::core::ir::Prog,
    func: imp::Function,
}

impl Traced {
    /// Lowers entry point `entry` of `prog` sequentially, as the `c` backend would.
    pub(crate) fn new(prog: &Program, entry: &str) -> Result<Traced, String> {
        let prepared = crate::pipeline::prepare_for_lowering(&prog.prog)?;
        let low =
            crate::backend::c::lower_prog(&prepared, &prog.sources, NativeOptions::sequential())?;
        let func = low
            .functions
            .into_iter()
            .find(|f| f.entry == entry)
            .ok_or_else(|| format!("no entry point named `{entry}`"))?;
        Ok(Traced {
            prog: prepared,
            func,
        })
    }

    /// The index sets of every element of every result at the arguments `args`, the inputs
    /// being the elements of parameter `point` (see [`trace`]).
    pub(crate) fn sets(
        &self,
        args: &[ValueRef],
        point: usize,
    ) -> Result<Vec<Vec<Deps>>, TraceError> {
        let sizes = crate::backend::c::size_arguments(&self.prog, &self.func.entry, args)
            .map_err(TraceError::Unsupported)?;
        let mut inputs: Vec<Arg> = sizes
            .into_iter()
            .map(|n| Arg::Scalar(crate::value::Scalar::I64(n)))
            .collect();
        let first_param = inputs.len();
        for a in args {
            inputs.push(match a {
                ValueRef::Scalar(s) => Arg::Scalar(*s),
                ValueRef::Array(view) => {
                    let arr = view.to_array();
                    let b = arr.buffer();
                    Arg::Array((0..b.len()).map(|i| b.get(i)).collect())
                }
            });
        }
        trace::trace(&self.func, inputs, first_param + point)
    }
}

/// The index sets of every element of every result of entry point `entry` of `prog` at the
/// arguments `args`, the inputs being the elements of parameter `point`.
#[cfg(test)]
pub(crate) fn trace_entry(
    prog: &Program,
    entry: &str,
    args: &[Value],
    point: usize,
) -> Result<Vec<Vec<Deps>>, TraceError> {
    let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
    Traced::new(prog, entry)
        .map_err(TraceError::Unsupported)?
        .sets(&refs, point)
}
