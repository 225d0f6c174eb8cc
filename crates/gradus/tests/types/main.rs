//! The front end after parsing: the type checker (inferred types, diagnostics, random
//! programs) and module elimination's errors. `common` parses and checks a program with the
//! real prelude.

mod common;

mod check;
mod diagnostics;
mod fuzz;
mod modules;
