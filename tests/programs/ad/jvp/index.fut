-- Indexing is linear: the tangent is indexed the same way.
-- ==
-- entry: elems
-- input { [1.0, 2.0, 3.0] [1.0, 1.0, 1.0] } output { 5.0 }
-- input { [1.0, 2.0, 3.0] [0.0, 1.0, 0.0] } output { 3.0 }
-- input { [1.0, 2.0, 3.0] [7.0, 0.0, 0.0] } output { 0.0 }

entry elems (xs: []f64) (dxs: []f64) = jvp (\v -> v[1] * v[2]) xs dxs

-- ==
-- entry: rows
-- input { [[1.0, 2.0], [3.0, 4.0]] [[1.0, 10.0], [100.0, 1000.0]] } output { [100.0, 1000.0] 1100.0 }

entry rows (m: [][]f64) (dm: [][]f64) = jvp (\(a: [][]f64) -> (a[1], a[1, 0] + a[0][1] * 100)) m dm

-- ==
-- entry: dynamic_index
-- input { [1.0, 2.0, 3.0] 2i64 } output { 6.0 }
-- input { [1.0, 2.0, 3.0] 0i64 } output { 2.0 }

entry dynamic_index (xs: []f64) (i: i64) = jvp (\v -> v[i] * v[i]) xs (replicate (length xs) 1)

-- ==
-- entry: out_of_bounds
-- input { [1.0, 2.0, 3.0] 3i64 } error: out of bounds

entry out_of_bounds (xs: []f64) (i: i64) = jvp (\v -> v[i]) xs xs
