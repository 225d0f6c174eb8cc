//! The gradus compiler: a differentiable subset of Futhark.
//!
//! Compile a program from source, call its entry points on the reference interpreter, or
//! have it compiled to C and loaded ([`Backend::Native`]). Derivatives are part of the
//! language (`jvp`, `vjp` and the operators built on them), so a gradient is just another
//! entry point:
//!
//! ```
//! use gradus::ndarray::array;
//! use gradus::value::Value;
//! use gradus::{Backend, NativeOptions, Program};
//!
//! let source = "
//!   def loss (w: []f64) : f64 = f64.sum (map (\\x -> x * x) w)
//!   entry value (w: []f64) : f64 = loss w
//!   entry gradient (w: []f64) : []f64 = vjp loss w 1
//! ";
//! let prog = Program::from_source("loss.fut", source)?;
//! let w = Value::from_ndarray(array![1.0, -2.0, 0.5]);
//! let g = prog.call("gradient", vec![w.clone()])?;
//! assert_eq!(g[0].to_ndarray::<f64>(), Some(array![2.0, -4.0, 1.0].into_dyn()));
//!
//! // The same program as compiled C on all cores, where a C compiler is installed.
//! if gradus::backend::c::build::find_compiler().is_some() {
//!     let native = prog.with_backend(Backend::Native(NativeOptions::default()))?;
//!     let v = native.call("value", vec![w])?;
//!     assert_eq!(v[0].to_ndarray::<f64>(), Some(gradus::ndarray::arr0(5.25).into_dyn()));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Errors are [`diag::Diagnostics`] (compilation, with locations; `render()` formats them),
//! [`BackendError`] (setting up the native backend) and [`CallError`] (calls: unknown entry
//! point, arguments that do not fit, run-time errors of the program). Arrays go in and out as
//! [`value::Value`]s, which convert from and to the [`ndarray`] crate re-exported here.
//!
//! The pipeline, one module per stage (see docs/design.md):
//!
//! ```text
//! source -> syntax (AST with spans) -> types (typed AST) -> internalise (core IR)
//!        -> ad -> opt -> backend (interpreter | C)
//! ```

#![deny(missing_docs)]

pub mod ad;
pub mod backend;
pub mod core;
pub mod data;
pub mod derivative_check;
pub mod derive;
/// The former name of [`derivative_check`], kept for existing callers.
pub use derivative_check as check;
pub mod diag;
mod huge_pages;
pub mod internalise;
pub mod modules;
pub mod opt;
pub mod pipeline;
pub mod prelude;
pub mod program;
pub mod shard;
pub mod sparse;
pub mod syntax;
pub mod testspec;
pub mod types;
pub mod value;

pub use derive::{Derivative, DeriveError, Derived};
/// The `ndarray` crate, in the version [`value::Value::from_ndarray`] and
/// [`value::Value::to_ndarray`] use: depend on it through this path to avoid a version
/// mismatch.
pub use ndarray;
pub use program::{Backend, BackendError, CallError, NativeOptions, Program, RuntimeError};
