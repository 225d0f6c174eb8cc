-- The ADBench GMM objective (benchmarks/README.md §GMM, gamma = 1, m = 0) at d = 3, K = 2, n = 4:
-- gradient in alphas, means and the packed inverse-covariance factors.

def logsumexp [n] (xs: [n]f64) : f64 =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (map (\x -> f64.exp (x - m)) xs))

-- Q (x - mu) for the packed lower-triangular factor, column by column
def qtimes (d: i64) (icf: []f64) (y: []f64) : []f64 =
  tabulate d (\r ->
    f64.exp icf[r] * y[r]
    + f64.sum (tabulate d (\c -> if c < r then icf[d + c * (d - 1) - c * (c - 1) / 2 + (r - c - 1)] * y[c] else 0)))

def gmm [n] [k] [d] [s] (x: [n][d]f64) (alphas: [k]f64, means: [k][d]f64, icf: [k][s]f64) : f64 =
  let data = f64.sum (map (\xi ->
               logsumexp (map3 (\a mu q ->
                 let z = qtimes d q (map2 (-) xi mu)
                 in a + f64.sum q[0:d] - 0.5 * f64.sum (map (\t -> t * t) z)) alphas means icf)) x)
  let nf = f64.i64 n
  let df = f64.i64 d
  let prior = f64.sum (map (\q -> 0.5 * (f64.sum (map (\t -> f64.exp t * f64.exp t) q[0:d]) + f64.sum (map (\t -> t * t) q[d:s]))) icf)
  let nw = df + 1
  let lmg = df * (df - 1) / 4 * f64.log f64.pi + f64.sum (tabulate d (\j -> f64.lgamma (nw / 2 + (1 - f64.i64 (j + 1)) / 2)))
  let c = nw * df * (0 - 0.5 * f64.log 2) - lmg
  in data - nf * logsumexp alphas - nf * df / 2 * f64.log (2 * f64.pi) + prior - f64.i64 k * c

-- ==
-- entry: objective
-- input { [[0.91, -0.58, 0.66], [-0.7, 0.03, -0.73], [0.38, 0.68, -0.15], [0.91, 0.65, -0.32]] [-0.74, -0.0] [[-0.5, 0.89, -0.62], [-0.64, -0.3, -0.54]] [[0.36, 0.36, 0.31, -0.24, -0.42, 0.45], [0.11, -0.5, 0.41, 0.48, -0.21, 0.31]] }
-- output { 0.40358466370355117 }
entry objective [n] [k] [d] [s] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64) = gmm x (alphas, means, icf)

-- ==
-- entry: grad
-- input { [[0.91, -0.58, 0.66], [-0.7, 0.03, -0.73], [0.38, 0.68, -0.15], [0.91, 0.65, -0.32]] [-0.74, -0.0] [[-0.5, 0.89, -0.62], [-0.64, -0.3, -0.54]] [[0.36, 0.36, 0.31, -0.24, -0.42, 0.45], [0.11, -0.5, 0.41, 0.48, -0.21, 0.31]] }
-- output { [0.4498323242923373, -0.449832324292337] [[3.49432396481109, -2.118135590848342, -0.2313427100032282], [3.296789256989576, 1.3747625948939097, 2.2422226477167184]] [[-0.1315143437666007, 2.522551285943403, 3.486190404173516, 0.8810923492692091, -0.38415323256811607, 0.36026693731115883], [-0.8359323862244539, 2.1802592186125955, 2.0501125837424636, -1.500831784591221, -2.5792338766223297, 0.3755733091080862]] }
entry grad [n] [k] [d] [s] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64) = vjp (gmm x) (alphas, means, icf) 1
