//! `gradus check`: an entry point's derivatives against central finite differences: its
//! forward derivative (`jvp`) along every input, and its reverse derivative (`vjp`) by the
//! transposition identity `<vjp f x ybar, xdot> = <ybar, jvp f x xdot>` and finite differences
//! along a random direction.

use crate::common::{catch_panic, check_inputs};
use clap::Args;
use gradus::data::{Reader, decompress};
use gradus::derivative_check::{CheckOptions, check_jvp_with, check_vjp_with};
use gradus::program::ExternalType;
use gradus::value::{Array, Buffer, PrimType, Scalar, Value};
use gradus_check::SplitMix64;
use std::io::Read;
use std::path::PathBuf;

/// Arguments of `gradus check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The program.
    program: PathBuf,
    #[command(flatten)]
    opt: crate::optargs::OptArgs,
    /// Entry point whose derivatives to check.
    #[arg(short = 'e', long = "entry-point", default_value = "main")]
    entry: String,
    /// Read the point from FILE instead of standard input.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Check at random inputs (every dimension of size `--size`) instead of reading them.
    #[arg(long)]
    random: bool,
    /// Size of every dimension of random inputs.
    #[arg(long, default_value_t = 3)]
    size: usize,
    /// Largest accepted `|ad - fd| / max(1, |fd|)` (pairs involving `f32` are allowed 100×
    /// this, since their finite differences are only accurate to about 1e-3).
    #[arg(long, default_value_t = 1e-4)]
    tolerance: f64,
    /// Seed for random inputs and directions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    backend: crate::common::BackendArgs,
}

fn random_value(t: &ExternalType, size: usize, rng: &mut SplitMix64) -> Option<Value> {
    let ExternalType::Value { elem, rank, .. } = t else {
        return None;
    };
    let n = size.pow(*rank as u32);
    let scalar = |rng: &mut SplitMix64| -> Scalar {
        match elem {
            PrimType::Bool => Scalar::Bool(rng.next_u64() & 1 == 1),
            PrimType::F32 | PrimType::F64 => Scalar::from_f64(*elem, rng.uniform(0.5, 1.5)),
            // Small positive integers: sizes and counts stay meaningful.
            _ => Scalar::from_f64(*elem, (1 + rng.next_u64() % 4) as f64),
        }
    };
    if *rank == 0 {
        return Some(Value::Scalar(scalar(rng)));
    }
    let mut buf = Buffer::with_capacity(*elem, n);
    for _ in 0..n {
        buf.push(scalar(rng));
    }
    Array::new(vec![size; *rank], buf).map(Value::Array)
}

/// Runs `gradus check`; returns the exit code (0 within tolerance, 1 above it or on a
/// failure to check, 3 for bad input data).
pub fn check(a: CheckArgs) -> u8 {
    let (path, source, program) = match crate::common::load_program(&a.program, &a.opt.options()) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let backend = a.backend.resolve();
    let options = CheckOptions {
        opt: a.opt.options(),
        backend: a.backend.library_backend(backend),
    };
    let program = match a.backend.prepare(backend, program) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("Error: {m}");
            return 1;
        }
    };
    let Some(ep) = program
        .entry_points()
        .into_iter()
        .find(|e| e.name == a.entry)
    else {
        eprintln!("Error: {path} has no entry point named \"{}\"", a.entry);
        return 1;
    };
    let args: Vec<Value> = if a.random {
        let mut rng = SplitMix64::new(a.seed);
        match ep
            .params
            .iter()
            .map(|t| random_value(t, a.size, &mut rng))
            .collect::<Option<Vec<_>>>()
        {
            Some(v) => v,
            None => {
                eprintln!("Error: entry point \"{}\" has an opaque parameter", a.entry);
                return 1;
            }
        }
    } else {
        let mut bytes = Vec::new();
        let read = match &a.input {
            Some(f) => std::fs::File::open(f).and_then(|mut h| h.read_to_end(&mut bytes)),
            None => std::io::stdin().read_to_end(&mut bytes),
        };
        if let Err(e) = read {
            eprintln!("Error: cannot read input: {e}");
            return 3;
        }
        let bytes = match decompress(&bytes) {
            Ok(b) => b.into_owned(),
            Err(e) => {
                eprintln!("Error: {e}");
                return 3;
            }
        };
        let mut values = Vec::new();
        let mut reader = Reader::new(&bytes);
        loop {
            match reader.next() {
                Some(Ok(v)) => values.push(v),
                Some(Err(e)) => {
                    eprintln!("Error: {e}");
                    return 3;
                }
                None => break,
            }
        }
        if let Err(m) = check_inputs(&ep, &values) {
            eprintln!("Error: {m}");
            return 3;
        }
        values
    };
    let forward = match catch_panic(|| {
        check_jvp_with(&path, &source, &a.entry, &args, a.seed, &options)
    }) {
        Ok(Ok(report)) => {
            print!("{report}");
            if report.passes(a.tolerance, a.tolerance * 100.0) {
                println!(
                    "gradus check: {} pair(s) within tolerance {:e} (worst {:.3e})",
                    report.pairs.len(),
                    a.tolerance,
                    report.worst()
                );
                0
            } else {
                println!(
                    "gradus check: derivative differs from finite differences (worst {:.3e}, tolerance {:e})",
                    report.worst(),
                    a.tolerance
                );
                1
            }
        }
        Ok(Err(e)) => {
            eprintln!("Error: {e}");
            return 1;
        }
        Err(p) => {
            eprintln!("internal error: gradus panicked while checking: {p}");
            return 4;
        }
    };
    let reverse =
        match catch_panic(|| check_vjp_with(&path, &source, &a.entry, &args, a.seed, &options)) {
            Ok(Ok(report)) => {
                print!("vjp {report}");
                if report.passes(a.tolerance, a.tolerance * 100.0) {
                    println!("gradus check: vjp within tolerance {:e}", a.tolerance);
                    0
                } else {
                    println!(
                        "gradus check: vjp differs from jvp or finite differences (tolerance {:e})",
                        a.tolerance
                    );
                    1
                }
            }
            Ok(Err(e)) => {
                eprintln!("Error: vjp not checked: {e}");
                1
            }
            Err(p) => {
                eprintln!("internal error: gradus panicked while checking the vjp: {p}");
                return 4;
            }
        };
    forward.max(reverse)
}
