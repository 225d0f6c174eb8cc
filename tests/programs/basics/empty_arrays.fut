-- Operations on arrays with a zero dimension.
-- ==
-- input { empty([0][3]f64) } output { empty([3][0]f64) 0.0 empty([0]f64) }

entry main [n] [m] (a: [n][m]f64) = (transpose a, reduce (+) 0 (flatten a), map (\r -> reduce (+) 0 r) a)
