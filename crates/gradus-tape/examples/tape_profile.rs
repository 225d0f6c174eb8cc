//! Runs one benchmark program's gradient in a loop, for profiling the tape with `perf`.
//!
//! `tape_profile PROGRAM [CALLS] [split]`; `pchain` forks, so `RAYON_NUM_THREADS` sets its
//! threads.

use gradus_tape::{Tape, programs};
use std::hint::black_box;
use std::time::Instant;

/// A scalar program on the tape.
type Program = for<'r> fn(&[gradus_tape::Var<'r>]) -> gradus_tape::Var<'r>;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("dot", String::as_str);
    let iters: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let (x, f): (Vec<f64>, Program) = match which {
        "dot" => (programs::dotprod_inputs(100_000), |v| programs::fdotprod(v)),
        "dotv" => (programs::dotprod_inputs(100_000), |v| {
            let (u, w) = v.split_at(v.len() / 2);
            gradus_tape::dot(u, w)
        }),
        "dotv1k" => (programs::dotprod_inputs(1000), |v| {
            let (u, w) = v.split_at(v.len() / 2);
            gradus_tape::dot(u, w)
        }),
        "mult" => (vec![3.0, 4.0], |v| programs::fmult(v)),
        "dot1k" => (programs::dotprod_inputs(1000), |v| programs::fdotprod(v)),
        "matvec" => (programs::summatvec_inputs(316), |v| programs::fsummatvec(v)),
        "neural" => (programs::neural_inputs(), |v| programs::fneural(v)),
        "pchain" => (programs::particles_inputs(), |v| programs::fparticles(v)),
        "particles" => (programs::particles_inputs(), |v| {
            programs::fparticles_sequential(v, 1000)
        }),
        "shared" => ((0..32).map(|j| 0.1 * j as f64).collect(), |v| {
            shared_reads(v)
        }),
        "shareddot" => ((0..32).map(|j| 0.1 * j as f64).collect(), |v| {
            shared_dots(v)
        }),
        _ => panic!("unknown program"),
    };
    if args.get(3).is_some() {
        split(&x, f, iters);
        return;
    }
    let mut tape = Tape::new();
    let mut g = vec![0.0; x.len()];
    let t = best(20, iters / 20 + 1, || {
        black_box(tape.grad_into(black_box(&x), f, &mut g));
    });
    println!("{which}: {t:.3} µs per gradient");
}
/// Parallel tasks that read every input of the parent job many times (the shape of a least
/// squares fit with `par_map` over blocks of points): 64 tasks of 256 points, each point a
/// polynomial in the 32 inputs.
fn shared_reads<'r>(x: &[gradus_tape::Var<'r>]) -> gradus_tape::Var<'r> {
    let blocks: Vec<usize> = (0..64).collect();
    let parts = gradus_tape::par_map(&blocks, |&b| {
        let mut sum = gradus_tape::Var::constant(0.0);
        for i in 0..256 {
            let t = -1.0 + (b * 256 + i) as f64 / 8192.0;
            let (mut inner, mut power) = (gradus_tape::Var::constant(t.signum()), 1.0);
            for &xj in x {
                inner -= xj * power;
                power *= t;
            }
            sum += inner * inner;
        }
        sum
    });
    parts
        .into_iter()
        .fold(gradus_tape::Var::constant(0.0), |a, b| a + b)
}

/// [`shared_reads`] with each point's polynomial as one `dot_const` of the parent's inputs
/// and the powers of `t` (a listed side whose operands are all imports).
fn shared_dots<'r>(x: &[gradus_tape::Var<'r>]) -> gradus_tape::Var<'r> {
    let blocks: Vec<usize> = (0..64).collect();
    let parts = gradus_tape::par_map(&blocks, |&b| {
        let mut sum = gradus_tape::Var::constant(0.0);
        let mut powers = vec![0.0; x.len()];
        for i in 0..256 {
            let t = -1.0 + (b * 256 + i) as f64 / 8192.0;
            let mut power = 1.0;
            for p in powers.iter_mut() {
                *p = power;
                power *= t;
            }
            let inner = t.signum() - gradus_tape::dot_const(x, &powers);
            sum += inner * inner;
        }
        sum
    });
    parts
        .into_iter()
        .fold(gradus_tape::Var::constant(0.0), |a, b| a + b)
}

/// Minimum over rounds of the mean time per call, in µs.
fn best(rounds: usize, per: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / per as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Recording and pullback timed apart (minimum over rounds, interleaved).
pub fn split(x: &[f64], f: Program, iters: usize) {
    let mut tape = Tape::new();
    let rec = tape.record(x, |v| vec![f(v)]);
    let stats = rec.stats();
    tape.recycle(rec);
    let mut other = Tape::new();
    let rec = other.record(x, |v| vec![f(v)]);
    let mut adj = gradus_tape::Adjoints::new();
    let mut g = vec![0.0; x.len()];
    let opts = gradus_tape::ReverseOptions::default();
    let (mut t_rec, mut t_rev) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..20 {
        t_rec = t_rec.min(best(1, iters / 20 + 1, || {
            let r = tape.record(black_box(x), |v| vec![f(v)]);
            tape.recycle(r);
        }));
        t_rev = t_rev.min(best(1, iters / 20 + 1, || {
            rec.pullback_into(&[1.0], &opts, &mut adj, &mut g).unwrap();
        }));
    }
    println!("record {t_rec:.3} µs, pullback {t_rev:.3} µs; {stats}");
}
