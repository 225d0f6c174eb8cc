-- Integer `**`: y * x^(y-1) for the base (0 when y == 0) and 0 for the exponent.
-- ==
-- entry: pow_dx
-- input { 2 3 } output { 12 }
-- input { 5 0 } output { 0 }
-- input { 5 1 } output { 1 }
-- input { 0 1 } output { 1 }
-- input { 0 2 } output { 0 }
-- input { -2 3 } output { 12 }
-- input { 2 31 } output { -1073741824 }

entry pow_dx (x: i32) (y: i32) = jvp (\a -> a ** y) x 1

-- ==
-- entry: pow_dy
-- input { 2 3 } output { 0 }
-- input { 3 4 } output { 0 }

entry pow_dy (x: i32) (y: i32) = jvp (\b -> x ** b) y 1
