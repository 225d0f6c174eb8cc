//! The `gmm` eval: log posterior of a Gaussian mixture model with a Wishart prior (ADBench,
//! corrected), and its gradient by the tape.
//!
//! The objective is a sum over data points plus a term of the parameters alone. Its gradient is
//! the sum of the gradients: each batch of points is recorded on its own small tape (reused
//! between batches, one per worker thread) and pulled back, so memory stays bounded by one
//! batch (about 16 MB of records) instead of the whole data set.

use crate::runner::{Runs, timed, timed_json};
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use gradus_tape::{ReverseOptions, Tape};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    d: usize,
    k: usize,
    n: usize,
    x: Vec<Vec<f64>>,
    m: f64,
    gamma: f64,
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
}

/// The problem in flat arrays; the parameters are `[alpha (k), mu (k·d), q (k·d), l (k·d(d−1)/2)]`.
pub struct Gmm {
    d: usize,
    k: usize,
    n: usize,
    m: f64,
    gamma: f64,
    x: Vec<f64>,
    params: Vec<f64>,
}

/// The gradient, in the shapes of the input.
#[derive(Serialize)]
struct Gradient {
    alpha: Vec<f64>,
    mu: Vec<Vec<f64>>,
    q: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
}

/// Points per task in the objective's parallel sum, and at most per tape in the gradient.
const BATCH: usize = 8;

/// Bytes of records per tape that [`Gmm::batch`] aims at.
const BATCH_BYTES: usize = 16 << 20;

fn flatten(rows: &[Vec<f64>], count: usize, len: usize, name: &str) -> Result<Vec<f64>, String> {
    if rows.len() != count || rows.iter().any(|r| r.len() != len) {
        return Err(format!("gmm: {name} must be {count} rows of {len} numbers"));
    }
    Ok(rows.concat())
}

impl Gmm {
    fn new(input: Input) -> Result<Gmm, String> {
        let Input {
            d,
            k,
            n,
            x,
            m,
            gamma,
            alpha,
            mu,
            q,
            l,
        } = input;
        if d == 0 || k == 0 {
            return Err("gmm: d and k must be positive".into());
        }
        if alpha.len() != k {
            return Err(format!("gmm: alpha must have k = {k} numbers"));
        }
        let lsz = d * (d - 1) / 2;
        let x = flatten(&x, n, d, "x")?;
        let mut params = alpha;
        params.extend(flatten(&mu, k, d, "mu")?);
        params.extend(flatten(&q, k, d, "q")?);
        params.extend(flatten(&l, k, lsz, "l")?);
        Ok(Gmm {
            d,
            k,
            n,
            m,
            gamma,
            x,
            params,
        })
    }

    /// Points per tape in the gradient: as many as make about [`BATCH_BYTES`] of records (a
    /// point records about `8 d²` bytes per component), from 1 to [`BATCH`]. At d = 64 and
    /// K = 100 a point records 3.3 MB, and 4 points per tape took 1.00 s against 1.27 s with 8
    /// (one thread); at d = 10 and K = 5, 8 points took 2.1 ms against 2.6 ms with 2 or 32.
    fn batch(&self) -> usize {
        let per_point = self.k * (8 * self.d * self.d + 64 * self.d + 64);
        (BATCH_BYTES / per_point).clamp(1, BATCH)
    }

    fn lsz(&self) -> usize {
        self.d * (self.d - 1) / 2
    }

