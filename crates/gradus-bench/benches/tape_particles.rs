//! `fparticles` (docs/tape.md §Tests and benchmarks) on gradus-tape with rayon pools of 1, 2 and 4
//! threads: the four particle simulations are parallel tasks (a right-nested chain of `join`s, or
//! one `par_map`), and the reverse pass resolves them in parallel. `fparticles_long` runs 100 000
//! Euler steps per particle so that fork and pool overheads are amortised. Also: the primal
//! alone, and the reverse pass in `Sequential` mode.
//!
//! Run: `cargo bench -p gradus-bench --bench tape_particles`.

use criterion::{Criterion, criterion_group, criterion_main};
use gradus_tape::programs::{
    PARTICLE_STEPS, fparticles_balanced, fparticles_sequential, fparticles_steps, particles_inputs,
};
use gradus_tape::{ReverseMode, ReverseOptions, Tape};
use std::hint::black_box;
use std::time::Duration;

fn bench_particles(c: &mut Criterion) {
    let x = particles_inputs();
    let max_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (label, steps, samples) in [
        ("fparticles", PARTICLE_STEPS, 20),
        ("fparticles_long", 100_000, 10),
    ] {
        let mut group = c.benchmark_group(format!("tape/{label}"));
        group.sample_size(samples);
        {
            let mut tape = Tape::new();
            let rec = tape.record(&x, |v| vec![fparticles_steps(v, steps)]);
            eprintln!("{label}: {}", rec.stats());
            tape.recycle(rec);
        }
        group.bench_function("primal_f64", |b| {
            b.iter(|| fparticles_sequential(black_box(&x), steps))
        });
        for threads in [1usize, 2, 4] {
            if threads > 2 * max_threads {
                continue;
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for (variant, mode) in [
                ("chain", ReverseMode::Parallel),
                ("chain_seq_reverse", ReverseMode::Sequential),
                ("balanced", ReverseMode::Parallel),
                ("no_fork", ReverseMode::Parallel),
            ] {
                if threads > 1 && variant == "no_fork" {
                    continue;
                }
                let mut tape = Tape::with_options(ReverseOptions {
                    mode,
                    ..ReverseOptions::default()
                });
                let mut g = vec![0.0; 16];
                group.bench_function(format!("gradus_tape_{variant}/threads={threads}"), |b| {
                    pool.install(|| {
                        b.iter(|| match variant {
                            "balanced" => tape.grad_into(
                                black_box(&x),
                                |v| fparticles_balanced(v, steps),
                                &mut g,
                            ),
                            "no_fork" => tape.grad_into(
                                black_box(&x),
                                |v| fparticles_sequential(v, steps),
                                &mut g,
                            ),
                            _ => tape.grad_into(
                                black_box(&x),
                                |v| fparticles_steps(v, steps),
                                &mut g,
                            ),
                        })
                    })
                });
            }
        }
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_particles
}
criterion_main!(benches);
