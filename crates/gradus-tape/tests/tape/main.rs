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

/// The gradient of `f` at `x` by forward mode, one `jvp` per input: the reference the
/// reverse sweeps are compared with.
fn forward_gradient(
    x: &[f64],
    f: impl Fn(&[gradus_tape::Dual<f64>]) -> gradus_tape::Dual<f64>,
) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let mut e = vec![0.0; x.len()];
            e[i] = 1.0;
            gradus_tape::jvp(x, &e, |d| vec![f(d)]).1[0]
        })
        .collect()
}
