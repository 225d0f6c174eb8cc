-- reduce, scan, hist and reduce_by_index with operators written as lambdas (not prelude operators).
-- ==
-- entry: red_mul
-- input { [0.0, 2.0, 0.0, 4.0] [1.0, 1.0, 1.0, 1.0] } output { 0.0 }
-- input { [1.0, 0.0, 3.0] [1.0, 1.0, 1.0] } output { 3.0 }
-- input { [2.0, 3.0, 4.0] [1.0, 0.0, 0.5] } output { 15.0 }

entry red_mul (xs: []f64) (dxs: []f64) = jvp (reduce (\a b -> a * b) 1) xs dxs

-- ==
-- entry: scan_max
-- input { [1.0, 3.0, 3.0, 2.0] [1.0, 2.0, 3.0, 4.0] } output { [1.0, 2.0, 2.0, 2.0] }

entry scan_max (xs: []f64) (dxs: []f64) = jvp (scan (\a b -> if a >= b then a else b) f64.lowest) xs dxs

-- ==
-- entry: hist_lambda
-- input { [0i64, 1i64, 0i64, 3i64] [1.0, 2.0, 3.0, 4.0] } output { [4.0, 2.0] }

entry hist_lambda [n] (is: [n]i64) (vs: [n]f64) =
  jvp (\v -> hist (\a b -> a + b) 0 2 is (map (\e -> e * e) v)) vs (replicate n 0.5)

-- ==
-- entry: rbi_max
-- input { [2.0, 2.0] [0i64, 1i64, 1i64] [2.0, 1.0, 5.0] } output { [1.0, 20.0] }

entry rbi_max [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) =
  jvp (\(d, v) -> reduce_by_index (copy d) (\a b -> if a >= b then a else b) f64.lowest is v)
      (dest, vs) (replicate k 1, map (* 10) (map f64.i64 (iota n)))

-- ==
-- entry: argmax
-- input { [1.0, 5.0, 5.0, 2.0] [10.0, 20.0, 30.0, 40.0] } output { 20.0 0i64 }

def amax (v1: f64, i1: i64) (v2: f64, i2: i64) = if v1 >= v2 then (v1, i1) else (v2, i2)

entry argmax [n] (xs: [n]f64) (dxs: [n]f64) =
  jvp (\v -> reduce amax (f64.lowest, -1) (zip v (iota n))) xs dxs
