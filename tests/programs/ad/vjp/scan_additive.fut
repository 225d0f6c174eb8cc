-- Reverse mode of scans, reductions and histograms whose operator adds element-wise on
-- rows, or adds the components of tuples independently (what `jvp` makes of a `+` scan):
-- the adjoint is a reversed `+` scan (scan), a replicated cotangent (reduce) or each value's
-- bin row (hist; zero out of range). Expected values: numpy (reversed cumulative sums) and
-- by hand.

-- ==
-- entry: rows
-- input { [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-2.0, 3.0, 1.0], [0.1, 0.2, 0.3]] [[1.0, 0.0, -1.0], [2.0, 1.0, 0.5], [-1.0, 0.5, 0.0], [0.25, -0.5, 1.0]] }
-- output { [[2.25, -2.0, 2.0], [3.75, 0.5, -2.25], [3.0, 0.0, 2.0], [0.05, -0.2, 0.6]] }
entry rows [n] (m: [n][3]f64) (yb: [n][3]f64) =
  vjp (\a -> scan (map2 (+)) (replicate 3 0) (map (map (\t -> t * t)) a)) m yb

-- ==
-- entry: pairs
-- input { [0.3, -0.7, 1.1, 2.0] [1.0, 2.0, -0.5, 0.25] [1.0, -1.0, 0.5, 2.0] [0.5, 0.5, -2.0, 1.0] }
-- output { [2.5, 2.5, -2.25, 1.5] }
entry pairs [n] (xs: [n]f64) (ys: [n]f64) (ybx: [n]f64) (yby: [n]f64) =
  vjp (\x -> unzip (scan (\(a, b) (c, d) -> (a + c, b + d)) (0, 0) (zip (map2 (*) x ys) x))) xs (ybx, yby)

-- ==
-- entry: rowsum
-- input { [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-2.0, 3.0, 1.0], [0.1, 0.2, 0.3]] [1.0, -2.0, 0.5] }
-- output { [[1.0, 4.0, 2.0], [3.0, -1.0, -0.75], [-4.0, -12.0, 1.0], [0.2, -0.8, 0.3]] }
entry rowsum [n] (m: [n][3]f64) (yb: [3]f64) =
  vjp (\a -> reduce (map2 (+)) (replicate 3 0) (map (map (\t -> t * t)) a)) m yb

-- ==
-- entry: hist_rows
-- input { [0i64, 2i64, 7i64, 2i64] [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [0.5, -1.0]] [[1.0, 10.0], [100.0, 1000.0], [-1.0, -2.0]] }
-- output { [[2.0, 40.0], [-6.0, -16.0], [0.0, 0.0], [-1.0, 4.0]] }
entry hist_rows [n] (is: [n]i64) (vs: [n][2]f64) (yb: [3][2]f64) =
  vjp (\v -> hist (map2 (+)) (replicate 2 0) 3 is (map (map (\t -> t * t)) v)) vs yb
