-- Idioms from ADBench-style programs (GMM, LSTM, bundle adjustment).

def logsumexp [n] (arr: [n]f64) =
  let mx = f64.maximum arr
  in mx + f64.log (f64.sum (map (\x -> f64.exp (x - mx)) arr))

def frobenius [m][n] (mat: [m][n]f64) =
  mat |> flatten |> map (**2) |> f64.sum

def matvec [m][n] (mat: [m][n]f64) (v: [n]f64) : [m]f64 =
  map (\row -> f64.sum (map2 (*) row v)) mat

def unpack_q [d] (logdiag: [d]f64) (lt: []f64) : [d][d]f64 =
  tabulate_2d d d (\i j ->
    if i < j then 0
    else if i == j then f64.exp logdiag[i]
    else lt[d * j + i - j - 1 - j * (j + 1) / 2])

def gmm_objective [d][k][n] (alphas: [k]f64) (means: [k][d]f64) (icf: [k][]f64) (x: [n][d]f64) =
  let constant = -(f64.i64 n * f64.i64 d * 0.5 * f64.log (2 * f64.pi))
  let qs = map2 unpack_q (map (take d) icf) (map (drop d) icf)
  let slse =
    f64.sum (map (\xi ->
                    logsumexp (map3 (\a q m ->
                                       a + f64.sum (map (\i -> q[i, i]) (iota d))
                                       - 0.5 * f64.sum (map (**2) (matvec q (map2 (-) xi m))))
                                    alphas qs means))
                 x)
  in constant + slse - f64.i64 n * logsumexp alphas

def sigmoid (x: f64) = 1 / (1 + f64.exp (-x))

def lstm_model [hs] (weight: [4][hs]f64) (bias: [4][hs]f64) (hidden: [hs]f64) (cell: [hs]f64) (input: [hs]f64) : ([hs]f64, [hs]f64) =
  let gate i f = map3 (\w b x -> f (w * x + b)) weight[i] bias[i]
  let forget = gate 0 sigmoid input
  let ingate = gate 1 sigmoid hidden
  let outgate = gate 2 sigmoid input
  let change = gate 3 f64.tanh hidden
  let cell' = map2 (+) (map2 (*) cell forget) (map2 (*) ingate change)
  let hidden' = map2 (*) outgate (map f64.tanh cell')
  in (hidden', cell')

def histogram [n] (k: i64) (is: [n]i64) (vs: [n]f64) : [k]f64 =
  reduce_by_index (replicate k 0) (+) 0 is vs

def project (cam: [11]f64) (x: [3]f64) : [2]f64 =
  let (rot, rest) = (cam[0:3], cam[3:])
  let Xcam = map2 (-) x rest[0:3] :> [3]f64
  let distort = \(k1: f64) (k2: f64) (p: [2]f64) ->
    let rsq = f64.sum (map (**2) p)
    in map (* (1 + k1 * rsq + k2 * rsq * rsq)) p
  in distort cam[9] cam[10] [Xcam[0] / Xcam[2], Xcam[1] / Xcam[2]] |> map (* cam[6])

def scan_sum [n] (xs: [n]f64) = scan (+) 0 xs
def pairs [n] (xs: [n]f64) (ys: [n]f64) = map (\(a, b) -> a * b) (zip xs ys)
def recs (ps: []{x: f64, y: f64}) = map (\{x, y} -> x + y) ps
def scatter_it [k][n] (dest: *[k]f64) (is: [n]i64) (vs: [n]f64) = scatter dest is vs

def main [n] (xs: [n]f64) : f64 =
  let ys = #[unsafe] map (\i -> xs[(i + 1) % n] - xs[i]) (iota n)
  let s = loop s = 0 for y in ys do s + y * y
  let (s', _) = loop (acc, i) = (s, 0i64) while i < 10 do (acc / 2, i + 1)
  in s' + i64.min 0 1 |> f64.i64 |> (+ 1)
