-- Size-dependent code under vjp: length, size parameters used as numbers, and ranges.

-- ==
-- entry: mean
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [0.25, 0.25, 0.25, 0.25] }
-- input { [5.0] }
-- output { [1.0] }
entry mean [n] (xs: [n]f64) = vjp (\v -> f64.sum v / f64.i64 (length v)) xs 1

-- ==
-- entry: variance
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [-0.75, -0.25, 0.25, 0.75] }
-- input { [1.0, 1.0, 1.0] }
-- output { [0.0, 0.0, 0.0] }
entry variance [n] (xs: [n]f64) = vjp (\v -> let m = f64.sum v / f64.i64 n in f64.sum (map (\t -> (t - m) * (t - m)) v) / f64.i64 n) xs 1

-- ==
-- entry: ranged
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] }
-- output { [0.0, 1.0, 0.0, 3.0, 0.0, 5.0] }
entry ranged (xs: [6]f64) = vjp (\v -> f64.sum (map (\i -> v[i] * f64.i64 i) (1..3..<6))) xs 1
