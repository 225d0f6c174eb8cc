//! `gradus dev`: print the output of a compiler stage.

use crate::common::catch_panic;
use clap::Args;
use gradus::pipeline::{Stage, dump_stage_with};
use std::path::PathBuf;

/// Arguments of `gradus dev`.
#[derive(Args, Debug)]
pub struct DevArgs {
    /// The stage whose output to print: parse (the AST), typed (the AST with inferred types),
    /// core (core IR after internalisation), or any later stage of the pipeline.
    #[arg(long, value_parser = parse_stage, required_unless_present = "list_passes")]
    stage: Option<Stage>,
    /// Print the IR after every pass to standard error (verified, as in debug builds).
    #[arg(long)]
    trace_passes: bool,
    /// Print the registry of the compiler's passes (name, phase, what it does) and exit.
    #[arg(long)]
    list_passes: bool,
    /// The program.
    #[arg(required_unless_present = "list_passes")]
    program: Option<PathBuf>,
    #[command(flatten)]
    opt: crate::optargs::OptArgs,
}

/// Parses a stage name, accepting every stage the pipeline lists.
fn parse_stage(s: &str) -> Result<Stage, String> {
    Stage::ALL
        .into_iter()
        .find(|st| st.name() == s)
        .ok_or_else(|| {
            let names: Vec<_> = Stage::ALL.iter().map(|st| st.name()).collect();
            format!(
                "unknown stage `{s}` (expected one of: {})",
                names.join(", ")
            )
        })
}

/// Runs `gradus dev`; returns the exit code.
pub fn dev(a: DevArgs) -> u8 {
    if a.list_passes {
        print!("{}", gradus::pipeline::passes::pass_table());
        return 0;
    }
    let (Some(stage), Some(program)) = (a.stage, a.program) else {
        eprintln!("Error: gradus dev needs --stage and a program");
        return 2;
    };
    if a.trace_passes {
        // SAFETY: set before any thread of this process reads the environment.
        unsafe { std::env::set_var("GRADUS_TRACE_PASSES", "1") };
    }
    if a.trace_passes {
        gradus::pipeline::passes::verify_every_pass();
    }
    let path = program.display().to_string();
    let source = match std::fs::read_to_string(&program) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: cannot read {path}: {e}");
            return 1;
        }
    };
    match catch_panic(|| dump_stage_with(&path, &source, stage, &a.opt.options())) {
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
