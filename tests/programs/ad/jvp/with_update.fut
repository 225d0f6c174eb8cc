-- In-place updates `with`, on elements, slices and rows.
-- ==
-- entry: elem
-- input { [1.0, 2.0, 3.0] [1.0, 10.0, 100.0] } output { [1.0, 103.0, 100.0] }

entry elem (xs: []f64) (dxs: []f64) =
  jvp (\v -> let w = copy v in w with [1] = w[0] * w[2]) xs dxs

-- ==
-- entry: slice_update
-- input { [1.0, 2.0, 3.0] [1.0, 10.0, 100.0] } output { [100.0, 200.0, 100.0] }

entry slice_update (xs: [3]f64) (dxs: [3]f64) =
  jvp (\v -> let w = copy v in w with [0:2] = [v[2], v[2] * 2]) xs dxs

-- ==
-- entry: row_update
-- input { [[1.0, 2.0], [3.0, 4.0]] [[1.0, 2.0], [3.0, 4.0]] 5.0 }
-- output { [[1.0, 2.0], [1.0, 1.0]] }

entry row_update [n] (m: [n][2]f64) (dm: [n][2]f64) (x: f64) =
  jvp (\(a, s) -> let b = copy a in b with [1] = [s, s]) (m, x) (dm, 1)

-- ==
-- entry: loop_updates
-- input { [1.0, 2.0, 3.0] } output { [2.0, 4.0, 6.0] }

entry loop_updates [n] (xs: [n]f64) =
  jvp (\v -> loop w = copy v for i < n do w with [i] = w[i] * w[i]) xs (replicate n 1)
