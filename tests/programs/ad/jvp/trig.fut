-- Derivatives of sin, cos and tan (f64).
-- ==
-- entry: sin_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 1.0f64 } output { 0.5403023058681398f64 }
-- input { -2.0f64 } output { -0.4161468365471424f64 }

entry sin_fwd (x: f64) = jvp f64.sin x 1

-- ==
-- entry: sin_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 1.0f64 2.5 } output { 1.3507557646703494f64 }
-- input { -2.0f64 2.5 } output { -1.040367091367856f64 }

entry sin_scaled (x: f64) (dx: f64) = jvp f64.sin x dx

-- ==
-- entry: cos_fwd
-- input { 0.0f64 } output { -0.0f64 }
-- input { 1.0f64 } output { -0.8414709848078965f64 }
-- input { -2.0f64 } output { 0.9092974268256817f64 }

entry cos_fwd (x: f64) = jvp f64.cos x 1

-- ==
-- entry: cos_scaled
-- input { 0.0f64 2.5 } output { -0.0f64 }
-- input { 1.0f64 2.5 } output { -2.1036774620197414f64 }
-- input { -2.0f64 2.5 } output { 2.2732435670642044f64 }

entry cos_scaled (x: f64) (dx: f64) = jvp f64.cos x dx

-- ==
-- entry: tan_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 0.5f64 } output { 1.2984464104095248f64 }
-- input { -1.0f64 } output { 3.425518820814759f64 }

entry tan_fwd (x: f64) = jvp f64.tan x 1

-- ==
-- entry: tan_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 0.5f64 2.5 } output { 3.246116026023812f64 }
-- input { -1.0f64 2.5 } output { 8.563797052036898f64 }

entry tan_scaled (x: f64) (dx: f64) = jvp f64.tan x dx

