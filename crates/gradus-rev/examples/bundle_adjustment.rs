//! Bundle adjustment, written reversibly (REVERSIBLE.md §11.2; the objective of
//! BENCHMARKS.md §2): the reprojection residual `w (proj − feature)` of one observation, with
//! the Rodrigues rotation, radial distortion and projection computed into stack ancillas in a
//! routine and uncomputed. The 2 × 15 local Jacobian (11 camera + 3 point + 1 weight
//! parameters) comes from one backward sweep with a batched gradient field
//! `GVar<f64, [f64; 2]>`, without allocation. (The driver that reads the ADBench files and
//! assembles the CSR Jacobian is not written yet.)

#![allow(dead_code, clippy::needless_range_loop)]

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
    let (mut out, mut c, mut xx, mut ww) = ([0.0; 2], *cam, *x, w);
    ba_residual(&mut out, &mut c, &mut xx, &mut ww, feat).expect("reversible");
    let mut gout = [
        GVar::with_grad(out[0], [1.0, 0.0]),
        GVar::with_grad(out[1], [0.0, 1.0]),
    ];
    let mut gc: [GVar<f64, [f64; 2]>; 11] = cam.map(GVar::new);
    let mut gx: [GVar<f64, [f64; 2]>; 3] = x.map(GVar::new);
    let mut gw: GVar<f64, [f64; 2]> = GVar::new(w);
    ba_residual_inv(&mut gout, &mut gc, &mut gx, &mut gw, feat).expect("reversible");
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
    j
}

fn main() {
    let cam = [
        0.1, -0.2, 0.05, 0.3, -0.1, -5.0, 400.0, 10.0, -5.0, 1e-3, 1e-6,
    ];
    let x = [0.5, 0.2, 1.0];
    let j = ba_local_jacobian(&cam, &x, 0.9, &[12.0, -3.0]);
    println!("{j:?}");
}
