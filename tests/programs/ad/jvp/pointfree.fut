-- jvp partially applied, passed to map, and used point-free.
def cube (x: f64) = x * x * x

-- ==
-- entry: d_cube
-- input { 2.0 1.0 } output { 12.0 }
-- input { -1.0 2.0 } output { 6.0 }

entry d_cube = jvp cube

-- ==
-- entry: over_points
-- input { [0.0, 1.0, 2.0] } output { [0.0, 3.0, 12.0] }

entry over_points (xs: []f64) = map (\x -> jvp cube x 1) xs

-- ==
-- entry: over_tangents
-- input { 2.0 [1.0, 0.5, -1.0] } output { [12.0, 6.0, -12.0] }

entry over_tangents (x: f64) (dxs: []f64) = map (jvp cube x) dxs

-- ==
-- entry: composed
-- input { 0.5 } output { 1.0 }

-- d/dx exp(log(x) * 1) = 1
entry composed (x: f64) = jvp (f64.log >-> (* 1) >-> f64.exp) x 1

-- ==
-- entry: piped
-- input { 3.0 } output { 10.0 }

-- d/dx (x + 2)^2 = 2 (x + 2)
entry piped (x: f64) = jvp (\t -> t |> (+ 2) |> (\u -> u * u)) x 1
