-- scan with +: each input's cotangent is the suffix sum of the output cotangents.

-- ==
-- entry: plain
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [5.0, 4.0, 3.0, 2.0, 1.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0.0, 1.0, 0.0, -2.0, 3.0] }
-- output { [2.0, 2.0, 1.0, 1.0, 3.0] }
entry plain (xs: [5]f64) (yb: [5]f64) = vjp (scan (+) 0) xs yb

-- ==
-- entry: of_map
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [160.0, 152.0, 128.0, 80.0] }
-- input { [-1.0, 0.5, 0.0, 2.0] }
-- output { [-4.0, 4.0, 8.0, 12.0] }
entry of_map (xs: [4]f64) = vjp (\v -> f64.sum (map (\t -> t * t) (scan (+) 0 (map (* 2) v)))) xs 1

-- ==
-- entry: ints
-- input { [1i64, 2i64, 3i64, 4i64] [1i64, 2i64, 3i64, 4i64] }
-- output { [10i64, 9i64, 7i64, 4i64] }
entry ints (xs: [4]i64) (yb: [4]i64) = vjp (scan (+) 0) xs yb
