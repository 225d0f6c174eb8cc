//! Backends: what runs core IR.
//!
//! * [`interp`]: the reference interpreter. It defines the meaning of every core program;
//!   other backends are tested against it.
//!
//! A backend takes verified core IR and never panics on it: anything it cannot run becomes a
//! [`crate::program::RuntimeError`] (user errors with the LANGUAGE.md 8.5 messages, compiler
//! bugs with messages starting `internal error:`).

pub mod interp;
