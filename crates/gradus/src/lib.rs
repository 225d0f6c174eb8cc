//! The gradus compiler: a differentiable subset of Futhark.
//!
//! The pipeline, one module per stage (see DESIGN.md):
//!
//! ```text
//! source -> syntax (AST with spans) -> types (typed AST) -> internalise (core IR)
//!        -> ad -> opt -> backend (interpreter | C)
//! ```

#![deny(missing_docs)]

pub mod ad;
pub mod backend;
pub mod check;
pub mod core;
pub mod data;
pub mod diag;
pub mod internalise;
pub mod modules;
pub mod opt;
pub mod pipeline;
pub mod prelude;
pub mod program;
pub mod syntax;
pub mod testspec;
pub mod types;
pub mod value;
