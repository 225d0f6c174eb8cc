-- hist as in k-means: per-cluster sums of points gathered by assignment; the gradient of a cost
-- built from them reaches the points.

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] [0i64, 1i64, 0i64, 1i64, 1i64, 0i64] }
-- output { [6.666666666666667, 7.333333333333333, 6.666666666666667, 7.333333333333333, 7.333333333333333, 6.666666666666667] }
-- input { [0.5, -1.0, 2.0, 0.0, 1.0, 1.0] [1i64, 1i64, 1i64, 0i64, 1i64, 1i64] }
-- output { [1.4, 1.4, 1.4, 0.0, 1.4, 1.4] }
entry grad (xs: [6]f64) (as: [6]i64) = vjp (\v -> let s = hist (+) 0 2 as v let c = hist (+) 0 2 as (map (const 1) v) in f64.sum (map2 (\a b -> a * a / b) s c)) xs 1
