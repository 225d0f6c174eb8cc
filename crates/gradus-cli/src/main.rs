//! The `gradus` command (docs/cli.md): `gradus run`, `gradus test`, `gradus dev`,
//! `gradus check`, `gradus bench`, `gradus c`, `gradus gradbench`, `gradus cache`.
//!
//! Exit codes: 0 success; 1 compile error (run) or failed/erroneous cases (test); 2 invalid
//! usage or a run-time error in the program (run); 3 bad input data (run); 4 an internal
//! error in gradus. Panics inside the compiler are caught and reported, never shown raw.

mod bench;
mod c_cmd;
mod cache;
mod check;
mod common;
mod dev;
mod gradbench;
mod optargs;
mod run;
mod shard;
#[cfg(feature = "mpi")]
mod shard_mpi;
mod test;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// gradus: a differentiable subset of Futhark.
#[derive(Parser, Debug)]
#[command(name = "gradus", version, about, long_about = None)]
struct Cli {
    /// Compile float operations in the interpreter's order, with its results (the default
    /// lets the C compiler reassociate sums into vectorised partial sums; see
    /// `GRADUS_EXACT_FLOATS`).
    #[arg(long, global = true)]
    exact_floats: bool,
    /// Let the optimiser assume finite floats and ignore the sign of zero: `x * 0.0` becomes
    /// `0.0`, `x - x` becomes `0.0` (see `GRADUS_FAST_MATH`; off by default, and ignored with
    /// `--exact-floats`).
    #[arg(long, global = true)]
    fast_math: bool,
    /// Verify the core IR after every compiler pass (a failure is reported as an internal
    /// compiler error naming the pass; see `GRADUS_VERIFY`).
    #[arg(long, global = true)]
    verify: bool,
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
    /// Show the cache of compiled C libraries (location, size, files), or clean it.
    Cache(cache::CacheArgs),
}

/// How long the OpenMP threads of the multicore backend spin before they sleep, unless the
/// user chose (`OMP_WAIT_POLICY`, `GOMP_SPINCOUNT`): `GOMP_SPINCOUNT` loops of a pause, tens
/// of µs, enough to carry a thread from one parallel loop of a call to the next. A thread
/// that sleeps at once (passive waiting) is woken by the kernel at every loop, which on a
/// virtual machine took long enough that HAND's and BA's Jacobians gained nothing from a
/// second thread (1.6–1.9× with the short spin); one that spins long (OpenMP's default)
/// takes its core's time slice from any other process, and with one of two cores busy the
/// GMM objective took 10–24 ms on two threads against 1.1 ms on one. With a short spin and
/// a core busy, calls run at one thread's speed (each entry point keeps to one thread where
/// two lose), with slower trials of two threads now and then.
const OPENMP_SPIN_COUNT: &str = "2000";

fn brief_openmp_spin() {
    if std::env::var_os("OMP_WAIT_POLICY").is_none() && std::env::var_os("GOMP_SPINCOUNT").is_none()
    {
        // SAFETY: called first thing in `main`, before any other thread exists and before
        // the OpenMP runtime is loaded (with the first compiled program), so nothing reads
        // the environment concurrently.
        unsafe { std::env::set_var("GOMP_SPINCOUNT", OPENMP_SPIN_COUNT) };
    }
}

/// Keeps memory that a call of a compiled program freed for the next call. glibc's malloc
/// serves large blocks with fresh pages from the system and returns them on `free`, so
/// every call faulted in its large arrays again, and the copies of its results in Rust
/// `Vec`s: 3,800 page faults, over a third of the time of a bundle adjustment Jacobian
/// (two results of 8 MB). Blocks up to 32 MB (glibc's largest threshold) now come from the
/// heap, and up to 1 GB of free heap stays with the process.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: `mallopt` only sets allocator parameters; called first thing in `main`,
    // before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> ExitCode {
    common::install_quiet_panic_hook();
    brief_openmp_spin();
    keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(code.clamp(0, 255) as u8);
        }
    };
    if cli.exact_floats {
        // SAFETY: no other thread exists yet and no program has been loaded; the C backend
        // reads the variable when it compiles.
        unsafe { std::env::set_var("GRADUS_EXACT_FLOATS", "1") };
    }
    if cli.fast_math && !cli.exact_floats {
        // SAFETY: as above; the optimiser reads the variable when it compiles.
        unsafe { std::env::set_var("GRADUS_FAST_MATH", "1") };
    }
    if cli.exact_floats {
        // SAFETY: as above.
        unsafe { std::env::remove_var("GRADUS_FAST_MATH") };
    }
    if cli.verify {
        gradus::pipeline::passes::verify_every_pass();
    }
    let code = match cli.command {
        Command::Run(a) => run::run(a),
        Command::Test(a) => test::test(a),
        Command::Dev(a) => dev::dev(a),
        Command::Check(a) => check::check(a),
        Command::Bench(a) => bench::bench(a),
        Command::C(a) => c_cmd::c(a),
        Command::Gradbench(a) => gradbench::gradbench(a),
        Command::Cache(a) => cache::cache(a),
    };
    ExitCode::from(code)
}
