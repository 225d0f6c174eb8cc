//! The timing loop: run a computation at least `min_runs` times and until `min_seconds` have
//! accumulated, timing only the computation.

use serde::Deserialize;
use serde_json::Value;
use std::time::Instant;

/// How often to repeat an evaluation (fields of every eval input except `hello`'s).
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Runs {
    /// Minimum number of runs.
    #[serde(default = "one")]
    pub min_runs: usize,
    /// Minimum total seconds over all runs.
    #[serde(default)]
    pub min_seconds: f64,
}

fn one() -> usize {
    1
}

impl Default for Runs {
    fn default() -> Self {
        Runs {
            min_runs: 1,
            min_seconds: 0.0,
        }
    }
}

impl Runs {
    /// Reads `min_runs` and `min_seconds` from an input object (defaults 1 and 0).
    pub fn of(input: &Value) -> Result<Runs, String> {
        if !input.is_object() {
            return Ok(Runs::default());
        }
        let runs =
            Runs::deserialize(input).map_err(|e| format!("bad min_runs/min_seconds: {e}"))?;
        if !runs.min_seconds.is_finite() {
            return Err("min_seconds must be finite".into());
        }
        Ok(runs)
    }
}

/// Runs `f` as `runs` asks and returns its last result with one timing per run, in
/// nanoseconds. Always runs at least once.
pub fn timed<T>(runs: Runs, mut f: impl FnMut() -> T) -> (T, Vec<u64>) {
    let mut timings = Vec::new();
    let mut total = 0.0;
    loop {
        let start = Instant::now();
        let out = f();
        let ns = start.elapsed().as_nanos() as u64;
        timings.push(ns);
        total += ns as f64 * 1e-9;
        if timings.len() >= runs.min_runs.max(1) && total >= runs.min_seconds {
            return (out, timings);
        }
        drop(out);
    }
}

/// [`timed`] for a fallible computation whose input was checked before: returns the output
/// JSON and the timings.
pub fn timed_json<T: serde::Serialize>(input: &Value, f: impl FnMut() -> T) -> crate::Evaluated {
    let runs = Runs::of(input)?;
    let (out, timings) = timed(runs, f);
    Ok((crate::to_json(&out)?, timings))
}
