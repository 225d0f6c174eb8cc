//! Fuzz target: the parser and the type checker (with the prelude in scope). Every input must
//! give a checked program or a diagnostic, never a panic or a hang.
#![no_main]

use gradus_fuzz::robust::{Target, run_one};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_one(Target::TypeCheck, data));
