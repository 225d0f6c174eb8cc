//! Compiling generated C into a shared library, with a cache.
//!
//! The compiler is `$CC` (default: the first of `cc`, `gcc`, `clang` that runs), the flags
//! `$CFLAGS` (default `-O3 -march=native`) followed by what the backend needs (`-shared -fPIC
//! -ffp-contract=off`, and `-fopenmp` for multicore; `-ffp-contract=off` because contracting
//! `a * b + c` into a fused multiply-add would change results, docs/language.md §Floating-point
//! arithmetic).
//!
//! **Floating point.** By default the compiler may also reassociate the additions of the
//! float sums the lowering marks (a `reduce` with `+`, fused with a map or not: OpenMP's
//! `simd reduction` through `-fopenmp-simd`, see [`REASSOCIATE`]): a sequential sum such as a
//! row of a matrix-vector product then runs as several vectorised partial sums instead of
//! one chain of dependent additions (GMM's objective at d = 64 was 2.1× faster). Results may
//! differ from the interpreter's in the last bits, and a zero's sign is not kept; no other
//! expression is rewritten, so infinities and NaNs are never erased. On x86-64 Linux with glibc, loops calling `exp`, `log`, `sin`, `pow` and the
//! other functions of glibc's vector math library (libmvec) may also be vectorised, calling
//! its versions that compute 4 or 8 values at once (`-fno-math-errno -DGR_VECTOR_MATH`,
//! linking `-lmvec`): `lse`'s gradient is 2.5× faster. Those agree with the scalar functions
//! to a few units in the last place. `$GRADUS_EXACT_FLOATS` set to anything but `0`
//! (`gradus --exact-floats`) turns both off: every operation then happens in the
//! interpreter's order, with its results.
//!
//! **Compiled in parts at the same time.** A large program with several entry points is
//! compiled as several translation units, each the runtime and some of the entry points, by
//! as many compiler processes at once ([`units`]; at most the number of cores, or
//! `$GRADUS_COMPILE_JOBS`), and the units are linked into one library.
//!
//! Libraries are cached in `$GRADUS_CACHE_DIR` (default: `gradus` in the user's cache
//! directory) under a name made of a 128-bit hash of the code, the flags, the compiler's path
//! and its `--version` text. A library is compiled under a name of its own (process id and a
//! counter) and renamed into place, so several processes compiling the same program at the
//! same time each get a complete library, and the last rename wins harmlessly.
//!
//! The cache is kept under a size limit, `$GRADUS_CACHE_MAX_MB` megabytes (default 1024; 0:
//! no limit): after a library is added, the least recently used ones are removed until the
//! rest fit. A library found in the cache has its access time set to now, which is what "used"
//! means here (set explicitly: file systems mounted `noatime` or `relatime` do not record
//! reads reliably); its modification time stays the time it was built. Removing a library that another
//! process has loaded is harmless on Unix: the process keeps its mapping. [`cache_info`] and
//! [`clean_cache`] are `gradus cache` and `gradus cache clean`.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// A C compiler and the flags it is called with.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The compiler command.
    pub cc: String,
    /// Its `--version` output (first line), part of the cache key.
    pub version: String,
    /// User flags (`CFLAGS` or the default).
    pub cflags: Vec<String>,
    /// Whether float operations keep the interpreter's order (no reassociation; see the
    /// module documentation).
    pub exact_floats: bool,
}

/// The flags that let the C compiler reassociate the float sums of the loops the printer
/// marks (`GR_SIMD_SUM`: OpenMP's `simd reduction`, with `-fopenmp-simd`), and ignore the
/// sign of a zero. Not `-fassociative-math`, which would let it rewrite any float
/// expression: `(x + 1) - x` into `1` and `x * 2 / 2` into `x`, erasing infinities and NaNs.
pub const REASSOCIATE: [&str; 4] = [
    "-fopenmp-simd",
    "-DGR_OPENMP_SIMD",
    "-fno-signed-zeros",
    "-fno-trapping-math",
];

/// Where glibc's vector math library (libmvec) is there to link: x86-64 Linux with glibc.
const VECTOR_MATH_TARGET: bool = cfg!(all(
    target_arch = "x86_64",
    target_os = "linux",
    target_env = "gnu"
));

