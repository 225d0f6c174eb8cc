//! The six benchmark programs of docs/tape.md §Tests and benchmarks, written once over [`Real`] so
//! that each runs as the primal (`f64`), in forward mode ([`Dual`](gradus_num::Dual)) and on the
//! tape ([`Var`](crate::Var)). The inputs builders give the benchmark's fixed inputs as a flat
//! vector; the programs take the same flat layout.

use crate::{join, par_map};
use gradus_num::Real;

/// `fmult`: `x · y`.
pub fn fmult<S: Real>(x: &[S]) -> S {
    x[0] * x[1]
}

/// `fdotprod`: inputs `u_i = i + 1` then `v_i = 2i + 3`, `i = 0 … n−1`.
pub fn dotprod_inputs(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| i as f64 + 1.0)
        .chain((0..n).map(|i| 2.0 * i as f64 + 3.0))
        .collect()
}

/// `fdotprod`: `Σ u_i v_i`, summed in index order from 0, over inputs `[u, v]` (length `2n`).
pub fn fdotprod<S: Real>(x: &[S]) -> S {
    let (u, v) = x.split_at(x.len() / 2);
    u.iter().zip(v).fold(S::zero(), |acc, (&a, &b)| acc + a * b)
}

/// [`fdotprod`] written with [`Real::dot`] (one node on the tape), as a user with a vector
/// operation at hand would write it; the same value.
pub fn fdotprod_vec<S: Real>(x: &[S]) -> S {
    let (u, v) = x.split_at(x.len() / 2);
    S::dot(u, v)
}

/// `fsummatvec`: inputs `M[r][c] = 1 + n r + c` (row-major, `n²`) then `v_c = 2c + 3`.
pub fn summatvec_inputs(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|k| 1.0 + k as f64)
        .chain((0..n).map(|c| 2.0 * c as f64 + 3.0))
        .collect()
}

/// `fsummatvec`: the sum of the matrix–vector product `M v`, over inputs `[M, v]` of length `n² +
/// n`. Each row's dot product and the final sum are summed in order from 0.
pub fn fsummatvec<S: Real>(x: &[S]) -> S {
    let n = ((4 * x.len() + 1) as f64).sqrt() as usize / 2;
    assert_eq!(n * n + n, x.len(), "fsummatvec: input length is not n² + n");
    let (m, v) = x.split_at(n * n);
    m.chunks_exact(n).fold(S::zero(), |total, row| {
        total
            + row
                .iter()
                .zip(v)
                .fold(S::zero(), |acc, (&a, &b)| acc + a * b)
    })
}

/// [`fsummatvec`] written with [`Real::matvec`] (one node per row on the tape); the same
/// value.
pub fn fsummatvec_vec<S: Real>(x: &[S]) -> S {
    let n = ((4 * x.len() + 1) as f64).sqrt() as usize / 2;
    assert_eq!(n * n + n, x.len(), "fsummatvec: input length is not n² + n");
    let (m, v) = x.split_at(n * n);
    S::matvec(m, v)
        .into_iter()
        .fold(S::zero(), |total, r| total + r)
}

/// `frotvecquat`: inputs `v = (1, 2, 3)`, `q = (4, 5, 6, 7)` (`w` last).
pub const ROTVECQUAT_INPUTS: [f64; 7] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];

/// `frotvecquat`: rotates `v` by the (unnormalised) quaternion `q = (x, y, z, w)`:
/// `r = 2 (u·v) u + (s² − u·u) v + 2 s (u × v)` with `u = (q_x, q_y, q_z)`, `s = q_w`.
pub fn frotvecquat<S: Real>(x: &[S]) -> [S; 3] {
    let v = [x[0], x[1], x[2]];
    let u = [x[3], x[4], x[5]];
    let s = x[6];
    let two = S::from_f64(2.0);
    let uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    let cross = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let k = s * s - uu;
    std::array::from_fn(|i| two * uv * u[i] + k * v[i] + two * s * cross[i])
}

