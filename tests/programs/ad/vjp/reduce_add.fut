-- reduce with +: every element gets the result's cotangent; sums of maps; sums of rows; empty input.

-- ==
-- entry: sum
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [3.0, 3.0, 3.0, 3.0, 3.0] }
entry sum (xs: [5]f64) = vjp f64.sum xs 3

-- ==
-- entry: reduce_plus
-- input { [1.0, -2.0, 0.5, 0.0] }
-- output { [3.0, 12.0, 0.75, 0.0] }
entry reduce_plus (xs: [4]f64) = vjp (\v -> reduce (+) 0 (map (\t -> t * t * t) v)) xs 1

-- ==
-- entry: comm
-- input { [1.0, 2.0, 3.0, 4.0] 0.5 }
-- output { [0.25, 0.25, 0.25, 0.25] 10.0 }
entry comm (xs: [4]f64) (k: f64) = vjp (\(v, c) -> reduce_comm (+) 0 (map (* c) v) * c) (xs, k) 1

-- ==
-- entry: rows
-- input { [[0.02, 0.9, -0.71], [0.9, -0.38, -0.15]] [2.0, -1.0] }
-- output { [[2.0, 2.0, 2.0], [-1.0, -1.0, -1.0]] }
entry rows (m: [2][3]f64) (yb: [2]f64) = vjp (map f64.sum) m yb

-- ==
-- entry: empty
-- input { empty([0]f64) 2.0 }
-- output { empty([0]f64) 1.0 }
entry empty (xs: [0]f64) (k: f64) = vjp (\(v, c) -> f64.sum v + c) (xs, k) 1
