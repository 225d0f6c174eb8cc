//! `gradus cache`: where the compiled C libraries are cached, how much they take, and
//! removing them.
//!
//! The cache is `$GRADUS_CACHE_DIR` (default: `gradus` in the user's cache directory,
//! `~/.cache/gradus` on Linux); it is kept under `$GRADUS_CACHE_MAX_MB` megabytes (default
//! 1024) by removing the least recently used libraries (`gradus::backend::c::build`).

use clap::{Args, Subcommand};
use gradus::backend::c::build;

/// Arguments of `gradus cache`.
#[derive(Args, Debug)]
pub struct CacheArgs {
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Subcommand, Debug)]
enum Action {
    /// Print the cache's location, size, number of files and size limit (the default).
    Show,
    /// Print only the cache's location.
    Path,
    /// Remove every compiled library (they are compiled again when next needed).
    Clean,
}

/// A number of bytes for people: `1.5 MB`.
fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "kB", "MB", "GB", "TB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1000.0 && u + 1 < UNITS.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// Runs `gradus cache`; returns the exit code.
pub fn cache(a: CacheArgs) -> u8 {
    match a.action.unwrap_or(Action::Show) {
        Action::Path => {
            println!("{}", build::cache_dir().display());
            0
        }
        Action::Show => match build::cache_info() {
            Ok(info) => {
                println!("location: {}", info.dir.display());
                println!("size: {} ({} bytes)", human(info.bytes), info.bytes);
                println!("files: {} ({} libraries)", info.files, info.libraries);
                match info.limit {
                    Some(l) => println!(
                        "limit: {} (GRADUS_CACHE_MAX_MB; least recently used libraries are removed beyond it)",
                        human(l)
                    ),
                    None => println!("limit: none (GRADUS_CACHE_MAX_MB=0)"),
                }
                0
            }
            Err(m) => {
                eprintln!("Error: {m}");
                1
            }
        },
        Action::Clean => match build::clean_cache() {
            Ok((files, bytes)) => {
                println!(
                    "removed {files} file(s), {} from {}",
                    human(bytes),
                    build::cache_dir().display()
                );
                0
            }
            Err(m) => {
                eprintln!("Error: {m}");
                1
            }
        },
    }
}
