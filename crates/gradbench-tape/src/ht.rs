//! The `ht` eval: the ADBench hand-tracking residuals (a skinned hand mesh posed by 26
//! parameters, against observed points) and their Jacobian, in the simple variant (each point
//! matched to a vertex) and the complicated one (each point matched to a point of a triangle,
//! with barycentric parameters `us`).
//!
//! The Jacobian is taken in two stages. The pose maps θ to the 3 × 4 transform of each bone
//! and the global rotation and translation: its Jacobian (a few hundred rows by 26) comes from
//! one recording on the tape and one pullback per row. Each point's residual is then evaluated
//! in forward mode on 28 tangents at once (its two `us`, then θ), the transforms' tangents
//! being the rows of the pose's Jacobian. Only the vertices that points are matched to are
//! skinned.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::DualN;
use rayon::prelude::*;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Model {
    bone_names: Vec<String>,
    parents: Vec<i64>,
    base_relatives: Vec<Vec<Vec<f64>>>,
    inverse_base_absolutes: Vec<Vec<Vec<f64>>>,
    base_positions: Vec<Vec<f64>>,
    weights: Vec<Vec<f64>>,
    triangles: Vec<Vec<usize>>,
    is_mirrored: bool,
}

#[derive(Deserialize)]
struct Data {
    model: Model,
    correspondences: Vec<usize>,
    points: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
struct Input {
    theta: Vec<f64>,
    data: Data,
    #[serde(default)]
    us: Vec<Vec<f64>>,
}

/// Numbers per bone transform (its top three rows) and for the global transform (rotation
/// then translation).
const BLOCK: usize = 12;

/// The problem, with matrices flattened row-major.
pub struct Hand {
    theta: Vec<f64>,
    parents: Vec<Option<usize>>,
    base_relatives: Vec<[f64; 16]>,
    inverse_base_absolutes: Vec<[f64; 16]>,
    base_positions: Vec<[f64; 4]>,
    /// Per vertex, its (bone, weight) pairs with nonzero weight.
    weights: Vec<Vec<(usize, f64)>>,
    mirrored: bool,
    /// Per point, its vertex (simple) or the three vertices of its triangle (complicated).
    vertices: Vec<Vec<usize>>,
    points: Vec<[f64; 3]>,
    /// Per point, its barycentric parameters (complicated only).
    us: Vec<[f64; 2]>,
}

fn matrix4(rows: &[Vec<f64>]) -> Option<[f64; 16]> {
    (rows.len() == 4 && rows.iter().all(|r| r.len() == 4)).then(|| {
        let mut m = [0.0; 16];
        m.iter_mut().zip(rows.concat()).for_each(|(a, b)| *a = b);
        m
    })
}

fn mul4<S: Real>(a: &[S; 16], b: &[S; 16]) -> [S; 16] {
    std::array::from_fn(|k| {
        let (i, j) = (k / 4, k % 4);
        (0..4).map(|l| a[4 * i + l] * b[4 * l + j]).sum()
    })
}

fn mul3<S: Real>(a: &[S; 9], b: &[S; 9]) -> [S; 9] {
    std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        (0..3).map(|l| a[3 * i + l] * b[3 * l + j]).sum()
    })
}

fn constant4<S: Real>(m: &[f64; 16]) -> [S; 16] {
    m.map(S::from_f64)
}

/// The rotation of Euler angles `(x, z, y)`: Rz Ry Rx.
fn euler_rotation<S: Real>(xzy: [S; 3]) -> [S; 9] {
    let (o, z) = (S::one(), S::zero());
    let (tx, ty, tz) = (xzy[0], xzy[2], xzy[1]);
    let rx = [o, z, z, z, tx.cos(), -tx.sin(), z, tx.sin(), tx.cos()];
    let ry = [ty.cos(), z, ty.sin(), z, o, z, -ty.sin(), z, ty.cos()];
    let rz = [tz.cos(), -tz.sin(), z, tz.sin(), tz.cos(), z, z, z, o];
    mul3(&mul3(&rz, &ry), &rx)
}

