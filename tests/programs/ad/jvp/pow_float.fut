-- Derivatives of float `**`, including the fixed values at x = 0 and x <= 0 (docs/language.md
-- §Partial derivatives). ==
-- entry: pow_dx
-- input { 2.0 3.0 } output { 12.0 }
-- input { 4.0 0.5 } output { 0.25 }
-- input { -2.0 2.0 } output { -4.0 }
-- input { 0.0 0.5 } output { 0.0 }
-- input { 0.0 2.0 } output { 0.0 }
-- input { 0.0 1.0 } output { 1.0 }

entry pow_dx (x: f64) (y: f64) = jvp (\a -> a ** y) x 1

-- ==
-- entry: pow_dy
-- input { 2.0 3.0 } output { 5.545177444479562 }
-- input { 4.0 0.5 } output { 2.772588722239781 }
-- input { 1.0 5.0 } output { 0.0 }
-- input { 0.0 2.0 } output { 0.0 }
-- input { -2.0 2.0 } output { 0.0 }

entry pow_dy (x: f64) (y: f64) = jvp (\b -> x ** b) y 1

-- ==
-- entry: pow_both
-- input { 2.0 3.0 } output { 8.0 17.545177444479562 }

entry pow_both (x: f64) (y: f64) = jvp2 (\(a, b) -> a ** b) (x, y) (1, 1)
