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

/// A stage whose output `gradus dev --stage` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The abstract syntax tree.
    Parse,
    /// The AST with inferred types.
    Typed,
    /// Core IR after internalisation.
    Core,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 3] = [Stage::Parse, Stage::Typed, Stage::Core];
    /// The stage's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Typed => "typed",
            Stage::Core => "core",
        }
    }
}

/// Runs the pipeline up to `stage` and returns that stage's printed output.
pub fn dump_stage(path: &str, source: &str, stage: Stage) -> Result<String, Diagnostics> {
    let mut sources = SourceMap::new();
    sources.add(path, source);
    Err(Diagnostics {
        items: vec![Diagnostic::bug(format!(
            "stage {} is not assembled yet",
            stage.name()
        ))],
        sources,
    })
}
