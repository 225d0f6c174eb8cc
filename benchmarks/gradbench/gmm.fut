-- GradBench `gmm`: the log posterior of a Gaussian mixture model with a Wishart prior on the
-- precision matrices (ADBench's GMM with GradBench's corrections), `objective`, and its
-- gradient with respect to (alpha, mu, q, l) by one vjp, `jacobian`.
--
-- Component k has the lower-triangular Q_k with diagonal exp q_k and strictly-lower entries
-- l_k, column by column; its precision matrix is Q_kᵀ Q_k.

def sqnorm [n] (v: [n]f64) : f64 = f64.sum (map (\a -> a * a) v)

def logsumexp [n] (v: [n]f64) : f64 =
  let mx = f64.maximum v
  in mx + f64.log (f64.sum (map (\a -> f64.exp (a - mx)) v))

-- log of the multivariate gamma function Γ_d(a)
def log_gamma_distrib (a: f64) (d: i64) : f64 =
  let dd = f64.i64 d
  in 0.25 * dd * (dd - 1) * f64.log f64.pi
     + f64.sum (map (\j -> f64.lgamma (a + 0.5 * (1 - f64.i64 j))) (1...d))

-- The dense Q of one component; entry (r, c), r > c, is l[c·(d-1) - c·(c-1)/2 + (r-c-1)].
def unpack_q [d] [s] (q: [d]f64) (l: [s]f64) : [d][d]f64 =
  tabulate_2d d d (\r c ->
    if r == c then f64.exp q[r]
    else if r < c then 0
    else l[c * (d - 1) - c * (c - 1) / 2 + (r - c - 1)])

-- Q v for the lower-triangular Q: row r reads entries 0..r only.
def matvec [d] (m: [d][d]f64) (v: [d]f64) : [d]f64 =
  tabulate d (\r -> loop acc = 0 for c < r + 1 do acc + m[r, c] * v[c])

def log_posterior [k] [d] [s] [n] (alpha: [k]f64) (mu: [k][d]f64) (q: [k][d]f64) (l: [k][s]f64)
                                  (x: [n][d]f64) (gamma: f64) (m: i64) : f64 =
  let qs = map2 unpack_q q l
  let sum_qs = map f64.sum q
  let data_term =
    f64.sum (map (\xi ->
                    logsumexp (map4 (\a mu_k q_k sq ->
                                       a + sq - 0.5 * sqnorm (matvec q_k (map2 (-) xi mu_k)))
                                    alpha mu qs sum_qs))
                 x)
  let nf = f64.i64 n
  let df = f64.i64 d
  let likelihood = data_term - nf * logsumexp alpha - nf * df * 0.5 * f64.log (2 * f64.pi)
  -- The Wishart prior with V = I/γ² and n' = d + m + 1 degrees of freedom.
  let n' = f64.i64 (d + m + 1)
  let c = n' * df * (f64.log gamma - 0.5 * f64.log 2) - log_gamma_distrib (0.5 * n') d
  let frobenius = map2 (\q_k l_k -> sqnorm (map f64.exp q_k) + sqnorm l_k) q l
  let prior = f64.sum (map2 (\fr sq -> 0.5 * gamma * gamma * fr - f64.i64 m * sq) frobenius sum_qs)
  in likelihood - prior + f64.i64 k * c

entry objective [k] [d] [s] [n] (alpha: [k]f64) (mu: [k][d]f64) (q: [k][d]f64) (l: [k][s]f64)
                                (x: [n][d]f64) (gamma: f64) (m: i64) : f64 =
  log_posterior alpha mu q l x gamma m

-- One component, one point at its mean, d = 1: the likelihood is -½ log 2π + q and the prior
-- (n' = 2) is 2·(log γ - ½ log 2) - lgamma 1 - ½ γ² e^{2q} + m q: -2.1120857...
-- ==
-- entry: objective
-- input { [0.0] [[0.0]] [[0.0]] empty([1][0]f64) [[0.0]] 1.0 0i64 }
-- output { -2.112085713764618 }

entry jacobian [k] [d] [s] [n] (alpha: [k]f64) (mu: [k][d]f64) (q: [k][d]f64) (l: [k][s]f64)
                               (x: [n][d]f64) (gamma: f64) (m: i64)
                               : ([k]f64, [k][d]f64, [k][d]f64, [k][s]f64) =
  vjp (\(a, mu', q', l') -> log_posterior a mu' q' l' x gamma m) (alpha, mu, q, l) 1
