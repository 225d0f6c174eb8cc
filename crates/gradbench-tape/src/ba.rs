//! The `ba` eval: bundle adjustment (ADBench). The reprojection error of each observation and
//! its 2 × 15 Jacobian block (11 camera parameters, 3 point coordinates, 1 weight), each block
//! by forward mode on 15 tangents at once (the tape's `DualN`); the weight errors' derivatives,
//! the Jacobian's diagonal part, as the gradient of their sum in one recording. The blocks are
//! assembled into the sparse (CSR) Jacobian.

use crate::runner::{Runs, timed};
use crate::{Evaluated, parse, to_json, unknown_function};
use gradus_num::Real;
use gradus_tape::DualN;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const NCAM: usize = 11;

#[derive(Deserialize)]
struct Input {
    n: usize,
    m: usize,
    p: usize,
    cam: Vec<f64>,
    x: Vec<f64>,
    w: f64,
    feat: Vec<f64>,
}

/// The replicated problem: `n` cameras, `m` points, `p` observations (observation `i` sees
/// point `i mod m` from camera `i mod n`).
pub struct Ba {
    n: usize,
    m: usize,
    p: usize,
    cams: Vec<f64>,
    xs: Vec<f64>,
    w: Vec<f64>,
    feats: Vec<f64>,
}

