-- A long loop rotating a pair of values (an invertible update): 1000 steps of a rotation by an
-- angle that is itself differentiated.

-- ==
-- entry: grad
-- input { 1.0 0.0 0.001 }
-- output { 1.922075596544176 -1.1426396637476532 -1142.6396637476532 }
-- input { 0.5 -2.0 0.01 }
-- output { -2.2221641690422747 0.2489706927022871 -4319.842991733405 }
entry grad (x: f64) (y: f64) (th: f64) =
  vjp (\(a0, b0, t) -> let (a, b) = loop (a, b) = (a0, b0) for _i < 1000 do (f64.cos t * a - f64.sin t * b, f64.sin t * a + f64.cos t * b) in a * 2 + b) (x, y, th) 1

-- ==
-- entry: damped
-- input { 1.0 2.0 }
-- output { 0.7784230005300066 -0.7799577001817783 }
entry damped (x: f64) (y: f64) = vjp (\(a0, b0) -> let (a, b) = loop (a, b) = (a0, b0) for i < 500 do (b, a + b * 0.001 * f64.i64 (i % 3)) in a - b) (x, y) 1
