-- rotate (left, right, by more than the length) and reverse in reverse mode.

-- ==
-- entry: rot
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] 1i64 [1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [7.0, 4.0, 6.0, 8.0, 5.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] -2i64 [1.0, 0.0, 2.0, 0.0, 3.0] }
-- output { [10.0, 0.0, 17.0, 1.0, 9.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] 7i64 [5.0, 4.0, 3.0, 2.0, 1.0] }
-- output { [23.0, 21.0, 20.0, 10.0, 11.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] 0i64 [1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [2.0, 4.0, 6.0, 8.0, 10.0] }
entry rot (xs: [5]f64) (r: i64) (yb: [5]f64) = vjp (\v -> map2 (*) v (rotate r v)) xs yb

-- ==
-- entry: rev
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 10.0, 100.0, 1000.0] }
-- output { [2000.0, 400.0, 60.0, 8.0] }
entry rev (xs: [4]f64) (yb: [4]f64) = vjp (\v -> map (\t -> t * t) (reverse v)) xs yb

-- ==
-- entry: both
-- input { [[0.13, -0.14], [-0.81, -0.3], [0.24, -0.96]] }
-- output { [[-0.14, 0.13], [-0.96, 0.24], [-0.3, -0.81]] }
entry both (m: [3][2]f64) = vjp (\a -> let b = rotate (-1) (reverse a) in f64.sum (map2 (\r s -> r[0] * s[1]) a b)) m 1
