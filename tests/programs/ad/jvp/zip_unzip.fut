-- zip and unzip are structural and linear.
-- ==
-- entry: roundtrip
-- input { [1.0, 2.0] [3.0, 4.0] } output { [2.0, 4.0] [1.0, 1.0] }

entry roundtrip [n] (a: [n]f64) (b: [n]f64) =
  jvp (\(x, y) -> unzip (map (\(p, q) -> (p * p, q / q + q - q)) (zip x y))) (a, b) (replicate n 1, replicate n 0)
  |> (\(u, v) -> (u, map (+ 1) v))

-- ==
-- entry: dot
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] } output { 32.0 23.0 }

-- jvp2 of the dot product with tangents (1, 1, 1) for the first vector and (0, 1, 2) for the second
entry dot [n] (a: [n]f64) (b: [n]f64) =
  jvp2 (\(x, y) -> f64.sum (map (\(p, q) -> p * q) (zip x y))) (a, b) (replicate n 1, map f64.i64 (iota n))