/// The warnings under which tests compile generated C: all of `-Wall -Wextra`, as errors,
/// except GCC's proofs that a loop's index arithmetic overflows
/// (`-Waggressive-loop-optimizations`). GCC gives those on paths where a size is known to be
/// near 2^63 (after `if k > 9223372036854775806`): there an array of `k * k` elements is
/// never filled, because its allocation, whose count saturates (`gr_size_mul`), fails first.
pub const STRICT_WARNINGS: &str = "-Wall -Wextra -Werror -Wno-aggressive-loop-optimizations";

/// The flags that let vectorised loops call glibc's vector math functions (libmvec): math
/// functions may leave `errno` alone, and the runtime declares their vector versions
/// (`GR_VECTOR_MATH`, see the generated code's preamble).
pub const VECTOR_MATH: [&str; 2] = ["-fno-math-errno", "-DGR_VECTOR_MATH"];

/// Set by [`force_exact_floats`].
static EXACT_FLOATS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every later compilation of this process keep the interpreter's float results, as
/// `$GRADUS_EXACT_FLOATS` does (for callers, such as tests comparing the backends with the
/// interpreter bit for bit, that cannot set the environment safely once threads run).
pub fn force_exact_floats() {
    EXACT_FLOATS.store(true, Ordering::Relaxed);
}

/// Whether `$GRADUS_EXACT_FLOATS` (or [`force_exact_floats`]) asks for the interpreter's
/// float results.
pub fn exact_floats_from_env() -> bool {
    EXACT_FLOATS.load(Ordering::Relaxed)
        || std::env::var_os("GRADUS_EXACT_FLOATS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The C compiler to use: `$CC` if set, else the first of `cc`, `gcc`, `clang` that runs.
/// `None` when there is none.
pub fn find_compiler() -> Option<(String, String)> {
    static FOUND: OnceLock<Option<(String, String)>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let candidates: Vec<String> = match std::env::var("CC") {
                Ok(cc) if !cc.trim().is_empty() => vec![cc.trim().to_string()],
                _ => vec!["cc".into(), "gcc".into(), "clang".into()],
            };
            candidates.into_iter().find_map(|cc| {
                let out = Command::new(&cc).arg("--version").output().ok()?;
                if !out.status.success() {
                    return None;
                }
                let v = String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string();
                Some((cc, v))
            })
        })
        .clone()
}

impl Toolchain {
    /// The toolchain from the environment; an error naming what is missing.
    pub fn from_env() -> Result<Toolchain, String> {
        let (cc, version) = find_compiler().ok_or_else(|| {
            "no C compiler found (set CC, or install cc, gcc or clang)".to_string()
        })?;
        let cflags = match std::env::var("CFLAGS") {
            Ok(f) if !f.trim().is_empty() => f.split_whitespace().map(String::from).collect(),
            _ => vec!["-O3".into(), "-march=native".into()],
        };
        Ok(Toolchain {
            cc,
            version,
            cflags,
            exact_floats: exact_floats_from_env(),
        })
    }

    /// Every flag of a compilation.
    pub fn flags(&self, openmp: bool) -> Vec<String> {
        let mut f = self.cflags.clone();
        f.extend(
            ["-shared", "-fPIC", "-ffp-contract=off", "-std=gnu11"]
                .iter()
                .map(|s| s.to_string()),
        );
        if !self.exact_floats {
            f.extend(REASSOCIATE.iter().map(|s| s.to_string()));
            if VECTOR_MATH_TARGET {
                f.extend(VECTOR_MATH.iter().map(|s| s.to_string()));
            }
        }
        if openmp {
            f.push("-fopenmp".into());
        }
        f
    }
}

/// The cache directory.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("GRADUS_CACHE_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => dirs::cache_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("gradus"),
    }
}

fn key(code: &str, tc: &Toolchain, flags: &[String]) -> String {
    let mut parts = [0u64; 2];
    for (k, p) in parts.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (k as u64).hash(&mut h);
        code.hash(&mut h);
        flags.hash(&mut h);
        tc.cc.hash(&mut h);
        tc.version.hash(&mut h);
        *p = h.finish();
    }
    format!("{:016x}{:016x}", parts[0], parts[1])
}

