-- Reverse mode of a loop carrying a running product: recovering the product by division is
-- wrong once it underflows, so the return sweep must fall back to checkpoints.
def f [m] (t: f64) (x: [m]f64) : f64 =
  let (r, _) = loop (r, pow) = (0, 1) for j < m do (r + x[j] * pow, pow * t)
  in r

entry grad [m] (t: f64) (x: [m]f64) : [m]f64 = vjp (f t) x 1

-- ==
-- entry: grad
-- input { 1e-100 [1.0, 1.0, 1.0, 1.0] }
-- output { [1.0, 1e-100, 1e-200, 0.0] }
-- input { 0.5 [1.0, 2.0, 3.0] }
-- output { [1.0, 0.5, 0.25] }
-- input { 0.0 [1.0, 2.0, 3.0] }
-- output { [1.0, 0.0, 0.0] }
