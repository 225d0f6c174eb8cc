-- transpose in reverse mode, alone and combined with maps over rows.

-- ==
-- entry: plain
-- input { [[-0.5, 0.89, -0.62], [-0.64, -0.3, -0.54]] [[0.73, 0.71], [0.62, -0.48], [-0.85, 0.89]] }
-- output { [[0.73, 0.62, -0.85], [0.71, -0.48, 0.89]] }
entry plain (m: [2][3]f64) (yb: [3][2]f64) = vjp transpose m yb

-- ==
-- entry: weighted
-- input { [[0.66, -0.28, 0.41], [0.72, 0.28, 0.1], [0.52, 0.43, -0.07]] }
-- output { [[1.32, 1.44, 1.04], [-0.56, 0.56, 0.86], [0.82, 0.2, -0.14]] }
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]] }
-- output { [[2.0, 8.0, 14.0], [4.0, 10.0, 16.0], [6.0, 12.0, 18.0]] }
entry weighted (m: [3][3]f64) = vjp (\a -> f64.sum (map2 (\r c -> f64.sum (map2 (*) r c)) a (transpose a))) m 1

-- ==
-- entry: rows
-- input { [[0.39, 0.63, -0.31], [-0.91, 0.14, -0.71]] [1.0, 2.0, 3.0] }
-- output { [[-0.91, 0.28, -2.13], [0.39, 1.26, -0.9299999999999999]] }
entry rows (m: [2][3]f64) (yb: [3]f64) = vjp (\a -> map (\col -> col[0] * col[1]) (transpose a)) m yb
