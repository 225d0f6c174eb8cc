//! Bundle adjustment, written reversibly (the objective of benchmarks/README.md §BA): the
//! reprojection residual `w (proj − feature)` of one observation,
//! with the Rodrigues rotation, radial distortion and projection computed into stack ancillas in a
//! routine and uncomputed. The 2 × 15 local Jacobian (11 camera + 3 point + 1 weight
//! parameters) comes from one backward sweep with a batched gradient field
//! `GVar<f64, [f64; 2]>`, without allocation. The whole-file driver reads an ADBench BA file
//! (replicating its single camera, point, weight and feature), evaluates the residual vector
//! and assembles the sparse Jacobian in ADBench's CSR layout from the
//! per-observation blocks, writing straight into preallocated arrays.
//!
//! Run with `cargo run --release -p gradus-rev --example bundle_adjustment [path/to/ba.txt]`.

#![allow(dead_code, clippy::needless_range_loop, clippy::result_large_err)]

use gradus_rev::prelude::*;

/// `out += w · (proj(cam, x) − feat)`; camera layout: Rodrigues `r` (0..3), centre `C`
/// (3..6), focal `f` (6), principal point (7, 8), radial `k₁, k₂` (9, 10).
#[reversible]
pub fn ba_residual<T: RevReal>(
    out: &mut [T; 2],
    cam: &mut [T; 11],
    x: &mut [T; 3],
    w: &mut T,
    feat: &[f64; 2],
) {
    routine! {
        let mut xo = [T::zero(); 3];
        let mut xc = [T::zero(); 3];
        let mut th2 = T::zero();
        for i in 0..3 {
            xo[i] += x[i] - cam[3 + i];
            th2 += square(cam[i]);
        }
        if (th2 > T::zero()) {
            let mut th = T::zero();
            let mut om = [T::zero(); 3];
            let mut cr = [T::zero(); 3];
            let mut ct = T::zero();
            let mut st = T::zero();
            let mut od = T::zero();
            let mut omc = T::zero();
            let mut tt = T::zero();
            routine! {
                th += sqrt(th2);
                ct += cos(th);
                st += sin(th);
                for i in 0..3 {
                    om[i] += cam[i] / th;
                }
                cr[0] += om[1] * xo[2];
                cr[0] -= om[2] * xo[1];
                cr[1] += om[2] * xo[0];
                cr[1] -= om[0] * xo[2];
                cr[2] += om[0] * xo[1];
                cr[2] -= om[1] * xo[0];
                for i in 0..3 {
                    od += om[i] * xo[i];
                }
                omc += 1.0;
                omc -= ct;
                tt += od * omc;
            }
            for i in 0..3 {
                xc[i] += xo[i] * ct;
                xc[i] += cr[i] * st;
                xc[i] += om[i] * tt;
            }
            unroutine!();
        } else {
            for i in 0..3 {
                xc[i] += xo[i];
            }
            xc[0] += cam[1] * xo[2];
            xc[0] -= cam[2] * xo[1];
            xc[1] += cam[2] * xo[0];
            xc[1] -= cam[0] * xo[2];
            xc[2] += cam[0] * xo[1];
            xc[2] -= cam[1] * xo[0];
        }
        let mut p = [T::zero(); 2];
        p[0] += xc[0] / xc[2];
        p[1] += xc[1] / xc[2];
        let mut rho = T::zero();
        rho += square(p[0]);
        rho += square(p[1]);
        let mut rho2 = T::zero();
        rho2 += square(rho);
        let mut dd = T::zero();
        dd += 1.0;
        dd += cam[9] * rho;
        dd += cam[10] * rho2;
        let mut diff = [T::zero(); 2];
        for i in 0..2 {
            routine! {
                let mut pd = T::zero();
                pd += p[i] * dd;
            }
            diff[i] += cam[6] * pd;
            unroutine!();
            diff[i] += cam[7 + i];
            diff[i] -= constant!(T::from_f64(feat[i]));
        }
    }
    for i in 0..2 {
        out[i] += w * diff[i];
    }
    unroutine!();
}

/// The same residual in plain Rust.
pub fn ba_residual_native(cam: &[f64], x: &[f64], w: f64, feat: &[f64; 2]) -> [f64; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let th2 = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    let xc = if th2 > 0.0 {
        let th = th2.sqrt();
        let om = [cam[0] / th, cam[1] / th, cam[2] / th];
        let (ct, st) = (th.cos(), th.sin());
        let cr = [
            om[1] * xo[2] - om[2] * xo[1],
            om[2] * xo[0] - om[0] * xo[2],
            om[0] * xo[1] - om[1] * xo[0],
        ];
        let t = (om[0] * xo[0] + om[1] * xo[1] + om[2] * xo[2]) * (1.0 - ct);
        [0, 1, 2].map(|i| xo[i] * ct + cr[i] * st + om[i] * t)
    } else {
        [
            xo[0] + cam[1] * xo[2] - cam[2] * xo[1],
            xo[1] + cam[2] * xo[0] - cam[0] * xo[2],
            xo[2] + cam[0] * xo[1] - cam[1] * xo[0],
        ]
    };
    let p = [xc[0] / xc[2], xc[1] / xc[2]];
    let rho = p[0] * p[0] + p[1] * p[1];
    let d = 1.0 + cam[9] * rho + cam[10] * rho * rho;
    [0, 1].map(|i| w * (cam[6] * p[i] * d + cam[7 + i] - feat[i]))
}

