-- f32 arrays through map, reduce and scan.
-- ==
-- entry: norm
-- input { [3.0f32, 4.0f32] [1.0f32, 0.0f32] } output { 5.0f32 0.6f32 }

entry norm (xs: []f32) (dxs: []f32) = jvp2 (\v -> f32.sqrt (f32.sum (map (\e -> e * e) v))) xs dxs

-- ==
-- entry: prefix
-- input { [1.0f32, 2.0f32, 3.0f32] } output { [1.0f32, 3.0f32, 11.0f32] }

entry prefix (xs: []f32) = jvp (scan (*) 1) xs (map (const 1) xs)

-- ==
-- entry: f32_edges
-- input { 0.0f32 } output { 0.0f32 0.0f32 1.0f32 }

entry f32_edges (x: f32) = (jvp f32.abs x 1, jvp (\t -> t ** 0.5f32) x 1, jvp (\t -> f32.max t 0) x 1)
