-- Second-order derivatives through loops: a power loop, an Euler integrator (20 steps) and a
-- loop with array state.

-- ==
-- entry: power
-- input { 2.0 3i64 }
-- output { 12.0 }
-- input { 1.5 5i64 }
-- output { 67.5 }
-- input { 3.0 1i64 }
-- output { 0.0 }
entry power (x: f64) (n: i64) = jvp (\y -> vjp (\t -> loop acc = 1 for _i < n do acc * t) y 1) x 1

def euler (k: f64, c: f64) : f64 =
  let (x, _) = loop (x, v) = (1.0, 0.0) for _i < 20 do (x + 0.1 * v, v + 0.1 * (-k * x - c * v * v))
  in x

-- ==
-- entry: euler_hess
-- input { 2.0 0.1 }
-- output { [0.6174718020501095, -1.150725793394526] [-1.1507257933945263, -5.90301509590517] }
-- input { 0.5 1.0 }
-- output { [-5.217642081679517, -3.858026047337019] [-3.8580260473370185, -0.9183808566103414] }
entry euler_hess (k: f64) (c: f64) = mjp (\p -> vjp euler p 1) (k, c) [(1, 0), (0, 1)] |> unzip

-- ==
-- entry: array_state
-- input { [0.5, 1.0, -1.0] [1.0, 1.0, 1.0] }
-- output { [0.0721796875, 0.808, 0.808] }
-- input { [2.0, 0.1, 0.3] [1.0, 0.0, -2.0] }
-- output { [31.700499999999998, 0.0, -0.05572537500000001] }
entry array_state (xs: [3]f64) (v: [3]f64) = jvp (\y -> vjp (\a -> f64.sum (loop b = a for _i < 3 do map (\t -> t * t * 0.5 + 0.1) b)) y 1) xs v
