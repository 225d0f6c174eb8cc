-- Type abbreviations, with and without size parameters.
type real = f64
type mat [n] = [n][n]real

def trace [n] (m: mat [n]) : real = reduce (+) 0 (tabulate n (\i -> m[i, i]))

-- ==
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { 5.0 }
-- input { empty([0][0]f64) } output { 0.0 }

entry main [n] (m: [n][n]f64) = trace m
