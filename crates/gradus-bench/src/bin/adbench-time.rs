//! Times entry points of a benchmark program on one input file the way ADBench does
//! (`benchmarks/README.md` §timing): only the call is timed (not compiling or reading); the
//! repeat count doubles until a batch takes at least `--min-batch` seconds, then batches of
//! that many calls are timed until `--samples` samples or `--budget` seconds, and the minimum
//! per-call time is reported, with each entry's time relative to the first one's.
//!
//! ```text
//! adbench-convert gmm ../shared/data/adbench/gmm/1k/gmm_d10_K25.txt > /tmp/gmm.in
//! adbench-time benchmarks/gmm.fut /tmp/gmm.in objective gradient
//! ```
//!
//! Programs run on gradus's reference interpreter (`gradus::program::Program`), or with
//! `--native` on the native backend (sequential C); `--no-opt` compiles without the optimiser,
//! `--disable-pass PASS` (repeatable) without one of its passes.
//! `--ops` reports the interpreter's operation count of one call of each entry point instead
//! of times. With `--cpu`
//! the clock is the process's CPU time (user + system, from `/proc/self/stat`, Linux only)
//! instead of wall-clock time, which is steadier on a machine shared with other work.

use gradus::backend::c::NativeOptions;
use gradus::opt::OptOptions;
use gradus::program::{Backend, Program};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: adbench-time [--cpu] [--ops] [--native] [--no-opt] [--disable-pass PASS]... [--min-batch S] [--samples N] [--budget S] \
PROGRAM.fut INPUT ENTRY...";

/// Clock ticks per second of `/proc/self/stat`'s CPU times (`USER_HZ`, 100 on Linux).
const USER_HZ: f64 = 100.0;

/// The process's CPU time (user + system) in seconds, if `/proc/self/stat` can be read.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / USER_HZ)
}

/// A stopwatch on wall-clock or CPU time.
#[derive(Clone, Copy)]
enum Clock {
    Wall(Instant),
    Cpu(f64),
}

impl Clock {
    fn start(cpu: bool) -> Clock {
        match cpu.then(cpu_seconds).flatten() {
            Some(c) => Clock::Cpu(c),
            None => Clock::Wall(Instant::now()),
        }
    }
    fn elapsed(&self) -> f64 {
        match self {
            Clock::Wall(t) => t.elapsed().as_secs_f64(),
            Clock::Cpu(c) => cpu_seconds().map_or(0.0, |now| now - c),
        }
    }
}

struct Options {
    cpu: bool,
    ops: bool,
    native: bool,
    no_opt: bool,
    disabled: Vec<String>,
    min_batch: f64,
    samples: usize,
    budget: f64,
    program: String,
    input: String,
    entries: Vec<String>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        cpu: false,
        ops: false,
        native: false,
        no_opt: false,
        disabled: Vec::new(),
        min_batch: 0.5,
        samples: 10,
        budget: 60.0,
        program: String::new(),
        input: String::new(),
        entries: Vec::new(),
    };
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--disable-pass" {
            let pass = it.next().ok_or("--disable-pass needs a pass name")?;
            o.disabled.push(pass.clone());
            continue;
        }
        let mut value = |name: &str| -> Result<f64, String> {
            it.next()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("{name} needs a non-negative number"))
        };
        match a.as_str() {
            "--cpu" => o.cpu = true,
            "--ops" => o.ops = true,
            "--native" => o.native = true,
            "--no-opt" => o.no_opt = true,
            "--min-batch" => o.min_batch = value("--min-batch")?,
            "--samples" => o.samples = (value("--samples")? as usize).max(1),
            "--budget" => o.budget = value("--budget")?,
            _ if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => positional.push(a.clone()),
        }
    }
    if positional.len() < 3 {
        return Err("expected a program, an input file and at least one entry point".into());
    }
    o.program = positional.remove(0);
    o.input = positional.remove(0);
    o.entries = positional;
    Ok(o)
}

/// The minimum time per call of `run` in seconds, measured as benchmarks/README.md §timing
/// describes, and the number of calls per sample.
fn measure(
    o: &Options,
    mut run: impl FnMut() -> Result<(), String>,
) -> Result<(f64, usize), String> {
    let mut reps = 1usize;
    let first = loop {
        let t = Clock::start(o.cpu);
        for _ in 0..reps {
            run()?;
        }
        let e = t.elapsed();
        if e >= o.min_batch || reps >= 1 << 20 {
            break e;
        }
        reps *= 2;
    };
    let mut best = first / reps as f64;
    let start = Instant::now();
    let mut samples = 1;
    while samples < o.samples && start.elapsed().as_secs_f64() < o.budget {
        let t = Clock::start(o.cpu);
        for _ in 0..reps {
            run()?;
        }
        best = best.min(t.elapsed() / reps as f64);
        samples += 1;
    }
    Ok((best, reps))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let o = match parse_args(&args) {
        Ok(o) => o,
        Err(m) => {
            eprintln!("adbench-time: {m}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut opts = if o.no_opt {
        OptOptions::off()
    } else {
        OptOptions::default()
    };
    for p in &o.disabled {
        if let Err(m) = opts.disable(p) {
            eprintln!("adbench-time: {m}");
            return ExitCode::from(2);
        }
    }
    let prog = match Program::from_file_with(Path::new(&o.program), &opts) {
        Ok(p) => p,
        Err(d) => {
            eprintln!("{d}");
            return ExitCode::from(1);
        }
    };
    let prog = if o.native && !o.ops {
        match prog.with_backend(Backend::Native(NativeOptions::sequential())) {
            Ok(p) => p,
            Err(m) => {
                eprintln!("adbench-time: native backend: {m}");
                return ExitCode::from(1);
            }
        }
    } else {
        prog
    };
    let input = match gradus::data::read_file(Path::new(&o.input)) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("adbench-time: {}: {e}", o.input);
            return ExitCode::from(1);
        }
    };
    let mut reference: Option<f64> = None;
    for entry in &o.entries {
        let result = if o.ops {
            prog.counter().reset();
            prog.call(entry, input.clone())
                .map(|_| (prog.counter().total() as f64, 1))
                .map_err(|e| format!("{entry}: {e}"))
        } else {
            measure(&o, || {
                prog.call(entry, input.clone())
                    .map(|_| ())
                    .map_err(|e| format!("{entry}: {e}"))
            })
        };
        match result {
            Ok((amount, reps)) => {
                let ratio = reference.map_or(1.0, |r| amount / r);
                reference.get_or_insert(amount);
                if o.ops {
                    println!("{entry}\t{amount} operations\t×{ratio:.2}");
                } else {
                    println!("{entry}\t{amount:.6} s\t×{ratio:.2}\t({reps} calls per sample)");
                }
            }
            Err(m) => {
                eprintln!("adbench-time: {m}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
