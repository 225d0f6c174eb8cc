-- Derivatives of asin, acos and atan (f64).
-- ==
-- entry: asin_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 0.5f64 } output { 1.1547005383792517f64 }
-- input { -0.8f64 } output { 1.666666666666667f64 }

entry asin_fwd (x: f64) = jvp f64.asin x 1

-- ==
-- entry: asin_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 0.5f64 2.5 } output { 2.886751345948129f64 }
-- input { -0.8f64 2.5 } output { 4.166666666666668f64 }

entry asin_scaled (x: f64) (dx: f64) = jvp f64.asin x dx

-- ==
-- entry: acos_fwd
-- input { 0.0f64 } output { -1.0f64 }
-- input { 0.5f64 } output { -1.1547005383792517f64 }
-- input { -0.8f64 } output { -1.666666666666667f64 }

entry acos_fwd (x: f64) = jvp f64.acos x 1

-- ==
-- entry: acos_scaled
-- input { 0.0f64 2.5 } output { -2.5f64 }
-- input { 0.5f64 2.5 } output { -2.886751345948129f64 }
-- input { -0.8f64 2.5 } output { -4.166666666666668f64 }

entry acos_scaled (x: f64) (dx: f64) = jvp f64.acos x dx

-- ==
-- entry: atan_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 1.0f64 } output { 0.5f64 }
-- input { -3.0f64 } output { 0.1f64 }

entry atan_fwd (x: f64) = jvp f64.atan x 1

-- ==
-- entry: atan_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 1.0f64 2.5 } output { 1.25f64 }
-- input { -3.0f64 2.5 } output { 0.25f64 }

entry atan_scaled (x: f64) (dx: f64) = jvp f64.atan x dx