/// Compiles `code` into a shared library (or finds it in the cache) and returns its path.
pub fn build(code: &str, tc: &Toolchain, openmp: bool) -> Result<PathBuf, String> {
    let flags = tc.flags(openmp);
    let dir = cache_dir();
    let k = key(code, tc, &flags);
    let lib = dir.join(format!("gradus-{k}.so"));
    if lib.exists() {
        mark_used(&lib);
        return Ok(lib);
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create the cache directory {}: {e}", dir.display()))?;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = format!(
        "{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let src = dir.join(format!("gradus-{k}.{unique}.c"));
    let tmp_lib = dir.join(format!("gradus-{k}.{unique}.so"));
    std::fs::write(&src, code).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let parts = units(code, compile_jobs());
    let result = if parts.len() == 1 {
        compile(&src, &tmp_lib, tc, &flags)
    } else {
        compile_units(
            &parts,
            &dir.join(format!("gradus-{k}.{unique}")),
            &tmp_lib,
            tc,
            &flags,
        )
    };
    if let Err(e) = result {
        // The source stays, for the error message to point at.
        let _ = std::fs::remove_file(&tmp_lib);
        return Err(e);
    }
    // Keep the source next to the library for inspection.
    let _ = std::fs::rename(&src, dir.join(format!("gradus-{k}.c")));
    std::fs::rename(&tmp_lib, &lib).map_err(|e| {
        let _ = std::fs::remove_file(&tmp_lib);
        format!("cannot move the library into the cache: {e}")
    })?;
    // A cache that cannot be trimmed still works: the error is not the caller's concern.
    let _ = evict(&dir, max_cache_bytes(), &lib);
    Ok(lib)
}

/// Sets the access time of a cached library to now, for the least-recently-used order.
fn mark_used(lib: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(lib) {
        let now = std::time::SystemTime::now();
        let _ = f.set_times(std::fs::FileTimes::new().set_accessed(now));
    }
}

/// When a cached file was last used: its access time, or when that is not known, its
/// modification time.
fn last_used(m: &std::fs::Metadata) -> std::time::SystemTime {
    m.accessed()
        .or_else(|_| m.modified())
        .unwrap_or(std::time::UNIX_EPOCH)
}

/// The size limit of the cache in bytes (`$GRADUS_CACHE_MAX_MB`), `None` for no limit.
pub fn max_cache_bytes() -> Option<u64> {
    const DEFAULT_MB: u64 = 1024;
    let mb = match std::env::var("GRADUS_CACHE_MAX_MB") {
        Ok(v) => v.trim().parse::<u64>().unwrap_or(DEFAULT_MB),
        Err(_) => DEFAULT_MB,
    };
    (mb > 0).then(|| mb.saturating_mul(1 << 20))
}

/// A file of the cache: gradus writes only names starting with `gradus-` there, and only
/// those are counted or removed, in case the variable points at a directory shared with
/// other things.
fn cache_files(dir: &Path) -> Result<Vec<(PathBuf, std::fs::Metadata)>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let ours = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("gradus-"));
        if let Ok(meta) = e.metadata()
            && ours
            && meta.is_file()
        {
            out.push((path, meta));
        }
    }
    Ok(out)
}

/// What the cache holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// The directory ([`cache_dir`]).
    pub dir: PathBuf,
    /// Number of files (libraries, their sources, and those of compilations in progress).
    pub files: usize,
    /// Number of compiled libraries.
    pub libraries: usize,
    /// Total size of the files in bytes.
    pub bytes: u64,
    /// The size limit ([`max_cache_bytes`]).
    pub limit: Option<u64>,
}

/// The location, size and number of files of the cache.
pub fn cache_info() -> Result<CacheInfo, String> {
    let dir = cache_dir();
    let files = cache_files(&dir)?;
    Ok(CacheInfo {
        libraries: files
            .iter()
            .filter(|(p, _)| p.extension().is_some_and(|e| e == "so"))
            .count(),
        files: files.len(),
        bytes: files.iter().map(|(_, m)| m.len()).sum(),
        dir,
        limit: max_cache_bytes(),
    })
}

/// Removes every file of the cache; returns how many files and bytes were removed.
pub fn clean_cache() -> Result<(usize, u64), String> {
    let dir = cache_dir();
    let (mut files, mut bytes) = (0, 0);
    for (p, m) in cache_files(&dir)? {
        std::fs::remove_file(&p).map_err(|e| format!("cannot remove {}: {e}", p.display()))?;
        files += 1;
        bytes += m.len();
    }
    Ok((files, bytes))
}

