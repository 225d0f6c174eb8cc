-- reduce with min/max: the derivative goes to the first element equal to the result.
-- ==
-- entry: maxi
-- input { [1.0, 3.0, 3.0, 2.0] [10.0, 20.0, 30.0, 40.0] } output { 20.0 }
-- input { [5.0, 3.0, 5.0] [10.0, 20.0, 30.0] } output { 10.0 }
-- input { [1.0, 2.0, 7.0] [10.0, 20.0, 30.0] } output { 30.0 }
-- input { empty([0]f64) empty([0]f64) } output { 0.0 }

entry maxi (xs: []f64) (dxs: []f64) = jvp f64.maximum xs dxs

-- ==
-- entry: mini
-- input { [1.0, 1.0] [5.0, 6.0] } output { 5.0 }
-- input { [4.0, 2.0, 3.0, 2.0] [1.0, 2.0, 3.0, 4.0] } output { 2.0 }

entry mini (xs: []f64) (dxs: []f64) = jvp f64.minimum xs dxs

-- ==
-- entry: explicit
-- input { [2.0, 9.0, 9.0] [1.0, 2.0, 3.0] } output { 2.0 1.0 }

entry explicit (xs: []f64) (dxs: []f64) =
  (jvp (reduce f64.max f64.lowest) xs dxs, jvp (reduce f64.min f64.highest) xs dxs)

-- ==
-- entry: ints
-- input { [3, 7, 7, 1] [1, 2, 3, 4] } output { 2 4 }

entry ints (xs: []i32) (dxs: []i32) = (jvp i32.maximum xs dxs, jvp i32.minimum xs dxs)
