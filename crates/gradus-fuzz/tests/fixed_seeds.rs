//! The fixed seed set: random programs on every backend configuration and through the AD
//! checks, and a short robustness run of each reader. Every failure is listed with its seed;
//! `cargo run --release -p gradus-fuzz -- --seed S --seeds 1 --minutes 10` reproduces one and
//! writes its shrunk test-block program to `target/fuzz-failures`.
//!
//! Without a C compiler this test fails: it must not pass silently where the native backends
//! cannot be checked.

use gradus_fuzz::campaign::{self, Settings, Summary};
use gradus_fuzz::diff;
use gradus_fuzz::robust::{self, Target};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// The seeds run: each gives a program of 12 generated entry points, 2 AD functions and the
/// semantic probes (conversions, float identities).
const SEEDS: std::ops::Range<u64> = 0..14;

#[test]
fn fixed_seeds_agree_everywhere() {
    assert!(
        gradus::backend::c::build::find_compiler().is_some(),
        "NO C COMPILER FOUND: the native backends cannot be tested. Install gcc or clang, or \
         set CC."
    );
    // The IR is verified after every pass of every compilation.
    gradus::pipeline::passes::verify_every_pass();
    // -O0: compiling C dominates, and the long mode covers -O1.
    diff::configure_c_compiler("-O0");
    // SAFETY: set before this test starts threads (the only test of the binary that reads
    // the environment).
    unsafe {
        std::env::set_var(
            "GRADUS_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("gradus-fuzz-cache"),
        );
    }
    let mut settings = Settings {
        entries: 12,
        ..Settings::default()
    };
    // The gpu backend where an OpenCL device is found (POCL runs it on the CPU).
    if diff::gpu_available() {
        settings.configs.push(diff::Config::Gpu);
    } else {
        eprintln!("fixed_seeds_agree_everywhere: no OpenCL device: the gpu backend is left out");
    }
    let seeds: Vec<u64> = SEEDS.collect();
    let next = Mutex::new(0usize);
    let total = Mutex::new(Summary::default());
    // Two threads: compiling C dominates, and the machines that run the tests have two cores.
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(&seed) = seeds.get(i) else { break };
                    let mut one = Summary::default();
                    campaign::run_seed(seed, &settings, &mut one);
                    let mut t = total.lock().unwrap();
                    t.seeds += one.seeds;
                    t.programs += one.programs;
                    t.functions += one.functions;
                    t.cases += one.cases;
                    t.runtime_errors += one.runtime_errors;
                    t.coverage.merge(&one.coverage);
                    t.sparse.merge(&one.sparse);
                    t.failures.extend(one.failures);
                }
            });
        }
    });
    let summary = total.into_inner().unwrap();
    eprintln!("{}", summary.report());
    assert!(summary.failures.is_empty(), "{}", summary.report());
    assert!(summary.functions >= 190, "{}", summary.report());
    // Every seed's AD functions go through the on-demand sparse Jacobian and Hessian.
    assert!(summary.sparse.checked >= 40, "{}", summary.report());
    // The generator must keep producing every construct it claims to cover.
    for construct in [
        "map",
        "map2",
        "map3",
        "reduce",
        "scan",
        "hist",
        "reduce_by_index",
        "scatter",
        "filter",
        "if",
        "loop-for",
        "loop-in",
        "loop-while",
        "update",
        "slice",
        "index",
        "irregular",
        "local-size",
        "rank-3",
        "transpose",
        "conversion",
        "division",
        "unique-param",
        "read-before-update",
        "scatter-in-place",
        "with-in-place",
        "float-identity",
        "edge-literal",
    ] {
        assert!(
            summary.coverage.0.get(construct).copied().unwrap_or(0) > 0,
            "{construct} never generated:\n{}",
            summary.report()
        );
    }
    assert!(summary.runtime_errors > 0, "no run-time errors generated");
}

#[test]
fn readers_survive_mutated_inputs() {
    let mut rng = Pcg64::seed_from_u64(7);
    let settings = Settings::default();
    let programs: Vec<String> = (0..8)
        .map(|s| campaign::general(s, &settings).1.source)
        .collect();
    for target in Target::ALL {
        let seeds = robust::seeds(target, &programs, &mut rng);
        let (n, findings) = robust::fuzz(
            target,
            &seeds,
            &mut rng,
            Duration::from_secs(5),
            2000,
            Duration::from_secs(20),
        );
        assert!(n > 0);
        assert!(
            findings.is_empty(),
            "{}: {} panics, first: {} on {:?}",
            target.name(),
            findings.len(),
            findings[0].message,
            String::from_utf8_lossy(&findings[0].input)
        );
    }
}

/// Seeds whose programs once broke the IR in the optimiser (`--passes`, a one-hour soak):
/// passes that renamed a size a branch reads (`map-fission` splitting an `if`, `if-share`
/// handing a value to a later `if`) left the types of what the branch binds naming the old
/// size, or renamed them while the split was still being tried. Interpreter only, the whole
/// optimiser and every pass alone, the IR verified after each.
#[test]
fn seeds_that_broke_the_optimiser_stay_fixed() {
    gradus::pipeline::passes::verify_every_pass();
    let mut configs = vec![diff::Config::Interp { opt: true }];
    configs.extend(diff::pass_configs());
    let settings = Settings {
        configs,
        probes: false,
        ..Settings::default()
    };
    let mut summary = Summary::default();
    for seed in [7000079, 7000104, 8000098] {
        campaign::run_seed(seed, &settings, &mut summary);
    }
    assert!(summary.failures.is_empty(), "{}", summary.report());
    assert!(summary.functions > 0, "{}", summary.report());
}
