//! The `particle` eval: the control parameter w that makes a charged particle, pushed by charges
//! at (10, 10 − w) and (10, 0), cross the x axis at the origin: `argmin_w x₀(t_f)²` by gradient
//! descent from the given w.
//!
//! The trajectory is Euler integration (step 0.1) from x = (0, 8), ẋ = (0.75, 0) with
//! acceleration −∇ₓp(x; w), p the potential of the two charges, until the next step would cross
//! the axis; the crossing is then found by linear extrapolation. The function's first letter is
//! the mode of the outer derivative (with respect to w, through the whole trajectory), the
//! second the mode of the force's gradient: `f` forward mode (`gradus-num` duals), `r` reverse
//! mode (the tape). See [`crate::nested`] for how they nest.

use crate::nested::{Forward, InnerMode, Objective, Reverse, TapeGrad, argmin};
use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::{Real, grad_fwd};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    w: f64,
}

/// The potential p(x; w) on the three numbers `[x₀, x₁, w]`.
pub struct Potential;

impl Objective for Potential {
    fn eval<S: Real>(v: &[S]) -> S {
        let ten = S::from_f64(10.0);
        let inverse_distance = |cx: S, cy: S| {
            let (dx, dy) = (v[0] - cx, v[1] - cy);
            S::one() / (dx * dx + dy * dy).sqrt()
        };
        inverse_distance(ten, ten - v[2]) + inverse_distance(ten, S::zero())
    }
}

/// x₀(t_f)², the square of the miss distance, with the force's gradient taken by `M`.
fn miss<S: TapeGrad, M: InnerMode>(w: S) -> S {
    let dt = S::from_f64(0.1);
    let mut x = [S::zero(), S::from_f64(8.0)];
    let mut xdot = [S::from_f64(0.75), S::zero()];
    loop {
        let force = M::grad::<S, Potential>(&[x[0], x[1], w]);
        let next = [x[0] + dt * xdot[0], x[1] + dt * xdot[1]];
        if next[1].to_f64() > 0.0 {
            x = next;
            xdot = [xdot[0] - dt * force[0], xdot[1] - dt * force[1]];
        } else {
            break;
        }
    }
    let dt_f = -x[1] / xdot[1];
    let x_f = x[0] + dt_f * xdot[0];
    x_f * x_f
}

/// x₀(t_f)² as a function of w (forces by forward mode).
pub fn miss_distance(w: f64) -> f64 {
    miss::<f64, Forward>(w)
}

/// d x₀(t_f)² / dw through the trajectory: by forward mode over `M` when `forward`, else by
/// reverse mode over `M`.
fn miss_derivative_in<M: InnerMode>(forward: bool, w: f64) -> f64 {
    if forward {
        grad_fwd(&[w], |v| miss::<_, M>(v[0])).1[0]
    } else {
        gradus_tape::grad(&[w], |v| miss::<_, M>(v[0])).1[0]
    }
}

/// d x₀(t_f)² / dw as `function` (`ff`, `fr`, `rf` or `rr`) takes it.
pub fn miss_derivative(function: &str, w: f64) -> Result<f64, String> {
    Ok(match function {
        "ff" => miss_derivative_in::<Forward>(true, w),
        "fr" => miss_derivative_in::<Reverse>(true, w),
        "rf" => miss_derivative_in::<Forward>(false, w),
        "rr" => miss_derivative_in::<Reverse>(false, w),
        _ => return Err(unknown_function("particle", function)),
    })
}

/// The optimal w from `w0`; `forward` picks the outer mode, `M` the inner one.
fn particle<M: InnerMode>(forward: bool, w0: f64) -> f64 {
    argmin(
        |w| miss::<f64, M>(w[0]),
        |w| vec![miss_derivative_in::<M>(forward, w[0])],
        &[w0],
    )[0]
}

/// Runs `ff`, `fr`, `rf` or `rr`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let Input { w } = parse("particle", input)?;
    match function {
        "ff" => timed_json(input, || particle::<Forward>(true, w)),
        "fr" => timed_json(input, || particle::<Reverse>(true, w)),
        "rf" => timed_json(input, || particle::<Forward>(false, w)),
        "rr" => timed_json(input, || particle::<Reverse>(false, w)),
        _ => Err(unknown_function("particle", function)),
    }
}
