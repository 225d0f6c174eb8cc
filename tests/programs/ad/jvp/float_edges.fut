-- More float edge points: 0 ** 0, abs at -0, isinf, r32/t32, opaque.
-- ==
-- entry: pow_zero_zero
-- input { 0.0 0.0 } output { 0.0 0.0 }
-- input { 0.0 -1.0 } output { 0.0 0.0 }

entry pow_zero_zero (x: f64) (y: f64) = (jvp (\a -> a ** y) x 1, jvp (\b -> x ** b) y 1)

-- ==
-- entry: abs_neg_zero
-- input { -0.0 } output { 0.0 }

entry abs_neg_zero (x: f64) = jvp f64.abs x 1

-- ==
-- entry: misc
-- input { 2.5 } output { false 1.0 1.0 }

entry misc (x: f64) = (jvp f64.isinf x 1, jvp opaque x 1, jvp (\t -> f64.sqrt (t * t)) x 1)

-- ==
-- entry: shortcuts
-- input { 3 2.5f32 } output { 2.0f32 1 }

entry shortcuts (n: i32) (x: f32) = (jvp r32 n 2, jvp t32 x 1.5)

-- ==
-- entry: max_nan_second
-- input { f64.nan 1.0 } output { 0.0 1.0 }

-- max nan y returns y, min y nan returns y
entry max_nan_second (x: f64) (y: f64) =
  (jvp (\a -> f64.max a y) x 1, jvp (\b -> f64.min b x) y 1)
