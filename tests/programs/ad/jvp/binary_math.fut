-- atan2, atan2pi, hypot, fma, mad, lerp (f64).
-- ==
-- entry: atan2s
-- input { 1.0 2.0 } output { 0.4 -0.2 0.12732395447351627 -0.06366197723675814 }
-- input { -3.0 0.0 } output { 0.0 0.3333333333333333 0.0 0.1061032953945969 }

entry atan2s (y: f64) (x: f64) =
  ( jvp (\a -> f64.atan2 a x) y 1, jvp (\b -> f64.atan2 y b) x 1
  , jvp (\a -> f64.atan2pi a x) y 1, jvp (\b -> f64.atan2pi y b) x 1 )

-- ==
-- entry: hypots
-- input { 3.0 4.0 1.0 0.0 } output { 0.6 }
-- input { 3.0 4.0 0.0 1.0 } output { 0.8 }
-- input { 3.0 4.0 5.0 10.0 } output { 11.0 }
-- input { 0.0 0.0 1.0 1.0 } output { 0.0 }

entry hypots (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> f64.hypot a b) (x, y) (dx, dy)

-- ==
-- entry: fmas
-- input { 2.0 3.0 4.0 } output { 123.0 123.0 }
-- input { -1.0 0.5 7.0 } output { 90.5 90.5 }

entry fmas (a: f64) (b: f64) (c: f64) =
  ( jvp (\(p, q, r) -> f64.fma p q r) (a, b, c) (1, 10, 100)
  , jvp (\(p, q, r) -> f64.mad p q r) (a, b, c) (1, 10, 100) )

-- ==
-- entry: lerps
-- input { 1.0 5.0 0.25 } output { 403.25 }
-- input { 2.0 2.0 0.5 } output { 5.5 }

entry lerps (v0: f64) (v1: f64) (t: f64) = jvp (\(p, q, r) -> f64.lerp p q r) (v0, v1, t) (1, 10, 100)
