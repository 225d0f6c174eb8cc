//! `gradus bench` (docs/cli.md §gradus bench): time the entry points on the inputs of the test
//! blocks.
//!
//! For every case that has an input (except those tagged `nobench`, `notest` or `disable`,
//! and those expecting an error), the entry point is called `--warmup` times untimed, then
//! `--runs` times timed; the timed region is the call only (not compiling, reading input or
//! checking). The first result is checked against the expected output like `gradus test`
//! does; a wrong result fails the dataset (exit code 1). A progress line on standard error
//! names the case being timed when standard error is a terminal; a table of median, minimum and maximum times (microseconds)
//! and the relative standard deviation ends the run; `--json FILE` writes
//! `{"path:entry": {"datasets": {"NAME": {"runtimes": [...]}}}}`.

use crate::common::{BackendArgs, Progress, catch_panic, check_inputs};
use clap::Args;
use gradus::data::read_file;
use gradus::testspec::{
    DEFAULT_TOLERANCE, Expected, Input, compare_values, generate_random, parse_test_file,
    random_seed,
};
use gradus::value::{Value, ValueRef};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `gradus bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Programs (`.fut` files) and directories to search for them.
    #[arg(required = true, value_name = "FILE_OR_DIR")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    opt: crate::optargs::OptArgs,
    /// Only benchmark this entry point (repeatable).
    #[arg(short = 'e', long = "entry-point", value_name = "NAME")]
    entry: Vec<String>,
    /// Skip programs and cases carrying TAG (repeatable).
    #[arg(long, value_name = "TAG")]
    exclude: Vec<String>,
    /// Timed runs per dataset.
    #[arg(long, default_value_t = 10, value_name = "N")]
    runs: usize,
    /// Untimed runs before the timed ones.
    #[arg(long, default_value_t = 1, value_name = "N")]
    warmup: usize,
    /// Write the run times to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// The timings of one dataset.
struct Row {
    program: String,
    entry: String,
    dataset: String,
    /// Microseconds, in the order measured.
    runtimes: Vec<f64>,
}

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

/// Median, minimum, maximum and relative standard deviation (in percent).
fn stats(xs: &[f64]) -> (f64, f64, f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    let rsd = if mean > 0.0 {
        100.0 * var.sqrt() / mean
    } else {
        0.0
    };
    (median, v[0], v[n - 1], rsd)
}

/// Runs `gradus bench`; returns the exit code.
pub fn bench(a: BenchArgs) -> u8 {
    if a.runs == 0 {
        eprintln!("error: --runs must be at least 1");
        return 2;
    }
    let programs = match find_programs(&a.paths) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let backend = a.backend.resolve();
    let skip = |tags: &[String]| {
        let backend_tag = format!("no_{}", backend.name());
        tags.iter().any(|t| {
            matches!(t.as_str(), "disable" | "notest" | "nobench" | "no_gradus")
                || *t == backend_tag
                || a.exclude.contains(t)
        })
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut failed = false;
    let mut progress = Progress::new();
    for file in &programs {
        let name = file.display().to_string();
        let Ok(source) = std::fs::read_to_string(file) else {
            progress.message(&format!("ERROR {name}: cannot read the program"));
            failed = true;
            continue;
        };
        let spec = match parse_test_file(&source) {
            Ok(s) => s,
            Err(e) => {
                progress.message(&format!("ERROR {name}: {e}"));
                failed = true;
                continue;
            }
        };
        if skip(&spec.tags) || spec.blocks.iter().all(|b| b.cases.is_empty()) {
            continue;
        }
        progress.show(&format!("{name}: compiling"));
        let (_, _, program) = match crate::common::load_program(file, &a.opt.options()) {
            Ok(l) => l,
            Err(_) => {
                failed = true;
                continue;
            }
        };
        let program = match a.backend.prepare(backend, program) {
            Ok(p) => p,
            Err(m) => {
                progress.message(&format!("ERROR {name}: {m}"));
                failed = true;
                continue;
            }
        };
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let eps = program.entry_points();
        for b in &spec.blocks {
            for entry in &b.entries {
                if !a.entry.is_empty() && !a.entry.contains(entry) {
                    continue;
                }
                let Some(ep) = eps.iter().find(|e| &e.name == entry) else {
                    progress.message(&format!("FAIL {name}: no entry point named \"{entry}\""));
                    failed = true;
                    continue;
                };
                for c in &b.cases {
                    if skip(&c.run_tags) || matches!(c.expected, Expected::Error(_)) {
                        continue;
                    }
                    let dataset = c.dataset_name();
                    let what = format!("{name}:{entry} {dataset}");
                    let inputs: Vec<Value> = match &c.input {
                        Input::Values(vs, _) => vs.clone(),
                        Input::File(f) => match read_file(&dir.join(f)) {
                            Ok(vs) => vs,
                            Err(e) => {
                                progress.message(&format!("ERROR {what}: cannot read {f}: {e}"));
                                failed = true;
                                continue;
                            }
                        },
                        Input::Random(items) => {
                            let seed = random_seed(0, &name, entry, b.index, c.index);
                            match generate_random(items, seed, 1 << 28) {
                                Ok(vs) => vs,
                                Err(e) => {
                                    progress.message(&format!("ERROR {what}: {e}"));
                                    failed = true;
                                    continue;
                                }
                            }
                        }
                        Input::Script(_) => continue,
                    };
                    if let Err(m) = check_inputs(ep, &inputs) {
                        progress.message(&format!("FAIL {what}: {m}"));
                        failed = true;
                        continue;
                    }
                    let expected = match &c.expected {
                        Expected::Values(vs) => Some(vs.clone()),
                        Expected::File(f) => read_file(&dir.join(f)).ok(),
                        _ => None,
                    };
                    let mut runtimes = Vec::with_capacity(a.runs);
                    let total = a.warmup + a.runs;
                    let mut ok = true;
                    for k in 0..total {
                        progress.show(&format!(
                            "{what}: {} {}/{}",
                            if k < a.warmup { "warm-up" } else { "run" },
                            if k < a.warmup {
                                k + 1
                            } else {
                                k + 1 - a.warmup
                            },
                            if k < a.warmup { a.warmup } else { a.runs }
                        ));
                        // Timed until the results are available: the native backend hands
                        // them over where the generated code left them (as a caller of the C
                        // library gets them); the first call's are copied out afterwards,
                        // untimed, to be checked.
                        let args: Vec<ValueRef> = inputs.iter().map(Value::as_value_ref).collect();
                        let start = Instant::now();
                        let r = catch_panic(|| {
                            program.call_with(entry, &args, |results| {
                                let us = start.elapsed().as_secs_f64() * 1e6;
                                let owned: Option<Vec<Value>> = (k == 0 && expected.is_some())
                                    .then(|| results.iter().map(ValueRef::to_value).collect());
                                (us, owned)
                            })
                        });
                        let (us, r) = match r {
                            Ok(Ok(r)) => r,
                            Ok(Err(e)) => {
                                progress.message(&format!("FAIL {what}: {e}"));
                                ok = false;
                                break;
                            }
                            Err(p) => {
                                progress.message(&format!(
                                    "ERROR {what}: internal error: gradus panicked: {p}"
                                ));
                                ok = false;
                                break;
                            }
                        };
                        if let (Some(want), Some(r)) = (&expected, &r)
                            && let Err(m) = compare_values(want, r, DEFAULT_TOLERANCE)
                        {
                            progress.message(&format!("FAIL {what}: {m}"));
                            ok = false;
                            break;
                        }
                        if k >= a.warmup {
                            runtimes.push(us);
                        }
                    }
                    if !ok {
                        failed = true;
                        continue;
                    }
                    rows.push(Row {
                        program: name.clone(),
                        entry: entry.clone(),
                        dataset,
                        runtimes,
                    });
                }
            }
        }
    }
    progress.clear();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<48} {:>14} {:>14} {:>14} {:>7}",
        format!("backend {}", backend.name()),
        "median (us)",
        "min (us)",
        "max (us)",
        "rsd"
    );
    for r in &rows {
        let (med, min, max, rsd) = stats(&r.runtimes);
        let _ = writeln!(out, "{}:{} {}", r.program, r.entry, r.dataset);
        let _ = writeln!(
            out,
            "{:<48} {med:>14.1} {min:>14.1} {max:>14.1} {rsd:>6.1}%",
            ""
        );
    }
    if let Some(j) = &a.json {
        let mut map: BTreeMap<String, BTreeMap<String, BTreeMap<String, serde_json::Value>>> =
            BTreeMap::new();
        for r in &rows {
            map.entry(format!("{}:{}", r.program, r.entry))
                .or_default()
                .entry("datasets".into())
                .or_default()
                .insert(
                    r.dataset.clone(),
                    serde_json::json!({ "runtimes": r.runtimes.iter().map(|x| x.round() as u64).collect::<Vec<_>>() }),
                );
        }
        let text = serde_json::to_string_pretty(&map).unwrap_or_else(|_| "{}".into());
        if let Err(e) = std::fs::write(j, text + "\n") {
            eprintln!("error: cannot write {}: {e}", j.display());
            return 1;
        }
    }
    if failed { 1 } else { 0 }
}
