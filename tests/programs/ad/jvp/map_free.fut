-- map, map2, map3 with free variables captured by the mapped function.
-- ==
-- entry: captured_scalar
-- input { [1.0, 2.0, 3.0] 4.0 } output { [1.0, 2.0, 3.0] }

entry captured_scalar (xs: []f64) (x: f64) = jvp (\t -> map (\e -> e * t) xs) x 1

-- ==
-- entry: captured_array
-- input { [1.0, 2.0, 3.0] [1.0, 1.0, 1.0] } output { [3.0, 5.0, 4.0] }
-- input { [1.0, 2.0, 3.0] [0.0, 1.0, 0.0] } output { [1.0, 3.0, 0.0] }

-- v[i] * v[(i+1) % n]
entry captured_array [n] (xs: [n]f64) (dxs: [n]f64) =
  jvp (\v -> map (\i -> v[i] * v[(i + 1) % n]) (iota n)) xs dxs

-- ==
-- entry: both_active
-- input { [1.0, 2.0, 3.0] 0.5 [1.0, 0.0, -1.0] 2.0 }
-- output { [2.193956404725932, 2.161209223472559, 0.389054609172366] }

-- d sin(e s) = cos(e s) (de s + e ds)
entry both_active [n] (xs: [n]f64) (s: f64) (dxs: [n]f64) (ds: f64) =
  jvp (\(v, k) -> map (\e -> f64.sin (e * k)) v) (xs, s) (dxs, ds)

-- ==
-- entry: maps
-- input { [1.0, 2.0] [3.0, 4.0] [5.0, 6.0] } output { [16.0, 22.0] }

-- d(x*y + 2*z*x) with all tangents 1 is y + x + 2x + 2z
entry maps [n] (a: [n]f64) (b: [n]f64) (c: [n]f64) =
  jvp (\(p, q, r) -> map3 (\x y z -> x * y + 2 * z * x) p q r) (a, b, c) (map (const 1) a, map (const 1) b, map (const 1) c)

-- ==
-- entry: nested_map
-- input { [[1.0, 2.0], [3.0, 4.0]] 2.0 } output { [[2.0, 4.0], [6.0, 8.0]] }

entry nested_map (m: [][]f64) (x: f64) = jvp (\t -> map (map (\e -> e * t * t / 2)) m) x 1
