//! `kmeans`: input `{points: double[n][d], centroids: double[k][d]}`; `cost` gives
//! Σᵢ minⱼ ‖Cⱼ − Pᵢ‖², `dir` the Newton direction J·H⁻¹ [k][d].

use super::{Call, Eval, entry_named, single_output};
use crate::gradbench::json::{Result, f64_array, field};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["cost", "dir"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "kmeans",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn input(function: &str, input: &Json) -> Result<Call> {
    let points = f64_array(field(input, "points")?, 2, "points")?;
    let centroids = f64_array(field(input, "centroids")?, 2, "centroids")?;
    let (d, dc) = (points.shape()[1], centroids.shape()[1]);
    if d != dc && points.shape()[0] > 0 && centroids.shape()[0] > 0 {
        return Err(format!(
            "the points have {d} coordinates but the centroids {dc}"
        ));
    }
    Ok(Call {
        entry: entry_named(FUNCTIONS, function)?,
        args: vec![points, centroids],
    })
}
