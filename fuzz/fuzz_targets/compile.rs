//! Fuzz target: the whole compiler up to the optimised core IR (parse, type check,
//! internalisation, AD, optimiser; no C backend). Every input must give a program or
//! diagnostics, never a panic or a hang. Slower than the reader targets, and beyond them: the
//! inputs that reach the later stages are the mutations that still type-check.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = gradus::pipeline::compile("fuzz.fut", &text);
});