/// The 2 × 15 local Jacobian of one observation in one backward sweep (batched gradient
/// field, no allocation): columns 0..11 camera, 11..14 point, 14 weight.
pub fn ba_local_jacobian(cam: &[f64; 11], x: &[f64; 3], w: f64, feat: &[f64; 2]) -> [[f64; 15]; 2] {
    ba_local_jacobian_checked(cam, x, w, feat).expect("the BA residual is reversible")
}

/// [`ba_local_jacobian`], returning the `InvertibilityError` of a failed check instead of
/// panicking.
pub fn ba_local_jacobian_checked(
    cam: &[f64; 11],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> Result<[[f64; 15]; 2], InvertibilityError> {
    let (mut out, mut c, mut xx, mut ww) = ([0.0; 2], *cam, *x, w);
    ba_residual(&mut out, &mut c, &mut xx, &mut ww, feat)?;
    let mut gout = [
        GVar::with_grad(out[0], [1.0, 0.0]),
        GVar::with_grad(out[1], [0.0, 1.0]),
    ];
    let mut gc: [GVar<f64, [f64; 2]>; 11] = cam.map(GVar::new);
    let mut gx: [GVar<f64, [f64; 2]>; 3] = x.map(GVar::new);
    let mut gw: GVar<f64, [f64; 2]> = GVar::new(w);
    ba_residual_inv(&mut gout, &mut gc, &mut gx, &mut gw, feat)?;
    let mut j = [[0.0; 15]; 2];
    for r in 0..2 {
        for (k, v) in gc.iter().enumerate() {
            j[r][k] = v.g[r];
        }
        for (k, v) in gx.iter().enumerate() {
            j[r][11 + k] = v.g[r];
        }
        j[r][14] = gw.g[r];
    }
    Ok(j)
}

/// `out += 1 − w²`: the weight residual of one observation (Zach's robustifier term).
#[reversible(loss = out)]
pub fn zach_residual<T: RevReal>(out: &mut T, w: &mut T) {
    out += 1.0;
    out -= square(w);
}

/// A bundle-adjustment instance after replication (benchmarks/README.md §BA).
#[derive(Clone, Debug)]
pub struct BaInput {
    /// Cameras.
    pub n: usize,
    /// Points.
    pub m: usize,
    /// Observations.
    pub p: usize,
    /// `n` cameras of 11 parameters.
    pub cams: Vec<[f64; 11]>,
    /// `m` points.
    pub x: Vec<[f64; 3]>,
    /// `p` weights.
    pub w: Vec<f64>,
    /// `p` (camera, point) pairs.
    pub obs: Vec<(usize, usize)>,
    /// `p` features.
    pub feat: Vec<[f64; 2]>,
}

/// Parses an ADBench BA file: the header `n m p` and one camera, point, weight and feature,
/// replicated as ADBench's readers do (`obs[i] = (i mod n, i mod m)`).
pub fn parse_ba(text: &str) -> Result<BaInput, String> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    if toks.len() != 3 + 11 + 3 + 1 + 2 {
        return Err(format!(
            "BA file: {} tokens; expected 20 (n m p, one camera, point, weight, feature)",
            toks.len()
        ));
    }
    let int = |i: usize, what: &str| {
        toks[i].parse::<usize>().map_err(|e| {
            format!(
                "BA file: {what} `{}` is not a non-negative integer ({e})",
                toks[i]
            )
        })
    };
    let (n, m, p) = (int(0, "n")?, int(1, "m")?, int(2, "p")?);
    if n == 0 || m == 0 {
        return Err(format!("BA file: n = {n}, m = {m}; both must be positive"));
    }
    let mut v = [0.0; 17];
    for (k, slot) in v.iter_mut().enumerate() {
        let t = toks[3 + k];
        *slot = t.parse::<f64>().map_err(|e| {
            format!(
                "BA file: value `{t}` (token {}) is not a number ({e})",
                3 + k
            )
        })?;
    }
    let cam: [f64; 11] = v[..11].try_into().expect("11 numbers");
    let pt: [f64; 3] = v[11..14].try_into().expect("3 numbers");
    Ok(BaInput {
        n,
        m,
        p,
        cams: vec![cam; n],
        x: vec![pt; m],
        w: vec![v[14]; p],
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
        feat: vec![[v[15], v[16]]; p],
    })
}

