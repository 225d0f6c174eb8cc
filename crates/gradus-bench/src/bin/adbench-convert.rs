//! Converts an ADBench input file, or generates one of the specified synthetic inputs, into
//! the argument values of the matching `benchmarks/*.fut` entry points, written to standard
//! output in gradus's binary value format (or the textual one with `--text`):
//!
//! ```text
//! adbench-convert gmm ../shared/data/adbench/gmm/1k/gmm_d10_K25.txt > gmm_d10_K25.in
//! gradus run benchmarks/gmm.fut -e objective < gmm_d10_K25.in
//! ```

use gradus::data::{write_binary_into, write_text};
use gradus::value::Value;
use gradus_bench::adbench::{Ba, Gmm, Hand, Lstm};
use gradus_bench::generate;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "usage: adbench-convert [--text] KIND ARGS...
  gmm FILE                 ADBench GMM file (replicate-point files are expanded)
  ba FILE                  ADBench BA file (expanded to n cameras, m points, p observations)
  hand FILE                ADBench HAND file, simple variant (model/ next to FILE)
  hand-complicated FILE    ADBench HAND file, complicated variant
  lstm FILE                ADBench LSTM file
  gmm-synthetic D K N      synthetic GMM instance (benchmarks/README.md §GMM)
  kmeans K N D             k-means points and initial centres (5.3)
  nnmf M N R               NNMF data A and factors W, H (6.3)
  micro N                  micro-benchmark x, y, s (7)
  project N                BA project camera and N points (8.3)";

fn sizes(args: &[String], names: &[&str]) -> Result<Vec<usize>, String> {
    if args.len() != names.len() {
        return Err(format!(
            "expected {} arguments: {}",
            names.len(),
            names.join(" ")
        ));
    }
    args.iter()
        .zip(names)
        .map(|(a, n)| {
            a.parse::<usize>()
                .map_err(|_| format!("{n} must be a non-negative integer, found \"{a}\""))
        })
        .collect()
}

fn file(args: &[String]) -> Result<&Path, String> {
    match args {
        [f] => Ok(Path::new(f)),
        _ => Err("expected one file name".to_string()),
    }
}

fn values(kind: &str, args: &[String]) -> Result<Vec<Value>, String> {
    let too_big = || "the sizes are too large".to_string();
    let e = |e: gradus_bench::adbench::InputError| e.to_string();
    Ok(match kind {
        "gmm" => Gmm::read(file(args)?).map_err(e)?.to_values(),
        "ba" => Ba::read(file(args)?).map_err(e)?.to_values(),
        "hand" => Hand::read(file(args)?, false).map_err(e)?.to_values(),
        "hand-complicated" => Hand::read(file(args)?, true).map_err(e)?.to_values(),
        "lstm" => Lstm::read(file(args)?).map_err(e)?.to_values(),
        "gmm-synthetic" => {
            let s = sizes(args, &["D", "K", "N"])?;
            generate::gmm(s[0], s[1], s[2])
                .ok_or_else(too_big)?
                .to_values()
        }
        "kmeans" => {
            let s = sizes(args, &["K", "N", "D"])?;
            if s[0] > s[1] {
                return Err(format!("K ({}) must not exceed N ({})", s[0], s[1]));
            }
            generate::kmeans(s[0], s[1], s[2]).ok_or_else(too_big)?
        }
        "nnmf" => {
            let s = sizes(args, &["M", "N", "R"])?;
            generate::nnmf(s[0], s[1], s[2]).ok_or_else(too_big)?
        }
        "micro" => generate::micro(sizes(args, &["N"])?[0]),
        "project" => generate::project(sizes(args, &["N"])?[0]).ok_or_else(too_big)?,
        _ => return Err(format!("unknown kind \"{kind}\"")),
    })
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let text = args.first().is_some_and(|a| a == "--text");
    if text {
        args.remove(0);
    }
    let Some(kind) = args.first().cloned() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if kind == "-h" || kind == "--help" {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let vals = match values(&kind, &args[1..]) {
        Ok(v) => v,
        Err(m) => {
            eprintln!("adbench-convert: {m}\n{USAGE}");
            return ExitCode::from(1);
        }
    };
    let mut out = Vec::new();
    for v in &vals {
        if text {
            out.extend_from_slice(write_text(v).as_bytes());
            out.push(b'\n');
        } else {
            write_binary_into(v, &mut out);
        }
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(&out).and_then(|_| stdout.flush()) {
        // A closed pipe (e.g. `| head`) is not worth a failure message.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("adbench-convert: cannot write the output: {e}");
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
