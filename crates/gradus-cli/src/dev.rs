//! `gradus dev`: print the output of a compiler stage.

use crate::common::catch_panic;
use clap::{Args, ValueEnum};
use gradus::pipeline::{Stage, dump_stage};
use std::path::PathBuf;

/// Arguments of `gradus dev`.
#[derive(Args, Debug)]
pub struct DevArgs {
    /// The stage whose output to print.
    #[arg(long, value_enum)]
    stage: StageArg,
    /// The program.
    program: PathBuf,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum StageArg {
    /// The abstract syntax tree, fully parenthesised.
    Parse,
    /// The AST with inferred types.
    Typed,
    /// Core IR after internalisation.
    Core,
}

/// Runs `gradus dev`; returns the exit code.
pub fn dev(a: DevArgs) -> u8 {
    let stage = match a.stage {
        StageArg::Parse => Stage::Parse,
        StageArg::Typed => Stage::Typed,
        StageArg::Core => Stage::Core,
    };
    let path = a.program.display().to_string();
    let source = match std::fs::read_to_string(&a.program) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: cannot read {path}: {e}");
            return 1;
        }
    };
    match catch_panic(|| dump_stage(&path, &source, stage)) {
        Ok(Ok(text)) => {
            print!("{text}");
            if !text.ends_with('\n') {
                println!();
            }
            0
        }
        Ok(Err(d)) => {
            eprint!("{}", d.render());
            1
        }
        Err(p) => {
            eprintln!("internal error: gradus panicked: {p}");
            4
        }
    }
}
