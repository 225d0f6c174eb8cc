-- Value and derivative of polynomials in f64 and f32.
-- ==
-- entry: primal
-- input { 2.0 } output { 12.0 }
-- input { -1.0 } output { -3.0 }
-- input { 0.5 } output { 1.125 }

entry primal (x: f64) = x * x * x + 2 * x + 0 * x

-- ==
-- entry: fwd
-- input { 2.0 } output { 14.0 }
-- input { -1.0 } output { 5.0 }
-- input { 0.5 } output { 2.75 }

entry fwd (x: f64) = jvp (\t -> t * t * t + 2 * t + 0 * t) x 1

-- ==
-- entry: fwd32
-- input { 2.0f32 } output { 14.0f32 }
-- input { -1.0f32 } output { 5.0f32 }
-- input { 0.5f32 } output { 2.75f32 }

entry fwd32 (x: f32) = jvp (\t -> t * t * t + 2 * t) x 1

-- ==
-- entry: quotient
-- input { 1.0 } output { 0.0 }
-- input { 2.0 } output { -0.12 }
-- input { 0.0 } output { 1.0 }

-- d/dx x / (1 + x*x) = (1 - x*x) / (1 + x*x)^2
entry quotient (x: f64) = jvp (\t -> t / (1 + t * t)) x 1
