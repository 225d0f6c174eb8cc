-- f64.max and f64.min: the returned operand gets the cotangent; on a tie the first operand.

-- ==
-- entry: grad
-- input { 1.0 2.0 }
-- output { 3.0 2.0 }
-- input { 3.0 -1.0 }
-- output { 2.0 3.0 }
-- input { 2.0 2.0 }
-- output { 5.0 0.0 }
-- input { -0.5 -0.5 }
-- output { 5.0 0.0 }
entry grad (x: f64) (y: f64) = vjp (\(a, b) -> 2 * f64.max a b + 3 * f64.min a b) (x, y) 1

-- ==
-- entry: relu
-- input { 1.5 }
-- output { 1.0 }
-- input { -1.5 }
-- output { 0.0 }
-- input { 0.0 }
-- output { 1.0 }
entry relu (x: f64) = vjp (\t -> f64.max t 0) x 1

-- ==
-- entry: clamp
-- input { 0.1 }
-- output { 2.0 }
-- input { 0.5 }
-- output { 0.0 }
-- input { -0.5 }
-- output { 0.0 }
-- input { 3.0 }
-- output { 0.0 }
-- input { -2.0 }
-- output { 0.0 }
entry clamp (x: f64) = vjp (\t -> f64.min 1 (f64.max (-1) (2 * t))) x 1
