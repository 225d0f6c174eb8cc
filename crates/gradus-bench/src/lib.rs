//! Benchmark programs shared by the Criterion harnesses in `benches/`.
