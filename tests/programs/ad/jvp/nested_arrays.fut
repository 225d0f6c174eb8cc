-- Nesting with arrays: jvp inside map inside jvp, jmp inside jvp (second derivatives).
-- ==
-- entry: hessian_diag
-- input { [1.0, 2.0] } output { [6.0, 12.0] }

-- f(v) = sum v^3; the Hessian is diag(6 v)
entry hessian_diag [n] (x: [n]f64) =
  let f = \v -> f64.sum (map (\t -> t * t * t) v)
  let grad = \v -> jmp f v (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j))))
  in jvp grad x (replicate n 1)

-- ==
-- entry: per_element
-- input { [1.0, 2.0, 3.0] 2.0 } output { [2.0, 4.0, 6.0] }

-- d/ds of map (\e -> d/dy (e * s * y)) = d/ds (e * s) = e
entry per_element (xs: []f64) (s: f64) =
  jvp (\k -> map (\e -> jvp (\y -> e * k * y * y) 1 0.5) xs) s 2

-- ==
-- entry: loop_confusion
-- input { 2.0 } output { 12.0 }

-- the inner jvp is x, so the loop computes x * x * x; derivative 3 x^2
entry loop_confusion (x: f64) =
  jvp (\a -> loop acc = a for _i < 2 do acc * jvp (\y -> a * y) 1 1) x 1
