-- jvp2 gives the value and the derivative together.
-- ==
-- entry: scalar
-- input { 3.0 } output { 9.0 6.0 }

entry scalar (x: f64) = jvp2 (\t -> t * t) x 1

-- ==
-- entry: structured
-- input { 3.0 } output { 9.0 [3.0, 6.0] 6.0 [1.0, 2.0] }

entry structured (x: f64) =
  let ((a, b), (da, db)) = jvp2 (\t -> (t * t, [t, 2 * t])) x 1
  in (a, b, da, db)

-- ==
-- entry: arrays
-- input { [1.0, 2.0] [0.5, 1.0] } output { [1.0, 8.0] [1.5, 12.0] }

entry arrays (xs: []f64) (dxs: []f64) = jvp2 (map (\t -> t * t * t)) xs dxs

-- ==
-- entry: ints
-- input { 5 } output { 125 75 }

entry ints (x: i32) = jvp2 (\t -> t * t * t) x 1
