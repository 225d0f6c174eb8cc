//! Backends: what runs core IR.
//!
//! * [`interp`]: the reference interpreter. It defines the meaning of every core program;
//!   other backends are tested against it.
//! * [`lower`]: core IR to an imperative IR with explicit buffers and (parallel) loops.
//! * [`c`]: the imperative IR printed as C, compiled, cached, loaded and called (the `c` and
//!   `multicore` backends).
//!
//! A backend takes verified core IR and never panics on it: anything it cannot run becomes a
//! [`crate::diag::RuntimeError`] (user errors with the docs/language.md §Run-time errors messages,
//! compiler
//! bugs with messages starting `internal error:`).

pub mod c;
pub mod interp;
pub mod lower;
