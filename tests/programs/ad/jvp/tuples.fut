-- Tuples as inputs and outputs: the tangent has the structure of the point.
-- ==
-- entry: nested_tuple
-- input { 1.0 2.0 3.0 } output { 12.0 100.0 110.0 1.0 }

entry nested_tuple (a: f64) (b: f64) (c: f64) =
  let (p, q, (r, s)) = jvp (\(x, (y, z)) -> (x * y, z, (y + z, x))) (a, (b, c)) (1, (10, 100))
  in (p, q, r, s)

-- ==
-- entry: mixed_types
-- input { 2.0 3 1.5f32 } output { 5.0 6 2.0f32 }

entry mixed_types (x: f64) (n: i32) (y: f32) =
  jvp (\(a, k, b) -> (a * f64.i32 k, k * k, b * 2)) (x, n, y) (1, 1, 1)

-- ==
-- entry: arrays_in_tuple
-- input { [1.0, 2.0] 3.0 } output { [3.0, 3.0] 2.0 }

entry arrays_in_tuple (xs: []f64) (s: f64) =
  jvp (\(v, k) -> (map (* k) v, f64.sum v)) (xs, s) (map (const 1) xs, 0)

-- ==
-- entry: array_of_tuples
-- input { [1.0, 2.0] [3.0, 4.0] } output { [4.0, 6.0] }

entry array_of_tuples [n] (a: [n]f64) (b: [n]f64) =
  jvp (map (\(x, y) -> x * y)) (zip a b) (zip (replicate n 1) (replicate n 1))

-- ==
-- entry: unit_tangent_ignored
-- input { 2.0 } output { 4.0 }

entry unit_tangent_ignored (x: f64) = jvp (\(a, b) -> a * a + b * 0) (x, 7.0) (1, 1)
