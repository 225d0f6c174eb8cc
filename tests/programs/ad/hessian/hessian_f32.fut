-- An f32 Hessian-vector product and second derivative.

def f [n] (x: [n]f32) : f32 = f32.sum (map (\t -> f32.sin t * t) x) * f32.sum x

-- ==
-- entry: hvp
-- input { [0.5f32, 1.0f32, -1.0f32] [1.0f32, 0.0f32, 1.0f32] }
-- output { [2.1306033f32, 2.2999902f32, -3.1075363f32] }
entry hvp [n] (x: [n]f32) (v: [n]f32) = jvp (\y -> vjp f y 1) x v

-- ==
-- entry: d2
-- input { 0.5f32 }
-- output { 3.8520763f32 }
-- input { -1.0f32 }
-- output { 16.30969f32 }
entry d2 (x: f32) = vjp (\y -> vjp (\t -> f32.exp (t * t)) y 1) x 1
