-- A long loop whose carried update is x + e (invertible by subtraction): 2000 steps.

-- ==
-- entry: grad
-- input { 1.0 0.01 }
-- output { 1.0 0.8958032398263963 }
-- input { -3.0 0.5 }
-- output { 1.0 0.11988595866792157 }
entry grad (x: f64) (c: f64) = vjp (\(t, k) -> loop y = t for i < 2000 do y + f64.sin (k + 0.001 * f64.i64 i) * 0.001) (x, c) 1

-- ==
-- entry: sub
-- input { 1.0 0.1 }
-- output { 1.850290582788993 -2.7700592482035447 }
-- input { 5.0 -0.3 }
-- output { 8.652615245100938 38.86133957085405 }
entry sub (x: f64) (c: f64) = vjp (\(t, k) -> let y = loop y = t for i < 1000 do y - k * k / f64.i64 (i + 1) in y * y) (x, c) 1