/// The sparse Jacobian in compressed-row form.
#[derive(Serialize)]
struct Sparse {
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

fn cross<S: Real>(a: &[S], b: &[S]) -> [S; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn rodrigues<S: Real>(rot: &[S], pt: &[S]) -> [S; 3] {
    let sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
    if sqtheta != S::zero() {
        let theta = sqtheta.sqrt();
        let (c, s) = (theta.cos(), theta.sin());
        let inv = S::one() / theta;
        let w = [rot[0] * inv, rot[1] * inv, rot[2] * inv];
        let wxp = cross(&w, pt);
        let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (S::one() - c);
        std::array::from_fn(|i| pt[i] * c + wxp[i] * s + w[i] * tmp)
    } else {
        let rxp = cross(rot, pt);
        std::array::from_fn(|i| pt[i] + rxp[i])
    }
}

/// The weighted reprojection error of point `x` seen by camera `cam` with weight `w` against
/// the feature `feat`.
pub fn reproj_error<S: Real>(cam: &[S], x: &[S], w: S, feat: &[f64]) -> [S; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xcam = rodrigues(&cam[0..3], &xo);
    let mut proj = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
    let rsq = proj[0] * proj[0] + proj[1] * proj[1];
    let l = S::one() + cam[9] * rsq + cam[10] * rsq * rsq;
    proj[0] = proj[0] * l * cam[6] + cam[7];
    proj[1] = proj[1] * l * cam[6] + cam[8];
    [
        w * (proj[0] - S::from_f64(feat[0])),
        w * (proj[1] - S::from_f64(feat[1])),
    ]
}

/// The weight error 1 − w².
pub fn weight_error<S: Real>(w: S) -> S {
    S::one() - w.square()
}

impl Ba {
    fn new(input: Input) -> Result<Ba, String> {
        let Input {
            n,
            m,
            p,
            cam,
            x,
            w,
            feat,
        } = input;
        if n == 0 || m == 0 || p == 0 {
            return Err("ba: n, m and p must be positive".into());
        }
        if cam.len() != NCAM || x.len() != 3 || feat.len() != 2 {
            return Err("ba: cam must have 11 numbers, x 3 and feat 2".into());
        }
        Ok(Ba {
            n,
            m,
            p,
            cams: cam.repeat(n),
            xs: x.repeat(m),
            w: vec![w; p],
            feats: feat.repeat(p),
        })
    }

    fn observation(&self, i: usize) -> (usize, usize) {
        (i % self.n, i % self.m)
    }

    /// The reprojection errors (2 per observation) and the weight errors.
    pub fn objective(&self) -> (Vec<f64>, Vec<f64>) {
        let reproj: Vec<[f64; 2]> = (0..self.p)
            .into_par_iter()
            .map(|i| {
                let (c, pt) = self.observation(i);
                reproj_error(
                    &self.cams[c * NCAM..][..NCAM],
                    &self.xs[pt * 3..][..3],
                    self.w[i],
                    &self.feats[i * 2..][..2],
                )
            })
            .collect();
        let w_err = self.w.par_iter().map(|&w| weight_error(w)).collect();
        (reproj.concat(), w_err)
    }

    /// The 2 × 15 block of observation `i` (row-major: `[row][cam 11, point 3, weight 1]`), by
    /// forward mode: one evaluation of the residual on `DualN<f64, 15>`, each input carrying
    /// its unit tangent. For a dense block of 2 rows and 15 columns this costs less than a
    /// recording and two pullbacks per observation (3.2 against 10.5 thousand instructions per
    /// observation, callgrind, ba1's sizes).
    fn block(&self, i: usize) -> [[f64; 15]; 2] {
        let (c, pt) = self.observation(i);
        let var = |k: usize, v: f64| DualN::<f64, 15>::variable(v, k);
        let cam: [DualN<f64, 15>; NCAM] = std::array::from_fn(|k| var(k, self.cams[c * NCAM + k]));
        let x: [DualN<f64, 15>; 3] = std::array::from_fn(|k| var(NCAM + k, self.xs[pt * 3 + k]));
        let w = var(14, self.w[i]);
        let e = reproj_error(&cam, &x, w, &self.feats[i * 2..][..2]);
        [e[0].d, e[1].d]
    }

    /// The full sparse Jacobian of all 3p residuals with respect to the 11n + 3m + p parameters.
    fn jacobian(&self) -> Sparse {
        let blocks: Vec<[[f64; 15]; 2]> =
            (0..self.p).into_par_iter().map(|i| self.block(i)).collect();
        // Each weight error depends on its own weight only: the Jacobian's diagonal is the
        // gradient of their sum, one recording (each error folds into a coefficient of its
        // input, and the sum is one node).
        let w_d = gradus_tape::grad(&self.w, |v| {
            gradus_tape::sum_iter(v.iter().map(|&w| weight_error(w)))
        })
        .1;
        let (n, m, p) = (self.n, self.m, self.p);
        let mut rows = Vec::with_capacity(3 * p + 1);
        let mut cols = Vec::with_capacity(31 * p);
        let mut vals = Vec::with_capacity(31 * p);
        rows.push(0);
        for (i, block) in blocks.iter().enumerate() {
            let (c, pt) = self.observation(i);
            for row in block {
                cols.extend((0..NCAM).map(|j| NCAM * c + j));
                cols.extend((0..3).map(|j| NCAM * n + 3 * pt + j));
                cols.push(NCAM * n + 3 * m + i);
                vals.extend_from_slice(row);
                rows.push(cols.len());
            }
        }
        for (i, d) in w_d.into_iter().enumerate() {
            cols.push(NCAM * n + 3 * m + i);
            vals.push(d);
            rows.push(cols.len());
        }
        Sparse { rows, cols, vals }
    }
}

/// The first 30 entries and the last one, as the eval compares them.
fn summary<T: Copy>(v: &[T]) -> Vec<T> {
    let mut out: Vec<T> = v.iter().take(30).copied().collect();
    out.extend(v.last().copied());
    out
}

/// Runs `objective` or `jacobian`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let ba = Ba::new(parse("ba", input)?)?;
    let runs = Runs::of(input)?;
    match function {
        "objective" => {
            let ((reproj, w_err), ns) = timed(runs, || ba.objective());
            let out = json!({
                "reproj_error": {"elements": reproj[..2], "repeated": ba.p},
                "w_err": {"element": w_err[0], "repeated": ba.p},
            });
            Ok((out, ns))
        }
        "jacobian" => {
            let (j, ns) = timed(runs, || ba.jacobian());
            let out = Sparse {
                rows: summary(&j.rows),
                cols: summary(&j.cols),
                vals: summary(&j.vals),
            };
            Ok((to_json(&out)?, ns))
        }
        _ => Err(unknown_function("ba", function)),
    }
}
