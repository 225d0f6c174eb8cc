-- copy and manifest pass the tangent through.
-- ==
-- entry: copies
-- input { [1.0, 2.0] [3.0, 4.0] } output { [3.0, 4.0] [6.0, 16.0] }

entry copies (xs: []f64) (dxs: []f64) =
  jvp (\v -> (copy v, manifest (map2 (*) v v) |> copy)) xs dxs

-- ==
-- entry: copy_then_update
-- input { [1.0, 2.0, 3.0] } output { [1.0, 1.0, 0.0] [1.0, 1.0, 1.0] }

entry copy_then_update (xs: []f64) =
  jvp (\v -> let w = copy v in (w with [2] = 5.0, v)) xs (map (const 1) xs)
