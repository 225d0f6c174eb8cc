//! Runs `gradus test --verify tests/programs` on the whole program corpus with the
//! interpreter and with the `gpu` backend, the core IR verified after every pass, and expects
//! every case to pass (skips are fine). The `c` and `multicore` backends run the same corpus
//! in `crates/gradus/tests/backend_diff.rs`.
//!
//! The `gpu` run needs an OpenCL device (POCL runs the kernels on the CPU: Debian's
//! `pocl-opencl-icd`); without one it is skipped with a notice, unless `GRADUS_REQUIRE_GPU`
//! is set (as continuous integration does), when it fails. It runs every reduction and scan
//! as kernels, however small (the default runs small ones on the host), split into few,
//! uneven chunks and groups ([`KERNELS_EVERYWHERE`]), so that the corpus's small inputs
//! reach every step of the device's reductions. A subset runs under Oclgrind, an OpenCL
//! simulator that reports data races and out-of-bounds accesses
//! ([`corpus_subset_is_clean_under_oclgrind`]).

use std::path::Path;
use std::process::Command;

#[test]
fn corpus_passes() {
    corpus_passes_on("interp", "tests/programs", &[]);
}

#[test]
fn corpus_passes_on_gpu() {
    if std::env::var_os("GRADUS_REQUIRE_GPU").is_none()
        && let Some(why) = no_gpu()
    {
        eprintln!("corpus_passes_on_gpu: skipped: {why}");
        return;
    }
    corpus_passes_on("gpu", "tests/programs", &[("CFLAGS", KERNELS_EVERYWHERE)]);
}

/// C flags that make every parallel loop, reduction and scan of the `gpu` backend a kernel
/// and split reductions into 7 chunks combined in 3 groups, or in work-groups of 3 (the last
/// one partial) where the operator allows a tree in local memory (see
/// `backend::lower::Combine`).
const KERNELS_EVERYWHERE: &str = "-O1 -DGR_PAR_MIN_WORK=0 -DGR_PAR_CHUNK_MIN_WORK=0 \
     -DGR_GPU_REDUCE_CHUNKS=7 -DGR_GPU_COMBINE_GROUPS=3 -DGR_GPU_GROUP_SIZE=3";

