//! The one place that orders the compiler's stages.

use crate::diag::{Diagnostic, Diagnostics, SourceMap};
use crate::program::{CallError, EntryPoint, Program};
use crate::value::Value;

/// A program after every compile-time stage, ready to run.
pub struct Compiled {}

impl Compiled {
    pub(crate) fn entry_points(&self) -> Vec<EntryPoint> {
        Vec::new()
    }
    pub(crate) fn call(
        &self,
        _sources: &SourceMap,
        entry: &str,
        _args: Vec<Value>,
    ) -> Result<Vec<Value>, CallError> {
        Err(CallError::UnknownEntry(entry.to_string()))
    }
}

/// Runs every stage on `source`.
pub fn compile(path: &str, source: &str) -> Result<Program, Diagnostics> {
    let mut sources = SourceMap::new();
    sources.add(path, source);
    Err(Diagnostics {
        items: vec![Diagnostic::bug(
            "the compiler pipeline is not assembled yet",
        )],
        sources,
    })
}
