//! `gradus test` (docs/cli.md §gradus test and docs/language.md §Test blocks): find programs, plan
//! their cases, run them with a per-program timeout on a pool of threads, report and summarise.

use crate::common::{Backend, BackendArgs, Progress, catch_panic, check_inputs};
use clap::Args;
use gradus::data::read_file;
use gradus::pipeline::{Stage, dump_stage};
use gradus::program::{CallError, ExternalType, Program};
use gradus::testspec::{
    Case, DEFAULT_TOLERANCE, Expected, Input, TestFile, compare_values, generate_random,
    parse_test_file, random_seed,
};
use gradus::value::Value;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Arguments of `gradus test`.
#[derive(Args, Debug, Clone)]
pub struct TestArgs {
    /// Programs (`.fut` files) and directories to search for them.
    #[arg(required = true, value_name = "FILE_OR_DIR")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    opt: crate::optargs::OptArgs,
    #[command(flatten)]
    backend: BackendArgs,
    /// Same as `--backend interpreter`.
    #[arg(short = 'i', long = "interpreted")]
    interpreted: bool,
    /// Only parse and type-check each program (one case per program).
    #[arg(short = 't', long = "typecheck")]
    typecheck: bool,
    /// Compile each program, including AD, but run nothing (one case per program).
    #[arg(short = 'C', long = "compile")]
    compile: bool,
    /// Only run cases for this entry point.
    #[arg(short = 'e', long = "entry-point", value_name = "NAME")]
    entry: Option<String>,
    /// Skip programs and cases carrying TAG (repeatable).
    #[arg(long, value_name = "TAG")]
    exclude: Vec<String>,
    /// Skip cases tagged `compiled`.
    #[arg(long = "skip-compiled")]
    skip_compiled: bool,
    /// Float tolerance factor (see docs/language.md §Comparing values).
    #[arg(long, default_value_t = DEFAULT_TOLERANCE, value_name = "X")]
    tolerance: f64,
    /// Seed for `random input`.
    #[arg(long, default_value_t = 0, value_name = "N")]
    seed: u64,
    /// Per-program time limit in seconds; unfinished cases are reported as errors.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Programs tested at the same time (default: number of cores).
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,
    /// Also print a line for every passing case.
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Write a machine-readable report to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// The outcome of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Status {
    /// Behaved as expected.
    #[serde(rename = "PASS")]
    Pass,
    /// Ran and did something else.
    #[serde(rename = "FAIL")]
    Fail,
    /// Could not be tried.
    #[serde(rename = "ERROR")]
    Error,
    /// Excluded.
    #[serde(rename = "SKIP")]
    Skip,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Error => "ERROR",
            Status::Skip => "SKIP",
        }
    }
}

/// One line of the report (and one object of the JSON report).
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    program: String,
    entry: Option<String>,
    dataset: Option<String>,
    status: Status,
    message: String,
    seconds: f64,
    /// How many cases this line stands for (a program that failed to compile stands for all
    /// its cases).
    #[serde(skip)]
    count: usize,
}

impl Outcome {
    fn program(program: &str, status: Status, message: String, count: usize) -> Outcome {
        Outcome {
            program: program.to_string(),
            entry: None,
            dataset: None,
            status,
            message,
            seconds: 0.0,
            count,
        }
    }

    fn line(&self) -> String {
        let mut s = format!("{} {}", self.status.word(), self.program);
        if let Some(e) = &self.entry {
            s.push(':');
            s.push_str(e);
            if let Some(d) = &self.dataset {
                s.push(' ');
                s.push_str(d);
            }
        }
        if !self.message.is_empty() {
            let mut lines = self.message.lines();
            s.push_str(": ");
            s.push_str(lines.next().unwrap_or(""));
            for l in lines {
                s.push_str("\n    ");
                s.push_str(l);
            }
        }
        s
    }
}

/// A case to run: an entry point with one case of a block.
#[derive(Clone, Debug)]
struct Planned {
    entry: String,
    case: Case,
    block: usize,
    /// Set when the case is skipped or cannot be run, without compiling.
    verdict: Option<(Status, String)>,
}

