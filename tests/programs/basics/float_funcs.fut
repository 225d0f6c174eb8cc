-- Float functions of the numeric modules.
-- ==
-- input { 2.25 } output { 1.5 2.0 3.0 }

entry main (x: f64) = (f64.sqrt x, f64.floor x, f64.ceil x)

-- ==
-- entry: rounding
-- input { [2.5, 3.5, -2.5, 0.4, -0.6] }
-- output { [2.0, 4.0, -2.0, 0.0, -1.0] [2.0, 3.0, -2.0, 0.0, -0.0] }

entry rounding (xs: []f64) = (map f64.round xs, map f64.trunc xs)

-- ==
-- entry: transcendental
-- input { 0.0 } output { 1.0 0.0 1.0 0.0 }
-- input { 1.0 } output { 2.718281828459045 0.8414709848078965 0.5403023058681398 0.6931471805599453 }

entry transcendental (x: f64) = (f64.exp x, f64.sin x, f64.cos x, f64.log (1 + x))

-- ==
-- entry: nan_handling
-- input { 1.0 } output { 1.0 1.0 true false true }

entry nan_handling (x: f64) =
  (f64.max f64.nan x, f64.min x f64.nan, f64.isnan (f64.nan + x), f64.nan == f64.nan, f64.nan != x)

-- ==
-- entry: sgn_abs
-- input { -3.5f32 } output { -1.0f32 3.5f32 3.5f32 }
-- input { 0.0f32 } output { 0.0f32 0.0f32 -0.0f32 }

entry sgn_abs (x: f32) = (f32.sgn x, f32.abs x, -x)

-- ==
-- entry: fmod
-- input { 7.5 2.0 } output { 1.5 }
-- input { -7.5 2.0 } output { -1.5 }

entry fmod (x: f64) (y: f64) = x % y
