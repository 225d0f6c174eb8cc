-- Branches inside map take a different path per element; loops inside map.
-- ==
-- entry: relu
-- input { [-1.0, 0.0, 2.0, 3.0] [1.0, 1.0, 1.0, 2.0] } output { [0.0, 0.0, 1.0, 2.0] }

entry relu (xs: []f64) (dxs: []f64) = jvp (map (\t -> if t > 0 then t else 0)) xs dxs

-- ==
-- entry: leaky
-- input { [-1.0, 2.0] [1.0, 1.0] } output { [0.1, 1.0] }

entry leaky (xs: []f64) (dxs: []f64) = jvp (map (\t -> f64.max t (0.1 * t))) xs dxs

-- ==
-- entry: loop_in_map
-- input { [1.0, 2.0] 3i64 } output { [3.0, 12.0] }

entry loop_in_map (xs: []f64) (n: i64) =
  jvp (map (\t -> loop acc = 1 for _i < n do acc * t)) xs (map (const 1) xs)

-- ==
-- entry: map_in_loop
-- input { [1.0, 2.0] } output { [4.0, 32.0] }

-- two squarings: x^4, derivative 4 x^3
entry map_in_loop (xs: []f64) =
  jvp (\v -> loop w = v for _i < 2 do map (\t -> t * t) w) xs (map (const 1) xs)

-- ==
-- entry: while_in_map
-- input { [3.0, 50.0, 200.0] } output { [64.0, 2.0, 1.0] }

entry while_in_map (xs: []f64) =
  jvp (map (\t -> loop y = t while y < 100 do y * 2)) xs (map (const 1) xs)