/// The rotation of an angle-axis vector (the identity below norm 10⁻⁴).
fn angle_axis_rotation<S: Real>(v: [S; 3]) -> [S; 9] {
    let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (o, z) = (S::one(), S::zero());
    if norm.to_f64() < 1e-4 {
        return [o, z, z, z, o, z, z, z, o];
    }
    let (x, y, w) = (v[0] / norm, v[1] / norm, v[2] / norm);
    let (s, c) = (norm.sin(), norm.cos());
    [
        x * x + (o - x * x) * c,
        x * y * (o - c) - w * s,
        x * w * (o - c) + y * s,
        x * y * (o - c) + w * s,
        y * y + (o - y * y) * c,
        y * w * (o - c) - x * s,
        x * w * (o - c) - y * s,
        w * y * (o - c) + x * s,
        w * w + (o - w * w) * c,
    ]
}

impl Hand {
    fn new(input: Input) -> Result<Hand, String> {
        let bad = |what: &str| format!("ht: bad {what}");
        let Input { theta, data, us } = input;
        let model = data.model;
        let nb = model.bone_names.len();
        if theta.len() != 26 || nb < 2 + 5 * 4 {
            return Err(bad(
                "theta or bone count (expected 26 parameters, 22 bones)",
            ));
        }
        if model.parents.len() != nb
            || model.base_relatives.len() != nb
            || model.inverse_base_absolutes.len() != nb
        {
            return Err(bad("model: one parent and two matrices per bone"));
        }
        let mut parents = Vec::with_capacity(nb);
        for (i, &p) in model.parents.iter().enumerate() {
            parents.push(match p {
                -1 => None,
                p if p >= 0 && (p as usize) < i => Some(p as usize),
                _ => return Err(bad("parents (each must come before its child)")),
            });
        }
        let matrices = |ms: &[Vec<Vec<f64>>]| -> Result<Vec<[f64; 16]>, String> {
            ms.iter()
                .map(|m| matrix4(m).ok_or_else(|| bad("4 × 4 matrix")))
                .collect()
        };
        let nv = model.base_positions.len();
        let base_positions = model
            .base_positions
            .iter()
            .map(|p| <[f64; 4]>::try_from(p.as_slice()).map_err(|_| bad("base_positions")))
            .collect::<Result<Vec<_>, _>>()?;
        if model.weights.len() != nv || model.weights.iter().any(|w| w.len() != nb) {
            return Err(bad("weights (one row of bone weights per vertex)"));
        }
        let weights = model
            .weights
            .iter()
            .map(|w| {
                w.iter()
                    .copied()
                    .enumerate()
                    .filter(|&(_, w)| w != 0.0)
                    .collect()
            })
            .collect();
        let n = data.correspondences.len();
        let complicated = !us.is_empty();
        if data.points.len() != n || (complicated && us.len() != n) {
            return Err(bad("points or us (one per correspondence)"));
        }
        let mut vertices = Vec::with_capacity(n);
        for &c in &data.correspondences {
            let vs = if complicated {
                model.triangles.get(c).cloned().unwrap_or_default()
            } else {
                vec![c]
            };
            if vs.len() != if complicated { 3 } else { 1 } || vs.iter().any(|&v| v >= nv) {
                return Err(bad("correspondences"));
            }
            vertices.push(vs);
        }
        let triple = |p: &Vec<f64>| <[f64; 3]>::try_from(p.as_slice()).map_err(|_| bad("points"));
        let pair = |u: &Vec<f64>| <[f64; 2]>::try_from(u.as_slice()).map_err(|_| bad("us"));
        Ok(Hand {
            theta,
            parents,
            base_relatives: matrices(&model.base_relatives)?,
            inverse_base_absolutes: matrices(&model.inverse_base_absolutes)?,
            base_positions,
            weights,
            mirrored: model.is_mirrored,
            vertices,
            points: data.points.iter().map(triple).collect::<Result<_, _>>()?,
            us: us.iter().map(pair).collect::<Result<_, _>>()?,
        })
    }

