//! Fuzz target: the parser of the core IR's textual form (`gradus::core::parse`). Every input
//! must give a program or a diagnostic, never a panic or a hang.
#![no_main]

use gradus_fuzz::robust::{Target, run_one};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_one(Target::CoreText, data));
