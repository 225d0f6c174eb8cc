-- Indexing: the cotangent of a read goes to that element; repeated reads accumulate; rows of a
-- matrix; an index computed from data (not differentiated).

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [2.0, 5.0, 0.0, 2.0] }
-- input { [0.5, -1.0, 0.0, 2.0, 7.0] }
-- output { [1.0, 3.0, 0.0, -1.0, 0.0] }
entry grad [n] (xs: [n]f64) = vjp (\v -> v[1] * v[3] + v[0] * v[0] + v[1]) xs 1

-- ==
-- entry: row
-- input { [[0.02, 0.9], [-0.71, 0.9], [-0.38, -0.15]] [1.0, -2.0] }
-- output { [[0.0, 0.0], [-0.38, 0.3], [-0.71, -1.8]] }
-- input { [[-0.48, -0.4], [0.63, -0.82], [0.2, 0.46]] [0.0, 1.0] }
-- output { [[0.0, 0.0], [0.0, 0.46], [0.0, -0.82]] }
entry row (m: [3][2]f64) (yb: [2]f64) = vjp (\a -> map2 (*) a[1] a[2]) m yb

-- ==
-- entry: dyn
-- input { [1.0, 2.0, 3.0, 4.0] 0i64 }
-- output { [2.0, 1.0, 0.0, 0.0] }
-- input { [1.0, 2.0, 3.0, 4.0] 3i64 }
-- output { [4.0, 0.0, 0.0, 1.0] }
entry dyn (xs: [4]f64) (i: i64) = vjp (\v -> v[i] * v[(i + 1) % 4]) xs 1

-- ==
-- entry: elem2d
-- input { [[-0.83, -0.53, 0.6], [0.16, -0.81, -0.13]] }
-- output { [[0.0, -0.13, 0.0], [-1.0, 0.0, -0.53]] }
entry elem2d (m: [2][3]f64) = vjp (\a -> a[0, 1] * a[1, 2] - a[1, 0]) m 1
