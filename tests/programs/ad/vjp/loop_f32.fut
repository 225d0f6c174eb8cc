-- An f32 loop with a free f32 array.

-- ==
-- entry: grad
-- input { 0.5f32 [1.5f32, -0.5f32, 2.0f32] }
-- output { -0.21727785f32 [-0.34579593f32, 1.7744913f32, -0.38714087f32] }
entry grad (x: f32) (ws: [3]f32) = vjp (\(t, w) -> loop y = t for i < 9 do f32.tanh (y * w[i % 3] + 0.1)) (x, ws) 1
