-- scan with max and min: each prefix's cotangent goes to the first element equal to that prefix's
-- extremum.

-- ==
-- entry: running_max
-- input { [1.0, 3.0, 2.0, 3.0, 5.0, 0.0] [1.0, 1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [1.0, 3.0, 0.0, 0.0, 2.0, 0.0] }
-- input { [2.0, 2.0, 2.0, 2.0, 2.0, 2.0] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] }
-- output { [21.0, 0.0, 0.0, 0.0, 0.0, 0.0] }
entry running_max (xs: [6]f64) (yb: [6]f64) = vjp (scan f64.max (-f64.inf)) xs yb

-- ==
-- entry: running_min
-- input { [5.0, 3.0, 4.0, 3.0, 1.0] }
-- output { [1.0, 3.0, 0.0, 0.0, 1.0] }
-- input { [0.0, 0.0, 1.0, -1.0, -1.0] }
-- output { [3.0, 0.0, 0.0, 2.0, 0.0] }
entry running_min (xs: [5]f64) = vjp (\v -> f64.sum (scan f64.min f64.inf v)) xs 1
