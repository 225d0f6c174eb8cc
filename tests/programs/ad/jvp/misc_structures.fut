-- Boolean arrays, active integer sizes, split, spread, 2-D hist and scatter values,
-- arrays of records, loops over zipped arrays and loops that grow an array.
-- ==
-- entry: boolmap
-- input { [true, false] } output { [true, true] }

entry boolmap (bs: []bool) = jvp (map not) bs (map (const true) bs)

-- ==
-- entry: active_sizes
-- input { 5i64 3 } output { 0i64 0 }

-- iota has tangent zero in forward mode; the loop count is not differentiated
entry active_sizes (n: i64) (m: i32) =
  (jvp (\k -> i64.sum (iota k)) n 1, jvp (\k -> loop acc = 0 for i < k do acc + i) m 1)

-- ==
-- entry: split_it
-- input { [1.0, 2.0, 3.0, 4.0] } output { [4.0, 6.0] }

entry split_it (xs: [4]f64) = jvp (\v -> let (a, b) = split (v :> [2 + 2]f64) in map2 (*) a b) xs [1, 1, 1, 1]

-- ==
-- entry: spread_it
-- input { [1.0, 2.0, 3.0] } output { [1.0, 0.0, 1.0] }

entry spread_it (vs: []f64) = jvp (\v -> spread 3 1.0 [0, 0, 2] v) vs (map (const 1) vs)

-- ==
-- entry: hist_rows
-- input { [0i64, 1i64, 0i64] [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] }
-- output { [[12.0, 16.0], [6.0, 8.0]] }

entry hist_rows [n] (is: [n]i64) (vs: [n][2]f64) =
  jvp (hist (map2 (+)) (replicate 2 0) 2 is) vs (map (map (* 2)) vs)

-- ==
-- entry: scatter_rows
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]] }

entry scatter_rows (vs: [2][2]f64) = jvp (\v -> scatter (replicate 3 (replicate 2 0)) [2, 0] v) vs vs

-- ==
-- entry: record_array
-- input { [1.0, 2.0] } output { [2.0, 8.0] }

entry record_array (xs: []f64) = jvp (\v -> map (\t -> {a = t, b = t * t}) v) xs xs |> map (\r -> r.b)

-- ==
-- entry: zipped_loop
-- input { [1.0, 2.0] [3.0, 4.0] } output { 22.0 }

entry zipped_loop (xs: []f64) (ys: []f64) =
  jvp (\(a, b) -> loop s = 0 for (p, q) in zip a b do s + p * q) (xs, ys) (xs, ys)

-- ==
-- entry: grow
-- input { 3.0 } output { [1.0, 2.0, 2.0, 4.0] }

entry grow (x: f64) = jvp (\t -> loop v = [t] while length v < 4 do v ++ map (* 2) v) x 1

-- ==
-- entry: empties
-- input { empty([0]f64) } output { empty([0]f64) 0.0 empty([0]f64) empty([0]f64) }

entry empties (xs: []f64) = (jvp (map f64.sin) xs xs, jvp f64.sum xs xs, jvp (scan (*) 1) xs xs, jvp (rotate 3) xs xs)

-- ==
-- entry: rot2d
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] } output { [[60.0, 40.0, 50.0], [30.0, 10.0, 20.0]] }

entry rot2d (m: [][]f64) = jvp (\a -> map (rotate (-1)) a |> rotate 1) m (map (map (* 10)) m)
