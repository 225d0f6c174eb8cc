-- GradBench `hello`: f(x) = x² (`square`) and its derivative (`double`).

entry square (x: f64) : f64 = x * x

-- ==
-- entry: square
-- input { 3.0 }
-- output { 9.0 }

entry double (x: f64) : f64 = vjp square x 1

-- ==
-- entry: double
-- input { 3.0 }
-- output { 6.0 }
