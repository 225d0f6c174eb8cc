//! The `ode` eval: `s` RK4 steps of y₀′ = x₀, yᵢ′ = xᵢ yᵢ₋₁ from y = 0 to t = 2, and the
//! gradient of the last component of y with respect to x.
//!
//! The gradient checkpoints every step: the forward sweep keeps the state at the start of each
//! step, then the steps are recorded and pulled back one at a time from the last (a
//! vector-Jacobian product of one step with respect to the state and x), so the tape holds one
//! step instead of all of them.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::Tape;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    s: usize,
}

fn ode_fun<S: Real>(x: &[S], y: &[S]) -> Vec<S> {
    std::iter::once(x[0])
        .chain(x[1..].iter().zip(y).map(|(&xi, &yi)| xi * yi))
        .collect()
}

/// One RK4 step of length `h` from `y`.
pub fn step<S: Real>(x: &[S], y: &[S], h: f64) -> Vec<S> {
    let (h, two, six) = (S::from_f64(h), S::from_f64(2.0), S::from_f64(6.0));
    let shift = |k: &[S], scale: S| -> Vec<S> {
        y.iter().zip(k).map(|(&yi, &ki)| yi + scale * ki).collect()
    };
    let k1 = ode_fun(x, y);
    let k2 = ode_fun(x, &shift(&k1, h / two));
    let k3 = ode_fun(x, &shift(&k2, h / two));
    let k4 = ode_fun(x, &shift(&k3, h));
    (0..y.len())
        .map(|i| y[i] + h * (k1[i] + two * k2[i] + two * k3[i] + k4[i]) / six)
        .collect()
}

/// y at t = 2 after `s` steps.
pub fn primal(x: &[f64], s: usize) -> Vec<f64> {
    let h = 2.0 / s as f64;
    (0..s).fold(vec![0.0; x.len()], |y, _| step(x, &y, h))
}

/// The gradient of the last component of y at t = 2 with respect to x.
pub fn gradient(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let h = 2.0 / s as f64;
    let mut states = Vec::with_capacity(s);
    let mut y = vec![0.0; n];
    for _ in 0..s {
        let next = step(x, &y, h);
        states.push(std::mem::replace(&mut y, next));
    }
    let mut ybar = vec![0.0; n];
    ybar[n - 1] = 1.0;
    let mut xbar = vec![0.0; n];
    let mut tape = Tape::new();
    let mut point = vec![0.0; 2 * n];
    point[n..].copy_from_slice(x);
    for y in states.iter().rev() {
        point[..n].copy_from_slice(y);
        let (_, bar) = tape.vjp(&point, &ybar, |v| step(&v[n..], &v[..n], h));
        ybar.copy_from_slice(&bar[..n]);
        xbar.iter_mut().zip(&bar[n..]).for_each(|(a, b)| *a += b);
    }
    xbar
}

/// Runs `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { x, s } = parse("ode", input)?;
    if x.is_empty() {
        return Err("ode: x is empty".into());
    }
    match function {
        "primal" => timed_json(input, || primal(&x, s)),
        "gradient" => timed_json(input, || gradient(&x, s)),
        _ => Err(unknown_function("ode", function)),
    }
}
