-- scan with min/max: ties go to the earlier element.
-- ==
-- entry: running_max
-- input { [1.0, 3.0, 2.0, 3.0, 5.0] [10.0, 20.0, 30.0, 40.0, 50.0] }
-- output { [10.0, 20.0, 20.0, 20.0, 50.0] }

entry running_max (xs: []f64) (dxs: []f64) = jvp (scan f64.max f64.lowest) xs dxs

-- ==
-- entry: running_min
-- input { [4.0, 4.0, 2.0, 6.0, 2.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [1.0, 1.0, 3.0, 3.0, 3.0] }

entry running_min (xs: []f64) (dxs: []f64) = jvp (scan f64.min f64.highest) xs dxs
