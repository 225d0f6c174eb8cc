-- GradBench `llsq` (cmpad's llsq_obj): y(x) = ½ Σᵢ (sᵢ − Σⱼ xⱼ tᵢʲ)² with
-- tᵢ = −1 + 2i/(n − 1) and sᵢ = sign tᵢ, for i < n; `primal` and `gradient`.

-- The powers tⁱ are computed apart from x (they are constants for the gradient): carried
-- through the loop with the sum, reverse mode would recover them backwards by division, which
-- fails where they underflow.
def residual [m] (n: i64) (x: [m]f64) (i: i64) : f64 =
  let t = -1 + f64.i64 i * 2 / f64.i64 (n - 1)
  let powers = exscan (*) 1 (replicate m t)
  in f64.sgn t - f64.sum (map2 (*) x powers)

def llsq [m] (n: i64) (x: [m]f64) : f64 =
  f64.sum (map (\i -> let r = residual n x i in r * r) (iota n)) / 2

entry primal [m] (x: [m]f64) (n: i64) : f64 = llsq n x

-- ==
-- entry: primal
-- input { [0.0, 1.0] 3i64 }
-- output { 0.0 }
-- input { [1.0] 3i64 }
-- output { 2.5 }

entry gradient [m] (x: [m]f64) (n: i64) : [m]f64 = vjp (llsq n) x 1

-- ==
-- entry: gradient
-- input { [1.0, 0.0] 3i64 }
-- output { [3.0, -2.0] }
