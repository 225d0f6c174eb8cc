//! The `gradus` command (LANGUAGE.md 13): `gradus run`, `gradus test`, `gradus dev`,
//! `gradus check`, `gradus bench`, `gradus c`, `gradus gradbench`.
//!
//! Exit codes: 0 success; 1 compile error (run) or failed/erroneous cases (test); 2 invalid
//! usage or a run-time error in the program (run); 3 bad input data (run); 4 an internal
//! error in gradus. Panics inside the compiler are caught and reported, never shown raw.

mod bench;
mod c_cmd;
mod check;
mod common;
mod dev;
mod gradbench;
mod optargs;
mod run;
mod test;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// gradus: a differentiable subset of Futhark.
#[derive(Parser, Debug)]
#[command(name = "gradus", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile a program and run one entry point on values read from standard input.
    Run(run::RunArgs),
    /// Run the test blocks (`-- ==`) of programs.
    Test(test::TestArgs),
    /// Developer tools: print the output of a compiler stage.
    Dev(dev::DevArgs),
    /// Compare an entry point's derivatives with central finite differences.
    Check(check::CheckArgs),
    /// Time entry points on the inputs of the test blocks.
    Bench(bench::BenchArgs),
    /// Write a program as a C library: shared library, header and an example caller.
    C(c_cmd::CArgs),
    /// Act as a GradBench tool: answer GradBench's protocol on standard input and output.
    Gradbench(gradbench::GradbenchArgs),
}

fn main() -> ExitCode {
    common::install_quiet_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(code.clamp(0, 255) as u8);
        }
    };
    let code = match cli.command {
        Command::Run(a) => run::run(a),
        Command::Test(a) => test::test(a),
        Command::Dev(a) => dev::dev(a),
        Command::Check(a) => check::check(a),
        Command::Bench(a) => bench::bench(a),
        Command::C(a) => c_cmd::c(a),
        Command::Gradbench(a) => gradbench::gradbench(a),
    };
    ExitCode::from(code)
}
