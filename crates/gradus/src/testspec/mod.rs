//! Test blocks (`-- ==`) in `.fut` files (docs/language.md §Test blocks): parsing, dataset names,
//! random inputs and value comparison. Running the cases is the command line's job (`gradus test`).
//!
//! [`parse_test_file`] finds every block of a file's text and returns a [`TestFile`]: the
//! program's tags, its blocks (entry points and cases), and the items gradus reports without
//! running (`warning:`, `structure` for another pipeline) or cannot run (`property:`, `script`). A malformed block
//! is a [`SpecError`] with the line it is on. A [`Structure`] item counts the optimised
//! program's statements by kind ([`Structure::mismatches`]).
//!
//! [`ir_file`] reads and runs the pass file tests (`.ir` files of core IR, passes and
//! expected output).
//!
//! [`generate_random`] makes the values of a `random input` deterministically from the seed,
//! program path, entry point and case; [`compare_values`] applies the tolerance rule of
//! docs/language.md §Comparing values.

mod compare;
pub mod ir_file;
mod parse;
mod random;

#[cfg(test)]
mod tests;

pub use compare::{DEFAULT_TOLERANCE, compare_values};
pub use parse::parse_test_file;
pub use random::{generate_random, random_seed};

use crate::value::{PrimType, Value};
use std::fmt;

/// Everything the test blocks of one file say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestFile {
    /// Tags of the whole program (`tags { ... }` in the first block).
    pub tags: Vec<String>,
    /// An expected compile-time error (`error: REGEX` at the top of the first block).
    pub compile_error: Option<String>,
    /// Property names (`property:`); not supported, each reported as an error case.
    pub properties: Vec<String>,
    /// Items reported as skipped (`structure` for another pipeline, `warning: ...`),
    /// described in one line each.
    pub skipped_items: Vec<String>,
    /// `structure { ... }` items: statement counts after the optimiser.
    pub structures: Vec<Structure>,
    /// The blocks with cases, in file order.
    pub blocks: Vec<Block>,
}

impl TestFile {
    /// Whether the file is a compile test: no case, no expected compile error, no property.
    pub fn is_compile_test(&self) -> bool {
        self.compile_error.is_none()
            && self.properties.is_empty()
            && self.blocks.iter().all(|b| b.cases.is_empty())
    }
}

/// A `structure { KIND N ... }` item: how many statements of each kind (or nesting path of
/// kinds, `Map/BinOp`) the optimised program has, in all its functions
/// ([`crate::core::structure::statement_counts`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    /// 1-based line of the item.
    pub line: usize,
    /// The kinds or paths and their expected counts, in the order written.
    pub counts: Vec<(String, usize)>,
}

impl Structure {
    /// What differs between the expected counts and those of `prog`, one line per kind.
    pub fn mismatches(&self, prog: &crate::core::ir::Prog) -> Vec<String> {
        let actual = crate::core::structure::statement_counts(prog);
        self.counts
            .iter()
            .filter_map(|(k, want)| {
                let got = actual.get(k).copied().unwrap_or(0);
                (got != *want).then(|| format!("{k}: expected {want}, found {got}"))
            })
            .collect()
    }
}

/// One block: the entry points its cases run, and the cases.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Entry points (`entry:`; `main` by default).
    pub entries: Vec<String>,
    /// The cases, in order.
    pub cases: Vec<Case>,
    /// 0-based position of the block among the file's blocks.
    pub index: usize,
}

/// One case of a block.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// 0-based position in its block.
    pub index: usize,
    /// The quoted name, if given.
    pub name: Option<String>,
    /// Run tags written before `input` (`compiled`, `random`, `no_native`, ...).
    pub run_tags: Vec<String>,
    /// Where the input values come from.
    pub input: Input,
    /// What must happen.
    pub expected: Expected,
    /// 1-based line of the case in the file.
    pub line: usize,
}

/// The input of a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Literal values, with their source text (for the dataset name).
    Values(Vec<Value>, String),
    /// A data file, relative to the program's directory.
    File(String),
    /// `random input { ... }`.
    Random(Vec<RandomItem>),
    /// `script input` (not supported): its text.
    Script(String),
}

/// The expected outcome of a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    /// Nothing: the run must succeed.
    Success,
    /// `output { ... }`.
    Values(Vec<Value>),
    /// `output @ PATH`.
    File(String),
    /// `auto output`.
    Auto,
    /// `error: REGEX`: a run-time error whose text matches.
    Error(String),
}

/// One item of a `random input`.
#[derive(Clone, Debug, PartialEq)]
pub enum RandomItem {
    /// A type with literal sizes: generate a value of it.
    Generate {
        /// Element type.
        elem: PrimType,
        /// Sizes, outermost first (empty for a scalar).
        shape: Vec<usize>,
    },
    /// A scalar literal used as it is.
    Literal(Value),
}

impl fmt::Display for RandomItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RandomItem::Generate { elem, shape } => {
                for d in shape {
                    write!(f, "[{d}]")?;
                }
                write!(f, "{elem}")
            }
            RandomItem::Literal(v) => f.write_str(&crate::data::write_text(v)),
        }
    }
}

impl Case {
    /// The dataset name that identifies the case in reports (docs/language.md §Block syntax).
    pub fn dataset_name(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        match &self.input {
            Input::File(p) => p.strip_suffix(".gz").unwrap_or(p).to_string(),
            Input::Random(items) => items
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            Input::Values(_, text) | Input::Script(text) => {
                let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let cut: String = flat.chars().take(50).collect();
                format!("#{} (\"{cut}\")", self.index)
            }
        }
    }

    /// Whether a run tag is present.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.run_tags.iter().any(|t| t == tag)
    }
}

/// A malformed test block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// 1-based line in the `.fut` file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "malformed test block at line {}: {}",
            self.line, self.message
        )
    }
}

impl std::error::Error for SpecError {}
