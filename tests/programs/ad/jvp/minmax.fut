-- max and min: the returned operand gets the tangent; ties go to the first operand;
-- a NaN operand loses.
-- ==
-- entry: fmax
-- input { 1.0 2.0 10.0 20.0 } output { 20.0 }
-- input { 3.0 2.0 10.0 20.0 } output { 10.0 }
-- input { 2.0 2.0 10.0 20.0 } output { 10.0 }
-- input { f64.nan 2.0 10.0 20.0 } output { 20.0 }
-- input { 2.0 f64.nan 10.0 20.0 } output { 10.0 }

entry fmax (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> f64.max a b) (x, y) (dx, dy)

-- ==
-- entry: fmin
-- input { 1.0 2.0 10.0 20.0 } output { 10.0 }
-- input { 3.0 2.0 10.0 20.0 } output { 20.0 }
-- input { 2.0 2.0 10.0 20.0 } output { 10.0 }
-- input { f64.nan 2.0 10.0 20.0 } output { 20.0 }

entry fmin (x: f64) (y: f64) (dx: f64) (dy: f64) = jvp (\(a, b) -> f64.min a b) (x, y) (dx, dy)

-- ==
-- entry: imax
-- input { 1 2 10 20 } output { 20 10 }
-- input { 2 2 10 20 } output { 10 10 }

entry imax (x: i32) (y: i32) (dx: i32) (dy: i32) =
  (jvp (\(a, b) -> i32.max a b) (x, y) (dx, dy), jvp (\(a, b) -> i32.min a b) (x, y) (dx, dy))

-- ==
-- entry: swapped_tie
-- input { 2.0 } output { 0.0 1.0 }

-- with equal operands, max (y) (x) returns its first operand y
entry swapped_tie (x: f64) =
  (jvp (\a -> f64.max 2.0 a) x 1, jvp (\a -> f64.max a 2.0) x 1)
