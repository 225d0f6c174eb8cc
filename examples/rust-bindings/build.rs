fn main() {
    // The GMM benchmark on all cores; a program over other element types on one thread.
    gradus_build::Program::new("../../benchmarks/gmm.fut")
        .threads_default()
        .compile()
        .unwrap();
    gradus_build::Program::new("src/kinds.fut")
        .compile()
        .unwrap();
}
