-- ldexp (2^k for x, 0 for k), copysign (sgn x * sgn y, 0), nextafter (1, 0).
-- ==
-- entry: ldexps
-- input { 1.5 3 } output { 8.0 0.125 }
-- input { -2.0 0 } output { 1.0 1.0 }

entry ldexps (x: f64) (k: i32) = (jvp (\(a, j) -> f64.ldexp a j) (x, k) (1, 5), jvp (\a -> f64.ldexp a (-k)) x 1)

-- ==
-- entry: copysigns
-- input { 2.0 -3.0 } output { -1.0 0.0 }
-- input { 2.0 3.0 } output { 1.0 0.0 }
-- input { -2.0 3.0 } output { -1.0 0.0 }
-- input { -2.0 -3.0 } output { 1.0 0.0 }
-- input { 2.0 0.0 } output { 1.0 0.0 }
-- input { 2.0 -0.0 } output { -1.0 0.0 }

entry copysigns (x: f64) (y: f64) = (jvp (\a -> f64.copysign a y) x 1, jvp (\b -> f64.copysign x b) y 1)

-- ==
-- entry: nextafters
-- input { 1.0 2.0 } output { 1.0 0.0 }

entry nextafters (x: f64) (y: f64) = (jvp (\a -> f64.nextafter a y) x 1, jvp (\b -> f64.nextafter x b) y 1)
