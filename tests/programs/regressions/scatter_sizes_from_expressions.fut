-- `scatter` and `hist` whose indices and values have sizes written as the same expression
-- (`flatten p` and `iota (m * n)`, both `[m * n]`): internalisation evaluates each size on its
-- own, and the values are checked against the indices' size, so the IR verifies; sizes that
-- are not equal are a run-time error.

-- ==
-- entry: scatter_flat
-- input { [[1i64, 0i64], [3i64, 2i64]] } output { [1i64, 0i64, 3i64, 2i64] }
-- input { [[2i64, -1i64, 0i64]] } output { [2i64, 0i64, 0i64] }

entry scatter_flat [m] [n] (p: [m][n]i64) : [m * n]i64 =
  scatter (replicate (m * n) 0i64) (flatten p) (iota (m * n))

-- ==
-- entry: hist_flat
-- input { [[0i64, 0i64], [1i64, 0i64]] } output { [4i64, 2i64, 0i64, 0i64] }

entry hist_flat [m] [n] (p: [m][n]i64) : [m * n]i64 =
  hist (+) 0i64 (m * n) (flatten p) (iota (m * n))

-- ==
-- entry: different_sizes
-- input { [0i64, 1i64] [5.0, 6.0] } output { [5.0, 6.0, 0.0] }
-- input { [0i64, 1i64] [5.0] } error: cannot match shape

entry different_sizes (is: []i64) (vs: []f64) : [3]f64 = scatter (replicate 3 0.0) is vs
