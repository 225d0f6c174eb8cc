-- for loops: the derivative of the iterations performed.
-- ==
-- entry: power
-- input { 2.0 3 } output { 12.0 }
-- input { 2.0 0 } output { 0.0 }
-- input { 1.5 4 } output { 13.5 }

entry power (x: f64) (n: i32) = jvp (\t -> loop acc = 1 for _i < n do acc * t) x 1

-- ==
-- entry: over_elements
-- input { [1.0, 2.0, 3.0] } output { 22.0 }
-- input { [0.0, 0.0, 5.0] } output { 10.0 }

-- s = 4 e0^2 + 2 e1^2 + e2^2
entry over_elements (xs: []f64) =
  jvp (\v -> loop s = 0 for e in v do s * 2 + e * e) xs (map (const 1) xs)

-- ==
-- entry: tuple_state
-- input { 3.0 } output { 1.0 6.0 }

-- (x, 1) -> (1, x) -> (x, x) -> (x, x^2)
entry tuple_state (x: f64) = jvp (\t -> loop (a, b) = (t, 1.0) for _i < 3 do (b, a * b)) x 1

-- ==
-- entry: array_state
-- input { [1.0, 2.0] [1.0, -1.0] } output { [8.0, -8.0] }

entry array_state (xs: []f64) (dxs: []f64) = jvp (\v -> loop w = v for _i < 3 do map (* 2) w) xs dxs

-- ==
-- entry: int_loop
-- input { 3 } output { 405 }

-- 5 x^4
entry int_loop (x: i32) = jvp (\t -> loop acc = t for _i < 4 do acc * t) x 1
