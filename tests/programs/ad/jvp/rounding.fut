-- floor, ceil, round, trunc, sgn have derivative zero; abs has sgn x, 0 at 0 (f64).
-- ==
-- entry: floor_fwd
-- input { 1.5f64 } output { 0.0f64 }
-- input { -2.3f64 } output { 0.0f64 }
-- input { 3.0f64 } output { 0.0f64 }

entry floor_fwd (x: f64) = jvp f64.floor x 1

-- ==
-- entry: floor_scaled
-- input { 1.5f64 2.5 } output { 0.0f64 }
-- input { -2.3f64 2.5 } output { 0.0f64 }
-- input { 3.0f64 2.5 } output { 0.0f64 }

entry floor_scaled (x: f64) (dx: f64) = jvp f64.floor x dx

-- ==
-- entry: ceil_fwd
-- input { 1.5f64 } output { 0.0f64 }
-- input { -2.3f64 } output { 0.0f64 }

entry ceil_fwd (x: f64) = jvp f64.ceil x 1

-- ==
-- entry: ceil_scaled
-- input { 1.5f64 2.5 } output { 0.0f64 }
-- input { -2.3f64 2.5 } output { 0.0f64 }

entry ceil_scaled (x: f64) (dx: f64) = jvp f64.ceil x dx

-- ==
-- entry: round_fwd
-- input { 1.5f64 } output { 0.0f64 }
-- input { -2.7f64 } output { 0.0f64 }

entry round_fwd (x: f64) = jvp f64.round x 1

-- ==
-- entry: round_scaled
-- input { 1.5f64 2.5 } output { 0.0f64 }
-- input { -2.7f64 2.5 } output { 0.0f64 }

entry round_scaled (x: f64) (dx: f64) = jvp f64.round x dx

-- ==
-- entry: trunc_fwd
-- input { 1.5f64 } output { 0.0f64 }
-- input { -2.7f64 } output { 0.0f64 }

entry trunc_fwd (x: f64) = jvp f64.trunc x 1

-- ==
-- entry: trunc_scaled
-- input { 1.5f64 2.5 } output { 0.0f64 }
-- input { -2.7f64 2.5 } output { 0.0f64 }

entry trunc_scaled (x: f64) (dx: f64) = jvp f64.trunc x dx

-- ==
-- entry: sgn_fwd
-- input { 1.5f64 } output { 0.0f64 }
-- input { -2.7f64 } output { 0.0f64 }
-- input { 0.0f64 } output { 0.0f64 }

entry sgn_fwd (x: f64) = jvp f64.sgn x 1

-- ==
-- entry: sgn_scaled
-- input { 1.5f64 2.5 } output { 0.0f64 }
-- input { -2.7f64 2.5 } output { 0.0f64 }
-- input { 0.0f64 2.5 } output { 0.0f64 }

entry sgn_scaled (x: f64) (dx: f64) = jvp f64.sgn x dx

-- ==
-- entry: abs_fwd
-- input { 1.5f64 } output { 1.0f64 }
-- input { -2.7f64 } output { -1.0f64 }
-- input { 0.0f64 } output { 0.0f64 }

entry abs_fwd (x: f64) = jvp f64.abs x 1

-- ==
-- entry: abs_scaled
-- input { 1.5f64 2.5 } output { 2.5f64 }
-- input { -2.7f64 2.5 } output { -2.5f64 }
-- input { 0.0f64 2.5 } output { 0.0f64 }

entry abs_scaled (x: f64) (dx: f64) = jvp f64.abs x dx

