//! The long mode: runs seeds until the time is up and prints a summary; optionally fuzzes
//! the readers afterwards.

use clap::Parser;
use gradus_fuzz::campaign::{self, Settings, Summary};
use gradus_fuzz::diff::{self, Config};
use gradus_fuzz::robust::{self, Target};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Differential testing of gradus: random programs on every backend and through AD.
#[derive(Parser)]
#[command(name = "gradus-fuzz")]
struct Args {
    /// Run random programs for this many minutes.
    #[arg(long, default_value_t = 1.0)]
    minutes: f64,
    /// The first seed (seeds are consecutive from here).
    #[arg(long, default_value_t = 1_000_000)]
    seed: u64,
    /// Stop after this many seeds.
    #[arg(long)]
    seeds: Option<u64>,
    /// Entry points per generated program.
    #[arg(long, default_value_t = 8)]
    entries: usize,
    /// Expression depth.
    #[arg(long, default_value_t = 4)]
    depth: usize,
    /// Where shrunk failures are written.
    #[arg(long, default_value = "target/fuzz-failures")]
    out: PathBuf,
    /// Seconds allowed for shrinking each failure (0: do not shrink).
    #[arg(long, default_value_t = 120)]
    shrink_seconds: u64,
    /// Only the interpreter, unoptimised against optimised (no C compiler needed).
    #[arg(long)]
    interp_only: bool,
    /// Leave out the `gpu` backend (otherwise fuzzed when an OpenCL device is found).
    #[arg(long)]
    no_gpu: bool,
    /// Compare floats bit for bit everywhere (the sign of a zero included), with the native
    /// backends keeping the interpreter's order of float operations (`gradus
    /// --exact-floats`; also set by `GRADUS_EXACT_FLOATS=1`).
    #[arg(long)]
    exact_floats: bool,
    /// Also run each program through every optimiser pass alone, on the interpreter.
    #[arg(long)]
    passes: bool,
    /// Leave out the semantic probes (conversions, float identities).
    #[arg(long)]
    no_probes: bool,
    /// Then fuzz each reader (parser, type checker, core-IR text, values) for this many
    /// minutes.
    #[arg(long, default_value_t = 0.0)]
    robust_minutes: f64,
    /// The C optimisation level of the native builds.
    #[arg(long, default_value = "-O1")]
    c_opt: String,
    /// Print the program of one seed and exit.
    #[arg(long)]
    print: bool,
}

fn main() {
    let args = Args::parse();
    // Every compilation verifies the core IR after every pass: a broken pass is a finding.
    gradus::pipeline::passes::verify_every_pass();
    diff::configure_c_compiler(&args.c_opt);
    if args.exact_floats {
        diff::set_exact_floats();
    }
    let mut configs = if args.interp_only {
        vec![Config::Interp { opt: true }]
    } else {
        Config::ALL.to_vec()
    };
    if args.passes {
        configs.extend(diff::pass_configs());
    }
    if !args.interp_only && !args.no_gpu {
        if diff::gpu_available() {
            configs.push(Config::Gpu);
        } else {
            eprintln!("gradus-fuzz: no OpenCL device: the gpu backend is not fuzzed");
        }
    }
    // Panics are caught and reported as findings; the default hook's messages would bury
    // the summary (`GRADUS_FUZZ_PANICS` keeps them, with where each panic happened).
    if std::env::var_os("GRADUS_FUZZ_PANICS").is_none() {
        std::panic::set_hook(Box::new(|_| {}));
    }
    let settings = Settings {
        entries: args.entries,
        depth: args.depth,
        configs,
        probes: !args.no_probes,
        shrink: (args.shrink_seconds > 0)
            .then(|| (args.out.clone(), Duration::from_secs(args.shrink_seconds))),
        ..Settings::default()
    };
    if args.print {
        let (_, subject, _) = campaign::general(args.seed, &settings);
        println!("{}", subject.source);
        for c in &subject.cases {
            let vals: Vec<String> = c.args.iter().map(gradus::data::write_text).collect();
            println!("-- {}: {}", c.entry, vals.join(" "));
        }
        let (functions, ad, _) = campaign::ad(args.seed, &settings);
        println!("{}", ad.source);
        let (branching, _) = campaign::branching(args.seed, &settings);
        let all = [functions, branching].concat();
        let name = format!("fuzz-sparse-{}.fut", args.seed);
        println!("{}", gradus_fuzz::sparse_check::subject(&name, &all).source);
        return;
    }
    let started = Instant::now();
    let deadline = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
    let mut summary = Summary::default();
    let mut seed = args.seed;
    while Instant::now() < deadline && args.seeds.is_none_or(|n| seed - args.seed < n) {
        let before = summary.failures.len();
        campaign::run_seed(seed, &settings, &mut summary);
        for (s, f) in &summary.failures[before..] {
            eprintln!("[{:.1}s] seed {s}: {f}", started.elapsed().as_secs_f64());
        }
        seed += 1;
        if summary.seeds % 25 == 0 {
            eprintln!(
                "... {} seeds, {} failures",
                summary.seeds,
                summary.failures.len()
            );
        }
    }
    println!("{}", summary.report());
    if args.robust_minutes > 0.0 {
        let mut rng = Pcg64::seed_from_u64(args.seed);
        let mut programs = corpus_programs();
        for s in 0..32 {
            programs.push(campaign::general(s, &settings).1.source);
        }
        for target in Target::ALL {
            let seeds = robust::seeds(target, &programs, &mut rng);
            let (n, findings) = robust::fuzz(
                target,
                &seeds,
                &mut rng,
                Duration::from_secs_f64(args.robust_minutes * 60.0),
                u64::MAX,
                Duration::from_secs(10),
            );
            println!("{}: {n} inputs, {} panics", target.name(), findings.len());
            for f in findings.iter().take(5) {
                println!(
                    "  panic: {}\n  input: {:?}",
                    f.message,
                    String::from_utf8_lossy(&f.input)
                );
            }
        }
    }
    if !summary.failures.is_empty() {
        std::process::exit(1);
    }
}

/// The corpus programs of `tests/programs`, when run from the repository root.
fn corpus_programs() -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "fut")
                && let Ok(t) = std::fs::read_to_string(&p)
            {
                out.push(t);
            }
        }
    }
    let mut out = Vec::new();
    walk(std::path::Path::new("tests/programs"), &mut out);
    out
}
