-- scatter into a fresh destination (spread-like) and into an f32 array.

-- ==
-- entry: fresh
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [0.0, 1.0, 5.0] }
entry fresh (vs: [3]f64) (yb: [5]f64) = vjp (\v -> scatter (replicate 5 0) [4, 0, 4] v) vs yb

-- ==
-- entry: single
-- input { [1.0f32, 2.0f32, 3.0f32] [1.0f32, 1.0f32, 1.0f32] }
-- output { [0.0f32, 4.0f32, 3.0f32] }
-- input { [1.0f32, 2.0f32, 3.0f32] [2.0f32, 0.5f32, -1.0f32] }
-- output { [0.0f32, 6.5f32, 3.0f32] }
entry single (xs: [3]f32) (yb: [3]f32) = vjp (\v -> scatter (copy v) [0, 5] [v[2] * v[1], 1]) xs yb