/// Removes the least recently used libraries of `dir` (each with its source) until the cache
/// fits in `limit` bytes, never `keep` (the library just made); also removes what failed or
/// abandoned compilations left behind once it is a day old. Returns the number of files
/// removed.
pub fn evict(dir: &Path, limit: Option<u64>, keep: &Path) -> Result<usize, String> {
    let files = cache_files(dir)?;
    let now = std::time::SystemTime::now();
    let age = |m: &std::fs::Metadata| {
        m.modified()
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .unwrap_or_default()
    };
    let mut removed = 0;
    let mut total: u64 = 0;
    // Per library key: the library's path, when it was last used, the size of the library
    // and its source together, and their paths.
    let mut groups: std::collections::BTreeMap<
        String,
        (Option<PathBuf>, std::time::SystemTime, u64, Vec<PathBuf>),
    > = Default::default();
    for (p, m) in &files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // `gradus-KEY.so`, `gradus-KEY.c`, or `gradus-KEY.PID-N.{c,so}` while compiling.
        let stem = name.trim_end_matches(".so").trim_end_matches(".c");
        if stem.contains('.') {
            if age(m) > std::time::Duration::from_secs(24 * 3600) && std::fs::remove_file(p).is_ok()
            {
                removed += 1;
            } else {
                total += m.len();
            }
            continue;
        }
        total += m.len();
        let g =
            groups
                .entry(stem.to_string())
                .or_insert((None, std::time::UNIX_EPOCH, 0, Vec::new()));
        g.2 += m.len();
        g.3.push(p.clone());
        if name.ends_with(".so") {
            g.0 = Some(p.clone());
            g.1 = last_used(m);
        }
    }
    let Some(limit) = limit else {
        return Ok(removed);
    };
    let mut order: Vec<_> = groups.into_values().collect();
    // Oldest first; a source without its library (a failed compilation) counts as oldest.
    order.sort_by_key(|g| (g.0.is_some(), g.1));
    for (lib, _, bytes, paths) in order {
        if total <= limit {
            break;
        }
        if lib.as_deref() == Some(keep) {
            continue;
        }
        for p in paths {
            if std::fs::remove_file(&p).is_ok() {
                removed += 1;
            }
        }
        total = total.saturating_sub(bytes);
    }
    Ok(removed)
}

/// The libraries a library compiled with `flags` links: the math library, and the vector
/// math library with [`VECTOR_MATH`].
pub fn libraries(flags: &[String]) -> Vec<&'static str> {
    let mut libs = vec!["-lm"];
    if flags.iter().any(|f| f == VECTOR_MATH[1]) {
        libs.push("-lmvec");
    }
    libs
}

/// Source bytes per translation unit below which a library is not split further: each unit
/// compiles the runtime again, and a small library compiles in well under a second anyway.
const MIN_UNIT_BYTES: usize = 128 << 10;

/// The most compiler processes one library's compilation runs at once.
const MAX_JOBS: usize = 8;

/// Set by [`force_compile_jobs`] (0: not set).
static FORCED_JOBS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Makes every later compilation of this process split its code into (at most) `n`
/// translation units whatever its size, as `$GRADUS_COMPILE_JOBS` does (for tests, which
/// cannot set the environment safely once threads run).
pub fn force_compile_jobs(n: usize) {
    FORCED_JOBS.store(n.max(1), Ordering::Relaxed);
}

/// [`force_compile_jobs`]'s or `$GRADUS_COMPILE_JOBS`'s number if set (then splitting
/// whatever the size of the code), else the machine's available parallelism (at most
/// [`MAX_JOBS`]) for code of at least [`MIN_UNIT_BYTES`] per unit.
fn compile_jobs() -> Jobs {
    let forced = FORCED_JOBS.load(Ordering::Relaxed);
    if forced > 0 {
        return Jobs {
            max: forced,
            min_unit_bytes: 0,
        };
    }
    match std::env::var("GRADUS_COMPILE_JOBS") {
        Ok(v) if !v.trim().is_empty() => Jobs {
            max: v.trim().parse::<usize>().unwrap_or(1).max(1),
            min_unit_bytes: 0,
        },
        _ => Jobs {
            max: std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(MAX_JOBS),
            min_unit_bytes: MIN_UNIT_BYTES,
        },
    }
}

/// How many translation units a library may be compiled as.
#[derive(Clone, Copy, Debug)]
pub struct Jobs {
    /// At most this many.
    pub max: usize,
    /// No more than one per this many bytes of code.
    pub min_unit_bytes: usize,
}

