//! The ADBench Gaussian-mixture objective written reversibly (the exact objective, `icf` packing
//! and file format are in benchmarks/README.md §GMM).
//!
//! Per point, each component's inner term `α_k + Σ q_k − ½‖Q_k (x_i − μ_k)‖²` is computed
//! into an ancilla (the difference `y`, the product `z = Q_k y` and its squared norm in a
//! routine that is uncomputed right after), the reversible `logsumexp` of the stdlib adds the
//! point's contribution to the output, and the inner terms are uncomputed before the next
//! point. `exp q_k` and `Σ q_k` are computed once per call and uncomputed at the end. The
//! gradient is `gmm_objective_grad` (or, without allocation beyond the ancillas, the
//! objective followed by `gmm_objective_inv` on `GVar`s).
//!
//! Extra memory of a gradient: the ancillas, `K(d + 2) + 2d` scalars, against the program's
//! `n·d + K(d+1)(d+2)/2` numbers of data and parameters.
//!
//! Run with `cargo run --release -p gradus-rev --example gmm [path/to/gmm_file.txt]`.

#![allow(dead_code, clippy::result_large_err)]

use gradus_rev::Real;
use gradus_rev::prelude::*;
use gradus_rev::stdlib;

/// Position of `Q[r][c]` (`r > c`) in a packed `icf` row of dimension `d` (benchmarks/README.md
/// §GMM: the strictly-lower triangle column by column, after the `d` diagonal logs).
#[inline(always)]
pub fn lower_index(d: usize, r: usize, c: usize) -> usize {
    d + c * (d - 1) - c * c.saturating_sub(1) / 2 + (r - c - 1)
}

/// The parameter-free part of the objective: `−(n d / 2) ln 2π − K · C`, with
/// `C = n′ d (ln γ − ½ ln 2) − ln Γ_d(n′/2)` and `n′ = d + m + 1`.
pub fn gmm_constant(d: usize, k: usize, n: usize, gamma: f64, m: usize) -> f64 {
    let nw = (d + m + 1) as f64;
    let df = d as f64;
    let mut lgamma_d = 0.25 * df * (df - 1.0) * std::f64::consts::PI.ln();
    for j in 1..=d {
        lgamma_d += Real::lgamma(0.5 * nw + 0.5 * (1.0 - j as f64));
    }
    let c = nw * df * (gamma.ln() - 0.5 * std::f64::consts::LN_2) - lgamma_d;
    -(n as f64) * df * 0.5 * (2.0 * std::f64::consts::PI).ln() - k as f64 * c
}

/// `e += E(alphas, means, icf)` for points `x` (`n × d`, row-major, constant data), Wishart
/// parameters `gamma` and `m`. `alphas` has `K` entries, `means` `K·d`, `icf` `K·d(d+1)/2`.
#[reversible(loss = e, atol = 1e-6)]
pub fn gmm_objective<T: RevReal>(
    e: &mut T,
    alphas: &mut [T],
    means: &mut [T],
    icf: &mut [T],
    x: &[f64],
    d: usize,
    gamma: f64,
    m: usize,
) {
    let k = alphas.len();
    let s = d * (d + 1) / 2;
    let n = x.len() / d;
    routine!(per_component => {
        let mut qsum = vec![T::zero(); k];
        let mut eq = vec![T::zero(); k * d];
        for c in 0..k {
            for j in 0..d {
                qsum[c] += icf[c * s + j];
                eq[c * d + j] += exp(icf[c * s + j]);
            }
        }
    });
    let mut inner = vec![T::zero(); k];
    let mut y = vec![T::zero(); d];
    let mut z = vec![T::zero(); d];
    for i in 0..n {
        routine! {
            for c in 0..k {
                routine! {
                    let mut sq = T::zero();
                    for j in 0..d {
                        y[j] += constant!(T::from_f64(x[i * d + j])) - means[c * d + j];
                    }
                    for j in 0..d {
                        z[j] += eq[c * d + j] * y[j];
                    }
                    for col in 0..d {
                        for r in (col + 1)..d {
                            z[r] += icf[c * s + lower_index(d, r, col)] * y[col];
                        }
                    }
                    for j in 0..d {
                        sq += square(z[j]);
                    }
                }
                inner[c] += alphas[c] + qsum[c];
                inner[c] -= sq * 0.5;
                unroutine!();
            }
        }
        stdlib::logsumexp(e, inner);
        unroutine!();
    }
    // −n · lse(α)
    routine! {
        let mut la = T::zero();
        stdlib::logsumexp(la, alphas);
    }
    e -= la * constant!(T::from_f64(n as f64));
    unroutine!();
    // Wishart prior: ½ γ² ‖Q_k‖²_F − m Σ q_k, summed over components.
    routine! {
        let mut fro = T::zero();
        for c in 0..k {
            for j in 0..d {
                fro += square(eq[c * d + j]);
            }
            for t in d..s {
                fro += square(icf[c * s + t]);
            }
        }
    }
    e += fro * constant!(T::from_f64(0.5 * gamma * gamma));
    unroutine!();
    for c in 0..k {
        e -= qsum[c] * constant!(T::from_f64(m as f64));
    }
    e += constant!(T::from_f64(gmm_constant(d, k, n, gamma, m)));
    unroutine!(per_component);
}

