-- Partial derivatives of + - * / on f64, with a tangent tuple for the two operands.
-- ==
-- entry: add
-- input { 3.0 2.0 1.0 0.0 } output { 1.0 }
-- input { 3.0 2.0 0.0 1.0 } output { 1.0 }
-- input { 3.0 2.0 0.5 2.0 } output { 2.5 }

entry add (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> a + b) (x, y) (dx, dy)

-- ==
-- entry: sub
-- input { 3.0 2.0 1.0 0.0 } output { 1.0 }
-- input { 3.0 2.0 0.0 1.0 } output { -1.0 }
-- input { 3.0 2.0 0.5 2.0 } output { -1.5 }

entry sub (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> a - b) (x, y) (dx, dy)

-- ==
-- entry: mul
-- input { 3.0 2.0 1.0 0.0 } output { 2.0 }
-- input { 3.0 2.0 0.0 1.0 } output { 3.0 }
-- input { 3.0 2.0 0.5 2.0 } output { 7.0 }

entry mul (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> a * b) (x, y) (dx, dy)

-- ==
-- entry: div
-- input { 3.0 2.0 1.0 0.0 } output { 0.5 }
-- input { 3.0 2.0 0.0 1.0 } output { -0.75 }
-- input { 3.0 2.0 0.5 2.0 } output { -1.25 }

entry div (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> a / b) (x, y) (dx, dy)

-- ==
-- entry: negs
-- input { 3.0 } output { -1.0 -1.0 1.0 }

entry negs (x: f64) = (jvp (\a -> -a) x 1, jvp f64.neg x 1, jvp (\a -> -(-a)) x 1)
