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
//! - [`parser`]: recursive descent with precedence climbing (docs/language.md §Precedence).
//! - [`print`](mod@print): a fully parenthesised printer, for `gradus dev --stage parse` and snapshots.
//!
//! Limits: nesting (parentheses, brackets, `if`, lambdas, types, modules, ...) deeper than
//! [`parser::MAX_DEPTH`] levels, and left-nested chains (`a + b + c ...`, `let` chains,
//! `a[i][j]...`) longer than [`parser::MAX_CHAIN`], are syntax errors. So the trees handed to
//! later stages have bounded depth. The parser runs on a thread of its own with a large stack.
//!
//! Choices a reader of the tree should know (details in [`ast`] and [`parser`]):
//!
//! - `a.b.c` written without spaces is one [`ast::QualName`] in an [`ast::ExpKind::Var`]; the
//!   type checker splits it into a module path and field accesses. Other field accesses
//!   (`(e).f`, `a[i].f`, `t.0`) are [`ast::ExpKind::Project`].
//! - `let a[i] = v` and `let r.f = v` are desugared to `let a = a with [i] = v` and
//!   `let r = r with f = v`; everything else is kept as written (sections, `M.(e)`, `|>`,
//!   parentheses as [`ast::ExpKind::Parens`]).
//! - `-` after an operand is binary (`f -1` is `f - 1`); `(-1)` is a negation.
//! - Inside index brackets `:` always separates slice parts: `a[i: i64]` is a slice.

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
pub mod renumber;

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
