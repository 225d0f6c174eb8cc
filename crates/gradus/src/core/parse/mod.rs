//! Reads the text form of core IR (the syntax is described in [`crate::core::print`]) back into
//! a [`Prog`], so that `parse(print(p))` prints as `p` does. Unit tests of passes write their
//! input programs in this syntax.
//!
//! Takes any text and never panics: errors are [`Diagnostic`]s with the span of the offending
//! token in the text (file [`FileId`] as given). Nesting is limited to [`MAX_DEPTH`] levels.
//!
//! Variables are written `hint_id`; the number becomes the [`Var`] and the name table is
//! built with the same numbering. Numbers that are never bound get the hint `?` and the
//! placeholder type `bool` (the verifier reports uses of them). A number must keep one hint
//! throughout the text. Types come from the binding sites: parameters, patterns, lambda and
//! loop parameters, loop counters; size parameters are `i64`. Constants need their suffix
//! (`3i64`, `1.5f64`), except dimensions in types, where a bare integer is an `i64`.
//! Spans of statements and functions are left at their default. Comments run from `--` to the
//! end of the line.
//!
//! This is a syntax reader, not a checker: a program that parses may still fail
//! [`crate::core::verify`] (a variable bound twice keeps the type of its first binding).

use crate::core::ir::{Prog, Type};
use crate::core::prim::PrimOp;
use crate::diag::{Diagnostic, FileId, Span};
use std::collections::{BTreeMap, HashMap};
use tokens::{Tok, lex};

mod calls;
mod funs;
mod stms;
mod tokens;
mod types;

/// Deepest nesting of bodies and types the parser accepts.
pub const MAX_DEPTH: usize = 128;

/// Largest variable number the parser accepts (the name table is dense).
pub const MAX_VAR: u32 = 1 << 22;

/// Parses a program in file 0.
pub fn parse_prog(text: &str) -> Result<Prog, Diagnostic> {
    parse_prog_in(FileId(0), text)
}

/// Parses a program; spans in errors refer to `file`.
pub fn parse_prog_in(file: FileId, text: &str) -> Result<Prog, Diagnostic> {
    let toks = lex(file, text)?;
    let mut p = Parser {
        file,
        toks,
        pos: 0,
        end: text.len(),
        vars: BTreeMap::new(),
        depth: 0,
        prims: prim_table(),
    };
    let mut funs = Vec::new();
    while !p.at_end() {
        funs.push(p.fun()?);
    }
    Ok(Prog {
        names: p.name_table(),
        funs,
    })
}

/// Checks that `prog` survives printing and parsing: `parse(print(prog))` succeeds, prints
/// the same text, and has the same functions (compared by their `Debug` forms, so that NaN
/// constants compare equal; spans, which are not printed, are ignored). For snapshot tests of
/// any stage (STYLE.md item 6): `assert_eq!(check_round_trip(&prog), Ok(()))`.
pub fn check_round_trip(prog: &Prog) -> Result<(), String> {
    let printed = crate::core::print::print_prog(prog);
    let again = parse_prog(&printed).map_err(|d| {
        format!(
            "the printed program does not parse: {}\n{printed}",
            d.message
        )
    })?;
    let reprinted = crate::core::print::print_prog(&again);
    if reprinted != printed {
        return Err(format!(
            "printing the parsed program gives different text:\n{printed}\n---\n{reprinted}"
        ));
    }
    let strip = |p: &Prog| {
        let mut funs = p.funs.clone();
        for f in &mut funs {
            f.span = Span::default();
            crate::core::renumber::map_aux_body(&mut f.body, &mut |aux| {
                aux.span = Span::default();
                aux.callers.clear();
            });
        }
        format!("{funs:?}")
    };
    if strip(prog) != strip(&again) {
        return Err(format!(
            "the parsed program differs from the original (hints that are not identifiers?):\n{printed}"
        ));
    }
    Ok(())
}

/// The primitive operation with this printed name (`add_f64`, `conv_i32_f64`).
pub fn prim_op_from_name(name: &str) -> Option<PrimOp> {
    prim_table().get(name).copied()
}

pub use crate::core::prim::all_prim_ops;

/// Every primitive operation by its printed name, built once.
fn prim_table() -> &'static HashMap<String, PrimOp> {
    static TABLE: std::sync::OnceLock<HashMap<String, PrimOp>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| all_prim_ops().into_iter().map(|o| (o.name(), o)).collect())
}

/// What the parser knows about one variable number.
struct VarInfo {
    hint: String,
    ty: Option<Type>,
}

struct Parser {
    file: FileId,
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    end: usize,
    vars: BTreeMap<u32, VarInfo>,
    depth: usize,
    prims: &'static HashMap<String, PrimOp>,
}

type R<T> = Result<T, Diagnostic>;
