-- A lambda parameter used as an array (by an inner map) before it is indexed with more
-- indices than that use shows: its element type is not known yet when the index is checked
-- and must become an array, not a "too many indices" error.
-- ==
-- entry: main
-- input { [[[1i64, 2i64], [3i64, 4i64]], [[5i64, 6i64], [7i64, 8i64]]] }
-- output { [3i64, 7i64] }

entry main [n] [m] (xss: [n][m][2]i64) : [n]i64 =
  map (\x -> let ys = map (\_ -> 1i64) x in x[0, 1] + ys[0]) xss
