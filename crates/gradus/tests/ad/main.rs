//! Automatic differentiation: the AD pass on core IR, forward and reverse mode against the
//! definitions and finite differences, derivatives on demand, the cost of derivatives, and
//! the partial-derivative table tied to `gradus_num` and to the primitives' evaluation.
//! `lower_common` holds the helpers of the `lower` test binary.
//!
//! `derivative_tables` turns the IR verifier on for the whole process, so every compilation
//! of this binary is verified, the finite-difference check of every AD test program
//! (`fd_property`) included.

#[path = "../lower/common.rs"]
mod lower_common;

mod derivative_tables;
mod derive;
mod fd_property;
mod jvp_cost;
mod pass;
mod vjp_cost;
mod vjp_kept_values;
mod vjp_nested_loops;
mod vjp_one_hot_adjoint;
mod vjp_revcomp;
mod vjp_rules;
mod vjp_write_once;