/// Collects `.fut` files: files as given, directories recursively in sorted order.
fn find_programs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out)?;
            } else if p.extension().is_some_and(|e| e == "fut") {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(out)
}

/// What the test threads tell the reporting loop.
enum Event {
    /// Testing of program `i` began.
    Started(usize),
    /// Program `i` is done, with these outcomes.
    Done(usize, Vec<Outcome>),
}

/// Runs `gradus test`; returns the exit code. While programs are tested, a progress line on
/// standard error (when it is a terminal) counts the programs done and names the oldest one
/// still running.
pub fn test(mut a: TestArgs) -> u8 {
    if a.interpreted {
        a.backend.backend = Some(Backend::Interpreter);
    }
    a.backend.backend = Some(a.backend.resolve());
    if a.tolerance.is_nan() || a.tolerance < 0.0 {
        eprintln!("error: --tolerance must be a non-negative number");
        return 2;
    }
    if a.timeout.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    if a.concurrency == Some(0) {
        eprintln!("error: --concurrency must be at least 1");
        return 2;
    }
    let programs = match find_programs(&a.paths) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let workers = a
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(programs.len().max(1));
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Vec<Outcome>>> = vec![None; programs.len()];
    // Report lines are printed as soon as every earlier program is done, so the output is in
    // program order whatever the concurrency.
    let mut printed = 0;
    let (tx, rx) = mpsc::channel::<Event>();
    let mut progress = Progress::new();
    // Programs being tested, with when they started: compiling one can take tens of seconds,
    // so the progress line names the oldest and counts the time.
    let mut running: Vec<(usize, Instant)> = Vec::new();
    let mut done = 0;
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, programs, a) = (&next, &programs, &a);
            // Compilation runs on these threads: give them room for deep recursion.
            let spawned = std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(s, move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(p) = programs.get(i) else { break };
                        if tx.send(Event::Started(i)).is_err() {
                            break;
                        }
                        let out = test_program(p, a);
                        if tx.send(Event::Done(i, out)).is_err() {
                            break;
                        }
                    }
                });
            if let Err(e) = spawned {
                progress.message(&format!("error: cannot start a test thread: {e}"));
            }
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(Event::Started(i)) => running.push((i, Instant::now())),
                Ok(Event::Done(i, out)) => {
                    running.retain(|(j, _)| *j != i);
                    done += 1;
                    results[i] = Some(out);
                    while let Some(Some(finished)) = results.get(printed) {
                        for o in finished {
                            if a.verbose || o.status != Status::Pass {
                                progress.clear();
                                say(&o.line());
                            }
                        }
                        printed += 1;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if let Some((i, since)) = running.first() {
                let more = if running.len() > 1 {
                    format!(" and {} more", running.len() - 1)
                } else {
                    String::new()
                };
                progress.show(&format!(
                    "[{done}/{}] {}{more} ({} s)",
                    programs.len(),
                    programs[*i].display(),
                    since.elapsed().as_secs()
                ));
            }
        }
        progress.clear();
    });
    let all: Vec<Outcome> = results.into_iter().flatten().flatten().collect();
    let (mut passed, mut failed, mut errors, mut skipped) = (0, 0, 0, 0);
    for o in &all {
        match o.status {
            Status::Pass => passed += o.count,
            Status::Fail => failed += o.count,
            Status::Error => errors += o.count,
            Status::Skip => skipped += o.count,
        }
    }
    let mut code = if failed + errors > 0 { 1 } else { 0 };
    if let Some(j) = &a.json {
        let text = serde_json::to_string_pretty(&all).unwrap_or_else(|_| "[]".into());
        if let Err(e) = std::fs::write(j, text + "\n") {
            eprintln!("error: cannot write {}: {e}", j.display());
            code = 1;
        }
    }
    say(&format!(
        "gradus test: {passed} passed, {failed} failed, {errors} errors, {skipped} skipped"
    ));
    code
}

/// Prints a report line; a closed standard output (`gradus test ... | head`) is not an error.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
}

