//! Lowering tests that need the default float mode, in which the lowering may reorder float
//! operations (extremes computed in lanes, a triangular adjoint's rows run longest first):
//! the tests of the `lower` binary force exact floats for the whole process
//! (`gradus::backend::c::build::force_exact_floats`). `common` is the `lower` binary's helpers.

#[path = "../lower/common.rs"]
mod common;

mod extreme_lanes;
mod loop_sums;
mod shortening_order;
