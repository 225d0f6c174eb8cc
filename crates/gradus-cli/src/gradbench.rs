//! `gradus gradbench`: gradus as a GradBench tool. Speaks GradBench's protocol (one JSON
//! message per line on standard input, one response per line on standard output): `define`
//! compiles the module's program, `benchmarks/gradbench/MODULE.fut`, for the chosen backend;
//! `evaluate` converts the input to values, calls the function's entry point as often as the
//! input's `min_runs` and `min_seconds` ask, timing each call, and converts the results to the
//! eval's output. Diagnostics go to standard error.
//!
//! Exit codes: 0 at the end of the input; 2 invalid usage (no programs folder) or a line that
//! is not a message (it has no id to answer); 4 when standard output cannot be written.

mod evals;
mod json;
mod protocol;
mod runner;

use crate::common::BackendArgs;
use crate::optargs::OptArgs;
use clap::Args;
use protocol::{Incoming, Response};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Arguments of `gradus gradbench`.
#[derive(Args, Debug)]
pub struct GradbenchArgs {
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    opt: OptArgs,
    /// The folder of the programs, one per module (`MODULE.fut`). Default: `benchmarks/gradbench`
    /// in the repository holding the gradus binary, or else in the current directory or one
    /// above it.
    #[arg(long, value_name = "DIR")]
    programs: Option<PathBuf>,
}

/// The default programs folder: `benchmarks/gradbench` under the first ancestor of the
/// binary's location, then of the current directory, that has one.
fn default_programs() -> Option<PathBuf> {
    let mut starts = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        starts.push(exe.canonicalize().unwrap_or(exe));
    }
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    starts.iter().find_map(|s| {
        s.ancestors()
            .map(|a| a.join("benchmarks").join("gradbench"))
            .find(|d| d.is_dir())
    })
}

/// The response to a line that is not a message this tool reads but has an id.
fn unknown(id: serde_json::Value, kind: Option<String>, error: String) -> Response {
    match kind.as_deref() {
        Some("define") | Some("evaluate") => {
            Response::failure(id, format!("malformed message: {error}"), Vec::new())
        }
        _ => Response::ack(id),
    }
}

fn write_response(out: &mut impl Write, r: &Response) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Runs `gradus gradbench`; returns the exit code.
pub fn gradbench(a: GradbenchArgs) -> u8 {
    let dir = match a.programs.clone().or_else(default_programs) {
        Some(d) => d,
        None => {
            eprintln!(
                "Error: no benchmarks/gradbench folder found above the gradus binary or the current directory; give one with --programs DIR"
            );
            return 2;
        }
    };
    if !Path::new(&dir).is_dir() {
        eprintln!(
            "Error: the programs folder {} does not exist",
            dir.display()
        );
        return 2;
    }
    let mut runner = runner::Runner::new(dir, a.backend.clone(), a.opt.options());
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("Error: cannot read standard input: {e}");
                return 2;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let response = match protocol::parse_line(&line) {
            Ok(Incoming::Message(m)) => runner.handle(m),
            Ok(Incoming::Unknown { id, kind, error }) => unknown(id, kind, error),
            Err(e) => {
                eprintln!("Error: line {} of the input is not a message: {e}", n + 1);
                return 2;
            }
        };
        if write_response(&mut stdout, &response).is_err() {
            return 4;
        }
    }
    0
}
