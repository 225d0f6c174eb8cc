//! `gradus run` (docs/cli.md §gradus run).

use crate::common::{BackendArgs, catch_panic, check_inputs};
use clap::Args;
use gradus::Derivative;
use gradus::data::{DataError, Reader, decompress, write_binary_into, write_text};
use gradus::diag::{Diagnostics, Kind};
use gradus::program::{CallError, ExternalType};
use gradus::sparse::SparseKind;
use gradus::value::Value;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of `gradus run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program to run.
    pub(crate) program: PathBuf,
    #[command(flatten)]
    pub(crate) opt: crate::optargs::OptArgs,
    /// Entry point to call, or a derivative of one: `grad(ENTRY)`, `vjp(ENTRY)`, `jvp(ENTRY)`,
    /// `jacobian(ENTRY)`, `hessian(ENTRY)`, with parameter positions after the name to
    /// differentiate only those (`grad(ENTRY, 0, 2)`; default: every float parameter).
    #[arg(short = 'e', long = "entry-point", default_value = "main")]
    pub(crate) entry: String,
    /// Write results in the binary format.
    #[arg(short = 'b', long = "binary-output")]
    pub(crate) binary: bool,
    /// Read the input values from FILE instead of standard input.
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) backend: BackendArgs,
    /// Split this parameter along its outer dimension across MPI processes (repeatable;
    /// see docs/mpi.md): run under `mpirun -np N`
    #[arg(long = "shard", value_name = "NAME")]
    pub(crate) shard: Vec<String>,
    /// With --shard: print the time of the call and the bytes communicated on standard error
    #[arg(long = "shard-stats", requires = "shard")]
    pub(crate) shard_stats: bool,
    /// With --shard: call the entry point this many times (timing; results of the last)
    #[arg(
        long = "shard-runs",
        value_name = "N",
        default_value_t = 1,
        requires = "shard"
    )]
    pub(crate) shard_runs: usize,
}

/// Exit code of a failed compilation: 4 for a compiler bug, 1 otherwise.
pub fn compile_failure_code(d: &Diagnostics) -> u8 {
    if d.items.iter().any(|i| i.kind == Kind::Bug) {
        4
    } else {
        1
    }
}

pub(crate) fn input_error(e: impl std::fmt::Display) -> u8 {
    eprintln!("Error: {e}");
    3
}

/// A derivative asked for on the command line: `KIND(ENTRY)` or `KIND(ENTRY, P, ...)` with
/// `KIND` one of `grad`, `vjp`, `jvp`, `jacobian`, `hessian` and `P` parameter positions
/// (from 0). `None` when `spec` is a plain entry-point name.
type DerivativeSpec = (Derivative, String, Option<Vec<usize>>);

/// A call written `KIND(ENTRY, P, ...)`: the kind's name, the entry point, the positions.
type CallSpec<'a> = (&'a str, String, Vec<usize>);

/// `KIND(ENTRY, P, ...)` split into its parts; `None` when `spec` has no parenthesis (a
/// plain entry-point name).
fn parse_call(spec: &str) -> Option<Result<CallSpec<'_>, String>> {
    let (kind, rest) = spec.split_once('(')?;
    let Some(inner) = rest.trim_end().strip_suffix(')') else {
        return Some(Err(format!("`{spec}`: a `)` is missing at the end")));
    };
    let mut parts = inner.split(',').map(str::trim);
    let entry = parts.next().unwrap_or("").to_string();
    if entry.is_empty() {
        return Some(Err(format!(
            "`{spec}`: no entry point named inside the parentheses"
        )));
    }
    let mut wrt = Vec::new();
    for p in parts {
        match p.parse::<usize>() {
            Ok(n) => wrt.push(n),
            Err(_) => {
                return Some(Err(format!(
                    "`{spec}`: `{p}` is not a parameter position (0, 1, ...)"
                )));
            }
        }
    }
    Some(Ok((kind.trim(), entry, wrt)))
}

fn parse_derivative(spec: &str) -> Option<Result<DerivativeSpec, String>> {
    Some(parse_call(spec)?.and_then(|(kind, entry, wrt)| {
        let k = Derivative::from_name(kind).ok_or_else(|| {
            format!(
                "`{spec}`: `{kind}` is not a derivative (grad, vjp, jvp, jacobian, hessian, \
                 sparse_jacobian or sparse_hessian)"
            )
        })?;
        Ok((k, entry, (!wrt.is_empty()).then_some(wrt)))
    }))
}

/// The derivative `spec` asks for (`None` for a plain entry point's name), or the exit code
/// of the error, reported on standard error.
fn derive(
    program: &gradus::Program,
    path: &str,
    spec: &str,
) -> Result<Option<gradus::Derived>, u8> {
    match parse_derivative(spec) {
        None => Ok(None),
        Some(Err(m)) => {
            eprintln!("Error: {m}");
            Err(2)
        }
        Some(Ok((kind, entry, wrt))) => {
            match catch_panic(|| program.derive(kind, &entry, wrt.as_deref())) {
                Ok(Ok(d)) => Ok(Some(d)),
                Ok(Err(e)) => {
                    eprintln!("Error: {path}: {e}");
                    Err(1)
                }
                Err(p) => {
                    eprintln!("internal error: gradus panicked while deriving {spec}: {p}");
                    Err(4)
                }
            }
        }
    }
}

/// A sparse derivative: its kind, the entry point, the position differentiated.
type SparseSpec = (SparseKind, String, Option<usize>);

/// A sparse derivative asked for on the command line: `sparse_jacobian(ENTRY)` or
/// `sparse_hessian(ENTRY)`, optionally with the position of the parameter differentiated
/// (`sparse_jacobian(ENTRY, P)`). `None` for anything else.
fn parse_sparse(spec: &str) -> Option<Result<SparseSpec, String>> {
    let kind = SparseKind::from_name(spec.split_once('(')?.0.trim())?;
    Some(parse_call(spec)?.and_then(|(_, entry, wrt)| match wrt[..] {
        [] => Ok((kind, entry, None)),
        [p] => Ok((kind, entry, Some(p))),
        _ => Err(format!(
            "`{spec}`: a sparse derivative takes one parameter position"
        )),
    }))
}

/// Runs a sparse derivative of an entry point: reads the entry's arguments and prints the
/// values, columns and row offsets of the matrix in compressed sparse rows.
fn run_sparse(
    a: &RunArgs,
    path: &str,
    program: &gradus::Program,
    kind: SparseKind,
    entry: &str,
    wrt: Option<usize>,
) -> u8 {
    let sparse = match catch_panic(|| program.sparse(kind, entry, wrt)) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            eprintln!("Error: {path}: {e}");
            return 1;
        }
        Err(p) => {
            eprintln!(
                "internal error: gradus panicked while deriving {}: {p}",
                kind.name()
            );
            return 4;
        }
    };
    let ep = sparse.entry_point().clone();
    let args = match read_args(a, &ep) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let results = match call_results(path, catch_panic(|| sparse.call(args))) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let ExternalType::Value { elem, .. } = &ep.params[sparse.point()] else {
        return 4;
    };
    let vector = |t: &str| ExternalType::Value {
        elem: match t {
            "i64" => gradus::value::PrimType::I64,
            _ => *elem,
        },
        rank: 1,
        text: format!("[]{t}"),
    };
    let csr = gradus::program::EntryPoint {
        name: kind.name().to_string(),
        params: ep.params.clone(),
        results: vec![vector(elem.name()), vector("i64"), vector("i64")],
        result_leaves: vec![1, 1, 1],
    };
    print_results(&csr, &results, a.binary)
}

/// Runs `gradus run`; returns the exit code.
pub fn run(a: RunArgs) -> u8 {
    let (path, _source, program) = match crate::common::load_program(&a.program, &a.opt.options()) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if !a.shard.is_empty() {
        return crate::shard::run(&a, &path, program);
    }
    let program = match a.backend.prepare(a.backend.resolve(), program) {
        Ok(p) => p,
        Err(m) => {
            eprintln!("Error: {m}");
            return if m.starts_with("internal error") {
                4
            } else {
                1
            };
        }
    };
    if let Some(spec) = parse_sparse(&a.entry) {
        return match spec {
            Ok((kind, entry, wrt)) => run_sparse(&a, &path, &program, kind, &entry, wrt),
            Err(m) => {
                eprintln!("Error: {m}");
                2
            }
        };
    }
    let derived = match derive(&program, &path, &a.entry) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let (program, entry) = match &derived {
        Some(d) => (&**d.program(), d.entry().to_string()),
        None => (&program, a.entry.clone()),
    };
    let ep = match find_entry(program, &path, &entry) {
        Ok(ep) => ep,
        Err(code) => return code,
    };
    let args = match read_args(&a, &ep) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let results = match call_results(&path, catch_panic(|| program.call(&entry, args))) {
        Ok(r) => r,
        Err(code) => return code,
    };
    print_results(&ep, &results, a.binary)
}

/// The results of a call, or the exit code after printing why it failed (a run-time error,
/// bad input, an unknown entry point, a panic).
fn call_results(
    path: &str,
    outcome: Result<Result<Vec<Value>, CallError>, String>,
) -> Result<Vec<Value>, u8> {
    match outcome {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(CallError::Runtime(e))) => {
            eprintln!("{e}");
            Err(2)
        }
        Ok(Err(CallError::BadInput(m))) => Err(input_error(m)),
        Ok(Err(CallError::UnknownEntry(n))) => {
            eprintln!("Error: {path} has no entry point named \"{n}\"");
            Err(1)
        }
        Err(p) => {
            eprintln!("internal error: gradus panicked while running {path}: {p}");
            Err(4)
        }
    }
}

/// The entry point `entry` of `program`, or the exit code after printing why not.
pub(crate) fn find_entry(
    program: &gradus::program::Program,
    path: &str,
    entry: &str,
) -> Result<gradus::program::EntryPoint, u8> {
    let entries = match catch_panic(|| program.entry_points()) {
        Ok(e) => e,
        Err(p) => {
            eprintln!("internal error: gradus panicked: {p}");
            return Err(4);
        }
    };
    let Some(ep) = entries.iter().find(|e| e.name == entry).cloned() else {
        let names: Vec<_> = entries.iter().map(|e| e.name.as_str()).collect();
        eprintln!(
            "Error: {path} has no entry point named \"{}\" (entry points: {})",
            entry,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
        return Err(1);
    };
    Ok(ep)
}

/// The arguments of `ep` read as `gradus run` reads them, or the exit code after printing
/// why they could not be.
pub(crate) fn read_args(a: &RunArgs, ep: &gradus::program::EntryPoint) -> Result<Vec<Value>, u8> {
    // Read the input.
    let raw = match &a.input {
        Some(f) => match std::fs::read(f) {
            Ok(b) => b,
            Err(e) => return Err(input_error(format!("cannot read {}: {e}", f.display()))),
        },
        None => {
            let mut b = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut b) {
                return Err(input_error(format!("cannot read standard input: {e}")));
            }
            b
        }
    };
    let bytes = match decompress(&raw) {
        Ok(b) => b,
        Err(e) => return Err(input_error(e)),
    };
    let mut reader = Reader::new(&bytes);
    let mut args = Vec::with_capacity(ep.params.len());
    for (k, t) in ep.params.iter().enumerate() {
        match reader.next_value() {
            Ok(Some(v)) => args.push(v),
            Ok(None) => {
                return Err(input_error(format!(
                    "too few input values: entry point \"{}\" takes {} argument(s), but the input ends after {k}; the next one should have type {t}",
                    ep.name,
                    ep.params.len()
                )));
            }
            Err(e) => return Err(input_error(format!("malformed input value #{k}: {e}"))),
        }
    }
    if !reader.at_end() {
        let e = DataError::at(
            &bytes,
            reader.position(),
            "leftover input after the last argument",
        );
        return Err(input_error(format!(
            "entry point \"{}\" takes {} argument(s), but there is more input: {e}",
            ep.name,
            ep.params.len()
        )));
    }
    if let Err(m) = check_inputs(ep, &args) {
        return Err(input_error(m));
    }
    Ok(args)
}

/// Prints results as `gradus run` does; returns the exit code.
pub(crate) fn print_results(
    ep: &gradus::program::EntryPoint,
    results: &[Value],
    binary: bool,
) -> u8 {
    let mut out = Vec::new();
    // An opaque result (a record, a sum) takes as many of the values as it has leaves (maybe
    // none), and is written as one line.
    let counts_known = ep.result_leaves.iter().sum::<usize>() == results.len();
    let mut values = results.iter();
    for (k, t) in ep.results.iter().enumerate() {
        let n = if counts_known { ep.result_leaves[k] } else { 1 };
        let taken: Vec<&Value> = values.by_ref().take(n).collect();
        if let ExternalType::Opaque(t) = t {
            if !binary {
                out.extend(format!("#opaque {t}\n").as_bytes());
            }
            continue;
        }
        for v in taken {
            if binary {
                write_binary_into(v, &mut out);
            } else {
                out.extend(write_text(v).as_bytes());
                out.push(b'\n');
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(&out).and_then(|_| stdout.flush()).is_err() {
        return 4;
    }
    0
}