    fn complicated(&self) -> bool {
        !self.us.is_empty()
    }

    /// The pose: per bone the top three rows of its skinning transform, then the global
    /// rotation and translation (`BLOCK` numbers each).
    pub fn transforms<S: Real>(&self, theta: &[S]) -> Vec<S> {
        let nb = self.parents.len();
        // Euler angles per bone: the wrist bones are not posed; each finger has 3 posed bones
        // (the first with two angles) and a tip.
        let mut angles = vec![[S::zero(); 3]; nb];
        let mut k = 6;
        for finger in 0..5 {
            for joint in 0..3 {
                let bone = 2 + 4 * finger + joint;
                angles[bone][0] = theta[k];
                k += 1;
                if joint == 0 {
                    angles[bone][1] = theta[k];
                    k += 1;
                }
            }
        }
        let mut absolutes: Vec<[S; 16]> = Vec::with_capacity(nb);
        let mut out = Vec::with_capacity(BLOCK * (nb + 1));
        for (bone, &angles) in angles.iter().enumerate() {
            let r = euler_rotation(angles);
            let (o, z) = (S::one(), S::zero());
            let posed = [
                r[0], r[1], r[2], z, r[3], r[4], r[5], z, r[6], r[7], r[8], z, z, z, z, o,
            ];
            let relative = mul4(&constant4(&self.base_relatives[bone]), &posed);
            let absolute = match self.parents[bone] {
                None => relative,
                Some(p) => mul4(&absolutes[p], &relative),
            };
            let transform = mul4(&absolute, &constant4(&self.inverse_base_absolutes[bone]));
            out.extend_from_slice(&transform[..BLOCK]);
            absolutes.push(absolute);
        }
        out.extend(angle_axis_rotation([theta[0], theta[1], theta[2]]));
        out.extend_from_slice(&theta[3..6]);
        out
    }

    /// Point `i`'s residual, given the transform block of each bone by `block(bone)` and the
    /// global block, and its barycentric parameters (complicated only).
    fn residual<'a, S: Real + 'a>(
        &self,
        i: usize,
        block: impl Fn(usize) -> &'a [S],
        global: &[S],
        u: Option<[S; 2]>,
    ) -> [S; 3] {
        let vertex = |v: usize| -> [S; 3] {
            let p = self.base_positions[v].map(S::from_f64);
            let mut x = [S::zero(); 3];
            for &(bone, w) in &self.weights[v] {
                let t = block(bone);
                for (r, xr) in x.iter_mut().enumerate() {
                    let moved: S = (0..4).map(|c| t[4 * r + c] * p[c]).sum();
                    *xr += moved * S::from_f64(w);
                }
            }
            if self.mirrored {
                x[0] = -x[0];
            }
            std::array::from_fn(|r| {
                (0..3).map(|c| global[3 * r + c] * x[c]).sum::<S>() + global[9 + r]
            })
        };
        let vs = &self.vertices[i];
        let hand = match u {
            None => vertex(vs[0]),
            Some(u) => {
                let (a, b, c) = (vertex(vs[0]), vertex(vs[1]), vertex(vs[2]));
                let w = S::one() - u[0] - u[1];
                std::array::from_fn(|r| u[0] * a[r] + u[1] * b[r] + w * c[r])
            }
        };
        std::array::from_fn(|r| S::from_f64(self.points[i][r]) - hand[r])
    }

    /// The residuals, 3 per point.
    pub fn objective(&self) -> Vec<f64> {
        let a = self.transforms(&self.theta);
        let global = &a[BLOCK * self.parents.len()..];
        (0..self.points.len())
            .flat_map(|i| {
                let u = self.complicated().then(|| self.us[i]);
                self.residual(i, |b| &a[BLOCK * b..BLOCK * (b + 1)], global, u)
            })
            .collect()
    }