/// Tags that skip a program or case on this backend (docs/language.md §Tags).
fn skip_tag<'t>(tags: &'t [String], a: &TestArgs) -> Option<&'t str> {
    let backend_tag = format!("no_{}", a.backend.resolve().name());
    tags.iter()
        .find(|t| {
            matches!(t.as_str(), "disable" | "notest" | "no_gradus")
                || **t == backend_tag
                || a.exclude.contains(t)
        })
        .map(|t| t.as_str())
}

/// Tests one program: everything up to compiling happens here; the compiled cases run on a
/// separate thread so that the timeout can abandon them.
fn test_program(path: &Path, a: &TestArgs) -> Vec<Outcome> {
    let name = path.display().to_string();
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            return vec![Outcome::program(
                &name,
                Status::Error,
                format!("cannot read the program: {e}"),
                1,
            )];
        }
    };
    let spec = match catch_panic(|| parse_test_file(&source)) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return vec![Outcome::program(&name, Status::Error, e.to_string(), 1)],
        Err(p) => {
            return vec![Outcome::program(
                &name,
                Status::Error,
                format!("internal error while reading the test blocks: {p}"),
                1,
            )];
        }
    };
    let mut out = Vec::new();
    // Items reported without running.
    for item in &spec.skipped_items {
        out.push(Outcome::program(
            &name,
            Status::Skip,
            format!("{item}: not checked by gradus"),
            1,
        ));
    }
    for p in &spec.properties {
        out.push(Outcome {
            entry: Some(p.clone()),
            ..Outcome::program(
                &name,
                Status::Error,
                "property tests are not supported".into(),
                1,
            )
        });
    }
    let program_skip = skip_tag(&spec.tags, a).map(String::from);
    out.extend(structure_outcomes(
        &name,
        &source,
        &spec,
        a,
        program_skip.as_deref(),
    ));
    if a.typecheck || a.compile || spec.is_compile_test() || spec.compile_error.is_some() {
        if let Some(t) = program_skip {
            out.push(Outcome::program(&name, Status::Skip, format!("tag {t}"), 1));
            return out;
        }
        let (n2, src2, spec2, a2) = (name.clone(), source.clone(), spec.clone(), a.clone());
        let outcome = with_timeout(a.timeout, move || compile_only(&n2, &src2, &spec2, &a2))
            .unwrap_or_else(|why| Outcome::program(&name, Status::Error, why, 1));
        out.push(outcome);
        return out;
    }
    let planned = plan(&spec, a);
    if let Some(t) = program_skip {
        for p in &planned {
            out.push(case_outcome(
                &name,
                p,
                Status::Skip,
                format!("tag {t}"),
                0.0,
            ));
        }
        return out;
    }
    let to_run: Vec<Planned> = planned
        .iter()
        .filter(|p| p.verdict.is_none())
        .cloned()
        .collect();
    let mut by_case: Vec<Option<Outcome>> = planned
        .iter()
        .map(|p| {
            p.verdict
                .as_ref()
                .map(|(s, m)| case_outcome(&name, p, *s, m.clone(), 0.0))
        })
        .collect();
    if !to_run.is_empty() {
        let ran = run_cases(path, &name, source, to_run, a);
        match ran {
            Ok(results) => {
                let mut it = results.into_iter();
                for slot in by_case.iter_mut().filter(|s| s.is_none()) {
                    *slot = it.next();
                }
            }
            Err(program_outcome) => {
                // The program could not be compiled: one line for it, standing for every
                // case that would have run; skipped cases stay skipped.
                out.push(program_outcome);
                out.extend(by_case.into_iter().flatten());
                return out;
            }
        }
    }
    out.extend(by_case.into_iter().flatten());
    out
}

fn case_outcome(program: &str, p: &Planned, status: Status, message: String, secs: f64) -> Outcome {
    Outcome {
        program: program.to_string(),
        entry: Some(p.entry.clone()),
        dataset: Some(p.case.dataset_name()),
        status,
        message,
        seconds: secs,
        count: 1,
    }
}

