-- reduce with (*): exact when elements are zero.
-- ==
-- entry: prod
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 1.0, 1.0, 1.0] } output { 50.0 }
-- input { [0.0, 2.0, 0.0, 4.0] [1.0, 1.0, 1.0, 1.0] } output { 0.0 }
-- input { [1.0, 0.0, 3.0] [1.0, 1.0, 1.0] } output { 3.0 }
-- input { [1.0, 0.0, 3.0] [0.0, 1.0, 0.0] } output { 3.0 }
-- input { [1.0, 0.0, 3.0] [1.0, 0.0, 1.0] } output { 0.0 }
-- input { [0.0, 2.0, 3.0] [1.0, 1.0, 1.0] } output { 6.0 }
-- input { empty([0]f64) empty([0]f64) } output { 0.0 }

entry prod (xs: []f64) (dxs: []f64) = jvp f64.product xs dxs

-- ==
-- entry: explicit
-- input { [2.0, 0.5, 4.0] [1.0, 0.0, 0.0] } output { 2.0 }
-- input { [2.0, 0.0, 0.0] [0.0, 1.0, 1.0] } output { 0.0 }

entry explicit (xs: []f64) (dxs: []f64) = jvp (reduce (*) 1) xs dxs

-- ==
-- entry: ints
-- input { [2, 0, 5] [1, 1, 1] } output { 10 }
-- input { [2, 3, 5] [1, 1, 1] } output { 31 }

entry ints (xs: []i32) (dxs: []i32) = jvp i32.product xs dxs
