//! A load-robust comparison of gradus-tape with its peers on the docs/tape.md §Tests and benchmarks
//! programs: the engines are interleaved round by round, and each engine's figure is its *fastest*
//! round (minimum over rounds of the mean time per call within a round). On a machine shared with
//! other work, the minimum estimates the unloaded time better than Criterion's mean or median;
//! use `tape_programs` (Criterion) on a quiet machine for full statistics.
//!
//! Run: `cargo bench -p gradus-bench --bench tape_compare` (prints a table;
//! `GRADUS_BENCH_ROUNDS=50` for more rounds, default 15).

mod tape_common;

use gradus_num::Dual;
use gradus_tape::Tape;
use num_dual::Dual64;
use std::hint::black_box;
use std::time::Instant;
use tape_common::*;

/// Mean seconds per call of `f` over enough calls to fill about `budget` seconds.
fn time_round(f: &mut dyn FnMut(), budget: f64) -> f64 {
    let start = Instant::now();
    f();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let calls = ((budget / once) as usize).clamp(1, 1_000_000);
    let start = Instant::now();
    for _ in 0..calls {
        f();
    }
    start.elapsed().as_secs_f64() / calls as f64
}

fn pretty(t: f64) -> String {
    if t < 1e-6 {
        format!("{:.1} ns", t * 1e9)
    } else if t < 1e-3 {
        format!("{:.2} µs", t * 1e6)
    } else {
        format!("{:.3} ms", t * 1e3)
    }
}

fn main() {
    // More rounds give the minimum more chances to catch an unloaded moment.
    let rounds: usize = std::env::var("GRADUS_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let budget = 0.02;
    let rtape = reverse::Tape::new();
    println!(
        "{:<18} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}",
        "program",
        "primal",
        "gradus",
        "reverse",
        "adr",
        "gradus-fwd",
        "num-dual",
        "vs rev",
        "vs adr"
    );
    for p in programs() {
        let mut tape = Tape::new();
        let mut g = vec![0.0; p.x.len()];
        (p.gradus)(&mut tape, &p.x, &mut g);
        check(&p.name, "reverse", &(p.reverse)(&rtape, &p.x).1, &g);
        check(&p.name, "ad_trait adr", &(p.adr)(&p.x).1, &g);
        let mut best = [f64::INFINITY; 6];
        for _ in 0..rounds {
            let mut engines: Vec<Box<dyn FnMut()>> = vec![
                Box::new(|| {
                    black_box((p.f64_fn)(black_box(&p.x)));
                }),
                Box::new(|| {
                    black_box((p.gradus)(&mut tape, black_box(&p.x), &mut g));
                }),
                Box::new(|| {
                    black_box((p.reverse)(&rtape, black_box(&p.x)));
                }),
                Box::new(|| {
                    black_box((p.adr)(black_box(&p.x)));
                }),
            ];
            if let Some((fg, fnd)) = &p.forward {
                let x = &p.x;
                engines.push(Box::new(move || {
                    black_box(forward_gradient(x, Dual::new, fg.as_ref(), |d| d.d));
                }));
                engines.push(Box::new(move || {
                    black_box(forward_gradient(x, Dual64::new, fnd.as_ref(), |d| d.eps));
                }));
            }
            for (b, e) in best.iter_mut().zip(engines.iter_mut()) {
                *b = b.min(time_round(e.as_mut(), budget));
            }
        }
        let cell = |t: f64| {
            if t.is_finite() {
                pretty(t)
            } else {
                "-".to_string()
            }
        };
        println!(
            "{:<18} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>8.2}x {:>8.2}x",
            p.name,
            cell(best[0]),
            cell(best[1]),
            cell(best[2]),
            cell(best[3]),
            cell(best[4]),
            cell(best[5]),
            best[2] / best[1],
            best[3] / best[1],
        );
    }
}
