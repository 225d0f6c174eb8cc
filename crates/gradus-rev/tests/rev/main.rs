//! The reversible eDSL's tests but the allocation count (a global allocator, in a binary of
//! its own) and the compile-fail cases (`trybuild`): the documented API, run-time errors,
//! the examples and the benchmark programs (bundle adjustment, GMM) against reference values,
//! instruction round trips, Jacobians, the standard library, user primitives and the shared
//! vocabulary.

mod bundle_adjustment;
mod documented_api;
mod errors;
mod examples;
mod examples_core;
mod gmm;
mod instructions;
mod jacobian;
mod stdlib;
mod user_primitive;
mod vocabulary;
