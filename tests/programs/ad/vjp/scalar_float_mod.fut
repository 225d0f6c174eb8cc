-- Float remainder: partials 1 and -trunc(x/y); also with negative operands.

-- ==
-- entry: grad
-- input { 7.5 2.0 }
-- output { 1.0 -3.0 }
-- input { -7.5 2.0 }
-- output { 1.0 3.0 }
-- input { 1.0 3.0 }
-- output { 1.0 0.0 }
-- input { 10.0 -3.0 }
-- output { 1.0 3.0 }
entry grad (x: f64) (y: f64) = vjp (\(a, b) -> a % b) (x, y) 1

-- ==
-- entry: f32mod
-- input { 5.5f32 2.0f32 }
-- output { 2.0f32 -4.0f32 }
-- input { -9.0f32 4.0f32 }
-- output { 2.0f32 4.0f32 }
entry f32mod (x: f32) (y: f32) = vjp (\(a, b) -> a % b * 2) (x, y) 1
