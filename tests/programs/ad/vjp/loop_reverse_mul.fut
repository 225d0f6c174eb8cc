-- Long loops whose carried update is x * e (invertible by division unless e is zero): the
-- gradient must stay exact when some factors are zero.

-- ==
-- entry: grad
-- input { 2.0 [1.5, 2.0, 0.5, -1.0] }
-- output { -1.5 [-2.0, -1.5, -6.0, 3.0] }
-- input { 2.0 [1.5, 0.0, 0.5, -1.0] }
-- output { -0.0 [-0.0, -1.5, -0.0, 0.0] }
-- input { 2.0 [0.0, 2.0, 0.0, 3.0] }
-- output { 0.0 [0.0, 0.0, 0.0, 0.0] }
-- input { 0.0 [1.0, 2.0, 3.0] }
-- output { 6.0 [0.0, 0.0, 0.0] }
entry grad [n] (x: f64) (es: [n]f64) = vjp (\(t, v) -> loop y = t for i < n do y * v[i]) (x, es) 1

-- ==
-- entry: long
-- input { 1.5 0.001 }
-- output { 1.0007256246773824 0.7131916325368115 }
-- input { -1.0 0.0005 }
-- output { 1.0004253325109957 -0.7256700241430648 }
entry long (x: f64) (c: f64) = vjp (\(t, k) -> loop y = t for i < 1000 do y * (1 + k * f64.cos (f64.i64 i))) (x, c) 1
