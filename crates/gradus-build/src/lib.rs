//! Typed Rust bindings of gradus programs, made at build time.
//!
//! In `build.rs`, [`Program`] compiles a `.fut` file with the native backend (generated C,
//! compiled by the `cc` crate into a static library linked into your crate) and writes a Rust
//! module with one method per entry point: `ndarray` views in, owned arrays and numbers out,
//! run-time errors as [`runtime::Error`] with the message and source locations. Nothing is
//! compiled at run time.
//!
//! ```toml
//! [dependencies]
//! gradus-build = { version = "0.1", default-features = false }  # the run-time part
//! [build-dependencies]
//! gradus-build = "0.1"                                           # the compiler
//! ```
//!
//! ```no_run
//! // build.rs: fn main() { ... }
//! gradus_build::Program::new("src/gmm.fut").threads_default().compile().unwrap();
//! ```
//!
//! ```ignore
//! // src/main.rs
//! mod gmm {
//!     include!(concat!(env!("OUT_DIR"), "/gmm.rs"));
//! }
//! use gmm::ndarray::{Array1, Array2};
//!
//! let ctx = gmm::Context::new()?;
//! let (d_alphas, d_means, d_icf) =
//!     ctx.gradient(alphas.view(), means.view(), icf.view(), x.view(), gamma, m)?;
//! ```
//!
//! Derivatives need not be entry points of the source: `.derivative(Derivative::Grad,
//! "objective", Some(&[0, 1, 2]))` adds the gradient of `objective` with respect to its first
//! three parameters as the method `grad_objective` (likewise `Vjp`, `Jvp`, `Jacobian`,
//! `Hessian`; docs/python.md §What is derived).
//!
//! The module re-exports [`ndarray`] (as `gmm::ndarray`), the version its signatures use:
//! build your arrays with it, or depend on the same major version, so the types agree. Array
//! arguments in standard (row-major) layout are read where they lie; others are copied once.
//! Programs built with [`Program::threads_default`] link the OpenMP runtime (`libgomp` with
//! gcc, `libomp` with clang). `examples/rust-bindings` in the repository is a complete
//! project.

#![deny(missing_docs)]

pub use ndarray;

pub mod runtime;

#[cfg(feature = "build")]
mod generate;

#[cfg(feature = "build")]
pub use generate::{BuildError, Program};

/// The kinds of derivative [`Program::derivative`] adds as entry points.
#[cfg(feature = "build")]
pub use gradus::Derivative;
