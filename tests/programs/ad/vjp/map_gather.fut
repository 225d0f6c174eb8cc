-- Free arrays indexed inside a map (gathers): cotangents accumulate into the gathered positions,
-- also when several elements read the same position.

-- ==
-- entry: gather
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0i64, 2i64, 2i64, 4i64, 0i64, 0i64] [1.0, 1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [6.0, 0.0, 12.0, 0.0, 10.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [4i64, 3i64, 2i64, 1i64, 0i64, 1i64] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] }
-- output { [10.0, 40.0, 18.0, 16.0, 10.0] }
entry gather (xs: [5]f64) (is: [6]i64) (yb: [6]f64) = vjp (\v -> map (\i -> v[i] * v[i]) is) xs yb

-- ==
-- entry: neighbours
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [6.0, 3.0, 5.0, 7.0, 4.0] }
-- input { [0.25, 0.79, 0.55, -0.55, -0.4] }
-- output { [-0.61, -0.19999999999999996, -0.76, -0.8499999999999999, -1.3] }
entry neighbours (xs: [5]f64) = vjp (\v -> f64.sum (map (\i -> v[i] * v[(i + 1) % 5] - v[(i + 4) % 5]) (iota 5))) xs 1

-- ==
-- entry: weighted
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 0.0, -1.0, 2.0] }
-- output { [4.0, -4.0, 0.0, 8.0] [16.0, 9.0, 4.0, 1.0] }
entry weighted (xs: [4]f64) (ws: [4]f64) = vjp (\(v, w) -> f64.sum (map (\i -> w[3 - i] * v[i] * v[i]) (iota 4))) (xs, ws) 1

-- ==
-- entry: rows
-- input { [[-0.35, 0.97], [-0.36, 0.58], [0.74, -0.22]] [0i64, 2i64, 2i64, 1i64] }
-- output { [[0.97, -0.35], [0.58, -0.36], [-0.44, 1.48]] }
entry rows (m: [3][2]f64) (is: [4]i64) = vjp (\a -> f64.sum (map (\i -> a[i, 0] * a[i, 1]) is)) m 1
