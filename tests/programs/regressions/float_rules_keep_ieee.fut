-- The optimiser keeps IEEE 754 results: `0 * x`, `x * 0 + y` and `x - x` are NaN when `x` is
-- infinite or NaN.
-- ==
-- entry: main
-- input { f64.inf 1.0f64 }
-- output { f64.nan f64.nan f64.nan }
-- input { f64.nan 1.0f64 }
-- output { f64.nan f64.nan f64.nan }
-- input { 2.0f64 1.0f64 }
-- output { 0.0f64 1.0f64 0.0f64 }

entry main (x: f64) (y: f64) = (0 * x, x * 0 + y, x - x)

-- ==
-- entry: single
-- input { -f32.inf }
-- output { f32.nan f32.nan f32.nan }

entry single (x: f32) = (x * 0, 0 / (x - x), f32.fma x 0 1)

