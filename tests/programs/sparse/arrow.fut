-- An arrow matrix (a dense first row and column and the diagonal), as a Jacobian and as a
-- Hessian, against the dense ones. A distance-2 column colouring needs n colours here (the
-- first row is full): correct, not compressed (docs/sparse.md §In the language).

import "check"

def residual [n] (x: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == 0 then f64.sum (map (\v -> v * v) x) else x[0] * x[i] + f64.cos x[i])

def energy [n] (x: [n]f64) : f64 =
  f64.sum (map (\v -> x[0] * v * v) x[1:]) + f64.sum (map (\v -> v * v * v * v) x)

-- ==
-- entry: jac hess
-- input { [0.0, 1.0, 2.0] } output { true }
-- random input { [12]f64 } output { true }
entry jac [n] (x: [n]f64) : bool = check_jacobian residual x
entry hess [n] (x: [n]f64) : bool = check_hessian energy x
