-- Derivatives of sqrt, rsqrt, cbrt and recip (f64).
-- ==
-- entry: sqrt_fwd
-- input { 1.0f64 } output { 0.5f64 }
-- input { 4.0f64 } output { 0.25f64 }
-- input { 0.25f64 } output { 1.0f64 }

entry sqrt_fwd (x: f64) = jvp f64.sqrt x 1

-- ==
-- entry: sqrt_scaled
-- input { 1.0f64 2.5 } output { 1.25f64 }
-- input { 4.0f64 2.5 } output { 0.625f64 }
-- input { 0.25f64 2.5 } output { 2.5f64 }

entry sqrt_scaled (x: f64) (dx: f64) = jvp f64.sqrt x dx

-- ==
-- entry: rsqrt_fwd
-- input { 1.0f64 } output { -0.5f64 }
-- input { 4.0f64 } output { -0.0625f64 }
-- input { 0.25f64 } output { -4.0f64 }

entry rsqrt_fwd (x: f64) = jvp f64.rsqrt x 1

-- ==
-- entry: rsqrt_scaled
-- input { 1.0f64 2.5 } output { -1.25f64 }
-- input { 4.0f64 2.5 } output { -0.15625f64 }
-- input { 0.25f64 2.5 } output { -10.0f64 }

entry rsqrt_scaled (x: f64) (dx: f64) = jvp f64.rsqrt x dx

-- ==
-- entry: cbrt_fwd
-- input { 1.0f64 } output { 0.3333333333333333f64 }
-- input { 8.0f64 } output { 0.08333333333333333f64 }
-- input { -27.0f64 } output { 0.03703703703703702f64 }

entry cbrt_fwd (x: f64) = jvp f64.cbrt x 1

-- ==
-- entry: cbrt_scaled
-- input { 1.0f64 2.5 } output { 0.8333333333333333f64 }
-- input { 8.0f64 2.5 } output { 0.20833333333333331f64 }
-- input { -27.0f64 2.5 } output { 0.09259259259259256f64 }

entry cbrt_scaled (x: f64) (dx: f64) = jvp f64.cbrt x dx

-- ==
-- entry: recip_fwd
-- input { 1.0f64 } output { -1.0f64 }
-- input { 2.0f64 } output { -0.25f64 }
-- input { -0.5f64 } output { -4.0f64 }

entry recip_fwd (x: f64) = jvp f64.recip x 1

-- ==
-- entry: recip_scaled
-- input { 1.0f64 2.5 } output { -2.5f64 }
-- input { 2.0f64 2.5 } output { -0.625f64 }
-- input { -0.5f64 2.5 } output { -10.0f64 }

entry recip_scaled (x: f64) (dx: f64) = jvp f64.recip x dx