/// Sizes of the `fneural` network: input 50, hidden 100 and 50.
pub const NEURAL_SIZES: (usize, usize, usize) = (50, 100, 50);

/// `fneural`: the 10 200 inputs, laid out as `[x (50), W₁ (100 × 50), b₁ (100), W₂ (50 × 100),
/// b₂ (50)]`, row-major, with `W[i][j] = sin(i + j)`, `b[i] = x[i] = sin(0.41 i)`.
pub fn neural_inputs() -> Vec<f64> {
    let (n0, n1, n2) = NEURAL_SIZES;
    let mut p = Vec::with_capacity(n0 + n1 * n0 + n1 + n2 * n1 + n2);
    p.extend((0..n0).map(|i| (0.41 * i as f64).sin()));
    p.extend((0..n1 * n0).map(|k| ((k / n0 + k % n0) as f64).sin()));
    p.extend((0..n1).map(|i| (0.41 * i as f64).sin()));
    p.extend((0..n2 * n1).map(|k| ((k / n1 + k % n1) as f64).sin()));
    p.extend((0..n2).map(|i| (0.41 * i as f64).sin()));
    p
}

/// `relu(z) = z` if `z ≥ 0`, else 0 (derivative 1 at exactly 0).
pub fn relu<S: Real>(z: S) -> S {
    if z.to_f64() >= 0.0 { z } else { S::zero() }
}

/// The dense layer `relu(W x + b)`; each row summed in order from 0, then `+ b`.
fn layer<S: Real>(w: &[S], b: &[S], x: &[S]) -> Vec<S> {
    w.chunks_exact(x.len())
        .zip(b)
        .map(|(row, &bi)| {
            relu(
                row.iter()
                    .zip(x)
                    .fold(S::zero(), |acc, (&a, &b)| acc + a * b)
                    + bi,
            )
        })
        .collect()
}

/// The dense layer `relu(W x + b)` with [`Real::matvec`]; the same value as [`layer`].
fn layer_vec<S: Real>(w: &[S], b: &[S], x: &[S]) -> Vec<S> {
    S::matvec(w, x)
        .into_iter()
        .zip(b)
        .map(|(z, &bi)| relu(z + bi))
        .collect()
}

/// The second hidden layer and the softmax shift `m` of the `fneural` network.
pub fn neural_hidden<S: Real>(p: &[S]) -> (Vec<S>, S) {
    neural_hidden_with(p, layer)
}

/// A dense layer: weights, biases and input to output.
type Layer<S> = fn(&[S], &[S], &[S]) -> Vec<S>;

/// [`neural_hidden`] with the layer function `layer`.
fn neural_hidden_with<S: Real>(p: &[S], layer: Layer<S>) -> (Vec<S>, S) {
    let (n0, n1, n2) = NEURAL_SIZES;
    let (x, rest) = p.split_at(n0);
    let (w1, rest) = rest.split_at(n1 * n0);
    let (b1, rest) = rest.split_at(n1);
    let (w2, b2) = rest.split_at(n2 * n1);
    let h1 = layer(w1, b1, x);
    let h2 = layer(w2, b2, &h1);
    let m = h2.iter().fold(S::zero(), |m, &h| m.max(h));
    (h2, m)
}

fn softmax_weighted<S: Real>(p: &[S], weight: impl Fn(usize) -> f64) -> S {
    softmax_of(neural_hidden(p), weight)
}

fn softmax_of<S: Real>((h2, m): (Vec<S>, S), weight: impl Fn(usize) -> f64) -> S {
    let e: Vec<S> = h2.iter().map(|&h| (h - m).exp()).collect();
    let total = e.iter().fold(S::zero(), |acc, &x| acc + x);
    e.iter().enumerate().fold(S::zero(), |acc, (i, &ei)| {
        acc + S::from_f64(weight(i)) * ei / total
    })
}

/// `fneural`: `Σᵢ eᵢ / Σⱼ eⱼ` of the network's softmax (identically 1).
pub fn fneural<S: Real>(p: &[S]) -> S {
    softmax_weighted(p, |_| 1.0)
}

