//! Benchmark programs shared by the Criterion harnesses in `benches/`, readers of the ADBench
//! input files and the generator of the synthetic benchmark inputs.

pub mod adbench;
pub mod generate;
