//! `gradus dev`: print the output of a compiler stage, the registry of passes, or the result
//! of running some optimiser passes on a core IR file (`--pass`, what the pass file tests of
//! `crates/gradus/tests/ir` run).

use crate::common::catch_panic;
use clap::Args;
use gradus::pipeline::{Stage, dump_stage_with};
use std::path::PathBuf;

/// Arguments of `gradus dev`.
#[derive(Args, Debug)]
pub struct DevArgs {
    /// The stage whose output to print: parse (the AST), typed (the AST with inferred types),
    /// core (core IR after internalisation), or any later stage of the pipeline.
    #[arg(long, value_parser = parse_stage, required_unless_present_any = ["list_passes", "pass"], conflicts_with = "pass")]
    stage: Option<Stage>,
    /// Run these optimiser passes (comma-separated; `all` for the whole optimiser) on a core
    /// IR file instead, and print the result renumbered. The file may be a pass file test: the
    /// part before its `-- output:` line is read. Cleanup passes `dce` and `simplify` run too.
    #[arg(long, value_delimiter = ',', value_name = "PASS,...")]
    pass: Vec<String>,
    /// With --pass: print the rules that fired, as `-- fired: RULE COUNT` lines before the
    /// result.
    #[arg(long, requires = "pass")]
    rules: bool,
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
    if !a.pass.is_empty() {
        let Some(program) = a.program else {
            eprintln!("Error: gradus dev --pass needs a core IR file");
            return 2;
        };
        return run_passes(&a.pass, a.rules, &program);
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

/// `gradus dev --pass`: runs optimiser passes on a core IR file under the float policy of the
/// command line (strict unless `--fast-math`) and prints the result. Exit 1 for input that
/// does not parse or verify, or an unknown pass; 4 if the compiler panics.
fn run_passes(passes: &[String], rules: bool, program: &std::path::Path) -> u8 {
    use gradus::testspec::ir_file;
    let path = program.display().to_string();
    let text = match std::fs::read_to_string(program) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: cannot read {path}: {e}");
            return 1;
        }
    };
    let strict = !gradus::opt::fast_math_from_env();
    let run = || {
        let prog = ir_file::parse_verified(&path, ir_file::input_part(&text))?;
        ir_file::run_passes(prog, passes, strict)
    };
    match catch_panic(run) {
        Ok(Ok((prog, stats))) => {
            if rules {
                for (rule, n) in &stats.rules {
                    println!("-- fired: {rule} {n}");
                }
            }
            let printed = gradus::core::print::print_prog(&gradus::core::renumber::renumber(&prog));
            print!("{printed}");
            if !printed.ends_with('\n') {
                println!();
            }
            0
        }
        Ok(Err(e)) if e.starts_with("error") => {
            eprintln!("{}", e.trim_end());
            1
        }
        Ok(Err(e)) => {
            eprintln!("Error: {}", e.trim_end());
            1
        }
        Err(p) => {
            eprintln!("internal error: gradus panicked: {p}");
            4
        }
    }
}