    /// Splits flat parameters into `(alpha, mu, q, l)`.
    fn split<'a, S>(&self, p: &'a [S]) -> (&'a [S], &'a [S], &'a [S], &'a [S]) {
        let (alpha, rest) = p.split_at(self.k);
        let (mu, rest) = rest.split_at(self.k * self.d);
        let (q, l) = rest.split_at(self.k * self.d);
        (alpha, mu, q, l)
    }

    /// `exp q` and the row sums of `q`.
    fn diagonals<S: Real>(&self, q: &[S]) -> (Vec<S>, Vec<S>) {
        let qdiag = q.iter().map(|v| v.exp()).collect();
        let sum_qs = q.chunks(self.d).map(|r| r.iter().copied().sum()).collect();
        (qdiag, sum_qs)
    }

    /// Σ over the points `xs` (rows of `d`) of logsumexpₖ(αₖ + Σ qₖ − ½‖Qₖ (x − μₖ)‖²).
    /// Each row of the triangular product and the squared norm is one [`Real::dot`], which
    /// the tape records as one node.
    fn points<S: Real>(&self, p: &[S], xs: &[f64]) -> S {
        let (alpha, mu, q, l) = self.split(p);
        self.points_by_rows(alpha, mu, q, &self.by_rows(l), xs)
    }

    /// [`points`](Self::points) of the gradient's layout of the parameters: `alpha`, `mu`, then
    /// per component its rows `i` of `Qₖ` from the left to the diagonal, `[lᵢ₀ … lᵢ,ᵢ₋₁, qᵢ]`
    /// (`d(d+1)/2` numbers; the diagonal entry is `exp qᵢ`). Each row of the triangular
    /// product `Qₖ(x − μₖ)` is then one `dot` of a row (with `exp qᵢ` folded into the last
    /// operand's coefficient) and `x − μₖ` up to `i`, both sides consecutive nodes on the tape.
    /// The sums are those of [`points_by_rows`](Self::points_by_rows), in the same order.
    fn points_tri<S: Real>(&self, p: &[S], xs: &[f64]) -> S {
        let (d, k) = (self.d, self.k);
        let tsz = d * (d + 1) / 2;
        let (alpha, rest) = p.split_at(k);
        let (mu, tri) = rest.split_at(k * d);
        let diagonal = |ik: usize, i: usize| ik * tsz + i * (i + 1) / 2 + i;
        let mut rows = tri.to_vec();
        let mut base = Vec::with_capacity(k);
        for (ik, &a) in alpha.iter().enumerate() {
            let mut sum_q = S::zero();
            for i in 0..d {
                let at = diagonal(ik, i);
                sum_q += tri[at];
                rows[at] = tri[at].exp();
            }
            base.push(a + sum_q);
        }
        let mut xc = vec![S::zero(); d];
        let mut qx = vec![S::zero(); d];
        let mut main = vec![S::zero(); k];
        let mut total = S::zero();
        for x in xs.chunks(d) {
            for ik in 0..k {
                let mu = &mu[ik * d..][..d];
                for j in 0..d {
                    xc[j] = S::from_f64(x[j]) - mu[j];
                }
                for (i, qxi) in qx.iter_mut().enumerate() {
                    *qxi = S::dot(&rows[ik * tsz + i * (i + 1) / 2..][..i + 1], &xc[..i + 1]);
                }
                main[ik] = base[ik] - S::from_f64(0.5) * S::dot(&qx, &qx);
            }
            total += logsumexp(&main);
        }
        total
    }

    /// [`points`](Self::points) with the strictly lower triangles given row by row (see
    /// [`by_rows`](Self::by_rows)).
    fn points_by_rows<S: Real>(
        &self,
        alpha: &[S],
        mu: &[S],
        q: &[S],
        lrows: &[S],
        xs: &[f64],
    ) -> S {
        let d = self.d;
        let (qdiag, sum_qs) = self.diagonals(q);
        let lsz = self.lsz();
        let mut xc = vec![S::zero(); d];
        let mut qx = vec![S::zero(); d];
        let mut main = vec![S::zero(); self.k];
        let base: Vec<S> = alpha.iter().zip(&sum_qs).map(|(&a, &s)| a + s).collect();
        let mut total = S::zero();
        for x in xs.chunks(d) {
            for ik in 0..self.k {
                let (mu, qd) = (&mu[ik * d..][..d], &qdiag[ik * d..][..d]);
                for j in 0..d {
                    xc[j] = S::from_f64(x[j]) - mu[j];
                }
                for (i, qxi) in qx.iter_mut().enumerate() {
                    let below = if i == 0 {
                        S::zero()
                    } else {
                        S::dot(&lrows[ik * lsz + i * (i - 1) / 2..][..i], &xc[..i])
                    };
                    // The product last, so that the tape folds the sum into its record.
                    *qxi = below + qd[i] * xc[i];
                }
                main[ik] = base[ik] - S::from_f64(0.5) * S::dot(&qx, &qx);
            }
            total += logsumexp(&main);
        }
        total
    }

    /// The strictly lower triangles of the `Qₖ`, stored column by column in `l`, row by row
    /// instead: row `i` of component `k` (its `i` entries left of the diagonal) starts at
    /// `k·lsz + i(i−1)/2`.
    fn by_rows<S: Real>(&self, l: &[S]) -> Vec<S> {
        let (d, lsz) = (self.d, self.lsz());
        let column_start = |j: usize| j * (2 * d - j - 1) / 2;
        let mut out = Vec::with_capacity(l.len());
        for lk in l.chunks_exact(lsz.max(1)) {
            for i in 0..d {
                out.extend((0..i).map(|j| lk[column_start(j) + i - j - 1]));
            }
        }
        out
    }

    /// The terms without data: −n·logsumexp(α), the Wishart prior and the constants.
    fn rest<S: Real>(&self, p: &[S]) -> S {
        let (d, k, n) = (self.d as f64, self.k as f64, self.n as f64);
        let (alpha, _, q, l) = self.split(p);
        let (qdiag, sum_qs) = self.diagonals(q);
        let constant = -n * d * 0.5 * (2.0 * std::f64::consts::PI).ln();
        let nw = d + self.m + 1.0;
        let c = nw * d * (self.gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_distrib(0.5 * nw, self.d);
        let mut out = S::zero();
        for ik in 0..self.k {
            let frobenius = sqnorm(&qdiag[ik * self.d..][..self.d])
                + sqnorm(&l[ik * self.lsz()..][..self.lsz()]);
            out += S::from_f64(0.5 * self.gamma * self.gamma) * frobenius
                - S::from_f64(self.m) * sum_qs[ik];
        }
        S::from_f64(constant + k * c) - out - S::from_f64(n) * logsumexp(alpha)
    }

    /// The log posterior (points summed in parallel).
    pub fn objective(&self) -> f64 {
        let data: f64 = self
            .x
            .par_chunks(self.d * BATCH)
            .map(|xs| self.points(&self.params, xs))
            .sum();
        data + self.rest(&self.params)
    }

    /// The gradient with respect to the flat parameters: one tape per batch of points, the
    /// batches spread over the rayon pool, the per-batch gradients summed.
    ///
    /// The tape's inputs hold each `Qₖ` row by row with its diagonal entry (see
    /// [`points_tri`](Self::points_tri)), so that each row of the triangular product is one
    /// `dot` whose both sides are dense ranges (8 bytes per operand, an `axpy` in the reverse
    /// sweep) rather than a list of slots gathered from the columns plus a product.
    pub fn gradient(&self) -> Vec<f64> {
        let np = self.params.len();
        let (k, d, lsz) = (self.k, self.d, self.lsz());
        let tsz = d * (d + 1) / 2;
        let (alpha, mu, q, l) = self.split(&self.params);
        // Where entry (i, j < i) of the strictly lower triangle of component `ik` is in `l`.
        let column = |ik: usize, i: usize, j: usize| ik * lsz + j * (2 * d - j - 1) / 2 + i - j - 1;
        let mut packed = [alpha, mu].concat();
        for ik in 0..k {
            for i in 0..d {
                packed.extend((0..i).map(|j| l[column(ik, i, j)]));
                packed.push(q[ik * d + i]);
            }
        }
        let new_tape = || Tape::with_options(ReverseOptions::sequential());
        let data = self
            .x
            .par_chunks(self.d * self.batch())
            .fold(
                || (new_tape(), vec![0.0; np], vec![0.0; np]),
                |(mut tape, mut acc, mut g), xs| {
                    tape.grad_into(&packed, |p| self.points_tri(p, xs), &mut g);
                    acc.iter_mut().zip(&g).for_each(|(a, b)| *a += b);
                    (tape, acc, g)
                },
            )
            .map(|(_, acc, _)| acc)
            .reduce(
                || vec![0.0; np],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
                    a
                },
            );
        // The data's gradient back to the parameters' layout.
        let mut data_flat = data[..k + k * d].to_vec();
        data_flat.resize(np, 0.0);
        let (qstart, lstart) = (k + k * d, k + 2 * k * d);
        for ik in 0..k {
            let tri = &data[k + k * d + ik * tsz..][..tsz];
            for i in 0..d {
                let row = &tri[i * (i + 1) / 2..][..i + 1];
                for (j, &g) in row[..i].iter().enumerate() {
                    data_flat[lstart + column(ik, i, j)] = g;
                }
                data_flat[qstart + ik * d + i] = row[i];
            }
        }
        let (_, mut g) = gradus_tape::grad(&self.params, |p| self.rest(p));
        g.iter_mut().zip(&data_flat).for_each(|(a, b)| *a += b);
        g
    }

    fn shaped(&self, g: &[f64]) -> Gradient {
        let (alpha, mu, q, l) = self.split(g);
        let rows = |v: &[f64], len: usize| {
            if len == 0 {
                vec![Vec::new(); self.k]
            } else {
                v.chunks(len).map(<[f64]>::to_vec).collect()
            }
        };
        Gradient {
            alpha: alpha.to_vec(),
            mu: rows(mu, self.d),
            q: rows(q, self.d),
            l: rows(l, self.lsz()),
        }
    }
}

