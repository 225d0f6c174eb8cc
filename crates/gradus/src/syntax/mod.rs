//! The front end's first stage: source text to an abstract syntax tree with spans.
//!
//! Takes the UTF-8 text of one file and returns its declarations ([`ast::Dec`]), or the first
//! syntax error, precisely located (`expected `)`, found `in``). Nothing is resolved here:
//! names are strings, and whether `a.b` is a qualified name or a field access is left to the
//! type checker (see [`ast`]). The parser never panics and limits its nesting depth, so any
//! input gives `Ok` or `Err`. Every expression and pattern gets a fresh [`ast::NodeId`] from
//! the caller's counter.
//!
//! - [`lexer`]: tokens with spans, including the whitespace facts the grammar needs
//!   (`f[1]` indexes, `f [1]` applies).
//! - [`parser`]: recursive descent with precedence climbing (LANGUAGE.md 5.2).
//! - [`print`]: a fully parenthesised printer, for `gradus dev --stage parse` and snapshots.

// Never panic on user input (STYLE.md item 15).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::string_slice
    )
)]

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod print;

use crate::diag::{Diagnostic, FileId};
use ast::NodeIdGen;

pub use parser::parse_exp;
pub use print::{print_decs, print_exp, print_type};

/// Parses one file into its declarations, taking node ids from `ids`.
pub fn parse_file(
    file: FileId,
    text: &str,
    ids: &mut NodeIdGen,
) -> Result<Vec<ast::Dec>, Diagnostic> {
    parser::parse_file(file, text, ids)
}
