//! `ht`: input `{theta: double[26], data: {model: {bone_count, bone_names, parents,
//! base_relatives: double[b][4][4], inverse_base_absolutes: double[b][4][4],
//! base_positions: double[v][4], weights: double[v][b], triangles: int[t][3], is_mirrored},
//! correspondences: int[c], points: double[c][3]}, us: double[c][2] or []}`. An empty `us` is
//! the simple variant (each point corresponds to a vertex), otherwise the complicated one
//! (to a point of a triangle). `objective` gives the residuals double[3c], `jacobian` the
//! dense Jacobian double[3c][26] (simple) or double[3c][28] (complicated: us first).

use super::{Call, Eval, single_output};
use crate::gradbench::json::{
    Result, bool_value, expect_shape, f64_array, f64_array_of_shape, field, i64_array, to_bool,
    to_size,
};
use gradus::value::{Buffer, Value};
use serde_json::Value as Json;

const FUNCTIONS: &[&str] = &["objective", "jacobian"];

/// The converter.
pub const EVAL: Eval = Eval {
    module: "ht",
    functions: FUNCTIONS,
    input,
    output: single_output,
};

fn ints(v: &Value) -> &[i64] {
    match v {
        Value::Array(a) => match a.buffer() {
            Buffer::I64(xs) => xs,
            _ => &[],
        },
        Value::Scalar(_) => &[],
    }
}

/// Checks that every index is in `lo..hi`.
fn check_indices(v: &Value, lo: i64, hi: usize, what: &str, of: &str) -> Result<()> {
    match ints(v).iter().position(|&i| i < lo || i >= hi as i64) {
        Some(k) => Err(format!(
            "{what} has {} at position {k}, which is not one of the {hi} {of}",
            ints(v)[k]
        )),
        None => Ok(()),
    }
}

fn input(function: &str, input: &Json) -> Result<Call> {
    let theta = f64_array_of_shape(field(input, "theta")?, &[26], "theta")?;
    let data = field(input, "data")?;
    let model = field(data, "model")?;
    let parents = i64_array(field(model, "parents")?, 1, "parents")?;
    let b = parents.shape()[0];
    let bone_count = to_size(field(model, "bone_count")?, "bone_count")?;
    if bone_count != b {
        return Err(format!(
            "bone_count is {bone_count}, but there are {b} parents"
        ));
    }
    for (k, &p) in ints(&parents).iter().enumerate() {
        if p != -1 && !(0..k as i64).contains(&p) {
            return Err(format!(
                "parents[{k}] is {p}: a bone's parent must come before it (or be -1)"
            ));
        }
    }
    let base_relatives = f64_array_of_shape(
        field(model, "base_relatives")?,
        &[b, 4, 4],
        "base_relatives",
    )?;
    let inverse_base_absolutes = f64_array_of_shape(
        field(model, "inverse_base_absolutes")?,
        &[b, 4, 4],
        "inverse_base_absolutes",
    )?;
    let base_positions = f64_array(field(model, "base_positions")?, 2, "base_positions")?;
    let v = base_positions.shape()[0];
    let base_positions = expect_shape(base_positions, &[v, 4], "base_positions")?;
    let weights = f64_array_of_shape(field(model, "weights")?, &[v, b], "weights")?;
    let triangles = i64_array(field(model, "triangles")?, 2, "triangles")?;
    let t = triangles.shape()[0];
    let triangles = expect_shape(triangles, &[t, 3], "triangles")?;
    check_indices(&triangles, 0, v, "triangles", "vertices")?;
    let is_mirrored = to_bool(field(model, "is_mirrored")?, "is_mirrored")?;
    let correspondences = i64_array(field(data, "correspondences")?, 1, "correspondences")?;
    let c = correspondences.shape()[0];
    let points = f64_array_of_shape(field(data, "points")?, &[c, 3], "points")?;
    let us = field(input, "us")?;
    let complicated = !matches!(us, Json::Array(xs) if xs.is_empty());
    let entry = match (function, complicated) {
        ("objective", false) => "objective_simple",
        ("jacobian", false) => "jacobian_simple",
        ("objective", true) => "objective_complicated",
        ("jacobian", true) => "jacobian_complicated",
        _ => return Err(format!("unknown function \"{function}\"")),
    };
    let mut args = vec![
        parents,
        base_relatives,
        inverse_base_absolutes,
        base_positions,
        weights,
        bool_value(is_mirrored),
    ];
    if complicated {
        check_indices(&correspondences, 0, t, "correspondences", "triangles")?;
        let us = f64_array_of_shape(us, &[c, 2], "us")?;
        args.extend([triangles, correspondences, points, us, theta]);
    } else {
        check_indices(&correspondences, 0, v, "correspondences", "vertices")?;
        args.extend([correspondences, points, theta]);
    }
    Ok(Call { entry, args })
}
