//! Running programs: the Rust API (`Program`: compile, call, errors, results handed over),
//! the native backends' code (allocation slots, compile units, in-place maps, split
//! functions), the generated C under the sanitizers, and the `gpu` kernels compiled as CUDA.
//! `common` is the corpus walk shared with the `backend_diff` test binary; `lower_common` the
//! helpers of the `lower` test binary.

mod common;
#[path = "../lower/common.rs"]
mod lower_common;

mod alloc_slots;
mod api;
mod compile_units;
mod gpu_cuda_kernels;
mod gpu_sub_hist;
mod in_place;
mod map_takes_input;
mod program_call_with;
mod sanitize;
mod sparse_on_demand;
mod split_functions;
