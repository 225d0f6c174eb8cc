//! The tape's tests but the allocation count (which installs a global allocator and has a
//! binary of its own): the primitives' partials, the benchmark programs, random programs,
//! structured parameters, second order, statements, vector operations, coefficients, fused sums, complexity and job
//! structure, and the shared vocabulary.

mod coefficients;
mod fused;
mod primitives;
mod programs;
mod properties;
mod scalars;
mod second_order;
mod statements;
mod structure;
mod vector_ops;
mod vocabulary;
