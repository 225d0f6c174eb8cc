-- Derivatives of exp, log, log2, log10 and log1p (f64).
-- ==
-- entry: exp_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 1.0f64 } output { 2.718281828459045f64 }
-- input { -2.0f64 } output { 0.1353352832366127f64 }

entry exp_fwd (x: f64) = jvp f64.exp x 1

-- ==
-- entry: exp_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 1.0f64 2.5 } output { 6.7957045711476125f64 }
-- input { -2.0f64 2.5 } output { 0.33833820809153176f64 }

entry exp_scaled (x: f64) (dx: f64) = jvp f64.exp x dx

-- ==
-- entry: log_fwd
-- input { 1.0f64 } output { 1.0f64 }
-- input { 2.0f64 } output { 0.5f64 }
-- input { 0.25f64 } output { 4.0f64 }

entry log_fwd (x: f64) = jvp f64.log x 1

-- ==
-- entry: log_scaled
-- input { 1.0f64 2.5 } output { 2.5f64 }
-- input { 2.0f64 2.5 } output { 1.25f64 }
-- input { 0.25f64 2.5 } output { 10.0f64 }

entry log_scaled (x: f64) (dx: f64) = jvp f64.log x dx

-- ==
-- entry: log2_fwd
-- input { 1.0f64 } output { 1.4426950408889634f64 }
-- input { 8.0f64 } output { 0.18033688011112042f64 }
-- input { 0.5f64 } output { 2.8853900817779268f64 }

entry log2_fwd (x: f64) = jvp f64.log2 x 1

-- ==
-- entry: log2_scaled
-- input { 1.0f64 2.5 } output { 3.6067376022224087f64 }
-- input { 8.0f64 2.5 } output { 0.4508422002778011f64 }
-- input { 0.5f64 2.5 } output { 7.213475204444817f64 }

entry log2_scaled (x: f64) (dx: f64) = jvp f64.log2 x dx

-- ==
-- entry: log10_fwd
-- input { 1.0f64 } output { 0.43429448190325176f64 }
-- input { 100.0f64 } output { 0.004342944819032518f64 }
-- input { 3.0f64 } output { 0.14476482730108392f64 }

entry log10_fwd (x: f64) = jvp f64.log10 x 1

-- ==
-- entry: log10_scaled
-- input { 1.0f64 2.5 } output { 1.0857362047581294f64 }
-- input { 100.0f64 2.5 } output { 0.010857362047581294f64 }
-- input { 3.0f64 2.5 } output { 0.36191206825270983f64 }

entry log10_scaled (x: f64) (dx: f64) = jvp f64.log10 x dx

-- ==
-- entry: log1p_fwd
-- input { 0.0f64 } output { 1.0f64 }
-- input { 1.0f64 } output { 0.5f64 }
-- input { -0.5f64 } output { 2.0f64 }

entry log1p_fwd (x: f64) = jvp f64.log1p x 1

-- ==
-- entry: log1p_scaled
-- input { 0.0f64 2.5 } output { 2.5f64 }
-- input { 1.0f64 2.5 } output { 1.25f64 }
-- input { -0.5f64 2.5 } output { 5.0f64 }

entry log1p_scaled (x: f64) (dx: f64) = jvp f64.log1p x dx

