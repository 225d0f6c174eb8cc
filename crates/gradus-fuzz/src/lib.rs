//! Differential testing and fuzzing of the gradus compiler.
//!
//! * [`generate`] writes random well-typed programs of the language's first tier ([`ast`]) and
//!   random inputs for them, reproducibly from a seed;
//! * [`diff`] runs a program on the reference interpreter (the oracle) and on every native
//!   configuration, optimised and not, and compares;
//! * [`adcheck`] checks the derivatives of random smooth programs against finite differences,
//!   each other (transposition), and their vector forms;
//! * [`sparse_check`] checks the on-demand sparse Jacobians and Hessians (`Program::sparse`)
//!   of the same functions against the dense ones, at several points with one pattern;
//! * [`spec`] writes probes whose results the fuzzer knows from the language's definition
//!   (conversions between every pair of types, IEEE float identities) and checks them;
//! * [`shrink`] reduces a failing program and input and writes a test-block program;
//! * [`campaign`] ties these together for a range of seeds and summarises;
//! * [`robust`] fuzzes the readers (parser, type checker, core-IR text, values) for panics and
//!   hangs.
//!
//! `cargo test --release -p gradus-fuzz` runs a fixed set of seeds; the binary runs the long
//! mode (`cargo run --release -p gradus-fuzz -- --minutes 60`).

pub mod adcheck;
pub mod ast;
pub mod campaign;
pub mod diff;
pub mod generate;
pub mod robust;
pub mod shrink;
pub mod sparse_check;
pub mod spec;
