-- Sparse Jacobian of a tridiagonal residual (a 1-D nonlinear diffusion step) against the dense
-- Jacobian: values, every non-zero listed, a valid colouring with 3 colours.

import "check"

def residual [n] (x: [n]f64) : [n]f64 =
  tabulate n (\i ->
    let l = if i > 0 then x[i - 1] else 0
    let r = if i < n - 1 then x[i + 1] else 0
    in l * x[i] - 2 * x[i] + f64.sin r + x[i] * x[i] * x[i])

-- ==
-- entry: check
-- input { [1.0, 0.0, 2.0, 3.0, 0.5, 0.0] } output { true }
-- random input { [1]f64 } output { true }
-- random input { [40]f64 } output { true }
entry check [n] (x: [n]f64) : bool = check_jacobian residual x

-- ==
-- entry: colours
-- random input { [40]f64 } output { 3i64 }
entry colours [n] (x: [n]f64) : i64 = (sparse_jacobian_pattern residual x).3

-- The CSR arrays themselves on a small case, derived by hand. Entries whose value is zero at
-- this x stay listed: x[1] = 0 makes the entry (1, 0), which is x[1], zero.
-- ==
-- entry: csr
-- input { [1.0, 0.0, 2.0] }
-- output { [1.0, 1.0, 0.0, -1.0, -0.4161468365471424, 2.0, 10.0] [0i64, 1i64, 0i64, 1i64, 2i64, 1i64, 2i64] [0i64, 2i64, 5i64, 7i64] }
entry csr [n] (x: [n]f64) = sparse_jacobian residual x