/// The same objective in plain Rust over any [`Real`] (the "O" baseline, and the program the
/// tape and forward mode differentiate as independent references). `p` is `alphas`, `means`,
/// `icf` concatenated (the gradient order of benchmarks/README.md §GMM).
pub fn gmm_native<R: Real>(p: &[R], x: &[f64], d: usize, k: usize, gamma: f64, m: usize) -> R {
    let s = d * (d + 1) / 2;
    let n = x.len() / d;
    let (alphas, rest) = p.split_at(k);
    let (means, icf) = rest.split_at(k * d);
    let lse = |v: &[R]| {
        let mut mx = v[0];
        for &t in &v[1..] {
            if t > mx {
                mx = t;
            }
        }
        let mut acc = R::zero();
        for &t in v {
            acc += (t - mx).exp();
        }
        acc.ln() + mx
    };
    let qsum: Vec<R> = (0..k)
        .map(|c| icf[c * s..c * s + d].iter().fold(R::zero(), |a, &q| a + q))
        .collect();
    let mut inner = vec![R::zero(); k];
    let mut z = vec![R::zero(); d];
    let mut y = vec![R::zero(); d];
    let mut total = R::zero();
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                y[j] = R::from_f64(x[i * d + j]) - means[c * d + j];
                z[j] = icf[c * s + j].exp() * y[j];
            }
            for col in 0..d {
                for r in col + 1..d {
                    z[r] += icf[c * s + lower_index(d, r, col)] * y[col];
                }
            }
            let sq = z.iter().fold(R::zero(), |a, &t| a + t * t);
            inner[c] = alphas[c] + qsum[c] - R::from_f64(0.5) * sq;
        }
        total += lse(&inner);
    }
    total -= R::from_f64(n as f64) * lse(alphas);
    let mut fro = R::zero();
    for c in 0..k {
        for j in 0..d {
            fro += icf[c * s + j].exp().square();
        }
        for t in d..s {
            fro += icf[c * s + t].square();
        }
    }
    let msum = qsum.iter().fold(R::zero(), |a, &q| a + q);
    total + R::from_f64(0.5 * gamma * gamma) * fro - R::from_f64(m as f64) * msum
        + R::from_f64(gmm_constant(d, k, n, gamma, m))
}

/// A GMM instance (benchmarks/README.md §GMM): parameters and constant data.
#[derive(Clone, Debug)]
pub struct GmmInput {
    /// Dimension.
    pub d: usize,
    /// Components.
    pub k: usize,
    /// `K` log-weights.
    pub alphas: Vec<f64>,
    /// `K × d` means.
    pub means: Vec<f64>,
    /// `K × d(d+1)/2` packed inverse-covariance factors.
    pub icf: Vec<f64>,
    /// `n × d` points (replicated in replicate-point mode).
    pub x: Vec<f64>,
    /// Wishart γ.
    pub gamma: f64,
    /// Wishart m.
    pub m: usize,
}

