//! The programs under `tests/programs/regressions` compile without a single C compiler
//! warning (`-Wall -Wextra -Werror`, as the fuzzer builds them) on the sequential and
//! multicore backends, optimised and not: several of them were found by the fuzzer as
//! generated C that did not compile cleanly, which the corpus test (plain flags) cannot see.

use gradus::program::Program;
use gradus_fuzz::diff::{self, Config};
use std::path::Path;

#[test]
fn regression_programs_compile_without_warnings() {
    diff::configure_c_compiler("-O1");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the regressions folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fut"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no programs in {}", dir.display());
    let configs = [
        Config::C { opt: false },
        Config::C { opt: true },
        Config::Multicore {
            opt: false,
            threads: 2,
        },
    ];
    let mut failures = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a readable program");
        let name = file.display().to_string();
        for config in configs {
            let prog = match Program::from_source_with(&name, &source, &config.opt_options()) {
                Ok(p) => p,
                // Programs that are meant not to compile are the corpus test's business.
                Err(_) => continue,
            };
            if let Err(e) = prog.with_backend(config.backend()) {
                failures.push(format!("{name} [{config:?}]: {}", e.message()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
