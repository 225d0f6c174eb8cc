-- Float `%`: partials 1 and -trunc(x/y).
-- ==
-- entry: fmod
-- input { 7.5 2.0 1.0 0.0 } output { 1.0 }
-- input { 7.5 2.0 0.0 1.0 } output { -3.0 }
-- input { -7.5 2.0 0.0 1.0 } output { 3.0 }
-- input { 7.5 2.0 1.0 1.0 } output { -2.0 }
-- input { 1.0 4.0 0.0 1.0 } output { 0.0 }

entry fmod (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> a % b) (x, y) (dx, dy)

-- ==
-- entry: fmod32
-- input { 7.5f32 2.0f32 } output { 1.0f32 -3.0f32 }

entry fmod32 (x: f32) (y: f32) = (jvp (\a -> a % y) x 1, jvp (\b -> x % b) y 1)
