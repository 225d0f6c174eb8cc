//! Ablation of docs/tape.md §Concepts / §Tests and benchmarks: the arena tape against a tape with
//! one reference-counted heap node per operation (`Rc`), on the dot product (n = 100 000) and on
//! one particle of `fparticles_long` (100 000 Euler steps). Both variants record the same
//! operations and compute the same gradient; the `Rc` variant finds a reverse topological order by
//! an iterative depth-first search, as a heap-graph implementation must, and frees its nodes in
//! an order that avoids deep recursive drops.
//!
//! Run: `cargo bench -p gradus-bench --bench tape_ablation`.

use criterion::{Criterion, criterion_group, criterion_main};
use gradus_tape::Tape;
use std::cell::Cell;
use std::hint::black_box;
use std::rc::Rc;
use std::time::Duration;

struct Node {
    parents: [(Option<Rc<Node>>, f64); 2],
    adjoint: Cell<f64>,
    visited: Cell<bool>,
}

#[derive(Clone)]
struct RcVar {
    value: f64,
    node: Rc<Node>,
}

fn leaf(value: f64) -> RcVar {
    RcVar {
        value,
        node: Rc::new(Node {
            parents: [(None, 0.0), (None, 0.0)],
            adjoint: Cell::new(0.0),
            visited: Cell::new(false),
        }),
    }
}

fn op(value: f64, a: &RcVar, pa: f64, b: Option<(&RcVar, f64)>) -> RcVar {
    let second = b.map_or((None, 0.0), |(b, pb)| (Some(b.node.clone()), pb));
    RcVar {
        value,
        node: Rc::new(Node {
            parents: [(Some(a.node.clone()), pa), second],
            adjoint: Cell::new(0.0),
            visited: Cell::new(false),
        }),
    }
}

fn add(a: &RcVar, b: &RcVar) -> RcVar {
    op(a.value + b.value, a, 1.0, Some((b, 1.0)))
}
fn sub(a: &RcVar, b: &RcVar) -> RcVar {
    op(a.value - b.value, a, 1.0, Some((b, -1.0)))
}
fn mul(a: &RcVar, b: &RcVar) -> RcVar {
    op(a.value * b.value, a, b.value, Some((b, a.value)))
}
fn mulc(a: &RcVar, c: f64) -> RcVar {
    op(a.value * c, a, c, None)
}

/// Reverse pass over the heap graph: iterative post-order DFS from the output, then adjoint
/// propagation in reverse post-order; nodes are freed output-first, so no drop recurses deeply.
fn gradient(output: RcVar, inputs: &[RcVar]) -> Vec<f64> {
    let mut order: Vec<Rc<Node>> = Vec::new();
    let mut stack: Vec<(Rc<Node>, bool)> = vec![(output.node.clone(), false)];
    while let Some((n, expanded)) = stack.pop() {
        if expanded {
            order.push(n);
            continue;
        }
        if n.visited.replace(true) {
            continue;
        }
        stack.push((n.clone(), true));
        for (p, _) in &n.parents {
            if let Some(p) = p
                && !p.visited.get()
            {
                stack.push((p.clone(), false));
            }
        }
    }
    drop(output);
    order.last().expect("output node").adjoint.set(1.0);
    for n in order.iter().rev() {
        let a = n.adjoint.get();
        if a != 0.0 {
            for (p, partial) in &n.parents {
                if let Some(p) = p {
                    p.adjoint.set(p.adjoint.get() + a * partial);
                }
            }
        }
    }
    let g = inputs.iter().map(|x| x.node.adjoint.get()).collect();
    while let Some(n) = order.pop() {
        drop(n);
    }
    g
}

fn rc_dot(x: &[f64]) -> Vec<f64> {
    let vars: Vec<RcVar> = x.iter().map(|&v| leaf(v)).collect();
    let (u, v) = vars.split_at(x.len() / 2);
    let mut acc = mul(&u[0], &v[0]);
    for i in 1..u.len() {
        acc = add(&acc, &mul(&u[i], &v[i]));
    }
    gradient(acc, &vars)
}

fn rc_particle(x: &[f64], steps: usize) -> Vec<f64> {
    let vars: Vec<RcVar> = x.iter().map(|&v| leaf(v)).collect();
    let (mut px, mut py, mut vx, mut vy) = (
        vars[0].clone(),
        vars[1].clone(),
        vars[2].clone(),
        vars[3].clone(),
    );
    for _ in 0..steps {
        let ax = sub(&mulc(&px, -0.5), &mulc(&vx, 0.2));
        let ay = sub(&mulc(&py, -0.5), &mulc(&vy, 0.2));
        px = add(&px, &mulc(&vx, 0.05));
        py = add(&py, &mulc(&vy, 0.05));
        vx = add(&vx, &mulc(&ax, 0.05));
        vy = add(&vy, &mulc(&ay, 0.05));
    }
    let y = mul(&px, &py);
    drop((px, py, vx, vy));
    gradient(y, &vars)
}

fn arena_particle<'r>(x: &[gradus_tape::Var<'r>], steps: usize) -> gradus_tape::Var<'r> {
    let (mut px, mut py, mut vx, mut vy) = (x[0], x[1], x[2], x[3]);
    for _ in 0..steps {
        let ax = px * -0.5 - vx * 0.2;
        let ay = py * -0.5 - vy * 0.2;
        px += vx * 0.05;
        py += vy * 0.05;
        vx += ax * 0.05;
        vy += ay * 0.05;
    }
    px * py
}

fn bench_ablation(c: &mut Criterion) {
    let mut group = c.benchmark_group("tape/ablation");
    group.sample_size(10);
    let x = gradus_tape::programs::dotprod_inputs(100_000);
    let mut tape = Tape::new();
    let mut g = vec![0.0; x.len()];
    tape.grad_into(&x, |v| gradus_tape::programs::fdotprod(v), &mut g);
    assert_eq!(rc_dot(&x), g);
    group.bench_function("fdotprod_100000/arena", |b| {
        b.iter(|| {
            tape.grad_into(
                black_box(&x),
                |v| {
                    let (u, w) = v.split_at(v.len() / 2);
                    let mut acc = u[0] * w[0];
                    for i in 1..u.len() {
                        acc += u[i] * w[i];
                    }
                    acc
                },
                &mut g,
            )
        })
    });
    group.bench_function("fdotprod_100000/rc_per_node", |b| {
        b.iter(|| rc_dot(black_box(&x)))
    });
    let p = [0.5, 0.1, 1.0, 1.0];
    let steps = 100_000;
    let mut gp = [0.0; 4];
    tape.grad_into(&p, |v| arena_particle(v, steps), &mut gp);
    let grc = rc_particle(&p, steps);
    gradus_check::compare(&grc, &gp, gradus_check::Tolerance::ROUNDING).unwrap();
    group.bench_function("particle_100000_steps/arena", |b| {
        b.iter(|| tape.grad_into(black_box(&p), |v| arena_particle(v, steps), &mut gp))
    });
    group.bench_function("particle_100000_steps/rc_per_node", |b| {
        b.iter(|| rc_particle(black_box(&p), steps))
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_ablation
}
criterion_main!(benches);
