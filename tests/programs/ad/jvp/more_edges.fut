-- More edge points of docs/language.md §Partial derivatives: copysign at 0, atan2 on the negative
-- axis, float % with a negative divisor, lgamma/gamma at a negative argument, ldexp in f32, integer
-- max/min ties, round, conversions of tangents.
-- ==
-- entry: cs0
-- input { 0.0 } output { 0.0 0.0 }
-- input { -2.0 } output { -1.0 1.0 }

entry cs0 (x: f64) = (jvp (\a -> f64.copysign a 3) x 1, jvp (\a -> f64.copysign a (-3)) x 1)

-- ==
-- entry: at2
-- input { 0.0 -1.0 } output { -1.0 0.0 }
-- input { 2.0 0.0 } output { 0.0 -0.5 }

entry at2 (y: f64) (x: f64) = (jvp (\a -> f64.atan2 a x) y 1, jvp (\b -> f64.atan2 y b) x 1)

-- ==
-- entry: fmodneg
-- input { 7.5 -2.0 } output { 3.0 }
-- input { -7.5 -2.0 } output { -3.0 }

entry fmodneg (x: f64) (y: f64) = jvp (\b -> x % b) y 1

-- ==
-- entry: gammas
-- input { -0.5 } output { 0.03648997397857652 -0.12935358979554007 }
-- input { 0.5 } output { -1.9635100260214235 -3.480230906913262 }

entry gammas (x: f64) = (jvp f64.lgamma x 1, jvp f64.gamma x 1)

-- ==
-- entry: ldx
-- input { 1.5f32 -2 } output { 0.25f32 }
-- input { 1.5f32 4 } output { 16.0f32 }

entry ldx (x: f32) (k: i32) = jvp (\a -> f32.ldexp a k) x 1

-- ==
-- entry: sgn_times
-- input { -3.0f32 } output { -1.0f32 }
-- input { 3.0f32 } output { 1.0f32 }

entry sgn_times (x: f32) = jvp (\t -> f32.sgn t * t) x 1

-- ==
-- entry: int_ties
-- input { 5i64 5i64 } output { 101i64 }
-- input { 4i64 5i64 } output { 101i64 }
-- input { 6i64 5i64 } output { 101i64 }

-- max a b and min b a: on a tie the first operand of each wins (a, then b)
entry int_ties (x: i64) (y: i64) = jvp (\(a, b) -> i64.max a b + i64.min b a) (x, y) (1, 100)

-- ==
-- entry: round_half
-- input { 2.5 } output { 1.0 }
-- input { -0.5 } output { 1.0 }

entry round_half (x: f64) = jvp (\t -> f64.round t + t) x 1

-- ==
-- entry: conv_tangent
-- input { 1.0f32 3i64 } output { 200u8 6.0 }

entry conv_tangent (x: f32) (k: i64) = (jvp u8.f32 x 200, jvp (\j -> f64.i64 j ** 2) k 1)
