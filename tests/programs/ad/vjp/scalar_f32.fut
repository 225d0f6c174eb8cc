-- f32 straight-line code in reverse mode.

-- ==
-- entry: grad
-- input { 0.5f32 1.0f32 }
-- output { 1.2006779f32 0.19189602f32 }
-- input { -1.0f32 2.0f32 }
-- output { -0.5888362f32 -0.63724124f32 }
-- input { 0.0f32 0.0f32 }
-- output { 0.0f32 1.0f32 }
entry grad (x: f32) (y: f32) = vjp (\(a, b) -> f32.exp (a * b) / (1 + b * b) + f32.sqrt (a * a + 1) * f32.sin b) (x, y) 1

-- ==
-- entry: to_f64
-- input { 1.5f32 }
-- output { 6.0f32 }
-- input { -0.25f32 }
-- output { -1.0f32 }
entry to_f64 (x: f32) = vjp (\t -> f64.f32 t * f64.f32 t) x 2
