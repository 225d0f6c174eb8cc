-- An f32 map with free f32 scalars and arrays.

-- ==
-- entry: grad
-- input { [0.5f32, -1.0f32, 2.0f32, 0.0f32] [1.0f32, 2.0f32, 0.5f32, -1.0f32] 0.25f32 }
-- output { [0.59658575f32, 0.22762418f32, 0.14020742f32, -0.94001484f32] 1.9308275f32 }
entry grad (xs: [4]f32) (w: [4]f32) (b: f32) = vjp (\(x, c) -> f32.sum (map2 (\t u -> f32.tanh (t * u + c)) x w)) (xs, b) 1
