//! `gradus run --shard` (docs/mpi.md): the combined results equal those of `gradus run`
//! within tolerance; refusals and run-time errors are reported with their locations. With
//! the cargo feature `mpi` (`.ci/run` turns it on), the same under `mpirun -np 1..4`,
//! including more processes than rows and an error on one process only.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .display()
        .to_string()
}

/// Runs `cmd args` with `stdin`; gives up (failing) after two minutes.
fn run(cmd: &str, args: &[String], stdin: &[u8]) -> Output {
    let mut child = Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"));
    if let Some(mut s) = child.stdin.take() {
        let _ = s.write_all(stdin);
    }
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed().as_secs() > 120 {
            let _ = child.kill();
            panic!("{cmd} {args:?} did not finish: a process left waiting?");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn gradus(args: &[&str], stdin: &[u8]) -> Output {
    run(env!("CARGO_BIN_EXE_gradus"), &strings(args), stdin)
}

fn same_values(got: &Output, want: &Output, what: &str) {
    assert!(
        got.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    let g = gradus::data::read_values(&got.stdout).unwrap();
    let w = gradus::data::read_values(&want.stdout).unwrap();
    if let Err(e) = gradus::testspec::compare_values(&w, &g, 1e-9) {
        panic!("{what}: {e}");
    }
}

const PROGRAM: &str = r#"
entry stats [n] (xs: [n]f64) (c: f64) : (f64, [n]f64, i64) =
  (f64.sum (map (\x -> x * c) xs) + c, map (+ c) xs, n)

entry picky [n] (xs: [n]i64) (t: [3]f64) : f64 =
  f64.sum (map (\i -> t[i]) xs)

entry biggest [n] (xs: [n]f64) : f64 = 2 * f64.maximum xs

entry extremes [n] (xs: [n]f64) (is: [n]i64) : (f64, i64, f64, [n]bool) =
  (f64.maximum xs, i64.minimum is, f64.sum xs, map (> 0) is)
"#;

fn program() -> String {
    let dir = std::env::temp_dir().join(format!("gradus-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("shard.fut");
    // Tests run in parallel: each writes its own copy and renames it into place, so that
    // none reads a file another is writing.
    let tmp = dir.join(format!("shard.fut.{:?}", std::thread::current().id()));
    std::fs::write(&tmp, PROGRAM).unwrap();
    std::fs::rename(&tmp, &p).unwrap();
    p.display().to_string()
}

#[test]
fn one_process_equals_gradus_run() {
    let gmm = repo("benchmarks/gmm.fut");
    let data = repo("benchmarks/data/gmm_1k_d2_K5.in");
    for backend in ["interp", "c"] {
        let common = [
            "run",
            &gmm,
            "-e",
            "gradient",
            "--input",
            &data,
            "--backend",
            backend,
        ];
        let want = gradus(&common, b"");
        let mut sharded = common.to_vec();
        sharded.extend(["--shard", "x"]);
        same_values(&gradus(&sharded, b""), &want, backend);
    }
}

#[test]
fn refusals_and_errors_are_located() {
    let p = program();
    let out = gradus(
        &["run", "--shard", "xs", &p, "-e", "biggest"],
        b"[1.0, 2.0]",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mixes rows") && err.contains("shard.fut"),
        "{err}"
    );
    let out = gradus(
        &[
            "run",
            "--shard",
            "xs",
            &p,
            "-e",
            "picky",
            "--backend",
            "interp",
        ],
        b"[0i64, 7i64] [1.0, 2.0, 3.0]",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("out of bounds") && err.contains("shard.fut:"),
        "{err}"
    );
    let out = gradus(&["run", "--shard", "ys", &p, "-e", "stats"], b"[1.0] 2.0");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no array parameter named `ys`"));
}

#[cfg(feature = "mpi")]
mod mpi {
    use super::*;

    fn mpirun(np: usize, args: &[&str], stdin: &[u8]) -> Output {
        let mut all = strings(&["--oversubscribe", "-np", &np.to_string()]);
        if nix_root() {
            all.push("--allow-run-as-root".into());
        }
        all.push(env!("CARGO_BIN_EXE_gradus").into());
        all.extend(strings(args));
        run("mpirun", &all, stdin)
    }

    fn nix_root() -> bool {
        std::env::var("USER").is_ok_and(|u| u == "root")
            || std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
                s.lines()
                    .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
            })
    }

    #[test]
    fn one_to_four_processes_equal_gradus_run() {
        let gmm = repo("benchmarks/gmm.fut");
        let gdata = repo("benchmarks/data/gmm_1k_d2_K5.in");
        let ba = repo("benchmarks/ba.fut");
        let bdata = repo("benchmarks/data/ba_test.in");
        let km = repo("benchmarks/kmeans.fut");
        let kdata = repo("benchmarks/data/kmeans_5_1000_4.in");
        let cases: Vec<(&str, &str, &str, Vec<&str>)> = vec![
            (&gmm, "gradient", &gdata, vec!["x"]),
            (&gmm, "objective", &gdata, vec!["x"]),
            (&km, "gradient", &kdata, vec!["points"]),
            (&ba, "jacobian_blocks", &bdata, vec!["w", "obs", "feat"]),
        ];
        for (prog, entry, data, shard) in cases {
            let common = ["run", prog, "-e", entry, "--input", data, "--backend", "c"];
            let want = gradus(&common, b"");
            for np in 1..=4 {
                let mut args = common.to_vec();
                for s in &shard {
                    args.extend(["--shard", s]);
                }
                let got = mpirun(np, &args, b"");
                same_values(&got, &want, &format!("{entry} on {np} processes"));
            }
        }
    }

    #[test]
    fn more_processes_than_rows() {
        let p = program();
        let args = [
            "run",
            "--shard",
            "xs",
            &p,
            "-e",
            "stats",
            "--backend",
            "interp",
        ];
        let input = b"[1.0, 2.0, 3.0] 0.5";
        let want = gradus(&args, input);
        let got = mpirun(4, &args, input);
        same_values(&got, &want, "3 rows on 4 processes");
        let got = mpirun(2, &args, b"empty([0]f64) 0.5");
        same_values(&got, &gradus(&args, b"empty([0]f64) 0.5"), "no rows");
    }

    #[test]
    fn maxima_minima_and_rows_of_bools_on_one_to_four_processes() {
        let p = program();
        let mut args = vec!["run", &p, "-e", "extremes", "--backend", "c"];
        let input = b"[0.5, -2.0, 3.25, 1.0, -0.5] [4i64, -3i64, 7i64, 0i64, 2i64]";
        let want = gradus(&args, input);
        args.extend(["--shard", "xs", "--shard", "is"]);
        for np in 1..=4 {
            let got = mpirun(np, &args, input);
            same_values(&got, &want, &format!("extremes on {np} processes"));
        }
        let empty = b"empty([0]f64) empty([0]i64)";
        let got = mpirun(3, &args, empty);
        let plain: Vec<&str> = args[..6].to_vec();
        same_values(&got, &gradus(&plain, empty), "extremes of no rows");
    }

    #[test]
    fn an_error_on_one_process_ends_all() {
        let p = program();
        // Only the last process's rows hold the bad index.
        let args = [
            "run",
            "--shard",
            "xs",
            &p,
            "-e",
            "picky",
            "--backend",
            "interp",
        ];
        let out = mpirun(
            3,
            &args,
            b"[0i64, 1i64, 2i64, 0i64, 1i64, 9i64] [1.0, 2.0, 3.0]",
        );
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("out of bounds")
                && err.contains("shard.fut:")
                && err.contains("on process 2 of 3"),
            "{err}"
        );
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty());
        let out = mpirun(3, &args, b"[0i64, 1i64] [1.0, 2.0");
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = mpirun(2, &["run", "--shard", "xs", &p, "-e", "biggest"], b"[1.0]");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.matches("cannot shard").count(),
            1,
            "printed once: {err}"
        );
    }
}
