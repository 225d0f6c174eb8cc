-- ADBench GMM: negative log-likelihood of a Gaussian mixture with a Wishart prior
-- (benchmarks/README.md §GMM), its gradient by reverse mode, and by forward mode.
--
-- Parameters: alphas [K], means [K][d], icf [K][S] with S = d(d+1)/2 (log-diagonal first, then
-- the strictly-lower entries column by column), data x [n][d], Wishart gamma and m.
-- The gradient is (d alphas, d means, d icf), which flattened in that order is ADBench's
-- gradient vector.

def sqnorm [n] (v: [n]f64) : f64 = f64.sum (map (\a -> a * a) v)

def logsumexp [n] (v: [n]f64) : f64 =
  let mx = f64.maximum v
  in mx + f64.log (f64.sum (map (\a -> f64.exp (a - mx)) v))

-- log of the multivariate gamma function Γ_d(a)
def log_gamma_distrib (a: f64) (d: i64) : f64 =
  let dd = f64.i64 d
  in 0.25 * dd * (dd - 1) * f64.log f64.pi
     + f64.sum (map (\j -> f64.lgamma (a + 0.5 * (1 - f64.i64 j))) (1...d))

-- The dense lower-triangular Q of one component; entry (r, c), r > c, sits at position
-- d + c·(d-1) - c·(c-1)/2 + (r-c-1) of the packed row.
def unpack_q [d] [s] (row: [s]f64) : [d][d]f64 =
  tabulate_2d d d (\r c ->
    if r == c then f64.exp row[r]
    else if r < c then 0
    else row[d + c * (d - 1) - c * (c - 1) / 2 + (r - c - 1)])

-- Q v for the lower-triangular Q: row r only reads entries 0..r, so half the multiply-adds
-- of a dense product. The carried sum is updated by addition, so reverse mode recovers it
-- backwards instead of checkpointing it.
def matvec [d] (m: [d][d]f64) (v: [d]f64) : [d]f64 =
  tabulate d (\r -> loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c])

def log_wishart_prior [k] [d] [s] (qs: [k][d][d]f64) (sum_qs: [k]f64) (icf: [k][s]f64)
                                   (gamma: f64) (m: i64) : f64 =
  let n = f64.i64 (d + m + 1)
  let c = n * f64.i64 d * (f64.log gamma - 0.5 * f64.log 2) - log_gamma_distrib (0.5 * n) d
  let frobenius = map2 (\q row ->
                          f64.sum (map (\j -> q[j, j] * q[j, j]) (iota d))
                          + sqnorm row[d:s]) qs icf
  let terms = map2 (\fr sq -> 0.5 * gamma * gamma * fr - f64.i64 m * sq) frobenius sum_qs
  in f64.sum terms - f64.i64 k * c

def gmm_objective [k] [d] [s] [n] (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64)
                                  (x: [n][d]f64) (gamma: f64) (m: i64) : f64 =
  let qs = map unpack_q icf
  let sum_qs = map (\row -> f64.sum row[0:d]) icf
  let data_term =
    f64.sum (map (\xi ->
                    logsumexp (map4 (\a mu q sq ->
                                       a + sq - 0.5 * sqnorm (matvec q (map2 (-) xi mu)))
                                    alphas means qs sum_qs))
                 x)
  let nf = f64.i64 n
  let df = f64.i64 d
  in data_term - nf * logsumexp alphas - nf * df * 0.5 * f64.log (2 * f64.pi)
     + log_wishart_prior qs sum_qs icf gamma m

-- ==
-- entry: objective
-- input @ data/gmm_test.in
-- output { 8.073804080 }
-- input @ data/gmm_1k_d2_K5.in
-- output { -5240.590563 }

entry objective [k] [d] [s] [n] (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64)
                                (x: [n][d]f64) (wishart_gamma: f64) (wishart_m: i64) : f64 =
  gmm_objective alphas means icf x wishart_gamma wishart_m

-- The derivative in one direction (forward mode): one column of the gradient per one-hot
-- direction.
entry directional [k] [d] [s] [n] (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64)
                                  (x: [n][d]f64) (wishart_gamma: f64) (wishart_m: i64)
                                  (dalphas: [k]f64) (dmeans: [k][d]f64) (dicf: [k][s]f64) : f64 =
  jvp (\(a, mu, q) -> gmm_objective a mu q x wishart_gamma wishart_m)
      (alphas, means, icf) (dalphas, dmeans, dicf)

-- ==
-- entry: gradient_fwd
-- input @ data/gmm_test.in
-- output { [1.086628555e-01, -7.412700395e-01, 6.326071840e-01]
--          [[1.116925765e+00, 1.633330136e-01], [-2.199898241e-02, 2.277782923e-01],
--           [1.209630256e+00, -6.063759207e-02]]
--          [[2.585299941e+00, 1.126326945e-01, 3.857443098e-01],
--           [7.351805732e-02, 5.418363627e+00, -3.214944097e-01],
--           [1.718923098e+00, 8.600910908e-01, -9.946409305e-01]] }

-- The whole gradient in forward mode: one jvp per parameter, K(d+1)(d+2)/2 passes.
entry gradient_fwd [k] [d] [s] [n] (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64)
                                   (x: [n][d]f64) (wishart_gamma: f64) (wishart_m: i64)
                                   : ([k]f64, [k][d]f64, [k][s]f64) =
  let f = \(a, mu, q) -> gmm_objective a mu q x wishart_gamma wishart_m
  let at = (alphas, means, icf)
  let za = replicate k 0f64
  let zm = replicate k (replicate d 0f64)
  let zq = replicate k (replicate s 0f64)
  let ga = tabulate k (\i -> jvp f at (copy za with [i] = 1, zm, zq))
  let gm = tabulate_2d k d (\i j -> jvp f at (za, copy zm with [i, j] = 1, zq))
  let gq = tabulate_2d k s (\i j -> jvp f at (za, zm, copy zq with [i, j] = 1))
  in (ga, gm, gq)

-- ==
-- entry: gradient
-- input @ data/gmm_test.in
-- output { [1.086628555e-01, -7.412700395e-01, 6.326071840e-01]
--          [[1.116925765e+00, 1.633330136e-01], [-2.199898241e-02, 2.277782923e-01],
--           [1.209630256e+00, -6.063759207e-02]]
--          [[2.585299941e+00, 1.126326945e-01, 3.857443098e-01],
--           [7.351805732e-02, 5.418363627e+00, -3.214944097e-01],
--           [1.718923098e+00, 8.600910908e-01, -9.946409305e-01]] }

-- The whole gradient in reverse mode: one vjp.
entry gradient [k] [d] [s] [n] (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64)
                               (x: [n][d]f64) (wishart_gamma: f64) (wishart_m: i64)
                               : ([k]f64, [k][d]f64, [k][s]f64) =
  vjp (\(a, mu, q) -> gmm_objective a mu q x wishart_gamma wishart_m) (alphas, means, icf) 1
