fn main() {
    // The GMM benchmark on all cores; a program over other element types on one thread.
    // The gradient of `objective` with respect to alphas, means and icf, derived on demand:
    // the method `grad_objective`.
    gradus_build::Program::new("../../benchmarks/gmm.fut")
        .threads_default()
        .derivative(
            gradus_build::Derivative::Grad,
            "objective",
            Some(&[0, 1, 2]),
        )
        .compile()
        .unwrap();
    gradus_build::Program::new("src/kinds.fut")
        .compile()
        .unwrap();
}
