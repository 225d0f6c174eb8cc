-- scan with (+).
-- ==
-- entry: prefix
-- input { [1.0, 2.0, 3.0] [1.0, 10.0, 100.0] } output { [1.0, 11.0, 111.0] }
-- input { empty([0]f64) empty([0]f64) } output { empty([0]f64) }

entry prefix (xs: []f64) (dxs: []f64) = jvp (scan (+) 0) xs dxs

-- ==
-- entry: squares
-- input { [1.0, 2.0, 3.0] } output { [1.0, 5.0, 14.0] [2.0, 6.0, 12.0] }

entry squares (xs: []f64) = jvp2 (\v -> scan (+) 0 (map (\e -> e * e) v)) xs (map (const 1) xs)

-- ==
-- entry: ints
-- input { [1, 2, 3] } output { [3, 9, 18] }

entry ints (xs: []i32) = jvp (\v -> scan (+) 0 (map (* 3) v)) xs [1, 2, 3]

-- ==
-- entry: exclusive
-- input { [1.0, 2.0, 3.0] [1.0, 10.0, 100.0] } output { [0.0, 1.0, 11.0] }

entry exclusive (xs: []f64) (dxs: []f64) = jvp (exscan (+) 0) xs dxs