/// The (entry point, case) pairs of a file, with those skipped or unsupported decided.
fn plan(spec: &TestFile, a: &TestArgs) -> Vec<Planned> {
    let mut out = Vec::new();
    for b in &spec.blocks {
        for e in &b.entries {
            if a.entry.as_ref().is_some_and(|want| want != e) {
                continue;
            }
            for c in &b.cases {
                let verdict = if let Some(t) = skip_tag(&c.run_tags, a) {
                    Some((Status::Skip, format!("tag {t}")))
                } else if a.skip_compiled && c.has_tag("compiled") {
                    Some((Status::Skip, "tag compiled (--skip-compiled)".to_string()))
                } else if matches!(c.input, Input::Script(_)) {
                    Some((Status::Error, "script inputs are not supported".to_string()))
                } else {
                    None
                };
                out.push(Planned {
                    entry: e.clone(),
                    case: c.clone(),
                    block: b.index,
                    verdict,
                });
            }
        }
    }
    out
}

/// A compile test, a type-check-only or compile-only run, or an expected compile error: one
/// case for the program.
fn compile_only(name: &str, source: &str, spec: &TestFile, a: &TestArgs) -> Outcome {
    let start = Instant::now();
    let result = catch_panic(|| {
        if a.typecheck && spec.compile_error.is_none() {
            dump_stage(name, source, Stage::Typed).map(|_| ())
        } else {
            Program::from_source_with(name, source, &a.opt.options()).map(|_| ())
        }
    });
    let (status, message) = match (result, &spec.compile_error) {
        (Err(p), _) => (
            Status::Error,
            format!("internal error: gradus panicked: {p}"),
        ),
        (Ok(Ok(())), None) => (Status::Pass, String::new()),
        (Ok(Err(d)), None) => (Status::Error, format!("compile error: {}", d.one_line())),
        (Ok(Ok(())), Some(re)) => (
            Status::Fail,
            format!("the program compiled, but a compile error matching `{re}` was expected"),
        ),
        (Ok(Err(d)), Some(re)) => match build_regex(re) {
            Err(e) => (Status::Error, e),
            Ok(r) => {
                let text = d.render();
                if r.is_match(&text) || r.is_match(&d.one_line()) {
                    (Status::Pass, String::new())
                } else {
                    (
                        Status::Fail,
                        format!("the compile error does not match `{re}`: {}", d.one_line()),
                    )
                }
            }
        },
    };
    Outcome {
        seconds: start.elapsed().as_secs_f64(),
        ..Outcome::program(name, status, message, 1)
    }
}

/// The outcomes of the `structure` items (docs/language.md §Structure tests): the program is
/// compiled with the optimiser and its statements counted. Skipped when the program is, with
/// `--typecheck`, and when the optimiser is off or missing a pass (the counts describe the
/// whole optimiser's result).
fn structure_outcomes(
    name: &str,
    source: &str,
    spec: &TestFile,
    a: &TestArgs,
    program_skip: Option<&str>,
) -> Vec<Outcome> {
    if spec.structures.is_empty() {
        return Vec::new();
    }
    let skip = match program_skip {
        Some(t) => Some(format!("tag {t}")),
        None if a.typecheck => Some("--typecheck".to_string()),
        None if a.opt.no_opt || !a.opt.disable_pass.is_empty() => {
            Some("the optimiser does not run whole".to_string())
        }
        None => None,
    };
    let item = |s: &gradus::testspec::Structure| format!("structure (line {})", s.line);
    if let Some(why) = skip {
        return spec
            .structures
            .iter()
            .map(|s| Outcome::program(name, Status::Skip, format!("{}: {why}", item(s)), 1))
            .collect();
    }
    let (n2, src2, opts) = (name.to_string(), source.to_string(), a.opt.options());
    let start = Instant::now();
    let compiled = with_timeout(a.timeout, move || {
        catch_panic(|| gradus::pipeline::compile_with(&n2, &src2, &opts))
    });
    let secs = start.elapsed().as_secs_f64();
    let prog = match compiled {
        Ok(Ok(Ok(c))) => c.prog,
        Ok(Ok(Err(d))) => return vec![structure_error(name, d.one_line())],
        Ok(Err(p)) => return vec![structure_error(name, format!("gradus panicked: {p}"))],
        Err(why) => return vec![structure_error(name, why)],
    };
    let outcome = |s: &gradus::testspec::Structure| {
        let wrong = s.mismatches(&prog);
        let (status, message) = if wrong.is_empty() {
            (Status::Pass, item(s))
        } else {
            (Status::Fail, format!("{}: {}", item(s), wrong.join("; ")))
        };
        Outcome {
            seconds: secs,
            ..Outcome::program(name, status, message, 1)
        }
    };
    spec.structures.iter().map(outcome).collect()
}

