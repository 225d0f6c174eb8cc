-- Conditionals: the branch taken is differentiated, the condition is not.
-- ==
-- entry: primal
-- input { 2.0 } output { 8.0 }
-- input { -2.0 } output { 4.0 }
-- input { 0.0 } output { 0.0 }

entry primal (x: f64) = if x > 0 then x * x * x else x * x

-- ==
-- entry: fwd
-- input { 2.0 } output { 12.0 }
-- input { -2.0 } output { -4.0 }
-- input { 0.0 } output { 0.0 }

entry fwd (x: f64) = jvp (\t -> if t > 0 then t * t * t else t * t) x 1

-- ==
-- entry: tuple_branches
-- input { 1.0 3.0 } output { 1.0 0.0 }
-- input { 5.0 3.0 } output { 0.0 3.0 }

entry tuple_branches (x: f64) (y: f64) =
  jvp (\(a, b) -> if a < b then (a, 0) else (b, a * b)) (x, y) (1, 0)

-- ==
-- entry: nested_if
-- input { -5.0 } output { 0.0 }
-- input { 0.5 } output { 1.0 }
-- input { 3.0 } output { 2.0 }

entry nested_if (x: f64) =
  jvp (\t -> if t < 0 then 0 else if t < 1 then t else 2 * t - 1) x 1
