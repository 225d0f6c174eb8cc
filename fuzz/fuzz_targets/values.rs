//! Fuzz target: the value readers (the textual and the binary format of docs/language.md §Value
//! formats, mixed in one stream, and gzip-compressed streams). Every input must give values or an
//! error with its position, never a panic, a hang or an allocation out of proportion to the input.
#![no_main]

use gradus_fuzz::robust::{Target, run_one};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_one(Target::Values, data));
