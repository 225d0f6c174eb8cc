//! Steady state: with a reused `Tape`, the second and later gradients of a program without
//! forks allocate nothing, with few inputs (made on the stack) or many (made in a buffer the
//! tape keeps), counted by a global allocator.
//!
//! Allocations are counted per thread, so the test harness's own threads do not interfere.

use gradus_tape::Tape;
use gradus_tape::programs::{fdotprod, fparticles_sequential, particles_inputs};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // Const-initialised and without a destructor: reading it never allocates.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.with(|c| c.set(c.get() + 1));
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn reused_tape_allocates_nothing_in_steady_state() {
    let mut tape = Tape::new();
    let x = particles_inputs();
    let mut g = vec![0.0; x.len()];
    let dot_x = gradus_tape::programs::dotprod_inputs(8);
    let mut dot_g = vec![0.0; 16];
    for _ in 0..2 {
        tape.grad_into(&x, |v| fparticles_sequential(v, 200), &mut g);
        tape.grad_into(&dot_x, |v| fdotprod(v), &mut dot_g);
    }
    let before = allocations();
    for _ in 0..3 {
        tape.grad_into(&x, |v| fparticles_sequential(v, 200), &mut g);
        tape.grad_into(&dot_x, |v| fdotprod(v), &mut dot_g);
    }
    let after = allocations();
    assert_eq!(after - before, 0, "allocations in steady state");
    // The gradients are still right.
    assert_eq!(dot_g[..8], [3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0]);
    // A first call on a fresh tape does allocate (the counter works).
    let mut fresh = Tape::new();
    fresh.grad_into(&dot_x, |v| fdotprod(v), &mut dot_g);
    assert!(allocations() > after);
}

#[test]
fn many_inputs_reuse_the_tapes_buffer() {
    let mut tape = Tape::new();
    let x = gradus_tape::programs::dotprod_inputs(500);
    let mut g = vec![0.0; x.len()];
    for _ in 0..2 {
        tape.grad_into(&x, |v| fdotprod(v), &mut g);
    }
    let before = allocations();
    for _ in 0..3 {
        tape.grad_into(&x, |v| fdotprod(v), &mut g);
    }
    assert_eq!(allocations() - before, 0, "allocations in steady state");
    // ∂/∂u_i = v_i = 2i + 3, ∂/∂v_i = u_i = i + 1.
    assert_eq!(g[..500].to_vec(), x[500..].to_vec());
    assert_eq!(g[500..].to_vec(), x[..500].to_vec());
}

#[test]
fn grad_reuses_the_threads_buffers() {
    let x = gradus_tape::programs::dotprod_inputs(8);
    for _ in 0..2 {
        gradus_tape::grad(&x, |v| fdotprod(v));
    }
    let before = allocations();
    let (y, g) = gradus_tape::grad(&x, |v| fdotprod(v));
    // Only the returned gradient vector.
    assert_eq!(allocations() - before, 1);
    assert_eq!((y, g), Tape::new().grad(&x, |v| fdotprod(v)));
}

/// `dot_const` of values captured from the parent job, many times in one task (a least-squares
/// fit with one `dot_const` per point): the operands are imports, found in the task's proxies
/// without allocating per operand. Counted inside each task, which runs on one thread.
#[test]
fn dot_const_of_a_parents_values_allocates_per_task_not_per_operand() {
    const N: usize = 32;
    const POINTS: usize = 200;
    let x: Vec<f64> = (0..N).map(|j| 0.05 * j as f64 - 0.7).collect();
    let weights = |t: f64| -> Vec<f64> { (0..N as i32).map(|k| t.powi(k)).collect() };
    let (y, g) = gradus_tape::grad(&x, |v| {
        let parts = gradus_tape::par_map(&[0usize, 1, 2, 3], |&b| {
            let before = allocations();
            let mut sum = gradus_tape::Var::constant(0.0);
            for i in 0..POINTS {
                let c = weights(-1.0 + (b * POINTS + i) as f64 / 400.0);
                let r = gradus_tape::dot_const(v, &c) - 0.5;
                sum += r * r;
            }
            // The weight vectors: one allocation per point.
            let made = allocations() - before - POINTS;
            assert!(
                made < 64,
                "{made} allocations recording {POINTS} dot products"
            );
            sum
        });
        parts
            .into_iter()
            .fold(gradus_tape::Var::constant(0.0), |a, b| a + b)
    });
    // The same program written as scalar loops.
    let (ys, gs) = gradus_tape::grad(&x, |v| {
        let mut sum = gradus_tape::Var::constant(0.0);
        for p in 0..4 * POINTS {
            let c = weights(-1.0 + p as f64 / 400.0);
            let r = v
                .iter()
                .zip(&c)
                .fold(gradus_tape::Var::constant(0.0), |a, (&u, &w)| a + u * w)
                - 0.5;
            sum += r * r;
        }
        sum
    });
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()));
    assert!(close(y, ys), "{y} against {ys}");
    for (a, b) in g.iter().zip(&gs) {
        assert!(close(*a, *b), "{a} against {b}");
    }
}