impl GmmInput {
    /// `alphas`, `means`, `icf` concatenated.
    pub fn params(&self) -> Vec<f64> {
        [&self.alphas[..], &self.means, &self.icf].concat()
    }
}

/// Parses an ADBench GMM file (benchmarks/README.md §GMM), detecting replicate-point mode by the
/// number of tokens left after `icf`.
pub fn parse_gmm(text: &str) -> Result<GmmInput, String> {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let mut pos = 0;
    let mut next = |what: &str| -> Result<&str, String> {
        let t = toks
            .get(pos)
            .copied()
            .ok_or_else(|| format!("GMM file ends early: expected {what} (token {pos})"))?;
        pos += 1;
        Ok(t)
    };
    let int = |t: &str, what: &str| {
        t.parse::<usize>()
            .map_err(|e| format!("GMM file: {what} `{t}` is not a non-negative integer ({e})"))
    };
    let d = int(next("d")?, "d")?;
    let k = int(next("K")?, "K")?;
    let n = int(next("n")?, "n")?;
    if d == 0 || k == 0 {
        return Err(format!("GMM file: d = {d}, K = {k}; both must be positive"));
    }
    let s = d * (d + 1) / 2;
    let mut nums = |count: usize, what: &str| -> Result<Vec<f64>, String> {
        (0..count)
            .map(|_| {
                let t = next(what)?;
                t.parse::<f64>()
                    .map_err(|e| format!("GMM file: {what} value `{t}` is not a number ({e})"))
            })
            .collect()
    };
    let alphas = nums(k, "alphas")?;
    let means = nums(k * d, "means")?;
    let icf = nums(k * s, "icf")?;
    let left = toks.len() - (3 + k + k * d + k * s);
    let x = if left == n * d + 2 {
        nums(n * d, "points")?
    } else if left == d + 2 {
        let p = nums(d, "point")?;
        p.iter().copied().cycle().take(n * d).collect()
    } else {
        return Err(format!(
            "GMM file: {left} tokens after icf; expected {} (all points) or {} (replicate mode)",
            n * d + 2,
            d + 2
        ));
    };
    let gamma = next("gamma")?
        .parse::<f64>()
        .map_err(|e| format!("GMM file: gamma is not a number ({e})"))?;
    let m = int(next("m")?, "m")?;
    Ok(GmmInput {
        d,
        k,
        alphas,
        means,
        icf,
        x,
        gamma,
        m,
    })
}

/// Reads and parses an ADBench GMM file.
pub fn read_gmm(path: &std::path::Path) -> Result<GmmInput, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read GMM file {}: {e}", path.display()))?;
    parse_gmm(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The shared data directory (`../shared/data/adbench` from the repository root).
pub fn adbench_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/adbench")
}

/// Objective and full gradient (benchmarks/README.md §GMM order) with the reversible program.
pub fn gmm_rev_gradient(inp: &GmmInput) -> Result<(f64, Vec<f64>), InvertibilityError> {
    let (mut e, mut a, mut mu, mut q) =
        (0.0, inp.alphas.clone(), inp.means.clone(), inp.icf.clone());
    let (_, ga, gm, gq) = gmm_objective_grad(
        &mut e, &mut a, &mut mu, &mut q, &inp.x, inp.d, inp.gamma, inp.m,
    )?;
    Ok((e, [ga, gm, gq].concat()))
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| adbench_dir().join("gmm/test.txt"));
    match read_gmm(&path).and_then(|inp| gmm_rev_gradient(&inp).map_err(|e| e.to_string())) {
        Ok((e, g)) => {
            println!("E = {e:.9e}");
            for v in g {
                println!("{v:.9e}");
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
