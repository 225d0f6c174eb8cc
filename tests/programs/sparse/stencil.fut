-- Sparse Jacobian of a 2-D 5-point stencil residual (a nonlinear Poisson problem on a k-by-k
-- grid, zero boundary) against the dense Jacobian; the colouring reaches the lower bound 5
-- (the largest number of entries in a row).

import "check"

def residual [n] (x: [n]f64) : [n]f64 =
  let k = i64.f64 (f64.sqrt (f64.i64 n))
  in tabulate n (\q ->
       let (i, j) = (q / k, q % k)
       let at a b = if a >= 0 && a < k && b >= 0 && b < k then x[a * k + b] else 0
       in 4 * x[q] - at (i - 1) j - at (i + 1) j - at i (j - 1) - at i (j + 1)
          + f64.exp x[q])

-- ==
-- entry: check
-- random input { [9]f64 } output { true }
-- random input { [64]f64 } output { true }
entry check [n] (x: [n]f64) : bool = check_jacobian residual x

-- ==
-- entry: colours
-- random input { [64]f64 } output { 5i64 }
-- random input { [400]f64 } output { 5i64 }
entry colours [n] (x: [n]f64) : i64 = (sparse_jacobian_pattern residual x).3
