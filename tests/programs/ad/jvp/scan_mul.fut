-- scan with (*): exact with zeros.
-- ==
-- entry: prefix
-- input { [2.0, 0.0, 3.0, 4.0] [1.0, 1.0, 1.0, 1.0] } output { [1.0, 2.0, 6.0, 24.0] }
-- input { [0.0, 0.0, 3.0] [1.0, 1.0, 1.0] } output { [1.0, 0.0, 0.0] }
-- input { [1.0, 2.0, 0.0, 5.0] [0.0, 0.0, 1.0, 0.0] } output { [0.0, 0.0, 2.0, 10.0] }
-- input { [1.0, 2.0, 3.0] [1.0, 1.0, 1.0] } output { [1.0, 3.0, 11.0] }

entry prefix (xs: []f64) (dxs: []f64) = jvp (scan (*) 1) xs dxs

-- ==
-- entry: ints
-- input { [2, 0, 3, 4] } output { [1, 2, 6, 24] }

entry ints (xs: []i32) = jvp (scan (*) 1) xs (map (const 1) xs)