fn sqnorm<S: Real>(v: &[S]) -> S {
    v.iter().map(|&x| x * x).sum()
}

/// log Σ exp xᵢ with the max trick (the maximum selected by value). `x` must not be empty.
/// The maximum enters as a constant: the function does not depend on it (its derivative with
/// respect to it is zero), so on the tape each `exp(xᵢ − max)` folds into a coefficient.
pub fn logsumexp<S: Real>(x: &[S]) -> S {
    let mx = x[1..].iter().fold(x[0], |m, &v| if v > m { v } else { m });
    let mx = S::from_f64(mx.to_f64());
    x.iter().map(|&v| (v - mx).exp()).sum::<S>().ln() + mx
}

/// The log of the multivariate gamma function Γ_p(a).
fn log_gamma_distrib(a: f64, p: usize) -> f64 {
    let pf = p as f64;
    0.25 * pf * (pf - 1.0) * std::f64::consts::PI.ln()
        + (1..=p)
            .map(|j| Real::lgamma(a + 0.5 * (1.0 - j as f64)))
            .sum::<f64>()
}

/// Runs `objective` or `jacobian`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let gmm = Gmm::new(parse("gmm", input)?)?;
    match function {
        "objective" => timed_json(input, || gmm.objective()),
        "jacobian" => {
            let (g, ns) = timed(Runs::of(input)?, || gmm.gradient());
            Ok((crate::to_json(&gmm.shaped(&g))?, ns))
        }
        _ => Err(unknown_function("gmm", function)),
    }
}
