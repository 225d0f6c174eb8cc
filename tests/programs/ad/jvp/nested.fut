-- Nested jvp without perturbation confusion; higher derivatives.
-- ==
-- entry: confusion
-- input { } output { 1 }

entry confusion = jvp (\x -> x * jvp (\y -> x + y) 1 1) 1 1

-- ==
-- entry: confusion_f64
-- input { 3.0 } output { 6.0 }

-- the inner jvp gives x, so the outer function is x * x
entry confusion_f64 (x: f64) = jvp (\a -> a * jvp (\y -> a * y) 1 1) x 1

-- ==
-- entry: second
-- input { 2.0 } output { 12.0 6.0 }
-- input { -1.0 } output { -6.0 6.0 }

entry second (x: f64) =
  ( jvp (\a -> jvp (\t -> t * t * t) a 1) x 1
  , jvp (\b -> jvp (\a -> jvp (\t -> t * t * t) a 1) b 1) x 1 )

-- ==
-- entry: sin2
-- input { 1.0 } output { -0.8414709848078965 }

entry sin2 (x: f64) = jvp (\a -> jvp f64.sin a 1) x 1

-- ==
-- entry: captured_in_map
-- input { [1.0, 2.0, 3.0] 5.0 } output { 6.0 }

entry captured_in_map (xs: []f64) (s: f64) =
  jvp (\k -> f64.sum (map (\e -> jvp (\y -> y * k * e) 1 1) xs)) s 1

-- ==
-- entry: mixed_directions
-- input { 2.0 3.0 } output { 1.0 }

-- d/dx (d/dy x*y) = d/dx x = 1
entry mixed_directions (x: f64) (y: f64) = jvp (\a -> jvp (\b -> a * b) y 1) x 1
