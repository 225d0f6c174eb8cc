-- iota has tangent zero; replicate copies the tangent of the element (its count gets none); tabulate.
-- ==
-- entry: iotas
-- input { 4i64 } output { [0i64, 0i64, 0i64, 0i64] }

entry iotas (n: i64) = jvp iota n 1

-- ==
-- entry: iota_scaled
-- input { 3i64 2.0 } output { [0.0, 1.0, 2.0] }

entry iota_scaled (n: i64) (x: f64) = jvp (\t -> map (\i -> f64.i64 i * t) (iota n)) x 1

-- ==
-- entry: reps
-- input { 3i64 2.0 } output { [4.0, 4.0, 4.0] [[1.0, 1.0], [1.0, 1.0]] }

entry reps (n: i64) (x: f64) =
  jvp (\t -> (replicate n (t * t), replicate 2 (replicate 2 t))) x 1

-- ==
-- entry: rep_count
-- input { 3i64 } output { [1i64, 1i64, 1i64] [0i64, 0i64] }

entry rep_count (n: i64) = (jvp (\k -> replicate k k) n 1, jvp (\k -> tabulate 2 (\i -> i * 0 + k * 0)) n 1)

-- ==
-- entry: tab
-- input { 2.0 } output { [1.0, 4.0, 12.0] }

-- d/dx x^(i+1) = (i+1) x^i
entry tab (x: f64) = jvp (\t -> tabulate 3 (\i -> t ** f64.i64 (i + 1))) x 1
