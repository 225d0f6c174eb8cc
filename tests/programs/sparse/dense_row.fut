-- A Jacobian with one dense row (a sum over all inputs) above a bidiagonal band: every pair of
-- columns shares row 0, so a column colouring needs n colours, and a row colouring 3 (row 0,
-- then the band's rows alternately). `sparse_jacobian` takes the rows, by `mjp`.

import "check"

def residual [n] (x: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == 0 then f64.sum (map (\v -> v * v) x) else x[i] * x[i - 1])

-- ==
-- entry: check
-- input { [0.0, 1.0, 2.0] } output { true }
-- random input { [1]f64 } output { true }
-- random input { [2]f64 } output { true }
-- random input { [25]f64 } output { true }
entry check [n] (x: [n]f64) : bool = check_jacobian residual x

-- The number of colours of the columns and of the rows (the rows coloured by the prelude's
-- helper on the transposed pattern).
-- ==
-- entry: colours
-- random input { [25]f64 } output { 25i64 3i64 }
entry colours [n] (x: [n]f64) : (i64, i64) =
  let (cols, offsets, _, k) = sparse_jacobian_pattern residual x
  let by_columns = tabulate_2d n n (\j i -> listed cols offsets i j)
  let (rows_t, offsets_t) = sparse.csr by_columns
  in (k, (sparse.colouring rows_t offsets_t cols offsets).1)
