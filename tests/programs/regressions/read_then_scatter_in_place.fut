-- A unique array read by a map, then scattered into in place (the shape of the adjoint of
-- `scatter`): the reads must see the values from before the scatter, so the map may not be
-- fused into a later consumer past the scatter.
-- ==
-- entry: main
-- input { [2i64, -1i64, 0i64] [1.0f64, 2.0f64, 3.0f64] }
-- output { [6.0f64, 0.0f64, 2.0f64] [0.0f64, 2.0f64, 0.0f64] }

entry main [n] (is: [n]i64) (ys: *[n]f64) =
  let g = map (\i -> if i >= 0 && i < n then ys[i] else 0) is
  let s = scatter ys is (replicate n 0)
  in (map (* 2) g, s)

-- ==
-- entry: updated_after_read
-- input { [1.0f64, 2.0f64, 3.0f64] }
-- output { [4.0f64, 6.0f64, 8.0f64] [5.0f64, 2.0f64, 3.0f64] }

entry updated_after_read [n] (ys: *[n]f64) =
  let g = map (\x -> x + ys[0]) ys
  let ys[0] = 5
  in (map (* 2) g, ys)

-- ==
-- entry: row_read_after_update
-- input { [1.0f64, 2.0f64, 3.0f64] 1i64 }
-- output { 6.0f64 [1.0f64, 7.0f64, 3.0f64] }

entry row_read_after_update [n] (ys: *[n]f64) (i: i64) =
  let g = map (\x -> x * 3) ys
  let ys[i] = 7
  in (g[i], ys)
