-- A 2-D pipeline: rows, columns, transpose, flatten and an update in one function.

def f [n] (m: [n][n]f64) : f64 =
  let t = transpose m
  let d = map2 (\r i -> r[i]) m (iota n)
  let c = copy t with [0] = d
  let s = map2 (\r q -> f64.sum (map2 (*) r q)) c m
  in f64.sum s + f64.sum (flatten c) * 0.5

-- ==
-- entry: grad
-- input { [[-0.2, 0.43, -0.44], [-0.83, 0.94, 0.13], [0.29, 0.15, -0.05]] }
-- output { [[0.09999999999999998, 0.61, 0.74], [0.43, 3.3099999999999996, 0.8], [-0.44, 0.76, 0.46]] }
-- input { [[1.0, 2.0], [3.0, 4.0]] }
-- output { [[2.5, 7.5], [2.0, 11.0]] }
entry grad [n] (m: [n][n]f64) = vjp f m 1
