-- reduce with array-valued operators: element-wise + and * and max over rows.

-- ==
-- entry: rowsum
-- input { [[-0.48, -0.4], [0.63, -0.82], [0.2, 0.46]] [1.0, -2.0] }
-- output { [[-0.96, 1.6], [1.26, 3.28], [0.4, -1.84]] }
entry rowsum (m: [3][2]f64) (yb: [2]f64) = vjp (\a -> reduce (map2 (+)) [0, 0] (map (map (\t -> t * t)) a)) m yb

-- ==
-- entry: rowprod
-- input { [[1.0, 2.0], [3.0, 0.0], [5.0, 6.0]] [1.0, 1.0] }
-- output { [[15.0, 0.0], [5.0, 12.0], [3.0, 0.0]] }
-- input { [[1.0, 0.0], [3.0, 0.0], [0.5, 6.0]] [2.0, 1.0] }
-- output { [[3.0, 0.0], [1.0, 0.0], [6.0, 0.0]] }
entry rowprod (m: [3][2]f64) (yb: [2]f64) = vjp (\a -> reduce (map2 (*)) [1, 1] a) m yb

-- ==
-- entry: rowmax
-- input { [[1.0, 2.0], [3.0, 8.0], [3.0, 6.0], [0.0, 8.0]] [1.0, 2.0] }
-- output { [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0], [0.0, 0.0]] }
entry rowmax (m: [4][2]f64) (yb: [2]f64) = vjp (\a -> reduce (map2 f64.max) [-f64.inf, -f64.inf] a) m yb