/// `fneural`: `Σᵢ cos(i) eᵢ / Σⱼ eⱼ`, a variant with a non-trivial gradient for tests.
pub fn fneural_weighted<S: Real>(p: &[S]) -> S {
    softmax_weighted(p, |i| (i as f64).cos())
}

/// [`fneural`] with the layers' products as [`Real::matvec`] (one node per row on the tape);
/// the same value.
pub fn fneural_vec<S: Real>(p: &[S]) -> S {
    softmax_of(neural_hidden_with(p, layer_vec), |_| 1.0)
}

/// [`fneural_weighted`] with the layers' products as [`Real::matvec`].
pub fn fneural_weighted_vec<S: Real>(p: &[S]) -> S {
    softmax_of(neural_hidden_with(p, layer_vec), |i| (i as f64).cos())
}

/// Euler steps per particle in `fparticles`.
pub const PARTICLE_STEPS: usize = 1000;

/// `fparticles`: 16 inputs, `(p_x, p_y, v_x, v_y)` of particles 1 … 4, `p = (0.5 i, 0.1)`,
/// `v = (1, 1)`.
pub fn particles_inputs() -> Vec<f64> {
    (1..=4)
        .flat_map(|i| [0.5 * i as f64, 0.1, 1.0, 1.0])
        .collect()
}

/// One particle, `steps` explicit Euler steps in the force field `−0.5 p` with friction
/// `−0.2 v`, mass 1, `dt = 0.05`; returns `p_x · p_y` of the final position.
pub fn particle<S: Real>(state: &[S], steps: usize) -> S {
    let dt = S::from_f64(0.05);
    let mass = S::from_f64(1.0);
    // −0.5 p as one multiplication by the constant −0.5 (16 operations per step).
    let (k, mu) = (S::from_f64(-0.5), S::from_f64(0.2));
    let (mut px, mut py, mut vx, mut vy) = (state[0], state[1], state[2], state[3]);
    for _ in 0..steps {
        let ax = (k * px - mu * vx) / mass;
        let ay = (k * py - mu * vy) / mass;
        px += dt * vx;
        py += dt * vy;
        vx += dt * ax;
        vy += dt * ay;
    }
    px * py
}

fn particle_chain<S: Real>(states: &[S], steps: usize) -> Vec<S> {
    if states.is_empty() {
        return Vec::new();
    }
    let (first, rest) = states.split_at(4);
    let (a, mut tail) = join(|| particle(first, steps), || particle_chain(rest, steps));
    tail.insert(0, a);
    tail
}

/// `fparticles`: the four particles as a right-nested chain of [`join`]s (particle 1 in parallel
/// with (particle 2 in parallel with (… (particle 4 in parallel with nothing)))); the output is
/// `Σ p_x p_y` summed in particle order from 0.
pub fn fparticles<S: Real>(x: &[S]) -> S {
    fparticles_steps(x, PARTICLE_STEPS)
}

/// [`fparticles`] with `steps` Euler steps per particle (`fparticles_long` uses 100 000).
pub fn fparticles_steps<S: Real>(x: &[S], steps: usize) -> S {
    particle_chain(x, steps)
        .into_iter()
        .fold(S::zero(), |acc, y| acc + y)
}

/// `fparticles_balanced`: the particles as one [`par_map`].
pub fn fparticles_balanced<S: Real>(x: &[S], steps: usize) -> S {
    let states: Vec<&[S]> = x.chunks_exact(4).collect();
    par_map(&states, |s| particle(s, steps))
        .into_iter()
        .fold(S::zero(), |acc, y| acc + y)
}

/// `fparticles` without any fork (the sequential primal), for comparison.
pub fn fparticles_sequential<S: Real>(x: &[S], steps: usize) -> S {
    x.chunks_exact(4)
        .map(|s| particle(s, steps))
        .fold(S::zero(), |acc, y| acc + y)
}
