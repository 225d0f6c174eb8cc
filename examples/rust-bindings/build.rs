fn main() {
    gradus_build::Program::new("../../benchmarks/gmm.fut")
        .threads_default()
        .compile()
        .unwrap();
}
