-- A loop reading a free array at a data-dependent position: the array's cotangent accumulates
-- over iterations.

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] [0i64, 1i64, 2i64, 1i64, 0i64] }
-- output { [2.125, 2.5, 1.5] }
-- input { [0.5, -1.0] [1i64, 1i64, 1i64, 1i64, 1i64] }
-- output { [0.0, -3.875] }
entry grad [n] (xs: [n]f64) (is: [5]i64) = vjp (\v -> loop s = 1 for j < 5 do s * 0.5 + v[is[j]] * v[is[j]]) xs 1

-- ==
-- entry: both
-- input { [0.5, 1.5, -1.0] 2.0 }
-- output { [5.875, 1.125, -2.75] 0.5625 }
entry both (xs: [3]f64) (x: f64) = vjp (\(v, t) -> loop s = t for i < 6 do s * v[i % 3] + v[(i + 1) % 3]) (xs, x) 1
