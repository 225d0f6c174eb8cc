//! The `saddle` eval: a saddle point of f(p, q) = (p₀² + p₁²) − (q₀² + q₁²) as
//! `argmin_p max_q f(p, q)` by nested gradient descent, then `argmax_q f(p*, q)`.
//!
//! The function's first letter is the mode of the outer derivative (the gradient of
//! `p ↦ max_q f(p, q)`, taken through the inner gradient-ascent loop, and the gradient of the
//! final argmax), the second the mode of the inner gradient (with respect to q): `f` is forward
//! mode (`gradus-num` duals), `r` reverse mode (the tape). See [`crate::nested`] for how they
//! nest.

use crate::nested::{Forward, InnerMode, Objective, Reverse, TapeGrad, argmax, argmin};
use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::{Real, grad_fwd};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    start: [f64; 2],
}

/// f(p, q) on the four numbers `[p₀, p₁, q₀, q₁]`.
pub struct Saddle;

impl Objective for Saddle {
    fn eval<S: Real>(x: &[S]) -> S {
        (x[0] * x[0] + x[1] * x[1]) - (x[2] * x[2] + x[3] * x[3])
    }
}

fn f<S: Real>(p: &[S], q: &[S]) -> S {
    Saddle::eval(&[p[0], p[1], q[0], q[1]])
}

/// `max_q f(p, q)` by gradient ascent from `start`, the gradient in q taken by `M`.
fn inner_max<S: TapeGrad, M: InnerMode>(p: &[S], start: [f64; 2]) -> S {
    let q0 = start.map(S::from_f64);
    let q = argmax(
        |q| f(p, q),
        |q| M::grad::<S, Saddle>(&[p[0], p[1], q[0], q[1]])[2..].to_vec(),
        &q0,
    );
    f(p, &q)
}

fn constants<S: Real>(x: &[f64]) -> Vec<S> {
    x.iter().map(|&v| S::from_f64(v)).collect()
}

/// `max_q f(p, q)`, the function the outer argmin minimises (inner gradients by forward mode).
pub fn max_over_q(p: &[f64], start: [f64; 2]) -> f64 {
    inner_max::<f64, Forward>(p, start)
}

/// The gradient of [`max_over_q`] at `p` through the inner loop: by forward mode over `M` when
/// `forward`, else by reverse mode over `M`.
fn max_gradient_in<M: InnerMode>(forward: bool, p: &[f64], start: [f64; 2]) -> Vec<f64> {
    if forward {
        grad_fwd(p, |v| inner_max::<_, M>(v, start)).1
    } else {
        gradus_tape::grad(p, |v| inner_max::<_, M>(v, start)).1
    }
}

/// The gradient of [`max_over_q`] at `p` as `function` (`ff`, `fr`, `rf` or `rr`) takes it.
pub fn max_gradient(function: &str, p: &[f64], start: [f64; 2]) -> Result<Vec<f64>, String> {
    Ok(match function {
        "ff" => max_gradient_in::<Forward>(true, p, start),
        "fr" => max_gradient_in::<Reverse>(true, p, start),
        "rf" => max_gradient_in::<Forward>(false, p, start),
        "rr" => max_gradient_in::<Reverse>(false, p, start),
        _ => return Err(unknown_function("saddle", function)),
    })
}

/// The saddle point `[p*, q*]`; `forward` picks the outer mode, `M` the inner one.
fn saddle<M: InnerMode>(forward: bool, start: [f64; 2]) -> Vec<f64> {
    let p = argmin(
        |p| inner_max::<f64, M>(p, start),
        |p| max_gradient_in::<M>(forward, p, start),
        &start,
    );
    let q = argmax(
        |q| f(&p, q),
        |q| {
            if forward {
                grad_fwd(q, |v| f(&constants(&p), v)).1
            } else {
                gradus_tape::grad(q, |v| f(&constants(&p), v)).1
            }
        },
        &start,
    );
    vec![p[0], p[1], q[0], q[1]]
}

/// Runs `ff`, `fr`, `rf` or `rr`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { start } = parse("saddle", input)?;
    match function {
        "ff" => timed_json(input, || saddle::<Forward>(true, start)),
        "fr" => timed_json(input, || saddle::<Reverse>(true, start)),
        "rf" => timed_json(input, || saddle::<Forward>(false, start)),
        "rr" => timed_json(input, || saddle::<Reverse>(false, start)),
        _ => Err(unknown_function("saddle", function)),
    }
}