/// The ordinary programs, reverse mode and sparse derivatives of the corpus on the `gpu`
/// backend through Oclgrind, which checks every memory access of every work-item: the
/// results must be right and Oclgrind must report nothing (no data race, no access out of
/// bounds, no invalid API use). Skipped with a notice where Oclgrind's OpenCL driver is
/// not installed (Debian's `oclgrind`; `GRADUS_OCLGRIND_ICD` names its `.so`), unless
/// `GRADUS_REQUIRE_OCLGRIND` is set, as continuous integration does.
#[test]
fn corpus_subset_is_clean_under_oclgrind() {
    let icd = std::env::var("GRADUS_OCLGRIND_ICD")
        .unwrap_or_else(|_| "/usr/lib/oclgrind/liboclgrind-rt-icd.so".to_string());
    if !Path::new(&icd).exists() {
        assert!(
            std::env::var_os("GRADUS_REQUIRE_OCLGRIND").is_none(),
            "GRADUS_REQUIRE_OCLGRIND is set but {icd} does not exist"
        );
        eprintln!("corpus_subset_is_clean_under_oclgrind: skipped: no {icd}");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oclgrind");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("oclgrind.icd"), format!("{icd}\n")).unwrap();
    let log = dir.join("oclgrind.log");
    let vendors = dir.to_str().unwrap();
    let env = [
        ("CFLAGS", KERNELS_EVERYWHERE),
        ("OCL_ICD_VENDORS", vendors),
        ("OCLGRIND_DATA_RACES", "1"),
        ("OCLGRIND_CHECK_API", "1"),
        ("OCLGRIND_LOG", log.to_str().unwrap()),
        ("GRADUS_GPU_RUNTIME", "opencl"),
    ];
    // One program at a time: Oclgrind's driver does not keep two contexts used by two
    // threads at once apart (results go wrong only then).
    let dirs = [
        "tests/programs/basics",
        "tests/programs/ad/vjp",
        "tests/programs/sparse",
    ];
    run_corpus("gpu", &dirs, &["--concurrency", "1"], &env);
    let report = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(report.trim().is_empty(), "Oclgrind reported:\n{report}");
}

/// The derivatives of the corpus on the `gpu` backend with every parallel loop that holds
/// loops that can be kernels run the other way: its iterations on the host, each launching
/// the inner loops (`GRADUS_GPU_MIN_OUTER`, which the default leaves at 0).
#[test]
fn corpus_derivatives_pass_on_gpu_with_inner_kernels() {
    if std::env::var_os("GRADUS_REQUIRE_GPU").is_none()
        && let Some(why) = no_gpu()
    {
        eprintln!("corpus_derivatives_pass_on_gpu_with_inner_kernels: skipped: {why}");
        return;
    }
    let env = [("GRADUS_GPU_MIN_OUTER", "1000000000")];
    corpus_passes_on("gpu", "tests/programs/ad", &env);
}

/// A float sum on the `gpu` backend, as kernels in 1000 chunks combined by work-groups of 13
/// (the last one partial), gives the same bits on every run, and the interpreter's sum up to
/// rounding (the terms' magnitudes span 17 orders, so the order of the additions shows).
#[test]
fn gpu_float_sum_is_the_same_on_every_run() {
    if std::env::var_os("GRADUS_REQUIRE_GPU").is_none()
        && let Some(why) = no_gpu()
    {
        eprintln!("gpu_float_sum_is_the_same_on_every_run: skipped: {why}");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gpu_sum");
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("sum.fut");
    std::fs::write(
        &prog,
        "entry main (n: i64) : (f64, f64) =\n  \
         let xs = map (\\i -> f64.sin (f64.i64 i) * f64.exp (f64.i64 (i % 40))) (iota n)\n  \
         in (reduce (+) 0 xs, reduce (+) 0 (map f64.abs xs))\n",
    )
    .unwrap();
    let flags = "-O1 -DGR_PAR_MIN_WORK=0 -DGR_PAR_CHUNK_MIN_WORK=0 \
                 -DGR_GPU_REDUCE_CHUNKS=1000 -DGR_GPU_GROUP_SIZE=13";
    let run = |backend: &str| -> Vec<f64> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gradus"))
            .args(["run", "--backend", backend])
            .arg(&prog)
            .env("CFLAGS", flags)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("cannot run gradus");
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"100003i64").unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .split_whitespace()
            .map(|v| v.trim_end_matches("f64").parse().unwrap())
            .collect()
    };
    let first = run("gpu");
    let second = run("gpu");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&first), bits(&second), "{first:?} vs {second:?}");
    let exact = run("interp");
    assert!(
        (first[0] - exact[0]).abs() <= 1e-12 * exact[1],
        "{first:?} vs {exact:?}"
    );
    assert!(
        (first[1] - exact[1]).abs() <= 1e-12 * exact[1],
        "{first:?} vs {exact:?}"
    );
}

/// Why the `gpu` backend cannot run here, if it cannot.
fn no_gpu() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .current_dir(&root)
        .args([
            "test",
            "--backend",
            "gpu",
            "tests/programs/basics/arrays.fut",
        ])
        .output()
        .expect("cannot run gradus");
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find(|l| l.contains("OpenCL") && !l.contains("internal error"))
        .map(|l| l.trim().to_string())
}

fn corpus_passes_on(backend: &str, dir: &str, env: &[(&str, &str)]) {
    run_corpus(backend, &[dir], &[], env);
}

/// Runs `gradus test --verify` on the programs under `dirs` with `backend`, the further
/// options `opts` and the environment `env`, and expects every case to pass.
fn run_corpus(backend: &str, dirs: &[&str], opts: &[&str], env: &[(&str, &str)]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_gradus"))
        .current_dir(&root)
        .args(["test", "--verify", "--backend", backend])
        .args(opts)
        .args(dirs)
        .envs(env.iter().copied())
        .output()
        .expect("cannot run gradus");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stdout.lines().last().unwrap_or("");
    let summary = regex::Regex::new(
        r"^gradus test: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) errors, ([0-9]+) skipped$",
    )
    .unwrap();
    let caps = summary
        .captures(last)
        .unwrap_or_else(|| panic!("no summary line:\n{stdout}\n{stderr}"));
    assert_eq!(&caps[2], "0", "failures:\n{stdout}");
    assert_eq!(&caps[3], "0", "errors:\n{stdout}");
    assert!(caps[1].parse::<usize>().unwrap() > 100, "{stdout}");
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
}
