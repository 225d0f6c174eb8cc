-- jmp2 gives the value and several directional derivatives.
-- ==
-- entry: scalar
-- input { 2.0 } output { 8.0 [12.0, 0.0, -6.0] }

entry scalar (x: f64) = jmp2 (\t -> t * t * t) x [1, 0, -0.5]

-- ==
-- entry: vec
-- input { [1.0, 2.0] } output { [1.0, 4.0] [[2.0, 0.0], [0.0, 4.0], [2.0, 4.0]] }

entry vec (x: []f64) = jmp2 (map (\t -> t * t)) x [[1, 0], [0, 1], [1, 1]]

-- ==
-- entry: ints
-- input { 3 } output { 27 [27, 54] }

entry ints (x: i32) = jmp2 (\t -> t * t * t) x [1, 2]