fn structure_error(name: &str, why: String) -> Outcome {
    Outcome::program(
        name,
        Status::Error,
        format!("structure: cannot compile: {why}"),
        1,
    )
}

/// Runs `f` on a thread with a large stack and waits at most `timeout` seconds for it.
fn with_timeout<T: Send + 'static>(
    timeout: Option<f64>,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| format!("internal error: cannot start a thread: {e}"))?;
    match timeout {
        Some(t) => rx
            .recv_timeout(Duration::from_secs_f64(t))
            .map_err(|e| match e {
                mpsc::RecvTimeoutError::Timeout => {
                    format!("the program exceeded the time limit of {t} s")
                }
                mpsc::RecvTimeoutError::Disconnected => {
                    "internal error: the test worker stopped unexpectedly".to_string()
                }
            }),
        None => rx
            .recv()
            .map_err(|_| "internal error: the test worker stopped unexpectedly".to_string()),
    }
}

/// Compiles a regular expression of a test block: POSIX ERE semantics approximated by the
/// `regex` crate with `.` matching newlines, searched unanchored.
fn build_regex(re: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(&format!("(?s){re}"))
        .map_err(|e| format!("malformed regular expression `{re}`: {e}"))
}

/// Compiles the program and runs the cases on a worker thread, waiting at most the timeout.
/// `Err` holds the one program-level outcome (compile error), standing for every case.
fn run_cases(
    path: &Path,
    name: &str,
    source: String,
    cases: Vec<Planned>,
    a: &TestArgs,
) -> Result<Vec<Outcome>, Outcome> {
    let deadline = a
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    let n = cases.len();
    let (tx, rx) = mpsc::channel::<Result<Outcome, Outcome>>();
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let owned_name = name.to_string();
    let args = a.clone();
    let cases_for_worker = cases.clone();
    let spawned = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let compiled = catch_panic(|| {
                Program::from_source_with(&owned_name, &source, &args.opt.options())
            });
            let program = match compiled {
                Ok(Ok(p)) => match args.backend.prepare(args.backend.resolve(), p) {
                    Ok(p) => p,
                    Err(m) => {
                        let _ = tx.send(Err(Outcome::program(
                            &owned_name,
                            Status::Error,
                            format!("compile error: {m}"),
                            n,
                        )));
                        return;
                    }
                },
                Ok(Err(d)) => {
                    let _ = tx.send(Err(Outcome::program(
                        &owned_name,
                        Status::Error,
                        format!("compile error: {}", d.one_line()),
                        n,
                    )));
                    return;
                }
                Err(p) => {
                    let _ = tx.send(Err(Outcome::program(
                        &owned_name,
                        Status::Error,
                        format!("internal error: gradus panicked while compiling: {p}"),
                        n,
                    )));
                    return;
                }
            };
            for p in &cases_for_worker {
                let start = Instant::now();
                let (status, msg) =
                    match catch_panic(|| run_case(&program, &owned_name, &dir, p, &args)) {
                        Ok(r) => r,
                        Err(panic) => (
                            Status::Error,
                            format!("internal error: gradus panicked: {panic}"),
                        ),
                    };
                let o = case_outcome(&owned_name, p, status, msg, start.elapsed().as_secs_f64());
                if tx.send(Ok(o)).is_err() {
                    return;
                }
            }
        });
    if let Err(e) = spawned {
        return Err(Outcome::program(
            name,
            Status::Error,
            format!("internal error: cannot start a thread: {e}"),
            n,
        ));
    }
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let msg = match deadline {
            Some(d) => rx
                .recv_timeout(d.saturating_duration_since(Instant::now()))
                .ok(),
            None => rx.recv().ok(),
        };
        match msg {
            Some(Ok(o)) => out.push(o),
            Some(Err(program_outcome)) => return Err(program_outcome),
            None => {
                let why = if deadline.is_some_and(|d| Instant::now() >= d) {
                    format!(
                        "the program exceeded the time limit of {} s",
                        a.timeout.unwrap_or_default()
                    )
                } else {
                    "internal error: the test worker stopped unexpectedly".to_string()
                };
                if out.is_empty() && deadline.is_some_and(|d| Instant::now() >= d) {
                    // Possibly still compiling: every case is unfinished.
                }
                for p in &cases[out.len()..] {
                    out.push(case_outcome(name, p, Status::Error, why.clone(), 0.0));
                }
            }
        }
    }
    Ok(out)
}