/// The translation units `code` (a printed program) is compiled as: GCC compiles one unit on
/// one core, and a program's entry points are independent functions, so a library of several
/// large ones compiles in a fraction of the time when they are split among units compiled at
/// the same time (HAND's six entry points: 9.3 s in one unit, 5.2 s in two on two cores).
/// Each unit is the runtime (with `GR_PART` defined: see the generated preamble) followed by
/// some of the entry points, in their order; the entry points go, the largest first, to the
/// unit with the least code so far. One unit, the code itself, where splitting would not
/// pay.
pub fn units(code: &str, jobs: Jobs) -> Vec<String> {
    // The gpu backend's runtime state is not split among units.
    if code.starts_with(super::print::GPU_MARK) {
        return vec![code.to_string()];
    }
    let mark = format!("\n{}", super::print::ENTRY_MARK);
    let starts: Vec<usize> = code.match_indices(&mark).map(|(i, _)| i + 1).collect();
    let by_size = code
        .len()
        .checked_div(jobs.min_unit_bytes)
        .unwrap_or(usize::MAX);
    let n = jobs.max.min(starts.len()).min(by_size.max(1));
    if n < 2 {
        return vec![code.to_string()];
    }
    let head = &code[..starts[0]];
    let ends = starts.iter().skip(1).copied().chain([code.len()]);
    let entries: Vec<&str> = starts.iter().zip(ends).map(|(&a, b)| &code[a..b]).collect();
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&e| std::cmp::Reverse(entries[e].len()));
    let mut unit_of = vec![0; entries.len()];
    let mut sizes = vec![0usize; n];
    for e in order {
        let u = (0..n).min_by_key(|&u| sizes[u]).unwrap_or(0);
        unit_of[e] = u;
        sizes[u] += entries[e].len();
    }
    (0..n)
        .map(|u| {
            let mut text = format!("#define GR_PART {u}\n{head}");
            for (e, entry) in entries.iter().enumerate() {
                if unit_of[e] == u {
                    text.push_str(entry);
                }
            }
            text
        })
        .collect()
}

/// Compiles the translation units `parts` (see [`units`]) at the same time, each into an
/// object file named after `stem`, and links them into `out`. The object files are removed
/// either way, the units' sources once linked: when a unit fails to compile, they stay for
/// the error message to point at.
fn compile_units(
    parts: &[String],
    stem: &Path,
    out: &Path,
    tc: &Toolchain,
    flags: &[String],
) -> Result<(), String> {
    let files: Vec<(PathBuf, PathBuf)> = (0..parts.len())
        .map(|u| {
            let s = stem.display();
            (
                PathBuf::from(format!("{s}.part{u}.c")),
                PathBuf::from(format!("{s}.part{u}.o")),
            )
        })
        .collect();
    for ((c, _), text) in files.iter().zip(parts) {
        std::fs::write(c, text).map_err(|e| format!("cannot write {}: {e}", c.display()))?;
    }
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let running: Vec<_> = files
            .iter()
            .map(|(c, o)| {
                scope.spawn(move || {
                    let mut cmd = Command::new(&tc.cc);
                    cmd.args(flags).arg("-c").arg("-o").arg(o).arg(c);
                    run_compiler(cmd, tc, c)
                })
            })
            .collect();
        running
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("internal error: a compiler thread panicked".into()))
            })
            .collect()
    });
    let failed = results.into_iter().find_map(Result::err);
    let linked = match failed {
        Some(e) => Err(e),
        None => {
            let mut cmd = Command::new(&tc.cc);
            cmd.args(flags).arg("-o").arg(out);
            cmd.args(files.iter().map(|(_, o)| o));
            cmd.args(libraries(flags));
            run_compiler(cmd, tc, &files[0].0)
        }
    };
    for (c, o) in &files {
        let _ = std::fs::remove_file(o);
        if linked.is_ok() {
            let _ = std::fs::remove_file(c);
        }
    }
    linked
}

/// Runs the compiler on `src`, writing `out`.
pub fn compile(src: &Path, out: &Path, tc: &Toolchain, flags: &[String]) -> Result<(), String> {
    let mut cmd = Command::new(&tc.cc);
    cmd.args(flags)
        .arg("-o")
        .arg(out)
        .arg(src)
        .args(libraries(flags));
    run_compiler(cmd, tc, src)
}

