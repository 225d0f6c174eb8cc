-- rotate and reverse.
-- ==
-- entry: rot
-- input { [1.0, 2.0, 3.0, 4.0] 1i64 } output { [4.0, 6.0, 8.0, 2.0] }
-- input { [1.0, 2.0, 3.0, 4.0] -1i64 } output { [8.0, 2.0, 4.0, 6.0] }
-- input { [1.0, 2.0, 3.0, 4.0] 6i64 } output { [6.0, 8.0, 2.0, 4.0] }

entry rot (xs: []f64) (r: i64) = jvp (\v -> rotate r (map (\t -> t * t) v)) xs (map (const 1) xs)

-- ==
-- entry: rev
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0] } output { [9.0, 4.0, 1.0] }

entry rev (xs: []f64) (dxs: []f64) = jvp (\v -> reverse (map2 (*) v v) |> map (/ 2)) xs dxs

-- ==
-- entry: rev_rows
-- input { [[1, 2], [3, 4]] } output { [[30, 40], [10, 20]] }

entry rev_rows (m: [][]i32) = jvp reverse m (map (map (* 10)) m)
