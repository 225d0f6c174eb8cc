//! What a program looks like from outside: the types of entry-point parameters and results
//! ([`ExternalType`]), entry-point signatures ([`EntryPoint`]), and why a call can fail
//! ([`CallError`]).
//!
//! These live in `core` because the core IR's entry points ([`crate::core::ir::EntryInfo`])
//! carry them, and every backend checks calls against them; the Rust API
//! ([`crate::program`]) re-exports them.

use crate::core::ir::FunDef;
use crate::diag::RuntimeError;
use crate::value::{PrimType, ValueRef};
use std::fmt;

/// The type of an entry-point parameter or result as seen from outside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternalType {
    /// A primitive or a regular array of primitives: exchangeable in the value formats.
    Value {
        /// Element type.
        elem: PrimType,
        /// Number of dimensions (0 for a scalar).
        rank: usize,
        /// The type as written in source, with sizes, e.g. `[n][3]f64`.
        text: String,
    },
    /// Anything else (tuples, records, arrays of tuples): cannot be given in the value formats.
    Opaque(String),
}

impl fmt::Display for ExternalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalType::Value { text, .. } | ExternalType::Opaque(text) => f.write_str(text),
        }
    }
}

/// The signature of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// Its name.
    pub name: String,
    /// Parameter types, in order.
    pub params: Vec<ExternalType>,
    /// Result types: the components of a top-level tuple, in order; empty for `()`.
    pub results: Vec<ExternalType>,
    /// For each result, how many values of the core function's results it takes (1 for a
    /// primitive or an array of them; the leaves of an opaque tuple, record or sum).
    pub result_leaves: Vec<usize>,
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// No entry point of this name.
    UnknownEntry(String),
    /// The arguments do not fit the parameters (count, element type or rank); the message
    /// names the expected and the given types.
    BadInput(String),
    /// The program failed while running.
    Runtime(RuntimeError),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownEntry(n) => write!(f, "no entry point named \"{n}\""),
            CallError::BadInput(m) => f.write_str(m),
            CallError::Runtime(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CallError {}

/// Checks that `args` fit the parameters of entry point `entry` (the function `fun`, or
/// `None` when the program has no such entry point) in number, element type and rank.
pub fn check_args<'a>(
    fun: Option<&'a FunDef>,
    entry: &str,
    args: &[ValueRef],
) -> Result<&'a FunDef, CallError> {
    let fun = fun.ok_or_else(|| CallError::UnknownEntry(entry.to_string()))?;
    let info = fun
        .entry
        .as_ref()
        .ok_or_else(|| CallError::UnknownEntry(entry.to_string()))?;
    if args.len() != info.params.len() {
        return Err(CallError::BadInput(format!(
            "entry point \"{entry}\" expects {} argument(s), but {} were given",
            info.params.len(),
            args.len()
        )));
    }
    for (k, ((ext, _), v)) in info.params.iter().zip(args).enumerate() {
        match ext {
            ExternalType::Value { elem, rank, text } => {
                if v.elem_type() != *elem || v.rank() != *rank {
                    return Err(CallError::BadInput(format!(
                        "argument #{k} of entry point \"{entry}\" has type {text}, but the value given has type {}",
                        v.type_name()
                    )));
                }
            }
            ExternalType::Opaque(text) => {
                return Err(CallError::BadInput(format!(
                    "argument #{k} of entry point \"{entry}\" has opaque type {text}, which cannot be given as a value"
                )));
            }
        }
    }
    Ok(fun)
}

/// The signatures of the entry points of `prog`, in declaration order.
pub fn entry_points(prog: &crate::core::ir::Prog) -> Vec<EntryPoint> {
    prog.funs
        .iter()
        .filter_map(|f| f.entry.as_ref())
        .map(|e| EntryPoint {
            name: e.name.clone(),
            params: e.params.iter().map(|(t, _)| t.clone()).collect(),
            results: e.results.iter().map(|(t, _)| t.clone()).collect(),
            result_leaves: e.results.iter().map(|(_, n)| *n).collect(),
        })
        .collect()
}