/// Runs one case on a compiled program and judges it.
fn run_case(
    program: &Program,
    name: &str,
    dir: &Path,
    p: &Planned,
    a: &TestArgs,
) -> (Status, String) {
    let eps = program.entry_points();
    let Some(ep) = eps.iter().find(|e| e.name == p.entry) else {
        return (
            Status::Fail,
            format!("the program has no entry point named \"{}\"", p.entry),
        );
    };
    let inputs: Vec<Value> = match &p.case.input {
        Input::Values(vs, _) => vs.clone(),
        Input::File(f) => match read_file(&dir.join(f)) {
            Ok(vs) => vs,
            Err(e) => return (Status::Error, format!("cannot read input data {f}: {e}")),
        },
        Input::Random(items) => {
            let seed = random_seed(a.seed, name, &p.entry, p.block, p.case.index);
            match generate_random(items, seed, 1 << 28) {
                Ok(vs) => vs,
                Err(e) => return (Status::Error, e),
            }
        }
        Input::Script(_) => return (Status::Error, "script inputs are not supported".into()),
    };
    if let Err(m) = check_inputs(ep, &inputs) {
        return (Status::Fail, m);
    }
    let expected = match &p.case.expected {
        Expected::File(f) => match read_file(&dir.join(f)) {
            Ok(vs) => Some(vs),
            Err(e) => return (Status::Error, format!("cannot read output data {f}: {e}")),
        },
        Expected::Values(vs) => Some(vs.clone()),
        _ => None,
    };
    match (program.call(&p.entry, inputs), &p.case.expected) {
        (Ok(results), Expected::Error(re)) => {
            let _ = results;
            (
                Status::Fail,
                format!("the run succeeded, but an error matching `{re}` was expected"),
            )
        }
        (Ok(results), _) => {
            let Some(expected) = expected else {
                return (Status::Pass, String::new());
            };
            if let Some(t) = ep.results.iter().find_map(|t| match t {
                ExternalType::Opaque(t) => Some(t),
                ExternalType::Value { .. } => None,
            }) {
                return (
                    Status::Fail,
                    format!(
                        "the entry point returns the opaque type {t}, which cannot be compared"
                    ),
                );
            }
            match compare_values(&expected, &results, a.tolerance) {
                Ok(()) => (Status::Pass, String::new()),
                Err(m) => (Status::Fail, m),
            }
        }
        (Err(CallError::Runtime(e)), Expected::Error(re)) => match build_regex(re) {
            Err(m) => (Status::Error, m),
            Ok(r) => {
                let text = e.to_string();
                if r.is_match(&text) {
                    (Status::Pass, String::new())
                } else {
                    (
                        Status::Fail,
                        format!("the error does not match `{re}`:\n{text}"),
                    )
                }
            }
        },
        (Err(CallError::Runtime(e)), _) => {
            (Status::Fail, format!("unexpected run-time error:\n{e}"))
        }
        (Err(e), _) => (Status::Fail, e.to_string()),
    }
}