/// Reads and parses an ADBench BA file.
pub fn read_ba(path: &std::path::Path) -> Result<BaInput, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read BA file {}: {e}", path.display()))?;
    parse_ba(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The shared data directory (`../shared/data/adbench` from the repository root).
pub fn adbench_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/adbench")
}

/// The residual vector `F` (benchmarks/README.md §BA): `2p` reprojection entries, then `p` weight
/// entries, computed with the reversible residuals.
pub fn ba_objective(inp: &BaInput) -> Result<Vec<f64>, InvertibilityError> {
    let p = inp.p;
    let mut f = vec![0.0; 3 * p];
    let (reproj, zach) = f.split_at_mut(2 * p);
    for i in 0..p {
        let (c, q) = inp.obs[i];
        let (mut out, mut cam, mut x, mut w) = ([0.0; 2], inp.cams[c], inp.x[q], inp.w[i]);
        ba_residual(&mut out, &mut cam, &mut x, &mut w, &inp.feat[i])?;
        reproj[2 * i..2 * i + 2].copy_from_slice(&out);
        zach_residual(&mut zach[i], &mut w)?;
    }
    Ok(f)
}

/// The residual vector in plain Rust (the "O" baseline).
pub fn ba_objective_native(inp: &BaInput) -> Vec<f64> {
    let p = inp.p;
    let mut f = vec![0.0; 3 * p];
    for i in 0..p {
        let (c, q) = inp.obs[i];
        let r = ba_residual_native(&inp.cams[c], &inp.x[q], inp.w[i], &inp.feat[i]);
        f[2 * i] = r[0];
        f[2 * i + 1] = r[1];
        f[2 * p + i] = 1.0 - inp.w[i] * inp.w[i];
    }
    f
}

/// A sparse matrix in compressed sparse row form.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Row pointers (`nrows + 1`).
    pub rows: Vec<usize>,
    /// Column of every stored entry.
    pub cols: Vec<usize>,
    /// Value of every stored entry.
    pub vals: Vec<f64>,
}

/// The sparse Jacobian `∂F/∂(cams, X, w)` in ADBench's CSR layout (benchmarks/README.md §BA):
/// `3p` rows, `11n + 3m + p` columns, 15 entries per reprojection row and 1 per weight row.
/// Each observation's 2 × 15 block comes from one batched backward sweep of the reversible
/// residual; each weight entry from the backward sweep of [`zach_residual`].
pub fn ba_jacobian(inp: &BaInput) -> Result<Csr, InvertibilityError> {
    let (n, m, p) = (inp.n, inp.m, inp.p);
    let nnz = 31 * p;
    let mut rows = Vec::with_capacity(3 * p + 1);
    rows.extend((0..=2 * p).map(|r| 15 * r));
    rows.extend((1..=p).map(|i| 30 * p + i));
    let mut cols = vec![0usize; nnz];
    let mut vals = vec![0.0; nnz];
    let wcol = 11 * n + 3 * m;
    let (rcols, zcols) = cols.split_at_mut(30 * p);
    let (rvals, zvals) = vals.split_at_mut(30 * p);
    for i in 0..p {
        let (c, q) = inp.obs[i];
        let j = ba_local_jacobian_checked(&inp.cams[c], &inp.x[q], inp.w[i], &inp.feat[i])?;
        for a in 0..2 {
            let base = 30 * i + 15 * a;
            let (cs, vs) = (&mut rcols[base..base + 15], &mut rvals[base..base + 15]);
            for t in 0..11 {
                cs[t] = 11 * c + t;
            }
            for t in 0..3 {
                cs[11 + t] = 11 * n + 3 * q + t;
            }
            cs[14] = wcol + i;
            vs.copy_from_slice(&j[a]);
        }
        let (mut out, mut w) = (0.0, inp.w[i]);
        zach_residual(&mut out, &mut w)?;
        let mut gout = GVar::with_grad(out, 1.0);
        let mut gw = GVar::new(w);
        zach_residual_inv(&mut gout, &mut gw)?;
        zcols[i] = wcol + i;
        zvals[i] = gw.g;
    }
    Ok(Csr {
        nrows: 3 * p,
        ncols: 11 * n + 3 * m + p,
        rows,
        cols,
        vals,
    })
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| adbench_dir().join("ba/test.txt"));
    let inp = match read_ba(&path) {
        Ok(inp) => inp,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    match ba_jacobian(&inp) {
        Ok(j) => {
            println!(
                "{} x {} Jacobian, {} stored entries; block of observation 0:",
                j.nrows,
                j.ncols,
                j.vals.len()
            );
            println!("{:?}\n{:?}", &j.vals[..15], &j.vals[15..30]);
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