    /// The Jacobian of the residuals: one row per residual, with columns the point's two `us`
    /// (complicated only) then θ.
    ///
    /// The pose's Jacobian (the transforms' entries with respect to θ) comes from one
    /// recording on the tape and one pullback per entry. Each point's residual then runs on
    /// `DualN<f64, 28>` whose transform entries carry those rows as tangents and whose `us`
    /// carry unit tangents: its three rows come out of one evaluation, in forward mode over
    /// the few operations of one point, which costs less than a recording and three pullbacks
    /// per point chained with the pose's rows.
    pub fn jacobian(&self) -> Vec<Vec<f64>> {
        let nb = self.parents.len();
        let (a, da) = gradus_tape::jacobian(&self.theta, |t| self.transforms(t));
        let complicated = self.complicated();
        let off = if complicated { 2 } else { 0 };
        let nt = self.theta.len();
        let lifted: Vec<Lane> = a
            .iter()
            .zip(&da)
            .map(|(&v, row)| {
                let mut d = [0.0; LANES];
                d[off..off + nt].copy_from_slice(row);
                DualN { v, d }
            })
            .collect();
        let global = &lifted[BLOCK * nb..];
        (0..self.points.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                let u = complicated.then(|| {
                    let [u0, u1] = self.us[i];
                    [DualN::variable(u0, 0), DualN::variable(u1, 1)]
                });
                let r = self.residual_lanes(i, &lifted, global, u);
                r.map(|e| e.d[..off + nt].to_vec())
            })
            .collect()
    }
}

impl Hand {
    /// [`residual`](Hand::residual) on [`Lane`]s, given all transform blocks: the skinned
    /// position of a vertex is linear in the bones' transforms with constant coefficients
    /// (weight times base position), so it is accumulated as `axpy`s on the tangents rather
    /// than as products of duals; the global transform and the barycentric combination, which
    /// multiply two values with tangents, use the duals' arithmetic.
    fn residual_lanes(
        &self,
        i: usize,
        blocks: &[Lane],
        global: &[Lane],
        u: Option<[Lane; 2]>,
    ) -> [Lane; 3] {
        let vertex = |v: usize| -> [Lane; 3] {
            let p = self.base_positions[v];
            let mut x = [Lane::default(); 3];
            for &(bone, w) in &self.weights[v] {
                let t = &blocks[BLOCK * bone..BLOCK * (bone + 1)];
                for (r, xr) in x.iter_mut().enumerate() {
                    for (c, &pc) in p.iter().enumerate() {
                        let (k, e) = (w * pc, &t[4 * r + c]);
                        xr.v += k * e.v;
                        xr.d.iter_mut().zip(&e.d).for_each(|(a, b)| *a += k * b);
                    }
                }
            }
            if self.mirrored {
                x[0] = -x[0];
            }
            std::array::from_fn(|r| {
                global[3 * r] * x[0]
                    + global[3 * r + 1] * x[1]
                    + global[3 * r + 2] * x[2]
                    + global[9 + r]
            })
        };
        let vs = &self.vertices[i];
        let hand = match u {
            None => vertex(vs[0]),
            Some(u) => {
                let (a, b, c) = (vertex(vs[0]), vertex(vs[1]), vertex(vs[2]));
                let w = Lane::one() - u[0] - u[1];
                std::array::from_fn(|r| u[0] * a[r] + u[1] * b[r] + w * c[r])
            }
        };
        std::array::from_fn(|r| Lane::from_f64(self.points[i][r]) - hand[r])
    }
}

/// Tangents of the second stage of [`Hand::jacobian`]: two `us`, then 26 θ.
const LANES: usize = 28;

type Lane = DualN<f64, LANES>;

/// Runs `objective` or `jacobian`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let hand = Hand::new(parse("ht", input)?)?;
    match function {
        "objective" => timed_json(input, || hand.objective()),
        "jacobian" => timed_json(input, || hand.jacobian()),
        _ => Err(unknown_function("ht", function)),
    }
}