/// Runs a compiler command on the generated code `src`; its error output on failure.
fn run_compiler(mut cmd: Command, tc: &Toolchain, src: &Path) -> Result<(), String> {
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run the C compiler {}: {e}", tc.cc))?;
    if output.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = err.lines().take(40).collect();
        Err(format!(
            "internal error: the C compiler {} failed on generated code ({}):\n{}",
            tc.cc,
            src.display(),
            tail.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn program(sizes: &[usize]) -> String {
        let mut code = String::from("/* runtime */\nint gr_x;\n");
        for (k, &n) in sizes.iter().enumerate() {
            code.push_str(&format!(
                "{}e{k} */\n",
                crate::backend::c::print::ENTRY_MARK
            ));
            code.push_str(&"x".repeat(n));
            code.push('\n');
        }
        code
    }

    #[test]
    fn units_spread_the_entry_points_by_size_after_the_runtime() {
        let code = program(&[100, 900, 400, 450]);
        let jobs = Jobs {
            max: 2,
            min_unit_bytes: 0,
        };
        let parts = units(&code, jobs);
        assert_eq!(parts.len(), 2);
        // The largest alone; the others, in their order, in the second unit.
        let entries = |u: &str| {
            u.lines()
                .filter_map(|l| l.strip_prefix(crate::backend::c::print::ENTRY_MARK))
                .map(|l| l.trim_end_matches(" */").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(entries(&parts[0]), ["e1"]);
        assert_eq!(entries(&parts[1]), ["e0", "e2", "e3"]);
        for (u, part) in parts.iter().enumerate() {
            assert!(part.starts_with(&format!("#define GR_PART {u}\n/* runtime */\nint gr_x;\n")));
        }
        // Every entry point's code is in exactly one unit.
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let head = code.find(crate::backend::c::print::ENTRY_MARK).unwrap();
        let defines: usize = (0..2).map(|u| format!("#define GR_PART {u}\n").len()).sum();
        assert_eq!(total, code.len() + head + defines);
    }

    #[test]
    fn small_code_or_one_entry_point_stays_one_unit() {
        let jobs = Jobs {
            max: 4,
            min_unit_bytes: 1000,
        };
        // 1.5 units' worth of code: one unit, the code as it is.
        let code = program(&[700, 800]);
        assert_eq!(units(&code, jobs), vec![code.clone()]);
        // Enough for two units of two entry points each, not four.
        assert_eq!(units(&program(&[600, 600, 600, 600]), jobs).len(), 2);
        let one = program(&[5000]);
        assert_eq!(units(&one, jobs), vec![one.clone()]);
        let none = "/* runtime only */\n".to_string();
        assert_eq!(units(&none, jobs), vec![none.clone()]);
    }

    fn file(dir: &Path, name: &str, bytes: usize, age_s: u64) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, vec![0u8; bytes]).unwrap();
        let f = std::fs::File::options().append(true).open(&p).unwrap();
        let t = SystemTime::now() - Duration::from_secs(age_s);
        f.set_times(std::fs::FileTimes::new().set_accessed(t).set_modified(t))
            .unwrap();
        p
    }

    #[test]
    fn eviction_removes_the_least_recently_used_libraries_first() {
        let dir = std::env::temp_dir().join(format!("gradus-evict-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let old = file(&dir, "gradus-aaa.so", 1000, 300);
        let old_c = file(&dir, "gradus-aaa.c", 500, 300);
        let mid = file(&dir, "gradus-bbb.so", 1000, 200);
        let new = file(&dir, "gradus-ccc.so", 1000, 100);
        let stale = file(&dir, "gradus-ddd.123-0.c", 10, 2 * 24 * 3600);
        let fresh_tmp = file(&dir, "gradus-eee.123-1.c", 10, 10);
        let other = file(&dir, "notes.txt", 100_000, 1_000_000);
        // 3,520 bytes of ours: the oldest library and its source go, the rest fit in 2,100.
        let removed = evict(&dir, Some(2100), &new).unwrap();
        assert_eq!(removed, 3);
        for gone in [&old, &old_c, &stale] {
            assert!(!gone.exists(), "{} should be gone", gone.display());
        }
        for kept in [&mid, &new, &fresh_tmp, &other] {
            assert!(kept.exists(), "{} should be kept", kept.display());
        }
        // The library just made is never removed, even when it alone is over the limit.
        evict(&dir, Some(1), &new).unwrap();
        assert!(new.exists() && !mid.exists());
        // No limit: nothing but stale temporaries goes.
        assert_eq!(evict(&dir, None, &new).unwrap(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
