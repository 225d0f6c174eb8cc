-- replicate sums the cotangents of its copies; iota-based weights; tabulate reading the input.

-- ==
-- entry: rep
-- input { 2.0 [1.0, 2.0, 3.0] }
-- output { 6.0 }
-- input { -1.0 [0.0, 0.0, 0.0] }
-- output { 0.0 }
entry rep (x: f64) (yb: [3]f64) = vjp (replicate 3) x yb

-- ==
-- entry: rep_arr
-- input { [1.0, 2.0] [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [18.0, 24.0] }
entry rep_arr (xs: [2]f64) (yb: [3][2]f64) = vjp (\v -> replicate 3 (map (* 2) v)) xs yb

-- ==
-- entry: weights
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 8.0, 18.0] }
-- input { [0.5, -1.0, 2.0, 4.0] }
-- output { [1.0, -4.0, 12.0, 32.0] }
entry weights [n] (xs: [n]f64) = vjp (\v -> f64.sum (map2 (\i t -> f64.i64 (i + 1) * t * t) (iota n) v)) xs 1

-- ==
-- entry: tab
-- input { [1.0, 2.0, 3.0] [1.0, 1.0, 1.0, 1.0] }
-- output { [3.0, 1.0, 2.0] }
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [12.0, 2.0, 6.0] }
entry tab (xs: [3]f64) (yb: [4]f64) = vjp (\v -> tabulate 4 (\i -> v[i % 3] * f64.i64 i)) xs yb
