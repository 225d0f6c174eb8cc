//! Compiling generated C into a shared library, with a cache.
//!
//! The compiler is `$CC` (default: the first of `cc`, `gcc`, `clang` that runs), the flags
//! `$CFLAGS` (default `-O3 -march=native`) followed by what the backend needs (`-shared -fPIC
//! -ffp-contract=off`, and `-fopenmp` for multicore; `-ffp-contract=off` because contracting
//! `a * b + c` into a fused multiply-add would change results, LANGUAGE.md 8.3).
//!
//! Libraries are cached in `$GRADUS_CACHE_DIR` (default: `gradus` in the user's cache
//! directory) under a name made of a 128-bit hash of the code, the flags, the compiler's path
//! and its `--version` text. A library is compiled under a name of its own (process id and a
//! counter) and renamed into place, so several processes compiling the same program at the
//! same time each get a complete library, and the last rename wins harmlessly.

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
    let result = compile(&src, &tmp_lib, tc, &flags);
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
    Ok(lib)
}

/// Runs the compiler on `src`, writing `out`.
pub fn compile(src: &Path, out: &Path, tc: &Toolchain, flags: &[String]) -> Result<(), String> {
    let output = Command::new(&tc.cc)
        .args(flags)
        .arg("-o")
        .arg(out)
        .arg(src)
        .arg("-lm")
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
